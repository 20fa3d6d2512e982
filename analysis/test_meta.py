"""The random-effects model across runs (analysis/meta.py) against values worked out by hand in each
test's comments: DerSimonian-Laird and Paule-Mandel on one cell and on a family of two cells with
one tau, I^2, the pooled interval with t on the family's degrees of freedom, and no spread; and the
pooled interval's coverage, simulated."""
import math

import numpy as np
import pytest
from scipy import stats

from analysis import meta


def test_dersimonian_laird_by_hand():
    # y = 0, 0.1, 0.3 with variances 0.01, 0.02, 0.01: w = 100, 50, 100, S1 = 250, mean 35 / 250 =
    # 0.14; Q = 100 (0.14)^2 + 50 (0.04)^2 + 100 (0.16)^2 = 1.96 + 0.08 + 2.56 = 4.6 on 2 df;
    # S2 / S1 = 22500 / 250 = 90; tau^2 = (4.6 - 2) / (250 - 90) = 0.01625.
    found = meta.fit([0.0, 0.1, 0.3], [0.1, math.sqrt(0.02), 0.1], ["c"] * 3)
    assert math.isclose(found.q, 4.6)
    assert math.isclose(found.dl_tau2, 0.01625)
    assert found.df == 2 and math.isclose(found.q_p, math.exp(-4.6 / 2))  # chi-square on 2 df: e^(-Q/2)
    assert math.isclose(found.i2, 2.6 / 4.6)
    # PM weights the noisier run more as tau grows, so it lands elsewhere, where Q(tau^2) = df.
    assert not math.isclose(found.tau2, found.dl_tau2)
    assert math.isclose(meta.generalised_q(meta.by_cell([0.0, 0.1, 0.3], [0.01, 0.02, 0.01], ["c"] * 3), found.tau2),
                        2)


def test_paule_mandel_and_dl_agree_when_the_runs_are_equally_precise():
    # y = 0.1, 0.2, 0.4, each variance 0.01: the sample variance is 0.046667 / 2 = 0.023333, so
    # tau^2 = 0.023333 - 0.01 = 0.013333 (then Q = 0.046667 / 0.023333 = 2 = df).
    found = meta.fit([0.1, 0.2, 0.4], [0.1] * 3, ["c"] * 3)
    assert math.isclose(found.tau2, 0.04 / 3, rel_tol=1e-9)
    assert math.isclose(found.dl_tau2, found.tau2, rel_tol=1e-9)
    # Pooled: equal weights, so the plain mean 0.23333 with se sqrt(0.023333 / 3).
    assert math.isclose(found.means["c"], 0.7 / 3)
    assert math.isclose(found.ses["c"], math.sqrt(0.07 / 3 / 3))


def test_one_tau_for_a_family_of_cells():
    # Cell a as above; cell b: two runs at 0.5, variance 0.04 each, which add nothing to Q. The
    # family's df is 2 + 1 = 3, so 0.046667 / (0.01 + tau^2) = 3: tau^2 = 0.015556 - 0.01 = 0.0055556.
    found = meta.fit([0.1, 0.2, 0.4, 0.5, 0.5], [0.1, 0.1, 0.1, 0.2, 0.2], ["a", "a", "a", "b", "b"])
    assert found.df == 3
    assert math.isclose(found.tau2, 0.14 / 3 / 3 - 0.01, rel_tol=1e-9)
    # Cochran's Q: 4.6667 from cell a alone; I^2 = (4.6667 - 3) / 4.6667 = 0.35714.
    assert math.isclose(found.q, 0.14 / 3 / 0.01)
    assert math.isclose(found.i2, (0.14 / 0.03 - 3) / (0.14 / 0.03))
    # Cell b pooled: mean 0.5, se sqrt((0.04 + tau^2) / 2) = 0.15092, interval t(0.975, 3) = 3.1824 wide.
    se = math.sqrt((0.04 + found.tau2) / 2)
    assert math.isclose(found.means["b"], 0.5) and math.isclose(found.ses["b"], se)
    low, high = meta.interval(found.means["b"], found.ses["b"], found.df)
    assert math.isclose(low, math.exp(0.5 - 3.182446305 * se), rel_tol=1e-8)
    assert math.isclose(high, math.exp(0.5 + 3.182446305 * se), rel_tol=1e-8)
    assert math.isclose(meta.p_value(0.5, se, 3), 2 * stats.t.sf(0.5 / se, 3))


def test_runs_that_agree_better_than_their_intervals_give_no_spread():
    found = meta.fit([0.2, 0.21, 0.19], [0.1] * 3, ["c"] * 3)
    # Q = (0.01^2 + 0 + 0.01^2) / 0.01 = 0.02, far under 2 df.
    assert math.isclose(found.q, 0.02) and found.tau2 == 0 and found.dl_tau2 == 0 and found.i2 == 0
    assert math.isclose(found.ses["c"], 0.1 / math.sqrt(3))


def test_a_cell_of_one_run_takes_the_tau_of_its_family():
    found = meta.fit([0.1, 0.2, 0.4, 0.3], [0.1, 0.1, 0.1, 0.1], ["a", "a", "a", "b"])
    assert found.df == 2 and math.isclose(found.tau2, 0.04 / 3, rel_tol=1e-6)
    assert math.isclose(found.ses["b"], math.sqrt(0.01 + found.tau2))


def test_without_two_runs_of_any_cell_tau_is_unknown():
    found = meta.fit([0.1, 0.3], [0.1, 0.1], ["a", "b"])
    assert not found.known and found.q_p is None and found.i2 is None


@pytest.mark.parametrize("parts, expected", [
    # Two equal variances on 2 df each: (2v)^2 / (2 v^2 / 2) = 4.
    ([(0.01, 2), (0.01, 2)], 4.0),
    # A variance known exactly (infinite df) adds nothing to the denominator: (0.02)^2 / (0.01^2 / 3) = 12.
    ([(0.01, 3), (0.01, math.inf)], 12.0),
])
def test_satterthwaite(parts, expected):
    assert math.isclose(meta.satterthwaite(parts), expected)


def test_the_t_takes_the_runs_own_few_degrees_of_freedom_when_they_carry_the_variance():
    # Two cells of three runs that agree (tau = 0), each standard error on 1 df: each run's part of
    # the pooled variance v / 3 is v / 9, so Welch-Satterthwaite gives (v / 3)^2 / (3 (v / 9)^2 / 1)
    # = 3 degrees of freedom, fewer than the family's 2 + 2 = 4, which Hartung-Knapp alone would take.
    found = meta.fit([0.2, 0.21, 0.19, 0.5, 0.5, 0.5], [0.1] * 6, list("aaabbb"), [1] * 6)
    assert found.tau2 == 0 and found.df == 4
    assert math.isclose(found.dfs["a"], 3) and math.isclose(found.dfs["b"], 3)
    # Known standard errors: the family's df, as Hartung-Knapp.
    assert meta.fit([0.2, 0.21, 0.19, 0.5, 0.5, 0.5], [0.1] * 6, list("aaabbb")).dfs["a"] == 4


def test_the_pooled_interval_covers_at_the_spread_between_runs_issue_53_measured():
    # 150 simulated pools of 3 runs x 18 cases: true log ratios anywhere, each run off by tau = 0.067
    # and measured with s = 0.02 estimated on 2 df (3 rounds): the pooled 95 % intervals hold the
    # true ratio about 95 % of the time, where the runs' own intervals pooled without tau hold it in
    # well under half (what compare did between runs before it knew tau).
    rng = np.random.default_rng(53)
    held = held_without = total = 0
    for _ in range(150):
        truth = rng.normal(0, 0.3, 18)
        cells = np.repeat(np.arange(18), 3)
        y = truth[cells] + rng.normal(0, 0.067, len(cells)) + rng.normal(0, 0.02, len(cells))
        se = 0.02 * np.sqrt(rng.chisquare(2, len(cells)) / 2)
        found = meta.fit(y, se, cells, np.full(len(cells), 2))
        for c in range(18):
            low, high = meta.interval(found.means[c], found.ses[c], found.dfs[c])
            held += low <= math.exp(truth[c]) <= high
            w = 1 / se[cells == c] ** 2
            mean = float(np.sum(w * y[cells == c]) / np.sum(w))
            low, high = meta.interval(mean, math.sqrt(1 / np.sum(w)), 6)
            held_without += low <= math.exp(truth[c]) <= high
            total += 1
    assert 0.93 <= held / total <= 0.97
    assert held_without / total < 0.5
