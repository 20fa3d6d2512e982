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
