"""JMeter remote engines (docs/your-hardware.md, "Running on several machines"): JMeter's own
distributed mode, `jmeter -s` on the client machines, driven by `jmeter -R` on the machine under
test.

This module holds both ends' settings: an engine on this machine (`./testbed engine start|stop|
status`, with its pid file and log under .testbed/engines/<port>/), the RMI keystore both ends share,
and the `HOST[:PORT]` names a run is given.

Ports, so that a firewall can allow them: an engine listens on its port (`server_port`, 1099 by
default) and on the next one (`server.rmi.localport`). The controller's call-back ports
(`client.rmi.localport`) are fixed only without SSL: with SSL, JMeter 5.6.3 binds every listener of
a plan on the same fixed port with a new socket factory, and the second bind fails ("Listen failed
on port"), so over SSL the controller lets the kernel choose them.
"""
import ipaddress
import json
import re
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib.console import fail, say
from benchlib.files import write_json
from benchlib.jmeter import PROPERTIES
from benchlib.paths import TESTBED_HOME, shown
from benchlib.processes import alive, stop_group

DEFAULT_PORT = 1099
FOLDERS = TESTBED_HOME / "engines"
KEYSTORE = TESTBED_HOME / "rmi_keystore.jks"
# JMeter's recipe (bin/create-rmi-keystore.sh): an RSA key under the alias `rmi`, valid 7 days,
# and its default password; the file itself is the secret, so it never leaves the lab's machines.
KEYSTORE_DAYS = 7
KEYSTORE_PASSWORD = "changeit"
KEYSTORE_NAME = "CN=rmi, OU=JMeter, O=Apache Software Foundation, C=AT"
# Without SSL, controller i calls back on CONTROLLER_PORT_BASE + 10 i + 1 and + 2.
CONTROLLER_PORT_BASE = 60000
ENGINE_READY_TIMEOUT_S = 60
BOUND = "Bound to RMI registry on port"
TEST_STARTED = "RemoteJMeterEngineImpl: Running test"
TEST_ENDED = "Test has ended on host"


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_endpoints(text: str) -> list[Endpoint]:
    """`HOST[:PORT],…` → endpoints; one line naming the bad entry otherwise."""
    found = []
    for part in [p for p in text.replace(",", " ").split() if p]:
        host, _, port = part.rpartition(":") if ":" in part else (part, "", str(DEFAULT_PORT))
        if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            fail(f"--engines takes HOST[:PORT],… (port 1-65535, default {DEFAULT_PORT}), not {part!r}.")
        found.append(Endpoint(host, int(port)))
    if not found:
        fail("--engines names no engine; give HOST[:PORT],… of machines running ./testbed engine start.")
    if len(set(found)) != len(found):
        fail(f"an engine is named twice in --engines {text}; name each once.")
    return found


def split_threads(threads: int, engines: int) -> list[int]:
    """A case's threads across the engines: equal shares, the remainder one each to the first
    engines, so that the total is exact."""
    share, rest = divmod(threads, engines)
    return [share + (1 if i < rest else 0) for i in range(engines)]


def reaching_address(host: str) -> str:
    """This machine's address on the route to `host` (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((host, DEFAULT_PORT))
            return s.getsockname()[0]
    except OSError as e:
        fail(f"no route from this machine to {host} ({e.strerror or e}); check the address, or name "
             "the address the engines reach with --bind.")


def why_not_answering(endpoint: Endpoint, timeout: float = 2.0) -> str | None:
    """None if something accepts TCP connections on the endpoint, else why not."""
    try:
        with socket.create_connection((endpoint.host, endpoint.port), timeout=timeout):
            return None
    except OSError as e:
        return e.strerror or str(e) or type(e).__name__


# --- the RMI keystore ----------------------------------------------------------------------------

def ssl_properties(ssl: bool) -> list[str]:
    """JMeter options for RMI over SSL with the testbed's keystore, or with SSL off."""
    if not ssl:
        return ["-Jserver.rmi.ssl.disable=true"]
    return [f"-Jserver.rmi.ssl.keystore.file={KEYSTORE}", f"-Jserver.rmi.ssl.truststore.file={KEYSTORE}",
            f"-Jserver.rmi.ssl.keystore.password={KEYSTORE_PASSWORD}",
            f"-Jserver.rmi.ssl.truststore.password={KEYSTORE_PASSWORD}", "-Jserver.rmi.ssl.keystore.alias=rmi"]


def keystore_expired() -> bool:
    return time.time() - KEYSTORE.stat().st_mtime > (KEYSTORE_DAYS - 0.5) * 86400


def ensure_keystore() -> None:
    """The keystore an engine and its controller share: made (or renewed when about to expire)
    with JMeter's keytool recipe."""
    if KEYSTORE.exists() and not keystore_expired():
        return
    renewing = KEYSTORE.exists()
    KEYSTORE.parent.mkdir(parents=True, exist_ok=True)
    fresh = KEYSTORE.with_suffix(".new")
    fresh.unlink(missing_ok=True)
    try:
        made = subprocess.run(
            ["keytool", "-genkeypair", "-keyalg", "RSA", "-keysize", "2048", "-alias", "rmi",
             "-validity", str(KEYSTORE_DAYS), "-keystore", str(fresh), "-storetype", "JKS",
             "-storepass", KEYSTORE_PASSWORD, "-keypass", KEYSTORE_PASSWORD, "-dname", KEYSTORE_NAME],
            capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"keytool (from the JDK) could not make the RMI keystore ({e}); install a JDK, or run "
             "the engines and the controller with --no-ssl on a closed network.")
    if made.returncode != 0:
        fail(f"keytool could not make the RMI keystore: {made.stderr.strip().splitlines()[-1:]}")
    fresh.chmod(0o600)
    fresh.replace(KEYSTORE)
    say(f"engine: {'renewed' if renewing else 'made'} the RMI keystore {shown(KEYSTORE)} "
        f"(valid {KEYSTORE_DAYS} days); copy it to the same place on the controller and on every "
        "other engine machine.")


def require_keystore() -> None:
    """The controller's side: the keystore copied from the engines, still valid."""
    if not KEYSTORE.exists():
        fail(f"no RMI keystore at {shown(KEYSTORE)}: copy it from an engine machine (where "
             "./testbed engine start made it), or run engines and run with --no-ssl on a closed network.")
    if keystore_expired():
        fail(f"the RMI keystore {shown(KEYSTORE)} is older than {KEYSTORE_DAYS} days: restart an engine "
             "to renew it, then copy it here and to the other engines.")


# --- an engine on this machine -----------------------------------------------------------------

def folder(port: int) -> Path:
    return FOLDERS / str(port)


def running_pid(port: int) -> int | None:
    """The engine started here for `port`, if it still runs (the pid file is checked against the
    process, so a reused pid is never taken for the engine)."""
    try:
        pid = int((folder(port) / "engine.pid").read_text())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):
        return None
    return pid if alive(pid) and b"-s" in cmdline and str(folder(port)).encode() in b" ".join(cmdline) \
        else None


def default_bind() -> str:
    """The address of the default route: where other machines of a lab usually reach this one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", DEFAULT_PORT))  # TEST-NET-1: routed, never contacted
            return s.getsockname()[0]
    except OSError:
        fail("this machine has no default route; name the address the controller reaches with --bind ADDR.")


def check_bind(bind: str) -> None:
    try:
        ipaddress.ip_address(bind)
    except ValueError:
        fail(f"--bind takes an IP address of this machine, such as 10.0.0.2, not {bind!r}.")
    try:
        with socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET) as s:
            s.bind((bind, 0))
    except OSError as e:
        fail(f"cannot listen on {bind} ({e.strerror}); give an address of this machine's interfaces (ip -brief addr).")


def start(launcher: str, port: int, bind: str | None, ssl: bool) -> None:
    """`jmeter -s` in the background on `bind`:`port` and `port`+1, with the project's properties."""
    if not 1 <= port <= 65534:
        fail(f"--port must be from 1 to 65534 (the engine also uses the port after it), not {port}.")
    bind = bind or default_bind()
    check_bind(bind)
    pid = running_pid(port)
    if pid:
        fail(f"an engine already runs for port {port} (pid {pid}); stop it first: ./testbed engine stop --port {port}")
    for taken in (port, port + 1):
        if why_not_answering(Endpoint(bind, taken), timeout=1) is None:
            fail(f"port {taken} on {bind} is taken by another program; choose another --port.")
    if ssl:
        ensure_keystore()
    home = folder(port)
    home.mkdir(parents=True, exist_ok=True)
    log = home / "jmeter-server.log"
    log.unlink(missing_ok=True)
    with open(home / "jmeter-server.out", "w") as out:
        proc = subprocess.Popen(
            [launcher, "-s", "-q", str(PROPERTIES), "-j", str(log), f"-Jserver_port={port}",
             f"-Jserver.rmi.localport={port + 1}", f"-Djava.rmi.server.hostname={bind}",
             *ssl_properties(ssl)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    (home / "engine.pid").write_text(str(proc.pid))
    write_json(home / "engine.json", {"pid": proc.pid, "bind": bind, "port": port, "ssl": ssl,
                                      "launcher": launcher, "started_at": time.time()})
    deadline = time.monotonic() + ENGINE_READY_TIMEOUT_S
    while BOUND not in _read(log):
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_group(proc)
            (home / "engine.pid").unlink(missing_ok=True)
            fail(f"the engine did not start (see {shown(log)}): {last_error(log) or 'no error logged'}")
        time.sleep(0.2)
    say(f"engine: listening on {bind}:{port} and {bind}:{port + 1}, "
        + ("RMI over SSL with " + shown(KEYSTORE) if ssl else "RMI WITHOUT SSL (closed lab network only)")
        + f"; pid {proc.pid}, log {shown(log)}.")


def stop(port: int) -> None:
    pid = running_pid(port)
    if not pid:
        say(f"engine: none runs for port {port}.")
        return
    stop_group(pid, grace=15)
    (folder(port) / "engine.pid").unlink(missing_ok=True)
    say(f"engine: stopped (pid {pid}, port {port}).")


def status(port: int) -> int:
    """0 when the engine runs (and says whether it runs a test), 3 when it does not."""
    pid = running_pid(port)
    if not pid:
        say(f"engine: not running for port {port}.")
        return 3
    meta = _meta(port)
    say(f"engine: running on {meta.get('bind')}:{port} (pid {pid}), "
        f"{'SSL' if meta.get('ssl') else 'no SSL'}, {'running a test' if testing(port) else 'idle'}; "
        f"log {shown(folder(port) / 'jmeter-server.log')}.")
    return 0


def testing(port: int) -> bool:
    """Whether the engine's log shows a test started and not yet ended."""
    text = _read(folder(port) / "jmeter-server.log")
    return text.rfind(TEST_STARTED) > text.rfind(TEST_ENDED)


def last_error(log: Path) -> str:
    errors = re.findall(r"(?m)^\S+ \S+ ERROR \S+: (.+)$", _read(log))
    return errors[-1] if errors else ""


def _meta(port: int) -> dict:
    try:
        return json.loads((folder(port) / "engine.json").read_text())
    except (OSError, ValueError):
        return {}


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
