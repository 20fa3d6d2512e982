"""Load from JMeter remote engines, for real: a network namespace stands in for a client machine,
joined to this one by a veth pair, with `./testbed engine start` running inside it. Every test
sends traffic only to the two addresses it made, and removes the namespace and the link, pass or
fail. Network namespaces need root, as CI has."""
import csv
import json
import os
import random
import signal
import subprocess
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from collect import arrivals, latency
from collect.conftest import TESTBED, run_testbed

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root (CI runs as root)")

SMOKE = ("run", "--profile", "smoke", "--apis", "rest")
# The smoke runs here measure cases outside 1, 13 and 18, so that no wrk cross-check and no memory
# pass follows their rounds: collect/test_smoke.py checks both passes.


def ip(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


@dataclass
class Lab:
    """A client machine in a namespace: its address, this machine's address on the link, and
    `./testbed` as it runs over there."""
    namespace: str
    link: str
    here: str
    there: str
    env: dict

    def engine(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.namespace, TESTBED, "engine", *args],
                              env=self.env, capture_output=True, text=True, timeout=300)

    def endpoint(self, port: int) -> str:
        return f"{self.there}:{port}"


def unused_subnet() -> int:
    taken = ip("-4", "-o", "addr").stdout + ip("-4", "route").stdout
    return random.choice([n for n in range(10, 250) if f"10.231.{n}." not in taken])


@pytest.fixture
def lab(run_env):
    tag = uuid.uuid4().hex[:6]
    n = unused_subnet()
    lab = Lab(f"tb-{tag}", f"tbh{tag}", f"10.231.{n}.1", f"10.231.{n}.2", run_env)
    try:
        for step in (["netns", "add", lab.namespace],
                     ["link", "add", lab.link, "type", "veth", "peer", "name", f"tbe{tag}"],
                     ["link", "set", f"tbe{tag}", "netns", lab.namespace],
                     ["addr", "add", f"{lab.here}/24", "dev", lab.link],
                     ["link", "set", lab.link, "up"],
                     ["-n", lab.namespace, "addr", "add", f"{lab.there}/24", "dev", f"tbe{tag}"],
                     ["-n", lab.namespace, "link", "set", f"tbe{tag}", "up"],
                     ["-n", lab.namespace, "link", "set", "lo", "up"]):
            made = ip(*step)
            assert made.returncode == 0, (step, made.stderr)
        yield lab
    finally:
        pids = ip("netns", "pids", lab.namespace).stdout.split()
        for pid in pids:  # the engines, whatever state the test left them in
            subprocess.run(["kill", "-9", pid], capture_output=True)
        ip("netns", "del", lab.namespace)
        ip("link", "del", lab.link)


def start_engine(lab: Lab, port: int, *extra) -> None:
    started = lab.engine("start", "--bind", lab.there, "--port", str(port), *extra)
    assert started.returncode == 0, started.stdout + started.stderr


def the_run(results: Path) -> Path:
    [run] = [p for p in results.iterdir() if p.is_dir()]
    return run


def records(run: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(run.glob("*/*/case-*/iter-*/run.json"))]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_smoke_run_through_two_engines_divides_the_threads_and_brings_back_jtls_and_engine_cpu(
        tmp_path, lab):
    start_engine(lab, 1099)
    start_engine(lab, 1109)
    result = run_testbed(*SMOKE, "--cases", "2,4", "--engines", f"{lab.endpoint(1099)},{lab.endpoint(1109)}",
                         "--results-dir", str(tmp_path), env=lab.env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    run = the_run(tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["settings"]["engines"] == [lab.endpoint(1099), lab.endpoint(1109)]
    assert manifest["settings"]["bind_address"] == lab.here  # the apps listened where the engines reach
    for engine in manifest["engines"]:
        assert engine["jmeter"] == "5.6.3" and engine["java"] and engine["cores"] >= 1 and engine["ssl"]
    items = records(run)
    assert len(items) == 4
    for record in items:
        assert record["status"] == "ok" and record["loadgen"] == "engines", record
        shares = [e["threads"] for e in record["engines"]]
        assert shares == [5, 5] and sum(shares) == record["load"]["threads"]
        for engine in record["engines"]:
            assert engine["samples"] > 0 and engine["cores"] >= 1 and not engine["saturated"]
            assert 0 < engine["cpu_mean_pct"] <= engine["cpu_peak_pct"]
        where = run / record["framework"] / "rest" / f"case-{record['case']:02d}" / "iter-01"
        with open(where / "results.jtl") as f:
            threads = [row["threadName"] for row in csv.DictReader(f)]
        # One JTL per item, holding both engines' samples (JMeter prefixes each engine's threads).
        assert {t.split("-")[0] for t in threads} == {lab.endpoint(1099), lab.endpoint(1109)}
        assert len(threads) >= sum(e["samples"] for e in record["engines"])
        busiest = max(record["engines"], key=lambda e: e["cpu_mean_pct"] / e["cores"])
        assert record["results"]["loadgen_cpu_mean_pct"] == busiest["cpu_mean_pct"]
    report = (run / "report" / "index.html").read_text()
    assert "Load engines" in report and lab.endpoint(1109) in report


def start_run(tmp_path: Path, lab: Lab) -> subprocess.Popen:
    """A smoke run of 6 items through the engine on port 1099, in the background."""
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
    assert statuses == ["failed"] + ["ok"] * 5


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


def test_an_unreachable_engine_or_a_missing_keystore_is_one_line_before_any_load(tmp_path, lab):
    (Path(lab.env["TESTBED_HOME"]) / "rmi_keystore.jks").unlink(missing_ok=True)  # as on a fresh controller
    result = run_testbed(*SMOKE, "--cases", "1", "--engines", lab.endpoint(1119), "--results-dir",
                         str(tmp_path), env=lab.env)
    assert result.returncode == 2
    assert result.stderr.startswith("testbed: no RMI keystore at ") and result.stderr.count("\n") == 1
    result = run_testbed(*SMOKE, "--cases", "1", "--engines", lab.endpoint(1119), "--no-ssl",
                         "--results-dir", str(tmp_path), env=lab.env)
    assert result.returncode == 2
    assert result.stderr.strip() == (f"testbed: engine {lab.endpoint(1119)} is not reachable (Connection "
                                     f"refused); start it there with ./testbed engine start --bind "
                                     f"{lab.there} --port 1119")
    assert not any(tmp_path.iterdir())  # no run was created, so nothing is recorded as ok


def test_an_engine_without_ssl_refuses_a_controller_with_ssl_in_one_line(tmp_path, lab):
    start_engine(lab, 1109)  # makes the keystore the controller then uses
    start_engine(lab, 1099, "--no-ssl")
    result = run_testbed(*SMOKE, "--cases", "1", "--engines", lab.endpoint(1099), "--results-dir",
                         str(tmp_path), env=lab.env)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"testbed: engine {lab.endpoint(1099)} refused the test") and "--no-ssl" in line
    assert not any(tmp_path.iterdir())


def test_engine_start_status_and_stop(lab):
    start_engine(lab, 1099)
    again = lab.engine("start", "--bind", lab.there, "--port", "1099")
    assert again.returncode == 2 and "already runs for port 1099" in again.stderr
    status = lab.engine("status")
    assert status.returncode == 0 and f"running on {lab.there}:1099" in status.stdout and "idle" in status.stdout
    assert lab.engine("stop").returncode == 0
    assert lab.engine("status").returncode == 3
    bad = lab.engine("start", "--bind", "10.0.0.999")
    assert bad.returncode == 2 and "--bind takes an IP address" in bad.stderr


def test_load_sends_one_case_from_an_engine_to_an_app_up_on_the_link(tmp_path, lab):
    start_engine(lab, 1099)
    up = run_testbed("up", "--framework", "express", "--bind", lab.here, env=lab.env)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        port = str(3000 + int(lab.env["TESTBED_PORT_OFFSET"]))
        loaded = run_testbed("load", "--framework", "express", "--api", "rest", "--case", "4", "--threads", "7",
                             "--warmup", "1", "--duration", "2", "--port", port, "--engines",
                             lab.endpoint(1099), env={**lab.env, "TESTBED_RESULTS": str(tmp_path)})
        assert loaded.returncode == 0, loaded.stdout + loaded.stderr
        [folder] = (tmp_path / "load").iterdir()
        record = json.loads((folder / "load.json").read_text())
        assert record["host"] == lab.here and record["engines"][0]["endpoint"] == lab.endpoint(1099)
        [engine] = record["load"]["engines"]
        assert engine["threads"] == 7 and engine["samples"] == record["summary"]["samples"] > 0
        assert engine["cpu_mean_pct"] > 0
    finally:
        run_testbed("down", env=lab.env)


def test_the_latency_profile_through_two_engines_sends_each_schedule_as_drawn(tmp_path, lab):
    """Each engine sends every other arrival from half the pool, timed from the measurement's
    shared start: together, the schedule drawn for the measurement, arrival for arrival."""
    start_engine(lab, 1099)
    start_engine(lab, 1109)
    result = run_testbed("run", "--profile", "latency", "--frameworks", "express", "--apis", "rest", "--cases", "1",
                         "--engines", f"{lab.endpoint(1099)},{lab.endpoint(1109)}", "--results-dir", str(tmp_path),
                         env=lab.env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    run = the_run(tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    with open(run / "latency.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 5 * 3  # five rates, three rounds, one framework
    for row in rows:
        assert row["validity"] in ("valid", "bound") and int(row["errors"]) == 0, row
        where = (run / "latency" / "express" / "rest" / "case-01" / f"step-{row['step']}"
                 / f"round-{int(row['round']):02d}")
        measured = json.loads((where / "measurement.json").read_text())
        assert measured["engines"] == [lab.endpoint(1099), lab.endpoint(1109)]
        with open(where / "results.jtl", newline="") as f:
            samples = list(csv.DictReader(f))
        assert {s["threadName"].split("-")[0] for s in samples} == {lab.endpoint(1099), lab.endpoint(1109)}
        t0 = measured["window_ms"][0] - latency.WARMUP_S * 1000
        drawn = [t for t in arrivals.offsets(float(row["target_rps"]), (latency.WARMUP_S + latency.WINDOW_S) * 1000,
                                             measured["schedule_seed"])
                 if latency.WARMUP_S * 1000 <= t < (latency.WARMUP_S + latency.WINDOW_S) * 1000]
        sent = sorted(int(s["intended_ms"]) - t0 for s in samples)
        # Every arrival sent was drawn (none twice, none invented); a dropped one was not sent in time.
        assert int(row["scheduled"]) == len(drawn) and not Counter(sent) - Counter(drawn), row
        assert len(sent) == len(drawn) - int(row["dropped"])
    assert manifest["latency"]["cells"][0]["rates"] and "Latency at a given rate" in (
        run / "report" / "report.md").read_text()
