"""What one latency measurement (collect/passes/latency.py) measured, and whether it measured the server:
its figures (benchlib/results.LATENCY_COLUMNS, window_s to validity_reasons) from its samples, its
schedule and the samplers.

- **valid**: JMeter held the schedule and every figure could be computed.
- **bound**: JMeter's own lag set the latencies as much as the server did (the 99th percentile of
  the time JMeter held arrivals that a thread had in time above LAG_MS and above LAG_SHARE of the
  measured p99), or the machine was busy with the load generator holding a share of it on the
  server's cores (MACHINE_BUSY_PCT, LOADGEN_SHARE_PCT), or (remote engines) an engine started late
  or sent far less of its share than another (START_LATE_MS, ENGINE_SHARE); not judged.
- **invalid**: nothing was sent, a request failed, or the window is unknown.

`saturated` is a result, not a fault: the server could not keep up with the rate (its pool of
connections all busy so that arrivals went out late, or fewer than SATURATED_SENT of them sent).
The thresholds and why they are what they are: collect/README.md ("The latency profile").
"""
import csv
from dataclasses import dataclass
from pathlib import Path

# The machine: all its cores busy, with JMeter holding this share of them, means the app was denied
# CPU that JMeter took, and JMeter's sends ran late for want of CPU.
MACHINE_BUSY_PCT = 90.0
LOADGEN_SHARE_PCT = 30.0
# An arrival sent more than this after its intended time is late (a few ms is the scheduler's and
# the JVM's own jitter on a loaded 2-core machine).
LATE_MS = 10
# JMeter's own lag (an arrival in a thread's hands in time, sent late) bounds a measurement when its
# p99 is over LAG_MS and over LAG_SHARE of the measured p99, i.e. when it is what the latencies
# show rather than a few held arrivals every shared machine has (collect/README.md, "The latency
# profile", for the figures and the share-of-arrivals rule this replaced).
LAG_MS = 10
LAG_SHARE = 0.10
# On remote engines every measurement starts at a shared wall-clock time; an engine whose threads
# first took an arrival later than this after it (the measurement before still running there) sent
# its first arrivals late for its own reasons, not the server's.
START_LATE_MS = 100
# On remote engines each has an equal part of the pool and every k-th arrival, and a server that
# falls behind does so for every engine alike, so an engine that sent less than this share of
# another's arrivals (twice the widest gap between engines that agreed) dropped them itself or was
# served unequally, which the samples cannot tell apart, and the measurement is not judged
# (collect/README.md, "The latency profile", for the measurements).
ENGINE_SHARE = 0.8
# Arrivals late because every pool thread was busy, beyond this share: the server fell behind.
POOL_LATE_SHARE = 0.01
SATURATED_SENT = 0.95
PERCENTILES = (("p50_ms", 50), ("p90_ms", 90), ("p95_ms", 95), ("p99_ms", 99), ("p999_ms", 99.9))

THRESHOLDS = {
    "late": f"sent more than {LATE_MS} ms after the intended time",
    "bound": f"JMeter's own lag (taken by a thread in time, sent late), at its p99, above {LAG_MS} ms and above "
             f"{LAG_SHARE:.0%} of the measured p99 latency, or the machine ≥ {MACHINE_BUSY_PCT:g} % of all cores "
             f"busy with the load generator ≥ {LOADGEN_SHARE_PCT:g} % of them, or (remote engines) an engine "
             f"that started the schedule more than {START_LATE_MS} ms after its shared start or sent under "
             f"{ENGINE_SHARE:.0%} of another engine's share of its arrivals",
    "invalid": "no arrival sent, a failed request, or no window",
    "saturated": f"arrivals late because every pool thread was busy above {POOL_LATE_SHARE:.0%} of the "
                 f"scheduled ones, or fewer than {SATURATED_SENT:.0%} of them sent by the window's end",
}


def window_samples(batch_jtl: Path, out: Path, w0: int, w1: int) -> list[dict]:
    """The samples of arrivals intended inside [w0, w1) (epoch ms), written to `out` as the JTL
    they came from; returns them."""
    out.parent.mkdir(parents=True, exist_ok=True)
    kept = []
    with open(batch_jtl, newline="") as src, open(out, "w", newline="") as dst:
        reader = csv.DictReader(src)
        writer = csv.DictWriter(dst, reader.fieldnames, lineterminator="\n")
        writer.writeheader()
        for row in reader:
            if w0 <= int(row["intended_ms"]) < w1:
                writer.writerow(row)
                kept.append(row)
    return kept


@dataclass(frozen=True)
class Engines:
    """What remote engines tell of a measurement: how late, in ms after the shared start, the latest
    engine's threads took their first arrival (0 when before it; None without a sample), and each
    engine's (sent, scheduled) arrivals inside the window."""
    late_start_ms: int | None
    sent: tuple[tuple[int, int], ...]


def engines(parts: list[Path], shares: list[list[int]], start_ms: int, w0: int, w1: int) -> Engines:
    """The Engines of a measurement from each engine's JTL (warm-up included; a missing one sent
    nothing) and its share of the schedule (offsets from `start_ms`, remote.divide)."""
    lates, sent = [], []
    for part, share in zip(parts, shares):
        try:
            with open(part, newline="") as f:
                rows = [(int(r["picked_ms"]), int(r["intended_ms"])) for r in csv.DictReader(f)]
        except OSError:
            rows = []
        if rows:
            lates.append(max(0, min(picked for picked, _ in rows) - start_ms))
        sent.append((sum(1 for _, intended in rows if w0 <= intended < w1),
                     sum(1 for t in share if w0 <= start_ms + t < w1)))
    return Engines(max(lates, default=None), tuple(sent))


def percentiles(values: list[float]) -> list[float | None]:
    import numpy as np
    if not values:
        return [None] * len(PERCENTILES)
    # The (n+1)p rank, as benchlib/jtl.py and JMeter's dashboard compute theirs.
    return [round(float(v), 3) for v in np.percentile(values, [p for _, p in PERCENTILES], method="weibull")]


def figures(samples: list[dict], scheduled: int, window_s: float, stats: dict, cores: int,
            remote: Engines | None = None, shares_cores: bool = True) -> dict:
    """The measurement's figures and verdict from its window's samples (window_samples), how many
    arrivals the schedule put in the window, the sampler stats (item_stats.sampler_stats), on
    remote engines what they tell (engines), and whether JMeter ran on the server's cores (no CPU
    set of its own)."""
    sent = len(samples)
    errors = sum(1 for s in samples if s["success"].lower() != "true")
    start = [int(s["timeStamp"]) for s in samples]
    intended = [int(s["intended_ms"]) for s in samples]
    picked = [int(s["picked_ms"]) for s in samples]
    late = sum(1 for t, i in zip(start, intended) if t - i > LATE_MS)
    # Taken by a free thread in time (or late by the pool) and then held by JMeter itself.
    late_loadgen = sum(1 for t, i, p in zip(start, intended, picked) if t - max(i, p) > LATE_MS)
    late_pool = sum(1 for i, p in zip(intended, picked) if p - i > LATE_MS)
    lag = [t - max(i, p) for t, i, p in zip(start, intended, picked)]
    latency = [int(s["timeStamp"]) + int(s["elapsed"]) - int(s["intended_ms"]) for s in samples]
    row = {"window_s": window_s, "scheduled": scheduled, "sent": sent, "completed": sent, "errors": errors,
           "achieved_rps": round(sent / window_s, 3), "late": late, "late_loadgen": late_loadgen,
           "dropped": max(0, scheduled - sent)}
    row.update(zip([k for k, _ in PERCENTILES], percentiles(latency)))
    row["service_p99_ms"] = percentiles([float(s["elapsed"]) for s in samples])[3]
    app, db, loadgen = (stats.get(k) for k in ("cpu_mean_pct", "db_cpu_mean_pct", "loadgen_cpu_mean_pct"))
    busy = [v for v in (app, db, loadgen) if v is not None]
    row["loadgen_cpu_mean_pct"] = loadgen
    row["machine_cpu_pct"] = round(sum(busy) / cores, 1) if busy else None
    row["saturated"] = bool(scheduled) and (late_pool > POOL_LATE_SHARE * scheduled
                                            or sent < SATURATED_SENT * scheduled)
    invalid = reasons_invalid(row)
    bound = reasons_bound(row, percentiles(lag)[3], loadgen, cores, remote, shares_cores)
    row["validity"] = "invalid" if invalid else "bound" if bound else "valid"
    row["validity_reasons"] = ";".join(invalid + bound)
    return row


def reasons_invalid(row: dict) -> list[str]:
    if not row["scheduled"]:
        return ["no_arrivals: the schedule put no arrival in the window"]
    if not row["sent"]:
        return ["no_samples: no arrival was sent in the window"]
    return [f"errors: {row['errors']} of {row['sent']} requests failed"] if row["errors"] else []


def reasons_bound(row: dict, lag_p99: float | None, loadgen: float | None, cores: int,
                  remote: Engines | None = None, shares_cores: bool = True) -> list[str]:
    found = reasons_engines(remote) if remote else []
    if lag_p99 is not None and row["p99_ms"] is not None and lag_p99 > max(LAG_MS, LAG_SHARE * row["p99_ms"]):
        found.append(f"loadgen_lag: JMeter held arrivals {lag_p99:.0f} ms at its p99, against a p99 latency of "
                     f"{row['p99_ms']:.0f} ms (bound above {LAG_MS} ms and {LAG_SHARE:.0%} of it, "
                     f"{row['late_loadgen']} arrivals over {LATE_MS} ms)")
    share = loadgen / cores if loadgen is not None else None
    if shares_cores and (row["machine_cpu_pct"] or 0) >= MACHINE_BUSY_PCT and (share or 0) >= LOADGEN_SHARE_PCT:
        found.append(f"machine: {row['machine_cpu_pct']:.0f} % of all cores busy, the load generator "
                     f"{share:.0f} % of them (bound from {MACHINE_BUSY_PCT:g} % with {LOADGEN_SHARE_PCT:g} %)")
    return found


def reasons_engines(remote: Engines) -> list[str]:
    found = []
    if remote.late_start_ms is not None and remote.late_start_ms > START_LATE_MS:
        found.append(f"late_start: an engine took its first arrival {remote.late_start_ms} ms after the shared "
                     f"start (bound above {START_LATE_MS} ms, the measurement before still running there)")
    shares = [(sent / scheduled, sent, scheduled) for sent, scheduled in remote.sent if scheduled]
    if shares and min(shares)[0] < ENGINE_SHARE * max(shares)[0]:
        (_, low, of_low), (_, high, of_high) = min(shares), max(shares)
        found.append(f"engine_share: an engine sent {low} of its {of_low} arrivals, another {high} of {of_high} "
                     f"(bound below {ENGINE_SHARE:.0%} of another's share: a server falling behind falls behind "
                     f"every engine alike, so the drops were the engine's, or the server served its connections "
                     f"unequally, which the samples cannot tell apart)")
    return found


def protocol() -> dict:
    return {"thresholds": THRESHOLDS,
            "numbers": {"late_ms": LATE_MS, "lag_ms": LAG_MS, "lag_share": LAG_SHARE,
                        "pool_late_share": POOL_LATE_SHARE, "saturated_sent": SATURATED_SENT,
                        "machine_busy_pct": MACHINE_BUSY_PCT, "loadgen_share_pct": LOADGEN_SHARE_PCT,
                        "start_late_ms": START_LATE_MS, "engine_share": ENGINE_SHARE}}
