"""Which items the analysis may use, and for which metric, from the checks every item of a checked
run carries (collect/items/validity.py, collect/README.md "Validity"), and what a cell that has none can
say.

An item's throughput is `valid`, `bound` (the load generator set it: a lower bound of the app's) or
`invalid` (never used); its CPU per request and every other figure of its window share that verdict.
Its response times have their own (`latency_validity`, schema 4; earlier runs: the same verdict):
`valid`, `bound`, `unfair` (the server left some connections unserved for the whole window: its
response times describe only the connections it served) or `invalid`. Only items whose throughput is
valid or bound feed the answer, the verdicts and the study's tables, and each metric only where its
own verdict allows (metric_verdict): a valid value is an estimate; a bound item's throughput and
response times are lower bounds of the server's (it could have served more, and with every thread
in the server each request would have waited at least as long), shown as such and never judged; its
CPU per request, CPU and memory are left out, since which way the load generator moved them is not
known. Runs before the checks have none: every ok item counts, as it always did.
"""
import re

import pandas as pd

from analysis.claims import MAX, MIN
from analysis.load import Run

VALID, BOUND, INVALID, UNFAIR = "valid", "bound", "invalid", "unfair"
USABLE = (VALID, BOUND)
# The metrics the response times' own verdict judges; every other one shares the throughput's.
RESPONSE_TIMES = ("mean_ms", "min_ms", "max_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", MIN, MAX)
# What a bound item bounds from below (the server's true value is at least the measured one).
LOWER_BOUNDED = ("throughput_rps", "samples", *RESPONSE_TIMES)
# The figures a verdict of valid or bound rests on: without them the check was never computed, so
# the item cannot have passed it.
NEEDED = ("window_s", "threads", "completed_threads", "littles_ratio")
NOT_RECORDED = "validity: not recorded for this item, so its checks cannot be read"

# What measures a cell that failed a check, by the check's name (the text before ':' in a reason).
MORE_LOAD = ("more load generator: remote JMeter engines on other machines "
             "(docs/your-hardware.md, \"Running on several machines\")")
LONGER = "longer windows, so every thread completes requests in a steady window: `./testbed run --profile study`"
FIXES = {
    "loadgen_bound": MORE_LOAD, "machine": MORE_LOAD, "loadgen_saturated": MORE_LOAD, "loadgen_share": MORE_LOAD,
    "loadgen_cost": MORE_LOAD, "underloaded": MORE_LOAD,
    "threads": LONGER, "steady_state": LONGER, "littles_law": LONGER, "no_samples": LONGER,
    "errors": "the app's errors fixed first (see the item's run.json and log): failed requests are another workload",
    "engines_out_of_step": "engines whose clocks agree (NTP), docs/your-hardware.md, \"Running on several machines\"",
    "validity": "a run by the current collect/, which records every check",
}


def judged(run: Run) -> pd.DataFrame:
    """The ok items, each with its `validity` as the analysis reads it and its `reasons`, and its
    response times' `latency_validity` and `latency_reasons`: as summary.csv recorded them, except
    that an item of a checked run with no verdict, or a usable verdict without the figures behind
    it, is invalid with that reason in every metric. Unchecked runs: every verdict ""."""
    ok = run.summary[run.summary["status"] == "ok"].copy()
    if not run.checked:
        return ok.assign(validity="", reasons="", latency_validity="", latency_reasons="")
    verdicts, reasons, latency, latency_reasons = [], [], [], []
    for _, row in ok.iterrows():
        missing = [f for f in NEEDED if pd.isna(row[f])]
        if row["validity"] not in (*USABLE, INVALID):
            verdicts.append(INVALID), reasons.append(NOT_RECORDED)
        elif row["validity"] in USABLE and missing:
            verdicts.append(INVALID)
            reasons.append(f"validity: {', '.join(missing)} not recorded, so the checks cannot be computed")
        else:
            verdicts.append(row["validity"]), reasons.append(row["validity_reasons"] or "")
        if verdicts[-1] == INVALID:
            latency.append(INVALID), latency_reasons.append(reasons[-1])
        elif row["latency_validity"] not in (*USABLE, UNFAIR, INVALID):
            latency.append(INVALID), latency_reasons.append("latency_validity: not recorded for this item")
        else:
            latency.append(row["latency_validity"]), latency_reasons.append(row["latency_reasons"] or "")
    return ok.assign(validity=verdicts, reasons=reasons, latency_validity=latency, latency_reasons=latency_reasons)


def metric_verdict(items: pd.DataFrame, metric: str) -> pd.Series:
    """Per item (judged's rows), how `metric` may be used: VALID (an estimate), BOUND (a lower
    bound of the server's value) or "" (left out)."""
    verdict = items["latency_validity" if metric in RESPONSE_TIMES else "validity"]
    return verdict.map(lambda s: VALID if s in ("", VALID) else
                       BOUND if s == BOUND and metric in LOWER_BOUNDED else "")


def left_out(items: pd.DataFrame, metric: str) -> dict[str, int]:
    """Of the usable items, how many leave `metric` out, by why: "bound" (a figure a bound item
    cannot bound), "unfair", or "invalid" (the response times' own checks failed)."""
    verdict = items["latency_validity" if metric in RESPONSE_TIMES else "validity"]
    out = metric_verdict(items, metric) == ""
    return {why: int(n) for why, n in verdict[out].value_counts().items() if n}


def usable(run: Run) -> pd.DataFrame:
    """The items analysis uses: ok, and with a valid or bound throughput where the run checked them
    (each metric then by metric_verdict)."""
    items = judged(run)
    return items[items["validity"].isin(("", *USABLE))].drop(columns="reasons")


# Reasons are `;`-separated, and a reason's own text may hold a `;` (`… (321 req/s at 10 threads;
# bound from 0.80)`): a new reason starts only where a check's name and a colon follow.
NEXT_REASON = re.compile(r";(?=[a-z_]+:)")


def check_names(reasons: str) -> list[str]:
    """`littles_law: 0.7 (…);threads: …` -> ["littles_law", "threads"], each once, in order."""
    return list(dict.fromkeys(r.split(":")[0].strip() for r in NEXT_REASON.split(str(reasons)) if r.strip()))


def fixes(reasons: list[str]) -> str:
    names = [n for r in reasons for n in check_names(r)]
    return "; ".join(dict.fromkeys(FIXES.get(n, LONGER) for n in names)) or LONGER


def unmeasurable(run: Run, arms: tuple[str, str]) -> pd.DataFrame:
    """Per api and case where both arms have ok items but no round in which both are usable (a
    paired run) or one arm has no usable item (any other): why, and what would measure it."""
    columns = ["api", "case", "requests", "rows", "joins", "reason", "fix"]
    if not run.checked:
        return pd.DataFrame(columns=columns)
    items = judged(run)
    items = items[items["framework"].isin(arms)]
    records = []
    for (api, case, requests, rows, joins), cell in items.groupby(["api", "case", "requests", "rows", "joins"]):
        good = cell[cell["validity"].isin(USABLE)]
        per_arm = [set(good[good["framework"] == a]["round"]) for a in arms]
        if all(per_arm) and (not run.manifest.paired or per_arm[0] & per_arm[1]):
            continue
        bad = cell[cell["validity"] == INVALID]
        said = []
        for arm in arms:
            mine = bad[bad["framework"] == arm]
            if mine.empty:
                continue
            counted = pd.Series([n for r in mine["reasons"] for n in check_names(r)], dtype=object).value_counts()
            total = int((cell["framework"] == arm).sum())
            said.append(f"{run.display_name(arm)} invalid in {len(mine)} of {total} rounds ("
                        + ", ".join(f"{name} {n}x" for name, n in counted.items()) + ")")
        if not said:
            said.append("no round in which both arms were usable")
        records.append({"api": api, "case": case, "requests": requests, "rows": rows, "joins": joins,
                        "reason": "; ".join(said), "fix": fixes(list(bad["reasons"]))})
    return pd.DataFrame.from_records(records, columns=columns)


def bound_direction(numerator_bound: bool, denominator_bound: bool) -> str:
    """How a ratio numerator / denominator of a LOWER_BOUNDED metric reads when an arm's value was
    a lower bound: that arm's true value is at least the measured one (more throughput, longer
    response times), so the ratio can only be larger (numerator bound), smaller (denominator
    bound), or anything (both)."""
    if numerator_bound and denominator_bound:
        return "both"
    return ">=" if numerator_bound else "<=" if denominator_bound else ""
