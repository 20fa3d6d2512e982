"""The fixture cut from a real `./testbed run --profile smoke --cases 1,18 --iterations 2`
(JTLs trimmed to 5 warm-up and 60 measured samples, logs to 20 lines; everything else as written).
ASP.NET Core had no GraphQL yet, so its GraphQL cells are `excluded`."""
import math
import statistics

import pytest

from analysis import scope, tables, verdicts
from analysis.claims import CLAIMS
from analysis.load import latest_run, load_jtl, load_run

SMOKE_RUN = "20261122-031909-smoke"
T1 = 12.706204736432095  # t(0.975, df=1)


@pytest.fixture
def run(results):
    return load_run(results / SMOKE_RUN)


def test_the_schema_3_smoke_run_is_newer(results):
    assert latest_run(results).name > SMOKE_RUN


def test_mean_response_time_with_two_iterations(run):
    agg = tables.aggregate(run).set_index(["api", "case", "framework", "metric"])
    row = agg.loc[("rest", 1, "express", "mean_ms")]
    values = [69.692, 27.215]
    half = T1 * statistics.stdev(values) / math.sqrt(2)
    assert row["n"] == 2 and math.isclose(row["mean"], sum(values) / 2)
    assert math.isclose(row["ci_high"], sum(values) / 2 + half)


def test_a_metric_the_sampler_missed_counts_only_where_measured(run):
    # aspnet rest case 18 iteration 1 has no db row in proc.csv, so db_cpu_mean_pct is empty
    agg = tables.aggregate(run).set_index(["api", "case", "framework", "metric"])
    row = agg.loc[("rest", 18, "aspnet", "db_cpu_mean_pct")]
    assert row["n"] == 1 and row["mean"] == 24.32


def test_excluded_cells_and_their_reason(run):
    status = tables.run_status(run).set_index(["framework", "api"])
    assert status.loc[("aspnet", "graphql")]["excluded"] == 4
    assert status.loc[("aspnet", "graphql")]["ok"] == 0
    reasons = set(tables.problems(run)["reason"])
    assert reasons == {"aspnet does not implement graphql (framework.json apis)"}


def test_two_iterations_use_welch_and_graphql_claims_lack_a_framework(run):
    sig = tables.significance(run)
    assert set(sig["api"]) == {"rest"}
    by = sig.set_index(["case", "metric"])
    assert by.loc[(1, "mean_ms"), "test"] == "Welch t"
    assert by.loc[(18, "db_cpu_mean_pct"), "result"] == "cannot be judged (n=1 iteration)"
    results = {v.claim.id: v for v in verdicts.verdicts(CLAIMS, sig, scope.absent(run), run.cores)}
    for claim in CLAIMS:
        if claim.apis == ("graphql",) and not verdicts.cannot_judge_here(claim, run.cores):
            assert results[claim.id].verdict == verdicts.INCONCLUSIVE
            cases = [c for c in claim.cases if c in (1, 18)]
            assert ("ASP.NET Core has no ok GraphQL iteration of it" in results[claim.id].explanation) == bool(cases)


def test_real_jtl_warm_up_left_out(results):
    jtl = load_jtl(results / SMOKE_RUN / "express" / "rest" / "case-01" / "iter-01" / "results.jtl")
    assert len(jtl) == 60
