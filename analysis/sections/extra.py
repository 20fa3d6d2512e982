"""The report's "What the study did not report": the metrics this run records that the study's
tables lack, as tables of the same shape (tables/extra_<api>_<metric>.csv)."""
from analysis import tables
from analysis.metrics import EXTRA_GROUPS, METRICS
from analysis.sections.study import display_wide


def section(doc, run, agg, sig, apis, tabs) -> None:
    doc.heading(2, "What the study did not report")
    for api in apis:
        for group, metrics in EXTRA_GROUPS.items():
            for metric in metrics:
                if agg[(agg["api"] == api) & (agg["metric"] == metric)]["n"].sum() == 0:
                    continue  # not recorded in this run (CPU per request before schema 3)
                wide = tables.wide(agg, sig, api, metric)
                wide.to_csv(tabs / f"extra_{api}_{metric}.csv", index=False)
                m = METRICS[metric]
                doc.table(display_wide(run, wide, None), f"{api.upper() if api == 'rest' else 'GraphQL'} "
                                                         f"{group}: {m.label} ({m.unit})")
