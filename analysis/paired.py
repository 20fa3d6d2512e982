"""Paired rounds: the ratio of two frameworks measured back to back, with its 95 % interval and test.

A paired run (the `quick` profile's interleaved rounds; manifest `protocol.paired`) measures, in
each round r and for each API and case, both frameworks seconds apart in a seeded random order.
ASP.NET Core's and Express.js's rows of one (api, case, round) in summary.csv are a pair. Per cell
(api x case x metric), with a_r and b_r the two values of round r:

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

After extra rounds (a run with `--budget`, manifest `sequential.budget_s`) a cell the rule extended
had its number of rounds set by its own throughput spread: it stopped when its interval looked
narrow, which picks out intervals that are too short. There its throughput's standard error (and
the Little's-law mean's, which restates it) is multiplied by benchlib/stopping.py's
se_factor(df, EXTENDED_LEVEL) (t(0.9925) / t(0.975)), so the "95 %" interval is the plain 98.5 %
one, and p, TOST's 90 % interval and the peak's Bonferroni intervals, all drawn from that standard
error, widen with it: simulated, that keeps at least 95 % coverage under the rule over every cell
(benchlib/test_stopping.py). Cells it did not extend, and metrics it did not read, keep the plain
interval (analysis.tables.extended).
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.stats import ALPHA, CONFIDENCE, Comparison, Ratio, interval_of
from benchlib.moderated import Prior, posterior
from benchlib.stopping import EXTENDED_LEVEL, se_factor

TEST = "paired t on log ratios"
MODERATED_TEST = "moderated paired t on log ratios"


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


def paired(a, b, widened: bool = False, prior: Prior | None = None) -> Paired:
    """a, b: one value per round, in the same order (a[i] and b[i] are a pair). `widened`: the
    stopping rule chose this cell's rounds by this metric (analysis.tables.extended). `prior`: the spread
    of the cell's family (benchlib.moderated), which its own spread is moderated towards."""
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
    variance, df = posterior(prior, float(d.var(ddof=1)), n - 1)
    if variance == 0:
        note = "the same ratio in every round"
        comparison = Comparison("identical ratios", 1.0, True, False, 0) if mean == 0 else \
            Comparison("", None, False, False, sign, note)
        return Paired(Ratio(value, None, None, note, spread=0.0), comparison, n)
    sd = math.sqrt(variance)
    log_se = sd / math.sqrt(n) * (float(se_factor(df, EXTENDED_LEVEL)) if widened else 1.0)
    low, high = interval_of(value, log_se, df, CONFIDENCE)
    # The one-sample t-test of d against 0 (scipy's ttest_1samp) on this standard error.
    p = float(2 * stats.t.sf(abs(mean) / log_se, df))
    return Paired(Ratio(value, low, high, log_se=log_se, df=df, spread=sd),
                  Comparison(MODERATED_TEST if prior else TEST, p, True, p < ALPHA, sign), n)
