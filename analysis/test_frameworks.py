"""The answer for N frameworks, on two real smoke runs (analysis/README.md, "Fixtures"):
20261125-082957-smoke measured ASP.NET Core, Express.js and Fastify (cases 1, 13 and 18, two
rounds), 20261125-083652-smoke Fastify alone (cases 1 and 18). Every framework is ranked per case,
and the reference is compared with each other one; the study's claims stay ASP.NET Core against
Express.js whatever the reference."""
import csv
import math
import subprocess
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from analysis import figures
from analysis.answer import UnknownReference, framework_comparisons
from analysis.conftest import FIXTURE_RESULTS, HAND_RUN
from analysis.load import load_run
from analysis.report import write_report

ROOT = Path(__file__).resolve().parent.parent
THREE = "20261125-082957-smoke"
ONE = "20261125-083652-smoke"


@pytest.fixture(scope="module")
def three(fixture_report):
    return fixture_report(THREE)


def usable(run: str) -> list[dict]:
    with open(FIXTURE_RESULTS / run / "summary.csv", newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok" and r["validity"] in ("valid", "bound")]


def answers(report: Path) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False, na_values=[""])


def test_the_reference_is_compared_with_every_other_framework(three):
    found = answers(three)
    # The default reference: the first of the study's pair in the run, as the numerator, so the
    # first comparison is the study's own A/E.
    assert list(dict.fromkeys(zip(found["numerator"], found["denominator"]))) == [
        ("aspnet", "express"), ("aspnet", "fastify")]
    # GraphQL case 13: Fastify usable in both rounds, ASP.NET Core in round 1 only, so one pair.
    rows = [r for r in usable(THREE) if (r["api"], r["case"]) == ("graphql", "13")]
    by = {(r["framework"], r["iteration"]): float(r["throughput_rps"]) for r in rows}
    pairs = [by[("aspnet", i)] / by[("fastify", i)] for i in ("1", "2") if ("aspnet", i) in by and ("fastify", i) in by]
    cell = found[(found["denominator"] == "fastify") & (found["api"] == "graphql") & (found["case"] == 13)
                 & (found["metric"] == "throughput_rps")].iloc[0]
    assert cell["pairs"] == len(pairs) == 1
    assert math.isclose(cell["ratio"], math.exp(sum(map(math.log, pairs)) / len(pairs)), rel_tol=1e-9)


def test_every_framework_is_ranked_per_case_by_throughput(three):
    ranked = pd.read_csv(three / "tables" / "ranking.csv")
    case13 = ranked[(ranked["api"] == "graphql") & (ranked["case"] == 13)]
    assert list(case13["framework"]) == ["aspnet", "fastify"] and list(case13["rank"]) == [1, 2]
    fastify = [float(r["throughput_rps"]) for r in usable(THREE)
               if (r["framework"], r["api"], r["case"]) == ("fastify", "graphql", "13")]
    assert math.isclose(case13.iloc[1]["throughput_rps_mean"], sum(fastify) / 2)
    assert case13.iloc[1]["type"] == "realistic" and case13.iloc[1]["memory_source"].startswith("fresh")
    # A load-generator-bound item makes its throughput a lower bound.
    bound = ranked[(ranked["api"] == "rest") & (ranked["case"] == 13) & (ranked["framework"] == "aspnet")]
    assert bound.iloc[0]["throughput_bound"]
    text = (three / "report.md").read_text()
    assert "| case 13: 500 users, 1 row, no join | 1 | ASP.NET Core (realistic) | ≥ 1657 (bound) |" in text
    assert "The frameworks: ASP.NET Core (realistic), Express.js (realistic) and Fastify (realistic)." in text


def test_each_comparison_has_its_section_and_figure(three):
    text = (three / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert answer.index("### Every framework, ranked") < answer.index("### ASP.NET Core / Express.js (A/E)") \
        < answer.index("### ASP.NET Core / Fastify")
    assert "(figures/answer_aspnet_vs_fastify_graphql.png)" in answer
    # Fastify has no usable REST item: said in one line, no figure.
    assert "No REST case has both frameworks measured: Fastify has no ok REST iteration." in answer
    assert not (three / "figures" / "answer_aspnet_vs_fastify_rest.png").exists()


def test_another_reference_changes_the_answer_and_not_the_study(module_results, three):
    study = (three / "tables" / "claim_cells.csv").read_text()
    report = write_report(module_results / THREE, reference="fastify")
    found = answers(report)
    assert set(zip(found["numerator"], found["denominator"])) <= {("fastify", "aspnet"), ("fastify", "express")}
    assert ("fastify", "aspnet") in set(zip(found["numerator"], found["denominator"]))
    assert (report / "tables" / "claim_cells.csv").read_text() == study


def test_an_unknown_reference_is_one_line_and_no_report(module_results):
    with pytest.raises(UnknownReference, match="has no framework 'hono'; its frameworks: aspnet, express, fastify"):
        framework_comparisons(load_run(module_results / THREE), "hono")
    done = subprocess.run([str(ROOT / "testbed"), "report", ONE, "--results-dir", str(module_results), "--reference",
                           "aspnet"], capture_output=True, text=True)
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--reference aspnet: run 20261125-083652-smoke has no framework 'aspnet'; its frameworks: fastify" \
        in done.stderr and "Traceback" not in done.stderr


def test_one_framework_is_ranked_alone_without_a_ratio(module_results):
    report = write_report(module_results / ONE)
    text = (report / "report.md").read_text()
    answer = text[text.index("## The answer"):text.index("## The run")]
    assert "The frameworks: Fastify (realistic)." in answer and "no ratio: the run has one framework" in answer
    assert answers(report).empty and list(answers(report).columns)[-5:] == [
        "bound", "q", "test", "stopping", "rounds_needed"]
    ranked = pd.read_csv(report / "tables" / "ranking.csv")
    assert set(ranked["framework"]) == {"fastify"} and set(ranked["rank"]) == {1}


def test_a_run_before_types_and_colours_still_ranks(fixture_report):
    report = fixture_report(HAND_RUN)
    text = (report / "report.md").read_text()
    assert "The frameworks: ASP.NET Core and Express.js." in text  # schema 1: no type recorded
    ranked = pd.read_csv(report / "tables" / "ranking.csv")
    assert set(ranked["framework"]) == {"aspnet", "express"} and ranked["type"].isna().all()


def test_colours_come_from_framework_json_else_a_fixed_palette(module_results):
    run = load_run(module_results / THREE)
    # This run was recorded before framework.json had `colour`: the palette, in the run's order.
    assert figures.colours(run) == dict(zip(run.arms, figures.PALETTE))
    # Both declare black: Express.js comes first in the run and keeps it, Fastify gets a free colour.
    run = coloured(run, fastify="#000000", express="#000000")
    found = figures.colours(run)
    assert found["express"] == "#000000" and found["fastify"] not in ("#000000", found["aspnet"])
    run = coloured(run, aspnet="not a colour")
    assert figures.colours(run)["aspnet"] in figures.PALETTE


def coloured(run, **colours):
    """The run as if framework.json had declared these colours (the records are immutable)."""
    arms = {**run.manifest.arms, **{arm: replace(run.entry(arm), colour=c) for arm, c in colours.items()}}
    return replace(run, manifest=replace(run.manifest, arms=arms))
