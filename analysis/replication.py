"""Our numbers beside the study's published ones, in the same units.

Units differ between the study's machine and ours, so values are normalised before they sit side
by side: CPU to % of the whole machine (the study's 0-400 % on 4 cores / 4; ours / our cores), and
memory to MB (the study's % of 8 GiB x 8192 / 100, against our peak RSS). Response times are ms on
both sides. Absolute values still reflect different hardware; the ASP.NET/Express ratio per case
is the fairer thing to compare, so it is given too. The verdicts on the study's claims are in
analysis.verdicts (our run) and analysis.study_check (the study's own tables).
"""
import pandas as pd

from analysis.study import STUDY_METRICS, normalise_study
from benchlib.cases import STUDY_PAIR


def normalise_ours(column: str, value, cores: int):
    return value / cores if column == "cpu_peak_pct" and value is not None else value


def side_by_side(agg: pd.DataFrame, cores: int, study: pd.DataFrame) -> pd.DataFrame:
    """Every published value with ours (mean and 95 % interval, `bound` where the mean takes a bound
    item's value) in the same unit; NaN where not run."""
    ours = agg.set_index(["api", "case", "framework", "metric"])
    records = []
    for _, s in study.iterrows():
        column, unit = STUDY_METRICS[s["metric"]]
        key = (s["api"], s["case"], s["framework"], column)
        mine = ours.loc[key] if key in ours.index else None
        records.append({
            "api": s["api"], "case": s["case"], "requests": s["requests"], "rows": s["rows"],
            "joins": s["joins"], "framework": s["framework"], "study_metric": s["metric"],
            "our_metric": column, "unit": unit,
            "study": normalise_study(s["metric"], s["value"]), "transcription": s["transcription"],
            **{field: (normalise_ours(column, mine[field], cores) if mine is not None else None)
               for field in ("mean", "ci_low", "ci_high")},
            "n": int(mine["n"]) if mine is not None else 0,
            "bound": bool(mine["bound"]) if mine is not None else False})
    return pd.DataFrame.from_records(records)


def ratios(side: pd.DataFrame) -> pd.DataFrame:
    """ASP.NET Core / Express.js per api, case and metric, in the study and here (none where either
    of our means is a bound: a ratio of bounds is no estimate)."""
    a, b = STUDY_PAIR
    side = side.assign(mean=side["mean"].where(~side["bound"].astype(bool)))
    wide = side.pivot_table(index=["api", "case", "study_metric", "unit"], columns="framework",
                            values=["study", "mean"], aggfunc="first")
    out = pd.DataFrame(index=wide.index)
    out["study_ratio"] = wide[("study", a)] / wide[("study", b)]
    if ("mean", a) in wide.columns and ("mean", b) in wide.columns:
        out["our_ratio"] = wide[("mean", a)] / wide[("mean", b)]
    else:
        out["our_ratio"] = float("nan")
    return out.reset_index()
