"""Whether an item measured the server, metric by metric: the checks every measurement passes before
any analysis uses it, each with its figure (benchlib/results.py VALIDITY_FIELDS, METRIC_FIELDS).

**Throughput** (`validity`; the CPU per request shares it: same window, same requests):
- **valid**: the window was steady, had no failed request, the load generator was below its
  ceiling and kept the connections busy, and nothing else kept the machine busy;
- **bound**: the load generator set the rate (at its ceiling, saturated, or holding the
  connections), so the throughput is a lower bound of what the app could serve;
- **invalid**: a check failed; the item is kept and listed, never judged.

**Response times** (`latency_validity`: mean and percentiles) need all of that and more: Little's
law (threads = throughput x mean response time: the connections spent the window waiting on the
server, not on the load generator or the window's edges), and every connection served:
- **valid**, **bound** (the throughput was bound: the connections waited in the load generator,
  so the server saw less concurrency than the case's and its response times are lower bounds),
- **unfair**: the server left some connections without an answer for the whole window; its
  throughput stands, and its response times describe only the connections it served,
- **invalid**: the throughput was invalid, or Little's law failed with every connection served.

The load generator's time per request (`loadgen_ms_per_req`: what a connection spends outside
requests) is recorded and never a reason to discard an item: in a closed loop it lowers Little's
ratio most for the fastest server, so judging the throughput by it would drop exactly the faster
framework's rounds. The thresholds, and the figures behind each, are in collect/README.md
("Validity"); the manifest records them (THRESHOLDS).
"""
from benchlib.results import METRIC_FIELDS, VALIDITY_FIELDS
from collect.items.item_stats import SATURATION, UNDERLOADED

# Closed model, no think time: threads = throughput x mean response time, up to the time a thread
# spends inside the load generator between requests. 10 %: beyond it the response times were not
# taken at the case's concurrency (or the window's edges moved the figures).
LITTLE_TOLERANCE = 0.10
# Steady state over the window's bins (benchlib/jtl.BINS): a change of more than TREND_PCT from
# first to last bin that is significant at TREND_ALPHA, or bins that scatter more than SPREAD_CV
# beyond what counting alone explains.
TREND_PCT = 15.0
TREND_ALPHA = 0.01
# The slope's least-squares t assumes independent bins, but the servers' throughput wanders over a
# few seconds, which widens steady windows' t by this much, so t is divided by it (the measurements,
# and what a short window then cannot tell: collect/README.md, "The steady-state check and the
# servers' own wander").
WANDER_T_SCALE = 2.0
SPREAD_CV = 0.25
# The load generator's ceiling (collect/passes/ceiling.py): a cell at this share of what the generator
# drives against the cheapest answer is the generator's limit as much as the app's.
CEILING_SHARE = 0.80
# The machine, beyond the run's own processes: CPU busy with other work (steal included), % of one
# core, above which the app was denied CPU a quiet machine would have given it; set above what a
# quiet machine leaves unexplained (collect/README.md, "The machine's other work").
OTHER_MAX_PCT = 15.0
# The load generator saturated (SATURATION of the CPU it can use) or holding the connections
# (UNDERLOADED: fewer requests in flight than that share of the threads): collect/items/item_stats.py.
# Or holding LOADGEN_SHARE_PCT of all cores of a machine at least MACHINE_BUSY_PCT busy, on the app's
# cores: the app was denied that CPU, so its throughput is a lower bound (from a CPU set of its own it
# denied the app nothing); set where JMeter's cross-check items stopped agreeing with wrk's
# (collect/README.md, Validity, "the load generator holding the machine").
MACHINE_BUSY_PCT = 90.0
LOADGEN_SHARE_PCT = 40.0
# The load generator's CPU per request, on the cores it shares with the server, over the server's
# (app and database): above this share it took CPU the server needed even where the machine had
# room, since a single-threaded server (Node's event loop) is denied a core, not the machine; set
# between the shares at which JMeter's items agreed with wrk's and those at which they fell short
# (collect/README.md, Validity, "the load generator's cost beside the server").
LOADGEN_COST = 0.45

THRESHOLDS = {
    "steady_state": f"throughput changes by at most {TREND_PCT:g} % over the window (or the slope is not "
                    f"significant at p < {TREND_ALPHA}, its t divided by {WANDER_T_SCALE:g} for the servers' "
                    f"own wander), and its bins' coefficient of variation is at most "
                    f"{SPREAD_CV} above counting noise",
    "errors": "no failed request",
    "machine": f"CPU busy beyond the app, database, load generator and the run's own processes "
               f"(steal included) below {OTHER_MAX_PCT:g} % of one core",
    "loadgen_bound": f"throughput below {CEILING_SHARE:.0%} of the load generator's ceiling at the same threads; "
                     f"the load generator below {SATURATION:.0%} of the CPU it can use; on average at least "
                     f"{UNDERLOADED:.0%} of the threads in a request; not (machine ≥ {MACHINE_BUSY_PCT:g} % of all "
                     f"cores with the load generator ≥ {LOADGEN_SHARE_PCT:g} % of them); on the server's cores, "
                     f"its CPU per request at most {LOADGEN_COST:.2f} of the server's (app and database)",
    "littles_law": f"response times only: threads x (1 ± {LITTLE_TOLERANCE}) = throughput x mean response time",
    "unserved": "response times only: every connection completes at least one request inside the window "
                "(else the response times are the served connections' only: unfair)",
}


def trend(bins: list[float]) -> tuple[float | None, float | None]:
    """(change over the window as % of the mean, the slope's two-sided p) by least squares, the
    slope's t divided by WANDER_T_SCALE."""
    from scipy import stats
    if len(bins) < 3 or not sum(bins):
        return None, None
    fit = stats.linregress(range(len(bins)), bins)
    mean = sum(bins) / len(bins)
    if not fit.slope:
        p = 1.0
    elif not fit.stderr:
        p = 0.0  # bins exactly on a sloped line
    else:
        p = float(2 * stats.t.sf(abs(fit.slope / fit.stderr) / WANDER_T_SCALE, len(bins) - 2))
    return round(100 * fit.slope * (len(bins) - 1) / mean, 2), round(p, 4)


def spread(bins: list[float], samples: int) -> float | None:
    """The bins' coefficient of variation less the part counting alone gives (Poisson: 1/√count)."""
    if len(bins) < 2 or not samples:
        return None
    mean = sum(bins) / len(bins)
    sd = (sum((b - mean) ** 2 for b in bins) / (len(bins) - 1)) ** 0.5
    noise = (len(bins) / samples) ** 0.5
    return round(max(0.0, sd / mean - noise), 4)


def per_request(cpu_pct: float | None, window_s: float | None, samples: int) -> float | None:
    """ms of CPU per completed request from a mean CPU % of one core over the window."""
    return round(cpu_pct / 100 * window_s * 1000 / samples, 4) if cpu_pct is not None and samples and window_s else None


def checks(summary: dict, stats: dict, threads: int, cores: int, *, ceiling_rps: float | None,
           loadgen_local: bool, flags: list[str], loadgen: str = "jmeter", shares_cores: bool = True) -> dict:
    """The item's VALIDITY_FIELDS and METRIC_FIELDS from its JTL summary (benchlib/jtl.summarize),
    sampler stats (item_stats.sampler_stats), its threads, this machine's cores, the load
    generator's ceiling at these threads (None: not measured), whether the load generator ran on
    this machine, the flags item_stats gave it, the load generator's name, and whether it ran on
    the server's cores (no CPU set of its own)."""
    samples, rps, mean_ms = summary.get("samples") or 0, summary.get("throughput_rps"), summary.get("mean_ms")
    window_s = summary.get("window_s")
    figures = {key: summary.get(key) for key in ("window_s", "completed_threads", "in_flight_start",
                                                 "in_flight_end", "spanning")}
    figures["threads"] = threads
    figures["littles_ratio"] = round(rps * mean_ms / 1000 / threads, 3) if rps and mean_ms else None
    figures["trend_pct"], figures["trend_p"] = trend(summary.get("bin_rps") or [])
    figures["spread_cv"] = spread(summary.get("bin_rps") or [], samples)
    app, db, generator = (stats.get(k) for k in ("cpu_mean_pct", "db_cpu_mean_pct", "loadgen_cpu_mean_pct"))
    local = [v for v in (app, db, generator if loadgen_local else None) if v is not None]
    figures["machine_cpu_pct"] = round(sum(local) / cores, 1) if local else None
    figures["loadgen_share_pct"] = round(generator / cores, 1) if generator is not None and loadgen_local else None
    figures["ceiling_rps"] = ceiling_rps
    figures["ceiling_share"] = round(rps / ceiling_rps, 3) if rps and ceiling_rps else None
    figures["app_cpu_ms_per_req"] = per_request(app, window_s, samples)
    figures["db_cpu_ms_per_req"] = per_request(db, window_s, samples)
    figures["loadgen"] = loadgen
    figures["loadgen_cpu_ms_per_req"] = per_request(generator, window_s, samples)
    figures["loadgen_ms_per_req"] = round(threads / rps * 1000 - mean_ms, 3) if rps and mean_ms else None
    completed = figures["completed_threads"]
    figures["unserved"] = max(0, threads - completed) if completed is not None else None
    figures["other_cpu_pct"], figures["steal_pct"] = stats.get("other_cpu_pct"), stats.get("steal_pct")

    invalid = reasons_invalid(figures, summary, flags)
    bound = reasons_bound(figures, summary, flags, shares_cores=loadgen_local and shares_cores)
    figures["validity"] = "invalid" if invalid else "bound" if bound else "valid"
    figures["validity_reasons"] = ";".join(invalid + bound)
    figures["latency_validity"], figures["latency_reasons"] = latency_verdict(figures)
    return {key: figures.get(key) for key in (*VALIDITY_FIELDS, *METRIC_FIELDS)}


def reasons_invalid(f: dict, summary: dict, flags: list[str]) -> list[str]:
    """Why the throughput does not describe the server."""
    samples = summary.get("samples") or 0
    if not samples:
        return ["no_samples: no request completed inside the window"]
    found = []
    if summary.get("errors"):
        found.append(f"errors: {summary['errors']} of {samples} requests failed")
    if f["trend_pct"] is not None and abs(f["trend_pct"]) > TREND_PCT and f["trend_p"] < TREND_ALPHA:
        found.append(f"steady_state: throughput changed {f['trend_pct']:+.0f} % over the window "
                     f"(p {f['trend_p']:.3g}; needs within ±{TREND_PCT:g} %)")
    if f["spread_cv"] is not None and f["spread_cv"] > SPREAD_CV:
        found.append(f"steady_state: throughput's spread {f['spread_cv']:.2f} beyond counting noise "
                     f"(needs ≤ {SPREAD_CV})")
    if (f["other_cpu_pct"] or 0) >= OTHER_MAX_PCT:
        found.append(f"machine: {f['other_cpu_pct']:.0f} % of a core busy with other work"
                     + (f" ({f['steal_pct']:.0f} % stolen by the hypervisor)" if f["steal_pct"] else "")
                     + f" (needs < {OTHER_MAX_PCT:g} %)")
    if "engines_out_of_step" in flags:
        found.append("engines_out_of_step: an engine started its window more than 1 s late")
    if "socket_errors" in flags:
        found.append("socket_errors: the load generator lost connections (its output is beside the JTL)")
    return found


def reasons_bound(f: dict, summary: dict, flags: list[str], shares_cores: bool) -> list[str]:
    """Why the throughput is the load generator's rather than the server's."""
    found = []
    if f["ceiling_share"] is not None and f["ceiling_share"] >= CEILING_SHARE:
        found.append(f"loadgen_bound: {f['ceiling_share']:.2f} of the load generator's ceiling "
                     f"({f['ceiling_rps']:.0f} req/s at {f['threads']} threads; bound from {CEILING_SHARE:.2f})")
    if "loadgen_saturated" in flags:
        found.append(f"loadgen_saturated: the load generator used {SATURATION:.0%} or more of the CPU it can use")
    if "underloaded" in flags:
        found.append(f"underloaded: {summary.get('in_flight_mean')} of {f['threads']} requests in flight on average: "
                     f"the connections waited in the load generator (bound from {UNDERLOADED:.0%})")
    if shares_cores and (f["machine_cpu_pct"] or 0) >= MACHINE_BUSY_PCT \
            and (f["loadgen_share_pct"] or 0) >= LOADGEN_SHARE_PCT:
        found.append(f"loadgen_share: the load generator held {f['loadgen_share_pct']:.0f} % of a machine "
                     f"{f['machine_cpu_pct']:.0f} % busy "
                     f"(bound from {LOADGEN_SHARE_PCT:g} % with {MACHINE_BUSY_PCT:g} %)")
    server = (f["app_cpu_ms_per_req"] or 0) + (f["db_cpu_ms_per_req"] or 0)
    if shares_cores and server and (f["loadgen_cpu_ms_per_req"] or 0) > LOADGEN_COST * server:
        found.append(f"loadgen_cost: the load generator spent {f['loadgen_cpu_ms_per_req']:.2f} ms of CPU per "
                     f"request on the server's cores, {f['loadgen_cpu_ms_per_req'] / server:.2f} of the server's "
                     f"{server:.2f} (app and database; bound above {LOADGEN_COST:.2f})")
    return found


def latency_verdict(f: dict) -> tuple[str, str]:
    """(latency_validity, latency_reasons): the response times' verdict, given the throughput's."""
    if f["validity"] == "invalid":
        return "invalid", "throughput: invalid"
    if f["validity"] == "bound":
        return "bound", "throughput: bound (the connections waited in the load generator)"
    reasons = []
    if f["unserved"]:
        reasons.append(f"unserved: {f['unserved']} of {f['threads']} connections completed no request in the window")
    ratio = f["littles_ratio"]
    if ratio is None or abs(ratio - 1) > LITTLE_TOLERANCE:
        reasons.append(f"littles_law: {ratio} (needs {1 - LITTLE_TOLERANCE:.2f}-{1 + LITTLE_TOLERANCE:.2f}; "
                       f"{f['loadgen_ms_per_req']} ms per request outside the server)")
    state = "unfair" if f["unserved"] else "invalid" if reasons else "valid"
    return state, ";".join(reasons)


def protocol(profile, remote_engines: bool) -> dict:
    """How a run checks its measurements, as its manifest records it."""
    return {
        "thresholds": THRESHOLDS,
        "numbers": {"little_tolerance": LITTLE_TOLERANCE, "trend_pct": TREND_PCT, "trend_alpha": TREND_ALPHA,
                    "wander_t_scale": WANDER_T_SCALE,
                    "spread_cv": SPREAD_CV, "ceiling_share": CEILING_SHARE, "other_max_pct": OTHER_MAX_PCT,
                    "saturation": SATURATION, "underloaded": UNDERLOADED, "machine_busy_pct": MACHINE_BUSY_PCT,
                    "loadgen_share_pct": LOADGEN_SHARE_PCT, "loadgen_cost": LOADGEN_COST},
        "metrics": {"throughput": "steady_state, errors, machine, loadgen_bound, loadgen_share and loadgen_cost "
                                  "(bound)",
                    "cpu_per_request": "as the throughput (the same window and requests)",
                    "response_times": "as the throughput, then littles_law and unserved (unfair)"},
        "counting": "samples count by completion inside the window the plan's clock set; requests in "
                    "flight at either edge are counted apart (in_flight_start, in_flight_end, spanning)",
        "warmup": (f"at least {profile.warmup_s:g} s after the last connection started (ramp-up {profile.rampup_s:g} s)"
                   + (f", then until every connection has completed a request, up to {profile.warmup_cap_s:g} s"
                      if profile.warmup_cap_s and not remote_engines else "")),
        "ceiling": "not measured: the load came from remote engines, each judged on its own CPU"
                   if remote_engines else "the load generator against an app's 404 at each thread count, "
                                          "repeated until two attempts agree, before and after the rounds",
        "crosscheck": f"the other load generator on cases {', '.join(map(str, profile.crosscheck_cases))}, in "
                      f"{profile.crosscheck_round_count()} of the rounds, through the same windows and checks"
                      + ("" if profile.crosscheck_always else
                         " (not measured where the reference work shows its CPU per request above the "
                         "servers': crosscheck.skipped)")
                      if profile.crosscheck else None,
        "memory": f"each case on a fresh process under {profile.memory_s:g} s of wrk load (VmHWM), "
                  f"{profile.memory_rounds} per arm and case"
                  if profile.memory_s else "in-window RSS of the apps (restarted per case in this profile)",
    }
