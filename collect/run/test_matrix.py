"""`./testbed run`'s options before anything runs: what a run measures when an option is left out.
The runs themselves are in test_smoke.py and test_faults.py."""
from pathlib import Path

from benchlib.cases import API_STYLES, cases
from collect.run.matrix import MatrixRequest


def test_without_cases_or_apis_a_run_measures_every_case_of_both_apis():
    request = MatrixRequest(results_root=Path("results"))
    assert request.case_numbers() == tuple(range(1, 19)) == tuple(sorted(cases()))
    assert request.api_names() == API_STYLES == ("rest", "graphql")


def test_cases_and_apis_asked_for_are_the_ones_measured():
    request = MatrixRequest(results_root=Path("results"), apis=["graphql"], cases=[13, 1])
    assert request.case_numbers() == (13, 1) and request.api_names() == ("graphql",)
    assert request.chosen() == ["apis", "cases"]  # what --resume refuses beside it


def test_resume_refuses_the_options_by_the_names_they_were_typed_as():
    request = MatrixRequest(results_root=Path("results"), budget_min=60, memory_rounds=4, pin=False,
                            resume="20261129-001942-quick")
    assert request.chosen() == ["budget", "memory-rounds", "no-pin"]
