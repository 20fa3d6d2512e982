"""Whether an item measured the server: the checks every measurement passes before any analysis uses
it, each with its figure, and the item's verdict (benchlib/results.py VALIDITY_FIELDS).

- **valid**: every check passed.
- **bound**: the checks passed, but the load generator was at its ceiling (or held the machine), so
  the throughput is what JMeter could drive: a lower bound of what the app could serve.
- **invalid**: a check failed; the item is kept and listed, never judged.

The thresholds, and why each is what it is, are in collect/README.md ("Validity"); the manifest
records them (THRESHOLDS).
"""
from benchlib.results import VALIDITY_FIELDS

# Closed model, no think time: threads = throughput x mean response time, up to the time a thread
# spends inside JMeter between requests. 10 %: beyond it the load generator, not the server, set
# the pace (or the window's edges moved the figures).
LITTLE_TOLERANCE = 0.10
# Steady state over the window's bins (benchlib/jtl.BINS): a change of more than TREND_PCT from
# first to last bin that is significant at TREND_ALPHA, or bins that scatter more than SPREAD_CV
# beyond what counting alone explains.
TREND_PCT = 15.0
TREND_ALPHA = 0.01
SPREAD_CV = 0.25
# The load generator's ceiling: a cell at this share of what JMeter drove at the same threads
# against an endpoint that costs the server next to nothing is JMeter's limit as much as the app's.
CEILING_SHARE = 0.80
# The machine: all its cores busy, with the load generator holding this share of them, means the
# app was denied CPU that the load generator took.
MACHINE_BUSY_PCT = 90.0
LOADGEN_SHARE_PCT = 30.0

THRESHOLDS = {
    "littles_law": f"threads x (1 ± {LITTLE_TOLERANCE}) = throughput x mean response time",
    "threads": "every thread completes at least one request inside the window",
    "steady_state": f"throughput changes by at most {TREND_PCT:g} % over the window (or the slope is not "
                    f"significant at p < {TREND_ALPHA}), and its bins' coefficient of variation is at most "
                    f"{SPREAD_CV} above counting noise",
    "errors": "no failed request",
    "loadgen_bound": f"throughput below {CEILING_SHARE:.0%} of the load generator's ceiling at the same threads; "
                     f"not (machine ≥ {MACHINE_BUSY_PCT:g} % of all cores with the load generator ≥ "
                     f"{LOADGEN_SHARE_PCT:g} % of them); the load generator not saturated",
}


def trend(bins: list[float]) -> tuple[float | None, float | None]:
    """(change over the window as % of the mean, the slope's two-sided p) by least squares."""
    from scipy import stats
    if len(bins) < 3 or not sum(bins):
        return None, None
    fit = stats.linregress(range(len(bins)), bins)
    mean = sum(bins) / len(bins)
    p = float(fit.pvalue) if fit.pvalue == fit.pvalue else 1.0  # NaN: a flat line
    return round(100 * fit.slope * (len(bins) - 1) / mean, 2), round(p, 4)


def spread(bins: list[float], samples: int) -> float | None:
    """The bins' coefficient of variation less the part counting alone gives (Poisson: 1/√count)."""
    if len(bins) < 2 or not samples:
        return None
    mean = sum(bins) / len(bins)
    sd = (sum((b - mean) ** 2 for b in bins) / (len(bins) - 1)) ** 0.5
    noise = (len(bins) / samples) ** 0.5
    return round(max(0.0, sd / mean - noise), 4)


def checks(summary: dict, stats: dict, threads: int, cores: int, *, ceiling_rps: float | None,
           loadgen_local: bool, flags: list[str]) -> dict:
    """The item's VALIDITY_FIELDS from its JTL summary (benchlib/jtl.summarize), sampler stats
    (item_stats.sampler_stats), its threads, this machine's cores, the load generator's ceiling
    at these threads (None: not measured), whether the load generator ran on this machine, and
    the flags item_stats gave it."""
    samples, rps, mean_ms = summary.get("samples") or 0, summary.get("throughput_rps"), summary.get("mean_ms")
    window_s = summary.get("window_s")
    figures = {key: summary.get(key) for key in ("window_s", "completed_threads", "in_flight_start",
                                                 "in_flight_end", "spanning")}
    figures["threads"] = threads
    figures["littles_ratio"] = round(rps * mean_ms / 1000 / threads, 3) if rps and mean_ms else None
    figures["trend_pct"], figures["trend_p"] = trend(summary.get("bin_rps") or [])
    figures["spread_cv"] = spread(summary.get("bin_rps") or [], samples)
    app, db, loadgen = (stats.get(k) for k in ("cpu_mean_pct", "db_cpu_mean_pct", "loadgen_cpu_mean_pct"))
    local = [v for v in (app, db, loadgen if loadgen_local else None) if v is not None]
    figures["machine_cpu_pct"] = round(sum(local) / cores, 1) if local else None
    figures["loadgen_share_pct"] = round(loadgen / cores, 1) if loadgen is not None and loadgen_local else None
    figures["ceiling_rps"] = ceiling_rps
    figures["ceiling_share"] = round(rps / ceiling_rps, 3) if rps and ceiling_rps else None
    for role, cpu in (("app", app), ("db", db)):
        figures[f"{role}_cpu_ms_per_req"] = round(cpu / 100 * window_s * 1000 / samples, 4) \
            if cpu is not None and samples and window_s else None
    bound = reasons_bound(figures, flags)
    invalid = reasons_invalid(figures, summary, flags, loadgen_held=bool(bound))
    figures["validity"] = "invalid" if invalid else "bound" if bound else "valid"
    figures["validity_reasons"] = ";".join(invalid + bound)
    return {key: figures.get(key) for key in VALIDITY_FIELDS}


def reasons_invalid(f: dict, summary: dict, flags: list[str], loadgen_held: bool) -> list[str]:
    """Why the item did not measure the server. A Little's-law shortfall of an item the load
    generator held back (`loadgen_held`) is not among them: its threads spent the time in JMeter,
    which is what `bound` says."""
    samples = summary.get("samples") or 0
    if not samples:
        return ["no_samples: no request completed inside the window"]
    found = []
    if summary.get("errors"):
        found.append(f"errors: {summary['errors']} of {samples} requests failed")
    ratio = f["littles_ratio"]
    threads_ok = f["completed_threads"] is None or f["completed_threads"] >= f["threads"]
    in_jmeter = loadgen_held and threads_ok and ratio is not None and ratio < 1 - LITTLE_TOLERANCE
    if (ratio is None or abs(ratio - 1) > LITTLE_TOLERANCE) and not in_jmeter:
        found.append(f"littles_law: {ratio} (needs {1 - LITTLE_TOLERANCE:.2f}-{1 + LITTLE_TOLERANCE:.2f})")
    if f["completed_threads"] is not None and f["completed_threads"] < f["threads"]:
        found.append(f"threads: {f['completed_threads']} of {f['threads']} completed a request in the window")
    if f["trend_pct"] is not None and abs(f["trend_pct"]) > TREND_PCT and f["trend_p"] < TREND_ALPHA:
        found.append(f"steady_state: throughput changed {f['trend_pct']:+.0f} % over the window "
                     f"(p {f['trend_p']:.3g}; needs within ±{TREND_PCT:g} %)")
    if f["spread_cv"] is not None and f["spread_cv"] > SPREAD_CV:
        found.append(f"steady_state: throughput's spread {f['spread_cv']:.2f} beyond counting noise "
                     f"(needs ≤ {SPREAD_CV})")
    if "engines_out_of_step" in flags:
        found.append("engines_out_of_step: an engine started its window more than 1 s late")
    return found


def reasons_bound(f: dict, flags: list[str]) -> list[str]:
    found = []
    ratio = f["littles_ratio"]
    if f["ceiling_share"] is not None and f["ceiling_share"] >= CEILING_SHARE:
        found.append(f"loadgen_bound: {f['ceiling_share']:.2f} of the load generator's ceiling "
                     f"({f['ceiling_rps']:.0f} req/s at {f['threads']} threads; bound from {CEILING_SHARE:.2f})")
    if (f["machine_cpu_pct"] or 0) >= MACHINE_BUSY_PCT and (f["loadgen_share_pct"] or 0) >= LOADGEN_SHARE_PCT:
        found.append(f"machine: {f['machine_cpu_pct']:.0f} % of all cores busy, the load generator "
                     f"{f['loadgen_share_pct']:.0f} % of them (bound from {MACHINE_BUSY_PCT:g} % with "
                     f"{LOADGEN_SHARE_PCT:g} %)")
    if "loadgen_saturated" in flags:
        found.append("loadgen_saturated: the load generator used 90 % or more of its cores")
    if found and ratio is not None and ratio < 1 - LITTLE_TOLERANCE:
        found.append(f"littles_law: {ratio} (the threads spent {1 - ratio:.0%} of the window in the "
                     f"load generator, not in requests)")
    return found


def protocol(profile, remote_engines: bool) -> dict:
    """How a run checks its measurements, as its manifest records it."""
    return {
        "thresholds": THRESHOLDS,
        "numbers": {"little_tolerance": LITTLE_TOLERANCE, "trend_pct": TREND_PCT, "trend_alpha": TREND_ALPHA,
                    "spread_cv": SPREAD_CV, "ceiling_share": CEILING_SHARE,
                    "machine_busy_pct": MACHINE_BUSY_PCT, "loadgen_share_pct": LOADGEN_SHARE_PCT},
        "counting": "samples count by completion inside the window the plan's clock set; requests in "
                    "flight at either edge are counted apart (in_flight_start, in_flight_end, spanning)",
        "warmup": (f"at least {profile.warmup_s:g} s after the last thread started (ramp-up {profile.rampup_s:g} s)"
                   + (f", then until every thread has completed a request, up to {profile.warmup_cap_s:g} s"
                      if profile.warmup_cap_s and not remote_engines else "")),
        "ceiling": "not measured: the load came from remote engines, each judged on its own CPU"
                   if remote_engines else "JMeter against an app's 404 at each thread count, before the first round",
        "crosscheck": f"wrk, cases 1, 13 and 18, {profile.crosscheck_s:g} s per measurement, every round"
                      if profile.crosscheck_s else None,
        "memory": f"each case on a fresh process under {profile.memory_s:g} s of wrk load (VmHWM)"
                  if profile.memory_s else "in-window RSS of the apps (restarted per case in this profile)",
    }

