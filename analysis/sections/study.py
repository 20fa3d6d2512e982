"""The report's "The study's figures 14-19 and tables 1-10, recomputed": the study's own figures and
tables drawn from this run's two default arms, each table with the study's published value beside
ours (tables/tableNN_<api>_<metric>.csv)."""
import pandas as pd

from analysis import figures, tables
from analysis.formatting import fmt, fmt_ci
from analysis.load import Run
from analysis.metrics import METRICS, STUDY_FIGURES, STUDY_TABLES, case_label, ordered_frameworks
from benchlib.cases import STUDY_PAIR


def display_wide(run: Run, wide: pd.DataFrame, study: pd.DataFrame | None) -> pd.DataFrame:
    shown = pd.DataFrame({"Case": [case_label(*c) for c in wide[tables.CASE_COLUMNS].itertuples(index=False)]})
    frameworks = [c[:-5] for c in wide.columns if c.endswith("_mean")]
    for f in ordered_frameworks(frameworks):
        shown[run.display_name(f)] = [fmt_ci(*r) for r in wide[[f"{f}_mean", f"{f}_ci_low", f"{f}_ci_high", f"{f}_n",
                                                                f"{f}_flagged", f"{f}_bound"]].itertuples(index=False)]
        if study is not None:
            shown[f"study {run.display_name(f)}"] = wide[f"study_{f}"].map(fmt) \
                if f"study_{f}" in wide else "–"
    shown["difference (test)"] = [f"{r} ({t})" if t else r for r, t in
                                  zip(wide["result"].fillna(""), wide["test"].fillna(""))]
    return shown


def section(doc, run, agg, sig, study, apis, figs, tabs) -> None:
    doc.heading(2, "The study's figures 14-19 and tables 1-10, recomputed")
    for spec in STUDY_FIGURES:
        if spec.api in apis:
            path = figures.study_figure(run, agg, sig, spec, figs / f"figure{spec.number}_{spec.api}_{spec.column}.png")
            doc.figure(path, f"Figure {spec.number} recomputed ({spec.api}, {METRICS[spec.column].label}).")
    for spec in STUDY_TABLES:
        if spec.api not in apis:
            continue
        wide = tables.study_table(agg, sig, spec)
        published = study[(study["api"] == spec.api) & (study["metric"] == spec.study_metric)]
        for f in STUDY_PAIR:
            wide[f"study_{f}"] = wide["case"].map(published[published["framework"] == f].set_index("case")["value"])
        wide.to_csv(tabs / f"table{spec.number:02d}_{spec.api}_{spec.column}.csv", index=False)
        doc.table(display_wide(run, wide, study), f"Table {spec.number}: {spec.title}; study = the "
                                                  "published value, on the study's 4-core, 8 GiB machine")
