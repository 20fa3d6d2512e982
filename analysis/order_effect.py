"""The arm order's effect on a paired ratio: does the arm that runs first in a slot come out
better or worse than it would second?

Within a slot the two arms run seconds apart, one after the other; whatever the second inherits
from the first (a warmer page cache, a busier database, the machine's frequency) moves the log
ratio d = log(a / b) by +δ when the numerator ran first and by -δ when it ran second. Per (API,
metric) family the model is d_cr = μ_c + δ·s_cr + ε (s = +1 numerator first, -1 second, μ_c each
cell's own ratio), fitted within cells: δ̂ = Σ s̃·d̃ / Σ s̃² over the cell-centred values, its
standard error from the residuals on N - C - 1 degrees of freedom. A cell whose rounds all had the
same arm first says nothing about δ (its s̃ is 0), which is why the run counterbalances the order
per cell (collect/passes/order.py arms_in_slot): there δ cancels in the cell's mean, but for the odd
round, which leaves ±δ/n.

The table gives exp(2δ): the ratio measured with the numerator first over the same ratio with it
second, with its 95 % interval; 1 inside the interval means no order effect was found."""
import math
from dataclasses import dataclass

import pandas as pd
from scipy import stats

from analysis.load import Run
from analysis.stats import CONFIDENCE
from analysis.tables import ok_rows, pairs
from benchlib.results import item_key

METRICS = ("throughput_rps", "app_cpu_ms_per_req", "p95_ms")
COLUMNS = ["api", "metric", "numerator", "denominator", "cells", "pairs", "first_over_second", "low", "high",
           "p", "df"]


def positions(run: Run) -> dict[str, int]:
    """Item key -> its place in the run's order (the manifest's)."""
    return {key: i for i, key in enumerate(run.manifest.order)}


def observations(run: Run, numerator: str, denominator: str, metric: str) -> pd.DataFrame:
    """One row per usable pair: api, case, round, d (the log ratio) and s (+1: numerator first)."""
    at = positions(run)
    rows = []
    for (api, case), group in ok_rows(run).groupby(["api", "case"]):
        a, b = group[group["framework"] == numerator], group[group["framework"] == denominator]
        if a.empty or b.empty:
            continue
        both, bound = pairs(a, b, metric)
        if bound:
            continue
        for round_, pair in both.iterrows():
            keys = [item_key({"framework": arm, "api": api, "case": case, "round": round_})
                    for arm in (numerator, denominator)]
            if all(k in at for k in keys):
                rows.append({"api": api, "case": case, "round": round_, "d": math.log(pair["a"] / pair["b"]),
                             "s": 1 if at[keys[0]] < at[keys[1]] else -1})
    return pd.DataFrame(rows, columns=["api", "case", "round", "d", "s"])


@dataclass(frozen=True)
class Observed:
    """One comparison's observations for each of METRICS (which hold the rounds' too), none where the
    run is not paired or has no order: read by the order's fit (table), its balance and the rounds'
    fit (analysis/round_effect.py), so that each comparison's pairs are gathered once."""
    numerator: str
    denominator: str
    by_metric: dict   # metric -> observations(...)


def observed(run: Run, numerator: str, denominator: str) -> Observed:
    metrics = METRICS if run.manifest.paired and run.manifest.order else ()
    return Observed(numerator, denominator, {m: observations(run, numerator, denominator, m) for m in metrics})


def fit(found: pd.DataFrame) -> dict:
    """δ of one family, within cells; None figures where no cell had both orders."""
    centred = found.assign(d=found["d"] - found.groupby("case")["d"].transform("mean"),
                           s=found["s"] - found.groupby("case")["s"].transform("mean"))
    informative = centred.groupby("case")["s"].transform(lambda s: bool((s != 0).any()))
    centred = centred[informative]
    cells, n = centred["case"].nunique(), len(centred)
    df = n - cells - 1
    base = {"cells": cells, "pairs": n, "df": df}
    if cells == 0 or df < 1:
        return {**base, "first_over_second": None, "low": None, "high": None, "p": None}
    sxx = float((centred["s"] ** 2).sum())
    delta = float((centred["s"] * centred["d"]).sum()) / sxx
    residual = centred["d"] - delta * centred["s"]
    se = math.sqrt(float((residual ** 2).sum()) / df / sxx)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * se
    p = 2 * stats.t.sf(abs(delta) / se, df) if se > 0 else (1.0 if delta == 0 else 0.0)
    return {**base, "first_over_second": math.exp(2 * delta), "low": math.exp(2 * (delta - half)),
            "high": math.exp(2 * (delta + half)), "p": p}


def table(found: Observed) -> pd.DataFrame:
    """Per (API, metric) family of a paired run: the order effect on the comparison's ratio."""
    return per_family(found, METRICS, fit, COLUMNS)


def per_family(found: Observed, metrics: tuple, fit_of, columns: list) -> pd.DataFrame:
    """One row per (API, metric) family of `metrics`: `fit_of` its observations, beside the
    comparison; no row where the run has none (Observed)."""
    return pd.DataFrame([{"api": api, "metric": metric, "numerator": found.numerator,
                          "denominator": found.denominator, **fit_of(family)}
                         for metric in metrics if metric in found.by_metric
                         for api, family in found.by_metric[metric].groupby("api", sort=False)], columns=columns)


def balance(found: Observed) -> tuple[int, int]:
    """(cells whose rounds had both orders, cells with two or more rounds): how many cells the
    order's design lets cancel it."""
    by_cell = found.by_metric["throughput_rps"].groupby(["api", "case"])["s"]
    several = by_cell.size() >= 2
    both = by_cell.agg(lambda s: s.nunique() == 2)
    return int((both & several).sum()), int(several.sum())


def interval_text(row) -> str:
    if pd.isna(row["first_over_second"]):
        return "no cell had both orders"
    return f"{row['first_over_second']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"


def describe(found: pd.DataFrame) -> str:
    """One sentence: the families whose interval excludes 1, or that there were none."""
    judged = found.dropna(subset=["low"])
    if judged.empty:
        return "No cell was measured in both orders, so the order's effect could not be estimated."
    shown = judged[(judged["low"] > 1) | (judged["high"] < 1)]
    if shown.empty:
        return f"In none of the {len(judged)} families did the order move the ratio beyond its 95 % interval."
    return "The order moved the ratio in " + "; ".join(
        f"{r['api']} {r['metric']} ({r['numerator']} / {r['denominator']}: {interval_text(r)})"
        for _, r in shown.iterrows()) + "."
