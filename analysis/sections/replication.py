"""The report's "Side by side with the study's published numbers": for each of the study's tables,
its values and ours in the same units, and the ASP.NET Core / Express.js ratio of each (the numbers
are analysis/replication.py's)."""
import pandas as pd

from analysis.formatting import fmt, fmt_ci
from analysis.metrics import METRICS, STUDY_TABLES, case_label
from analysis.study import STUDY_METRICS
from benchlib.cases import STUDY_PAIR


def section(doc, run, side, ratios, apis) -> None:
    doc.heading(2, "Side by side with the study's published numbers")
    doc.para(f"Normalised so units match: CPU as % of the whole machine (study value / 4 cores; ours / "
             f"{run.cores} cores); memory in MB (study % of 8 GiB x 8192 / 100; ours peak RSS). "
             "Absolute values reflect different hardware; the ASP.NET Core / Express.js ratio is the "
             "more comparable figure. Values marked ~ were restored or uncertain in the study's text.")
    for api in apis:
        for metric, (column, unit) in STUDY_METRICS.items():
            part = side[(side["api"] == api) & (side["study_metric"] == metric) & (side["n"] > 0)]
            if part.empty:
                continue
            rows = []
            for case, group in part.groupby("case"):
                by = group.set_index("framework")
                row = {"Case": case_label(case, *group.iloc[0][["requests", "rows", "joins"]].astype(int))}
                for f in STUDY_PAIR:
                    if f not in by.index:
                        continue
                    r = by.loc[f]
                    mark = "" if r["transcription"] == "exact" else " ~"
                    row[f"study {run.display_name(f)}"] = fmt(r["study"]) + mark
                    row[f"ours {run.display_name(f)}"] = fmt_ci(r["mean"], r["ci_low"], r["ci_high"], r["n"], 0,
                                                                r["bound"])
                ratio = ratios[(ratios["api"] == api) & (ratios["case"] == case) & (ratios["study_metric"] == metric)]
                row["study ratio A/E"] = fmt(ratio["study_ratio"].iloc[0]) if not ratio.empty else "–"
                row["our ratio A/E"] = fmt(ratio["our_ratio"].iloc[0]) if not ratio.empty else "–"
                rows.append(row)
            spec = next(t for t in STUDY_TABLES if t.api == api and t.study_metric == metric)
            doc.table(pd.DataFrame(rows), f"Table {spec.number} ({spec.title.split(' (')[0]}) beside "
                                          f"ours ({METRICS[column].label}), in {unit}")
