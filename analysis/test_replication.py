"""The verdict logic on crafted per-iteration values, and the unit normalisation."""
import math

import pandas as pd

from analysis import replication, tables
from analysis.load import load_run
from analysis.replication import CLAIMS, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, judge
from analysis.stats import compare
from analysis.study import load_study

HIGH_LOAD = next(c for c in CLAIMS if c.id == "graphql-high-load-express-faster")  # express lower
SLOW = [100.0, 101.0, 102.0, 103.0, 104.0]
FAST = [50.0, 51.0, 52.0, 53.0, 54.0]
SAME = [60.0, 80.0, 70.0, 75.0, 65.0]
SAME_TOO = [62.0, 78.0, 71.0, 74.0, 66.0]


def sig_rows(cells):
    """cells: {case: (aspnet values, express values)} for the claim's api and metric."""
    records = []
    for case, (a, b) in cells.items():
        c = compare(a, b)
        records.append({"api": HIGH_LOAD.api, "case": case, "metric": "mean_ms", "judged": c.judged,
                        "significant": c.significant, "sign": c.sign})
    return pd.DataFrame.from_records(records)


def test_reproduced_when_every_cell_agrees():
    v = judge(HIGH_LOAD, sig_rows({case: (SLOW, FAST) for case in (14, 15, 17, 18)}))
    assert v.verdict == REPRODUCED and v.agree == 4 and not v.missing


def test_not_reproduced_when_most_cells_are_significantly_opposite():
    cells = {14: (FAST, SLOW), 15: (FAST, SLOW), 17: (FAST, SLOW), 18: (SLOW, FAST)}
    v = judge(HIGH_LOAD, sig_rows(cells))
    assert v.verdict == NOT_REPRODUCED and (v.agree, v.oppose) == (1, 3)


def test_inconclusive_when_some_cells_are_not_significant():
    cells = {14: (SLOW, FAST), 15: (SLOW, FAST), 17: (SAME, SAME_TOO), 18: (SAME, SAME_TOO)}
    v = judge(HIGH_LOAD, sig_rows(cells))
    assert v.verdict == INCONCLUSIVE and (v.agree, v.not_significant) == (2, 2)


def test_one_opposite_cell_makes_an_all_cases_claim_inconclusive():
    cells = {14: (SLOW, FAST), 15: (SLOW, FAST), 17: (SLOW, FAST), 18: (FAST, SLOW)}
    v = judge(HIGH_LOAD, sig_rows(cells))
    assert v.verdict == INCONCLUSIVE and (v.agree, v.oppose) == (3, 1)


def test_one_iteration_cannot_be_judged():
    v = judge(HIGH_LOAD, sig_rows({case: ([100.0], [50.0]) for case in (14, 15, 17, 18)}))
    assert v.verdict == INCONCLUSIVE and v.unjudged == 4
    assert "cannot be judged" in v.explanation


def test_missing_cases_are_listed():
    v = judge(HIGH_LOAD, sig_rows({14: (SLOW, FAST), 15: (SLOW, FAST)}))
    assert v.verdict == REPRODUCED
    assert v.missing == ((17, "mean_ms"), (18, "mean_ms"))
    assert "judged on 2 of 4 cells" in v.explanation and "case 17, 18" in v.explanation


def test_no_cells_is_inconclusive():
    v = judge(HIGH_LOAD, sig_rows({1: (SLOW, FAST)}))
    assert v.verdict == INCONCLUSIVE and "none of the claim's cases" in v.explanation


def test_other_api_does_not_count():
    rows = sig_rows({case: (SLOW, FAST) for case in (14, 15, 17, 18)}).assign(api="rest")
    assert judge(HIGH_LOAD, rows).verdict == INCONCLUSIVE


def test_side_by_side_normalises_cpu_and_memory(run_dir):
    run = load_run(run_dir)
    agg = tables.aggregate(run)
    side = replication.side_by_side(agg, run.cores, load_study())
    at = side.set_index(["api", "case", "framework", "study_metric"])
    cpu = at.loc[("rest", 14, "aspnet", "cpu_peak_pct")]
    assert math.isclose(cpu["study"], 333.90 / 4)
    assert math.isclose(cpu["mean"], (168.1 + 166.2 + 168.2 + 169.9) / 4 / 2)
    assert cpu["unit"] == "% of machine"
    mem = at.loc[("rest", 14, "aspnet", "mem_peak_pct")]
    assert math.isclose(mem["study"], 1.52 * 8192 / 100)
    assert math.isclose(mem["mean"], (102.34 + 102.934 + 102.516 + 102.69) / 4)
    assert at.loc[("rest", 2, "aspnet", "cpu_peak_pct")]["n"] == 0  # not in this run
    ratio = replication.ratios(side).set_index(["api", "case", "study_metric", "unit"])
    assert math.isclose(ratio.loc[("rest", 14, "cpu_peak_pct", "% of machine"), "study_ratio"], 333.90 / 147.48)
