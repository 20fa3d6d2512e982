"""Every arm of a run side by side, per API and case, ranked by throughput: the table a reader
choosing among N frameworks scans first, before any ratio. Each value is the mean over usable items
with its 95 % interval (analysis.tables.aggregate); memory is the fresh process's VmHWM where the
run has memory.csv, else the run-long peak RSS.

Ranked by mean throughput, highest first, because it is the one metric where the arms' order is the
question; a rank is not a test (overlapping intervals leave the order open), which the report's
caption says, and the pairwise answer below it tests. A throughput or p95 with a load-generator-bound
item is a lower bound (`<metric>_bound`), written ≥, and ranked at its measured value; a bound item's
CPU per request is left out (analysis.validity).
"""
import pandas as pd

from analysis import memory
from analysis.load import Run
from analysis.stats import interval
from analysis.tables import CASE_COLUMNS

# (metric, its aggregate column) in the table's order; memory is filled separately.
METRICS = ("throughput_rps", "p95_ms", "app_cpu_ms_per_req")
FIELDS = ("mean", "ci_low", "ci_high", "n", "flagged", "bound")
COLUMNS = ["api", *CASE_COLUMNS, "rank", "framework", "display_name", "type",
           *(f"{m}_{f}" for m in (*METRICS, "memory_mb") for f in FIELDS), "throughput_bound", "memory_source"]
FRESH, RUN_LONG = "fresh process (memory.csv, VmHWM)", "run-long peak RSS"


def kind(run: Run, arm: str) -> str:
    """realistic or tuned, as framework.json (or the arm's variant) declares it; '' before runs
    recorded a type."""
    return run.entry(arm).type


def ranking(run: Run, agg: pd.DataFrame, arms: list[str]) -> pd.DataFrame:
    """One row per api x case x arm (of `arms` with usable items), with rank 1 the highest mean
    throughput of its case."""
    agg = agg[agg["framework"].isin(arms)]
    fresh = fresh_memory(run, arms)
    records = []
    for (api, *case, arm), group in agg.groupby(["api", *CASE_COLUMNS, "framework"]):
        by = group.set_index("metric")
        record = {"api": api, **dict(zip(CASE_COLUMNS, case)), "framework": arm,
                  "display_name": run.display_name(arm), "type": kind(run, arm)}
        for metric in METRICS:
            record.update({f"{metric}_{f}": by.at[metric, f] if metric in by.index else None for f in FIELDS})
        memory_of = fresh.get((api, case[0], arm))
        if memory_of is None:
            memory_of = {f: by.at["rss_peak_mb", f] for f in FIELDS} if "rss_peak_mb" in by.index else {}
        record.update({f"memory_mb_{f}": memory_of.get(f) for f in FIELDS})
        record["memory_source"] = FRESH if (api, case[0], arm) in fresh else RUN_LONG
        record["throughput_bound"] = bool(record["throughput_rps_bound"])
        records.append(record)
    found = pd.DataFrame.from_records(records, columns=[c for c in COLUMNS if c != "rank"])
    if found.empty:
        return pd.DataFrame(columns=COLUMNS)
    found["rank"] = found.groupby(["api", "case"])["throughput_rps_mean"] \
        .rank(method="min", ascending=False).astype("Int64")
    return found.sort_values(["api", "case", "rank", "framework"],
                             key=lambda c: c.map({"rest": 0, "graphql": 1}) if c.name == "api" else c)[COLUMNS] \
        .reset_index(drop=True)


def fresh_memory(run: Run, arms: list[str]) -> dict:
    """(api, case, arm) -> the interval fields of its fresh processes' VmHWM; {} without memory.csv."""
    found, _ = memory.table(run)
    if found is None:
        return {}
    found = found[found["framework"].isin(arms)]
    out = {}
    for (api, case, arm), cell in found.groupby(["api", "case", "framework"]):
        ci = interval(cell["hwm_mb"].astype(float))
        out[(api, int(case), arm)] = {"mean": ci.mean, "ci_low": ci.low, "ci_high": ci.high, "n": ci.n, "flagged": 0,
                                      "bound": False}
    return out
