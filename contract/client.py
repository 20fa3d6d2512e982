"""A keep-alive HTTP/1.1 client that returns the exact status, headers and body bytes."""
import http.client
import io
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from contract.calls import Request

# What became of a connection after an answer the HTTP server may write itself (Response.after).
USABLE, CLOSED = "usable", "closed"
# Pipelined behind a request on a connection of its own: whatever answers it shows where the
# answer before it ended, and whether the connection still serves.
PROBE = Request("GET", "/healthz", headers=(("Connection", "close"),))


@dataclass(frozen=True)
class Response:
    status: int
    headers: tuple   # ((lower-case name, value), ...)
    body: bytes
    # Only for Client.send_alone: USABLE, CLOSED, or why the connection was neither.
    after: str | None = None

    def header(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k == name.lower()]
        return ", ".join(values) if values else None

    @property
    def content_type(self) -> str | None:
        return self.header("content-type")


class _Received(io.BytesIO):
    """The bytes a connection delivered, for http.client's parser, which closes its file after
    each response although the next may follow in it."""

    def close(self):
        pass

    def makefile(self, *_):
        return self


def _parse(received: _Received, method: str) -> http.client.HTTPResponse:
    raw = http.client.HTTPResponse(received, method=method)
    raw.begin()
    return raw


class Client:
    """One connection to one implementation; every response is kept for the header check."""

    def __init__(self, base_url: str, timeout: float = 30):
        parts = urlsplit(base_url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.conn = None
        self.seen: list[tuple[Request, Response]] = []

    def send(self, request: Request) -> Response:
        if request.method == "HEAD":
            response = self._head(request)
            self.seen.append((request, response))
            return response
        # A server may close an idle keep-alive connection between two requests: retry once.
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                response = self._exchange(request)
                break
            except (http.client.HTTPException, ConnectionError, socket.timeout) as error:
                self.close()
                if attempt == 2:
                    raise ConnectionError(f"{request.describe()[:120]}: {error!r}") from error
        self.seen.append((request, response))
        return response

    def send_alone(self, request: Request) -> Response:
        """A request the HTTP server may answer itself, before any handler (a malformed
        request-target, RFC 9112 §3.2), on a connection of its own with a GET /healthz pipelined
        behind it: the keep-alive connection's retry would hide a connection left unusable. The
        response's `after` is USABLE when the GET was answered 200, CLOSED when the server closed
        the connection after its answer, else what happened instead."""
        wire = self._wire(request) + self._wire(PROBE)
        chunks, hung = [], False
        with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
            sock.sendall(wire)
            try:
                for chunk in iter(lambda: sock.recv(65536), b""):
                    chunks.append(chunk)
            except socket.timeout:
                hung = True
            except ConnectionResetError:
                pass   # closed with the pipelined GET unread: a close all the same
        received = _Received(b"".join(chunks))
        try:
            raw = _parse(received, request.method)
            body = raw.read()
        except (http.client.HTTPException, ValueError) as error:
            raise ConnectionError(f"{request.describe()[:120]}: no answer ({error!r})") from error
        if hung:
            after = f"the connection was still open {self.timeout:g} s later, a GET /healthz sent behind it"
        elif received.tell() == len(received.getvalue()):
            after = CLOSED
        else:
            try:
                status = _parse(received, "GET").status
                after = USABLE if status == 200 else f"a GET /healthz sent behind it got {status}"
            except http.client.HTTPException as error:
                after = f"the bytes after the answer are no response to the GET /healthz sent behind it ({error!r})"
        response = Response(raw.status, tuple((k.lower(), v) for k, v in raw.getheaders()), body, after)
        self.seen.append((request, response))
        return response

    def _exchange(self, request: Request) -> Response:
        body = request.body.encode() if request.body is not None else None
        self.conn.putrequest(request.method, request.path, skip_accept_encoding=True)
        for name, value in request.headers:
            self.conn.putheader(name, value)
        if body is not None or request.method in ("POST", "PUT"):
            self.conn.putheader("Content-Length", str(len(body or b"")))
        self.conn.endheaders(body)
        raw = self.conn.getresponse()
        data = raw.read()
        headers = tuple((k.lower(), v) for k, v in raw.getheaders())
        if raw.will_close:
            self.close()
        return Response(raw.status, headers, data)

    def _wire(self, request: Request) -> bytes:
        """The request as bytes, its target exactly as written."""
        body = request.body.encode() if request.body is not None else None
        lines = [f"{request.method} {request.path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 *(f"{name}: {value}" for name, value in request.headers)]
        if body is not None or request.method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(body or b'')}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")

    def _head(self, request: Request) -> Response:
        """HEAD on a connection of its own, with a GET /healthz pipelined behind it. http.client
        would read no body after a HEAD whatever the server sent, so the bytes between the two
        responses are read raw: they are the body a HEAD must not have."""
        wire = self._wire(request) + self._wire(PROBE)
        with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
            sock.sendall(wire)
            received = b"".join(iter(lambda: sock.recv(65536), b""))
        head, _, rest = received.partition(b"\r\n\r\n")
        status_line, _, header_block = head.partition(b"\r\n")
        # The parser http.client uses, so that HEAD and GET headers compare like for like.
        fields = http.client.parse_headers(io.BytesIO(header_block + b"\r\n\r\n"))
        next_response = rest.find(b"HTTP/1.1 ")
        return Response(int(status_line.split()[1]),
                        tuple((k.lower(), v) for k, v in fields.items()),
                        rest if next_response < 0 else rest[:next_response])

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
