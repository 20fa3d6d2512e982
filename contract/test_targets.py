"""Which app verify talks to: the one `./testbed up` serves, on its port shifted by
TESTBED_PORT_OFFSET, never another testbed's on the unshifted port. Real processes on real ports."""
import json
import subprocess
import sys

import pytest

from benchlib.apps import read_framework, wait_ready
from benchlib.net import free_port
from benchlib.processes import stop_group
from contract import targets

# A stand-in app: 200 on every path.
APP = """
import http.server, os
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(os.environ["APP_PORT"])), Handler).serve_forever()
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A framework on a free default port, and an offset that moves it to another free port."""
    monkeypatch.setattr(targets, "LOGS", tmp_path / "logs")
    default, shifted = free_port(), free_port()
    monkeypatch.setenv("TESTBED_PORT_OFFSET", str(shifted - default))
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "framework.json").write_text(json.dumps({
        "schema": 1, "name": "toy", "type": "realistic", "maintainers": ["contract/test_targets.py"],
        "build": "true", "start": [sys.executable, "app.py"],
        "port_env": "APP_PORT", "default_port": default, "readiness_path": "/healthz"}))
    started = []

    def serve(port):
        proc = subprocess.Popen([sys.executable, "app.py"], cwd=tmp_path, start_new_session=True,
                                env={"APP_PORT": str(port)})
        started.append(proc)
        return proc

    framework = read_framework(tmp_path / "framework.json")
    yield framework, default, shifted, serve
    for proc in started:
        stop_group(proc)


def test_verify_uses_the_app_up_started_on_the_shifted_port(toy):
    framework, default, shifted, serve = toy
    wait_ready(framework, shifted, serve(shifted), timeout=30)
    target = targets.acquire(framework)
    try:
        assert target.url == f"http://127.0.0.1:{shifted}" and target.proc is None
    finally:
        target.release()


def test_another_testbed_s_app_on_the_unshifted_port_is_left_alone(toy):
    framework, default, shifted, serve = toy
    wait_ready(framework, default, serve(default), timeout=30)
    target = targets.acquire(framework)
    try:
        assert target.url == f"http://127.0.0.1:{shifted}" and target.proc is not None
    finally:
        target.release()
