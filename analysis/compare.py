"""Two runs of the same data set side by side (`./testbed compare RUN_A RUN_B`): two machines, two
versions of a framework, `--pin` against not, JMeter against remote engines. It is how a team
checks that a result holds on its own hardware, and how a framework upgrade is measured.

Per framework (arm), API and case that both runs measured, for throughput, p95 and the app's CPU
per request: B/A, run B's mean over run A's, with a 95 % interval from each run's rounds taken as
two independent groups (one run's rounds are not paired with the other's): the delta method on the
log scale with Welch's degrees of freedom (analysis.stats.ratio_of_means), p from the same t, and q
over every judged cell of the comparison (Benjamini-Hochberg). Each side uses what its own run's
checks allow for the metric (analysis.validity.metric_state): a side whose values include a bound
makes the ratio a bound (throughput and p95: >= or <=, validity.bound_direction with B the
numerator); a side with no usable value (every item invalid, or the metric left out: a bound item's
CPU per request, an unfair server's response times) is shown as such; neither is judged.

Two runs can be compared only when both record the same data set (the seeder's checksum, manifest
database.dataset.checksum) and share at least one framework, API and case; otherwise
NotComparable says why, in one line.
"""
import math

import pandas as pd
from scipy import stats

from analysis import validity
from analysis.load import Run
from analysis.stats import ALPHA, benjamini_hochberg, ratio_of_means
from analysis.tables import CASE_COLUMNS

METRICS = ("throughput_rps", "p95_ms", "app_cpu_ms_per_req")
VALID, BOUND, LEFT_OUT, INVALID = "valid", "bound", "left out", "invalid"
COLUMNS = ["framework", "api", *CASE_COLUMNS, "metric", "a_state", "b_state", "a_n", "b_n", "a_mean", "b_mean",
           "ratio", "ratio_low", "ratio_high", "p", "q", "significant", "judged", "bound", "note"]


class NotComparable(ValueError):
    """The two runs hold different data, or share no cell."""


def checksum(run: Run) -> str | None:
    return run.manifest.dataset_checksum


def check(a: Run, b: Run) -> None:
    """Raise NotComparable unless the two runs measured the same data set and share a cell."""
    for run, other in ((a, b), (b, a)):
        if checksum(run) is None:
            raise NotComparable(f"run {run.run_id} records no data set checksum (manifest database.dataset."
                                f"checksum), so it cannot be shown to hold the same rows as {other.run_id}; "
                                "compare runs made by ./testbed run, which records it")
    if checksum(a) != checksum(b):
        raise NotComparable(f"runs {a.run_id} and {b.run_id} measured different data sets (checksum "
                            f"{checksum(a)[:12]}… against {checksum(b)[:12]}…); compare runs of one data set "
                            "(./testbed seed with the same --scale)")
    if not shared(a, b):
        raise NotComparable(f"runs {a.run_id} and {b.run_id} share no framework, API and case with an ok "
                            "iteration: there is nothing to compare")


def measured(run: Run) -> set[tuple]:
    ok = run.summary[run.summary["status"] == "ok"]
    return set(zip(ok["framework"], ok["api"], ok["case"]))


def shared(a: Run, b: Run) -> list[tuple]:
    """(framework, api, case) both runs have an ok iteration of, in run A's order of arms, REST first."""
    order = {arm: i for i, arm in enumerate(a.arms + b.arms)}
    return sorted(measured(a) & measured(b), key=lambda k: (order[k[0]], k[1] != "rest", k[2]))


def side(items: pd.DataFrame, metric: str) -> tuple[str, pd.Series, str]:
    """One run's side of a cell: (state, the values it may use, why it has none), from the cell's
    judged items (analysis.validity.judged)."""
    usable = items[items["validity"].isin(("", *validity.USABLE))]
    state = validity.metric_state(usable, metric)
    values = usable[metric].where(state != "")
    values = values[values > 0]
    if values.empty:
        if usable.empty:
            checks = pd.Series([n for r in items["reasons"] for n in validity.check_names(r)], dtype=object)
            return INVALID, values, ", ".join(f"{n} {k}x" for n, k in checks.value_counts().items())
        return LEFT_OUT, values, ", ".join(f"{n} {why}" for why, n in validity.left_out(usable, metric).items())
    return (BOUND if (state[values.index] == validity.BOUND).any() else VALID), values, ""


def cells(a: Run, b: Run) -> pd.DataFrame:
    """compare.csv: one row per shared framework, API, case and metric (COLUMNS)."""
    items = {run.run_id: validity.judged(run) for run in (a, b)}
    records = []
    for framework, api, case in shared(a, b):
        mine = {rid: found[(found["framework"] == framework) & (found["api"] == api) & (found["case"] == case)]
                for rid, found in items.items()}
        for metric in METRICS:
            (sa, va, why_a), (sb, vb, why_b) = (side(mine[r.run_id], metric) for r in (a, b))
            first = mine[a.run_id].iloc[0]
            record = {"framework": framework, "api": api, **{c: first[c] for c in CASE_COLUMNS}, "metric": metric,
                      "a_state": sa, "b_state": sb, "a_n": len(va), "b_n": len(vb),
                      "a_mean": va.mean() if len(va) else None, "b_mean": vb.mean() if len(vb) else None}
            records.append({**record, **ratio(sa, va, why_a, sb, vb, why_b)})
    found = pd.DataFrame.from_records(records, columns=COLUMNS)
    family = found["judged"].astype(bool)
    found.loc[family, "q"] = benjamini_hochberg(found.loc[family, "p"])
    found["significant"] = family & (found["q"] < ALPHA)
    return found


def ratio(sa: str, va: pd.Series, why_a: str, sb: str, vb: pd.Series, why_b: str) -> dict:
    """B/A with its interval and p where both sides are valid; a bound, or why not, otherwise."""
    none = {"ratio": None, "ratio_low": None, "ratio_high": None, "p": None, "q": None, "judged": False, "bound": ""}
    if INVALID in (sa, sb) or LEFT_OUT in (sa, sb):
        return {**none, "note": "; ".join(f"run {name}: {state} ({why})" for name, state, why in
                                          (("A", sa, why_a), ("B", sb, why_b)) if state in (INVALID, LEFT_OUT))}
    value = vb.mean() / va.mean()
    if BOUND in (sa, sb):
        bound = validity.bound_direction(sb == BOUND, sa == BOUND)
        who = {">=": "run B", "<=": "run A", "both": "both runs"}[bound]
        return {**none, "ratio": value, "bound": bound, "note": f"bound: {who} load-generator bound"}
    r = ratio_of_means(vb, va)
    p = float(2 * stats.t.sf(abs(math.log(r.value)) / r.log_se, r.df)) if r.low is not None else None
    return {**none, "ratio": r.value, "ratio_low": r.low, "ratio_high": r.high, "p": p, "judged": p is not None,
            "note": r.reason}
