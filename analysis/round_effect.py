"""The round's shared departure on a paired ratio: do the cells of one round move together?

In the quick profile each round starts both arms' processes afresh (restart `round`), so a round
is one pair of processes, measured over a few minutes of the machine's life; whatever a process
carries through its life (its compiler's and collector's choices, where its memory landed) or those
minutes carry moves every cell of the round by one factor. Per (API, metric) family the model is
d_cr = μ_c + ρ_r + ε (d the log ratio, c the cells, r the rounds), fitted on the cells measured in
every one of the family's rounds (two-way analysis of variance without replication): the F test
of the rounds, each round's departure exp(ρ̂_r), and the rounds' share of a cell's round-to-round
variance, the intraclass correlation σ²_ρ / (σ²_ρ + σ²_ε), σ²_ρ = max(0, (MS_round - MS_resid) / C).

Each cell's interval already carries ρ, since its rounds are its replicates. What ρ changes is how
cells relate: a family's cells share their rounds, so its significant cells come in clusters (an
A/A run's count per family is no binomial draw), and an average over cells gains less from each
cell than independent ones would give (analysis.refutation.design_effect, ROUND_CORRELATION)."""
import math

import pandas as pd
from scipy import stats

from analysis.order_effect import Observed, per_family

METRICS = ("throughput_rps", "app_cpu_ms_per_req")
COLUMNS = ["api", "metric", "numerator", "denominator", "cells", "rounds", "departures", "correlation", "p"]


def balanced(found: pd.DataFrame) -> pd.DataFrame:
    """The rounds that measured at least half the cells, and the cells measured in every one of
    them: the budget's extra rounds may reach only a few cells, and an invalid item leaves a hole."""
    per_round = found.groupby("round")["case"].nunique()
    rounds = per_round[2 * per_round >= found["case"].nunique()].index
    kept = found[found["round"].isin(rounds)]
    complete = kept.groupby("case")["round"].nunique() == len(rounds)
    return kept[kept["case"].isin(complete[complete].index)]


def fit(found: pd.DataFrame) -> dict:
    """The rounds' effect on one family (columns case, round, d); None figures below two cells or
    two rounds."""
    grid = balanced(found).pivot_table(index="case", columns="round", values="d", aggfunc="mean")
    cells, rounds = grid.shape
    if cells < 2 or rounds < 2:
        return {"cells": cells, "rounds": rounds, "departures": None, "correlation": None, "p": None}
    grand = float(grid.to_numpy().mean())
    by_round, by_cell = grid.mean(axis=0) - grand, grid.mean(axis=1) - grand
    residual = grid.sub(by_cell, axis=0).sub(by_round, axis=1) - grand
    ms_round = cells * float((by_round ** 2).sum()) / (rounds - 1)
    ms_residual = float((residual.to_numpy() ** 2).sum()) / ((cells - 1) * (rounds - 1))
    between = max(0.0, (ms_round - ms_residual) / cells)
    return {"cells": cells, "rounds": rounds,
            "departures": {int(r): math.exp(v) for r, v in by_round.items()},
            "correlation": between / (between + ms_residual) if between + ms_residual > 0 else 0.0,
            "p": float(stats.f.sf(ms_round / ms_residual, rounds - 1, (cells - 1) * (rounds - 1)))
            if ms_residual > 0 else None}


def table(found: Observed) -> pd.DataFrame:
    """Per (API, metric) family of a paired run: the rounds' effect on the comparison's ratio."""
    return per_family(found, METRICS, fit, COLUMNS)


def departures_text(departures: dict | None) -> str:
    if not departures:
        return "–"
    return ", ".join(f"{departure:.3f}" for _, departure in sorted(departures.items()))
