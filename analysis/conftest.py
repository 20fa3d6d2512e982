"""Shared fixtures: a private copy of the checked-in run, so tests may break files freely."""
import shutil
from pathlib import Path

import pytest

FIXTURE_RESULTS = Path(__file__).parent / "fixtures" / "results"
HAND_RUN = "20240101-120000-fixture"


@pytest.fixture
def results(tmp_path) -> Path:
    shutil.copytree(FIXTURE_RESULTS, tmp_path / "results")
    return tmp_path / "results"


@pytest.fixture(scope="module")
def module_results(tmp_path_factory) -> Path:
    """One copy for a module's tests, for those that only read it or write reports beside its runs."""
    copy = tmp_path_factory.mktemp("module") / "results"
    shutil.copytree(FIXTURE_RESULTS, copy)
    return copy


@pytest.fixture
def run_dir(results) -> Path:
    return results / HAND_RUN


@pytest.fixture(scope="session")
def fixture_report(tmp_path_factory):
    """The default report of a checked-in run, as write_report writes it, each written once for the
    whole session into a copy of its own (a report is a function of its run's folder alone): for
    tests that only read it. A test that changes a run or asks for another report uses `results`."""
    copy = tmp_path_factory.mktemp("reports") / "results"
    shutil.copytree(FIXTURE_RESULTS, copy)
    written: dict[str, Path] = {}

    def report(run: str) -> Path:
        from analysis.report import write_report
        if run not in written:
            written[run] = write_report(copy / run)
        return written[run]
    return report
