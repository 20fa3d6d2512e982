"""Which items the analysis uses (analysis.validity): the real schema-3 smoke fixture
(20261125-063724-smoke: cases 1, 13 and 18, two rounds, each item valid, bound or invalid as the run
judged it) and copies of it with summary.csv changed by hand."""
import csv
import json
import math

import pandas as pd

from analysis import answer, scope, tables, validity, verdicts
from analysis.claims import CLAIMS, TIME
from analysis.load import load_run
from analysis.report import write_report
from benchlib import stopping
from benchlib.results import METRIC_FIELDS, V4_COLUMNS, summary_rows

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


def as_schema_4(results, change) -> None:
    """The checked run as a schema-4 run (validity per metric), each item's response times judged as
    its throughput was, then `change(row)`."""
    path = results / CHECKED_RUN / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "schema_version": 4}))
    rows = summary(results)
    for row in rows:
        row.update({f: "" for f in METRIC_FIELDS}, loadgen="jmeter", unserved="0",
                   latency_validity=row["validity"], latency_reasons=row["validity_reasons"])
        change(row)
    with open(results / CHECKED_RUN / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, V4_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def key(row) -> tuple:
    return row["framework"], row["api"], row["case"], row["iteration"]


def all_valid(row) -> None:
    row.update(validity="valid", validity_reasons="")


def value(rows, framework, api, case, iteration, column) -> float:
    return float(next(r[column] for r in rows if (r["framework"], r["api"], r["case"], r["iteration"])
                      == (framework, api, str(case), str(iteration))))


def test_a_reason_may_hold_a_semicolon_of_its_own():
    reasons = ("loadgen_bound: 2.51 of the load generator's ceiling (321 req/s at 10 threads; bound from 0.80);"
               "littles_law: 0.889 (the threads spent 11% of the window in the load generator)")
    assert validity.check_names(reasons) == ["loadgen_bound", "littles_law"]


def test_every_check_that_blames_the_load_generator_asks_for_more_of_it():
    for name in ("loadgen_bound", "loadgen_saturated", "loadgen_share", "loadgen_cost", "underloaded"):
        assert validity.fixes([f"{name}: …"]) == validity.MORE_LOAD
    # An item that failed a window check as well needs both.
    both = validity.fixes(["steady_state: throughput changed +47 % over the window;loadgen_cost: 0.70 of the "
                           "server's 1.42 (app and database; bound above 0.45)"])
    assert both == f"{validity.LONGER}; {validity.MORE_LOAD}"


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
    cells = tables.compare_arms(load_run(results / CHECKED_RUN), "aspnet", "express") \
        .set_index(["api", "case", "metric"])
    assert cells.loc[("graphql", 18, "throughput_rps"), "bound"] == ">="   # round 2: aspnet bound, express valid
    assert cells.loc[("rest", 1, "throughput_rps"), "bound"] == "both"     # round 1: both bound


def test_a_bound_is_a_bound_in_every_metric(results):
    # REST case 1: both arms bound in round 1 (2,965 and 872 req/s), both invalid in round 2. The
    # mean response time A/E of round 1, 0.278, is no estimate: with 10 threads the bound items had
    # 7.5-8.9 requests in flight, so their response times are lower bounds too.
    rows = summary(results)
    run = load_run(results / CHECKED_RUN)
    cells = verdicts.report_cells(run).set_index(["api", "case", "metric"])
    for metric in ("throughput_rps", "mean_ms", "p95_ms", "p99_ms"):
        cell = cells.loc[("rest", 1, metric)]
        assert cell["bound"] == "both" and not cell["judged"] and pd.isna(cell["p"]) and pd.isna(cell["q"]), metric
    # The extremes on equal sample counts are response times too (JTLs of case 18 only).
    assert cells.loc[("graphql", 18, "min_ms_equal_n"), "bound"] == ">="
    assert math.isclose(cells.loc[("rest", 1, "mean_ms"), "ratio"], value(rows, "aspnet", "rest", 1, 1, "mean_ms")
                        / value(rows, "express", "rest", 1, 1, "mean_ms"))
    # Which way the load generator moved CPU and memory is not known: left out.
    for metric in ("app_cpu_ms_per_req", "cpu_mean_pct", "rss_peak_mb"):
        assert cells.loc[("rest", 1, metric), "pairs"] == 0 and pd.isna(cells.loc[("rest", 1, metric), "ratio"])
    # ... so the claim it fed no longer reads it: that cell is not judged, and says why.
    claim = next(c for c in CLAIMS if c.id == "rest-one-row-aspnet-faster")
    verdict = verdicts.judge(claim, verdicts.report_cells(run), scope.absent(run), run.cores)
    assert verdict.verdict == verdicts.INCONCLUSIVE
    # Its mean response time is connections / throughput (claims.TIME), which a bound throughput
    # bounds the other way: a bound too, not judged.
    assert dict(verdict.not_judged)[("rest", 1, TIME)] == "bound: both arms load-generator bound"
    # The study's tables show the bound arm's mean as a bound, without interval, and leave its CPU out.
    agg = tables.aggregate(run).set_index(["api", "case", "framework", "metric"])
    mean = agg.loc[("rest", 1, "aspnet", "mean_ms")]
    assert mean["bound"] and pd.isna(mean["ci_low"]) and mean["mean"] == value(rows, "aspnet", "rest", 1, 1, "mean_ms")
    assert agg.loc[("rest", 1, "aspnet", "cpu_mean_pct"), "n"] == 0


def test_a_bound_cell_moves_no_other_cells_q(results):
    # Every item valid but ASP.NET Core's GraphQL case 1, bound in both rounds: its cells have two
    # pairs, and a p they must not bring into the family.
    rewrite(results, lambda row: row.update(validity="bound" if key(row) in (
        ("aspnet", "graphql", "1", "1"), ("aspnet", "graphql", "1", "2")) else "valid", validity_reasons=""))
    with_bound = verdicts.report_cells(load_run(results / CHECKED_RUN))
    assert with_bound[(with_bound["api"] == "graphql") & (with_bound["case"] == 1)]["q"].isna().all()
    rewrite(results, lambda row: row.update(status="excluded") if row["validity"] == "bound" else None)
    without = verdicts.report_cells(load_run(results / CHECKED_RUN))
    judged = with_bound[with_bound["q"].notna()].set_index(["api", "case", "metric"])["q"]
    assert len(judged) > 20
    assert judged.sort_index().tolist() == \
        without[without["q"].notna()].set_index(["api", "case", "metric"])["q"].sort_index().tolist()


def express_unfair_in_rest_18(results):
    """The checked run as schema 4 would record it: every item valid, but Express.js left 3 of its
    10 connections unserved in REST case 18 in both rounds."""
    unfair = {("express", "rest", "18", "1"), ("express", "rest", "18", "2")}
    as_schema_4(results, lambda row: row.update(
        validity="valid", validity_reasons="", latency_validity="unfair" if key(row) in unfair else "valid",
        latency_reasons="unserved: 3 of 10 connections" if key(row) in unfair else "",
        unserved="3" if key(row) in unfair else "0"))
    return load_run(results / CHECKED_RUN)


def test_each_metric_is_judged_by_its_own_verdict(results):
    run = express_unfair_in_rest_18(results)
    cells = tables.compare_arms(run, "aspnet", "express").set_index(["api", "case", "metric"])
    # The throughput stands, and so does the CPU per request, from both rounds...
    rows = summary(results)
    for metric in ("throughput_rps", "app_cpu_ms_per_req"):
        assert cells.loc[("rest", 18, metric), "pairs"] == 2 and cells.loc[("rest", 18, metric), "judged"]
        by_hand = math.sqrt(math.prod(value(rows, "aspnet", "rest", 18, i, metric)
                                      / value(rows, "express", "rest", 18, i, metric) for i in (1, 2)))
        assert math.isclose(cells.loc[("rest", 18, metric), "ratio"], by_hand)
    # ... its response times describe only the connections it served: a finding, not an estimate.
    mean = cells.loc[("rest", 18, "mean_ms")]
    assert mean["pairs"] == 0 and pd.isna(mean["ratio"])
    assert mean["ratio_note"] == ("no pairs; Express.js left out in 2 rounds "
                                  "(unfair: 3 of 10, 3 of 10 connections unserved)")
    flags = answer.load_flags(run).set_index(["api", "case"])["load_flags"]
    assert flags[("rest", 18)] == "unfair" and flags[("rest", 1)] == ""


def test_a_claims_mean_counts_the_connections_an_unfair_server_left_waiting(results):
    # Express.js's sample mean is left out, but the mean the claims read, connections / throughput
    # (Little's law), stands wherever the throughput does.
    run = express_unfair_in_rest_18(results)
    rows = summary(results)
    item = run.summary.set_index(["framework", "api", "case", "round"]).loc[("express", "rest", 18, 1)]
    assert math.isclose(item[TIME], value(rows, "express", "rest", 18, 1, "threads") * 1000
                        / value(rows, "express", "rest", 18, 1, "throughput_rps"))
    cells = verdicts.report_cells(run).set_index(["api", "case", "metric"])
    little, throughput = cells.loc[("rest", 18, TIME)], cells.loc[("rest", 18, "throughput_rps")]
    assert pd.isna(cells.loc[("rest", 18, "mean_ms"), "ratio"])
    assert little["pairs"] == 2 and math.isclose(little["ratio"], 1 / throughput["ratio"])
    # one hypothesis, one test: the throughput's p, and its q, which the family counted once
    assert math.isclose(little["p"], throughput["p"]) and little["q"] == throughput["q"]
    assert little["significant"] == throughput["significant"]


def test_the_extra_rounds_rule_counts_the_rounds_the_throughput_ratio_uses(results):
    # REST's invalid first rounds made valid, so the fixture has cells of every kind: valid pairs,
    # bound ones, and cells without a usable round.
    rewrite(results, lambda row: row.update(validity="valid", validity_reasons="")
            if row["validity"] == "invalid" and row["iteration"] == "1" and row["api"] == "rest" else None)
    rows = summary_rows(results / CHECKED_RUN / "summary.csv")
    states = {(s.api, s.case): s for s in stopping.cell_states(rows, ["aspnet", "express"])}
    cells = tables.compare_arms(load_run(results / CHECKED_RUN), "aspnet", "express")
    throughput = cells[cells["metric"] == "throughput_rps"].set_index(["api", "case"])
    kinds = set()
    for key, state in states.items():
        if key not in throughput.index:
            assert state.state == stopping.UNMEASURABLE and state.usable == 0
            kinds.add("none")
        elif throughput.loc[key, "bound"]:
            assert state.bound == ("express",) and state.state == stopping.UNMEASURABLE
            kinds.add("bound")
        else:
            assert state.usable == throughput.loc[key, "pairs"] and not state.bound
            kinds.add("valid")
    assert kinds == {"none", "bound", "valid"}


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
    judged = validity.judged(load_run(results / CHECKED_RUN)).set_index(["framework", "api", "case", "round"])
    assert judged.loc[("aspnet", "graphql", 18, 1), ["validity", "reasons"]].tolist() == \
        ["invalid", validity.NOT_RECORDED]
    assert judged.loc[("express", "graphql", 18, 2), ["validity", "reasons"]].tolist() == \
        ["invalid", "validity: completed_threads, littles_ratio not recorded, so the checks cannot be computed"]
    text = (write_report(results / CHECKED_RUN) / "report.md").read_text()
    assert "GraphQL case 18: 500 users, 100 rows, join: not measurable here: " in text
    assert "a run by the current collect/, which records every check" in text


def test_a_run_with_no_usable_item_still_reports_what_would_measure_it(results):
    rewrite(results, lambda row: row.update(validity="invalid",
                                            validity_reasons="threads: 3 of 10 completed a request"))
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
