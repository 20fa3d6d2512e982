"""The report's answer section, on the crafted 3-round paired fixture (20250601-120000-quick: both
APIs, cases 1, 7 and 18; REST case 7 underloaded in two rounds, GraphQL case 1 loadgen_saturated in
one, ASP.NET Core's GraphQL case 18 failed in round 2) and on the unpaired fixtures."""
import csv
import json
import math
import re
import shutil
import statistics

import pandas as pd
import pytest
from scipy import stats

from analysis import answer, verdicts
from analysis.conftest import FIXTURE_RESULTS, HAND_RUN
from analysis.load import load_run
from analysis.report import write_report

PAIRED_RUN = "20250601-120000-quick"
T2 = 4.302652729911275  # t(0.975, df=2)


@pytest.fixture(scope="module")
def report(fixture_report):
    return fixture_report(PAIRED_RUN)


def summary_values(api, case, metric) -> dict:
    """framework -> {round: value} of the ok rows, read straight from summary.csv."""
    with open(FIXTURE_RESULTS / PAIRED_RUN / "summary.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["api"] == api and r["case"] == str(case) and r["status"] == "ok"]
    return {fw: {int(r["iteration"]): float(r[metric]) for r in rows if r["framework"] == fw}
            for fw in ("aspnet", "express")}


def answer_row(report, api, case, metric) -> pd.Series:
    answers = pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False, na_values=[""])
    return answers.set_index(["api", "case", "metric"]).loc[(api, case, metric)]


def test_the_ratio_is_the_geometric_mean_of_the_rounds_with_a_t_interval(report):
    values = summary_values("rest", 1, "throughput_rps")
    logs = [math.log(values["aspnet"][r] / values["express"][r]) for r in (1, 2, 3)]
    mean, half = statistics.mean(logs), T2 * statistics.stdev(logs) / math.sqrt(3)
    row = answer_row(report, "rest", 1, "throughput_rps")
    assert math.isclose(row["ratio"], math.exp(mean))
    assert math.isclose(row["ratio_low"], math.exp(mean - half)) \
        and math.isclose(row["ratio_high"], math.exp(mean + half))
    assert row["pairs"] == 3 and row["comparison"] == "paired rounds" and row["significant"]


def test_a_failed_round_leaves_its_pair_out(report):
    values = summary_values("graphql", 18, "p95_ms")
    assert sorted(values["aspnet"]) == [1, 3] and sorted(values["express"]) == [1, 2, 3]
    logs = [math.log(values["aspnet"][r] / values["express"][r]) for r in (1, 3)]
    row = answer_row(report, "graphql", 18, "p95_ms")
    assert row["pairs"] == 2 and math.isclose(row["ratio"], math.exp(statistics.mean(logs)))


def test_answer_csv_carries_six_metrics_per_cell_with_the_load_flags(report):
    answers = pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False)
    assert list(answers.columns) == [
        "api", "case", "requests", "rows", "joins", "metric", "ratio", "ratio_low", "ratio_high", "p",
        "significant", "judged", "pairs", "load_flags", "comparison", "note",
        "numerator", "denominator", "numerator_n", "denominator_n", "bound", "q", "test", "stopping",
        "rounds_needed"]
    assert len(answers) == 2 * 3 * 6
    assert set(zip(answers["numerator"], answers["denominator"])) == {("aspnet", "express")}
    assert not any(c.startswith(("aspnet", "express")) for c in answers.columns)  # named by role
    assert list(answers["metric"][:6]) == ["throughput_rps", "mean_ms", "p95_ms", "p99_ms", "cpu_mean_pct",
                                           "rss_peak_mb"]
    flags = answers.groupby(["api", "case"])["load_flags"].first().to_dict()
    assert flags == {("graphql", 1): "loadgen_saturated", ("graphql", 7): "", ("graphql", 18): "",
                     ("rest", 1): "", ("rest", 7): "underloaded", ("rest", 18): ""}


def test_the_bottom_line_then_the_answer_open_the_report(report):
    text = (report / "report.md").read_text()
    headings = re.findall(r"^(##+ .*)$", text, re.M)
    assert headings[:8] == ["## The bottom line", "## The answer: every framework, per case",
                            "### Every framework, ranked",
                            "### ASP.NET Core / Express.js (A/E)", "#### REST", "#### GraphQL",
                            "### How to read the answer", "### How the ratios were computed, and why"]
    before = text[:text.index("## The answer")]
    assert "3 interleaved rounds" in before
    assert ("Of 36 items (one arm, API, case and round), 35 ok (this run predates the validity checks, so every ok "
            "item counts); 1 failed and 0 excluded; 3 carry a load flag.") in before
    # Its bottom line's REST range is the answer table's smallest and largest throughput ratio.
    answers = pd.read_csv(report / "tables" / "answer.csv")
    rest = answers[(answers["api"] == "rest") & (answers["metric"] == "throughput_rps")].sort_values("ratio")
    low, high = rest.iloc[0], rest.iloc[-1]
    assert (f"REST: ASP.NET Core served more requests per second than Express.js in {(rest['ratio'] > 1).sum()} of 3 "
            f"cases ({(rest['significant'] & (rest['ratio'] > 1)).sum()} significantly), fewer in "
            f"{(rest['ratio'] < 1).sum()} ({(rest['significant'] & (rest['ratio'] < 1)).sum()} significantly): "
            f"A/E {low['ratio']:.2f} [{low['ratio_low']:.2f}, {low['ratio_high']:.2f}] (case {low['case']}) to "
            f"{high['ratio']:.2f} [{high['ratio_low']:.2f}, {high['ratio_high']:.2f}] (case {high['case']}).") in before
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert "paired t-test on the log ratios" in answer and "smallest two-sided p with 3 pairs is 0.25" in answer
    assert "Throughput above 1: ASP.NET Core served more requests per second" in answer
    assert answer.index("#### REST") < answer.index("### How the ratios were computed")
    assert answer.index("**REST: A/E per case") < answer.index("(figures/answer_aspnet_vs_express_rest.png)") \
        < answer.index("**GraphQL: A/E per case") < answer.index("(figures/answer_aspnet_vs_express_graphql.png)")
    page = (report / "index.html").read_text()
    assert page.index('<h2 id="the-bottom-line">') < page.index("<table>") < page.index('<h2 id="the-run">')
    assert page.index("<caption>REST: A/E per case") < page.index('<h2 id="the-run">')


def markdown_row(text: str, start: str) -> list[str]:
    row = next(line for line in text.splitlines() if line.startswith(start))
    return [c.strip() for c in row.strip("|").split("|")]


def test_significant_and_load_flagged_cells_are_marked(report):
    text = (report / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    rest = answer[answer.index("### REST"):answer.index("### GraphQL")]
    graphql = answer[answer.index("### GraphQL"):]
    assert markdown_row(rest, "| case 1:")[1:] == ["1.28 [1.15, 1.43] *", "0.68 [0.65, 0.71] *",
                                                   "1.11 [0.86, 1.43]", "1.46 [1.31, 1.63] *", "3 pairs", "–"]
    assert markdown_row(rest, "| case 7:")[0] == "case 7: 250 users, 1 row, no join ‡"
    assert markdown_row(rest, "| case 7:")[-1] == "underloaded"
    assert markdown_row(graphql, "| case 1:")[-1] == "loadgen_saturated"
    assert markdown_row(graphql, "| case 18:")[-2] == "2 pairs"
    assert "Underloaded: fewer than half of JMeter's threads had a request in flight" in answer
    assert ("Loadgen_saturated: JMeter (with remote engines: the busiest engine) used 90 % or more of its cores"
            in answer)
    page = (report / "index.html").read_text()
    assert '<td class="significant">1.28 [1.15, 1.43] *</td>' in page
    assert '<td class="load-flagged">case 7: 250 users, 1 row, no join ‡</td>' in page
    assert '<td class="significant load-flagged">1.47 [1.12, 1.92] *</td>' in page


def test_the_appendix_is_last_and_sorted(report):
    text = (report / "report.md").read_text()
    headings = re.findall(r"^## (.*)$", text, re.M)
    assert headings[-1] == "Appendix: flagged, excluded and failed iterations"
    appendix = text[text.index("## Appendix"):]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in appendix.splitlines()
            if line.startswith("| aspnet") or line.startswith("| express")]
    assert [r[:5] for r in rows] == [["aspnet", "rest", "7", "3", "ok"], ["aspnet", "graphql", "1", "3", "ok"],
                                     ["aspnet", "graphql", "18", "2", "failed"], ["express", "rest", "7", "2", "ok"]]
    assert rows[2][-1] == "app did not answer /healthz within 60 s"
    assert "| aspnet | rest | 7 |" not in text[:text.index("## Appendix")]


def test_no_claim_is_inconclusive_for_lack_of_rounds(report):
    verdicts = pd.read_csv(report / "tables" / "verdicts.csv")
    # claims that need more than this testbed has (4 cores, another protocol) say so, whatever the rounds
    here = verdicts[verdicts["verdict"] != "cannot be judged here"]
    assert set(verdicts["verdict"]) - set(here["verdict"]) == {"cannot be judged here"}
    assert set(here["verdict"]) <= {"reproduced", "not reproduced", "inconclusive"}
    assert not here["explanation"].str.contains("cannot be judged|n=1|iteration").any()
    assert (verdicts["cannot_be_judged"] == 0).all() \
        and set(verdicts["rounds"].dropna().astype(str)) <= {"2", "3", "2-3"}
    row = verdicts.set_index("claim").loc["rest-cpu-aspnet-higher"]
    # "much higher": above 1.1 by TOST's 90 % interval; case 7's [0.98, 1.09] lies below it
    # The run has 3 of the 18 cases: inconclusive whatever they say, and it says what they say.
    assert row["verdict"] == "inconclusive" and row["explanation"] == (
        "judged on 3 of 18 cells; not judged: cases 2-6, 8-17 (not in this run); of the judged cells: "
        "1 oppose, 2 straddles a bound; opposite (at its own level, not the simultaneous one): case 7 "
        "(A/E 1.03 [0.98, 1.09]); across a bound: "
        "case 1 (A/E 1.11 [0.93, 1.32]), case 18 (A/E 1.09 [1.01, 1.17])")
    assert row["rounds_needed"] == "a run of its whole scope: 15 cells not in this run"
    cells = pd.read_csv(report / "tables" / "claim_cells.csv")
    assert set(cells[cells["claim"] == "rest-cpu-aspnet-higher"]["case"]) == {1, 7, 18}


def test_an_unpaired_run_says_its_answer_rests_on_independent_groups(fixture_report):
    report = fixture_report(HAND_RUN)
    text = (report / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert "not paired (it was made before the interleaved protocol" in answer
    assert "independent groups of iterations" in answer and "weaker than a paired comparison" in answer
    answers = pd.read_csv(report / "tables" / "answer.csv")
    assert set(answers["comparison"]) == {"independent groups"} and answers["pairs"].isna().all()


def test_a_run_of_one_iteration_has_an_answer_without_intervals(run_dir):
    summary = run_dir / "summary.csv"
    lines = summary.read_text().splitlines()
    summary.write_text("\n".join([lines[0]] + [line for line in lines[1:] if line.split(",")[6] == "1"]) + "\n")
    text = (write_report(run_dir) / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert "one iteration per case: each ratio is one measurement against one, with no interval" in answer
    ratios = answer[answer.index("### ASP.NET Core / Express.js"):]
    assert "(n=1 iteration)" in markdown_row(ratios, "| case 1:")[1]


def test_significance_reads_q_the_p_adjusted_over_the_report_and_answer_csv_names_the_test(report):
    answers = pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False, na_values=[""])
    framework = answers[(answers["numerator"] == "aspnet") & answers["q"].notna()]
    assert len(framework) > 10
    # Benjamini-Hochberg never lowers a p, and `significant` is q < 0.05, not p < 0.05.
    assert (framework["q"] >= framework["p"] - 1e-12).all()
    assert (framework["significant"].astype(bool) == (framework["q"] < 0.05)).all()
    assert set(framework["test"]) == {"paired t on log ratios"}
    # This fixture predates the extra rounds: no cell has a stopping state.
    assert answers["stopping"].isna().all()


def with_extra_round(results, api: str, case: int):
    """The paired fixture with a budget and a 4th round of one cell (as the stopping rule adds it):
    each arm's round 3 measured again."""
    shutil.copytree(FIXTURE_RESULTS / PAIRED_RUN, results / PAIRED_RUN)
    manifest_path = results / PAIRED_RUN / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["sequential"] = {"budget_s": 2280, "target": 0.1, "rounds": [{"round": 4, "cells": [[api, case]]}],
                              "states": []}
    manifest_path.write_text(json.dumps(manifest))
    summary = results / PAIRED_RUN / "summary.csv"
    lines = summary.read_text().splitlines()
    fields = [line.split(",") for line in lines[1:]]
    again = [",".join(f[:6] + ["4"] + f[7:]) for f in fields if f[1] == api and f[2] == str(case) and f[6] == "3"]
    summary.write_text("\n".join(lines + again) + "\n")
    return load_run(results / PAIRED_RUN)


def test_after_extra_rounds_only_the_extended_cells_throughput_is_drawn_wider(tmp_path, report):
    run = with_extra_round(tmp_path / "results", "graphql", 1)
    rows = answer.answer(run, verdicts.report_cells(run)).set_index(["api", "case", "metric"])
    # The rule chose GraphQL case 1's rounds by its throughput: the plain 98.5 % interval there.
    values = summary_values("graphql", 1, "throughput_rps")
    d = [math.log(values["aspnet"][r] / values["express"][r]) for r in (1, 2, 3, 3)]
    half = stats.t.ppf(0.9925, 3) * statistics.stdev(d) / math.sqrt(4)
    assert math.isclose(rows.loc[("graphql", 1, "throughput_rps"), "ratio_high"], math.exp(statistics.mean(d) + half))
    # Its p99 the rule never read, and GraphQL case 7 it never extended: both keep the plain 95 % one.
    p99 = summary_values("graphql", 1, "p99_ms")
    d = [math.log(p99["aspnet"][r] / p99["express"][r]) for r in (1, 2, 3, 3)]
    half = stats.t.ppf(0.975, 3) * statistics.stdev(d) / math.sqrt(4)
    assert math.isclose(rows.loc[("graphql", 1, "p99_ms"), "ratio_high"], math.exp(statistics.mean(d) + half))
    assert math.isclose(rows.loc[("graphql", 7, "throughput_rps"), "ratio_high"],
                        answer_row(report, "graphql", 7, "throughput_rps")["ratio_high"])


def test_each_cell_carries_its_state_when_the_extra_rounds_ended(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(FIXTURE_RESULTS / PAIRED_RUN, results / PAIRED_RUN)
    manifest_path = results / PAIRED_RUN / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["sequential"] = {"states": [{"api": "rest", "case": 1, "rounds": 3, "usable": 3,
                                          "half_width": 0.04, "state": "settled"}]}
    manifest_path.write_text(json.dumps(manifest))
    answers = pd.read_csv(write_report(results / PAIRED_RUN) / "tables" / "answer.csv",
                          keep_default_na=False, na_values=[""])
    states = answers.groupby(["api", "case"])["stopping"].first()
    assert states[("rest", 1)] == "settled" and pd.isna(states[("graphql", 1)])
