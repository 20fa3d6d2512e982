"""wrk as the measuring load generator, against the real Express app and database: a batch writes
what JMeter's would (a window per measurement, a JTL row per request, a log naming each
measurement), every connection is its own, and a wrong status or body is a failed request."""
import json
import subprocess
import sys
import time

import pytest

from benchlib import apps
from benchlib.builds import build
from benchlib.cases import cases
from benchlib.items import Item
from benchlib.jtl import summarize
from benchlib.net import free_port
from benchlib.paths import IDS, ROOT
from benchlib.processes import stop_group
from collect.load import batch as batches
from collect.load.batch import Batch, Measurement
from collect.items.profiles import Profile

# Little's law within 10 % holds only when no other test competes for the cores.
pytestmark = pytest.mark.alone

SHORT = Profile("test", "short windows", rounds=1, rampup_s=0.3, warmup_s=0.5, duration_s=1.0,
                thread_cap=None, restart="run", warmup_cap_s=1.0)


@pytest.fixture(scope="module")
def express(tmp_path_factory, forum):
    framework = apps.find_framework("express")
    build(framework)
    log = tmp_path_factory.mktemp("express") / "app.log"
    port = free_port()
    proc = apps.start_app(framework, port, log)
    try:
        apps.wait_ready(framework, port, proc, log, 120)
        yield port
    finally:
        stop_group(proc)


def item(case: int, connections: int) -> Item:
    shape = cases()[case]
    return Item(framework="express", api="rest", case=case, requests=connections, rows=shape["rows"],
                joins=shape["joins"], round=1)


def test_a_wrk_batch_measures_each_measurement_in_its_own_window_with_a_row_per_request(express, tmp_path):
    here = "127.0.0.1"
    batch = Batch(tmp_path, [Measurement(item(1, 20), here, express), Measurement(item(3, 30), here, express),
                             Measurement(item(1, 20), here, express, ceiling=True)], time.time(), loadgen="wrk")
    try:
        batches.start(batch, SHORT, "unused", {}, None)
        assert batch.process.wait(timeout=120) == 0
    finally:
        batch.stop()
    assert batch.groups_started() == 3 and (tmp_path / "wrk.log").exists()
    for index, connections in enumerate((20, 30, 20)):
        w0, w1 = batch.window_ms(index)
        assert w1 - w0 == 1000 and batch.warmup_taken_s(index) >= 0.5
        s = summarize(batch.jtl(index), (w0, w1))
        # Every connection is a wrk thread of its own, kept busy: all completed requests, and
        # Little's law holds as it only can when the generator adds next to nothing per request.
        assert s["samples"] > 0 and s["errors"] == 0, s
        assert s["completed_threads"] == connections and abs(s["in_flight_mean"] - connections) <= 0.1 * connections
        assert abs(s["throughput_rps"] * s["mean_ms"] / 1000 / connections - 1) < 0.1
    labels = {line.split(",")[2] for line in batch.jtl(1).read_text().splitlines()[1:]}
    assert labels == {"GET /rest/comments/100"}
    assert {line.split(",")[3] for line in batch.jtl(2).read_text().splitlines()[1:]} <= {"404", "-"}


def test_a_wrong_status_or_body_fails_the_request_with_why(express, tmp_path):
    """The same checks as JMeter's assertions, on wrk_measure.lua's own: here the comment-by-id
    check sees a list, and a 404 is expected of a path that answers 200."""
    def measurement(n, check, status):
        return {"label": f"wrong {n}", "url": f"http://127.0.0.1:{express}", "connections": 5, "longest_s": 3,
                "window": str(tmp_path / f"m{n}.window"), "jtl": str(tmp_path / f"m{n}.jtl"),
                "env": {"WRK_IDS": str(IDS / "comment_ids.csv"), "WRK_METHOD": "GET", "WRK_PATH": "/rest/comments/5",
                        "WRK_BODY": "-", "WRK_API": "rest", "WRK_CHECK": check, "WRK_ROWS": "5",
                        "WRK_STATUS": status, "WRK_LABEL": "wrong", "WRK_CONNECTIONS": "5", "WRK_RAMPUP_MS": "0",
                        "WRK_WARMUP_MS": "300", "WRK_WARMUP_CAP_MS": "300", "WRK_DURATION_MS": "500",
                        "WRK_WINDOW": str(tmp_path / f"m{n}.window"), "WRK_JTL": str(tmp_path / f"m{n}.jtl")}}
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"log": str(tmp_path / "wrk.log"), "measurements": [
        measurement(1, "comment", "200"), measurement(2, "comments", "404"), measurement(3, "comments", "200")]}))
    done = subprocess.run([sys.executable, "-m", "collect.load.wrk_batch", str(plan)], cwd=ROOT, timeout=120,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for n, failure in ((1, "body: not comment "), (2, "status 200 (expected 404)"), (3, None)):
        rows = [line.split(",") for line in (tmp_path / f"m{n}.jtl").read_text().splitlines()[1:]]
        answered = [r for r in rows if r[3] != "-"]  # not the requests still in flight at the stop
        assert answered
        if failure:
            assert all(r[4] == "false" and r[5].startswith(failure) for r in answered), (n, answered[:3])
        else:
            assert all(r[4] == "true" for r in answered)
