"""`./testbed run` when things go wrong, with the real apps, JMeter and database: a crashing app,
Ctrl-C and resume, the database going down, and the checks made before anything starts.

Runs use a private database server (the `isolated_testbed` fixture), so stopping it disturbs no
one and no one else's stop disturbs them, and the apps listen on their default ports shifted by
TESTBED_PORT_OFFSET, so they never meet an app someone else started."""
import csv
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from cli.common import ROOT
from cli.test import SHARED_JMETER

TESTBED = str(ROOT / "testbed")
SMALL = ["--profile", "smoke", "--frameworks", "express", "--apis", "rest"]


def free_offset() -> str:
    """A port offset at which every app's port is free."""
    for offset in range(21000, 30000, 137):
        if all(_free(port + offset) for port in (3000, 5000)):
            return str(offset)
    raise RuntimeError("no free port offset")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


@pytest.fixture
def env(isolated_testbed):
    """A seeded env database, free ports for the apps, and JMeter."""
    base = isolated_testbed.env(TESTBED_PORT_OFFSET=free_offset())
    if not base.get("JMETER_HOME") and SHARED_JMETER.exists():
        base["JMETER_HOME"] = str(SHARED_JMETER)
    assert run_testbed("db", "start", env=base).returncode == 0
    seeded = run_testbed("seed", env=base)
    assert seeded.returncode == 0, seeded.stderr
    return base


def run_testbed(*args, env, **kwargs):
    return subprocess.run([TESTBED, *args], env=env, capture_output=True, text=True, timeout=600,
                          **kwargs)


def start(*args, env):
    return subprocess.Popen([TESTBED, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def the_run(results: Path) -> Path:
    runs = [p for p in results.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def wait_for_load(results: Path, proc, timeout=300) -> dict:
    """The run.json of the first item whose JMeter is running (its pids are recorded then)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read()
        for path in results.glob("*/*/*/case-*/iter-*/run.json"):
            try:
                record = json.loads(path.read_text())
            except ValueError:
                continue
            if record["status"] == "running" and record["pids"].get("jmeter"):
                return {**record, "path": path}
        time.sleep(0.1)
    raise AssertionError("no item reached its measured window")


def summary(run: Path) -> list[dict]:
    with open(run / "summary.csv") as f:
        return list(csv.DictReader(f))


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_an_app_that_crashes_fails_its_case_and_the_matrix_goes_on(tmp_path, env):
    proc = start("run", *SMALL, "--cases", "1,2", "--results-dir", str(tmp_path), env=env)
    victim = wait_for_load(tmp_path, proc)
    os.kill(victim["pids"]["app"], signal.SIGKILL)
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    run = the_run(tmp_path)
    failed = json.loads(victim["path"].read_text())
    assert failed["status"] == "failed"
    assert "exited with code" in failed["reason"] and "log_tail" in failed
    assert (victim["path"].parent / "app.log").exists()
    rows = summary(run)
    assert sorted(r["status"] for r in rows) == ["failed", "ok"]
    other = next(r for r in rows if r["status"] == "ok")
    other_record = json.loads((run / "express" / "rest" / f"case-{int(other['case']):02d}" /
                               "iter-01" / "run.json").read_text())
    assert other_record["pids"]["app"] != victim["pids"]["app"]  # a fresh app
    assert "failed: express/rest/case-" in out


def test_ctrl_c_leaves_a_resumable_run_and_resume_redoes_the_cut_case(tmp_path, env):
    proc = start("run", *SMALL, "--cases", "1,4", "--results-dir", str(tmp_path), env=env)
    cut = wait_for_load(tmp_path, proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    run = the_run(tmp_path)
    assert json.loads((run / "state.json").read_text())["status"] == "interrupted"
    assert f"--resume {run.name}" in out
    assert not any(alive(pid) for pid in cut["pids"].values() if pid != cut["pids"]["db"])
    assert not cut["path"].exists()  # moved aside, kept
    kept = list((run / "interrupted").rglob("run.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["status"] == "running"

    again = run_testbed("run", "--resume", run.name, "--profile", "quick", "--results-dir",
                    str(tmp_path), env=env)
    assert again.returncode == 2 and "drop --profile" in again.stderr

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    rows = summary(run)
    assert sorted((r["case"], r["status"]) for r in rows) == [("1", "ok"), ("4", "ok")]
    assert json.loads((run / "state.json").read_text())["status"] == "complete"
    assert len(list((run / "interrupted").rglob("run.json"))) == 1
    done = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=env)
    assert done.returncode == 2 and "already complete" in done.stderr


def test_the_database_going_down_stops_the_run_which_resumes_later(tmp_path, env):
    proc = start("run", *SMALL, "--cases", "1,2", "--results-dir", str(tmp_path), env=env)
    try:
        wait_for_load(tmp_path, proc)
        stopped = run_testbed("db", "stop", env=env)
        assert stopped.returncode == 0, stopped.stderr
        out, _ = proc.communicate(timeout=300)
    finally:
        started = run_testbed("db", "start", env=env)
    assert started.returncode == 0, started.stderr
    assert proc.returncode == 3, out
    assert "database" in out and "--resume" in out
    run = the_run(tmp_path)
    state = json.loads((run / "state.json").read_text())
    assert state["status"] == "stopped" and "database" in state["reason"]
    assert all(r["status"] == "ok" for r in (summary(run) if (run / "summary.csv").exists() else []))

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert sorted(r["case"] for r in summary(run)) == ["1", "2"]
    assert all(r["status"] == "ok" for r in summary(run))


def test_an_unwritable_results_folder_is_refused_before_anything_starts(tmp_path, env):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_testbed("run", *SMALL, "--results-dir", str(blocker / "results"), env=env)
    assert result.returncode == 2
    assert result.stderr.startswith("testbed: cannot write results under") and \
        len(result.stderr.strip().splitlines()) <= 2
    assert result.stdout == ""  # no set-up, no build, no run


def test_missing_jmeter_is_refused_before_anything_starts(tmp_path, env):
    result = run_testbed("run", *SMALL, "--results-dir", str(tmp_path),
                     env={**env, "JMETER_HOME": str(tmp_path / "nowhere")})
    assert result.returncode == 2
    assert "JMETER_HOME" in result.stderr and len(result.stderr.strip().splitlines()) <= 2
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_bad_options_are_refused(tmp_path, env):
    for args, text in [(["--cases", "19"], "no case 19"), (["--apis", "soap"], "unknown API"),
                       (["--frameworks", "rails"], "unknown framework"),
                       (["--resume", "nope"], "no run nope")]:
        result = run_testbed("run", *args, "--results-dir", str(tmp_path), env=env)
        assert result.returncode == 2 and text in result.stderr, (args, result.stderr)
