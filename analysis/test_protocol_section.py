"""The protocol's own checks: the arm order's effect, fitted within cells (analysis/order_effect.py),
the rounds' shared departure (analysis/round_effect.py) and the A/A calibration
(analysis/aa.py), alone and in the report of the crafted variants fixture
(3 paired rounds of aspnet:mvc, aspnet and express; analysis/test_variants.py describes it)."""
import csv
import json
import math

import pandas as pd
import pytest
from scipy import stats

from analysis import aa, order_effect, round_effect
from analysis.sections import protocol
from analysis.load import load_run
from analysis.report import write_report
from analysis.test_variants import VARIANTS_RUN


def test_the_order_effect_is_fitted_within_cells_and_a_cell_in_one_order_adds_nothing():
    delta = 0.05  # the numerator gains 5 % on the log scale when it goes first
    rows = []
    for case, mu in ((1, 0.3), (2, -0.2), (3, 0.0)):
        for s, noise in ((1, 0.01), (-1, -0.02), (1, -0.01), (-1, 0.02)):
            rows.append({"api": "rest", "case": case, "d": mu + delta * s + noise, "s": s})
    rows += [{"api": "rest", "case": 4, "d": 5.0 + 0.3 * r, "s": 1} for r in range(3)]  # one order only
    found = order_effect.fit(pd.DataFrame(rows))
    assert found["cells"] == 3 and found["pairs"] == 12 and found["df"] == 8
    assert found["first_over_second"] == pytest.approx(math.exp(2 * delta), rel=1e-9)
    assert found["low"] < math.exp(2 * delta) < found["high"] and found["p"] < 0.001


def test_without_any_cell_in_both_orders_nothing_is_estimated():
    one_order = pd.DataFrame([{"api": "rest", "case": c, "d": 0.1 * r, "s": 1} for c in (1, 2) for r in range(3)])
    found = order_effect.fit(one_order)
    assert found["cells"] == 0 and found["first_over_second"] is None
    assert order_effect.describe(pd.DataFrame([{**found, "api": "rest", "metric": "throughput_rps"}])) \
        .startswith("No cell was measured in both orders")


def test_a_round_that_moves_every_cell_is_found_with_its_share_of_the_variance():
    # Round 2's processes run 10 % slower in every cell; the cells differ and each measurement
    # carries its own noise of about 2 %.
    noise = [0.02, -0.01, -0.02, 0.01, 0.0, 0.015, -0.015, 0.02, -0.02, 0.01, -0.01, 0.005]
    rows = [{"case": case, "round": r,
             "d": 0.1 * case + (math.log(0.9) if r == 2 else 0.0) + noise[(case * 3 + r) % 12]}
            for case in range(1, 7) for r in (1, 2, 3)]
    found = round_effect.fit(pd.DataFrame(rows))
    assert (found["cells"], found["rounds"]) == (6, 3) and found["p"] < 0.001
    departures = found["departures"]
    assert departures[2] / departures[1] == pytest.approx(0.9, rel=0.03)
    assert departures[1] * departures[2] * departures[3] == pytest.approx(1.0)  # departures from the mean
    assert found["correlation"] > 0.8
    steady = round_effect.fit(pd.DataFrame([{**row, "d": row["d"] - (math.log(0.9) if row["round"] == 2 else 0)}
                                            for row in rows]))
    assert steady["p"] > 0.05 and steady["correlation"] < found["correlation"]


def test_the_rounds_are_fitted_on_the_cells_measured_in_all_of_them():
    rows = [{"case": case, "round": r, "d": 0.01 * case * r} for case in (1, 2, 3) for r in (1, 2, 3)]
    extra = [{"case": 3, "round": 4, "d": 5.0}, {"case": 4, "round": 1, "d": 5.0}]  # a budget's round; a cell once
    kept = round_effect.balanced(pd.DataFrame(rows + extra))
    assert sorted(kept["round"].unique()) == [1, 2, 3] and sorted(kept["case"].unique()) == [1, 2, 3]
    assert round_effect.fit(pd.DataFrame(rows[:3]))["p"] is None  # one cell: nothing to tell rounds from cells


def test_the_aa_calibration_counts_own_interval_and_bh_significance_against_chance():
    judged = [{"api": "rest", "metric": "throughput_rps", "judged": True, "significant": i == 0,
               "ratio_low": 1.01 if i < 2 else 0.9, "ratio_high": 1.2 if i < 2 else (0.99 if i == 2 else 1.1)}
              for i in range(20)]
    unjudged = [{"api": "rest", "metric": "throughput_rps", "judged": False, "significant": False,
                 "ratio_low": 1.5, "ratio_high": 1.9}]
    found = aa.calibration(pd.DataFrame(judged + unjudged)).iloc[0]
    assert (found["judged"], found["significant_own"], found["significant_bh"]) == (20, 3, 1)
    assert found["expected"] == 1.0 and found["share"] == pytest.approx(0.15)
    assert found["p_or_more"] == pytest.approx(stats.binom.sf(2, 20, 0.05))
    assert list(aa.own_over_the_bar(aa.calibration(pd.DataFrame(judged)))["metric"]) == ["throughput_rps"]
    assert aa.over_the_bar(aa.calibration(pd.DataFrame(judged))).empty  # 1 of 20 after BH is within 10 %


def family(metric: str, own: int, bh: int = 0, judged: int = 18) -> list[dict]:
    """Answer rows of one family: `own` cells significant by their own interval, the first `bh` of them
    after BH as well."""
    return [{"api": "rest", "metric": metric, "judged": True, "significant": i < bh,
             "ratio_low": 1.01 if i < own else 0.9, "ratio_high": 1.1} for i in range(judged)]


def test_the_bar_reads_the_reports_significance_and_the_own_intervals_are_tested_against_chance():
    # 2 of 18 by their own interval is over 10 %, as a calibrated family of 18 is in about a quarter
    # of runs; 5 of 18 is what chance gives with probability 0.01.
    found = aa.calibration(pd.DataFrame(family("throughput_rps", 2) + family("p95_ms", 5, bh=1)
                                        + family("rss_peak_mb", 0)))
    assert aa.chance_over_the_bar(18) == pytest.approx(0.2265, abs=1e-4)
    assert aa.chance_over_the_bar(6) == pytest.approx(1 - 0.95 ** 6)
    assert aa.expected_own_over_the_bar(found) == pytest.approx(3 * 0.2265, abs=1e-3)
    assert aa.over_the_bar(found).empty
    assert list(aa.own_over_the_bar(found)["metric"]) == ["throughput_rps", "p95_ms"]
    assert list(aa.beyond_chance(found)["metric"]) == ["p95_ms"]
    assert aa.all_families(found) == (7, 54, pytest.approx(stats.binom.sf(6, 54, 0.05)))
    text = protocol.bar_text(found)
    assert text.startswith("The bar, at most 10% of a family's judged cells significant as this report marks "
                           "them (after BH): met in every family (the most: 1 of 18).")
    assert "families over 10%: 2 of 3, where a calibrated pipeline puts 0.7 on average" in text
    assert text.endswith("below 5 % in rest p95_ms, so there the intervals are too narrow for what varies "
                         "between processes.")
    calibrated = protocol.bar_text(aa.calibration(pd.DataFrame(family("throughput_rps", 2))))
    assert "met: none is significant" in calibrated and calibrated.endswith("none is below 5 %.")


def test_a_family_with_more_than_a_tenth_significant_after_bh_fails_the_bar():
    found = aa.calibration(pd.DataFrame(family("throughput_rps", 3, bh=2) + family("p95_ms", 1, bh=1)))
    assert list(aa.over_the_bar(found)["metric"]) == ["throughput_rps"]
    assert "(after BH): not met in rest throughput_rps (2 of 18)." in protocol.bar_text(found)


def rewrite_order(run_dir, first_in_odd_rounds: str, other: str) -> None:
    """The manifest's order with `first_in_odd_rounds` first in rounds 1 and 3 of every slot and
    second in round 2."""
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    keys = manifest["order"]
    for i, key in enumerate(keys):
        arm, api, case, iteration = key.split("/")
        keys[i] = (int(iteration[-2:]), api, case, 0 if (arm == first_in_odd_rounds) == (iteration[-2:] != "02")
                   else 1 if arm == other else 2, key)
    manifest["order"] = [k[-1] for k in sorted(keys)]
    path.write_text(json.dumps(manifest))


def scale_throughput(run_dir, arm: str, iterations: tuple[str, ...], factor: float) -> None:
    """`arm`'s throughput times `factor` in every cell of the rounds `iterations`."""
    path = run_dir / "summary.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        if row["framework"] == arm and row["iteration"] in iterations:
            row["throughput_rps"] = f"{float(row['throughput_rps']) * factor:.6f}"
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)


def order_table(run_dir) -> pd.DataFrame:
    found = order_effect.table(order_effect.observed(load_run(run_dir), "aspnet", "express"))
    return found.set_index(["api", "metric"])


def test_the_order_effect_put_into_the_data_is_recovered(results):
    run_dir = results / VARIANTS_RUN
    rewrite_order(run_dir, "aspnet", "express")
    before = order_table(run_dir).loc[("rest", "throughput_rps"), "first_over_second"]
    scale_throughput(run_dir, "aspnet", ("1", "3"), 1.1)  # the rounds it went first
    after = order_table(run_dir).loc[("rest", "throughput_rps"), "first_over_second"]
    assert after / before == pytest.approx(1.1, rel=1e-3)
    assert order_effect.balance(order_effect.observed(load_run(run_dir), "aspnet", "express")) == (4, 4)


def test_an_aa_run_s_report_counts_its_false_positives_per_family_and_gives_the_order_s_effect(results):
    run_dir = results / VARIANTS_RUN
    path = run_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["settings"]["aa"] = "aspnet"
    path.write_text(json.dumps(manifest))
    report = write_report(run_dir)
    found = pd.read_csv(report / "tables" / "aa_calibration.csv")
    answers = pd.read_csv(report / "tables" / "answer.csv")
    mine = answers[(answers["numerator"] == "aspnet") & (answers["denominator"] == "aspnet:mvc") & answers["judged"]]
    assert found["judged"].sum() == len(mine)
    assert found["significant_own"].sum() == ((mine["ratio_low"] > 1) | (mine["ratio_high"] < 1)).sum()
    text = (report / "report.md").read_text()
    assert "### A/A calibration" in text and "This is an A/A run" in text
    assert "### The arm order" in text and "cells with two or more rounds ran in both orders" in text
    assert len(pd.read_csv(report / "tables" / "order_effect.csv")) > 0
    assert "### The rounds" in text and len(pd.read_csv(report / "tables" / "round_effect.csv")) > 0


def test_a_run_that_is_not_aa_has_no_calibration(fixture_report):
    report = fixture_report(VARIANTS_RUN)
    assert not (report / "tables" / "aa_calibration.csv").exists()
    assert "A/A calibration" not in (report / "report.md").read_text()


def test_a_round_effect_put_into_the_data_is_recovered(results):
    run_dir = results / VARIANTS_RUN

    def departures():
        found = round_effect.table(order_effect.observed(load_run(run_dir), "aspnet", "express"))\
            .set_index(["api", "metric"])
        return found.loc[("rest", "throughput_rps"), "departures"]
    before = departures()
    scale_throughput(run_dir, "aspnet", ("2",), 0.8)
    after = departures()
    assert (after[2] / after[1]) / (before[2] / before[1]) == pytest.approx(0.8, rel=1e-6)
