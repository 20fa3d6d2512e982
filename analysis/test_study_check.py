"""The study's claims against its own published tables: what the review found, recomputed."""
import pytest

from analysis import study_check
from analysis.claims import CLAIMS, Claim, Source, almost, roughly
from analysis.study import load_study
from analysis.study_check import DEPENDS, NOT_SUPPORTED, SUPPORTED


@pytest.fixture(scope="module")
def study():
    return load_study()


@pytest.fixture(scope="module")
def checks(study):
    return study_check.checks(CLAIMS, study)


def test_graphql_case_4_contradicts_similar_or_better_in_all_cases(checks):
    c = checks["graphql-time-express-similar-or-better"]
    assert c.status == NOT_SUPPORTED
    assert c.detail.endswith("17 of 18 cells agree; against: case 4 (0.82)")  # 125.0 / 152.3
    assert "GraphQL case 4 ASP.NET Core mean response time 125.0 or 125.9" in c.uncertain
    assert c.uncertain.endswith("no reading changes the result")


def test_rest_minimums_of_cases_5_8_and_9_are_lower_for_aspnet(checks):
    c = checks["rest-many-rows-aspnet-higher-min-max"]
    assert c.status == NOT_SUPPORTED
    assert c.detail.endswith("21 of 24 cells agree; against: minimum response time case 5 (0.90), "
                             "minimum response time case 8 (0.81), minimum response time case 9 (0.95)")


def test_rest_winner_follows_rows_not_concurrency(study, checks):
    lower = study_check.lower_per_case(study, "rest", "rt_mean_ms")
    assert study_check.follows_rows(lower)
    assert set(lower[lower["rows"] == 1]["lower"]) == {"ASP.NET Core"}
    assert set(lower[lower["rows"] > 1]["lower"]) == {"Express.js"}
    assert checks["rest-lower-load-aspnet-faster"].status == NOT_SUPPORTED
    assert "against: case 2 (1.12), case 3 (1.51), case 5 (1.11), case 6 (1.46)" in \
        checks["rest-lower-load-aspnet-faster"].detail
    assert checks["rest-one-row-aspnet-faster"].status == SUPPORTED
    assert not study_check.follows_rows(study_check.lower_per_case(study, "graphql", "rt_mean_ms"))


def test_rest_cpu_is_not_within_the_margin_in_any_listed_case(checks):
    c = checks["rest-cpu-one-row-similar"]
    assert c.status == NOT_SUPPORTED and "0 of 5 cells agree" in c.detail


def test_magnitudes_the_study_reports_hold_on_its_tables(checks):
    assert checks["rest-peak-load-almost-2x"].detail.endswith("largest 1.92 (case 18)")
    assert checks["graphql-memory-up-to-3.6x-high-load"].detail.endswith("largest 3.60 (case 16)")
    for claim in ("rest-peak-load-almost-2x", "graphql-memory-up-to-3.6x-high-load",
                  "graphql-memory-2.8x-lowest-load", "graphql-cpu-more-than-double"):
        assert checks[claim].status == SUPPORTED, claim


def test_the_full_list_of_study_results(checks):
    not_supported = {claim for claim, c in checks.items() if c.status != SUPPORTED}
    assert not_supported == {"graphql-time-express-similar-or-better", "graphql-lower-load-similar-time",
                             "rest-many-rows-aspnet-higher-min-max", "rest-lower-load-aspnet-faster",
                             "rest-cpu-one-row-similar"}


def test_a_claim_that_turns_on_an_uncertain_value_says_so(study):
    # GraphQL case 14's ASP.NET Core mean is 588.8 or 688.8: A/E 1.27 or 1.48 against 464.0
    claim = Claim("crafted", "a crafted claim", (Source((1109, 1109), "§4.2", "o88,8"),), ("graphql",),
                  (14,), "case 14", ("mean_ms",), roughly(1.5, "about 1.5x"))
    c = study_check.check(claim, study)
    assert c.status == DEPENDS
    assert c.detail.endswith("holds when GraphQL case 14 ASP.NET Core mean response time = 688.8")
    assert c.uncertain.endswith("588.8 or 688.8; the reading changes the result")


def test_a_claim_on_exact_values_has_no_uncertainty_note(study):
    claim = Claim("crafted", "a crafted claim", (Source((1, 1), "Abstract", "x"),), ("rest",),
                  (18,), "case 18", ("mean_ms",), almost(2.0, "almost 2x"))
    c = study_check.check(claim, study)
    assert c.status == SUPPORTED and c.uncertain == ""
