"""The A/A calibration (`./testbed run --aa F`): two processes of one framework's default build
and settings measured as two arms, so every difference the pipeline calls significant is a false
positive. Per (API, metric) family it counts the judged cells significant by their own 95 %
interval, against the 5 % chance gives (with the binomial probability of that many or more), and
after the Benjamini-Hochberg adjustment the answer applies (the significance the report marks), which
under no true difference should call none in most runs. The bar (ALLOWED_SHARE) reads the latter;
the own-interval counts are the check that the intervals are as wide as they say."""
import pandas as pd
from scipy import stats

from analysis.stats import ALPHA

COLUMNS = ["api", "metric", "judged", "significant_own", "expected", "share", "p_or_more", "significant_bh"]
# The bar for the pipeline on one machine: at most this share of a family's judged cells significant
# as the report marks them (after BH). Read on the cells' own intervals instead, no calibrated
# pipeline could meet it: a family of 18 has 2 or more by chance in 23 % of runs, so 18 families all
# within it in 1 % (chance_over_the_bar); there the test is the binomial one (beyond_chance).
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
                     "p_or_more": p_or_more(own, n) if n else None,
                     "significant_bh": int(judged["significant"].fillna(False).astype(bool).sum())})
    return pd.DataFrame(rows, columns=COLUMNS)


def p_or_more(significant: int, judged: int) -> float:
    """The binomial probability that chance alone (each cell significant with probability ALPHA)
    makes `significant` or more of `judged` cells significant."""
    return float(stats.binom.sf(significant - 1, judged, ALPHA))


def over_the_bar(found: pd.DataFrame) -> pd.DataFrame:
    """The families with more than ALLOWED_SHARE of their judged cells significant after BH."""
    return found[found["significant_bh"] > ALLOWED_SHARE * found["judged"]]


def own_over_the_bar(found: pd.DataFrame) -> pd.DataFrame:
    """The families with more than ALLOWED_SHARE of their judged cells significant by their own interval."""
    return found[found["share"].fillna(0) > ALLOWED_SHARE]


def expected_own_over_the_bar(found: pd.DataFrame) -> float:
    """How many families a calibrated pipeline puts over ALLOWED_SHARE by their own intervals, on average."""
    return float(sum(chance_over_the_bar(n) for n in found["judged"]))


def all_families(found: pd.DataFrame) -> tuple[int, int, float]:
    """Significant and judged cells over every family, and the binomial P(that many or more); the
    families share rounds and processes, so their cells are not independent and P is a guide."""
    own, judged = int(found["significant_own"].sum()), int(found["judged"].sum())
    return own, judged, p_or_more(own, judged) if judged else 1.0


def chance_over_the_bar(judged: int) -> float:
    """How often a calibrated pipeline (each cell significant with probability ALPHA, independently)
    puts a family of `judged` cells over the bar in one run. Small families cross it by chance alone:
    2 of 18 cells in 23 % of runs, 1 of 6 in 26 %; so a family over the bar says its intervals are
    too narrow only when its own P(that many or more) is small."""
    return float(stats.binom.sf(int(ALLOWED_SHARE * judged), judged, ALPHA)) if judged else 0.0


def beyond_chance(found: pd.DataFrame) -> pd.DataFrame:
    """The families whose count of significant cells chance alone gives with probability below ALPHA."""
    return found[found["p_or_more"].fillna(1) < ALPHA]
