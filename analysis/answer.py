"""The answer a team choosing a stack came for, which the report opens with: per API and case, the
ratio ASP.NET Core / Express.js with its 95 % interval and significance, for the metrics a choice
turns on, and whether the load generator rather than the case set the load.

The numbers are analysis.tables.significance's (paired rounds when the run has them, independent
groups otherwise); this module picks the metrics, adds the load flags, and words the table.
"""
import pandas as pd

from analysis.load import Run
from analysis.metrics import PAIR, case_label
from analysis.paired import is_paired
from analysis.tables import CASE_COLUMNS, ok_rows, report_order

ASPNET, EXPRESS = PAIR
# All six go to answer.csv; the page shows four so the table fits a screen (mean and p99 follow
# p95 closely in every run so far, and are one click away in the CSV).
METRICS_ANSWERED = ("throughput_rps", "mean_ms", "p95_ms", "p99_ms", "cpu_mean_pct", "rss_peak_mb")
SHOWN = ("throughput_rps", "p95_ms", "cpu_mean_pct", "rss_peak_mb")
HEADINGS = {"throughput_rps": "Throughput", "p95_ms": "p95 response time", "cpu_mean_pct": "CPU (mean)",
            "rss_peak_mb": "Memory (peak RSS)"}
# Which side of 1 favours ASP.NET Core: only for throughput is more better.
HIGHER_IS_BETTER = {"throughput_rps"}
# The flags that mean the case's nominal load was not what the server saw (errors are a flag of
# their own: the numbers still describe the load applied).
LOAD_FLAGS = {
    "underloaded": "fewer than half of JMeter's threads had a request in flight on average, so the "
                   "load generator, not the case, set the load",
    "loadgen_saturated": "JMeter used 90 % or more of its cores, so it may have held the load back",
}
SIGNIFICANT, FLAGGED = "*", "‡"
PAIRED, INDEPENDENT = "paired rounds", "independent groups"
COLUMNS = ["api", *CASE_COLUMNS, "metric", "ratio", "ratio_low", "ratio_high", "p", "significant", "judged",
           "pairs", f"{ASPNET}_n", f"{EXPRESS}_n", "load_flags", "comparison", "note"]


def load_flags(run: Run) -> pd.DataFrame:
    """Per api and case: the load flags any ok iteration of either framework carried, ';'-joined."""
    ok = ok_rows(run)
    ok = ok[ok["framework"].isin(PAIR)]
    found = ok.groupby(["api", "case"])["flags"].agg(
        lambda flags: ";".join(f for f in LOAD_FLAGS if any(f in str(v).split(";") for v in flags)))
    return found.rename("load_flags").reset_index()


def answer(run: Run, sig: pd.DataFrame) -> pd.DataFrame:
    """One row per api x case x metric of METRICS_ANSWERED (the columns of tables/answer.csv)."""
    part = sig[sig["metric"].isin(METRICS_ANSWERED)]
    part = part.merge(load_flags(run), on=["api", "case"], how="left")
    part["load_flags"] = part["load_flags"].fillna("")
    part["comparison"] = PAIRED if is_paired(run.manifest) else INDEPENDENT
    part["note"] = part["ratio_note"].fillna("")
    return part.sort_values(["api", "case", "metric"], key=answer_order)[COLUMNS].reset_index(drop=True)


def answer_order(column: pd.Series) -> pd.Series:
    """REST before GraphQL, metrics as METRICS_ANSWERED lists them."""
    if column.name == "metric":
        return column.map({m: i for i, m in enumerate(METRICS_ANSWERED)})
    return report_order(column)


def better_side(metric: str) -> tuple[str, str]:
    """(the framework favoured left of 1, right of 1) on a ratio axis."""
    return (EXPRESS, ASPNET) if metric in HIGHER_IS_BETTER else (ASPNET, EXPRESS)


def ratio_text(cell: pd.Series) -> str:
    if pd.isna(cell["ratio"]):
        return "–"
    text = f"{cell['ratio']:.2f}"
    if not pd.isna(cell["ratio_low"]):
        text += f" [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"
    elif cell["note"]:
        text += f" ({cell['note']})"
    return text + (f" {SIGNIFICANT}" if cell["judged"] and cell["significant"] else "")


def display(answers: pd.DataFrame, api: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The page's table for one API, and a same-shaped frame of CSS classes (significant cells bold,
    cells of load-flagged cases greyed)."""
    part = answers[answers["api"] == api]
    rows, classes = [], []
    for (case, *load), group in part.groupby(CASE_COLUMNS, sort=True):
        by = group.set_index("metric")
        flags = group["load_flags"].iloc[0]
        row = {"Case": case_label(case, *load) + (f" {FLAGGED}" if flags else "")}
        css = {"Case": "load-flagged" if flags else ""}
        for metric in SHOWN:
            heading = HEADINGS[metric]
            if metric not in by.index:
                row[heading], css[heading] = "–", ""
                continue
            cell = by.loc[metric]
            row[heading] = ratio_text(cell)
            css[heading] = " ".join(c for c in ("significant" if cell["judged"] and cell["significant"] else "",
                                                "load-flagged" if flags else "") if c)
        row["n"] = count_text(group.iloc[0])
        row["Load flags"] = flags.replace(";", ", ") or "–"
        css["n"] = css["Load flags"] = ""
        rows.append(row)
        classes.append(css)
    return pd.DataFrame(rows), pd.DataFrame(classes)


def count_text(row) -> str:
    """Pairs for a paired run; otherwise the iterations per framework."""
    if row["comparison"] == PAIRED:
        return f"{int(row['pairs'])} pair{'s' if row['pairs'] != 1 else ''}"
    return f"{int(row[f'{ASPNET}_n'])} / {int(row[f'{EXPRESS}_n'])} iter."

