"""Ports and HTTP readiness: the one free-port finder and the one wait-for-200."""
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from benchlib.console import fail
from benchlib.processes import listener


def port_free(port: int) -> bool:
    """True if nothing listens on the port, on any address (so 127.0.0.1 listeners count too)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def is_local(host: str) -> bool:
    """Whether `host` names an address of this machine (one a socket here can bind to)."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind((address[0], 0))
                return True
            except OSError:
                continue
    return False


def listening_here(host: str, port: int) -> int | None:
    """The pid of the process serving `host`:`port`, when that is on this machine, else None."""
    return listener(port) if is_local(host) else None


def free_port() -> int:
    """A port nothing listens on now, chosen by the kernel."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_status(url: str, timeout: float = 2) -> int | None:
    """The status `url` answers a GET with, or None if nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, OSError):
        return None


def _tail(log_path: Path | None, lines: int = 8) -> str:
    if not log_path or not Path(log_path).exists():
        return ""
    text = Path(log_path).read_text(errors="replace").strip().splitlines()[-lines:]
    return "\n".join(["last lines of " + str(log_path) + ":", *text]) if text else ""


def wait_for_200(url: str, timeout: float, proc: subprocess.Popen | None = None,
                 log_path: Path | None = None) -> None:
    """Poll `url` until it answers 200. Fails (with the log's tail) if `proc` exits first or
    `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            fail(f"the app exited with code {proc.returncode} before {url} answered.\n"
                 + _tail(log_path))
        if http_status(url) == 200:
            return
        if time.monotonic() > deadline:
            fail(f"{url} did not answer 200 within {timeout:g} s.\n" + _tail(log_path))
        time.sleep(0.2)
