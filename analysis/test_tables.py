"""Exact values from the fixture run's summary.csv, recomputed here by hand."""
import math
import statistics

import numpy as np
import pandas as pd
import pytest

from analysis import tables
from analysis.load import load_run
from analysis.paired import MODERATED_TEST, TEST

T3 = 3.182446305284263  # t(0.975, df=3)
T2 = 4.302652729911275  # t(0.975, df=2)


@pytest.fixture
def run(run_dir):
    return load_run(run_dir)


@pytest.fixture
def agg(run):
    return tables.aggregate(run)


def value(agg, api, case, framework, metric):
    row = agg[(agg["api"] == api) & (agg["case"] == case) & (agg["framework"] == framework)
              & (agg["metric"] == metric)]
    assert len(row) == 1
    return row.iloc[0]


def check(row, values, t):
    mean = sum(values) / len(values)
    half = t * statistics.stdev(values) / math.sqrt(len(values))
    assert row["n"] == len(values)
    assert math.isclose(row["mean"], mean)
    assert math.isclose(row["ci_low"], mean - half) and math.isclose(row["ci_high"], mean + half)


def test_table3_rest_mean_response_time_case_14(agg):
    check(value(agg, "rest", 14, "aspnet", "mean_ms"), [44.438, 72.438, 52.688, 68.688], T3)
    check(value(agg, "rest", 14, "express", "mean_ms"), [28.688, 32.562, 33.625, 33.625], T3)


def test_table1_rest_peak_cpu_leaves_out_the_excluded_iteration(agg):
    check(value(agg, "rest", 1, "aspnet", "cpu_peak_pct"), [102.5, 102.9, 103.3], T2)
    check(value(agg, "rest", 1, "express", "cpu_peak_pct"), [60.5, 60.7, 60.5, 60.0], T3)


def test_extra_rss_mb_and_single_iteration(agg):
    row = value(agg, "graphql", 18, "aspnet", "rss_peak_mb")
    assert row["n"] == 1 and row["mean"] == 112.411
    assert row["ci_low"] is None or math.isnan(row["ci_low"])
    check(value(agg, "graphql", 18, "express", "mem_peak_pct"), [0.3453, 0.3458, 0.3454], T2)


def test_flagged_iterations_are_counted(agg):
    assert value(agg, "rest", 18, "express", "mean_ms")["flagged"] == 1
    assert value(agg, "rest", 18, "aspnet", "mean_ms")["flagged"] == 0


def test_significance_per_case(run):
    sig = tables.significance(run).set_index(["api", "case", "metric"])
    cpu = sig.loc[("rest", 14, "cpu_peak_pct")]  # 4 vs 4, no overlap, no ties
    assert cpu["test"] == "Mann-Whitney U" and math.isclose(cpu["p"], 2 / 70)
    assert cpu["result"] == "Express.js lower (p=0.0286)"
    assert sig.loc[("rest", 1, "cpu_peak_pct")]["test"] == "Welch t"  # 3 vs 4
    assert sig.loc[("graphql", 18, "mean_ms")]["result"] == "cannot be judged (n=1 iteration)"


def test_study_table_wide_form(run, agg):
    wide = tables.wide(agg, tables.significance(run), "rest", "max_ms")
    assert list(wide["case"]) == [1, 14, 18]
    assert list(wide.columns[:9]) == ["case", "requests", "rows", "joins", "aspnet_mean",
                                      "aspnet_ci_low", "aspnet_ci_high", "aspnet_n", "aspnet_flagged"]
    assert list(wide["express_flagged"]) == [0, 0, 1]


def test_iterations_counted_by_status(run):
    status = tables.run_status(run).set_index(["framework", "api"])
    assert status.loc[("aspnet", "rest")].to_dict() == {"ok": 11, "flagged": 0, "failed": 0, "excluded": 1}
    assert status.loc[("express", "rest")].to_dict() == {"ok": 12, "flagged": 1, "failed": 0, "excluded": 0}
    assert status.loc[("express", "graphql")]["failed"] == 1
    assert status.loc[("aspnet", "graphql")]["excluded"] == 2


def test_problem_iterations_carry_their_reason(run):
    problems = tables.problems(run)
    failed = problems[problems["status"] == "failed"].iloc[0]
    assert (failed["framework"], failed["api"], failed["case"], failed["iteration"]) == ("express", "graphql", 14, 3)
    assert failed["reason"] == "app exited with status 134 during the measured window"
    assert len(problems) == 5


def test_a_paired_runs_cells_of_one_api_and_metric_moderate_each_others_spread(results):
    """The quick fixture's three cases per API are too few to fit a prior: each keeps its own spread.
    Copied to six more (each copy's Express.js a little faster in one round, so no two cells share a
    spread), nine cells per API fit one, and each cell's interval rests on more degrees of freedom
    than its own pairs give."""
    run_dir = results / "20250601-120000-quick"
    three = tables.significance(load_run(run_dir))
    assert (three.loc[three["metric"] == "throughput_rps", "test"] == TEST).all()
    summary = pd.read_csv(run_dir / "summary.csv")
    copies = [summary.assign(case=summary["case"] + 18 * k,
                             throughput_rps=summary["throughput_rps"] * np.where(
                                 (summary["framework"] == "express") & (summary["iteration"] == 1), 1 + k / 20, 1))
              for k in (1, 2)]
    pd.concat([summary, *copies]).to_csv(run_dir / "summary.csv", index=False)
    cells = tables.significance(load_run(run_dir)).set_index(["api", "case", "metric"])
    moderated = cells.xs("throughput_rps", level="metric")
    assert len(moderated) == 18 and (moderated["test"] == MODERATED_TEST).all()
    assert (moderated["df"] > moderated["pairs"] - 1).all()
