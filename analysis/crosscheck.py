"""The second load generator's ratio beside JMeter's (crosscheck.csv, collect/extra_passes.py): wrk
measures cases 1, 13 and 18 of each API, every arm, in interleaved rounds at the case's
concurrency. wrk spends a fraction of JMeter's CPU per request, so where the two ratios differ on
this machine, JMeter rather than the app set the ratio."""
import pandas as pd

from analysis.load import Run, run_table
from analysis.paired import paired
from benchlib.results import CROSSCHECK, CROSSCHECK_V3_COLUMNS


def ratios(run: Run, numerator: str, denominator: str) -> tuple[pd.DataFrame, str]:
    """Per tool, api and case: the throughput ratio numerator / denominator over the rounds both
    arms measured (geometric mean, paired t interval, as the answer), and the per-round ratios;
    with why there is none when the run has no crosscheck.csv."""
    columns = ["tool", "api", "case", "ratio", "ratio_low", "ratio_high", "ratio_note", "rounds", "per_round"]
    found, why = run_table(run.dir / CROSSCHECK, CROSSCHECK_V3_COLUMNS)
    if found is None:
        return pd.DataFrame(columns=columns), why
    records = []
    for (tool, api, case), cell in found.groupby(["tool", "api", "case"]):
        a, b = (cell[cell["framework"] == arm].set_index("iteration")["throughput_rps"] for arm in (numerator, denominator))
        both = a.index.intersection(b.index)
        if both.empty:
            continue
        p = paired(a[both], b[both])
        records.append({"tool": tool, "api": api, "case": int(case), "ratio": p.ratio.value,
                        "ratio_low": p.ratio.low, "ratio_high": p.ratio.high, "ratio_note": p.ratio.reason,
                        "rounds": p.n, "per_round": ", ".join(f"{v:.2f}" for v in a[both] / b[both])})
    return pd.DataFrame.from_records(records, columns=columns), ""
