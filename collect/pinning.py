"""`--pin`: the app, the database and JMeter on separate CPU sets, so none steals the others' cores.

Children inherit the CPU set of the process that starts them, so the run engine narrows its own
set around each launch (no race with threads the new process creates at once). The database is
already running: every one of its threads is moved, and put back when the run ends.
"""
import os
from contextlib import contextmanager
from pathlib import Path


def plan(requested: bool, cores: list[int] | None = None) -> dict:
    """Which cores each role gets. Three or more: disjoint sets. Two: app+db share one, JMeter
    gets the other (the load generator must not steal the server's CPU). One: no pinning."""
    cores = sorted(cores if cores is not None else os.sched_getaffinity(0))
    if not requested:
        return {"requested": False, "applied": False, "note": "not requested (--pin)"}
    n = len(cores)
    if n < 2:
        return {"requested": True, "applied": False,
                "note": f"only {n} core available: pinning is not possible"}
    if n == 2:
        sets = {"app": cores[:1], "db": cores[:1], "jmeter": cores[1:]}
        note = "2 cores: app and database share one core, JMeter has the other"
    else:
        side = max(1, n // 4)  # the database and JMeter each get a quarter, the app the rest
        sets = {"jmeter": cores[-side:], "db": cores[-2 * side:-side], "app": cores[:n - 2 * side]}
        note = f"{n} cores: disjoint sets"
    return {"requested": True, "applied": True, "note": note, "cpus": sets}


@contextmanager
def launching_on(cpus: list[int] | None):
    """Start processes inside this block on `cpus` (None: no change)."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def pin_threads(pid: int, cpus) -> bool:
    """Move every thread of a running process; False if it could not be done."""
    moved = False
    try:
        tids = [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return False
    for tid in tids:
        try:
            os.sched_setaffinity(tid, cpus)
            moved = True
        except OSError:  # a thread that ended meanwhile, or not ours to move
            pass
    return moved


def cores_of(pid: int) -> int:
    try:
        return len(os.sched_getaffinity(pid))
    except OSError:
        return os.cpu_count() or 1
