"""The report of a run whose items carry validity checks, on the real schema-3 smoke fixture
(20261125-063724-smoke): "Can you trust this run?" near the top, bounds and unmeasurable cells in
the answer, CPU per request, wrk beside JMeter, memory from fresh processes, and the appendix of
every check; then the same run with its run-level files missing or broken, and an older run."""
import csv
import json
import math
import re
import shutil
import statistics

import pandas as pd
import pytest

from analysis import cell_outcomes, memory, verdicts
from analysis.claims import CLAIMS
from analysis.conftest import FIXTURE_RESULTS
from analysis.load import load_run
from analysis.report import write_report

CHECKED_RUN = "20261125-063724-smoke"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    results = tmp_path_factory.mktemp("r") / "results"
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, results / CHECKED_RUN)
    return write_report(results / CHECKED_RUN)


def rows(name) -> list[dict]:
    with open(FIXTURE_RESULTS / CHECKED_RUN / name, newline="") as f:
        return list(csv.DictReader(f))


def one(table, framework, api, case, iteration, column) -> float:
    return float(next(r[column] for r in table if (r["framework"], r["api"], r["case"], r["iteration"])
                      == (framework, api, str(case), str(iteration))))


def a_over_e(table, api, case, iteration, column) -> float:
    return one(table, "aspnet", api, case, iteration, column) / one(table, "express", api, case, iteration, column)


def answer_row(report, api, case, metric) -> pd.Series:
    answers = pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False, na_values=[""])
    return answers.set_index(["api", "case", "metric"]).loc[(api, case, metric)]


def test_trust_is_one_line_before_the_answer_its_section_after_and_every_check_last(report):
    text = (report / "report.md").read_text()
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings[:3] == ["The bottom line", "The answer: every framework, per case", "Can you trust this run?"]
    opening = text[:text.index("## The answer")]
    assert ("Can you trust this run? 2 of 24 items passed every check, 7 were bound by the load generator, 15 "
            "invalid, 0 failed and 0 excluded; 2 of 12 cells (arm x API x case) have a valid round. Which checks "
            "failed where: [Can you trust this run?](#can-you-trust-this-run).") in opening
    assert headings[-1] == "Appendix: every check of every item"
    appendix = text[text.index("## Appendix: every check of every item"):]
    assert len([line for line in appendix.splitlines() if line.startswith(("| aspnet", "| express"))]) == 24


def test_the_grid_counts_each_cells_rounds_by_validity(report):
    grid = pd.read_csv(report / "tables" / "validity_grid.csv").set_index(["framework", "api"])
    summary = rows("summary.csv")
    for (framework, api), row in grid.iterrows():
        for case in (1, 13, 18):
            states = [r["validity"] for r in summary
                      if (r["framework"], r["api"], r["case"]) == (framework, api, str(case))]
            counted = [f"{states.count(s)} {s}" for s in ("valid", "bound", "invalid") if s in states]
            assert [part.split(" (")[0] for part in row[f"case {case}"].split("; ")] == counted
    assert grid.loc[("aspnet", "rest"), "case 13"] == "2 invalid (steady_state 2, loadgen_bound 2)"
    text = (report / "report.md").read_text()
    assert ("Of 24 items (one arm, API, case and round), 2 valid, 7 bound by the load generator (used as bounds) "
            "and 15 invalid (never used); 0 failed and 0 excluded.") in text


def test_a_bound_arms_throughput_is_a_bound_not_an_estimate(report):
    summary = rows("summary.csv")
    row = answer_row(report, "graphql", 18, "throughput_rps")  # round 2: aspnet bound, express valid
    ratio = a_over_e(summary, "graphql", 18, 2, "throughput_rps")
    assert row["bound"] == ">=" and math.isclose(row["ratio"], ratio) and not row["judged"]
    assert answer_row(report, "rest", 1, "throughput_rps")["bound"] == "both"
    text = (report / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert f"≥ {ratio:.2f} (bound)" in answer
    assert "not measurable here: both arms load-generator bound" in answer


def test_cells_without_a_usable_pair_say_why_and_what_would_measure_them(report):
    text = (report / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    line = next(x for x in answer.splitlines() if x.startswith("- REST case 13"))
    assert line.startswith("- REST case 13: 500 users, 1 row, no join: not measurable here: "
                           "ASP.NET Core invalid in 2 of 2 rounds")
    assert "`./testbed run --profile study`" in line and "Running on several machines" in line
    assert len(re.findall(r"^- (REST|GraphQL) case \d+: .*not measurable here", answer, re.M)) == 4


def test_cpu_per_request_sits_beside_throughput_and_a_bound_items_is_left_out(report):
    for metric in ("app_cpu_ms_per_req", "db_cpu_ms_per_req"):
        row = answer_row(report, "rest", 1, metric)  # round 1 both bound, round 2 both invalid
        assert row["pairs"] == 0 and pd.isna(row["ratio"]) and not row["judged"]
        assert row["note"] == ("no pairs; ASP.NET Core left out in 1 round (bound); "
                               "Express.js left out in 1 round (bound)")
    header = next(x for x in (report / "report.md").read_text().splitlines() if x.startswith("| Case | Throughput"))
    assert header.startswith("| Case | Throughput | App CPU per request | DB CPU per request |")


def test_wrk_ratio_beside_jmeters(report):
    cross = rows("crosscheck.csv")
    per_round = [a_over_e(cross, "rest", 18, r, "throughput_rps") for r in (1, 2)]
    table = pd.read_csv(report / "tables" / "crosscheck.csv").set_index(["api", "case"])
    assert math.isclose(table.loc[("rest", 18), "ratio"], statistics.geometric_mean(per_round))
    assert len(table) == 6 and set(table["rounds"]) == {2}
    text = (report / "report.md").read_text()
    assert f"| REST | 18 | not measurable here (see the answer) | {table.loc[('rest', 18), 'ratio']:.2f} [" in text


def test_memory_comes_from_fresh_processes_and_is_explained(report):
    mem = rows("memory.csv")
    row = answer_row(report, "graphql", 18, memory.METRIC)
    assert math.isclose(row["ratio"], a_over_e(mem, "graphql", 18, 1, "hwm_mb"))
    assert pd.isna(row["ratio_low"]) and not row["judged"]
    text = (report / "report.md").read_text()
    assert ("Here ASP.NET Core's fresh processes used 0.88-1.11x Express.js's memory, where the study "
            "measured 2.8-3.6x") in text
    assert "DATAS, GarbageCollectionAdaptationMode=1" in text and "aspnet:no-datas" in text
    assert "| Memory (fresh process) |" in text and "| Memory (peak RSS) |" not in text
    cells = pd.read_csv(report / "tables" / "claim_cells.csv")
    rss = cells[cells["metric"] == "rss_peak_mb"]
    assert not rss.empty and (rss["ratio_note"] == f"{memory.NOTE}, n=1 pair").all()


def test_the_verdicts_say_which_mean_they_read_with_this_runs_figures(report):
    text = (report / "report.md").read_text()
    assert "- Mean response time: connections / throughput, the mean time a request takes in a closed loop" in text
    fair = [r for r in rows("summary.csv") if r["validity"] == "valid" and r["littles_ratio"]]
    ratios = sorted(float(r["littles_ratio"]) for r in fair)
    assert (f"(Little's ratio {ratios[0]:.2f}-{ratios[-1]:.2f}, median {statistics.median(ratios):.2f}, "
            f"over {len(ratios)} items)") in text


def test_a_fresh_processes_ratio_takes_no_standard_error_from_the_run_long_peak_it_replaces():
    # In a run whose rounds gave the run-long peak an interval, that cell's standard error once stayed
    # behind the fresh ratio of one process each, and tests that draw their interval from it (a band,
    # a peak, an interaction) judged the fresh ratio on an interval it does not have.
    run = load_run(FIXTURE_RESULTS / CHECKED_RUN)
    sig = verdicts.report_cells(run)
    peak = sig["metric"] == "rss_peak_mb"
    sig.loc[peak, ["log_se", "df", "spread"]] = [0.05, 2.0, 0.087]
    cells = memory.for_verdicts(run, sig)
    fresh = cells[peak & cells["ratio_note"].str.startswith(memory.NOTE)]
    assert not fresh.empty and fresh[["log_se", "df", "spread"]].isna().all().all()
    claim = next(c for c in CLAIMS if c.id == "graphql-memory-up-to-3.6x-high-load")
    assert set(cell_outcomes.claim_cells(claim, cells)["outcome"]) == {cell_outcomes.UNJUDGED}


def test_two_fresh_processes_per_arm_and_case_give_the_memory_ratio_an_interval_that_is_judged(tmp_path):
    """The quick profile's memory_rounds = 2: each cell's two ratios give it a spread, so its memory
    claims can be judged (one process each gave a ratio without interval)."""
    run_dir = tmp_path / CHECKED_RUN
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, run_dir)
    first = pd.read_csv(run_dir / "memory.csv")
    drift = first["framework"].map({"aspnet": 1.04, "express": 0.98})
    second = first.assign(iteration=2, hwm_mb=first["hwm_mb"] * drift)
    pd.concat([first, second]).to_csv(run_dir / "memory.csv", index=False)
    run = load_run(run_dir)
    found = memory.ratios(run, "aspnet", "express").set_index(["api", "case"])
    cell = found.loc[("graphql", 18)]
    assert cell["pairs"] == 2 and cell["df"] == 1 and cell["ratio_low"] < cell["ratio"] < cell["ratio_high"]
    cells = memory.for_verdicts(run, verdicts.report_cells(run))
    fresh = cells[(cells["metric"] == "rss_peak_mb") & cells["ratio_note"].str.startswith(memory.NOTE)]
    assert not fresh.empty and fresh["judged"].all() and fresh["log_se"].notna().all()


def test_missing_or_broken_run_level_files_leave_a_sentence_not_a_crash(tmp_path):
    run_dir = tmp_path / CHECKED_RUN
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, run_dir)
    (run_dir / "memory.csv").unlink()
    (run_dir / "crosscheck.csv").unlink()
    (run_dir / "ceiling.csv").write_text("threads,samples\n10,5\n")
    text = (write_report(run_dir) / "report.md").read_text()
    assert ("No figure of the load generator against its ceiling: "
            "ceiling.csv: lacks column(s) app_cpu_mean_pct, iteration") in text
    assert "No second load generator's ratio: this run has no crosscheck.csv." in text
    assert "No memory from fresh processes: this run has no memory.csv; memory is the run-long peak RSS." in text
    assert "| Memory (peak RSS) |" in text


def test_a_run_that_skipped_its_cross_check_says_why(tmp_path):
    run_dir = tmp_path / CHECKED_RUN
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, run_dir)
    (run_dir / "crosscheck.csv").unlink()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["crosscheck"] = {"skipped": "jmeter spent 1.28 ms of CPU per request in the reference work"}
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    text = (write_report(run_dir) / "report.md").read_text()
    assert "No second load generator's ratio: jmeter spent 1.28 ms of CPU per request in the reference work." in text


def test_a_run_before_the_checks_says_so_and_has_no_trust_section(fixture_report):
    text = (fixture_report("20250601-120000-quick") / "report.md").read_text()
    assert "This run predates the validity checks (results schema 2" in text
    assert "Can you trust this run?" not in text and "every check of every item" not in text
