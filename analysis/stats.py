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
group, a mean that is not positive, or no variation at all: no interval.
"""
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

ALPHA = 0.05
CONFIDENCE = 0.95


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
    low: float | None    # None when there is no interval
    high: float | None
    reason: str = ""     # why there is no interval


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
    half = stats.t.ppf((1 + CONFIDENCE) / 2, df) * math.sqrt(rel_a + rel_b)
    return Ratio(value, value * math.exp(-half), value * math.exp(half))
