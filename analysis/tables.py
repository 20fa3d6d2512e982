"""Per-case statistics across iterations: the study's Tables 1-10 and the metrics it lacked.

Only iterations with status `ok` count, and in a run whose items carry validity checks only the
valid and bound ones (analysis.validity). Flagged ones (e.g. a saturated load generator) count too,
but every table carries how many of a cell's iterations were flagged so readers can discount them.
"""
import pandas as pd

from analysis.load import Run, load_run_json
from analysis.metrics import METRICS, PAIR, StudyTable, ordered_frameworks
from analysis.paired import is_paired, paired
from analysis.stats import compare, interval, ratio_of_means
from analysis.validity import usable
from benchlib.cases import API_STYLES as APIS

CASE_COLUMNS = ["case", "requests", "rows", "joins"]


def ok_rows(run: Run) -> pd.DataFrame:
    """The iterations every statistic uses: ok, and valid or bound where the run checked them."""
    return usable(run)


def aggregate(run: Run) -> pd.DataFrame:
    """Long form: api, case, requests, rows, joins, framework, metric, n, mean, ci_low, ci_high, flagged."""
    records = []
    for (api, *case, framework), group in ok_rows(run).groupby(["api", *CASE_COLUMNS, "framework"]):
        flagged = int((group["flags"] != "").sum())
        for metric in METRICS:
            ci = interval(group[metric])
            records.append({"api": api, **dict(zip(CASE_COLUMNS, case)), "framework": framework,
                            "metric": metric, "n": ci.n, "mean": ci.mean, "ci_low": ci.low,
                            "ci_high": ci.high, "flagged": flagged})
    columns = ["api", *CASE_COLUMNS, "framework", "metric", "n", "mean", "ci_low", "ci_high", "flagged"]
    return pd.DataFrame.from_records(records, columns=columns)


SIGNIFICANCE_COLUMNS = ["api", *CASE_COLUMNS, "metric", *(f"{f}_mean" for f in PAIR),
                        *(f"{f}_n" for f in PAIR), "pairs", "test", "p", "judged", "significant", "sign", "result", "ratio",
                        "ratio_low", "ratio_high", "ratio_note", "log_se", "df"]
# compare_arms's columns: a is the numerator, b the denominator.
COMPARISON_COLUMNS = ["api", *CASE_COLUMNS, "metric", "a_mean", "b_mean", "a_n", "b_n", "pairs", "test", "p",
                      "judged", "significant", "sign", "result", "ratio", "ratio_low", "ratio_high", "ratio_note",
                      "log_se", "df"]


def significance(run: Run) -> pd.DataFrame:
    """The study's pair (ASP.NET Core vs Express), per api, case and metric; a = aspnet, b = express:
    the test, and the ratio a/b with its 95 % interval (the cells analysis.verdicts judges the
    study's claims on). A paired run is compared round by round (analysis.paired); any other as two
    independent groups of iterations (analysis.stats). Only the two default arms `aspnet` and
    `express` take part: a run's other variants are compared in analysis.answer's variant sections."""
    a_name, b_name = PAIR
    cells = compare_arms(run, a_name, b_name).rename(columns={
        "a_mean": f"{a_name}_mean", "b_mean": f"{b_name}_mean", "a_n": f"{a_name}_n", "b_n": f"{b_name}_n"})
    return cells[SIGNIFICANCE_COLUMNS]


def compare_arms(run: Run, a_name: str, b_name: str) -> pd.DataFrame:
    """Any two arms of a run (two frameworks, or two variants of one), per api, case and metric:
    the test and the ratio a/b with its 95 % interval, paired by round in a paired run (every arm
    of a slot runs in each round), as independent groups otherwise. Cases where either arm has no
    ok iteration are left out."""
    compare_cell = paired_cell if is_paired(run.manifest) else independent_cell
    records = []
    for (api, *case), group in ok_rows(run).groupby(["api", *CASE_COLUMNS]):
        a, b = group[group["framework"] == a_name], group[group["framework"] == b_name]
        if a.empty or b.empty:
            continue
        for metric in METRICS:
            c, r, pairs = compare_cell(a, b, metric)
            records.append({"api": api, **dict(zip(CASE_COLUMNS, case)), "metric": metric,
                            "a_mean": a[metric].mean(), "b_mean": b[metric].mean(),
                            "a_n": int(a[metric].notna().sum()), "b_n": int(b[metric].notna().sum()),
                            "pairs": pairs, "test": c.test, "p": c.p, "judged": c.judged,
                            "significant": c.significant, "sign": c.sign,
                            "result": c.describe(run.display_name(a_name), run.display_name(b_name)),
                            "ratio": r.value, "ratio_low": r.low, "ratio_high": r.high,
                            "ratio_note": r.reason, "log_se": r.log_se, "df": r.df})
    return pd.DataFrame.from_records(records, columns=COMPARISON_COLUMNS)


def independent_cell(a: pd.DataFrame, b: pd.DataFrame, metric: str):
    return compare(a[metric], b[metric]), ratio_of_means(a[metric], b[metric]), None


def paired_cell(a: pd.DataFrame, b: pd.DataFrame, metric: str):
    """Rounds where both arms are ok make the pairs; `iteration` is the round."""
    both = a.set_index("iteration")[[metric]].join(b.set_index("iteration")[[metric]], how="inner",
                                                   lsuffix="_a", rsuffix="_b")
    p = paired(both[f"{metric}_a"], both[f"{metric}_b"])
    return p.comparison, p.ratio, p.n


def unmeasured(run: Run) -> dict[str, list[str]]:
    """Per api, the study's frameworks (display names) without a single ok iteration in the run."""
    ok = ok_rows(run)
    return {api: [run.display_name(f) for f in PAIR
                  if ok[(ok["api"] == api) & (ok["framework"] == f)].empty] for api in APIS}


def wide(agg: pd.DataFrame, sig: pd.DataFrame, api: str, metric: str) -> pd.DataFrame:
    """One row per case: each framework's mean, interval, n and flagged count, then the test."""
    part = agg[(agg["api"] == api) & (agg["metric"] == metric)]
    table = part[CASE_COLUMNS].drop_duplicates().sort_values("case").reset_index(drop=True)
    for framework in ordered_frameworks(part["framework"]):
        mine = part[part["framework"] == framework].set_index("case")
        for field in ("mean", "ci_low", "ci_high", "n", "flagged"):
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
    """Every iteration that was not a clean `ok`, with the reason from its run.json, sorted by
    framework, api, case and iteration."""
    s = run.summary
    bad = s[(s["status"] != "ok") | (s["flags"] != "")]
    records = []
    for _, row in bad.iterrows():
        reason = ""
        if row["status"] != "ok":
            path = run.cell_dir(row["framework"], row["api"], row["case"], row["iteration"]) / "run.json"
            reason = load_run_json(path).get("reason") or ""
        records.append({"framework": row["framework"], "api": row["api"], "case": row["case"],
                        "iteration": row["iteration"], "status": row["status"],
                        "flags": row["flags"], "reason": reason})
    found = pd.DataFrame.from_records(
        records, columns=["framework", "api", "case", "iteration", "status", "flags", "reason"])
    return found.sort_values(["framework", "api", "case", "iteration"], key=report_order, ignore_index=True)


def report_order(column: pd.Series) -> pd.Series:
    """Sort key: frameworks in the study's order, REST before GraphQL (as the report shows them)."""
    if column.name == "framework":
        order = {f: i for i, f in enumerate(ordered_frameworks(column))}
        return column.map(order)
    if column.name == "api":
        return column.map({api: i for i, api in enumerate(APIS)})
    return column
