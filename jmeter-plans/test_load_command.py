"""`./testbed load` and the parametrized plans, run for real."""
import json
import os
import re
import shutil
import subprocess
import zipfile

import pandas as pd
import pytest

from benchlib.console import UserError
from benchlib.database import database
from benchlib.jmeter import find_jmeter, plan_command
from benchlib.jtl import measured as jtl_measured, summarize as summarize_jtl
from benchlib.net import free_port
from benchlib.paths import IDS, ROOT
from benchlib.processes import listener
from collect.run import runs
from collect.run import single_load as load


STATISTICS = ("samples", "errors", "mean_ms", "min_ms", "max_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms")


def run_load(*args, results):
    env = {**os.environ, "TESTBED_RESULTS": str(results)}
    return subprocess.run([str(ROOT / "testbed"), "load", *args], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("args, message", [
    (["--framework", "nope", "--api", "rest", "--case", "1"], "no framework named 'nope'"),
    # ./testbed run's words for an unknown API or case (collect/run/preflight.py check_options)
    (["--framework", "{f}", "--api", "soap", "--case", "1"], "unknown API soap; choose from rest, graphql."),
    (["--framework", "{f}", "--api", "rest", "--case", "19"], "no case 19; cases are 1-18."),
    (["--framework", "{f}", "--api", "rest", "--case", "1", "--threads", "0"], "--threads must be at least 1"),
    (["--framework", "{f}", "--api", "rest", "--case", "1", "--warmup", "2", "--rampup", "3"], "--rampup must be"),
    (["--framework", "{f}", "--api", "rest", "--case", "1", "--port", "70000"], "--port must be"),
    (["--framework", "{f}", "--api", "rest", "--case", "1", "--port", "{closed}"], "is not answering"),
])
def test_bad_input_is_one_clear_line_and_runs_nothing(tmp_path, implementations, args, message):
    name = sorted(implementations)[0]
    args = [a.format(f=name, closed=free_port()) for a in args]
    result = run_load(*args, results=tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "load").exists()


def test_load_prints_one_summary_keeps_the_jtl_and_writes_the_dashboard(tmp_path, implementations):
    name = sorted(implementations)[0]
    result = run_load("--framework", name, "--api", "rest", "--case", "5", "--threads", "2", "--warmup", "3",
                      "--duration", "2", "--port", str(implementations[name]), "--dashboard", results=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"\d+ requests, 0 errors \(0\.00%\), [\d.]+ req/s, mean [\d.]+ ms, "
                        r"p95 [\d.]+ ms, max \d+ ms -> .*/", lines[1]), lines
    [folder] = (tmp_path / "load").iterdir()
    assert re.fullmatch(rf"\d{{8}}-\d{{6}}-{name}-rest-case-05", folder.name)
    record = json.loads((folder / "load.json").read_text())
    assert record["rows"] == 50 and record["joins"] == 1 and record["load"]["threads"] == 2
    # The folder is a run of one item, measured and checked as ./testbed run measures its items.
    assert record["item"] == f"{name}/rest/case-05/iter-01" and record["status"] == "ok"
    item = json.loads((folder / record["item"] / "run.json").read_text())
    assert item["load"]["threads"] == 2 and item["checks"] == record["checks"]
    assert item["results"]["loadgen_cpu_mean_pct"] > 0, "the samplers did not watch JMeter"
    # The app and the database, started by something else, are sampled where they listen here, so
    # the load generator's headroom is judged against the server's CPU per request.
    assert item["pids"]["app"] == listener(implementations[name]) and item["results"]["cpu_mean_pct"] > 0
    assert item["pids"]["db"] == listener(database().port) and item["checks"]["db_cpu_ms_per_req"] is not None
    assert item["checks"]["app_cpu_ms_per_req"] > 0
    assert json.loads((folder / "manifest.json").read_text())["order"] == [record["item"]]
    jtl_path = folder / record["item"] / "results.jtl"
    jtl = pd.read_csv(jtl_path, dtype=str)
    assert set(jtl["label"].str.removeprefix("warmup ")) == {"GET /rest/user/{id}/comments/50"}
    assert (jtl["label"].str.startswith("warmup ")).any(), "the warm-up left no labelled samples"
    window = summarize_jtl(jtl_path, tuple(item["window"]["measured_ms"]))
    assert record["summary"] == {k: window[k] for k in record["summary"]}
    assert 0 < window["in_flight_mean"] <= 2
    # The dashboard draws the requests the summary line counts, those that completed in the window,
    # wherever they started, and on them our statistics agree with JMeter's own. Its throughput is
    # theirs over their first start to their last end, as summarize reads a JTL without a window.
    drawn = summarize_jtl(folder / "dashboard.jtl")
    assert {k: drawn[k] for k in STATISTICS} == {k: window[k] for k in STATISTICS}
    theirs = json.loads((folder / "dashboard" / "statistics.json").read_text())["Total"]
    assert drawn["samples"] == theirs["sampleCount"] and drawn["errors"] == theirs["errorCount"]
    for key, their_key in [("mean_ms", "meanResTime"), ("min_ms", "minResTime"), ("max_ms", "maxResTime"),
                           ("p50_ms", "medianResTime"), ("p90_ms", "pct1ResTime"), ("p95_ms", "pct2ResTime"),
                           ("p99_ms", "pct3ResTime"), ("throughput_rps", "throughput")]:
        assert drawn[key] == pytest.approx(theirs[their_key], abs=0.01), key
    # Little's law: requests in flight = throughput x response time. Ours counts each request's time
    # inside the window: JMeter's samples' time (count x mean) less what of it fell before the window,
    # plus the time the requests still in flight at its end spent inside it.
    typed = jtl.astype({"timeStamp": int, "elapsed": int})
    w0, w1 = item["window"]["measured_ms"]
    start, end = typed["timeStamp"], typed["timeStamp"] + typed["elapsed"]
    counted = (end >= w0) & (end <= w1)
    before = float((w0 - start[counted]).clip(lower=0).sum())
    after = float((w1 - start[(end > w1) & (start < w1)].clip(lower=w0)).sum())
    busy = theirs["sampleCount"] * theirs["meanResTime"] - before + after
    assert window["in_flight_mean"] == pytest.approx(busy / (w1 - w0), abs=0.01)


def test_a_server_slower_than_the_window_still_gets_its_dashboard(tmp_path, launcher):
    """Seen in CI: two threads, 2.6 s a request, a 2 s window. Both requests it counted started in
    the warm-up, so JMeter, left to the labels, had nothing to draw and failed."""
    jtl_path = tmp_path / "results.jtl"
    jtl_path.write_text(
        "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,"
        "bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n" + "".join(
            f"{start},{elapsed},warmup GET /rest/user/{{id}}/comments/50,200,OK,Thread Group 1-{thread},text,true,,"
            f"9000,150,2,2,http://127.0.0.1:5000/rest/user/7/comments/50,{elapsed - 1},0,0\n"
            for start, elapsed, thread in ((9_400, 2_500, 1), (9_500, 2_450, 2), (11_900, 2_612, 1),
                                           (11_950, 2_633, 2))))
    load.write_dashboard(jtl_path, (12_000, 15_000), tmp_path, launcher)
    theirs = json.loads((tmp_path / "dashboard" / "statistics.json").read_text())
    assert theirs["Total"]["sampleCount"] == 2 and theirs["Total"]["meanResTime"] == pytest.approx(2622.5)
    assert set(theirs) == {"Total", "GET /rest/user/{id}/comments/50"}


def test_runs_never_overwrite_each_other(tmp_path):
    """Two loads of the same case started in the same second: the second numbered on."""
    new = load.new_run(load.LoadRequest(framework="x", api="rest", case=1), tmp_path, lambda run_id: {"run_id": run_id})
    (first, _), (second, manifest) = runs.claim(tmp_path, new), runs.claim(tmp_path, new)
    assert second == first.with_name(f"{first.name}-2") and first.is_dir() and second.is_dir()
    assert json.loads((second / "manifest.json").read_text()) == manifest == {"run_id": second.name}


def test_the_parametrized_plan_picks_the_endpoint_and_counts_a_closed_port_as_errors(tmp_path, launcher):
    jtl = tmp_path / "closed.jtl"
    cmd = plan_command("graphql", 3, "127.0.0.1", free_port(), 2, 0, 0, 1, jtl, IDS, tmp_path / "jmeter.log",
                       jmeter=launcher)
    assert subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    summary = summarize_jtl(jtl)
    assert summary["samples"] > 0 and summary["errors"] == summary["samples"]
    labels = set(pd.read_csv(jtl, dtype=str)["label"])
    assert "POST /graphql CommentsByLimit 100" in labels
    assert labels <= {"POST /graphql CommentsByLimit 100", "warmup POST /graphql CommentsByLimit 100"}


def test_missing_java_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(UserError, match="^java not found: JMeter needs Java"):
        find_jmeter()


def test_a_jmeter_home_without_a_launcher_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("JMETER_HOME", str(tmp_path))
    with pytest.raises(UserError, match="has no bin/jmeter"):
        find_jmeter()


def test_an_old_jmeter_on_path_is_refused(monkeypatch, tmp_path):
    """Debian's jmeter is 2.13; its launcher sits beside an ApacheJMeter.jar that says so."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jmeter").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "jmeter").chmod(0o755)
    with zipfile.ZipFile(bin_dir / "ApacheJMeter.jar", "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nImplementation-Version: 2.13\n")
    (bin_dir / "java").symlink_to(shutil.which("java"))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("JMETER_HOME", raising=False)
    with pytest.raises(UserError, match="is JMeter 2.13, but the plans need JMeter 5.x"):
        find_jmeter()


def test_the_download_is_checked_before_it_is_unpacked(monkeypatch, tmp_path):
    """The real archive is out of reach here (no route to apache.org): serve a small one locally."""
    import hashlib
    import tarfile
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from benchlib import jmeter
    served = tmp_path / "served"
    (served / f"apache-jmeter-{jmeter.VERSION}" / "bin").mkdir(parents=True)
    (served / f"apache-jmeter-{jmeter.VERSION}" / "bin" / "jmeter").write_text("#!/bin/sh\n")
    with tarfile.open(served / "a.tgz", "w:gz") as tar:
        tar.add(served / f"apache-jmeter-{jmeter.VERSION}", f"apache-jmeter-{jmeter.VERSION}")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(SimpleHTTPRequestHandler, directory=str(served)))
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(jmeter, "ARCHIVE_URL", f"http://127.0.0.1:{server.server_address[1]}/a.tgz")
        monkeypatch.setattr(jmeter, "DOWNLOADED", tmp_path / "tools" / f"apache-jmeter-{jmeter.VERSION}")
        with pytest.raises(UserError, match="does not match Apache's SHA-512"):
            jmeter.download()
        assert not jmeter.DOWNLOADED.exists() and not list(jmeter.DOWNLOADED.parent.glob("*.tgz"))
        monkeypatch.setattr(jmeter, "ARCHIVE_SHA512", hashlib.sha512((served / "a.tgz").read_bytes()).hexdigest())
        assert jmeter.download() == jmeter.DOWNLOADED
        assert (jmeter.DOWNLOADED / "bin" / "jmeter").is_file()
        assert [p.name for p in jmeter.DOWNLOADED.parent.iterdir()] == [jmeter.DOWNLOADED.name]
    finally:
        server.shutdown()
        server.server_close()


def test_warm_up_ends_at_one_instant_by_start_time(tmp_path, launcher, implementations):
    """A sample's phase is fixed as its thread's iteration starts, a moment before the request
    goes out: so a thread's last warm-up request may go out just after another thread's first
    measured one (seen in CI: 3 ms), but never more than one per thread, whatever its duration."""
    name = sorted(implementations)[0]
    jtl = tmp_path / "phases.jtl"
    cmd = plan_command("rest", 6, "127.0.0.1", implementations[name], 4, 1, 2, 2, jtl, IDS,
                       tmp_path / "jmeter.log", jmeter=launcher)
    assert subprocess.run(cmd, capture_output=True, timeout=120).returncode == 0
    rows = pd.read_csv(jtl)
    measured = jtl_measured(rows)
    warm = rows.drop(measured.index)
    assert len(warm) and len(measured)
    straddling = warm[warm["timeStamp"] > measured["timeStamp"].min()]
    assert straddling["threadName"].is_unique, straddling
    assert not (measured.groupby("threadName")["timeStamp"].min()
                < warm.groupby("threadName")["timeStamp"].max()).any()
