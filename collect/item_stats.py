"""From one item's sampler files to its CPU and memory figures, and the flags that say when its
numbers should not be trusted."""
import csv
from pathlib import Path

SATURATION = 0.90  # JMeter busy on this share of the cores it had, on average over the window
# Requests in flight, on average, below this share of the case's threads: the threads spent most
# of their time outside requests (waiting for the CPU in JMeter), so the load generator, not the
# case's concurrency, set the load.
UNDERLOADED = 0.50
# A remote engine whose threads were not all running this long after the measurement's shared start
# time: its warm-up and window began later than the other engines'.
LATE_MS = 1000


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


def sampler_stats(proc_csv: Path) -> dict:
    """CPU (% of one core) and memory figures per role from proc.csv."""
    cpu, rss = {}, {}
    with open(proc_csv) as f:
        for row in csv.DictReader(f):
            cpu.setdefault(row["role"], []).append(float(row["cpu_pct"]))
            rss.setdefault(row["role"], []).append(int(row["rss_kb"]))

    def mean(values):
        return round(sum(values) / len(values), 2) if values else None

    app_rss = max(rss.get("app", []), default=None)
    return {
        "cpu_peak_pct": max(cpu.get("app", []), default=None),
        "cpu_mean_pct": mean(cpu.get("app", [])),
        "rss_peak_mb": round(app_rss / 1024, 3) if app_rss is not None else None,
        "mem_peak_pct": round(app_rss / mem_total_kb() * 100, 4) if app_rss is not None else None,
        "db_cpu_mean_pct": mean(cpu.get("db", [])),
        "loadgen_cpu_peak_pct": max(cpu.get("jmeter", []), default=None),
        "loadgen_cpu_mean_pct": mean(cpu.get("jmeter", [])),
    }


def saturated(cpu_mean_pct: float, cores: int) -> bool:
    """A load generator busy on SATURATION of its cores, or more, over the window."""
    return cpu_mean_pct >= SATURATION * 100 * cores


def flags(jtl: dict, stats: dict, loadgen_cores: int, threads: int, engines: list[dict] | None = None) -> list[str]:
    """Why a finished case's numbers should not be trusted; empty when they can be. `engines`:
    what each remote engine reported (collect/remote.take), when the load came from engines."""
    found = []
    if (jtl.get("errors") or 0) > 0:
        found.append("errors")
    loadgen = stats.get("loadgen_cpu_mean_pct")
    if loadgen is not None and saturated(loadgen, loadgen_cores):
        found.append("loadgen_saturated")
    in_flight = jtl.get("in_flight_mean")
    if in_flight is not None and in_flight < UNDERLOADED * threads:
        found.append("underloaded")
    if any((e.get("late_ms") or 0) > LATE_MS for e in engines or []):
        found.append("engines_out_of_step")
    return found
