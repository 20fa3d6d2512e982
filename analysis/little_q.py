"""A Little's-law mean cell takes the q of the cell it restates (its throughput, in a checked
run), so that one hypothesis is counted once in a family's Benjamini-Hochberg adjustment; shared by
the report's cells (analysis.verdicts), the fresh-memory cells that redraw q (analysis.memory) and
the pool (analysis.pool)."""
import numpy as np
import pandas as pd

from analysis.metrics import LITTLES_MEAN
from analysis.stats import ALPHA

# A ratio's bound (analysis.validity.bound_direction) read for its reciprocal: connections / throughput.
INVERSE_BOUND = {">=": "<=", "<=": ">=", "both": "both"}


def with_q_of(cells: pd.DataFrame, twin: str) -> pd.DataFrame:
    """Each Little's-law mean cell (LITTLES_MEAN) with the q of the cell of metric `twin` it
    restates, and significance read off it, so that the family counts one hypothesis once. In a
    checked run that is the throughput: connections / throughput with the same connections in both
    arms makes the two log ratios each other's negatives, one test with one p. In an older run it is
    the sample mean it then is (analysis.load.littles_mean_ms). Where the twin is a bound (an arm's
    round bound by the load generator), so is the mean, the other way: judged on the rounds left it
    would answer, with an interval and no q, what the twin answers with a bound (run 225723's REST
    case 1: 0.73 [0.54, 0.97] on two rounds, "not significant", beside a throughput of at least 1.41)."""
    cells = cells.copy()
    little = cells.index[cells["metric"] == LITTLES_MEAN]
    twins = cells[cells["metric"] == twin].drop_duplicates(["api", "case"]).set_index(["api", "case"]).reindex(
        pd.MultiIndex.from_frame(cells.loc[little, ["api", "case"]])).set_axis(little)
    cells.loc[little, "q"] = twins["q"]
    cells.loc[little, "significant"] = cells.loc[little, "q"] < ALPHA
    if "bound" not in twins:
        return cells
    bound = little[twins["bound"].isin(INVERSE_BOUND)]
    cells.loc[bound, ["ratio_low", "ratio_high", "log_se", "df", "p"]] = np.nan
    cells.loc[bound, ["judged", "significant"]] = False
    cells.loc[bound, "bound"] = twins.loc[bound, "bound"].map(INVERSE_BOUND)
    cells.loc[bound, "ratio"] = 1 / twins.loc[bound, "ratio"]
    for column in ("ratio_note", "result"):
        if column in cells:
            cells.loc[bound, column] = twins.loc[bound, column]
    return cells
