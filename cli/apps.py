"""`testbed up|down`: build and start the implementations in the background, stop them again.

Generic over the framework.json manifests (DESIGN §2): nothing here knows a framework by name.
The run orchestrator imports build, start_app, wait_ready and stop_app to restart apps per case.
"""
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from cli.common import LOGS, ROOT, STATE, database, fail, manifests, port_free, say

RUN = STATE / "run"
BUILDS = STATE / "build"
HOST = "127.0.0.1"
READY_TIMEOUT_S = 120
# Folders a build writes (or a package manager fills): not sources, so not part of the stamp.
OUTPUT_DIRS = {"node_modules", "bin", "obj", "out", "dist", "publish", "TestResults", ".testbed"}
DB_MARKER = "database.started"


def register(sub):
    p = sub.add_parser("up", help="start the database and the APIs in the background",
                       description="Start the managed database (seeded), build each "
                                   "implementation if its sources changed, start it on its "
                                   "default port, wait until it is ready and print its URL.")
    p.add_argument("--framework", default="all", metavar="F",
                   help="a framework name from a framework.json (e.g. express, aspnet) or all")
    p.set_defaults(func=lambda args: up(args.framework))
    p = sub.add_parser("down", help="stop what `up` started",
                       description="Stop the APIs that `up` started (by their pid files), and the "
                                   "managed database if `up` was what started it. Harmless if "
                                   "nothing runs.")
    p.set_defaults(func=lambda args: down())


def select(name: str) -> list[dict]:
    """The manifests `--framework name` means: one by its name, or every one for `all`."""
    found = manifests()
    if name == "all":
        if not found:
            fail("no implementation found (no */framework.json).")
        return found
    chosen = [m for m in found if m["name"] == name]
    if not chosen:
        names = ", ".join(m["name"] for m in found) or "none"
        fail(f"no framework named {name!r}; known: {names}, or all.")
    return chosen


# --- building ----------------------------------------------------------------------------------

def _source_files(manifest: dict):
    """The files a build depends on: the manifest's optional `build_inputs` globs (e.g. a lock
    file, when the build only installs packages), else every file outside the output folders."""
    base = Path(manifest["dir"])
    if manifest.get("build_inputs"):
        yield from sorted({p for pattern in manifest["build_inputs"] for p in base.glob(pattern)
                           if p.is_file()})
        return
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in OUTPUT_DIRS and not d.startswith(".git"))
        yield from (Path(folder) / name for name in sorted(files))


def _source_hash(manifest: dict) -> str:
    """Build command plus each input file's path and content."""
    digest = hashlib.sha256(manifest["build"].encode())
    base = Path(manifest["dir"])
    for path in _source_files(manifest):
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _outputs(manifest: dict) -> list[str]:
    return sorted(d for d in OUTPUT_DIRS if (Path(manifest["dir"]) / d).exists())


def build(manifest: dict, force: bool = False) -> bool:
    """Run the manifest's `build` in its folder unless nothing changed since the last build.

    "Nothing changed" means the same build command and input files (a stamp under
    .testbed/build/; see _source_files) and the output folders that build left are still there.
    Returns True if it built. A needless rebuild is not harmless: `npm ci` empties node_modules
    under any app still running from it.
    """
    BUILDS.mkdir(parents=True, exist_ok=True)
    # Suites and the orchestrator may build the same app at once; the second waits, then skips.
    with open(BUILDS / f"{manifest['name']}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(manifest, force)


def _build_locked(manifest: dict, force: bool) -> bool:
    stamp = BUILDS / f"{manifest['name']}.json"
    source = _source_hash(manifest)
    if not force and stamp.exists():
        last = json.loads(stamp.read_text())
        if last.get("source") == source and all(
                (Path(manifest["dir"]) / d).exists() for d in last.get("outputs", [])):
            return False
    say(f"{manifest['name']}: building ({manifest['build']}) ...")
    result = subprocess.run(manifest["build"], shell=True, cwd=manifest["dir"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        stamp.unlink(missing_ok=True)
        last_lines = (result.stderr or result.stdout).strip().splitlines()[-2:]
        fail(f"building {manifest['name']} failed (`{manifest['build']}` exited with "
             f"{result.returncode}): {' '.join(last_lines)}")
    stamp.write_text(json.dumps({"source": source, "outputs": _outputs(manifest)}))
    return True


# --- starting, waiting, stopping ---------------------------------------------------------------

def app_env(manifest: dict, port: int, extra_env: dict | None = None) -> dict:
    """The app's environment: ours, the manifest's fixed env, the DB_* of the read-only
    account, extra_env (e.g. a variant's env), and the port under the manifest's port_env."""
    return {**os.environ, **manifest.get("env", {}), **database().api_env(),
            **(extra_env or {}), manifest["port_env"]: str(port)}


def start_app(manifest: dict, port: int | None = None, log_path: Path | None = None,
              extra_env: dict | None = None) -> subprocess.Popen:
    """Start the manifest's `start` argv in its folder, detached in a new session (so its whole
    process group can be stopped), stdout and stderr appended to log_path (default
    .testbed/logs/<name>.log). Fails with one line if the port is taken. Does not wait."""
    port = port or manifest["default_port"]
    if not port_free(port):
        fail(f"port {port} is taken by another process; stop it (or `./testbed down`) "
             f"before starting {manifest['name']}.")
    log_path = Path(log_path or LOGS / f"{manifest['name']}.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(manifest["start"], cwd=manifest["dir"],
                                env=app_env(manifest, port, extra_env), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def url(manifest: dict, port: int | None = None, path: str = "") -> str:
    return f"http://{HOST}:{port or manifest['default_port']}{path}"


def _tail(log_path: Path | None, lines: int = 8) -> str:
    if not log_path or not Path(log_path).exists():
        return ""
    text = Path(log_path).read_text(errors="replace").strip().splitlines()[-lines:]
    return "\n".join(["last lines of " + str(log_path) + ":", *text]) if text else ""


def wait_ready(url: str, timeout: float = READY_TIMEOUT_S, proc: subprocess.Popen | None = None,
               log_path: Path | None = None) -> None:
    """Poll `url` until it answers 200. Fails (with the log's tail) if `proc` exits first or
    `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            fail(f"the app exited with code {proc.returncode} before {url} answered.\n"
                 + _tail(log_path))
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            fail(f"{url} did not answer 200 within {timeout:g} s.\n" + _tail(log_path))
        time.sleep(0.2)


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks (None once it is gone or a zombie): a pid plus
    this names one process, even after the pid is reused."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


def stop_app(pid: int, grace: float = 10) -> None:
    """Stop the process group led by `pid` (as start_app makes it): SIGTERM, then SIGKILL after
    `grace` seconds. Harmless if it is gone. Accepts a Popen too."""
    proc = pid if isinstance(pid, subprocess.Popen) else None
    pid = proc.pid if proc else pid
    started = _start_time(pid)
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            break
        if proc is None and _start_time(pid) != started:
            break
        time.sleep(0.1)
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc is not None:
        proc.wait()


# --- up and down -------------------------------------------------------------------------------

def _pid_file(manifest_name: str) -> Path:
    return RUN / f"{manifest_name}.pid"


def running(name: str) -> int | None:
    """The pid `up` recorded for `name`, if that very process is still alive."""
    try:
        pid, started = _pid_file(name).read_text().split()
        pid = int(pid)
    except (OSError, ValueError):
        return None
    return pid if _start_time(pid) == started else None


def up(framework: str = "all") -> int:
    from cli import db as managed_db
    from cli.seed import seed
    chosen = select(framework)
    RUN.mkdir(parents=True, exist_ok=True)
    database_was_up = managed_db.sql("SELECT 1", as_root=True, check=False).returncode == 0
    db = managed_db.start()
    if db.managed and not database_was_up:
        (RUN / DB_MARKER).write_text("started by ./testbed up\n")
    seed()
    for manifest in chosen:
        pid = running(manifest["name"])
        if pid:
            say(f"{manifest['name']}: already running at {url(manifest)} (pid {pid}).")
        else:
            start_detached(manifest)
    return 0


def start_detached(manifest: dict) -> int:
    """Build if needed, start on the default port, record the pid file, wait for readiness;
    on failure stop it again. Returns the pid."""
    build(manifest)
    log_path = LOGS / f"{manifest['name']}.log"
    proc = start_app(manifest, log_path=log_path)
    pid_file = _pid_file(manifest["name"])
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(f"{proc.pid} {_start_time(proc.pid)}\n")
    try:
        wait_ready(url(manifest, path=manifest["readiness_path"]), READY_TIMEOUT_S, proc, log_path)
    except BaseException:
        stop_app(proc)
        pid_file.unlink(missing_ok=True)
        raise
    shown = log_path.relative_to(ROOT) if log_path.is_relative_to(ROOT) else log_path
    say(f"{manifest['name']}: {url(manifest)} (pid {proc.pid}, log {shown}).")
    return proc.pid


def down() -> int:
    from cli import db as managed_db
    stopped = 0
    for pid_file in sorted(RUN.glob("*.pid")) if RUN.exists() else []:
        name = pid_file.stem
        pid = running(name)
        if pid:
            stop_app(pid)
            say(f"{name}: stopped (pid {pid}).")
            stopped += 1
        pid_file.unlink(missing_ok=True)
    if (RUN / DB_MARKER).exists():
        managed_db.stop()
        (RUN / DB_MARKER).unlink()
    elif not stopped:
        say("down: nothing was running.")
    return 0
