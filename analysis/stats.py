"""Confidence intervals and significance across iterations.

Interval: the 95 % Student t interval of the mean of per-iteration values (n = 1: none).

Significance of a difference between two frameworks, two-sided, alpha = 0.05:
- n < 2 in either group: cannot be judged (no variance to compare against).
- Mann-Whitney U when it can reach alpha at all: its smallest possible two-sided p is
  2 / C(n1 + n2, n1), which is 0.1 for 3 vs 3 and 0.057 for 3 vs 4, so it could never call such a
  difference significant however large. It needs no normality assumption, so it is the default.
- Otherwise (2 or 3 iterations per group) Welch's t-test, which assumes roughly normal
  per-iteration values; tables name the test used so a reader can weigh it.
- Both groups constant and equal: not significant; both constant and different: cannot be judged
  (neither test is defined, and a difference without any variation is not evidence).

Ratio of two frameworks' means (what the study's claims are judged on, analysis.verdicts): the 95 %
interval of mean(a) / mean(b) for independent groups, by the delta method on the log scale with
Welch-Satterthwaite degrees of freedom. On the log scale the interval stays positive and is the
same whichever framework is the numerator (b/a's interval is 1/high to 1/low). n < 2 in either
group, a mean that is not positive, or no variation at all: no interval. The ratio keeps its
standard error on the log scale and its degrees of freedom, so any other interval can be drawn from
it (`Ratio.interval`): the 90 % interval of the equivalence tests, the Bonferroni intervals of the
peak rule (analysis.verdicts).

Equivalence by two one-sided tests (TOST, Schuirmann 1987): a ratio lies inside a band (lo, hi) at
alpha 0.05 when both one-sided tests reject, "at or below lo" and "at or above hi", each at 0.05.
That is exactly when the 90 % interval (1 - 2 alpha) lies inside the band; its p is the larger of
the two one-sided p's (`tost_p`). An open side (lo = 0 or hi = inf) is one one-sided test: the
non-inferiority test.

Many comparisons. The report marks dozens of cells at alpha 0.05 each, so some would come out
significant by chance alone. `benjamini_hochberg` turns the family's p's into q's (adjusted p's,
Benjamini and Hochberg 1995): calling significant every cell with q < 0.05 keeps the expected share
of false discoveries among them at or below 5 %, whether the cells are independent or positively
correlated (Benjamini and Yekutieli 2001), as cells measured in the same rounds are.
"""
import math
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

ALPHA = 0.05
CONFIDENCE = 0.95
# exp of anything above this is beyond a float's range.
LOG_FLOAT_MAX = math.log(sys.float_info.max)


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float | None   # None when n < 2
    high: float | None
    n: int


def interval(values) -> Interval:
    values = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    n = len(values)
    if n == 0:
        return Interval(math.nan, None, None, 0)
    mean = float(values.mean())
    if n < 2:
        return Interval(mean, None, None, n)
    half = stats.t.ppf((1 + CONFIDENCE) / 2, n - 1) * values.std(ddof=1) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


@dataclass(frozen=True)
class Comparison:
    test: str            # "Mann-Whitney U", "Welch t", or "" when not judged
    p: float | None
    judged: bool
    significant: bool    # only meaningful when judged
    sign: int            # sign of mean(a) - mean(b): -1, 0, 1
    reason: str = ""     # why it was not judged

    def describe(self, a_name: str, b_name: str) -> str:
        if not self.judged:
            return f"cannot be judged ({self.reason})"
        if not self.significant:
            return f"not significant (p={self.p:.3g})"
        lower = a_name if self.sign < 0 else b_name
        return f"{lower} lower (p={self.p:.3g})"


def mwu_can_reach_alpha(n1: int, n2: int) -> bool:
    return 2 / math.comb(n1 + n2, n1) < ALPHA


def compare(a, b) -> Comparison:
    a = np.asarray([v for v in a if not math.isnan(v)], dtype=float)
    b = np.asarray([v for v in b if not math.isnan(v)], dtype=float)
    if len(a) < 2 or len(b) < 2:
        n = min(len(a), len(b))
        sign = int(np.sign(a.mean() - b.mean())) if n else 0
        return Comparison("", None, False, False, sign, f"n={n} iteration{'s' if n != 1 else ''}")
    sign = int(np.sign(a.mean() - b.mean()))
    if a.std() == 0 and b.std() == 0:
        if sign == 0:
            return Comparison("identical values", 1.0, True, False, 0)
        return Comparison("", None, False, False, sign, "no variation across iterations")
    with warnings.catch_warnings():
        # scipy warns of precision loss when a group's values are nearly identical; the test
        # still runs and the tables name it, so the warning would only clutter the CLI output.
        warnings.simplefilter("ignore", RuntimeWarning)
        if mwu_can_reach_alpha(len(a), len(b)):
            p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
            test = "Mann-Whitney U"
        else:
            p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
            test = "Welch t"
    return Comparison(test, p, True, p < ALPHA, sign)


@dataclass(frozen=True)
class Ratio:
    value: float         # mean(a) / mean(b); inf when only b's mean is 0, nan when it cannot be formed
    low: float | None    # the 95 % interval; None when there is none
    high: float | None
    reason: str = ""     # why there is no interval
    log_se: float | None = None  # standard error of log(value), with `df` degrees of freedom
    df: float | None = None
    # The spread of one round's log ratio (paired: sd of the per-round log ratios; independent
    # groups: the two coefficients of variation combined), from which the standard error at any
    # number of rounds follows (analysis/rounds_needed.py).
    spread: float | None = None

    def interval(self, confidence: float) -> tuple[float, float] | tuple[None, None]:
        return interval_of(self.value, self.log_se, self.df, confidence)


def interval_of(value, log_se, df, confidence: float):
    """The two-sided t interval of a ratio at `confidence`, from its log-scale standard error.
    Formed on the log scale: a ratio of two minima near zero (1e-43) with a wide spread has a bound
    beyond what exp alone can hold, though the bound itself is a float."""
    if not known(log_se) or not known(df) or not value > 0:
        return None, None
    half = stats.t.ppf((1 + confidence) / 2, df) * log_se
    centre = math.log(value)
    return exp_or_inf(centre - half), exp_or_inf(centre + half)


def geometric_mean(ratios) -> float:
    """The mean of ratios on the log scale, as every ratio of the report is formed."""
    return math.exp(np.log(np.asarray(ratios, dtype=float)).mean())


def exp_or_inf(x: float) -> float:
    return math.exp(x) if x < LOG_FLOAT_MAX else math.inf


def known(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def tost_p(value, log_se, df, band: tuple[float, float]) -> float | None:
    """TOST's p that the ratio lies inside the open band: the larger one-sided p (an infinite or
    zero bound is no test, p 0). None without a standard error."""
    if not known(log_se) or not known(df) or not value > 0 or log_se <= 0:
        return None
    low, high = band
    d = math.log(value)
    p_low = 0.0 if low <= 0 else float(stats.t.sf((d - math.log(low)) / log_se, df))
    p_high = 0.0 if math.isinf(high) else float(stats.t.sf((math.log(high) - d) / log_se, df))
    return max(p_low, p_high)


def benjamini_hochberg(p) -> np.ndarray:
    """Adjusted p's (q) in the order given; NaN stays NaN and is not counted in the family.
    q_(i) = min over j >= i of p_(j) * m / j, capped at 1 (the step-up procedure)."""
    p = np.asarray(p, dtype=float)
    q = np.full(p.shape, np.nan)
    present = ~np.isnan(p)
    m = int(present.sum())
    if m == 0:
        return q
    order = np.argsort(p[present])
    ranked = p[present][order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1].clip(max=1.0)
    q[np.flatnonzero(present)[order]] = adjusted
    return q


def ratio_of_means(a, b) -> Ratio:
    a = np.asarray([v for v in a if not math.isnan(v)], dtype=float)
    b = np.asarray([v for v in b if not math.isnan(v)], dtype=float)
    if len(a) == 0 or len(b) == 0:
        return Ratio(math.nan, None, None, "no values")
    mean_a, mean_b = float(a.mean()), float(b.mean())
    value = mean_a / mean_b if mean_b > 0 else (math.inf if mean_a > 0 else math.nan)
    if len(a) < 2 or len(b) < 2:
        n = min(len(a), len(b))
        return Ratio(value, None, None, f"n={n} iteration{'s' if n != 1 else ''}")
    if mean_a <= 0 or mean_b <= 0:
        return Ratio(value, None, None, "a mean of zero")
    # squared relative standard errors: the variances of log(mean) by the delta method
    rel_a = a.var(ddof=1) / (len(a) * mean_a ** 2)
    rel_b = b.var(ddof=1) / (len(b) * mean_b ** 2)
    if rel_a + rel_b == 0:
        return Ratio(value, None, None, "no variation across iterations")
    df = (rel_a + rel_b) ** 2 / (rel_a ** 2 / (len(a) - 1) + rel_b ** 2 / (len(b) - 1))
    log_se = math.sqrt(rel_a + rel_b)
    low, high = interval_of(value, log_se, df, CONFIDENCE)
    return Ratio(value, low, high, log_se=log_se, df=df, spread=math.sqrt(rel_a * len(a) + rel_b * len(b)))


def adjust_family(cells, metrics):
    """A comparison table (analysis.tables) with `q` beside `p`, over the family of its judged cells
    whose metric is in `metrics`, and `significant` read off q; cells outside the family keep their
    p-based flag and no q. The `result` text gains the q, or says when the adjustment undid a
    significant p."""
    cells = cells.copy()
    family = cells["metric"].isin(metrics) & cells["judged"].astype(bool) & cells["p"].notna()
    cells["q"] = np.nan
    cells.loc[family, "q"] = benjamini_hochberg(cells.loc[family, "p"])
    undone = family & cells["significant"].astype(bool) & ~(cells["q"] < ALPHA)
    cells.loc[family, "significant"] = cells.loc[family, "q"] < ALPHA
    if "result" in cells:
        cells.loc[family, "result"] = [
            f"not significant after adjustment (p={p:.3g}, q={q:.3g})" if off else
            text.replace(f"p={p:.3g})", f"p={p:.3g}, q={q:.3g})")
            for text, p, q, off in zip(cells.loc[family, "result"], cells.loc[family, "p"],
                                       cells.loc[family, "q"], undone[family])]
    return cells
