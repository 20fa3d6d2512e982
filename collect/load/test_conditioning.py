"""Conditioning a fresh process before its round: real wrk against a real HTTP server that records
the paths it was asked for and, as a fresh process does, holds each path's first answers while it
"compiles" it, against a server that never answers and against a port nobody listens on."""
import http.server
import threading
import time
from pathlib import Path

from benchlib.net import free_port
from collect.load.conditioning import condition, shapes


COMPILING_S = 1.2  # longer than the first 1 s window, so a path's first window answers nothing


class Recorded(http.server.BaseHTTPRequestHandler):
    paths: dict = {}  # endpoint: when it was first asked for

    def do_GET(self):
        first = Recorded.paths.setdefault("/".join(self.path.split("/")[:3]), time.monotonic())
        time.sleep(max(0.0, first + COMPILING_S - time.monotonic()))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


class Hung(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(30)


class Quiet(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """wrk closes its connections mid-answer when its time is up."""


class Apps:
    """What conditioning asks of an AppPool: where an arm is reached and which APIs it serves."""
    def __init__(self, ports: dict[str, int]):
        self.ports = ports

    def address(self, name):
        return "127.0.0.1", self.ports[name]

    def served(self, name):
        return ("rest",)


def serving(handler) -> Quiet:
    server = Quiet(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_every_rest_shape_is_answered_by_a_fresh_process_and_an_arm_that_answers_nothing_is_named(tmp_path: Path):
    fresh, hung = serving(Recorded), serving(Hung)
    ports = {"fresh": fresh.server_address[1], "hung": hung.server_address[1], "down": free_port()}
    try:
        failures = condition(Apps(ports), list(ports), 1, patience_s=3)
    finally:
        fresh.shutdown()
        hung.shutdown()
    assert set(failures) == {"hung", "down"}  # the fresh one was driven again until it answered
    assert str(failures["hung"]) == "hung answered no rest request of case 1 in 3 s while conditioned before its round"
    assert str(failures["down"]).startswith("down failed while conditioned")
    assert set(Recorded.paths) == {"/rest/comment", "/rest/comments", "/rest/user"}  # every REST endpoint
    assert [s["case"] for s in shapes(("rest", "graphql"))] == [1, 2, 3, 4, 5, 6] * 2
