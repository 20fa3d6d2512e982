"""The load generator's ceiling: the most it drives at each of a run's thread counts, measured where
the load runs (its CPU set in the run's layout) against the cheapest answer an app gives
(benchlib/plans.CEILING_PATH, which the router answers 404 without the database), with the
generator's CPU set saturated: by the generator alone when it has cores of its own, by the generator
and that cheap server together when they share the machine. An item needs more of the server per
request and at least as much of the generator, so no item can exceed it.

Measured before the first round, in attempts until two in a row agree within STABLE (a first attempt
also warms the JIT of JMeter and the app; at most MAX_ATTEMPTS), and once more after the rounds (`when` = after), so a
machine that changed during the run shows. Each attempt's rows go to the run's ceiling.csv (schema 4
columns: the load generator, before or after, the attempt) and its files to `ceiling/NNN/`, numbered
on and never reused, so an attempt cut short stays beside the one that redid it. Every item's `loadgen_bound` check
(collect/validity.py) uses the last attempt before the rounds.

A CPU set that was not saturated (a server slower than the generator's cheapest answer) gets its
ceiling scaled up to the set's capacity by the generator's CPU per request, and says so
(`saturated` false). With remote engines it is not measured: the load generator is not on this
machine, and each engine's own CPU is judged instead (collect/remote.py).
"""
import csv
from pathlib import Path

from benchlib import apps, plans
from benchlib.results import CEILING, CEILING_COLUMNS
from collect import batch as batches
from collect import probe
from collect.batch import Slot
from collect.item_stats import SATURATION

# The arm whose router answers the ceiling's requests: the cheapest 404 of the study's pair, else
# the run's first arm.
PREFERRED = ("aspnet", "express")
# Two attempts in a row within this of each other at every connection count are a stable ceiling:
# on the 2-core machine wrk's 2 s probes of the same 404 vary by up to 7 % from one attempt to the
# next (18,271 then 18,243, 14,909 then 14,470, 13,454 then 14,347 req/s), so 5 % was reached only
# by luck and every run spent its four attempts.
STABLE = 0.10
MAX_ATTEMPTS = 3


def rows(run_dir: Path, loadgen: str | None = None) -> list[dict]:
    """ceiling.csv's schema-4 rows (of one load generator), oldest first ([] if none)."""
    try:
        with open(run_dir / CEILING, newline="") as f:
            found = list(csv.DictReader(f))
    except FileNotFoundError:
        return []
    return [r for r in found if "loadgen" in r and (loadgen is None or r["loadgen"] == loadgen)]


def read(run_dir: Path, loadgen: str) -> dict[int, float]:
    """threads -> the ceiling every item is judged by: the last attempt before the rounds, once two
    in a row agreed ({} until then)."""
    before = [r for r in rows(run_dir, loadgen) if r["when"] == "before" and r["ceiling_rps"]]
    last = max((int(r["attempt"]) for r in before), default=0)
    return {int(r["threads"]): float(r["ceiling_rps"]) for r in before if int(r["attempt"]) == last} \
        if stable(before) else {}


def stable(before: list[dict]) -> bool:
    """Whether the last two attempts agree within STABLE at every thread count (or the attempts
    ran out)."""
    by_attempt: dict[int, dict[int, float]] = {}
    for r in before:
        by_attempt.setdefault(int(r["attempt"]), {})[int(r["threads"])] = float(r["ceiling_rps"])
    if len(by_attempt) >= MAX_ATTEMPTS:
        return True
    if len(by_attempt) < 2:
        return False
    *_, previous, last = (by_attempt[k] for k in sorted(by_attempt))
    return set(previous) == set(last) and all(abs(last[t] / previous[t] - 1) <= STABLE for t in last)


def target(arms: list[str]) -> str:
    return next((a for a in PREFERRED if a in arms), arms[0])


def measure(engine, loadgen: str, thread_counts: list[int], progress, when: str = "before") -> dict[int, float]:
    """Attempts until the ceiling is stable (before the rounds) or one attempt (after), each a
    batch of `loadgen` over `thread_counts`; returns read(). `engine` is the run's RunEngine (its
    apps, layout and JMeter)."""
    if engine.sink.remote:
        return {}
    arm = target(list(engine.frameworks))
    port = apps.port(engine.frameworks[arm])
    progress.note(f"ceiling: what {loadgen} drives {'after the rounds ' if when == 'after' else ''}at "
                  f"{', '.join(map(str, thread_counts))} connections against {arm}'s GET {plans.CEILING_PATH} (404) …")
    while True:
        done = [r for r in rows(engine.dir, loadgen) if r["when"] == when]
        if (when == "before" and stable(done)) or (when == "after" and done):
            break
        attempt = 1 + max((int(r["attempt"]) for r in done), default=0)
        engine.ensure_app(arm)
        folder = batches.new_folder(engine.dir, engine.dir / "ceiling")
        slots = [Slot({"api": "rest", "case": 0, "requests": t, "rows": 1, "joins": 0, "framework": arm}, port,
                      ceiling=True) for t in thread_counts]
        measured = probe.run(engine, folder, slots, loadgen)
        shared = not engine.cpus.get("loadgen")
        new = [row(f, loadgen, when, attempt, t, arm, engine.manifest["machine"]["cores"], shared)
               for f, t in zip(measured, thread_counts)]
        append(engine.dir / CEILING, new)
        for r in new:
            progress.note(f"  {loadgen} attempt {attempt}, {r['threads']} connections: {r['throughput_rps'] or '-'} req/s, "
                          f"ceiling {r['ceiling_rps'] or '-'} ({'saturated' if r['saturated'] else 'scaled to capacity'})")
    return read(engine.dir, loadgen)


def append(path: Path, new: list[dict]) -> None:
    fresh = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, CEILING_COLUMNS, lineterminator="\n")
        if fresh:
            writer.writeheader()
        writer.writerows({k: "" if r.get(k) is None else r[k] for k in CEILING_COLUMNS} for r in new)


def row(f: probe.Figures, loadgen: str, when: str, attempt: int, threads: int, arm: str, cores: int,
        shared: bool) -> dict:
    """One thread count's figures. The generator's CPU set is `f.cores` cores; wrk runs a thread
    per connection and JMeter as many as it likes, so either can use the whole set. Sharing the
    machine, the set is saturated by the generator and the cheap server together."""
    app, db, generator = (f.stats.get(k) for k in ("cpu_mean_pct", "db_cpu_mean_pct", "loadgen_cpu_mean_pct"))
    capacity = 100 * min(f.cores, threads)
    used = (generator or 0) + ((app or 0) + (db or 0) if shared else 0)
    saturated = used >= SATURATION * capacity
    rps = f.rps
    ceiling = rps if saturated or not rps or not used else round(rps * capacity / used, 3)
    busy = [v for v in (app, db, generator) if v is not None]
    return {"loadgen": loadgen, "when": when, "attempt": attempt, "threads": threads,
            "target": f"{arm} GET {plans.CEILING_PATH} (404)", "window_s": f.summary.get("window_s"),
            "samples": f.summary.get("samples"), "throughput_rps": rps, "mean_ms": f.summary.get("mean_ms"),
            "loadgen_cpu_mean_pct": generator, "loadgen_cpu_ms_per_req": f.per_request("loadgen_cpu_mean_pct"),
            "loadgen_capacity_pct": capacity, "saturated": saturated, "ceiling_rps": ceiling,
            "app_cpu_mean_pct": app, "machine_cpu_pct": round(sum(busy) / cores, 1) if busy else None}
