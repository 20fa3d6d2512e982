"""The paired statistics on crafted rounds whose log ratios have a mean and spread picked by hand."""
import math

from scipy import stats as scipy_stats

from analysis.paired import TEST, paired, wilcoxon_smallest_p

T2 = 4.302652729911275  # t(0.975, df=2)


def rounds(log_ratios, b=(100.0, 80.0, 120.0)):
    """a_r = b_r * exp(d_r): the b values (a drifting machine) cancel in every ratio."""
    return [bi * math.exp(d) for bi, d in zip(b, log_ratios)], list(b)


def test_three_rounds_give_the_geometric_mean_ratio_and_its_t_interval():
    # log ratios 0.1, 0.2, 0.3: mean 0.2, sd 0.1, so the interval is exp(0.2 ± t2 · 0.1 / sqrt 3)
    a, b = rounds([0.1, 0.2, 0.3])
    p = paired(a, b)
    half = T2 * 0.1 / math.sqrt(3)
    assert p.n == 3
    assert math.isclose(p.ratio.value, math.exp(0.2))
    assert math.isclose(p.ratio.low, math.exp(0.2 - half)) and math.isclose(p.ratio.high, math.exp(0.2 + half))
    # t = 0.2 / (0.1 / sqrt 3) = 3.464 on 2 df: p = 0.074, the interval crosses 1 just barely
    t = 0.2 / (0.1 / math.sqrt(3))
    assert math.isclose(p.comparison.p, 2 * scipy_stats.t.sf(t, 2))
    assert p.comparison.test == TEST and p.comparison.judged and not p.comparison.significant
    assert p.ratio.low < 1 < p.ratio.high


def test_three_rounds_can_reach_significance():
    # log ratios -0.25, -0.2, -0.15: ASP.NET Core 18 % lower, tight enough for p < 0.05
    a, b = rounds([-0.25, -0.2, -0.15])
    p = paired(a, b)
    assert p.comparison.significant and p.comparison.sign == -1 and p.ratio.high < 1
    assert math.isclose(p.ratio.value, math.exp(-0.2))
    assert p.comparison.describe("A", "E").startswith("A lower (p=0.0")


def test_the_interval_is_symmetric_in_which_framework_is_on_top():
    a, b = rounds([0.05, 0.4, 0.2])
    ab, ba = paired(a, b), paired(b, a)
    assert math.isclose(ba.ratio.value, 1 / ab.ratio.value)
    assert math.isclose(ba.ratio.low, 1 / ab.ratio.high) and math.isclose(ba.ratio.high, 1 / ab.ratio.low)
    assert math.isclose(ab.comparison.p, ba.comparison.p)


def test_drift_shared_by_a_pair_cancels():
    """The same ratios on a steady and on a wildly drifting machine give the same answer."""
    steady, drifting = paired(*rounds([0.1, 0.2, 0.3], b=(100, 100, 100))), \
        paired(*rounds([0.1, 0.2, 0.3], b=(50, 400, 90)))
    assert math.isclose(steady.ratio.low, drifting.ratio.low) \
        and math.isclose(steady.comparison.p, drifting.comparison.p)


def test_only_complete_positive_pairs_count():
    a, b = rounds([0.1, 0.2, 0.3])
    p = paired(a + [float("nan"), 5.0], b + [7.0, 0.0])
    assert p.n == 3 and math.isclose(p.ratio.value, math.exp(0.2))


def test_one_pair_has_a_ratio_but_no_interval_and_is_not_judged():
    p = paired([120.0], [100.0])
    assert p.n == 1 and math.isclose(p.ratio.value, 1.2) and p.ratio.low is None
    assert not p.comparison.judged and p.ratio.reason == "n=1 pair"
    assert p.comparison.describe("A", "E") == "cannot be judged (n=1 pair)"


def test_the_same_ratio_every_round_has_no_interval():
    same, equal = paired([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]), paired([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert same.ratio.value == 2.0 and same.ratio.low is None and not same.comparison.judged
    assert equal.comparison.judged and not equal.comparison.significant and equal.ratio.value == 1.0


def test_wilcoxon_cannot_reach_alpha_with_three_rounds():
    assert wilcoxon_smallest_p(3) == 0.25
    assert wilcoxon_smallest_p(5) == 0.0625 and wilcoxon_smallest_p(6) < 0.05
    # scipy agrees: three pairs all one way are as extreme as the signed-rank test can see
    assert math.isclose(scipy_stats.wilcoxon([1.0, 2.0, 3.0]).pvalue, 0.25)


def test_after_extra_rounds_the_interval_and_the_test_are_the_plain_98_5_percent_ones():
    # The stopping rule picked the number of rounds by the spread (benchlib/stopping.py): the
    # interval, and p, are drawn on the standard error x t(0.9925, 2) / t(0.975, 2).
    a, b = rounds([0.1, 0.2, 0.3])
    p = paired(a, b, widened=True)
    low, high = scipy_stats.t.interval(0.985, 2, loc=0.2, scale=0.1 / math.sqrt(3))
    assert math.isclose(p.ratio.low, math.exp(low)) and math.isclose(p.ratio.high, math.exp(high))
    t = 0.2 / (0.1 / math.sqrt(3)) * T2 / scipy_stats.t.ppf(0.9925, 2)
    assert math.isclose(p.comparison.p, 2 * scipy_stats.t.sf(t, 2)) and math.isclose(p.ratio.spread, 0.1)
    assert paired(a, b).ratio.high < p.ratio.high
