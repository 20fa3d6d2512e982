"""The load generator's ceiling: the most it drives at each of a run's thread counts, measured where
the load runs (its CPU set in the run's layout) against the cheapest answer an app gives
(benchlib/plans.CEILING_PATH, which the router answers 404 without the database), with the
generator's CPU set saturated: by the generator alone when it has cores of its own, by the generator
and that cheap server together when they share the machine. An item needs more of the server per
request and at least as much of the generator, so no item should exceed it.

Measured before the first round as one batch of ATTEMPTS attempts at every thread count, so that
JMeter's JIT warms in the attempts before the last ones (a new JVM per attempt measured each one
cold: its items, later in a warm JVM, then drove up to 2.4 times its ceiling), and once more after
the rounds (`when` = after), so a machine that changed during the run shows. The ceiling at a
thread count is the most any attempt drove, and it is stable when the last two attempts agree
within STABLE. Each attempt's rows go to the run's ceiling.csv (schema 4 columns: the load
generator, before or after, the attempt) and the batch's files to `ceiling/NNN/`, numbered on and
never reused, so a batch cut short stays beside the one that redid it. Every item's
`loadgen_bound` check (collect/items/validity.py) uses the ceiling before the rounds.

A CPU set that was not saturated (a server slower than the generator's cheapest answer) gets its
ceiling scaled up to the set's capacity by the generator's CPU per request, and says so
(`saturated` false). With remote engines it is not measured: the load generator is not on this
machine, and each engine's own CPU is judged instead (collect/load/remote.py).
"""
import csv
from pathlib import Path

from benchlib import plans
from benchlib.items import Item
from benchlib.results import CEILING, CEILING_COLUMNS, append_rows
from collect.load import batch as batches
from collect.passes import probe
from collect.load.batch import Measurement
from collect.items.item_stats import SATURATION
from collect.passes.phase_run import PhaseRun
from collect.passes.progress import Progress

# The arm whose router answers the ceiling's requests: the cheapest 404 of the study's pair, else
# the run's first arm.
PREFERRED = ("aspnet", "express")
# The last two attempts within this of each other at every thread count are a stable ceiling: wrk's
# attempts at the same 404 vary by up to 7 % from one to the next on the 2-core machine
# (collect/README.md, "The load generator's ceiling").
STABLE = 0.10
ATTEMPTS = 3
# What a batch of probes costs beyond their seconds of load, for the run's time budget: JMeter's JVM
# start and warm-up, wrk nothing measurable (collect/README.md, "Extra rounds until the interval is
# tight", for the figures).
START_S = {"jmeter": 13}


def rows(run_dir: Path, loadgen: str | None = None) -> list[dict]:
    """ceiling.csv's schema-4 rows (of one load generator), oldest first ([] if none)."""
    try:
        with open(run_dir / CEILING, newline="") as f:
            found = list(csv.DictReader(f))
    except FileNotFoundError:
        return []
    return [r for r in found if "loadgen" in r and (loadgen is None or r["loadgen"] == loadgen)]


def read(run_dir: Path, loadgen: str) -> dict[int, float]:
    """threads -> the ceiling every item is judged by: the most any attempt before the rounds
    drove ({} until measured)."""
    found: dict[int, float] = {}
    for r in rows(run_dir, loadgen):
        if r["when"] == "before" and r["ceiling_rps"]:
            found[int(r["threads"])] = max(found.get(int(r["threads"]), 0.0), float(r["ceiling_rps"]))
    return found


def stable(done: list[dict]) -> bool:
    """Whether the last two attempts agree within STABLE at every thread count."""
    by_attempt: dict[int, dict[int, float]] = {}
    for r in done:
        by_attempt.setdefault(int(r["attempt"]), {})[int(r["threads"])] = float(r["ceiling_rps"] or 0)
    if len(by_attempt) < 2:
        return False
    *_, previous, last = (by_attempt[k] for k in sorted(by_attempt))
    return set(previous) == set(last) and all(previous[t] and abs(last[t] / previous[t] - 1) <= STABLE for t in last)


def target(arms: list[str]) -> str:
    return next((a for a in PREFERRED if a in arms), arms[0])


def measured(run: PhaseRun, loadgen: str, when: str) -> bool:
    """Whether ceiling.csv holds `loadgen`'s ceiling measured `when` (before or after the rounds)."""
    return any(r["when"] == when for r in rows(run.context.dir, loadgen))


def estimate_s(run: PhaseRun, loadgen: str, thread_counts: list[int], when: str = "before") -> float:
    """Roughly how long measure() will take, 0 when it will measure nothing (as for the run's own
    items: none with remote engines)."""
    if run.files.remote or measured(run, loadgen, when):
        return 0
    attempts = ATTEMPTS if when == "before" else 1
    per_probe = probe.probe_profile(run.context.profile).longest() + 1
    return START_S.get(loadgen, 0) + attempts * len(thread_counts) * per_probe


def measure(run: PhaseRun, loadgen: str, thread_counts: list[int], progress: Progress, when: str = "before", *,
            remote: bool) -> dict[int, float]:
    """The ceiling of `loadgen` at `thread_counts`, unless ceiling.csv has it: one batch of
    ATTEMPTS attempts before the rounds, of one attempt after them; returns read(). Not measured
    when the items it would judge are measured by remote engines (`remote`): their load is not
    this machine's."""
    if remote or measured(run, loadgen, when):
        return read(run.context.dir, loadgen)
    arm = target(list(run.context.frameworks))
    host, port = run.apps.address(arm)
    attempts = ATTEMPTS if when == "before" else 1
    progress.note(f"ceiling: what {loadgen} drives {'after the rounds ' if when == 'after' else ''}at "
                  f"{', '.join(map(str, thread_counts))} connections against {arm}'s GET {plans.CEILING_PATH} (404), "
                  f"{attempts} attempt{'s' if attempts > 1 else ''} …")
    run.apps.ensure(arm)
    measurements = [Measurement(Item(framework=arm, api="rest", case=0, requests=t, rows=1, joins=0), host, port,
                                ceiling=True) for _ in range(attempts) for t in thread_counts]
    run_dir = run.context.dir
    figures = probe.measure(run, batches.new_folder(run_dir, run_dir / "ceiling"), measurements, loadgen)
    shared = run.context.loadgen_shares_cores
    new = [row(f, loadgen, when, i // len(thread_counts) + 1, m.item.requests, arm,
               run.context.machine_cores, shared) for i, (f, m) in enumerate(zip(figures, measurements))]
    append_rows(run.context.dir / CEILING, CEILING_COLUMNS, new)
    for r in new:
        progress.note(f"  {loadgen} attempt {r['attempt']}, {r['threads']} connections: {r['throughput_rps'] or '-'} "
                      f"req/s, ceiling {r['ceiling_rps'] or '-'} "
                      f"({'saturated' if r['saturated'] else 'scaled to capacity'})")
    if when == "before" and not stable(new):
        progress.note(f"  the last two attempts differ by more than {STABLE:.0%}: the ceiling is the most any drove")
    return read(run.context.dir, loadgen)


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
