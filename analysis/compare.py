"""Two runs of the same data set side by side (`./testbed compare RUN_A RUN_B`): two machines, two
versions of a framework, `--pin` against not, JMeter against remote engines. It is how a team
checks that a result holds on its own hardware, and how a framework upgrade is measured.

Per framework (arm), API and case that both runs measured, for throughput, p95 and the app's CPU
per request: B/A, run B's mean over run A's, with a 95 % interval from each run's rounds taken as
two independent groups (one run's rounds are not paired with the other's): the delta method on the
log scale with Welch's degrees of freedom (analysis.stats.ratio_of_means), p from the same t, and q
over every judged cell of the comparison (Benjamini-Hochberg). Each side uses what its own run's
checks allow for the metric (analysis.validity.metric_verdict): a side whose values include a bound
makes the ratio a bound (throughput and p95: >= or <=, validity.bound_direction with B the
numerator); a side with no usable value (every item invalid, or the metric left out: a bound item's
CPU per request, an unfair server's response times) is shown as such; neither is judged.

Two runs can be compared only when both record the same data set (the seeder's checksum, manifest
database.dataset.checksum) and share at least one framework, API and case; otherwise
NotComparable says why, in one line.

The spread between runs. Each run's rounds say how precisely that run measured, not how far the
next run of the same code would land: issue 53 compared three runs of one commit this way and 5
of 31 judged rows (16 %) came out significant. Where a pool of runs like these two exists
(`./testbed pool`: same data set, load generator, layout, machine and settings as both runs; the
commit may differ, since a comparison of two versions needs the spread between runs of one version
as much as any), its tau is added: each run of a cell carries its own run's departure, u ~ N(0,
tau^2), so B/A's log has variance s^2 + 2 tau^2 (s^2 the within-run part above), and its degrees of
freedom are Welch-Satterthwaite's over the two parts, tau^2 on the pool's (sum over its cells of
runs - 1). A framework's own figures take the tau of that framework's own figures (per API and
metric), the ratios between runs (below) the tau of the framework ratio. Which pool (spread_for):
`--pool DIR` names one, which must be of runs like these two; by default the last pool folder
under the results directory, by name, that is; `--pool none` uses none. Without one the page says
plainly that its intervals are within-run only.

The ratios between runs. What a user came for is the framework ratio (ASP.NET Core / Express.js,
or the answer's reference over each other framework), so besides each framework's own B/A the
comparison gives, per comparison of run A's framework answer that run B has too, API, case and
metric, run B's ratio over run A's: each run's ratio as its report computes it
(analysis.tables.compare_arms: paired rounds or independent groups), the two logs' variances plus
2 tau^2 added, Welch-Satterthwaite's degrees of freedom, q over the judged rows of this table
(their own family: a question apart from the frameworks' own figures). A bound in either run makes
it a bound (run A's ratio is the denominator, so its bound turns round); no interval in either,
no test.
"""
import math
from pathlib import Path

import pandas as pd
from scipy import stats

from analysis import answer, meta, pool_files, tables, validity
from analysis.differing import differing
from analysis.load import Run
from analysis.pool_files import OWN, RATIO, Spread
from analysis.stats import ALPHA, CONFIDENCE, benjamini_hochberg, interval_of, ratio_of_means
from analysis.tables import CASE_COLUMNS
from benchlib.results import ResultFileError

METRICS = ("throughput_rps", "p95_ms", "app_cpu_ms_per_req")
VALID, BOUND, LEFT_OUT, INVALID = "valid", "bound", "left out", "invalid"
# `tau`: the spread between runs added to the row's interval (empty: within-run only).
COLUMNS = ["framework", "api", *CASE_COLUMNS, "metric", "a_state", "b_state", "a_n", "b_n", "a_mean", "b_mean",
           "ratio", "ratio_low", "ratio_high", "p", "q", "significant", "judged", "bound", "note", "tau"]
# ratios.csv: run B's framework ratio over run A's; a_ratio and b_ratio are each run's numerator / denominator.
RATIO_COLUMNS = ["numerator", "denominator", "api", *CASE_COLUMNS, "metric", "a_ratio", "a_low", "a_high",
                 "b_ratio", "b_low", "b_high", "ratio", "ratio_low", "ratio_high", "p", "q", "significant", "judged",
                 "bound", "note", "tau"]
NO_POOL = "none"
# A ratio's bound read for its reciprocal (run A's ratio is the denominator of B's over A's).
INVERSE_BOUND = {">=": "<=", "<=": ">=", "both": "both"}


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
    """One run's side of a cell: (verdict, the values it may use, why it has none), from the cell's
    judged items (analysis.validity.judged)."""
    usable = items[items["validity"].isin(("", *validity.USABLE))]
    verdict = validity.metric_verdict(usable, metric)
    values = usable[metric].where(verdict != "")
    values = values[values > 0]
    if values.empty:
        if usable.empty:
            checks = pd.Series([n for r in items["reasons"] for n in validity.check_names(r)], dtype=object)
            return INVALID, values, ", ".join(f"{n} {k}x" for n, k in checks.value_counts().items())
        return LEFT_OUT, values, ", ".join(f"{n} {why}" for why, n in validity.left_out(usable, metric).items())
    return (BOUND if (verdict[values.index] == validity.BOUND).any() else VALID), values, ""


def spread_for(a: Run, b: Run, results_dir: Path, chosen: str | None = None) -> Spread | None:
    """The pool whose tau the comparison uses (module docstring): `chosen` (--pool, a folder under
    results_dir or a path; NO_POOL for none), else the last pool under results_dir of runs like
    these two; None when there is none. A chosen pool of other runs, or one that cannot be read,
    is NotComparable."""
    if chosen == NO_POOL:
        return None
    if chosen is not None:
        folder = Path(chosen) if Path(chosen).is_dir() else Path(results_dir) / chosen
        try:
            spread = pool_files.read(folder)
        except ResultFileError as e:
            raise NotComparable(f"--pool {chosen}: {e}") from None
        for run in (a, b):
            found = differing(spread.shared, pool_files.shared(run))
            if found:
                raise NotComparable(f"--pool {chosen} pooled runs unlike run {run.run_id}: {found[0]}; name a pool "
                                    f"of runs like both, or --pool {NO_POOL}")
        return spread
    for folder in reversed(pool_files.folders(Path(results_dir))):
        try:
            spread = pool_files.read(folder)
        except ResultFileError:
            continue  # not a pool this code wrote, or half of one: it says nothing about these runs
        if spread.shared == pool_files.shared(a) == pool_files.shared(b):
            return spread
    return None


def with_tau(value: float, log_se: float, df: float, tau: tuple[float, float] | None) -> dict:
    """A ratio of two runs' figures with its interval and p: the within-run log variance log_se^2 on
    df, plus 2 tau^2 on the pool's degrees of freedom where a tau is known."""
    parts = [(log_se ** 2, df)] + ([(2 * tau[0] ** 2, tau[1])] if tau else [])
    se = math.sqrt(sum(v for v, _ in parts))
    total_df = meta.satterthwaite(parts)
    low, high = interval_of(value, se, total_df, CONFIDENCE)
    p = float(2 * stats.t.sf(abs(math.log(value)) / se, total_df)) if se > 0 else None
    return {"ratio": value, "ratio_low": low, "ratio_high": high, "p": p, "judged": p is not None,
            "tau": tau[0] if tau else None}


def cells(a: Run, b: Run, spread: Spread | None = None) -> pd.DataFrame:
    """compare.csv: one row per shared framework, API, case and metric (COLUMNS); `spread` the
    pool whose tau it adds (spread_for)."""
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
            tau = spread.tau(OWN, framework, "", api, metric) if spread else None
            records.append({**record, **ratio(sa, va, why_a, sb, vb, why_b, tau)})
    found = pd.DataFrame.from_records(records, columns=COLUMNS).astype({"q": float})
    family = found["judged"].astype(bool)
    found.loc[family, "q"] = benjamini_hochberg(found.loc[family, "p"])
    found["significant"] = family & (found["q"] < ALPHA)
    return found


def ratio(sa: str, va: pd.Series, why_a: str, sb: str, vb: pd.Series, why_b: str,
          tau: tuple[float, float] | None = None) -> dict:
    """B/A with its interval and p where both sides are valid (tau added where known); a bound, or
    why not, otherwise."""
    none = {"ratio": None, "ratio_low": None, "ratio_high": None, "p": None, "q": None, "judged": False, "bound": "",
            "tau": None}
    if INVALID in (sa, sb) or LEFT_OUT in (sa, sb):
        return {**none, "note": "; ".join(f"run {name}: {state} ({why})" for name, state, why in
                                          (("A", sa, why_a), ("B", sb, why_b)) if state in (INVALID, LEFT_OUT))}
    value = vb.mean() / va.mean()
    if BOUND in (sa, sb):
        bound = validity.bound_direction(sb == BOUND, sa == BOUND)
        who = {">=": "run B", "<=": "run A", "both": "both runs"}[bound]
        return {**none, "ratio": value, "bound": bound, "note": f"bound: {who} load-generator bound"}
    r = ratio_of_means(vb, va)
    if r.low is None:
        return {**none, "ratio": r.value, "note": r.reason}
    return {**none, **with_tau(r.value, r.log_se, r.df, tau), "note": r.reason}


def ratios(a: Run, b: Run, spread: Spread | None = None, reference: str | None = None) -> pd.DataFrame:
    """ratios.csv: run B's framework ratio over run A's, per comparison of run A's framework answer
    that run B has both arms of, API, case and metric of METRICS (RATIO_COLUMNS; module docstring)."""
    records = []
    for versus in answer.framework_comparisons(a, reference):
        if not {versus.numerator, versus.denominator} <= set(b.arms):
            continue
        ca, cb = (tables.compare_arms(run, versus.numerator, versus.denominator) for run in (a, b))
        ca = ca[ca["metric"].isin(METRICS)]
        both = ca.merge(cb, on=["api", *CASE_COLUMNS, "metric"], suffixes=("_a", "_b"))
        for row in both.to_dict("records"):
            tau = spread.tau(RATIO, versus.numerator, versus.denominator, row["api"], row["metric"]) if spread else None
            records.append({"numerator": versus.numerator, "denominator": versus.denominator,
                            **{c: row[c] for c in ["api", *CASE_COLUMNS, "metric"]},
                            **{f"{side}_{k}": row[f"{field}_{side}"] for side in "ab"
                               for k, field in (("ratio", "ratio"), ("low", "ratio_low"), ("high", "ratio_high"))},
                            **ratio_of_ratios(row, tau)})
    found = pd.DataFrame.from_records(records, columns=RATIO_COLUMNS).astype({"q": float})
    family = found["judged"].astype(bool)
    found.loc[family, "q"] = benjamini_hochberg(found.loc[family, "p"])
    found["significant"] = family & (found["q"] < ALPHA)
    return found


def ratio_of_ratios(row: dict, tau: tuple[float, float] | None) -> dict:
    """One row of ratios.csv past its keys: B's ratio over A's with the two runs' log variances
    and 2 tau^2 (module docstring), or a bound, or why it has no test."""
    none = {"ratio": None, "ratio_low": None, "ratio_high": None, "p": None, "q": None, "judged": False, "bound": "",
            "tau": None}
    ra, rb = row["ratio_a"], row["ratio_b"]
    value = rb / ra if pd.notna(ra) and pd.notna(rb) and ra > 0 and rb > 0 else None
    bound_a, bound_b = (row[f"bound_{side}"] if isinstance(row[f"bound_{side}"], str) else "" for side in "ab")
    bounds = {d for d in (bound_b, INVERSE_BOUND.get(bound_a)) if d}
    if bounds:
        return {**none, "ratio": value, "bound": bounds.pop() if len(bounds) == 1 else "both",
                "note": "; ".join(f"run {name}: {row[f'ratio_note_{side}']}" for name, side, bound in
                                  (("A", "a", bound_a), ("B", "b", bound_b)) if bound)}
    missing = [f"run {name}: {row[f'ratio_note_{side}'] or 'no interval'}" for name, side in (("A", "a"), ("B", "b"))
               if not (pd.notna(row[f"log_se_{side}"]) and row[f"log_se_{side}"] > 0)]
    if value is None or missing:
        return {**none, "ratio": value, "note": "; ".join(missing) or "a ratio that is not positive"}
    log_se = math.sqrt(row["log_se_a"] ** 2 + row["log_se_b"] ** 2)
    df = meta.satterthwaite([(row["log_se_a"] ** 2, row["df_a"]), (row["log_se_b"] ** 2, row["df_b"])])
    return {**none, **with_tau(value, log_se, df, tau), "note": ""}
