"""Variant against variant, on the crafted 3-round paired fixture 20250701-120000-variants: arms
aspnet:mvc (named first, so the reference of aspnet's variants), aspnet and express; both APIs,
cases 1 and 18. Its summary.csv was written with chosen ratios: aspnet / express 1.25 throughput,
0.7 for response times, 1.45 peak RSS; aspnet / aspnet:mvc 1.05 REST throughput and 0.95 REST p95
(1.03 and 0.97 for GraphQL); per-round deviations whose logs sum to zero, so each geometric mean is
the chosen ratio (up to the values' rounding to 3 decimals). aspnet:mvc's REST case 18 round 3 is
`underloaded`, a flag only the variant comparison may see."""
import csv
import json
import math
import re
import shutil
import statistics

import pandas as pd
import pytest

from analysis.conftest import FIXTURE_RESULTS
from analysis.report import write_report

VARIANTS_RUN = "20250701-120000-variants"
T2 = 4.302652729911275  # t(0.975, df=2)
STUDY_TABLES = ("verdicts.csv", "claim_cells.csv", "significance.csv", "study_side_by_side.csv", "study_ratios.csv")


@pytest.fixture(scope="module")
def report(module_results):
    return write_report(module_results / VARIANTS_RUN)


def answers_of(report, numerator, denominator) -> pd.DataFrame:
    answers = pd.read_csv(report / "tables" / "answer.csv", keep_default_na=False, na_values=[""])
    mine = answers[(answers["numerator"] == numerator) & (answers["denominator"] == denominator)]
    return mine.set_index(["api", "case", "metric"])


def rounds(api, case, metric) -> dict:
    """arm -> {round: value}, straight from summary.csv."""
    with open(FIXTURE_RESULTS / VARIANTS_RUN / "summary.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["api"] == api and r["case"] == str(case)]
    found = {}
    for r in rows:
        found.setdefault(r["framework"], {})[int(r["iteration"])] = float(r[metric])
    return found


def paired_ratio(a: dict, b: dict) -> tuple[float, float, float]:
    logs = [math.log(a[r] / b[r]) for r in (1, 2, 3)]
    mean, half = statistics.mean(logs), T2 * statistics.stdev(logs) / math.sqrt(3)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def drop_arms(run, arms: set[str], named: list[str]) -> None:
    """The same run as if only `named` had been asked for: the other arms' rows, folders and
    manifest entries gone."""
    summary = run / "summary.csv"
    lines = summary.read_text().splitlines()
    summary.write_text("\n".join([lines[0]] + [line for line in lines[1:] if line.split(",")[0] not in arms]) + "\n")
    for arm in arms:
        shutil.rmtree(run / arm)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["settings"]["frameworks"] = named
    manifest["frameworks"] = {k: v for k, v in manifest["frameworks"].items() if k not in arms}
    manifest["order"] = [key for key in manifest["order"] if key.split("/")[0] not in arms]
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def add_arm(run, source: str, arm: str, display_name: str) -> None:
    """A copy of `source`'s rows and files under another arm name (the numbers do not matter here)."""
    summary = run / "summary.csv"
    lines = summary.read_text().splitlines()
    copies = [arm + line[len(source):] for line in lines[1:] if line.split(",")[0] == source]
    summary.write_text("\n".join(lines + copies) + "\n")
    shutil.copytree(run / source, run / arm)
    manifest = json.loads((run / "manifest.json").read_text())
    base, variant = arm.split(":")
    manifest["frameworks"][arm] = {"name": arm, "base": base, "display_name": display_name, "variant_run": variant,
                                   "variant": {"name": variant, "description": f"crafted {variant}"}}
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end, text.index(start) + 1)]


def test_the_framework_answer_still_compares_aspnet_and_express(report):
    framework = answers_of(report, "aspnet", "express")
    assert len(framework) == 2 * 2 * 6
    values = rounds("rest", 1, "throughput_rps")
    ratio, low, high = paired_ratio(values["aspnet"], values["express"])
    row = framework.loc[("rest", 1, "throughput_rps")]
    assert math.isclose(row["ratio"], ratio) and math.isclose(row["ratio_low"], low)
    assert math.isclose(row["ratio_high"], high) and math.isclose(row["ratio"], 1.25, rel_tol=1e-4)
    assert row["pairs"] == 3 and row["numerator_n"] == 3 and row["denominator_n"] == 3 and row["significant"]
    # aspnet:mvc's underloaded round is not the framework answer's
    assert set(framework["load_flags"].fillna("")) == {""}
    text = (report / "report.md").read_text()
    answer = section(text, "## The answer: every framework, per case", "\n## ")
    assert "ASP.NET Core (mvc)" not in answer


def test_a_variant_section_compares_aspnet_with_the_reference_aspnet_mvc(report):
    variant = answers_of(report, "aspnet", "aspnet:mvc")
    assert len(variant) == 2 * 2 * 6
    assert set(pd.read_csv(report / "tables" / "answer.csv")[["numerator", "denominator"]].itertuples(index=False)) \
        == {("aspnet", "express"), ("aspnet", "aspnet:mvc")}
    for api, case, metric, crafted in (("rest", 1, "throughput_rps", 1.05), ("rest", 18, "p95_ms", 0.95),
                                       ("graphql", 1, "throughput_rps", 1.03), ("graphql", 18, "p95_ms", 0.97)):
        values = rounds(api, case, metric)
        ratio, low, high = paired_ratio(values["aspnet"], values["aspnet:mvc"])
        row = variant.loc[(api, case, metric)]
        assert math.isclose(row["ratio"], ratio) and math.isclose(row["ratio_low"], low)
        assert math.isclose(row["ratio_high"], high)
        assert math.isclose(row["ratio"], crafted, rel_tol=1e-4), (api, case, metric)
        assert row["pairs"] == 3 and row["numerator_n"] == 3 and row["denominator_n"] == 3
        assert row["comparison"] == "paired rounds"
    # p < 0.05 alone, but not once adjusted over the comparison's family of tests (Benjamini-Hochberg).
    cell = variant.loc[("rest", 1, "throughput_rps")]
    assert cell["p"] < 0.05 <= cell["q"] and not cell["significant"]
    assert not variant.loc[("rest", 1, "cpu_mean_pct"), "significant"]
    assert variant.loc[("rest", 18, "throughput_rps"), "load_flags"] == "underloaded"

    text = (report / "report.md").read_text()
    headings = re.findall(r"^(##+ .*)$", text, re.M)
    at = headings.index("## Variants: ASP.NET Core / ASP.NET Core (mvc)")
    assert headings[at - 7:at] == ["## The answer: every framework, per case", "### Every framework, ranked",
                                   "### ASP.NET Core / Express.js (A/E)", "#### REST", "#### GraphQL",
                                   "### How to read the answer", "### How the ratios were computed, and why"]
    assert headings[at + 1:at + 7] == ["### REST", "### GraphQL", "## The protocol's own checks", "### The arm order",
                                       "### The rounds", "## The run"]
    body = section(text, "## Variants:", "\n## The protocol's own checks")
    first = body.split("\n\n")[1]
    assert first.startswith("What the ratio compares. ASP.NET Core (aspnet, variant default): minimal APIs")
    assert "ASP.NET Core (mvc) (aspnet:mvc, variant mvc, the reference): MVC controllers" in first
    assert "api_style: minimal APIs against MVC controllers" in first and "API_STYLE: not set against mvc" in first
    rest = section(body, "### REST", "### GraphQL")
    # Intervals excluding 1, yet q >= 0.05 over the variant's family of tests: no mark (see the test above).
    assert "| case 1: 100 users, 1 row, no join | 1.05 [1.01, 1.10] | 0.95 [0.91, 0.99] |" in rest
    assert "case 18: 500 users, 100 rows, join ‡" in rest
    for api in ("rest", "graphql"):
        assert f"(figures/variants_aspnet_vs_aspnet-mvc_{api}.png)" in body
        assert (report / "figures" / f"variants_aspnet_vs_aspnet-mvc_{api}.png").read_bytes()[:4] == b"\x89PNG"


def test_the_study_sections_ignore_the_extra_arm(report, results):
    drop_arms(results / VARIANTS_RUN, {"aspnet:mvc"}, ["aspnet", "express"])
    plain = write_report(results / VARIANTS_RUN)
    names = [p.name for p in (plain / "tables").iterdir()
             if p.name in STUDY_TABLES or p.name.startswith(("table", "extra_"))]
    assert len(names) > 20
    for name in names:
        assert (report / "tables" / name).read_bytes() == (plain / "tables" / name).read_bytes(), name
    with_variant, without = (r.joinpath("report.md").read_text() for r in (report, plain))
    for start, end in (("## The answer", "\n## "), ("## Does it reproduce", "## Latency distributions"),
                       ("## Side by side", "## Appendix")):
        assert section(with_variant, start, end) == section(without, start, end), start
    # answer.csv: the framework answer's rows first, the same as without the variant
    plain_rows = (plain / "tables" / "answer.csv").read_text().splitlines()
    assert (report / "tables" / "answer.csv").read_text().splitlines()[:len(plain_rows)] == plain_rows
    assert "## Variants" not in without


def test_two_variants_of_one_framework_give_a_variant_answer_and_no_framework_answer(results):
    drop_arms(results / VARIANTS_RUN, {"express"}, ["aspnet:mvc", "aspnet"])
    report = write_report(results / VARIANTS_RUN)
    text = (report / "report.md").read_text()
    answer = section(text, "## The answer", "\n## ")
    # One framework (aspnet:mvc is a variant of it): its figures ranked alone, and no ratio.
    assert "The frameworks: ASP.NET Core." in answer and "no ratio: the run has one framework" in answer
    assert "### ASP.NET Core /" not in answer
    variants = section(text, "## Variants: ASP.NET Core / ASP.NET Core (mvc)", "\n## The run")
    # no framework answer to refer to, so the variant section explains itself
    assert "### How to read the answer" in variants and "both arms ran seconds apart" in variants
    answers = pd.read_csv(report / "tables" / "answer.csv")
    assert set(zip(answers["numerator"], answers["denominator"])) == {("aspnet", "aspnet:mvc")}
    # without express no claim is judged; those needing more than this testbed has say so first
    assert set(pd.read_csv(report / "tables" / "verdicts.csv")["verdict"]) == {"inconclusive", "cannot be judged here"}
    assert not any(p.name.startswith("answer_") for p in (report / "figures").iterdir())


def test_six_arms_each_against_the_first_named_of_its_framework(report, results):
    run = results / VARIANTS_RUN
    add_arm(run, "aspnet:mvc", "aspnet:net8", "ASP.NET Core (net8)")
    add_arm(run, "express", "express:node22", "Express.js (node22)")
    add_arm(run, "express", "express:cluster", "Express.js (cluster)")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["settings"]["frameworks"] = ["aspnet:mvc", "aspnet", "aspnet:net8", "express:node22", "express",
                                          "express:cluster"]
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2))
    six = write_report(run)
    headings = re.findall(r"^## (Variants: .*)$", (six / "report.md").read_text(), re.M)
    assert headings == ["Variants: ASP.NET Core / ASP.NET Core (mvc)",
                        "Variants: ASP.NET Core (net8) / ASP.NET Core (mvc)",
                        "Variants: Express.js / Express.js (node22)",
                        "Variants: Express.js (cluster) / Express.js (node22)"]
    answers = pd.read_csv(six / "tables" / "answer.csv")
    assert len(answers) == 5 * 2 * 2 * 6
    # express:node22 is a copy of express, so their ratio is 1 in every round
    same = answers[(answers["numerator"] == "express") & (answers["denominator"] == "express:node22")]
    assert (same["ratio"] == 1).all() and not same["significant"].any()
    for name in STUDY_TABLES:
        assert (six / "tables" / name).read_bytes() == (report / "tables" / name).read_bytes(), name
