import math
import statistics

from scipy import stats as scipy_stats

import numpy as np
import pandas as pd

from analysis.stats import Ratio, adjust_family, benjamini_hochberg, compare, interval, interval_of, \
    mwu_can_reach_alpha, ratio_of_means, tost_p


def test_interval_is_the_t_interval_of_the_mean():
    values = [10.0, 12.0, 11.0, 13.0]
    ci = interval(values)
    half = 3.182446305284263 * statistics.stdev(values) / 2  # t(0.975, 3) * s / sqrt(4)
    assert ci.n == 4 and ci.mean == 11.5
    assert math.isclose(ci.low, 11.5 - half) and math.isclose(ci.high, 11.5 + half)


def test_one_iteration_has_no_interval():
    ci = interval([7.0])
    assert (ci.mean, ci.low, ci.high, ci.n) == (7.0, None, None, 1)


def test_missing_values_are_left_out():
    assert interval([1.0, float("nan"), 3.0]).n == 2


def test_mann_whitney_can_reach_alpha_from_four_iterations_a_side():
    assert not mwu_can_reach_alpha(3, 3)  # smallest p = 2/20
    assert not mwu_can_reach_alpha(3, 4)  # 2/35
    assert mwu_can_reach_alpha(3, 5)      # 2/56
    assert mwu_can_reach_alpha(4, 4)      # 2/70


def test_separated_groups_of_four_use_mann_whitney():
    c = compare([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0])
    assert c.test == "Mann-Whitney U" and c.judged and c.significant and c.sign == -1
    assert math.isclose(c.p, 2 / 70)
    assert c.describe("A", "B") == "A lower (p=0.0286)"


def test_groups_of_three_use_welch():
    a, b = [10.0, 11.0, 12.0], [20.0, 22.0, 21.5]
    c = compare(a, b)
    va, vb = statistics.variance(a) / 3, statistics.variance(b) / 3
    t = (statistics.mean(a) - statistics.mean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2)
    assert c.test == "Welch t" and c.significant
    assert math.isclose(c.p, 2 * scipy_stats.t.sf(abs(t), df))


def test_overlapping_groups_are_not_significant():
    c = compare([1.0, 5.0, 3.0, 4.0], [2.0, 4.5, 3.5, 1.5])
    assert c.judged and not c.significant
    assert c.describe("A", "B").startswith("not significant")


def test_one_iteration_cannot_be_judged():
    c = compare([1.0], [100.0, 101.0])
    assert not c.judged and c.p is None and c.sign == -1
    assert c.describe("A", "B") == "cannot be judged (n=1 iteration)"


def test_constant_groups():
    assert not compare([2.0, 2.0], [2.0, 2.0]).significant
    different = compare([2.0, 2.0], [3.0, 3.0])
    assert not different.judged and "no variation" in different.reason


def test_ratio_interval_by_the_delta_method_on_the_log_scale():
    a, b = [10.0, 12.0, 11.0, 13.0], [20.0, 22.0, 21.0]
    r = ratio_of_means(a, b)
    rel_a = statistics.variance(a) / (4 * statistics.mean(a) ** 2)
    rel_b = statistics.variance(b) / (3 * statistics.mean(b) ** 2)
    df = (rel_a + rel_b) ** 2 / (rel_a ** 2 / 3 + rel_b ** 2 / 2)
    half = scipy_stats.t.ppf(0.975, df) * math.sqrt(rel_a + rel_b)
    assert math.isclose(r.value, 11.5 / 21.0)
    assert math.isclose(r.low, 11.5 / 21.0 * math.exp(-half))
    assert math.isclose(r.high, 11.5 / 21.0 * math.exp(half))


def test_ratio_interval_is_the_same_whichever_framework_is_on_top():
    a, b = [10.0, 12.0, 11.0, 13.0], [20.0, 22.0, 21.0]
    forward, backward = ratio_of_means(a, b), ratio_of_means(b, a)
    assert math.isclose(forward.low, 1 / backward.high) and math.isclose(forward.high, 1 / backward.low)


def test_ratio_without_interval():
    assert ratio_of_means([5.0], [10.0, 11.0]) == Ratio(5.0 / 10.5, None, None, "n=1 iteration")
    assert ratio_of_means([2.0, 2.0], [4.0, 4.0]).reason == "no variation across iterations"
    zero = ratio_of_means([1.0, 2.0], [0.0, 0.0])
    assert math.isinf(zero.value) and zero.low is None and zero.reason == "a mean of zero"


# equivalence by two one-sided tests

def test_tost_decides_equivalent_when_the_90_percent_interval_is_inside_the_margin():
    # log ratio 0.02 with standard error 0.02 on 9 df: the 90 % interval exp(0.02 ± 1.833 · 0.02)
    # is [0.983, 1.058], inside (1/1.1, 1.1), while the 95 % interval [0.975, 1.067] would be too
    ratio = Ratio(math.exp(0.02), None, None, log_se=0.02, df=9)
    low, high = ratio.interval(0.90)
    t90 = scipy_stats.t.ppf(0.95, 9)
    assert math.isclose(low, math.exp(0.02 - t90 * 0.02)) and math.isclose(high, math.exp(0.02 + t90 * 0.02))
    band = (1 / 1.1, 1.1)
    p = tost_p(ratio.value, 0.02, 9, band)
    # the binding side is the upper margin: t = (log 1.1 - 0.02) / 0.02
    assert math.isclose(p, scipy_stats.t.sf((math.log(1.1) - 0.02) / 0.02, 9)) and p < 0.05
    assert band[0] < low and high < band[1]


def test_tost_does_not_decide_equivalent_when_the_interval_reaches_the_margin():
    # the same ratio on 2 df (three rounds) and a wider spread: the 90 % interval reaches past 1.1
    ratio = Ratio(math.exp(0.02), None, None, log_se=0.05, df=2)
    low, high = ratio.interval(0.90)
    assert high > 1.1
    assert tost_p(ratio.value, 0.05, 2, (1 / 1.1, 1.1)) > 0.05


def test_tost_with_an_open_side_is_the_one_sided_non_inferiority_test():
    p = tost_p(0.95, 0.02, 5, (1 / 1.1, math.inf))
    assert math.isclose(p, scipy_stats.t.sf((math.log(0.95) - math.log(1 / 1.1)) / 0.02, 5))
    assert tost_p(0.95, None, None, (1 / 1.1, math.inf)) is None


def test_ratio_of_means_keeps_the_standard_error_of_its_interval():
    r = ratio_of_means([10.0, 12.0, 11.0], [5.0, 6.0, 5.5])
    assert all(math.isclose(x, y) for x, y in zip(r.interval(0.95), (r.low, r.high)))
    low90, high90 = r.interval(0.90)
    assert r.low < low90 < r.value < high90 < r.high


# false discoveries

def test_benjamini_hochberg_matches_the_step_up_procedure_by_hand():
    # m = 4: p's sorted 0.01, 0.02, 0.03, 0.5 -> 0.04, 0.04, 0.04, 0.5 (each the min of p·m/rank onward)
    q = benjamini_hochberg([0.03, 0.5, 0.01, float("nan"), 0.02])
    assert np.allclose(q[[0, 1, 2, 4]], [0.04, 0.5, 0.04, 0.04]) and math.isnan(q[3])


def test_adjustment_keeps_a_strong_cell_and_undoes_a_chance_one():
    cells = pd.DataFrame({
        "metric": ["mean_ms"] * 10 + ["p50_ms"],
        "p": [0.001, 0.04] + [0.5] * 8 + [0.04],
        "judged": [True] * 11, "significant": [True, True] + [False] * 8 + [True],
        "result": ["A lower (p=0.001)", "A lower (p=0.04)"] + ["not significant (p=0.5)"] * 8 + ["A lower (p=0.04)"]})
    adjusted = adjust_family(cells, {"mean_ms"})
    # q = 0.001 · 10 = 0.01 stays significant; 0.04 · 10 / 2 = 0.2 does not
    assert math.isclose(adjusted["q"][0], 0.01) and adjusted["significant"][0]
    assert math.isclose(adjusted["q"][1], 0.2) and not adjusted["significant"][1]
    assert adjusted["result"][0] == "A lower (p=0.001, q=0.01)"
    assert adjusted["result"][1] == "not significant after adjustment (p=0.04, q=0.2)"
    # outside the family: untouched, no q
    assert adjusted["significant"][10] and math.isnan(adjusted["q"][10])


def test_a_ratio_of_two_minima_near_zero_keeps_its_interval_on_the_log_scale():
    # A ratio's bounds are computed on the log scale, since value x exp(half) overflows: a run's
    # expected minimum of 1e-43 ms against one of about 1 ms, with one degree of freedom and a log
    # spread of 56, made the report fail.
    low, high = interval_of(1.2812564645574313e-43, 55.88153769334455, 1, 0.95)
    assert low == 0.0 and math.isclose(math.log(high), math.log(1.2812564645574313e-43) + 710.0422589, rel_tol=1e-6)
    assert interval_of(1.0, 60.0, 1, 0.95) == (0.0, math.inf)  # a bound beyond any float
