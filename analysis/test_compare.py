"""`./testbed compare RUN_A RUN_B` on two runs of the checked smoke fixture with a known shift: run A
the fixture with every item valid, run B the same rounds with ASP.NET Core's throughput x1.25 and
p95 x0.8, one of Express.js's items bound and one of A's cells invalid, on another CPU and pinned;
then runs that cannot be compared; then the spread between runs from a pool (tau added to each
interval, found or named, or none) and the framework ratios compared between runs."""
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from analysis import compare, pool_files, tables
from analysis.compare_report import write_comparison
from analysis.conftest import FIXTURE_RESULTS
from analysis.load import load_run

ROOT = Path(__file__).resolve().parent.parent
SMOKE = "20261125-063724-smoke"
A, B = "20261126-100000-smoke", "20261126-110000-smoke"
SHIFT = {"throughput_rps": 1.25, "p95_ms": 0.8}


def copy_run(results: Path, name: str, change) -> Path:
    """The fixture run as `name`, every item valid, then `change(row)` on each summary row."""
    shutil.copytree(FIXTURE_RESULTS / SMOKE, results / name)
    manifest = results / name / "manifest.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "run_id": name}))
    with open(results / name / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row.update(validity="valid", validity_reasons="")
        change(row)
    with open(results / name / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return results / name


def cell_of(row) -> tuple:
    return row["framework"], row["api"], row["case"]


def baseline(row) -> None:
    if cell_of(row) == ("aspnet", "graphql", "13"):
        row.update(validity="invalid", validity_reasons="steady_state: throughput changed +40 %")


def shifted(row) -> None:
    if row["framework"] == "aspnet":
        for metric, factor in SHIFT.items():
            row[metric] = str(float(row[metric]) * factor)
    if cell_of(row) == ("express", "rest", "1") and row["iteration"] == "1":
        row["validity"] = "bound"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("compare") / "results"
    copy_run(results, A, baseline)
    manifest = copy_run(results, B, shifted) / "manifest.json"
    recorded = json.loads(manifest.read_text())
    recorded["machine"]["cpu_model"], recorded["settings"]["pin"] = "Intel(R) Core(TM) i5-4670K", True
    manifest.write_text(json.dumps(recorded))
    return results


@pytest.fixture(scope="module")
def found(results) -> pd.DataFrame:
    return compare.cells(load_run(results / A), load_run(results / B)).set_index(["framework", "api", "case", "metric"])


def values(results, run, framework, api, case, metric) -> list[float]:
    with open(results / run / "summary.csv", newline="") as f:
        return [float(r[metric]) for r in csv.DictReader(f) if cell_of(r) == (framework, api, str(case))]


def test_the_known_shift_comes_back_with_its_interval(results, found):
    for metric, factor in SHIFT.items():
        cell = found.loc[("aspnet", "rest", 18, metric)]
        a = values(results, A, "aspnet", "rest", 18, metric)
        assert math.isclose(cell["ratio"], factor)
        # Two rounds each; B's are A's times the factor, so both have A's coefficient of variation:
        # the log standard error is √2 of one side's, on 2 (Welch) degrees of freedom.
        log_se = math.sqrt(2 * statistics.variance(a) / (2 * statistics.mean(a) ** 2))
        half = stats.t.ppf(0.975, 2) * log_se
        assert math.isclose(cell["ratio_low"], factor * math.exp(-half))
        assert math.isclose(cell["ratio_high"], factor * math.exp(half))
        assert math.isclose(cell["p"], 2 * stats.t.sf(abs(math.log(factor)) / log_se, 2))
    unchanged = found.loc[("express", "rest", 18, "throughput_rps")]
    assert math.isclose(unchanged["ratio"], 1.0) and math.isclose(unchanged["p"], 1.0)


def test_bound_and_invalid_sides_are_shown_as_such_and_not_judged(found):
    bound = found.loc[("express", "rest", 1, "throughput_rps")]  # run B bound in round 1
    assert (bound["b_state"], bound["bound"], bound["judged"]) == ("bound", ">=", False) and pd.isna(bound["q"])
    # A bound item's CPU per request is left out: B's side rests on its other round alone.
    cpu = found.loc[("express", "rest", 1, "app_cpu_ms_per_req")]
    assert (cpu["b_state"], cpu["b_n"], cpu["a_n"], cpu["judged"]) == ("valid", 1, 2, False)
    invalid = found.loc[("aspnet", "graphql", 13, "throughput_rps")]
    assert invalid["a_state"] == "invalid" and pd.isna(invalid["ratio"]) and not invalid["judged"]
    assert invalid["note"] == "run A: invalid (steady_state 2x)"
    judged = found[found["judged"].astype(bool)]
    assert judged["q"].notna().all() and len(judged) == len(found) - 6  # those three, and A's invalid cell
    assert (judged["q"] >= judged["p"] - 1e-12).all()


def compare_cli(results, *runs) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "testbed"), "compare", *runs, "--results-dir", str(results)],
                          capture_output=True, text=True)


def test_the_command_writes_a_page_and_a_csv_and_replaces_them(results, found):
    # Where runs live, as ./testbed run and ./testbed report read it: $TESTBED_RESULTS.
    done = subprocess.run([str(ROOT / "testbed"), "compare", A, B], capture_output=True, text=True,
                          env={**os.environ, "TESTBED_RESULTS": str(results)})
    assert done.returncode == 0, done.stderr
    out = results / f"compare-{A}-{B}"
    assert done.stdout.strip() == f"comparison: {out / 'index.html'}"
    assert len(pd.read_csv(out / "compare.csv")) == len(found)
    text = (out / "report.md").read_text()
    assert "| ASP.NET Core | case 18: 500 users, 100 rows, join | 1.25 [" in text
    assert "≥ " in text and "not judged: run A: invalid (steady_state 2x)" in text
    assert ("What differs between the runs (A against B): machine.cpu_model: AMD EPYC against Intel(R) Core(TM) "
            "i5-4670K; settings.pin: false against true.") in text
    assert (out / "index.html").read_text().startswith("<!doctype")
    (out / "marker").write_text("old")
    assert write_comparison(results / A, results / B, results) == out and not (out / "marker").exists()
    assert sorted(p.name for p in results.iterdir() if p.name.startswith((".compare", "compare"))) == [out.name]


def test_runs_of_another_data_set_or_without_a_shared_cell_are_one_line_and_exit_2(results, tmp_path):
    other = copy_run(tmp_path, "20261126-120000-smoke", lambda row: None)
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["database"]["dataset"]["checksum"] = "0" * 64
    (other / "manifest.json").write_text(json.dumps(manifest))
    shutil.copytree(other, results / other.name)
    done = compare_cli(results, A, other.name)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("testbed: cannot compare: runs 20261126-100000-smoke and 20261126-120000-smoke "
                                  "measured different data sets (checksum c34de5f42f51… against 000000000000…)")
    fastify_only = load_run(FIXTURE_RESULTS / "20261125-083652-smoke")
    with pytest.raises(compare.NotComparable, match="share no framework, API and case"):
        compare.check(load_run(results / A), fastify_only)
    with pytest.raises(compare.NotComparable, match="records no data set checksum"):
        compare.check(load_run(results / A), load_run(FIXTURE_RESULTS / "20250601-120000-quick"))


# The spread between runs: runs C and D of the same settings as A (D with ASP.NET Core's throughput
# x1.25, so its A/E is C's x1.25 in every round), and a pool folder written by hand with a chosen tau,
# so each interval is worked out below from the two runs' own standard errors and that tau.
C, D = "20261127-100000-smoke", "20261127-110000-smoke"
POOL = "pool-20261120-100000-smoke-20261120-110000-smoke"
TAU_OWN, TAU_RATIO, TAU_DF = 0.05, 0.1, 6


def faster(row) -> None:
    if row["framework"] == "aspnet":
        row["throughput_rps"] = str(float(row["throughput_rps"]) * 1.25)


def write_pool_folder(results: Path, name: str, like: Path, change=lambda shared: None) -> None:
    """A pool's manifest.json and families.csv as ./testbed pool writes them, of runs like `like`."""
    folder = results / name
    folder.mkdir()
    shared = pool_files.shared(load_run(like))
    change(shared)
    (folder / "manifest.json").write_text(json.dumps({
        "schema_version": 1, "kind": "pool", "runs": ["20261120-100000-smoke", "20261120-110000-smoke"],
        "git_commit": "1" * 40, "recorded": shared}))
    families = pd.DataFrame([
        {"kind": "own", "numerator": "aspnet", "denominator": "", "api": "rest", "metric": "throughput_rps",
         "tau": TAU_OWN, "df": TAU_DF},
        {"kind": "ratio", "numerator": "aspnet", "denominator": "express", "api": "rest",
         "metric": "throughput_rps", "tau": TAU_RATIO, "df": TAU_DF}]).reindex(columns=pool_files.FAMILY_COLUMNS)
    families.to_csv(folder / "families.csv", index=False)


@pytest.fixture(scope="module")
def pooled_results(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("compare-tau") / "results"
    copy_run(results, C, lambda row: None)
    copy_run(results, D, faster)
    write_pool_folder(results, POOL, results / C)
    # Sorts after POOL, so it would be found first were it of runs like these: it is not.
    write_pool_folder(results, "pool-20261121-100000-smoke-20261121-110000-smoke", results / C,
                      lambda shared: shared.update({"settings.pin": True}))
    return results


def test_a_pool_of_runs_like_these_is_found_and_the_other_is_not(pooled_results):
    c, d = load_run(pooled_results / C), load_run(pooled_results / D)
    spread = compare.spread_for(c, d, pooled_results)
    assert spread.folder.name == POOL and spread.tau("ratio", "aspnet", "express", "rest", "throughput_rps") == \
        (TAU_RATIO, TAU_DF)
    assert compare.spread_for(c, d, pooled_results, "none") is None
    with pytest.raises(compare.NotComparable, match="settings.pin: true against false"):
        compare.spread_for(c, d, pooled_results, "pool-20261121-100000-smoke-20261121-110000-smoke")
    # A run of other frameworks is not like C: no pool is of runs like both.
    assert compare.spread_for(c, load_run(FIXTURE_RESULTS / "20261125-082957-smoke"), pooled_results) is None


def test_a_frameworks_own_figures_add_two_tau_squared(pooled_results):
    c, d = load_run(pooled_results / C), load_run(pooled_results / D)
    found = compare.cells(c, d, compare.spread_for(c, d, pooled_results)).set_index(
        ["framework", "api", "case", "metric"])
    cell = found.loc[("aspnet", "rest", 18, "throughput_rps")]
    a = values(pooled_results, C, "aspnet", "rest", 18, "throughput_rps")
    within = 2 * statistics.variance(a) / (2 * statistics.mean(a) ** 2)  # as the known-shift test: on 2 df
    se = math.sqrt(within + 2 * TAU_OWN ** 2)
    df = (within + 2 * TAU_OWN ** 2) ** 2 / (within ** 2 / 2 + (2 * TAU_OWN ** 2) ** 2 / TAU_DF)
    half = stats.t.ppf(0.975, df) * se
    assert math.isclose(cell["ratio"], 1.25) and cell["tau"] == TAU_OWN
    assert math.isclose(cell["ratio_low"], 1.25 * math.exp(-half)) and math.isclose(cell["ratio_high"],
                                                                                    1.25 * math.exp(half))
    # A family the pool has no tau for stays within-run only.
    assert pd.isna(found.loc[("aspnet", "rest", 18, "p95_ms"), "tau"])


def test_the_framework_ratios_are_compared_between_runs(pooled_results):
    c, d = load_run(pooled_results / C), load_run(pooled_results / D)
    own = tables.compare_arms(c, "aspnet", "express").set_index(["api", "case", "metric"])
    for spread, tau in ((compare.spread_for(c, d, pooled_results), TAU_RATIO), (None, 0.0)):
        found = compare.ratios(c, d, spread).set_index(["api", "case", "metric"])
        cell, mine = found.loc[("rest", 18, "throughput_rps")], own.loc[("rest", 18, "throughput_rps")]
        # Each round's A/E in D is C's x1.25, so the runs' log standard errors are equal, s each on df.
        s2, df = mine["log_se"] ** 2, mine["df"]
        total = 2 * s2 + 2 * tau ** 2
        t_df = total ** 2 / (2 * s2 ** 2 / df + ((2 * tau ** 2) ** 2 / TAU_DF if tau else 0))
        half = stats.t.ppf(0.975, t_df) * math.sqrt(total)
        assert math.isclose(cell["a_ratio"], mine["ratio"]) and math.isclose(cell["b_ratio"], 1.25 * mine["ratio"])
        assert math.isclose(cell["ratio"], 1.25)
        assert math.isclose(cell["ratio_low"], 1.25 * math.exp(-half))
        assert math.isclose(cell["p"], 2 * stats.t.sf(math.log(1.25) / math.sqrt(total), t_df))
        unchanged = found.loc[("rest", 18, "p95_ms")]
        assert math.isclose(unchanged["ratio"], 1.0) and math.isclose(unchanged["p"], 1.0)


def test_the_page_says_where_tau_came_from_or_that_it_has_none(pooled_results, results):
    done = compare_cli(pooled_results, C, D)
    assert done.returncode == 0, done.stderr
    text = (pooled_results / f"compare-{C}-{D}" / "report.md").read_text()
    assert f"The spread between runs, τ, is pool {POOL}'s" in text
    assert "## The framework ratios between runs" in text and "| ASP.NET Core / Express.js | case 18" in text
    assert len(pd.read_csv(pooled_results / f"compare-{C}-{D}" / "ratios.csv")) == 3 * 3 * 2  # cases, metrics, APIs
    done = compare_cli(pooled_results, C, D, "--pool", "none")
    assert done.returncode == 0, done.stderr
    assert "these intervals are within-run only" in (pooled_results / f"compare-{C}-{D}" / "report.md").read_text()
    other = "pool-20261121-100000-smoke-20261121-110000-smoke"
    done = compare_cli(pooled_results, C, D, "--pool", other)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"testbed: cannot compare: --pool {other} pooled runs unlike run {C}: settings.pin")
    # Runs A and B (different CPU and pinning) have no pool: their page says so.
    assert compare_cli(results, A, B).returncode == 0
    assert "these intervals are within-run only" in (results / f"compare-{A}-{B}" / "report.md").read_text()
