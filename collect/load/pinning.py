"""The layout: where the load generator runs relative to the app and the database. Either they share
every core, or the load generator gets a CPU set of its own and the app and database share the rest
(`--pin`, `--no-pin`; without either the run chooses by measurement, `choose`).

Children inherit the CPU set of the process that starts them, so the run loop narrows its own
set around each launch (no race with threads the new process creates at once). The database is
already running: every one of its threads is moved, and put back when the run ends.
"""
import math
import os
from contextlib import contextmanager
from pathlib import Path

# Pinning pays when the server keeps at least this share of the CPU it has when sharing: a CPU set
# of the load generator's own removes its CPU from the server's cores for good (so both arms get
# the same server, whatever each one's generator costs), but the set's idle part is lost to the
# server as well.
KEEP = 0.85
# The generator's own set is sized so that it stays below this share of it at the fastest cell.
HEADROOM = 0.80


def shared(note: str, requested: str, **figures) -> dict:
    return {"requested": requested, "applied": False, "note": note, **figures}


def pinned(cores: list[int], generator_cores: int, note: str, requested: str, **figures) -> dict:
    server = cores[:len(cores) - generator_cores]
    return {"requested": requested, "applied": True, "note": note,
            "cpus": {"app": server, "db": server, "loadgen": cores[len(cores) - generator_cores:]}, **figures}


def plan(requested: bool | None, cores: list[int] | None = None, need: float | None = None) -> dict:
    """The layout for `--pin` (True), `--no-pin` (False) or neither (None: decided later by
    `choose`, from the reference work; until then shared). `need`: the cores the load generator
    uses at the fastest cell, if measured."""
    cores = sorted(cores if cores is not None else os.sched_getaffinity(0))
    if requested is None:
        return shared("to be chosen from the reference work", "auto")
    if not requested:
        return shared("every core shared by the app, the database and the load generator (--no-pin)", "no-pin")
    if len(cores) < 2:
        return shared(f"only {len(cores)} core available: pinning is not possible", "pin")
    k = generator_cores(need, len(cores))
    return pinned(cores, k, f"{len(cores)} cores: the load generator on {k}, the app and database share "
                            f"{len(cores) - k} (--pin)", "pin")


def generator_cores(need: float | None, n: int) -> int:
    """Cores for the load generator's own set: enough that it stays below HEADROOM of them, at least
    one, and one fewer than the machine has."""
    return max(1, min(n - 1, math.ceil((need or 0) / HEADROOM)))


def choose(cores: list[int], loadgen_ms: float, server_ms: float) -> dict:
    """The layout by measurement, from the load generator's and the server's (app + database) CPU
    per request at the fastest cell (the reference work's REST case 1). Sharing, the generator takes
    `need` = cores x g / (g + s) of the machine; pinned it gets generator_cores(need) and the server
    the rest. Pin when the server keeps at least KEEP of what sharing gives it."""
    n = len(cores)
    share = loadgen_ms / (loadgen_ms + server_ms)
    need = n * share
    k = generator_cores(need, n)
    figures = {"loadgen_ms_per_req": round(loadgen_ms, 4), "server_ms_per_req": round(server_ms, 4),
               "loadgen_share": round(share, 3), "need_cores": round(need, 2), "own_cores": k}
    if n >= 2 and n - k >= KEEP * (n - need):
        return pinned(cores, k, f"the load generator on {k} core(s) of its own: it needs {need:.2f} of {n} at the "
                                f"fastest cell, so the app and database keep {n - k} cores, "
                                f"at least {KEEP * 100:.0f} % of the {n - need:.2f} sharing would leave them",
                      "auto", **figures)
    return shared(f"every core shared: the load generator needs {need:.2f} of {n} cores at the fastest cell "
                  f"({share * 100:.0f} % of the CPU per request), and a set of its own ({k} core(s)) would leave "
                  f"the app and database {n - k}, less than {KEEP * 100:.0f} % of the {n - need:.2f} they have sharing",
                  "auto",
                  **figures)


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
