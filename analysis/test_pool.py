"""`./testbed pool` on three runs made from the checked smoke fixture (every item valid) whose
ASP.NET Core throughput is scaled by 1, 1.5 and 1/1.5: a spread between runs of known size in the
throughput ratio and none in p95, so tau, the pooled ratio, its interval and its degrees of freedom
are worked out below from one run's own cells (analysis.verdicts.report_cells) and the factors;
then runs that cannot be pooled, each refused in one line with exit 2; units written by hand
(bounds, runs without an interval); and three frameworks pooled against another reference."""
import csv
import json
import math
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from analysis import cell_outcomes, rounds_needed, tables, verdicts
from analysis.answer import UnknownReference
from analysis.claims import CLAIMS
from analysis.conftest import FIXTURE_RESULTS
from analysis.load import load_run
from analysis.pool import NotPoolable, check, fit
from analysis.pool_report import write_pool

ROOT = Path(__file__).resolve().parent.parent
SMOKE = "20261125-063724-smoke"
FACTORS = {"20261126-100000-smoke": 1.0, "20261126-110000-smoke": 1.5, "20261126-120000-smoke": 1 / 1.5}
RUNS = list(FACTORS)
FIRST = RUNS[0]
POOL = f"pool-{RUNS[0]}-{RUNS[-1]}"
LOG_SHIFT = math.log(1.5)


def copy_run(results: Path, name: str, factor: float = 1.0, change=None) -> Path:
    """The fixture run as `name`, every item valid, ASP.NET Core's throughput times `factor`;
    `change(manifest)` edits the manifest."""
    shutil.copytree(FIXTURE_RESULTS / SMOKE, results / name)
    path = results / name / "manifest.json"
    manifest = {**json.loads(path.read_text()), "run_id": name}
    if change:
        change(manifest)
    path.write_text(json.dumps(manifest))
    with open(results / name / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row.update(validity="valid", validity_reasons="")
        if row["framework"] == "aspnet":
            row["throughput_rps"] = str(float(row["throughput_rps"]) * factor)
    with open(results / name / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return results / name


def pool_cli(results: Path, *runs: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "testbed"), "pool", *runs, "--results-dir", str(results)],
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    results = tmp_path_factory.mktemp("pool") / "results"
    for name, factor in FACTORS.items():
        copy_run(results, name, factor)
    return results


@pytest.fixture(scope="module")
def pooled(results) -> subprocess.CompletedProcess:
    # Named newest first: the folder and the order of the runs do not depend on it.
    return pool_cli(results, *reversed(RUNS))


@pytest.fixture(scope="module")
def own_cells(results) -> pd.DataFrame:
    """The first run's cells as its own report computes them: each run's standard errors are its."""
    return verdicts.report_cells(load_run(results / FIRST)).set_index(["api", "case", "metric"])


def table(results, name) -> pd.DataFrame:
    return pd.read_csv(results / POOL / name, keep_default_na=False, na_values=[""])


def family(results, metric, api, kind="ratio", numerator="aspnet") -> pd.Series:
    found = table(results, "families.csv")
    return found[(found["kind"] == kind) & (found["numerator"] == numerator) & (found["api"] == api)
                 & (found["metric"] == metric)].iloc[0]


def test_the_command_writes_the_pool_folder(results, pooled):
    assert pooled.returncode == 0, pooled.stderr
    assert pooled.stdout.strip() == f"pool: {results / POOL / 'index.html'}"
    out = results / POOL
    assert {p.name for p in out.iterdir()} == {"index.html", "report.md", "manifest.json", "pooled.csv", "runs.csv",
                                               "families.csv", "verdicts.csv", "claim_cells.csv", "figures"}
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["pool_aspnet_vs_express_graphql.png",
                                                                   "pool_aspnet_vs_express_rest.png"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["schema_version"], manifest["kind"], manifest["runs"]) == (1, "pool", RUNS)
    assert manifest["recorded"]["settings.cases"] == [1, 13, 18] and "commit" not in manifest["recorded"]
    assert manifest["git_commit"] == "18c277e242e5f9be96b34e8aced5c43aa8906d8d"
    text = (out / "report.md").read_text()
    assert "## The spread between runs" in text and "## The study's claims, judged on the pooled cells" in text
    assert (out / "index.html").read_text().startswith("<!doctype")


@pytest.mark.parametrize("api", ["rest", "graphql"])
def test_tau_is_the_spread_the_factors_put_between_the_runs(results, pooled, own_cells, api):
    # Every run's throughput ratio is the first run's times 1, 1.5 or 1/1.5 with the same standard
    # error s_c, so the log ratios deviate from their mean by 0, +log 1.5, -log 1.5 in each case, and
    # Paule-Mandel's tau^2 solves sum_c 2 log(1.5)^2 / (s_c^2 + tau^2) = 2 (cases).
    mine = own_cells.xs((api, "throughput_rps"), level=("api", "metric"))
    found = family(results, "throughput_rps", api)
    tau2 = found["tau"] ** 2
    assert found["tau"] > 0 and found["df"] == 2 * len(mine) and found["runs"] == 3
    assert math.isclose(sum(2 * LOG_SHIFT ** 2 / (s ** 2 + tau2) for s in mine["log_se"]), 2 * len(mine), rel_tol=1e-6)
    q = sum(2 * LOG_SHIFT ** 2 / s ** 2 for s in mine["log_se"])
    assert math.isclose(found["q_cochran"], q) and math.isclose(found["i2"], (q - found["df"]) / q)


def test_the_pooled_ratio_carries_tau_in_its_interval(results, pooled, own_cells):
    # The factors' geometric mean is 1 and the runs are equally precise, so the pooled ratio is the
    # first run's, its log standard error sqrt((s^2 + tau^2) / 3), and its t takes the smaller of the
    # family's 6 df and Welch-Satterthwaite's: each run's part s^2 / 9 on its 1 df, tau^2 / 3 on 6.
    cells = table(results, "pooled.csv").set_index(["api", "case", "metric"])
    tau2 = family(results, "throughput_rps", "rest")["tau"] ** 2
    for case in (1, 13, 18):
        cell, own = cells.loc[("rest", case, "throughput_rps")], own_cells.loc[("rest", case, "throughput_rps")]
        s2 = own["log_se"] ** 2
        se = math.sqrt((s2 + tau2) / 3)
        df = min(6, ((s2 + tau2) / 3) ** 2 / (3 * (s2 / 9) ** 2 / 1 + (tau2 / 3) ** 2 / 6))
        half = stats.t.ppf(0.975, df) * se
        assert math.isclose(cell["ratio"], own["ratio"]) and math.isclose(cell["log_se"], se)
        assert math.isclose(cell["df"], df)
        assert math.isclose(cell["ratio_low"], own["ratio"] * math.exp(-half))
        assert math.isclose(cell["ratio_high"], own["ratio"] * math.exp(half))
        assert math.isclose(cell["p"], 2 * stats.t.sf(abs(math.log(own["ratio"])) / se, df))
        assert cell["runs"] == 3 and cell["judged"]
        # The runs and rounds that would bring it within ±10 %: rounds_needed's plan from one round's
        # spread (the same in every run), 2 rounds a run, no df lent (unmoderated), and tau; with tau
        # about 0.4, more than 100 runs, so no plan of up to 10.
        needed = rounds_needed.plan(math.log(1.1), own["spread"], 0.95, 2, 0.0, tau=math.sqrt(tau2),
                                    seconds_per_round=rounds_needed.seconds_per_round(load_run(results / FIRST)))
        assert cell["runs_needed"] == (needed.text() if needed else "no plan of up to 10 runs × 1000 rounds")
    assert cells["q"].dropna().ge(cells["p"].dropna().loc[cells["q"].dropna().index] - 1e-12).all()


def test_runs_that_agree_have_no_spread_and_the_runs_own_degrees_of_freedom(results, pooled, own_cells):
    # p95 is the same in every run: Q = 0, tau = 0; s / sqrt(3), and Welch-Satterthwaite over three
    # parts s^2 / 9 on 1 df each gives (s^2 / 3)^2 / (3 (s^2 / 9)^2) = 3 df, under the family's 6.
    found = family(results, "p95_ms", "rest")
    assert found["tau"] == 0 and found["i2"] == 0 and found["q_cochran"] < 1e-20
    cell = table(results, "pooled.csv").set_index(["api", "case", "metric"]).loc[("rest", 13, "p95_ms")]
    own = own_cells.loc[("rest", 13, "p95_ms")]
    assert math.isclose(cell["ratio"], own["ratio"]) and math.isclose(cell["log_se"], own["log_se"] / math.sqrt(3))
    assert math.isclose(cell["df"], 3)
    # Without a spread between runs more rounds in one run do it.
    needed = rounds_needed.plan(math.log(1.1), own["spread"], 0.95, 2, 0.0, tau=0.0,
                                seconds_per_round=rounds_needed.seconds_per_round(load_run(results / FIRST)))
    assert needed.runs == 1 and cell["runs_needed"] == needed.text()


def test_each_frameworks_own_figures_get_their_own_tau(results, pooled):
    assert family(results, "throughput_rps", "rest", "own", "aspnet")["tau"] > 0
    assert family(results, "throughput_rps", "rest", "own", "express")["tau"] == 0


def test_cells_without_an_interval_in_any_run_are_not_judged_and_say_why(results, pooled):
    cells = table(results, "pooled.csv").set_index(["api", "case", "metric"])
    memory = cells.loc[("rest", 13, "memory_hwm_mb")]
    assert not memory["judged"] and pd.isna(memory["ratio_low"])
    assert memory["ratio_note"] == "in every run: fresh process per case (memory.csv), n=1 pair"


def test_the_claims_are_judged_on_the_pooled_cells(results, pooled):
    verdict_table = table(results, "verdicts.csv")
    assert list(verdict_table["claim"]) == [c.id for c in CLAIMS]
    claim_cells = table(results, "claim_cells.csv")
    cells = table(results, "pooled.csv").set_index(["api", "case", "metric"])
    # Mean response time (Little's law) is what the speed claims read; peak memory reads the fresh
    # processes' pooled memory where the runs measured it, as one run's verdicts do.
    for metric, pooled_metric in (("littles_mean_ms", "littles_mean_ms"), ("rss_peak_mb", "memory_hwm_mb")):
        mine = claim_cells[(claim_cells["metric"] == metric) & claim_cells["versus"].isna()]
        assert not mine.empty
        for row in mine.itertuples():
            pooled_cell = cells.loc[(row.api, row.case, pooled_metric)]
            assert math.isclose(row.ratio, pooled_cell["ratio"])
            assert (pd.isna(row.ratio_low) and pd.isna(pooled_cell["ratio_low"])) or \
                math.isclose(row.ratio_low, pooled_cell["ratio_low"])
    assert (claim_cells.loc[claim_cells["metric"] == "rss_peak_mb", "outcome"] == cell_outcomes.UNJUDGED).all()


def refused(results: Path, *runs: str) -> str:
    done = pool_cli(results, *runs)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, done
    return done.stderr.strip()


def pinned(manifest: dict) -> None:
    manifest["settings"]["pin"] = True


def other_commit(manifest: dict) -> None:
    manifest["git_commit"] = "0" * 40


def other_data(manifest: dict) -> None:
    manifest["database"]["dataset"]["checksum"] = "f" * 64


@pytest.mark.parametrize("change, difference", [
    (pinned, "settings.pin: false against true"),
    (other_commit, "commit: 18c277e242e5f9be96b34e8aced5c43aa8906d8d against " + "0" * 40),
    (other_data, "data set: c34de5f42f515012a33a668a185d68a0b2a74cfdd1e784387c5ba073e0d91a1c against " + "f" * 64),
])
def test_runs_that_measured_differently_are_refused_naming_the_difference(results, tmp_path, change, difference):
    copy_run(results, "20261127-100000-smoke", change=change)
    try:
        assert refused(results, FIRST, "20261127-100000-smoke") == (
            f"testbed: cannot pool: run 20261127-100000-smoke differs from run {FIRST} in {difference}; pool runs "
            "of one commit, data set, load generator, layout, machine and settings")
    finally:
        shutil.rmtree(results / "20261127-100000-smoke")


def test_fewer_than_two_runs_or_one_run_twice_are_refused(results):
    assert refused(results, FIRST) == ("testbed: cannot pool: pooling needs two runs or more, got 1: name every run "
                                       "to pool, e.g. ./testbed pool RUN_A RUN_B")
    assert refused(results, FIRST, FIRST).startswith(f"testbed: cannot pool: run {FIRST} is named twice")
    assert refused(results, FIRST, "20991231-000000-none").startswith("testbed: cannot pool: ")


def test_a_run_without_a_commit_or_data_set_is_refused():
    quick = load_run(FIXTURE_RESULTS / "20250601-120000-quick")
    with pytest.raises(NotPoolable, match="records no"):
        check([quick, load_run(FIXTURE_RESULTS / "20250701-120000-variants")])


def test_a_new_pool_replaces_the_old_folder(results, pooled):
    (results / POOL / "marker").write_text("old")
    assert write_pool([results / r for r in RUNS], results) == results / POOL
    assert not (results / POOL / "marker").exists()


def unit(run: str, case: int, ratio: float, log_se: float | None, bound: str = "", note: str = "") -> dict:
    return {"kind": "ratio", "numerator": "aspnet", "denominator": "express", "api": "rest", "case": case,
            "requests": 100, "rows": 1, "joins": 0, "metric": "throughput_rps", "run": run, "ratio": ratio,
            "ratio_low": None, "ratio_high": None, "log_se": log_se, "df": 2 if log_se else None, "pairs": 3,
            "spread": 0.17, "bound": bound, "note": note}


def test_a_bound_in_any_run_makes_the_pooled_cell_a_bound_and_a_run_without_an_interval_is_left_out():
    found = pd.DataFrame([
        # Case 1: runs agree exactly, so tau comes from case 4 alone: 0 here.
        unit("r1", 1, 1.5, 0.1), unit("r2", 1, 1.5, 0.1), unit("r3", 1, 1.5, None, note="n=1 pair"),
        unit("r1", 4, 2.0, 0.1), unit("r2", 4, 2.0, 0.1, bound=">=", note="bound: Express.js load-generator bound"),
        unit("r3", 4, 2.0, 0.1),
        unit("r1", 7, 1.2, 0.1, bound="<="), unit("r2", 7, 1.3, 0.1, bound=">="), unit("r3", 7, 1.25, 0.1)])
    families, cells = fit(found)
    cells = cells.set_index("case")
    assert families.iloc[0]["df"] == 1 + 1 + 0  # case 1: two runs; case 4: two; case 7: one
    assert families.iloc[0]["tau"] == 0
    left = cells.loc[1]
    assert left["judged"] and left["runs"] == 2 and left["ratio_note"] == "run r3: n=1 pair"
    assert math.isclose(left["log_se"], 0.1 / math.sqrt(2))
    bound = cells.loc[4]
    assert (bound["bound"], bound["judged"], bound["ratio_note"]) == (">=", False, "bound: run r2 >=")
    assert math.isclose(bound["ratio"], 2.0) and pd.isna(bound["ratio_low"])
    assert cells.loc[7, "bound"] == "both"


def test_another_reference_pools_its_comparisons_and_the_studys_pair_for_the_claims(tmp_path):
    # Two runs of the three-framework smoke fixture, Fastify's throughput x1.2 in the second.
    results = tmp_path / "results"
    for name, factor in (("20261128-100000-smoke", 1.0), ("20261128-110000-smoke", 1.2)):
        shutil.copytree(FIXTURE_RESULTS / "20261125-082957-smoke", results / name)
        path = results / name / "manifest.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "run_id": name}))
        summary = pd.read_csv(results / name / "summary.csv", keep_default_na=False, dtype=str)
        summary["validity"], summary["validity_reasons"] = "valid", ""
        fastify = summary["framework"] == "fastify"
        summary.loc[fastify, "throughput_rps"] = (summary.loc[fastify, "throughput_rps"].astype(float)
                                                  * factor).astype(str)
        summary.to_csv(results / name / "summary.csv", index=False)
    runs = sorted(results.iterdir())
    out = write_pool(runs, results, reference="fastify")
    cells = pd.read_csv(out / "pooled.csv")
    assert set(zip(cells["numerator"], cells["denominator"])) == {("fastify", "aspnet"), ("fastify", "express"),
                                                                  ("aspnet", "express")}
    assert sorted(p.name for p in (out / "figures").iterdir()) == [
        "pool_fastify_vs_aspnet_graphql.png", "pool_fastify_vs_aspnet_rest.png",
        "pool_fastify_vs_express_graphql.png", "pool_fastify_vs_express_rest.png"]
    moved = cells[(cells["numerator"] == "fastify") & (cells["denominator"] == "express")
                  & (cells["metric"] == "throughput_rps") & cells["judged"]]
    first = tables.compare_arms(load_run(results / "20261128-100000-smoke"), "fastify", "express")
    first = first[first["metric"] == "throughput_rps"].set_index(["api", "case"])["ratio"]
    assert not moved.empty
    for row in moved.itertuples():
        # Equally precise runs: the pooled ratio is the geometric mean of 1 and 1.2 times the first's.
        assert math.isclose(row.ratio, first.loc[(row.api, row.case)] * math.sqrt(1.2))
    with pytest.raises(UnknownReference):
        write_pool(runs, results, reference="nope")
