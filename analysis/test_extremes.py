"""Minimum and maximum on equal sample counts: the exact expectation against every draw counted by
hand, and the quick fixture's JTLs."""
import itertools
import math
import shutil
import statistics

import pandas as pd
import pytest

from analysis import extremes
from analysis.claims import MAX, MIN
from analysis.load import load_jtl, load_run

VALUES = [5.0, 1.0, 9.0, 3.0, 7.0]


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_the_expected_extreme_is_the_mean_over_every_draw(m):
    draws = list(itertools.combinations(VALUES, m))
    assert math.isclose(extremes.expected_extreme(VALUES, m, True), statistics.mean(max(d) for d in draws))
    assert math.isclose(extremes.expected_extreme(VALUES, m, False), statistics.mean(min(d) for d in draws))


def test_more_samples_alone_move_the_extremes_and_equal_counts_undo_it():
    """Two sides with the same (uniform) distribution, one sampled 4 times as often: evenly spread
    quantiles i / (n + 1). The larger side's raw maximum is higher and its raw minimum lower; its
    expected extremes at the smaller side's count are exactly the smaller side's (m / (m + 1) and
    1 / (m + 1))."""
    few = [i / 11 for i in range(1, 11)]
    many = [j / 41 for j in range(1, 41)]
    assert max(many) > max(few) and min(many) < min(few)
    assert math.isclose(extremes.expected_extreme(many, 10, True), max(few))
    assert math.isclose(extremes.expected_extreme(many, 10, False), min(few))


def test_a_draw_larger_than_the_sample_is_refused():
    with pytest.raises(ValueError, match="cannot draw 6 of 5"):
        extremes.expected_extreme(VALUES, 6, True)


def test_a_paired_run_compares_each_round_at_its_pairs_smaller_count(results):
    run = load_run(results / "20250601-120000-quick")
    values = extremes.item_values(run).set_index(["framework", "api", "case", "round"])
    jtl = {f: load_jtl(run.cell_dir(f, "rest", 1, 1) / "results.jtl")["elapsed"] for f in ("aspnet", "express")}
    m = min(len(v) for v in jtl.values())
    for f, samples in jtl.items():
        assert math.isclose(values.loc[(f, "rest", 1, 1), MAX], extremes.expected_extreme(samples, m, True))
        assert math.isclose(values.loc[(f, "rest", 1, 1), MIN], extremes.expected_extreme(samples, m, False))
    cells = extremes.cells(run).set_index(["api", "case", "metric"])
    assert cells.loc[("rest", 1, MAX), "test"] == "paired t on log ratios"
    assert cells.loc[("rest", 1, MAX), "pairs"] == 3 and cells.loc[("graphql", 18, MIN), "pairs"] == 2


def test_a_minimum_under_the_clocks_millisecond_is_not_judged_and_says_so(results, tmp_path):
    """Whole-millisecond elapsed times: a side whose fastest responses read 0 ms has a minimum that
    compares the rounding, not the servers."""
    run_dir = tmp_path / "run"
    shutil.copytree(results / "20250601-120000-quick", run_dir)
    jtl = run_dir / "aspnet" / "rest" / "case-01" / "iter-01" / "results.jtl"
    header, *rows = jtl.read_text().splitlines()
    at = header.split(",").index("elapsed")
    jtl.write_text("\n".join([header, *(",".join("0" if i == at else v for i, v in enumerate(r.split(",")))
                                        for r in rows)]) + "\n")
    cells = extremes.cells(load_run(run_dir)).set_index(["api", "case", "metric"])
    found = cells.loc[("rest", 1, MIN)]
    assert not found["judged"] and pd.isna(found["ratio_low"]) and pd.isna(found["p"])
    assert found["ratio_note"].startswith("under the response times' 1 ms resolution: an expected minimum of 0.00 ms")
    assert cells.loc[("rest", 1, MAX), "judged"]
