"""A keep-alive HTTP/1.1 client that returns the exact status, headers and body bytes."""
import http.client
import io
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from contract.calls import Request


@dataclass(frozen=True)
class Response:
    status: int
    headers: tuple   # ((lower-case name, value), ...)
    body: bytes

    def header(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k == name.lower()]
        return ", ".join(values) if values else None

    @property
    def content_type(self) -> str | None:
        return self.header("content-type")


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

    def _head(self, request: Request) -> Response:
        """HEAD on a connection of its own, with a GET /healthz pipelined behind it. http.client
        would read no body after a HEAD whatever the server sent, so the bytes between the two
        responses are read raw: they are the body a HEAD must not have."""
        lines = [f"HEAD {request.path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 *(f"{name}: {value}" for name, value in request.headers)]
        probe = ["GET /healthz HTTP/1.1", f"Host: {self.host}:{self.port}", "Connection: close"]
        wire = "".join("\r\n".join(part) + "\r\n\r\n" for part in (lines, probe)).encode()
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
