"""Remote engines when things go wrong, for real (the `lab` fixture, collect/conftest.py): an engine
lost mid-run stops the run resumably, and Ctrl-C leaves no engine running a test."""
import json
import signal
import subprocess
from pathlib import Path

from collect.conftest import TESTBED, SMOKE, Lab, needs_root, records, run_testbed, start_engine, the_run, wait_for

pytestmark = needs_root


def start_run(tmp_path: Path, lab: Lab) -> subprocess.Popen:
    """A smoke run of 3 items through the engine on port 1099, in the background."""
    start_engine(lab, 1099)
    return subprocess.Popen([TESTBED, *SMOKE, "--cases", "2,4,7", "--engines", lab.endpoint(1099),
                             "--results-dir", str(tmp_path)], env=lab.env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def test_an_engine_lost_mid_run_fails_its_item_stops_the_run_and_resume_finishes(tmp_path, lab):
    run = start_run(tmp_path, lab)
    try:
        wait_for(lambda: tmp_path.exists() and any(p.is_dir() for p in tmp_path.iterdir())
                 and any(r["status"] == "running" for r in records(the_run(tmp_path))), 600, "an item to run")
        assert lab.engine("stop").returncode == 0
        output, _ = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 3, output
    assert "stopped answering" in output and "--resume" in output
    folder = the_run(tmp_path)
    assert json.loads((folder / "state.json").read_text())["status"] == "stopped"
    [lost] = [r for r in records(folder) if r["status"] == "failed"]
    assert f"load engine {lab.endpoint(1099)} stopped answering" in lost["reason"]

    start_engine(lab, 1099)
    resumed = run_testbed("run", "--resume", folder.name, "--results-dir", str(tmp_path), env=lab.env)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr
    statuses = sorted(r["status"] for r in records(folder))
    assert statuses == ["failed"] + ["ok"] * 2


def test_ctrl_c_leaves_no_engine_running_a_test(tmp_path, lab):
    run = start_run(tmp_path, lab)
    try:
        wait_for(lambda: "running a test" in lab.engine("status").stdout, 600, "the engine to run a test")
        run.send_signal(signal.SIGINT)
        output, _ = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130, output
    status = lab.engine("status")
    assert status.returncode == 0 and "idle" in status.stdout, status.stdout
