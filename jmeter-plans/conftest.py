"""What the JMeter tests share: the JMeter launcher, the implementations (started here, each on a
free port, from its framework.json), and a fake server that answers right or breaks the contract."""
import json
import re
import sys
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest

from benchlib import apps, jmeter
from benchlib.builds import build
from benchlib.console import UserError
from benchlib.net import free_port
from benchlib.paths import LOGS
from benchlib.processes import stop_group

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def launcher():
    return jmeter.find_jmeter()


@contextmanager
def started(framework):
    """One implementation (built if its sources changed), on a free port, until the block ends."""
    build(framework)
    port = free_port()
    log = LOGS / f"jmeter-tests-{framework['name']}.log"
    proc = apps.start_app(framework, port, log)
    try:
        apps.wait_ready(framework, port, proc, log)
        yield port
    finally:
        stop_group(proc)


@pytest.fixture(scope="session")
def implementations():
    """{name: port} of every implementation with a framework.json, started for this session."""
    with ExitStack() as stack:
        try:
            yield {m["name"]: stack.enter_context(started(m)) for m in apps.frameworks()}
        except UserError as e:
            pytest.fail(str(e))


FIELDS = {"CommentById": "commentById", "CommentsByLimit": "commentsByLimit",
          "CommentByUserId": "commentByUserId", "CommentsByUserId": "commentsByUserId"}


def comment(cid, uid, joined, graphql):
    c = {"id": str(cid) if graphql else cid, "threadId": 1, "userId": uid, "body": "b",
         "dateMade": "2020-01-01", "dateLastUpdated": None}
    if joined:
        c["user"] = {"id": str(uid) if graphql else uid, "name": "n", "email": "e", "phone": "p"}
    return c


def answer(endpoint, ident, rows, graphql, wrong):
    """(status, body) for one request: the contract's answer, or one deliberate flaw per endpoint."""
    if endpoint == "comment":
        return 200, comment(ident + 1 if wrong else ident, 1, False, graphql)
    if endpoint == "comments":
        return 200, [comment(i, 1, False, graphql) for i in range(1, rows + (0 if wrong else 1))]
    if endpoint == "user-comment":
        if wrong and graphql:
            return 204, None
        return 200, comment(ident * 200, ident, not wrong, graphql)
    listed = [comment(ident * 200 + i, ident, True, graphql) for i in range(rows)]
    if wrong and graphql:
        listed[-1]["user"]["id"] = "0"
    elif wrong:
        listed.pop()
    return 200, listed


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        m = re.fullmatch(r"/rest/(?:comment/(\d+)|comments/(\d+)|user/(\d+)/comment|user/(\d+)/comments/(\d+))",
                         self.path)
        if not m:
            return self.send(404, {"title": "Not Found"})
        cid, limit, uid, uid_list, rows = m.groups()
        endpoint, ident, n = (("comment", cid, 1) if cid else ("comments", 0, limit) if limit else
                              ("user-comment", uid, 1) if uid else ("user-comments", uid_list, rows))
        self.send(*answer(endpoint, int(ident), int(n), False, self.server.wrong))

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        field, v = FIELDS[request["operationName"]], request["variables"]
        endpoint = {"commentById": "comment", "commentsByLimit": "comments",
                    "commentByUserId": "user-comment", "commentsByUserId": "user-comments"}[field]
        status, data = answer(endpoint, int(v.get("id", 0)), int(v.get("limit", 1)), True, self.server.wrong)
        if self.server.wrong and endpoint == "comment":
            return self.send(200, {"errors": [{"message": "boom"}], "data": {field: None}})
        if self.server.wrong and endpoint == "comments":
            return self.send(200, data)  # not wrapped in {"data": ...}
        self.send(status, None if data is None else {"data": {field: data}})

    def send(self, status, body):
        raw = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


class FakeServer(ThreadingHTTPServer):
    daemon_threads = True
    # JMeter opens every thread's connection at once. Beyond socketserver's backlog of 5, the
    # kernel drops a handshake while the accept loop waits for the GIL, and the client retries
    # after TCP's back-off (1 s, then 3 and 7 s in all): 24 connections at once against a loop
    # 0.3 s late left 7 waiting a second with a backlog of 5, none with 128.
    request_queue_size = 128


@contextmanager
def fake_server(wrong: bool):
    server = FakeServer(("127.0.0.1", 0), Handler)
    server.wrong = wrong
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def fake_servers():
    """{"right": port, "wrong": port}: the contract's answers, and answers that each break it once."""
    with fake_server(False) as right, fake_server(True) as wrong:
        yield {"right": right, "wrong": wrong}


@pytest.fixture(scope="module", autouse=True)
def quick_jvm():
    """JMeter's launcher reads HEAP and JVM_ARGS: for these seconds-long runs a small heap and the
    client compiler start faster and cost less CPU (never used for measurements)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HEAP", "-Xms256m -Xmx256m")
        patch.setenv("JVM_ARGS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        yield
