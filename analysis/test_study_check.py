"""The study's claims against its own published tables: what the review found, recomputed."""
import pytest

from analysis import study_check
from dataclasses import replace

from analysis.claim_types import Claim, Equivalence, Source
from analysis.claims import CLAIMS, MARGIN, almost, roughly
from analysis.study import load_study
from analysis.study_check import DEPENDS, NOT_CHECKED, NOT_SUPPORTED, SUPPORTED


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
    assert checks["rest-lower-load-aspnet-faster-by-users"].status == NOT_SUPPORTED
    assert "against: case 2 (1.12), case 3 (1.51), case 5 (1.11), case 6 (1.46)" in \
        checks["rest-lower-load-aspnet-faster-by-users"].detail
    assert checks["rest-one-row-aspnet-faster"].status == SUPPORTED
    assert not study_check.follows_rows(study_check.lower_per_case(study, "graphql", "rt_mean_ms"))


def test_rest_cpu_similar_holds_only_within_the_cpu_margin(study, checks):
    c = checks["rest-cpu-one-row-similar"]
    assert c.status == SUPPORTED and c.detail == "A/E 1.23 to 1.68; 5 of 5 cells agree"
    # with the response-time margin of 10 % not one of the five listed cases would be similar
    within_10 = replace(c.claim, test=Equivalence(MARGIN))
    assert "0 of 5 cells agree" in study_check.check(within_10, study).detail
    # and "much higher CPU" holds on the same cells, so the two claims no longer contradict
    assert checks["rest-cpu-aspnet-higher"].status == SUPPORTED


def test_magnitudes_the_study_reports_hold_on_its_tables(checks):
    assert checks["rest-peak-load-almost-2x"].detail.endswith("largest 1.89 (minimum response time case 18)")
    assert checks["rest-peak-load-almost-2x-mean"].detail.endswith("largest 1.92 (case 18)")
    assert checks["graphql-memory-3.3x-at-peak"].detail == "Express.js peaks in case 15: A/E 3.31"
    assert checks["graphql-memory-up-to-3.6x-high-load"].detail.endswith("largest 3.60 (case 16)")
    for claim in ("rest-peak-load-almost-2x", "rest-peak-load-almost-2x-mean", "graphql-memory-3.3x-at-peak",
                  "graphql-memory-up-to-3.6x-high-load",
                  "graphql-memory-2.8x-lowest-load", "graphql-cpu-more-than-double"):
        assert checks[claim].status == SUPPORTED, claim


def test_the_full_list_of_study_results(checks):
    not_supported = {claim for claim, c in checks.items() if c.status == NOT_SUPPORTED}
    assert not_supported == {"graphql-time-express-similar-or-better", "graphql-lower-load-similar-time",
                             "graphql-lower-load-similar-time-by-users", "rest-many-rows-aspnet-higher-min-max",
                             "rest-many-rows-aspnet-much-higher-max", "rest-lower-load-aspnet-faster-by-users"}
    assert {claim for claim, c in checks.items() if c.status == NOT_CHECKED} == {
        "graphql-cpu-all-4-cores", "graphql-memory-grows-across-iterations"}


def test_the_chosen_reading_is_the_one_the_studys_tables_support_better(checks):
    assert checks["rest-lower-load-aspnet-faster"].status == SUPPORTED
    assert "2 of 6 cells agree" in checks["rest-lower-load-aspnet-faster-by-users"].detail
    assert "4 of 6 cells agree" in checks["graphql-lower-load-similar-time"].detail
    assert "2 of 6 cells agree" in checks["graphql-lower-load-similar-time-by-users"].detail


def test_interactions_are_checked_on_the_published_ratio_of_ratios(checks):
    # REST CPU, case 3 over case 1: (310.18 / 101.36) / (111.28 / 66.35) = 1.82
    c = checks["rest-cpu-rises-more-with-rows"]
    assert c.status == SUPPORTED and c.detail.startswith("(A/E) / (A/E) 1.74 to 2.00; 6 of 6")


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
