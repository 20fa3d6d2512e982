"""The A/A calibration (`./testbed run --aa F`): two processes of one framework's default build
and settings measured as two arms, so every difference the pipeline calls significant is a false
positive. Per (API, metric) family it counts the judged cells significant by their own 95 %
interval, against the 5 % chance gives (with the binomial probability of that many or more), and
after the Benjamini-Hochberg adjustment the answer applies, which under no true difference should
call none in most runs."""
import pandas as pd
from scipy import stats

from analysis.stats import ALPHA

COLUMNS = ["api", "metric", "judged", "significant_own", "expected", "share", "p_or_more", "significant_bh"]
# The bar for the pipeline on one machine: at most this share of a family's judged cells
# significant by their own interval.
ALLOWED_SHARE = 0.10


def calibration(answers: pd.DataFrame) -> pd.DataFrame:
    """Per (api, metric) of one comparison's answer rows (analysis.answer's columns)."""
    rows = []
    for (api, metric), family in answers.groupby(["api", "metric"], sort=False):
        judged = family[family["judged"].fillna(False).astype(bool)]
        own = int(((judged["ratio_low"] > 1) | (judged["ratio_high"] < 1)).sum())
        n = len(judged)
        rows.append({"api": api, "metric": metric, "judged": n, "significant_own": own,
                     "expected": round(ALPHA * n, 2), "share": own / n if n else None,
                     "p_or_more": float(stats.binom.sf(own - 1, n, ALPHA)) if n else None,
                     "significant_bh": int(judged["significant"].fillna(False).astype(bool).sum())})
    return pd.DataFrame(rows, columns=COLUMNS)


def over_the_bar(found: pd.DataFrame) -> pd.DataFrame:
    """The families with more than ALLOWED_SHARE of their judged cells significant."""
    return found[found["share"].fillna(0) > ALLOWED_SHARE]
