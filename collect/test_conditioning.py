"""Conditioning a fresh process before its round: real wrk against a real HTTP server that records
the paths it was asked for, and against a port nobody listens on."""
import http.server
import threading
from pathlib import Path

from benchlib.net import free_port
from collect.conditioning import condition, shapes


class Recorded(http.server.BaseHTTPRequestHandler):
    paths: set = set()

    def do_GET(self):
        Recorded.paths.add("/".join(self.path.split("/")[:3]))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


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


def test_every_rest_shape_is_requested_and_an_arm_that_answers_nothing_is_named(tmp_path: Path):
    server = Quiet(("127.0.0.1", free_port()), Recorded)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        failures = condition(Apps({"up": server.server_address[1], "down": free_port()}), ["up", "down"], 1)
    finally:
        server.shutdown()
    assert set(failures) == {"down"} and str(failures["down"]).startswith("down failed while conditioned")
    assert Recorded.paths == {"/rest/comment", "/rest/comments", "/rest/user"}  # every REST endpoint
    assert [s["case"] for s in shapes(("rest", "graphql"))] == [1, 2, 3, 4, 5, 6] * 2
