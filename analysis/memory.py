"""Memory per case from fresh processes (memory.csv, collect/memory.py): each arm's app restarted
just before the case and loaded by wrk at the case's concurrency; `hwm_mb` is its own high-water
mark (VmHWM). summary.csv's rss_peak_mb is the RSS of apps that served the whole run, so it carries
every case before it; a schema-3 run with memory.csv answers memory from here instead."""
import pandas as pd

from analysis.load import Run, load_run_table
from analysis.paired import paired
from benchlib.results import MEMORY, MEMORY_COLUMNS

METRIC = "memory_hwm_mb"
NOTE = "fresh process per case (memory.csv)"
# Why ASP.NET Core now uses less memory than Express.js, the opposite of the study: two sentences
# the report prints beside the memory table.
DIRECTION = (
    "The study measured ASP.NET Core at 2.8-3.6x Express.js's memory; on .NET 10 its Server GC adapts "
    "the number of heaps to the load (DATAS, GarbageCollectionAdaptationMode=1), and this machine's "
    "{cores} cores mean fewer heaps than the study's 4, so ASP.NET Core's fresh processes come out "
    "smaller than Express.js's here. The variant aspnet:no-datas (DATAS off) shows the older "
    "behaviour: `./testbed run --variants aspnet:no-datas,aspnet,express`.")


def table(run: Run) -> tuple[pd.DataFrame | None, str]:
    """memory.csv, or None and why the run has none (runs before schema 3 never do)."""
    return load_run_table(run.dir / MEMORY, MEMORY_COLUMNS)


def ratios(run: Run, numerator: str, denominator: str) -> pd.DataFrame:
    """Per api and case: hwm_mb of numerator / denominator, paired by iteration (one each as the
    run measures it, so a ratio without interval); empty without memory.csv."""
    columns = ["api", "case", "ratio", "ratio_low", "ratio_high", "ratio_note", "pairs",
               "numerator_mb", "denominator_mb"]
    found, _ = table(run)
    if found is None:
        return pd.DataFrame(columns=columns)
    records = []
    for (api, case), cell in found.groupby(["api", "case"]):
        a, b = (cell[cell["framework"] == arm].set_index("iteration")["hwm_mb"] for arm in (numerator, denominator))
        both = a.index.intersection(b.index)
        if both.empty:
            continue
        p = paired(a[both], b[both])
        records.append({"api": api, "case": int(case), "ratio": p.ratio.value, "ratio_low": p.ratio.low,
                        "ratio_high": p.ratio.high, "ratio_note": p.ratio.reason or NOTE, "pairs": p.n,
                        "numerator_mb": a[both].mean(), "denominator_mb": b[both].mean()})
    return pd.DataFrame.from_records(records, columns=columns)
