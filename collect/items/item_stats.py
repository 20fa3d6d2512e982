"""From one item's sampler files to its CPU and memory figures, and the flags that say when its
numbers should not be trusted."""
import csv
from pathlib import Path

from benchlib.items import EngineLoad

SATURATION = 0.90  # the load generator busy on this share of the cores it had, on average over the window
# Requests in flight, on average, below this share of the case's threads: the threads spent most
# of their time outside requests (waiting for the CPU in the load generator), so the load
# generator, not the case's concurrency, set the load.
UNDERLOADED = 0.50
# A remote engine whose threads were not all running this long after the measurement's shared start
# time: its warm-up and window began later than the other engines'.
ENGINE_LATE_MS = 1000


def mem_total_kb() -> int:
    with open("/proc/meminfo") as f:
        return int(next(line for line in f if line.startswith("MemTotal:")).split()[1])


def trim(raw: Path, final: Path, start_s: float, end_s: float, roles: dict | None = None) -> None:
    """Keep the sampler rows inside the measured window, with t_s counted from its start. With
    `roles` (sampled role -> role written), only those roles, renamed: a batch samples every app
    as app:<framework>, and each item keeps its own app as `app`."""
    with open(raw) as src, open(final, "w", newline="") as dst:
        reader = csv.reader(src)
        writer = csv.writer(dst, lineterminator="\n")
        writer.writerow(next(reader, []))
        for row in reader:
            if len(row) > 2 and start_s <= float(row[0]) <= end_s and (roles is None or row[1] in roles):
                writer.writerow([f"{float(row[0]) - start_s:.3f}", roles[row[1]] if roles else row[1], *row[2:]])


# The load generator's role in proc.csv (before schema 4 it was always JMeter's).
LOADGEN_ROLES = ("loadgen", "jmeter")
# What the run itself keeps busy besides the item's app, database and load generator: the other
# arms' apps (idle, between their turns), the run engine, the samplers, remote engines' controllers.
OWN_ROLES = ("other-app", "testbed", "samplers")


def sampler_stats(proc_csv: Path) -> dict:
    """CPU (% of one core) and memory figures per role from proc.csv; with the machine's rows
    (schema 4), `other_cpu_pct`: what kept the machine busy beyond the run's own processes
    (steal included), and `steal_pct`. A role with several rows a tick (the other arms' apps)
    counts their sum."""
    cpu, ticks, rss = {}, {}, {}
    with open(proc_csv) as f:
        for row in csv.DictReader(f):
            cpu.setdefault(row["role"], []).append(float(row["cpu_pct"]))
            ticks.setdefault(row["role"], set()).add(row["t_s"])
            rss.setdefault(row["role"], []).append(int(row["rss_kb"]))

    def mean(role):
        values = cpu.get(role, [])
        return round(sum(values) / len(ticks[role]), 2) if values else None

    loadgen = next((r for r in LOADGEN_ROLES if r in cpu), None)
    app_rss = max(rss.get("app", []), default=None)
    own = [mean(role) for role in cpu
           if role in ("app", "db", *LOADGEN_ROLES, *OWN_ROLES) or role.startswith("controller:")]
    machine, steal = mean("machine"), mean("steal")
    return {
        "cpu_peak_pct": max(cpu.get("app", []), default=None),
        "cpu_mean_pct": mean("app"),
        "rss_peak_mb": round(app_rss / 1024, 3) if app_rss is not None else None,
        "mem_peak_pct": round(app_rss / mem_total_kb() * 100, 4) if app_rss is not None else None,
        "db_cpu_mean_pct": mean("db"),
        "loadgen_cpu_peak_pct": max(cpu.get(loadgen, []), default=None),
        "loadgen_cpu_mean_pct": mean(loadgen),
        # Only where the app and the database were sampled: otherwise the machine's busy time holds
        # theirs (the Docker runner's containers, an external server on this machine).
        "other_cpu_pct": round(max(0.0, machine + (steal or 0) - sum(own)), 1)
        if machine is not None and "app" in cpu and "db" in cpu else None,
        "steal_pct": steal,
    }


def saturated(cpu_mean_pct: float, cores: int) -> bool:
    """A load generator busy on SATURATION of its cores, or more, over the window."""
    return cpu_mean_pct >= SATURATION * 100 * cores


def flags(jtl: dict, stats: dict, loadgen_cores: int, threads: int, engines: list[EngineLoad] | None = None,
          socket_errors: int = 0) -> list[str]:
    """Why a finished case's numbers should not be trusted; empty when they can be. `engines`:
    what each remote engine reported (collect/load/remote.take), when the load came from engines;
    `socket_errors`: connections wrk lost (connect, read, write, timeout) during the measurement."""
    found = []
    if (jtl.get("errors") or 0) > 0:
        found.append("errors")
    loadgen = stats.get("loadgen_cpu_mean_pct")
    if loadgen is not None and saturated(loadgen, loadgen_cores):
        found.append("loadgen_saturated")
    in_flight = jtl.get("in_flight_mean")
    if in_flight is not None and in_flight < UNDERLOADED * threads:
        found.append("underloaded")
    if any((e.late_ms or 0) > ENGINE_LATE_MS for e in engines or []):
        found.append("engines_out_of_step")
    if socket_errors:
        found.append("socket_errors")
    return found
