"""The other load generator's ratio beside the run's own (crosscheck.csv, collect/extra_passes.py):
the profile's cross-check cases (1, 13 and 18; the quick profile's 1 and 18) of each API, every arm,
in interleaved rounds at the case's concurrency, measured
again by the other load generator (JMeter when wrk measured the run, wrk when JMeter did). From
schema 4 its rows are whole items, judged by the same checks: only rounds whose throughput is valid
for both arms give a ratio. Where the two generators' valid ratios differ, the one with less
headroom set its ratio. Before schema 4 the rows are wrk's figures only, every round counted."""
import numpy as np
import pandas as pd

from analysis.load import Run, run_table
from analysis.paired import paired
from benchlib.results import CROSSCHECK, CROSSCHECK_V3_COLUMNS, SUMMARY_COLUMNS

NAMES = {"wrk": "wrk", "jmeter": "JMeter"}
# Two load generators' ratios on the same cell agree when they are within this factor of each other.
AGREEMENT = 1.15
COLUMNS = ["tool", "api", "case", "ratio", "ratio_low", "ratio_high", "ratio_note", "rounds", "measured", "per_round"]


def rows(run: Run) -> tuple[pd.DataFrame | None, str]:
    """crosscheck.csv as (framework, api, case, iteration, tool, throughput_rps, usable) rows."""
    if run.manifest.schema_version < 4:
        found, why = run_table(run.dir / CROSSCHECK, CROSSCHECK_V3_COLUMNS)
        return (None, why) if found is None else (found.assign(usable=True), "")
    found, why = run_table(run.dir / CROSSCHECK, SUMMARY_COLUMNS)
    if found is None:
        return None, why
    return found.assign(tool=found["loadgen"], usable=(found["status"] == "ok") & (found["validity"] == "valid")), ""


def ratios(run: Run, numerator: str, denominator: str) -> tuple[pd.DataFrame, str]:
    """Per tool, api and case: the throughput ratio numerator / denominator over the rounds both
    arms measured validly (geometric mean, paired t interval, as the answer), how many rounds were
    measured, and the per-round ratios; with why there is none when the run has no crosscheck.csv."""
    found, why = rows(run)
    if found is None:
        return pd.DataFrame(columns=COLUMNS), why
    records = []
    for (tool, api, case), cell in found.groupby(["tool", "api", "case"]):
        a, b = (cell[(cell["framework"] == arm) & cell["usable"]].set_index("iteration")["throughput_rps"]
                for arm in (numerator, denominator))
        measured = len(set(cell["iteration"]))
        both = a.index.intersection(b.index)
        if both.empty:
            records.append({"tool": tool, "api": api, "case": int(case), "rounds": 0, "measured": measured,
                            "ratio_note": "no round in which both arms' throughput was valid"})
            continue
        p = paired(a[both], b[both])
        records.append({"tool": tool, "api": api, "case": int(case), "ratio": p.ratio.value,
                        "ratio_low": p.ratio.low, "ratio_high": p.ratio.high, "ratio_note": p.ratio.reason,
                        "rounds": p.n, "measured": measured,
                        "per_round": ", ".join(f"{v:.2f}" for v in a[both] / b[both])})
    return pd.DataFrame.from_records(records, columns=COLUMNS), ""


def agree(main: float | None, other: float | None) -> bool | None:
    """Whether two load generators' ratios agree within AGREEMENT (None: one is missing)."""
    if main is None or other is None or pd.isna(main) or pd.isna(other):
        return None
    return bool(abs(np.log(main / other)) <= np.log(AGREEMENT))
