"""`./testbed run` when things go wrong, with the real apps, JMeter and database: a crashing app,
Ctrl-C and resume, the database going down, and the checks made before anything starts.

Every run has a private database and free ports (the run_env fixture, collect/conftest.py). The
runs measure with wrk (--loadgen wrk: the reference work then measures no JMeter) and, but for the
test of the passes after the rounds, on cases outside the cross-check's and memory pass's 1, 13 and
18, so that no JMeter and no pass runs where the test does not look at it: the smoke run
(collect/run/test_smoke.py) checks the reference work's JMeter and both passes."""
import csv
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from benchlib.processes import alive
from collect.conftest import TESTBED, run_testbed

SMALL = ["--profile", "smoke", "--frameworks", "express", "--apis", "rest", "--loadgen", "wrk"]


def start(*args, env):
    return subprocess.Popen([TESTBED, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def the_run(results: Path) -> Path:
    runs = [p for p in results.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def wait_for_load(results: Path, proc, timeout=300, position=1) -> dict:
    """The run.json of the first item under load (its pids are recorded then) that is at least
    `position` in its batch."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stdout.read()
        for path in results.glob("*/*/*/case-*/iter-*/run.json"):
            try:
                record = json.loads(path.read_text())
            except ValueError:
                continue
            if record["status"] == "running" and record["pids"].get("loadgen") \
                    and record["batch"]["position"] >= position:
                return {**record, "path": path}
        time.sleep(0.1)
    raise AssertionError("no item reached its measured window")


def summary(run: Path) -> list[dict]:
    with open(run / "summary.csv") as f:
        return list(csv.DictReader(f))


def test_an_app_that_crashes_fails_its_case_and_the_matrix_goes_on(tmp_path, run_env):
    proc = start("run", *SMALL, "--cases", "2,3", "--results-dir", str(tmp_path), env=run_env)
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


def test_ctrl_c_leaves_a_resumable_run_and_resume_redoes_the_cut_case(tmp_path, run_env):
    proc = start("run", *SMALL, "--cases", "2,4", "--results-dir", str(tmp_path), env=run_env)
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
                        str(tmp_path), env=run_env)
    assert again.returncode == 2 and "drop --profile" in again.stderr

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    rows = summary(run)
    assert sorted((r["case"], r["status"]) for r in rows) == [("2", "ok"), ("4", "ok")]
    assert json.loads((run / "state.json").read_text())["status"] == "complete"
    assert len(list((run / "interrupted").rglob("run.json"))) == 1
    done = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    assert done.returncode == 2 and "already complete" in done.stderr


def test_ctrl_c_in_the_middle_of_a_round_keeps_what_finished_and_resume_completes_it_in_order(tmp_path, run_env):
    proc = start("run", *SMALL, "--cases", "2-5", "--iterations", "2", "--results-dir", str(tmp_path),
                 env=run_env)
    wait_for_load(tmp_path, proc, position=3)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    run = the_run(tmp_path)
    order = json.loads((run / "manifest.json").read_text())["order"]
    [kept] = (run / "interrupted").rglob("run.json")
    cut = order.index(kept.parent.relative_to(run / "interrupted").as_posix().rsplit("-attempt-", 1)[0])
    assert 2 <= cut < 4  # in round 1's batch, after at least two of its items
    assert [r["status"] for r in summary(run)] == ["ok"] * cut  # those before it, kept
    assert not any((run / key).exists() for key in order[cut:])

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    records = [json.loads((run / key / "run.json").read_text()) for key in order]
    assert [r["status"] for r in records] == ["ok"] * 8
    # Measured in the recorded order: the cut batch, a batch for the rest of round 1, then round 2.
    where = [(r["batch"]["folder"], r["batch"]["position"]) for r in records]
    assert where == sorted(where)
    assert [f for f, _ in where] == ["batches/001"] * cut + ["batches/002"] * (4 - cut) + ["batches/003"] * 4
    assert len(list((run / "interrupted").rglob("run.json"))) == 1


def wait_for_path(root: Path, pattern: str, proc, timeout=300) -> Path:
    """The first path under `root` matching `pattern`, once the run has made it."""
    deadline = time.monotonic() + timeout
    while not (found := list(root.glob(pattern))):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read() if proc.poll() else pattern
        time.sleep(0.05)
    return found[0]


def test_ctrl_c_during_the_ceiling_or_the_passes_after_the_rounds_resumes_what_is_missing(tmp_path, run_env):
    proc = start("run", *SMALL, "--cases", "1,13", "--results-dir", str(tmp_path), env=run_env)
    wait_for_path(tmp_path, "*/ceiling/001/plan.json", proc)  # wrk's first attempt at its ceiling
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    run = the_run(tmp_path)
    assert (run / "reference.json").exists()  # measured whole before the ceiling, and kept
    assert not (run / "ceiling.csv").exists() and not (run / "summary.csv").exists()

    proc = start("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    wait_for_path(run, "crosscheck.csv", proc)  # the rounds are done; the cross-check's batch is written
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert (run / "ceiling" / "001").is_dir() and (run / "ceiling" / "002").is_dir()  # the cut one kept

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    with open(run / "ceiling.csv") as f:
        ceilings = list(csv.DictReader(f))
    assert {r["threads"] for r in ceilings} == {"10"}
    # The cut attempt left no row: every attempt recorded ran to its end, numbered from 1.
    for loadgen, when in {(r["loadgen"], r["when"]) for r in ceilings}:
        attempts = [int(r["attempt"]) for r in ceilings if (r["loadgen"], r["when"]) == (loadgen, when)]
        assert attempts == list(range(1, len(attempts) + 1)), (loadgen, when, attempts)
    for name, rows in (("crosscheck.csv", 2), ("memory.csv", 2)):
        with open(run / name) as f:
            assert len(list(csv.DictReader(f))) == rows, name
    assert [r["status"] for r in summary(run)] == ["ok", "ok"]


def test_the_database_going_down_stops_the_run_which_resumes_later(tmp_path, run_env):
    # Enough cases that the round's wrk batch is still measuring when the database stops.
    proc = start("run", *SMALL, "--cases", "2-10", "--results-dir", str(tmp_path), env=run_env)
    try:
        wait_for_load(tmp_path, proc)
        stopped = run_testbed("db", "stop", env=run_env)
        assert stopped.returncode == 0, stopped.stderr
        out, _ = proc.communicate(timeout=300)
    finally:
        started = run_testbed("db", "start", env=run_env)
    assert started.returncode == 0, started.stderr
    assert proc.returncode == 3, out
    assert "database" in out and "--resume" in out
    run = the_run(tmp_path)
    state = json.loads((run / "state.json").read_text())
    assert state["status"] == "stopped" and "database" in state["reason"]
    # What the run recorded before it stopped is what it finished well: the cut item is set
    # aside, not recorded as a failure, so summary rows and finished items are the same set.
    rows = summary(run) if (run / "summary.csv").exists() else []
    assert len(rows) == state["done"] < 9, (rows, state)
    assert all(r["status"] == "ok" for r in rows), rows
    assert len(list(run.glob("express/rest/case-*/iter-01/run.json"))) == len(rows)

    resumed = run_testbed("run", "--resume", run.name, "--results-dir", str(tmp_path), env=run_env)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert sorted(int(r["case"]) for r in summary(run)) == list(range(2, 11))
    assert all(r["status"] == "ok" for r in summary(run)), summary(run)


def test_an_unwritable_results_folder_is_refused_before_anything_starts(tmp_path, run_env):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_testbed("run", *SMALL, "--results-dir", str(blocker / "results"), env=run_env)
    assert result.returncode == 2
    assert result.stderr.startswith("testbed: cannot write results under") and \
        len(result.stderr.strip().splitlines()) <= 2
    assert result.stdout == ""  # no set-up, no build, no run


def test_missing_jmeter_is_refused_before_anything_starts(tmp_path, run_env):
    result = run_testbed("run", *SMALL, "--results-dir", str(tmp_path),
                         env={**run_env, "JMETER_HOME": str(tmp_path / "nowhere")})
    assert result.returncode == 2
    assert "JMETER_HOME" in result.stderr and len(result.stderr.strip().splitlines()) <= 2
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_bad_options_are_refused(tmp_path, run_env):
    for args, text in [(["--cases", "19"], "no case 19"), (["--apis", "soap"], "unknown API"),
                       (["--frameworks", "rails"], "no framework named"),
                       (["--resume", "nope"], "no run nope"),
                       (["--variants", "express:nope"], "express has no variant 'nope'; known: default"),
                       (["--variants", "express", "--frameworks", "express"], "not both"),
                       (["--variants", "express,express:default"], "named twice"),
                       (["--memory-rounds", "0"], "give 1 or more"),
                       (["--profile", "study", "--memory-rounds", "9"], "the study profile has no memory pass"),
                       (["--aa", "express", "--frameworks", "aspnet"], "drop --frameworks and --variants"),
                       (["--aa", "rails"], "no framework named 'rails'"),
                       (["--profile", "study", "--restart", "round"], "drop --restart")]:
        result = run_testbed("run", *args, "--results-dir", str(tmp_path), env=run_env)
        assert result.returncode == 2 and text in result.stderr, (args, result.stderr)
