"""Per-engine load of a run whose JMeter load came from remote engines (`./testbed run --engines`):
did any engine run out of CPU and so hold the load back?

Only such runs have the manifest's `engines` (what each engine reported: host, JMeter, Java, cores,
SSL) and each item's run.json `engines` (per engine: threads, samples, CPU mean and peak as % of
one core, its cores, saturated). A run without the manifest's `engines` has no table, and its
report is as before.
"""

import pandas as pd

from analysis.load import RUN_JSON, ResultFileError, Run
from analysis.records import Engine

SATURATED_SHARE = 0.9  # an engine at or above 90 % of its cores is saturated (as the run flags it)
COLUMNS = ["endpoint", "host", "jmeter", "java", "cores", "ssl", "items", "cpu_mean_median_pct_of_cores",
           "cpu_mean_max_pct_of_cores", "cpu_peak_max_pct_of_cores", "saturated_items", "threads", "samples"]


def item_figures(run: Run) -> pd.DataFrame:
    """One row per item (summary.csv's rows, the last one of a re-run cell) and engine with CPU
    figures: endpoint, threads, samples, cpu_mean_pct and cpu_peak_pct as % of the engine's cores,
    saturated. Items without `engines` (excluded, failed before the load) and entries whose
    cpu_mean_pct is null are left out."""
    cores = {e.endpoint: e.cores for e in run.manifest.engines}
    records = []
    for row in run.summary.itertuples(index=False):
        item = run.item(row.framework, row.api, row.case, row.round)
        for e in item.engines or ():
            if e.cpu_mean_pct is None:
                continue
            n = e.cores if e.cores is not None else cores.get(e.endpoint)
            if not (isinstance(n, (int, float)) and n > 0):
                path = run.cell_dir(row.framework, row.api, row.case, row.round) / RUN_JSON
                raise ResultFileError(path, f"engine {e.endpoint}: cores must be a positive number")
            records.append({"endpoint": e.endpoint, "threads": e.threads, "samples": e.samples,
                            "cpu_mean": e.cpu_mean_pct / n, "cpu_peak": e.cpu_peak_pct / n,
                            "saturated": e.saturated})
    return pd.DataFrame.from_records(
        records, columns=["endpoint", "threads", "samples", "cpu_mean", "cpu_peak", "saturated"])


def engine_table(run: Run) -> pd.DataFrame | None:
    """One row per engine (the manifest's order, then any other endpoint an item names): what it
    reported, then over the items with its figures: how many, median and max of its mean CPU and
    max of its peak CPU as % of its cores, the items it was saturated in, the threads it ran and the
    samples it returned. None for a run without engines."""
    engines = run.manifest.engines
    if not engines:
        return None
    figures = item_figures(run)
    known = {e.endpoint for e in engines}
    engines = [*engines, *(Engine(p) for p in dict.fromkeys(figures["endpoint"]) if p not in known)]
    rows = []
    for e in engines:
        mine = figures[figures["endpoint"] == e.endpoint]
        rows.append({"endpoint": e.endpoint, "host": e.host, "jmeter": e.jmeter, "java": e.java, "cores": e.cores,
                     "ssl": "on" if e.ssl is True else "off" if e.ssl is False else None,
                     "items": len(mine),
                     "cpu_mean_median_pct_of_cores": mine["cpu_mean"].median(),
                     "cpu_mean_max_pct_of_cores": mine["cpu_mean"].max(),
                     "cpu_peak_max_pct_of_cores": mine["cpu_peak"].max(),
                     "saturated_items": int(mine["saturated"].sum()),
                     "threads": int(mine["threads"].sum()), "samples": int(mine["samples"].sum())})
    return pd.DataFrame.from_records(rows, columns=COLUMNS)
