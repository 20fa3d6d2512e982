"""Reference work: fixed measurements that characterise the machine a run ran on, so that a ratio
that differs on another machine can be traced to the machine rather than the frameworks
(reference.json; collect/README.md, "Reference work"). Measured once per run, before its ceiling and rounds:

- **each app's cheapest answer** (GET benchlib/plans.CEILING_PATH, a 404 from its router) and its
  cheapest real request (REST case 1, one comment by id) at REFERENCE_CONNECTIONS connections:
  throughput, and the app's, the database's and the load generator's CPU per request;
- **the database's CPU per query** for each SQL shape of the contract (contract/openapi.yaml), sent by one
  client here, from the managed server's own CPU time (an external server is not ours to sample);
- **each load generator's CPU per request** on the same cell (the first arm's REST case 1), when
  the run chooses its load generator by measurement (`--loadgen` not given).

The run then chooses from these figures its load generator (the one that spends less CPU per
request, so leaves the servers the most headroom) and its layout (collect/load/pinning.py choose).
"""
import json
import random
import time
from dataclasses import replace
from pathlib import Path

from benchlib import database as managed_db
from benchlib.cases import cases
from benchlib.items import Item
from benchlib.paths import IDS
from benchlib.processes import cpu_seconds
from benchlib.results import REFERENCE, SCHEMA_VERSION, now_iso
from collect.passes import probe
from collect.load.batch import Measurement
from collect.passes.phase_run import PhaseRun
from collect.passes.progress import Progress

REFERENCE_CONNECTIONS = 100
# Each statement shape is sent for this share of the run's probe window (1.5 s of the default 2 s):
# enough queries that the server's CPU time, counted in ticks of 10 ms, is known to a few per cent.
DB_SHARE_OF_PROBE = 0.75
# The contract's SQL shapes (contract/openapi.yaml; each app's data layer sends these, contract/statements.py
# counts them), here only to time the database on this machine, not to measure any framework.
COMMENT = "comment_id, thread_id, user_id, body, datemade, datelastupdated"
JOINED = "c.comment_id, c.thread_id, c.user_id, c.body, c.datemade, c.datelastupdated, u.name, u.email, u.phone"
STATEMENTS = {
    "comment by id": (f"SELECT {COMMENT} FROM comment WHERE comment_id = %s", "comment"),
    "100 comments": (f"SELECT {COMMENT} FROM comment ORDER BY comment_id LIMIT 100", None),
    "a user's first comment": (f"SELECT {JOINED} FROM comment c JOIN user u ON u.user_id = c.user_id "
                               "WHERE c.user_id = %s ORDER BY c.comment_id LIMIT 1", "user"),
    "a user's 100 comments": (f"SELECT {JOINED} FROM comment c JOIN user u ON u.user_id = c.user_id "
                              "WHERE c.user_id = %s ORDER BY c.comment_id LIMIT 100", "user"),
}


def read(run_dir: Path) -> dict | None:
    try:
        return json.loads((run_dir / REFERENCE).read_text())
    except (OSError, ValueError):
        return None


def fastest(measured: dict) -> dict | None:
    """The reference work's REST case 1 of the arm that served it fastest (None: no arm served it)."""
    cells = [e["rest_case_1"] for e in measured["apps"].values() if e["rest_case_1"].get("throughput_rps")]
    return max(cells, key=lambda c: c["throughput_rps"], default=None)


def server_ms_per_req(measured: dict) -> float | None:
    """The servers' CPU per request (app and database) at the fastest arm's REST case 1."""
    cell = fastest(measured)
    return None if cell is None else (cell["app_cpu_ms_per_req"] or 0) + (cell["db_cpu_ms_per_req"] or 0)


def rest_case_1(arm: str) -> Item:
    """REST case 1's rows and join at the reference's connections, not the case's."""
    case_1 = cases()[1]
    return Item(framework=arm, api="rest", case=1, requests=REFERENCE_CONNECTIONS, rows=case_1["rows"],
                joins=case_1["joins"])


def measure(run: PhaseRun, loadgens: list[str], progress: Progress) -> dict:
    """Measures the reference work with wrk (and with every load generator in `loadgens`, on the
    first arm's REST case 1) and writes reference.json; what it holds already is kept."""
    found = read(run.context.dir)
    if found:
        return found
    progress.note(f"reference work: each app's cheapest answer and REST case 1 at {REFERENCE_CONNECTIONS} "
                  f"connections, the database's CPU per query, {' and '.join(loadgens)}'s CPU per request …")
    arms = list(run.context.frameworks)
    for arm in arms:
        run.apps.ensure(arm)
    figures = {"schema_version": SCHEMA_VERSION,
               "measured_at": now_iso(),
               "connections": REFERENCE_CONNECTIONS, "apps": {}, "loadgens": {},
               "database": database_work(run)}
    for arm in arms:
        host, port = run.apps.address(arm)
        item = rest_case_1(arm)
        cheapest, real = probe.measure(run, new_folder(run.context.dir, f"{arm}-wrk"),
                                       [Measurement(replace(item, case=0), host, port, ceiling=True),
                                        Measurement(item, host, port)], "wrk")
        figures["apps"][arm] = {"cheapest": cell("GET /testbed-ceiling (404)", cheapest),
                                "rest_case_1": cell("GET /rest/comment/{id}", real)}
    first = arms[0]
    for loadgen in loadgens:
        if loadgen == "wrk":
            measured = figures["apps"][first]["rest_case_1"]
        else:
            [f] = probe.measure(run, new_folder(run.context.dir, f"{first}-{loadgen}"),
                                [Measurement(rest_case_1(first), *run.apps.address(first))], loadgen)
            measured = cell("GET /rest/comment/{id}", f)
        figures["loadgens"][loadgen] = {"at": f"{first} REST case 1, {REFERENCE_CONNECTIONS} connections",
                                        **{k: measured[k] for k in ("throughput_rps", "loadgen_cpu_ms_per_req",
                                                                    "loadgen_cpu_mean_pct", "validity")}}
    (run.context.dir / REFERENCE).write_text(json.dumps(figures, indent=1) + "\n")
    for arm, entry in figures["apps"].items():
        progress.note(f"  {arm}: 404 at {entry['cheapest']['throughput_rps']} req/s, REST case 1 at "
                      f"{entry['rest_case_1']['throughput_rps']} req/s "
                      f"(app {entry['rest_case_1']['app_cpu_ms_per_req']}, "
                      f"database {entry['rest_case_1']['db_cpu_ms_per_req']} ms of CPU per request)")
    for loadgen, entry in figures["loadgens"].items():
        progress.note(f"  {loadgen}: {entry['loadgen_cpu_ms_per_req']} ms of CPU per request")
    return figures


def new_folder(run_dir: Path, name: str) -> Path:
    folder = run_dir / "reference" / name
    n = 1
    while (attempt := folder.with_name(f"{name}-{n}")).exists():
        n += 1
    attempt.mkdir(parents=True)
    return attempt


def cell(request: str, f: probe.Figures) -> dict:
    return {"request": request, "throughput_rps": f.rps, "errors": f.summary.get("errors"),
            "mean_ms": f.summary.get("mean_ms"),
            "app_cpu_ms_per_req": f.per_request("cpu_mean_pct"), "db_cpu_ms_per_req": f.per_request("db_cpu_mean_pct"),
            "loadgen_cpu_ms_per_req": f.per_request("loadgen_cpu_mean_pct"),
            "loadgen_cpu_mean_pct": f.stats.get("loadgen_cpu_mean_pct"), "other_cpu_pct": f.stats.get("other_cpu_pct"),
            "validity": "measured" if f.rps else "no samples"}


def database_work(run: PhaseRun) -> dict:
    """The managed server's CPU per query for each statement shape: queries for DB_SHARE_OF_PROBE of
    the probe window from one connection (the apps' read-only account), the server's utime + stime
    before and after."""
    db = run.context.db
    pid = managed_db.server_pid() if db.managed else None
    if not pid:
        return {"measured": False, "why": "an external database server is not ours to sample" if not db.managed
                else "the managed server's pid was not found"}
    import pymysql  # the run's set-up installs it (python3-pymysql)
    ids = {"comment": read_ids(IDS / "comment_ids.csv"), "user": read_ids(IDS / "user_ids.csv")}
    rng = random.Random(1)
    conn = pymysql.connect(host=db.host, port=db.port, user=db.api_user, password=db.api_password,
                           database=db.name, autocommit=True)
    shapes, seconds = {}, DB_SHARE_OF_PROBE * run.context.profile.probe_s
    try:
        with conn.cursor() as cursor:
            for name, (sql, kind) in STATEMENTS.items():
                cursor.execute(sql, (ids[kind][0],) if kind else None)  # a first, uncounted run
                cpu0, t0, n = cpu_seconds(pid), time.monotonic(), 0
                while time.monotonic() - t0 < seconds:
                    cursor.execute(sql, (rng.choice(ids[kind]),) if kind else None)
                    cursor.fetchall()
                    n += 1
                cpu1, t1 = cpu_seconds(pid), time.monotonic()
                shapes[name] = {"queries": n, "cpu_ms_per_query": round((cpu1 - cpu0) * 1000 / n, 4),
                                "wall_ms_per_query": round((t1 - t0) * 1000 / n, 4)}
    finally:
        conn.close()
    return {"measured": True, "client": "one connection, this machine, the apps' read-only account (PyMySQL)",
            "seconds_per_shape": seconds, "shapes": shapes}


def read_ids(path: Path) -> list[str]:
    return path.read_text().split()[1:]
