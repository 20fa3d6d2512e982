"""A deliberately broken implementation for verify's own tests: a real one behind an HTTP proxy
that breaks the contract in one way.

Run as the `start` of a temporary framework.json. It starts the implementation that UPSTREAM (a
framework.json path) describes as its child, with this process's DB_* environment, so a statement
relay in front of the proxy sees the child's statements too; then it serves PORT and forwards.
FAULT picks the breakage:
  swap-keys    `"threadId":…,"userId":…` becomes `"userId":…,"threadId":…` in every body
  extra-query  one more `SELECT 1` per request, as an N+1 bug would add
  delay        every request held DELAY_MS (default 100) before it is forwarded: a known added
               latency, for the latency profile's tests (collect/passes/test_latency.py)
  poison-after-malformed
               after a request-target with an undecodable %-escape, every later request on that
               connection is a 500: a connection that stays open but no longer serves"""
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from benchlib.console import UserError
from benchlib.net import free_port, wait_for_200

SWAP = re.compile(rb'"threadId":(\d+),"userId":(\d+)')
UNDECODABLE = re.compile(r"%(?![0-9A-Fa-f]{2})")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "date"}


def start_upstream(manifest_path: str) -> tuple[subprocess.Popen, int]:
    manifest = json.loads(open(manifest_path).read())
    port = free_port()
    env = {**os.environ, **manifest.get("env", {}), manifest["port_env"]: str(port)}
    child = subprocess.Popen(manifest["start"], cwd=os.path.dirname(os.path.abspath(manifest_path)),
                             env=env, stdin=subprocess.DEVNULL)
    try:
        wait_for_200(f"http://127.0.0.1:{port}{manifest['readiness_path']}", 120, child)
    except UserError as e:
        sys.exit(f"fault_proxy: the upstream did not become ready: {e}")
    return child, port


class ExtraQuery:
    """One connection per proxy thread, each request adding a SELECT 1."""

    def __init__(self):
        self.local = threading.local()

    def run(self) -> None:
        import pymysql
        if not hasattr(self.local, "conn"):
            env = os.environ
            self.local.conn = pymysql.connect(host=env["DB_HOST"], port=int(env["DB_PORT"]),
                                              user=env["DB_USER"], password=env["DB_PASSWORD"],
                                              database=env["DB_NAME"], autocommit=True)
        with self.local.conn.cursor() as cur:
            cur.execute("SELECT 1")


def handler(upstream_port: int, fault: str):
    extra = ExtraQuery() if fault == "extra-query" else None
    delay_s = int(os.environ.get("DELAY_MS", "100")) / 1000 if fault == "delay" else 0
    upstreams = threading.local()   # one keep-alive connection per proxy thread

    def exchange(method, path, body, headers):
        for attempt in (1, 2):
            if not hasattr(upstreams, "conn"):
                upstreams.conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                upstreams.conn.request(method, path, body, headers)
                response = upstreams.conn.getresponse()
                return response, response.read()
            except (http.client.HTTPException, OSError):
                upstreams.conn.close()
                del upstreams.conn
                if attempt == 2:
                    raise

    class Proxy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The status line and headers go out in one write and the body in another: with Nagle's
        # algorithm on, the body waited for the client's delayed ACK, 40 ms a request.
        disable_nagle_algorithm = True

        def forward(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if getattr(self, "poisoned", False):
                self.send_response_only(500)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.poisoned = fault == "poison-after-malformed" and bool(UNDECODABLE.search(self.path))
            if extra:
                extra.run()
            if delay_s:
                time.sleep(delay_s)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            response, data = exchange(self.command, self.path, body, headers)
            if fault == "swap-keys":
                data = SWAP.sub(rb'"userId":\2,"threadId":\1', data)
            # send_response would add a Server header, which verify rightly rejects.
            self.send_response_only(response.status)
            for name, value in response.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    self.send_header(name, value)
            # A HEAD keeps the length GET would have, and sends no body.
            head = self.command == "HEAD"
            self.send_header("Content-Length", response.getheader("Content-Length") if head
                             else str(len(data)))
            self.end_headers()
            if not head:
                self.wfile.write(data)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = forward

        def log_message(self, *args):
            pass

    return Proxy


def main() -> None:
    child, upstream_port = start_upstream(os.environ["UPSTREAM"])
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])),
                                 handler(upstream_port, os.environ["FAULT"]))

    def stop(*_):
        child.terminate()
        child.wait()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
