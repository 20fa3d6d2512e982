"""Opening a run (collect/run/runs.py), with no app, JMeter or database: a resumed run's spec read back
from its manifest, and a new run's folder. Runs opened for real are in test_smoke.py, test_faults.py
and docker/test_compose.py."""
import dataclasses
from pathlib import Path

import pytest

from benchlib.console import UserError
from benchlib.engines import Endpoint
from benchlib.paths import bind_address
from collect.run import runs
from collect.run.matrix import MatrixRequest


def test_a_spec_is_built_by_name_and_never_changes():
    with pytest.raises(TypeError):
        MatrixRequest(Path("results"))  # by name only: a long row of options is easy to shift by one
    request = MatrixRequest(results_root=Path("results"), iterations=5, restart="slot", seed=7)
    spec = request.spec(Path("results"), {"aspnet": {}, "express": {}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 8
    assert (spec.profile.rounds, spec.profile.restart, spec.seed) == (5, "slot", 7)
    assert spec.frameworks == ("aspnet", "express") and spec.loadgen == "auto"


@pytest.mark.parametrize("options", [
    {},
    {"profile": "study", "pin": True, "aa": "express", "cases": [1, 18], "apis": ["rest"]},
    {"engines": [Endpoint("10.0.0.3", 1099), Endpoint("10.0.0.4", 1100)], "ssl": False, "budget_min": 90,
     "memory_rounds": 3, "loadgen": "jmeter", "pin": False},
])
def test_a_resumed_run_reads_back_the_spec_it_was_opened_with(tmp_path, options):
    spec = MatrixRequest(results_root=tmp_path, **options).spec(tmp_path, {"aspnet": {}, "express:aa": {}})
    manifest = {"settings": spec.recorded(), "seed": spec.seed}
    # Where the apps listen is recorded as decided, not as asked; the rest as the spec asked.
    assert runs.spec_from_manifest(manifest, tmp_path / "RUN") == \
        dataclasses.replace(spec, bind=bind_address(), resumes="RUN")


def test_a_new_run_takes_no_folder_that_exists_and_one_that_did_not_open_leaves_none(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(UserError, match="^every id is taken$"):
        runs.claim(tmp_path, runs.NewRun(run_ids=("taken",), manifest=lambda run_id: {}, taken="every id is taken"))

    def unreadable_version(run_id: str) -> dict:
        raise UserError("java -version failed")
    with pytest.raises(UserError, match="java -version failed"):
        runs.claim(tmp_path, runs.NewRun(run_ids=("new",), manifest=unreadable_version, taken="taken"))
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]
