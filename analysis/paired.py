"""Paired rounds: the ratio of two frameworks measured back to back, with its 95 % interval and test.

A paired run (the `quick` profile's interleaved rounds; manifest `protocol.paired`) measures, in
each round r and for each API and case, both frameworks seconds apart in a seeded random order.
summary.csv's `iteration` is the round, so ASP.NET Core's and Express.js's rows of one (api, case,
iteration) are a pair. Per cell (api x case x metric), with a_r and b_r the two values of round r:

- ratio: the geometric mean of the per-round ratios, exp(mean of d_r), d_r = log(a_r / b_r);
- 95 % interval: the Student t interval of the mean of d_r (n - 1 degrees of freedom),
  exponentiated: exp(mean(d) ± t(0.975, n - 1) · sd(d) / sqrt(n));
- significance: the paired t-test on the log ratios, i.e. the one-sample t-test of d_r against 0,
  two-sided, alpha 0.05; significant exactly when the interval excludes 1.

Only rounds where both sides are status ok and measured count (n pairs per cell). n < 2: no
interval and not judged. Every d_r the same: a ratio and no interval; not significant when that
ratio is 1, otherwise not judged (a difference without any variation is no evidence either way).

Why this is valid. A shared machine drifts (a neighbour's load, frequency, the page cache): in the
independent-groups comparison (analysis.stats) that drift is noise in both groups, and can even
favour whichever framework happened to run in a quiet minute. Within a pair both frameworks ran
seconds apart, in a random order, so drift they share cancels in a_r / b_r; only drift within the
seconds of a pair remains. Log ratios make the interval symmetric in which framework is the
numerator (E/A's interval is 1/high to 1/low) and turn a multiplicative effect ("20 % faster") into
an additive one, which is what a mean and a t interval assume. The t interval and test assume the
log ratios are roughly normal; with 3 rounds that cannot be checked, so the report says so. This is
Georges, Buytaert and Eeckhout's advice ("Statistically Rigorous Java Performance Evaluation",
OOPSLA 2007): compare with confidence intervals, not single numbers; and pyperf's practice of
reporting a ratio with its spread rather than a bare "x % faster".

Why not Wilcoxon's signed-rank test: it needs no normality, but with n pairs its smallest two-sided
p is 2 / 2^n, 0.25 for 3 rounds, so it can never call anything significant in the default run.
"""
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.stats import ALPHA, CONFIDENCE, Comparison, Ratio, interval_of

TEST = "paired t on log ratios"


def is_paired(manifest: dict) -> bool:
    """Runs before the interleaved protocol have no `protocol` key: their iterations are
    independent groups (one per framework), not pairs."""
    protocol = manifest.get("protocol")
    return isinstance(protocol, dict) and protocol.get("paired") is True


def wilcoxon_smallest_p(n: int) -> float:
    """The signed-rank test's smallest two-sided p with n pairs: every sign alike, 2 / 2^n."""
    return 2 / 2 ** n


@dataclass(frozen=True)
class Paired:
    ratio: Ratio            # geometric mean of a_r / b_r and its interval
    comparison: Comparison  # the paired t-test on the log ratios
    n: int                  # pairs used


def plural(n: int) -> str:
    return f"n={n} pair{'s' if n != 1 else ''}"


def paired(a, b) -> Paired:
    """a, b: one value per round, in the same order (a[i] and b[i] are a pair)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    # A ratio needs both values, and a log needs them positive (an empty sampler, zero errors).
    keep = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    d = np.log(a[keep] / b[keep])
    n = len(d)
    if n == 0:
        return Paired(Ratio(math.nan, None, None, "no pairs"), Comparison("", None, False, False, 0, "no pairs"), 0)
    mean = float(d.mean())
    value, sign = math.exp(mean), int(np.sign(mean))
    if n < 2:
        return Paired(Ratio(value, None, None, plural(n)), Comparison("", None, False, False, sign, plural(n)), n)
    sd = float(d.std(ddof=1))
    if sd == 0:
        note = "the same ratio in every round"
        comparison = Comparison("identical ratios", 1.0, True, False, 0) if mean == 0 else \
            Comparison("", None, False, False, sign, note)
        return Paired(Ratio(value, None, None, note), comparison, n)
    log_se = sd / math.sqrt(n)
    low, high = interval_of(value, log_se, n - 1, CONFIDENCE)
    with warnings.catch_warnings():
        # scipy warns of precision loss when the log ratios are nearly identical; the p is still
        # right to the digits shown.
        warnings.simplefilter("ignore", RuntimeWarning)
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
    return Paired(Ratio(value, low, high, log_se=log_se, df=n - 1), Comparison(TEST, p, True, p < ALPHA, sign), n)


# The sequential stopping rule (issue 24; Laaber et al., FSE 2020; BenchmarkDotNet's MaxRelativeError).
# After every round each cell's 95 % interval of the ratio is computed from the per-round ratios so
# far, and rounds continue only for the cells whose interval is still wider than the target, while
# the time budget allows. The rule looks at the interval's width only, never at where the ratio
# lies or whether it is significant, so it cannot steer a cell towards a verdict: a cell with noisy
# rounds gets more of them, whichever framework is ahead.
TARGET = 0.10       # relative half-width of the 95 % interval: exp(t · sd / sqrt n) - 1
MIN_ROUNDS = 3      # the quick profile's rounds: every cell gets them before the rule applies


def relative_half_width(ratios) -> float:
    """How far, relatively, the 95 % interval of the ratio reaches from its geometric mean
    (exp(t(0.975, n-1) · sd(log r) / sqrt n) - 1); inf with fewer than 2 rounds."""
    d = np.log(np.asarray([r for r in ratios if np.isfinite(r) and r > 0], dtype=float))
    if len(d) < 2:
        return math.inf
    return math.expm1(stats.t.ppf((1 + CONFIDENCE) / 2, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))


def next_round(ratios: dict, time_left_s: float, cell_round_s: float, target: float = TARGET,
               min_rounds: int = MIN_ROUNDS) -> list:
    """The cells to measure once more: each cell's per-round ratios so far (key -> list), the time
    the budget has left, and what one more round of one cell costs. A cell needs another round
    while it has fewer than `min_rounds` or its interval is wider than `target`; when the time
    left cannot pay for all of those, the widest go first (they gain most from a round). An empty
    list: stop, every cell either met the target or the budget is spent."""
    wanted = sorted(((len(r) >= min_rounds, -relative_half_width(r), i, key)
                     for i, (key, r) in enumerate(ratios.items())
                     if len(r) < min_rounds or relative_half_width(r) > target))
    affordable = max(0, int(time_left_s // cell_round_s)) if cell_round_s > 0 else len(wanted)
    return [key for *_, key in wanted[:affordable]]


def stopped(ratios, target: float = TARGET) -> str:
    """Why a cell's rounds ended, for the manifest and the report."""
    width = relative_half_width(ratios)
    n = len(ratios)
    if width <= target:
        return f"met the target after {n} rounds (±{width * 100:.1f} %)"
    return f"budget spent after {n} rounds (±{width * 100:.1f} %, target ±{target * 100:.0f} %)"
