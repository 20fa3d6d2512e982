"""The load generator's ceiling: what JMeter drives on this machine at each of a run's thread counts
when the server does next to nothing (benchlib/plans.CEILING_PATH, which an app's router answers
404 without the database), with the run's own plan, windows and JMeter settings. It is measured
before the first round (and on resume, for any thread count still missing), written to the run's
ceiling.csv and its folder `ceiling/NNN/`, and used by every item's `loadgen_bound` check
(collect/validity.py): a cell near it shows JMeter's limit as much as the app's.

With remote engines it is not measured: the load generator is not on this machine, and each
engine's own CPU is judged instead (collect/remote.py).
"""
import csv
import time
from pathlib import Path

from benchlib import apps, plans
from benchlib.jtl import summarize
from benchlib.results import CEILING, CEILING_V3_COLUMNS, PROC
from collect import batch as batches
from collect import item_stats
from collect.batch import Batch, Slot

# The arm whose router answers the ceiling's requests: the cheapest 404 of the study's pair, else
# the run's first arm.
PREFERRED = ("aspnet", "express")


def read(run_dir: Path) -> dict[int, float]:
    """threads -> requests per second JMeter drove, from the run's ceiling.csv ({} if none)."""
    try:
        with open(run_dir / CEILING, newline="") as f:
            return {int(r["threads"]): float(r["throughput_rps"]) for r in csv.DictReader(f) if r["throughput_rps"]}
    except FileNotFoundError:
        return {}


def target(arms: list[str]) -> str:
    return next((a for a in PREFERRED if a in arms), arms[0])


def measure(engine, thread_counts: list[int], progress) -> dict[int, float]:
    """Measures the thread counts ceiling.csv lacks, one JMeter process for all, and returns every
    thread count's ceiling. `engine` is the run's RunEngine (its apps, profile, JMeter, CPU sets)."""
    known = read(engine.dir)
    missing = [t for t in thread_counts if t not in known]
    if not missing or engine.engines:
        return known
    arm = target(list(engine.frameworks))
    engine.ensure_app(arm)
    port = apps.port(engine.frameworks[arm])
    # The first measurement only warms JMeter's JIT and the app up (each round's JMeter is warm
    # by the time it measures most items); it is not recorded.
    batch = Batch(batches.new_folder(engine.dir, engine.dir / "ceiling"),
                  [Slot({"api": "rest", "case": 0, "requests": t, "rows": 1, "joins": 0, "framework": arm},
                        port, plans.ceiling_request(str(port))) for t in [max(missing), *missing]], time.time())
    db_pid = engine.database_pid()
    targets = {"app:" + arm: engine.apps[arm].pid, **({"db": db_pid} if db_pid else {})}
    progress.note(f"ceiling: what JMeter drives at {', '.join(map(str, missing))} threads against "
                  f"{arm}'s GET {plans.CEILING_PATH} (404) …")
    p = engine.profile
    try:
        batches.start(batch, apps.host(), p, engine.jmeter, targets, engine.cpus.get("jmeter"))
        batch.jmeter.wait(timeout=len(batch.slots) * (p.longest() + 30) + 120)
    finally:
        batch.stop()
    rows = [row(batch, i, threads, arm, engine.manifest["machine"]["cores"])
            for i, threads in enumerate(missing, start=1)]
    new = not (engine.dir / CEILING).exists()
    with open(engine.dir / CEILING, "a", newline="") as f:
        writer = csv.DictWriter(f, CEILING_V3_COLUMNS, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        progress.note(f"ceiling: {r['threads']} threads: {r['throughput_rps'] or '-'} req/s, "
                      f"JMeter {r['loadgen_cpu_mean_pct'] or '-'} % of one core")
    return read(engine.dir)


def row(batch: Batch, index: int, threads: int, arm: str, cores: int) -> dict:
    """One thread count's figures, its sampler rows cut to its window beside its JTL."""
    window = batch.window_ms(index)
    folder = batch.folder / f"threads-{threads}"
    folder.mkdir()
    summary = summarize(batch.jtl(index), window) if window else {}
    stats = {}
    if window:
        roles = {f"app:{arm}": "app", "db": "db", "jmeter": "jmeter"}
        for sampled in sorted(batch.raw.iterdir()):
            item_stats.trim(sampled, folder / sampled.name, window[0] / 1000 - batch.t0,
                            window[1] / 1000 - batch.t0, roles)
        stats = item_stats.sampler_stats(folder / PROC)
    busy = [v for v in (stats.get("cpu_mean_pct"), stats.get("db_cpu_mean_pct"), stats.get("loadgen_cpu_mean_pct"))
            if v is not None]
    return {"threads": threads, "iteration": 1, "target": f"{arm} GET {plans.CEILING_PATH} (404)",
            "window_s": summary.get("window_s"), "samples": summary.get("samples"),
            "throughput_rps": summary.get("throughput_rps"), "mean_ms": summary.get("mean_ms"),
            "loadgen_cpu_mean_pct": stats.get("loadgen_cpu_mean_pct"), "app_cpu_mean_pct": stats.get("cpu_mean_pct"),
            "machine_cpu_pct": round(sum(busy) / cores, 1) if busy else None}
