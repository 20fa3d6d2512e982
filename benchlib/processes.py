"""Processes by pid: alive or not (a zombie is not), who they are, finding one among descendants,
and stopping a whole process group."""
import os
import signal
import subprocess
import time
from pathlib import Path


TICKS = os.sysconf("SC_CLK_TCK")


def _fields(stat: str) -> list[str]:
    """A /proc/<pid>/stat line after the command name (which may hold spaces and parentheses)."""
    return stat.rsplit(")", 1)[1].split()


def _stat_fields(pid: int) -> list[str] | None:
    try:
        return _fields(Path(f"/proc/{pid}/stat").read_text())
    except (OSError, IndexError):
        return None


def parse_stat(text: str) -> tuple[int, int]:
    """(utime+stime in clock ticks, RSS in pages) from one /proc/<pid>/stat line."""
    fields = _fields(text)
    return int(fields[11]) + int(fields[12]), int(fields[21])


def cpu_seconds(pid: int) -> float | None:
    """CPU time the process has used so far (user + system), or None once it is gone."""
    try:
        return parse_stat(Path(f"/proc/{pid}/stat").read_text())[0] / TICKS
    except (OSError, IndexError, ValueError):
        return None


def alive(pid: int | None) -> bool:
    """True while the process runs; a zombie (exited, not yet reaped by its parent) has stopped."""
    fields = _stat_fields(pid) if pid else None
    return fields is not None and fields[0] != "Z"


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks (None once it is gone or a zombie): a pid plus
    this names one process, even after the pid is reused."""
    fields = _stat_fields(pid)
    return None if fields is None or fields[0] == "Z" else fields[19]


def command_name(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def children(pid: int) -> list[int]:
    found = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return found


def executable_name(pid: int) -> str | None:
    """The file name of the program a process runs (`node` for .../bin/node)."""
    try:
        return Path(os.readlink(f"/proc/{pid}/exe")).name
    except OSError:
        return None


def find_named(pid: int, name: str) -> int | None:
    """`pid` itself if its command or its program is `name`, else the first descendant that is.
    Both, because a runtime may rename its main thread, and with it the command: Node.js 24 calls
    it `MainThread`, so a search by command alone waited out its timeout on every start."""
    if name in (command_name(pid), executable_name(pid)):
        return pid
    for child in children(pid):
        found = find_named(child, name)
        if found:
            return found
    return None


def wait_for_named(pid: int, name: str, timeout: float = 10.0) -> int:
    """The process named `name` at or below `pid` (a launcher may exec it or fork it), waiting for
    it to appear; `pid` itself if none does in time."""
    deadline = time.monotonic() + timeout
    while True:
        found = find_named(pid, name)
        if found or time.monotonic() > deadline or not Path(f"/proc/{pid}").exists():
            return found or pid
        time.sleep(0.05)


def stop_group(target: "int | subprocess.Popen", grace: float = 10) -> None:
    """Stop the process group led by `target` (a pid or a Popen started in a new session):
    SIGTERM, then SIGKILL after `grace` seconds. Harmless if it is gone."""
    proc = target if isinstance(target, subprocess.Popen) else None
    pid = proc.pid if proc else target
    started = start_time(pid)
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            break
        if proc is None and start_time(pid) != started:
            break
        time.sleep(0.1)
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc is not None:
        proc.wait()


def listener(port: int) -> int | None:
    """The pid of this machine's process listening on TCP `port` (IPv4 or IPv6), or None: none
    listens, or its sockets are not ours to see."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:  # gone meanwhile, or not ours
            continue
    return None
