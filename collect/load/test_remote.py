"""Load from JMeter remote engines, for real, on a client machine in a network namespace (the `lab`
fixture, collect/conftest.py): a smoke run through two engines, `./testbed load` from one, the
engine commands, and the one-line refusals before any load. Network namespaces need root, as CI
has. An engine lost mid-run and Ctrl-C are test_remote_faults.py; the latency profile through
engines test_remote_latency.py (apart, so that pytest-xdist can run them on other workers)."""
import csv
import json
from pathlib import Path

from benchlib.items import EngineLoad
from collect.load import remote
from collect.conftest import SMOKE, needs_root, records, run_testbed, start_engine, the_run

pytestmark = needs_root


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
    assert len(items) == 2
    for record in items:
        assert record["status"] == "ok" and record["loadgen"] == "engines", record
        shares = [e["threads"] for e in record["engines"]]
        assert shares == [5, 5] and sum(shares) == record["load"]["threads"]
        for engine in record["engines"]:
            assert engine["cores"] >= 1 and not engine["saturated"]
            assert engine["cpu_mean_pct"] is None or 0 <= engine["cpu_mean_pct"] <= engine["cpu_peak_pct"]
            # An engine that began more than a second late (the machine busy with the suite's other
            # tests) may hold no sample of smoke's 1 s window: the item says so.
            if engine["late_ms"] > 1000:
                assert "engines_out_of_step" in record["flags"], record
        sending = {e["endpoint"] for e in record["engines"] if e["samples"]}
        assert sending and sending | {e["endpoint"] for e in record["engines"] if e["late_ms"] > 1000} == {
            lab.endpoint(1099), lab.endpoint(1109)}
        where = run / record["framework"] / "rest" / f"case-{record['case']:02d}" / "iter-01"
        with open(where / "results.jtl") as f:
            threads = [row["threadName"] for row in csv.DictReader(f)]
        # One JTL per item, holding both engines' samples (JMeter prefixes each engine's threads).
        assert {t.split("-")[0] for t in threads} >= sending
        assert len(threads) >= sum(e["samples"] for e in record["engines"])
        read = [e for e in record["engines"] if e["cpu_mean_pct"] is not None]
        if read:
            busiest = max(read, key=lambda e: e["cpu_mean_pct"] / e["cores"])
            assert record["results"]["loadgen_cpu_mean_pct"] == busiest["cpu_mean_pct"]
    # An engine's CPU reporter may begin after smoke's 1 s window closed (a CI run: the batch's first
    # item, both engines); not in every item.
    assert any(e["cpu_mean_pct"] for r in items for e in r["engines"])
    # Each engine sent its share of the load.
    assert all(any(e["samples"] for r in items for e in r["engines"] if e["endpoint"] == lab.endpoint(port))
               for port in (1099, 1109))
    report = (run / "report" / "index.html").read_text()
    assert "Load engines" in report and lab.endpoint(1109) in report


def test_an_engine_whose_cpu_reporter_read_nothing_has_an_unknown_cpu_not_zero(tmp_path):
    def report(message):
        jtl = tmp_path / "engine.jtl"
        jtl.write_text(f"timeStamp,success,responseMessage\n1764662000000,true,{message}\n")
        return remote.report_of(jtl)
    read = report("cpu_mean_pct=42.2;cpu_peak_pct=50.0;cores=2;samples=8;late_ms=0")
    assert read == {"cpu_mean_pct": 42.2, "cpu_peak_pct": 50.0, "cores": 2, "late_ms": 0}
    unread = report("cpu_mean_pct=0.0;cpu_peak_pct=0.0;cores=2;samples=0;late_ms=0")
    assert unread == {"cpu_mean_pct": None, "cpu_peak_pct": None, "cores": 2, "late_ms": 0}
    assert remote.busiest([EngineLoad(endpoint="a", threads=10, samples=0, **unread)], {"loadgen_cpu_mean_pct": 3.0}) \
        == (1, {"loadgen_cpu_mean_pct": 3.0})


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
        # Every measured sample of the item's JTL came from the engine (the summary counts those that
        # ended in the scheduled window instead, which the engine's lateness moves: not compared).
        with open(folder / record["item"] / "results.jtl") as f:
            measured = [row for row in csv.DictReader(f) if not row["label"].startswith("warmup ")]
        assert engine["threads"] == 7 and engine["samples"] == len(measured) > 0
        assert record["summary"]["samples"] > 0
        assert engine["cpu_mean_pct"] > 0
    finally:
        run_testbed("down", env=lab.env)
