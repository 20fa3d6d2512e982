"""Memory per case from fresh processes (memory.csv, the memory pass of collect/passes/extra_passes.py):
each arm's app restarted just before the case and loaded by wrk at the case's concurrency; `hwm_mb`
is its own high-water mark (VmHWM). summary.csv's rss_peak_mb is the RSS of apps that served the
whole run, so it carries every case before it; a schema-3 run with memory.csv answers memory from
here instead."""
import numpy as np
import pandas as pd

from analysis.little_q import with_q_of
from analysis.load import Run, run_table
from analysis.metrics import LITTLES_MEAN
from analysis.paired import paired
from analysis.stats import ALPHA, benjamini_hochberg
from benchlib.moderated import prior_of
from benchlib.results import MEMORY, MEMORY_COLUMNS

METRIC = "memory_hwm_mb"
NOTE = "fresh process per case (memory.csv)"
# Why ASP.NET Core's memory went the other way from the study's: two sentences the report prints
# beside the memory table, with this run's range of ratios.
DIRECTION = (
    "Here ASP.NET Core's fresh processes used {low:.2f}-{high:.2f}x Express.js's memory, where the study "
    "measured 2.8-3.6x: .NET 10's Server GC adapts its number of heaps to the load (DATAS, "
    "GarbageCollectionAdaptationMode=1), and this machine's {cores} cores allow fewer heaps than the "
    "study's 4, so ASP.NET Core no longer reserves memory for many heaps up front. The variant "
    "aspnet:no-datas (DATAS off) shows the older behaviour: `./testbed run --variants "
    "aspnet:no-datas,aspnet,express`.")


def table(run: Run) -> tuple[pd.DataFrame | None, str]:
    """memory.csv, or None and why the run has none (runs before schema 3 never do)."""
    return run_table(run.dir / MEMORY, MEMORY_COLUMNS)


def ratios(run: Run, numerator: str, denominator: str) -> pd.DataFrame:
    """Per api and case: hwm_mb of numerator / denominator, paired by round (the profile's
    `memory_rounds` fresh processes per arm; with one, a ratio without interval); empty without
    memory.csv."""
    columns = ["api", "case", "ratio", "ratio_low", "ratio_high", "ratio_note", "log_se", "df", "spread", "pairs",
               "p", "numerator_mb", "denominator_mb"]
    found, _ = table(run)
    if found is None:
        return pd.DataFrame(columns=columns)
    cells = []
    for (api, case), cell in found.groupby(["api", "case"]):
        a, b = (cell[cell["framework"] == arm].set_index("round")["hwm_mb"] for arm in (numerator, denominator))
        both = a.index.intersection(b.index)
        if not both.empty:
            cells.append((api, case, a[both], b[both]))
    # The fresh processes of one API moderate each other's spread, as the rounds' cells do (tables.family_priors).
    priors = {api: prior_of([np.log(a / b).to_numpy() for each, _, a, b in cells if each == api])
              for api in {api for api, *_ in cells}}
    records = []
    for api, case, a, b in cells:
        p = paired(a, b, prior=priors.get(api))
        note = NOTE + (f", {p.ratio.reason}" if p.ratio.reason else "")
        records.append({"api": api, "case": int(case), "ratio": p.ratio.value, "ratio_low": p.ratio.low,
                        "ratio_high": p.ratio.high, "ratio_note": note, "log_se": p.ratio.log_se, "df": p.ratio.df,
                        "spread": p.ratio.spread, "pairs": p.n, "p": p.comparison.p, "numerator_mb": a.mean(),
                        "denominator_mb": b.mean()})
    return pd.DataFrame.from_records(records, columns=columns)


def for_verdicts(run: Run, sig: pd.DataFrame) -> pd.DataFrame:
    """tables.significance with its memory cells (rss_peak_mb, which the study's memory claims are
    judged on) replaced by the fresh processes' ratio where memory.csv has the case: a run with one
    process per arm and case has no interval there, so such a cell is shown but not judged. Its
    standard error goes with it: the run-long peak's would otherwise give the fresh ratio an interval
    it does not have, wherever a test draws one from the standard error (a band's, an
    interaction's). So does its p (the fresh processes' paired t), and where `sig` has q the
    family's q are drawn again with it (readjusted)."""
    found = ratios(run, "aspnet", "express")
    if found.empty:
        return sig
    sig = sig.copy()
    fresh = found.set_index(["api", "case"])
    replaced = []
    for i in sig.index[sig["metric"] == "rss_peak_mb"]:
        key = (sig.at[i, "api"], sig.at[i, "case"])
        if key not in fresh.index:
            continue
        cell = fresh.loc[key]
        judged = not pd.isna(cell["ratio_low"])
        sig.loc[i, ["ratio", "ratio_low", "ratio_high", "ratio_note", "log_se", "df", "spread"]] = [
            cell["ratio"], cell["ratio_low"], cell["ratio_high"], cell["ratio_note"], cell["log_se"], cell["df"],
            cell["spread"]]
        sig.loc[i, ["aspnet_mean", "express_mean", "pairs", "p", "test"]] = [
            cell["numerator_mb"], cell["denominator_mb"], cell["pairs"], cell["p"] if judged else None, ""]
        sig.loc[i, "judged"] = judged
        sig.loc[i, "significant"] = judged and (cell["ratio_low"] > 1 or cell["ratio_high"] < 1)
        sig.loc[i, "result"] = f"{NOTE}: A/E {cell['ratio']:.2f}" + ("" if judged else ", not judged")
        replaced.append(i)
    return readjusted(run, sig, replaced) if "q" in sig.columns else sig


def readjusted(run: Run, sig: pd.DataFrame, replaced: list) -> pd.DataFrame:
    """`sig` with q drawn again over the report's family (analysis.verdicts.report_cells) now that
    the `replaced` memory cells carry the fresh processes' p: a claim's memory cells then pay
    Benjamini-Hochberg as its other cells do (they once skipped it, judged on their own interval,
    beside CPU cells read off q in one claim)."""
    sig = sig.copy()
    # The family is the cells adjust_family gave a q (analysis.verdicts Q_FAMILY), the Little's-law
    # means aside (they take their throughput's), and the memory cells just replaced.
    family = ((sig["q"].notna() & (sig["metric"] != LITTLES_MEAN)) | sig.index.isin(replaced)) & \
        sig["judged"].astype(bool) & sig["p"].notna()
    sig.loc[sig.index.isin(replaced), "q"] = np.nan
    sig.loc[family, "q"] = benjamini_hochberg(sig.loc[family, "p"].astype(float))
    sig.loc[family, "significant"] = sig.loc[family, "q"] < ALPHA
    return with_q_of(sig, "throughput_rps" if run.checked else "mean_ms")
