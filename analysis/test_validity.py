"""Which items the analysis uses (analysis.validity): the real schema-3 smoke fixture
(20261125-063724-smoke: cases 1, 13 and 18, two rounds, each item valid, bound or invalid as the run
judged it) and copies of it with summary.csv changed by hand."""
import csv
import math

import pandas as pd
import pytest

from analysis import tables, validity
from analysis.load import load_run
from analysis.report import write_report

CHECKED_RUN = "20261125-063724-smoke"
PAIRED_V2 = "20250601-120000-quick"


def summary(results) -> list[dict]:
    with open(results / CHECKED_RUN / "summary.csv", newline="") as f:
        return list(csv.DictReader(f))


def rewrite(results, change) -> None:
    """summary.csv with `change(row)` applied to every row."""
    rows = summary(results)
    for row in rows:
        change(row)
    with open(results / CHECKED_RUN / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def value(rows, framework, api, case, iteration, column) -> float:
    return float(next(r[column] for r in rows if (r["framework"], r["api"], r["case"], r["iteration"])
                      == (framework, api, str(case), str(iteration))))


def test_a_reason_may_hold_a_semicolon_of_its_own():
    reasons = ("loadgen_bound: 2.51 of the load generator's ceiling (321 req/s at 10 threads; bound from 0.80);"
               "littles_law: 0.889 (the threads spent 11% of the window in the load generator)")
    assert validity.check_names(reasons) == ["loadgen_bound", "littles_law"]


def test_a_bound_arm_can_only_have_been_faster():
    assert validity.bound_direction(True, False) == ">="   # numerator bound: the ratio can only be larger
    assert validity.bound_direction(False, True) == "<="
    assert validity.bound_direction(True, True) == "both"  # not measurable
    assert validity.bound_direction(False, False) == ""


def test_only_valid_and_bound_items_are_used(results):
    run = load_run(results / CHECKED_RUN)
    used = tables.ok_rows(run)
    expected = sum(r["validity"] in ("valid", "bound") for r in summary(results))
    assert len(used) == expected == 9 and set(used["validity"]) == {"valid", "bound"}


def test_a_pair_uses_only_the_rounds_where_both_arms_are_usable(results):
    # GraphQL case 18: aspnet valid then bound, express invalid then valid: round 2 is the one pair.
    rows = summary(results)
    sig = tables.significance(load_run(results / CHECKED_RUN)).set_index(["api", "case", "metric"])
    cell = sig.loc[("graphql", 18, "p95_ms")]
    assert cell["pairs"] == 1
    assert math.isclose(cell["ratio"], value(rows, "aspnet", "graphql", 18, 2, "p95_ms")
                        / value(rows, "express", "graphql", 18, 2, "p95_ms"))


def test_the_bound_of_a_cell_counts_the_rounds_it_uses(results):
    bounds = validity.bounds(load_run(results / CHECKED_RUN), ("aspnet", "express")).set_index(["api", "case"])
    assert bounds.loc[("graphql", 18), "bound"] == ">="   # round 2: aspnet bound, express valid
    assert bounds.loc[("rest", 1), "bound"] == "both"     # round 1: both bound


def test_a_cell_without_a_usable_pair_says_why_and_what_would_measure_it(results):
    found = validity.unmeasurable(load_run(results / CHECKED_RUN), ("aspnet", "express")).set_index(["api", "case"])
    assert sorted(found.index) == [("graphql", 1), ("graphql", 13), ("rest", 13), ("rest", 18)]
    rest13 = found.loc[("rest", 13)]
    assert rest13["reason"] == ("ASP.NET Core invalid in 2 of 2 rounds (steady_state 2x, loadgen_bound 2x); "
                                "Express.js invalid in 2 of 2 rounds (steady_state 2x, loadgen_bound 2x)")
    assert "--profile study" in rest13["fix"] and "Running on several machines" in rest13["fix"]


def test_an_item_without_its_verdict_or_figures_is_invalid_with_that_reason(results):
    def change(row):
        if (row["framework"], row["api"], row["case"], row["iteration"]) == ("aspnet", "graphql", "18", "1"):
            row["validity"] = ""
        if (row["framework"], row["api"], row["case"], row["iteration"]) == ("express", "graphql", "18", "2"):
            row["littles_ratio"] = row["completed_threads"] = ""
    rewrite(results, change)
    judged = validity.judged(load_run(results / CHECKED_RUN)).set_index(["framework", "api", "case", "iteration"])
    assert judged.loc[("aspnet", "graphql", 18, 1), ["validity", "reasons"]].tolist() == \
        ["invalid", validity.NOT_RECORDED]
    assert judged.loc[("express", "graphql", 18, 2), ["validity", "reasons"]].tolist() == \
        ["invalid", "validity: completed_threads, littles_ratio not recorded, so the checks cannot be computed"]
    text = (write_report(results / CHECKED_RUN) / "report.md").read_text()
    assert "GraphQL case 18: 500 users, 100 rows, join: not measurable here: " in text
    assert "a run by the current collect/, which records every check" in text


def test_a_run_with_no_usable_item_still_reports_what_would_measure_it(results):
    rewrite(results, lambda row: row.update(validity="invalid", validity_reasons="threads: 3 of 10 completed a request"))
    report = write_report(results / CHECKED_RUN)
    text = (report / "report.md").read_text()
    assert "No item of this run passed its validity checks" in text
    assert "## Can you trust this run?" in text and "## Appendix: every check of every item" in text
    assert text.count(": not measurable here: ") == 6 and "Does it reproduce the study?" not in text


def test_runs_before_the_checks_use_every_ok_item(results):
    run = load_run(results / PAIRED_V2)
    assert not run.checked
    assert len(tables.ok_rows(run)) == int((run.summary["status"] == "ok").sum())
    assert validity.unmeasurable(run, ("aspnet", "express")).empty
    assert pd.isna(run.summary["app_cpu_ms_per_req"]).all()
