"""The report's "Load engines" section, for a run whose load came from JMeter remote engines: what
each engine reported and how close it came to running out of CPU (analysis/engines.py's table)."""
import pandas as pd

from analysis import engines
from analysis.formatting import fmt
from analysis.load import Run
from analysis.render import Doc


def section(doc: Doc, run: Run, table: pd.DataFrame) -> None:
    """The JMeter remote engines that sent the load: what each reported, and how close it came to
    running out of CPU, so a reader can tell whether an engine rather than the app set the load."""
    doc.heading(2, "Load engines")
    bind = run.manifest.settings.bind_address
    saturated = [f"{r.endpoint} in {r.saturated_items} of {r.items} items"
                 for r in table.itertuples(index=False) if r.saturated_items]
    doc.para(f"The load came from {len(table)} JMeter remote engine{'s' if len(table) != 1 else ''}"
             + (f"; the apps listened on {bind} (settings.bind_address)" if bind else "") + ". "
             "CPU is each engine's own, as % of all its cores (top's % of one core divided by its "
             "cores), over the items that recorded its figures: an engine at or above "
             f"{engines.SATURATED_SHARE * 100:.0f} % of its cores in an item may have held that item's "
             "load back, so the item carries loadgen_saturated (its loadgen CPU in summary.csv is the "
             "busiest engine's); where one was, add engines or use bigger machines. "
             + (f"Saturated: {'; '.join(saturated)}." if saturated else "No engine was saturated in any item."))
    shown = pd.DataFrame({
        "Engine": table["endpoint"], "Host": table["host"].fillna("–"), "JMeter": table["jmeter"].fillna("–"),
        "Java": table["java"].fillna("–"), "Cores": table["cores"].map(shown_cores),
        "SSL": table["ssl"].fillna("–"), "Items": table["items"],
        "Mean CPU, median (% of cores)": table["cpu_mean_median_pct_of_cores"].map(fmt),
        "Mean CPU, max (% of cores)": table["cpu_mean_max_pct_of_cores"].map(fmt),
        "Peak CPU, max (% of cores)": table["cpu_peak_max_pct_of_cores"].map(fmt),
        "Saturated items": table["saturated_items"], "Threads": table["threads"], "Samples": table["samples"]})
    doc.table(shown, "Per engine: what it reported, then over the items with its figures its CPU as % of "
                     "its cores, the items it was saturated in, the threads it ran and the samples it "
                     "returned (tables/engines.csv)")


def shown_cores(cores) -> str:
    return "–" if cores is None or (isinstance(cores, float) and pd.isna(cores)) else \
        f"{cores:g}" if isinstance(cores, (int, float)) else str(cores)
