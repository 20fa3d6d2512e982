"""Per-case statistics across iterations: the study's Tables 1-10 and the metrics it lacked.

Only iterations with status `ok` count, and in a run whose items carry validity checks only those
whose throughput is valid or bound, each metric as analysis.validity.metric_verdict allows: a valid
value is an estimate; a bound one a lower bound, so a mean or ratio it enters is a bound (`bound`),
with no interval and no test; a value the metric's verdict leaves out does not count. Flagged ones
(e.g. a saturated load generator) count too, but every table carries how many of a cell's iterations
were flagged so readers can discount them.
"""

import numpy as np
import pandas as pd

from analysis.load import Run
from analysis.metrics import LITTLES_MEAN, METRICS, StudyTable, ordered_frameworks
from analysis.paired import paired
from analysis.stats import compare, geometric_mean, interval, ratio_of_means
from analysis.validity import BOUND, UNFAIR, bound_direction, left_out, metric_verdict, usable
from benchlib import stopping
from benchlib.cases import API_STYLES as APIS, STUDY_PAIR
from benchlib.moderated import Prior, prior_of

CASE_COLUMNS = ["case", "requests", "rows", "joins"]
# The round's column in the report's item tables (problem_iterations.csv, validity.csv): still
# `iteration`, as before results schema 5, since renaming a report's column changes the report's
# format, which is left to a change announced with it.
REPORTED_ROUND = "iteration"


def ok_rows(run: Run) -> pd.DataFrame:
    """The iterations every statistic uses: ok, and valid or bound where the run checked them."""
    return usable(run)


def aggregate(run: Run) -> pd.DataFrame:
    """Long form: api, case, requests, rows, joins, framework, metric, n, mean, ci_low, ci_high,
    flagged, bound (the mean takes a bound item's value, so it is a lower bound, without interval)."""
    records = []
    for (api, *case, framework), group in ok_rows(run).groupby(["api", *CASE_COLUMNS, "framework"]):
        flagged = int((group["flags"] != "").sum())
        for metric in METRICS:
            verdict = metric_verdict(group, metric)
            values = group[metric].where(verdict != "")
            bound = bool(((verdict == BOUND) & values.notna()).any())
            ci = interval(values)
            records.append({"api": api, **dict(zip(CASE_COLUMNS, case)), "framework": framework,
                            "metric": metric, "n": ci.n, "mean": ci.mean, "ci_low": None if bound else ci.low,
                            "ci_high": None if bound else ci.high, "flagged": flagged, "bound": bound})
    columns = ["api", *CASE_COLUMNS, "framework", "metric", "n", "mean", "ci_low", "ci_high", "flagged", "bound"]
    return pd.DataFrame.from_records(records, columns=columns)


SIGNIFICANCE_COLUMNS = ["api", *CASE_COLUMNS, "metric", *(f"{f}_mean" for f in STUDY_PAIR),
                        *(f"{f}_n" for f in STUDY_PAIR), "pairs", "test", "p", "judged", "significant", "sign",
                        "result", "ratio", "ratio_low", "ratio_high", "ratio_note", "log_se", "df", "spread", "bound"]
# compare_arms's columns: a is the numerator, b the denominator.
COMPARISON_COLUMNS = ["api", *CASE_COLUMNS, "metric", "a_mean", "b_mean", "a_n", "b_n", "pairs", "test", "p",
                      "judged", "significant", "sign", "result", "ratio", "ratio_low", "ratio_high", "ratio_note",
                      "log_se", "df", "spread", "bound"]


def significance(run: Run) -> pd.DataFrame:
    """The study's pair (ASP.NET Core vs Express), per api, case and metric; a = aspnet, b = express:
    the test, and the ratio a/b with its 95 % interval (the cells analysis.verdicts judges the
    study's claims on). A paired run is compared round by round (analysis.paired); any other as two
    independent groups of iterations (analysis.stats). Only the two default arms `aspnet` and
    `express` take part: a run's other variants are compared in analysis.answer's variant sections."""
    a_name, b_name = STUDY_PAIR
    cells = compare_arms(run, a_name, b_name).rename(columns={
        "a_mean": f"{a_name}_mean", "b_mean": f"{b_name}_mean", "a_n": f"{a_name}_n", "b_n": f"{b_name}_n"})
    return cells[SIGNIFICANCE_COLUMNS]


def compare_arms(run: Run, a_name: str, b_name: str) -> pd.DataFrame:
    """Any two arms of a run (two frameworks, or two variants of one), per api, case and metric:
    the test and the ratio a/b with its 95 % interval (compare_cells). Cases where either arm has
    no usable item are left out."""
    cells = []
    for (api, *case), group in ok_rows(run).groupby(["api", *CASE_COLUMNS]):
        a, b = group[group["framework"] == a_name], group[group["framework"] == b_name]
        if not (a.empty or b.empty):
            cells += [({"api": api, **dict(zip(CASE_COLUMNS, case)), "metric": metric}, a, b) for metric in METRICS]
    found = compare_cells(run, cells, (a_name, b_name))
    return pd.DataFrame.from_records([key | f for (key, _, _), f in zip(cells, found)], columns=COMPARISON_COLUMNS)


def compare_cells(run: Run, cells: list[tuple[dict, pd.DataFrame, pd.DataFrame]], arms: tuple[str, str]) -> list[dict]:
    """compare_metric of each cell (its key with `api` and `metric`, arm a's items, arm b's). In a
    paired run the cells of one API and metric are a family whose spreads moderate each other's
    (benchlib.moderated); each cell's pairs are matched once, for its family and for itself."""
    if not run.manifest.paired:
        return [compare_metric(run, a, b, key["metric"], arms) for key, a, b in cells]
    matched = [pairs(a, b, key["metric"]) for key, a, b in cells]
    priors = family_priors([key for key, _, _ in cells], matched)
    return [compare_metric(run, a, b, key["metric"], arms, priors.get((key["api"], key["metric"])), found)
            for (key, a, b), found in zip(cells, matched)]


def family_priors(keys: list[dict], matched: list[tuple[pd.DataFrame, str]]) -> dict:
    """(api, metric) -> the prior its paired cells' spreads give (None: too few cells to fit one),
    from each cell's key and its pairs (pairs()). A cell counts with at least 2 pairs and no bound,
    as analysis.paired judges it."""
    log_ratios = {}
    for key, (both, bound) in zip(keys, matched):
        if not bound:
            log_ratios.setdefault((key["api"], key["metric"]), []).append(np.log(both["a"] / both["b"]).to_numpy())
    return {family: prior_of(found) for family, found in log_ratios.items()}


def values_of(items: pd.DataFrame, metric: str) -> tuple[pd.Series, pd.Series]:
    """The metric's values where its own verdict lets them count, and their verdicts."""
    verdict = metric_verdict(items, metric)
    return items[metric].where(verdict != ""), verdict


def pairs(a: pd.DataFrame, b: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, str]:
    """The rounds where both arms have a positive value of the metric (columns a, b, indexed by
    round), and whether a bound enters them (bound_direction)."""
    (va, verdict_a), (vb, verdict_b) = values_of(a, metric), values_of(b, metric)
    both = pd.DataFrame({"a": va.to_numpy(), "a_bound": (verdict_a == BOUND).to_numpy()}, index=a["round"]).join(
        pd.DataFrame({"b": vb.to_numpy(), "b_bound": (verdict_b == BOUND).to_numpy()}, index=b["round"]),
        how="inner")
    both = both[(both["a"] > 0) & (both["b"] > 0)]
    return both, bound_direction(bool(both["a_bound"].any()), bool(both["b_bound"].any()))


def compare_metric(run: Run, a: pd.DataFrame, b: pd.DataFrame, metric: str, arms: tuple[str, str],
                   prior: Prior | None = None, matched: tuple[pd.DataFrame, str] | None = None) -> dict:
    """One metric of two arms' usable items in one cell (validity.judged's columns), a over b:
    paired by round in a paired run (every arm of a slot runs in each round; the rounds where both
    have a value of the metric make the pairs, `matched` when the caller has them already; `prior`
    moderates its spread), as independent groups otherwise. Where a value it uses is a bound, the
    ratio is one too (`bound`: >=, <= or both) and is neither tested nor judged."""
    (va, verdict_a), (vb, verdict_b) = values_of(a, metric), values_of(b, metric)
    names = [run.display_name(arm) for arm in arms]
    if run.manifest.paired:
        both, bound = matched or pairs(a, b, metric)
        pairs_n = len(both)
        if not bound:
            p = paired(both["a"], both["b"], extended(run, a, b, metric), prior)
            return cell(va, vb, p.comparison, p.ratio, p.n, names) | note(run, a, b, metric, arms, p.ratio.reason)
        ratio = geometric_mean(both["a"] / both["b"])
    else:
        bound = bound_direction(bool(((verdict_a == BOUND) & va.notna()).any()),
                                bool(((verdict_b == BOUND) & vb.notna()).any()))
        pairs_n = None
        if not bound:
            r = ratio_of_means(va, vb)
            return cell(va, vb, compare(va, vb), r, None, names) | note(run, a, b, metric, arms, r.reason)
        ratio = va.mean() / vb.mean()
    who = {">=": names[0], "<=": names[1], "both": "both arms"}[bound]
    return {"a_mean": va.mean(), "b_mean": vb.mean(), "a_n": int(va.notna().sum()), "b_n": int(vb.notna().sum()),
            "pairs": pairs_n, "test": "", "p": None, "judged": False, "significant": False, "sign": 0,
            "result": f"not judged: {who} load-generator bound", "ratio": ratio, "ratio_low": None,
            "ratio_high": None, "ratio_note": f"bound: {who} load-generator bound", "log_se": None, "df": None,
            "spread": None, "bound": bound}


# The metrics whose rounds the stopping rule chose: the throughput it reads, and the Little's-law mean
# that restates it (connections / throughput, the same log ratios negated).
STOPPED_ON = (stopping.METRIC, LITTLES_MEAN)


def extended(run: Run, a: pd.DataFrame, b: pd.DataFrame, metric: str) -> bool:
    """Whether this cell's metric is drawn wider after the stopping rule (analysis/paired.py): a
    metric the rule read, in a cell it gave rounds beyond the profile's. A cell that settled on
    those rounds, or a metric it never looked at, was not picked for a narrow interval by it."""
    fixed = run.manifest.protocol.rounds
    beyond = fixed is None or max(a["round"].max(), b["round"].max()) > fixed
    return run.manifest.extra_rounds and metric in STOPPED_ON and bool(beyond)


def cell(va: pd.Series, vb: pd.Series, c, r, pairs, names) -> dict:
    return {"a_mean": va.mean(), "b_mean": vb.mean(), "a_n": int(va.notna().sum()), "b_n": int(vb.notna().sum()),
            "pairs": pairs, "test": c.test, "p": c.p, "judged": c.judged, "significant": c.significant,
            "sign": c.sign, "result": c.describe(*names), "ratio": r.value, "ratio_low": r.low, "ratio_high": r.high,
            "log_se": r.log_se, "df": r.df, "spread": r.spread, "bound": ""}


def note(run: Run, a: pd.DataFrame, b: pd.DataFrame, metric: str, arms: tuple[str, str], reason: str) -> dict:
    """`ratio_note`: why there is no interval, and which items the metric's own verdict left out."""
    said = [reason] if reason else []
    for items, arm in ((a, arms[0]), (b, arms[1])):
        counts = left_out(items, metric)
        if counts:
            said.append(f"{run.display_name(arm)} left out in " + ", ".join(
                f"{n} round{'s' if n != 1 else ''} ({unfair_text(items) if why == UNFAIR else why})"
                for why, n in counts.items()))
    return {"ratio_note": "; ".join(said)}


def unfair_text(items: pd.DataFrame) -> str:
    """`unfair: 3 of 10 connections unserved`: the finding an unfair item's response times leave."""
    unfair = items[items["latency_validity"] == UNFAIR]
    counts = ", ".join(f"{u:.0f} of {t:.0f}" for u, t in zip(unfair["unserved"], unfair["threads"]) if pd.notna(u))
    return f"unfair: {counts or 'some'} connections unserved"


def wide(agg: pd.DataFrame, sig: pd.DataFrame, api: str, metric: str) -> pd.DataFrame:
    """One row per case: each framework's mean, interval, n, flagged count and whether the mean is a
    bound, then the test."""
    part = agg[(agg["api"] == api) & (agg["metric"] == metric)]
    table = part[CASE_COLUMNS].drop_duplicates().sort_values("case").reset_index(drop=True)
    for framework in ordered_frameworks(part["framework"]):
        mine = part[part["framework"] == framework].set_index("case")
        for field in ("mean", "ci_low", "ci_high", "n", "flagged", "bound"):
            table[f"{framework}_{field}"] = table["case"].map(mine[field])
    tests = sig[(sig["api"] == api) & (sig["metric"] == metric)].set_index("case")
    for field in ("test", "p", "result"):
        table[field] = table["case"].map(tests[field]) if not tests.empty else None
    return table


def study_table(agg, sig, spec: StudyTable) -> pd.DataFrame:
    return wide(agg, sig, spec.api, spec.column)


def run_status(run: Run) -> pd.DataFrame:
    """Per framework and api: how many iterations were ok (and of those flagged), failed, excluded."""
    s = run.summary
    counts = s.assign(flagged=(s["status"] == "ok") & (s["flags"] != "")) \
        .groupby(["framework", "api"]) \
        .agg(ok=("status", lambda x: int((x == "ok").sum())), flagged=("flagged", "sum"),
             failed=("status", lambda x: int((x == "failed").sum())),
             excluded=("status", lambda x: int((x == "excluded").sum()))).reset_index()
    counts["flagged"] = counts["flagged"].astype(int)
    return counts


def problems(run: Run) -> pd.DataFrame:
    """Every item that was not a clean `ok`, with the reason from its run.json, sorted by framework,
    api, case and round (its column still `iteration`: REPORTED_ROUND)."""
    s = run.summary
    bad = s[(s["status"] != "ok") | (s["flags"] != "")]
    records = []
    for _, row in bad.iterrows():
        reason = ""
        if row["status"] != "ok":
            reason = run.item(row["framework"], row["api"], row["case"], row["round"]).reason or ""
        records.append({"framework": row["framework"], "api": row["api"], "case": row["case"],
                        REPORTED_ROUND: row["round"], "status": row["status"],
                        "flags": row["flags"], "reason": reason})
    found = pd.DataFrame.from_records(
        records, columns=["framework", "api", "case", REPORTED_ROUND, "status", "flags", "reason"])
    return found.sort_values(["framework", "api", "case", REPORTED_ROUND], key=report_order, ignore_index=True)


def report_order(column: pd.Series) -> pd.Series:
    """Sort key: frameworks in the study's order, REST before GraphQL (as the report shows them)."""
    if column.name == "framework":
        order = {f: i for i, f in enumerate(ordered_frameworks(column))}
        return column.map(order)
    if column.name == "api":
        return column.map({api: i for i, api in enumerate(APIS)})
    return column
