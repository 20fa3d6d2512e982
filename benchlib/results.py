"""The results layout and schema (for readers: docs/results-format.md), written by collect/ and read
by analysis/ through this module alone:

    <results>/<run-id>/manifest.json      what the run measured, and on what
    <run-id>/summary.csv                  one row per framework x api x case x round
    <run-id>/state.json                   running / interrupted / stopped / complete
    <run-id>/<framework>/<api>/case-NN/iter-NN/run.json, results.jtl, proc.csv, top.csv, ...
    <run-id>/ceiling.csv, crosscheck.csv, memory.csv   run-level passes (below)
    <run-id>/latency.csv, latency/<framework>/<api>/case-NN/step-S/round-RR/results.jtl
                                          the latency profile's open-model pass (below)

Every reading problem is a ResultFileError that names the file, so a user knows where to look.
"""
import csv
import json
import re
from datetime import datetime, timezone
from pathlib import Path

from benchlib.cases import API_STYLES
from benchlib.jtl import JTL_FIELDS, measured

# 2: summary.csv always ends with in_flight_mean; run.json's per-item timings are under "load".
# 3: samples are counted by completion inside the measured window, and every item carries its
#    validity checks (VALIDITY_FIELDS) and CPU per request.
# 4: validity per metric: `validity` is the throughput's (and the CPU per request's, measured over
#    the same window), `latency_validity` the response times'; each item names the load generator
#    that measured it and what it cost (METRIC_FIELDS); crosscheck.csv rows are whole items in
#    summary.csv's columns; ceiling.csv has a row per load generator, attempt and thread count,
#    before and after the rounds; reference.json holds the reference work that characterises the
#    machine.
# 5: the item's round (which repeat of the matrix) is `round` in every file, as latency.csv and the
#    manifest already called it; versions 1-4 wrote `iteration`, which the readers below take as
#    `round` (OLD_NAMES).
SCHEMA_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)
# Column (and run.json) names of earlier schemas -> today's; summary_rows, load_summary, _read_table
# and benchlib.items.Record.from_json rename them as they read, so nothing past them sees the old name.
OLD_NAMES = {"iteration": "round"}

MANIFEST = "manifest.json"
SUMMARY = "summary.csv"
STATE = "state.json"
RUN_JSON = "run.json"
ITEM_FIELDS = ("framework", "api", "case", "requests", "rows", "joins", "round")


def _old_names(columns) -> list[str]:
    """`columns` as schemas 1-4 named them."""
    return [{new: old for old, new in OLD_NAMES.items()}.get(c, c) for c in columns]


JTL = "results.jtl"
PROC = "proc.csv"
# Version 3, at the run's root: the load generator's ceiling (collect/passes/ceiling.py), the second
# tool's measurements of some cells and memory per case (collect/passes/extra_passes.py).
CEILING = "ceiling.csv"
CEILING_V3_COLUMNS = ["threads", "iteration", "target", "window_s", "samples", "throughput_rps", "mean_ms",
                      "loadgen_cpu_mean_pct", "app_cpu_mean_pct", "machine_cpu_pct"]
# Version 4 (collect/passes/ceiling.py): `when` before or after the rounds, `attempt` counts the repeats
# until two agree; `loadgen_capacity_pct` is the CPU the generator can use (% of one core: its CPU
# set, or its threads if fewer), `saturated` whether it used 90 % of that, and `ceiling_rps` the
# ceiling itself: throughput_rps when saturated, else throughput_rps scaled up to the capacity by
# its CPU per request (the server could not saturate it).
CEILING_COLUMNS = ["loadgen", "when", "attempt", "threads", "target", "window_s", "samples", "throughput_rps",
                   "mean_ms", "loadgen_cpu_mean_pct", "loadgen_cpu_ms_per_req", "loadgen_capacity_pct",
                   "saturated", "ceiling_rps", "app_cpu_mean_pct", "machine_cpu_pct"]
MEMORY = "memory.csv"  # collect/passes/extra_passes.py: each case's memory, from fresh processes
MEMORY_COLUMNS = [*ITEM_FIELDS, "tool", "connections", "load_s", "requests_done", "hwm_mb", "rss_end_mb"]
CROSSCHECK = "crosscheck.csv"
# Before version 4: wrk's figures only. From version 4 a cross-check row is a whole item, measured
# by the other load generator, in SUMMARY_COLUMNS (its `loadgen` names the tool).
CROSSCHECK_V3_COLUMNS = ["tool", *_old_names(ITEM_FIELDS), "connections", "window_s", "samples", "throughput_rps",
                         "mean_ms", "p99_ms", "errors"]
REFERENCE = "reference.json"  # collect/passes/reference.py: the reference work that characterises the machine

# The latency profile's open-model pass (collect/passes/latency.py): one row per measurement, and each
# measurement's samples under latency/<framework>/<api>/case-NN/step-S/round-RR/results.jtl
# (timeStamp = send start, elapsed, label, success, intended_ms; latency = timeStamp + elapsed -
# intended_ms). A dropped arrival has no sample.
LATENCY = "latency.csv"
LATENCY_DIR = "latency"
LATENCY_COLUMNS = ["framework", "api", "case", "requests", "rows", "joins", "round", "step", "fraction",
                   "target_rps", "capacity_rps", "pool_threads", "window_s", "scheduled", "sent",
                   "completed", "errors", "achieved_rps", "late", "late_loadgen", "dropped", "p50_ms",
                   "p90_ms", "p95_ms", "p99_ms", "p999_ms", "service_p99_ms", "loadgen_cpu_mean_pct",
                   "machine_cpu_pct", "saturated", "validity", "validity_reasons"]


def latency_jtl(run_dir: Path, framework: str, api: str, case: int, step: int, round_: int) -> Path:
    return run_dir / LATENCY_DIR / framework / api / f"case-{case:02d}" / f"step-{step}" / f"round-{round_:02d}" / JTL


SAMPLER_FIELDS = ("cpu_peak_pct", "cpu_mean_pct", "rss_peak_mb", "mem_peak_pct", "db_cpu_mean_pct",
                  "loadgen_cpu_peak_pct", "loadgen_cpu_mean_pct")
LATER_FIELDS = ("in_flight_mean",)  # appended when it was added, so older files stay a prefix
# Version 3: each item's validity checks (collect/items/validity.py) and its CPU per request, appended.
VALIDITY_FIELDS = (
    "window_s",            # the measured window's length (clock-set, not from the samples)
    "threads",             # the case's threads (JMeter's, all engines together)
    "completed_threads",   # threads that completed at least one request inside the window
    "in_flight_start",     # requests started before the window and completed inside it (counted)
    "in_flight_end",       # requests still in flight when the window ended (not counted)
    "spanning",            # requests in flight over the whole window (started before, ended after)
    "littles_ratio",       # throughput x mean response time / threads (1 in a closed loop)
    "trend_pct",           # throughput's change over the window, % of its mean (least squares)
    "trend_p",             # the p-value of that slope (collect/items/validity.py WANDER_T_SCALE)
    "spread_cv",           # coefficient of variation of the throughput in the window's bins
    "machine_cpu_pct",     # app + database + load generator CPU, % of all cores
    "loadgen_share_pct",   # the load generator's CPU, % of all cores
    "ceiling_rps",         # what the load generator drove at these threads against the cheapest endpoint
    "ceiling_share",       # throughput / ceiling_rps
    "app_cpu_ms_per_req",  # the app's CPU time over the window / requests completed in it
    "db_cpu_ms_per_req",   # the database's, likewise
    "validity",            # valid | bound | invalid (VALIDITY_VERDICTS)
    "validity_reasons",    # ;-separated: why not valid, each `check: figure vs threshold`
)
VALIDITY_VERDICTS = ("valid", "bound", "invalid")
# Version 4, appended: the load generator and what it cost, and the response times' own validity.
# `validity` above is the throughput's; the CPU per request shares it (same window, same requests).
METRIC_FIELDS = (
    "loadgen",                 # the load generator that measured the item: wrk or jmeter
    "loadgen_cpu_ms_per_req",  # its CPU time over the window / requests completed in it (remote engines: the busiest's)
    "loadgen_ms_per_req",      # threads / throughput - mean response time: a connection's time outside
                               # requests, per request (recorded, never a reason to discard an item)
    "unserved",                # connections that completed no request inside the window
    "other_cpu_pct",           # this machine's CPU busy beyond the app, database, load generator and
                               # samplers (steal included), % of one core, from /proc/stat
    "steal_pct",               # of which stolen by the hypervisor, % of one core
    "latency_validity",        # valid | bound | unfair | invalid (LATENCY_VERDICTS): the response times'
    "latency_reasons",         # ;-separated, as validity_reasons
)
# bound: the throughput was the load generator's, so the threads waited in it, not in the server;
# unfair: the server left connections unserved for the whole window, so its response times describe
# the connections it served only (the throughput stands).
LATENCY_VERDICTS = ("valid", "bound", "unfair", "invalid")
SUMMARY_COLUMNS = [*ITEM_FIELDS, "status", "flags",
                   *(f for f in JTL_FIELDS if f not in LATER_FIELDS), *SAMPLER_FIELDS, *LATER_FIELDS,
                   *VALIDITY_FIELDS, *METRIC_FIELDS]
V4_COLUMNS = _old_names(SUMMARY_COLUMNS)
V3_COLUMNS = V4_COLUMNS[:-len(METRIC_FIELDS)]
V2_COLUMNS = V3_COLUMNS[:-len(VALIDITY_FIELDS)]
# Version 1 runs were written both before and after in_flight_mean existed.
ACCEPTED_HEADERS = {1: (V2_COLUMNS[:-len(LATER_FIELDS)], V2_COLUMNS), 2: (V2_COLUMNS,), 3: (V3_COLUMNS,),
                    4: (V4_COLUMNS,), 5: (SUMMARY_COLUMNS,)}
INT_COLUMNS = ["case", "requests", "rows", "joins", "round"]
TEXT_COLUMNS = ("validity", "validity_reasons", "loadgen", "latency_validity", "latency_reasons")
NUMBER_COLUMNS = [c for c in SUMMARY_COLUMNS[SUMMARY_COLUMNS.index("samples"):] if c not in TEXT_COLUMNS]
STATUSES = ("ok", "failed", "excluded")
PROC_COLUMNS = ["t_s", "role", "pid", "cpu_pct", "rss_kb"]
JTL_COLUMNS = {"timeStamp", "elapsed", "label", "success"}
RUN_ID = re.compile(r"^\d{8}-\d{6}-[A-Za-z0-9_.-]+$")


class ResultFileError(Exception):
    """A result file is missing or malformed; the message starts with the file's path."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path


# --- layout ------------------------------------------------------------------------------------------

# How result files write a time (manifest.json's created_at, run.json, state.json, reference.json).
TIMESTAMP = "%Y-%m-%dT%H:%M:%SZ"


def now_iso() -> str:
    """The time stamp result files record: UTC, to the second."""
    return datetime.now(timezone.utc).strftime(TIMESTAMP)


def new_run_id(profile: str) -> str:
    """UTC time first, so the newest run sorts last."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S") + f"-{profile}"


def item_key(item: dict) -> str:
    """The item's folder under its run, also its name in the manifest's order. Its round is still
    `iter-NN`, as before schema 5 named it: the folders and the order of runs already made identify
    their items by it, and a resumed run finds what it measured by these keys."""
    return f"{item['framework']}/{item['api']}/case-{item['case']:02d}/iter-{item['round']:02d}"


def item_dir(run_dir: Path, framework: str, api: str, case: int, round_: int) -> Path:
    return run_dir / item_key({"framework": framework, "api": api, "case": case, "round": round_})


def latest_run(results_dir: Path) -> Path:
    """Run ids start with a UTC timestamp, so the last in sort order is the newest."""
    if not results_dir.is_dir():
        raise ResultFileError(results_dir, "no such results directory; run `./testbed run` first")
    runs = sorted(p for p in results_dir.iterdir() if p.is_dir() and RUN_ID.match(p.name))
    if not runs:
        raise ResultFileError(results_dir, "holds no runs (results/<YYYYMMDD-HHMMSS-profile>/)")
    return runs[-1]


def find_run(results_dir: Path, run_id: str | None) -> Path:
    """The run called `run_id` under results_dir, or the latest one."""
    if not run_id:
        return latest_run(results_dir)
    run_dir = results_dir / run_id
    if Path(run_id).name != run_id or not run_dir.is_dir():
        raise ResultFileError(results_dir, f"holds no run {run_id!r}; `ls {results_dir}` lists the runs")
    return run_dir


# --- writing -----------------------------------------------------------------------------------------

def summary_row(item: dict, status: str, flags: list[str], jtl: dict, samplers: dict,
                checks: dict | None = None) -> dict:
    """`checks`: the item's VALIDITY_FIELDS (collect/items/validity.py); absent for failed and excluded."""
    row = {key: item[key] for key in ITEM_FIELDS}
    row.update(status=status, flags=";".join(flags))
    row.update({key: jtl.get(key) for key in JTL_FIELDS})
    row.update(samplers)
    row.update(checks or {})
    return {key: "" if row.get(key) is None else row[key] for key in SUMMARY_COLUMNS}


def append_rows(path: Path, columns: list[str], rows: list[dict]) -> None:
    """Adds `rows` to a run's CSV file (None as ""), with the header first when the file is new or
    empty: an interrupt that lands after the file is created and before its first write leaves it
    empty, and a header written only for a missing file then never comes, so the resume would read
    its first row as the header."""
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, columns, lineterminator="\n")
        if f.tell() == 0:
            writer.writeheader()
        writer.writerows({k: "" if row.get(k) is None else row[k] for k in columns} for row in rows)


def append_summary(path: Path, row: dict) -> None:
    append_rows(path, SUMMARY_COLUMNS, [row])


def summary_rows(path: Path) -> list[dict]:
    """summary.csv, or another file of its item columns (crosscheck.csv, memory.csv), as it stands,
    unvalidated (the writer's own view, e.g. to resume), old column names read as today's; [] if
    none."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [{OLD_NAMES.get(k, k): v for k, v in row.items()} for row in csv.DictReader(f)]


# --- reading, validated (analysis) ---------------------------------------------------------------

def read_json(path: Path) -> dict:
    if not path.is_file():
        raise ResultFileError(path, "missing")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"not valid JSON ({e})") from None
    if not isinstance(data, dict):
        raise ResultFileError(path, "must hold a JSON object")
    return data


def load_manifest(path: Path) -> dict:
    manifest = read_json(path)
    check_manifest(manifest, path)
    return manifest


def check_manifest(manifest: dict, path: Path) -> None:
    """What every reader needs of a manifest, whatever its schema: a readable schema_version, the
    run_id and the machine's cores. Anything else may be missing from an older run."""
    if manifest.get("schema_version") not in READABLE_VERSIONS:
        raise ResultFileError(path, f"schema_version must be one of {READABLE_VERSIONS}, "
                                    f"not {manifest.get('schema_version')!r}")
    if not isinstance(manifest.get("run_id"), str):
        raise ResultFileError(path, "run_id is missing")
    machine = manifest.get("machine")
    cores = machine.get("cores") if isinstance(machine, dict) else None
    if not isinstance(cores, int) or cores < 1:
        raise ResultFileError(path, f"machine.cores must be a positive integer, not {cores!r}")


def load_summary(path: Path, schema_version: int = SCHEMA_VERSION):
    """(rows as a DataFrame, typed, the last row per cell; how many rows a later one superseded)."""
    import pandas as pd
    if not path.is_file():
        raise ResultFileError(path, "missing")
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"not a readable CSV ({str(e).strip()})") from None
    if list(table.columns) not in [list(h) for h in ACCEPTED_HEADERS[schema_version]]:
        raise ResultFileError(path, "header differs from the contract; expected "
                                    + ",".join(SUMMARY_COLUMNS))
    table = table.rename(columns=OLD_NAMES)
    for i, row in table.iterrows():
        _check_summary_row(path, i + 2, row)  # line 1 is the header
    for column in INT_COLUMNS:
        table[column] = table[column].astype(int)
    for column in table.columns.intersection(NUMBER_COLUMNS):
        table[column] = pd.to_numeric(table[column].replace("", None), errors="coerce")
    # A resumed run may re-run a cell; its later row is the one that counts.
    key = ["framework", "api", "case", "round"]
    deduplicated = table.drop_duplicates(key, keep="last").reset_index(drop=True)
    return deduplicated, len(table) - len(deduplicated)


def _check_summary_row(path: Path, line: int, row) -> None:
    def bad(problem):
        raise ResultFileError(path, f"line {line}: {problem}")
    if not row["framework"]:
        bad("framework is empty")
    if row["api"] not in API_STYLES:
        bad(f"api must be one of {', '.join(API_STYLES)}, not {row['api']!r}")
    if row["status"] not in STATUSES:
        bad(f"status must be one of {', '.join(sorted(STATUSES))}, not {row['status']!r}")
    if "validity" in row.index and row["validity"] not in ("", *VALIDITY_VERDICTS):
        bad(f"validity must be one of {', '.join(VALIDITY_VERDICTS)} or empty, not {row['validity']!r}")
    if "latency_validity" in row.index and row["latency_validity"] not in ("", *LATENCY_VERDICTS):
        bad(f"latency_validity must be one of {', '.join(LATENCY_VERDICTS)} or empty, not {row['latency_validity']!r}")
    for column in INT_COLUMNS:
        if not row[column].isdigit():
            bad(f"{column} must be a non-negative integer, not {row[column]!r}")
    for column in row.index.intersection(NUMBER_COLUMNS):
        value = row[column]
        if value == "":
            continue  # not measured: a failed or excluded cell, or a sampler that saw no process
        try:
            float(value)
        except ValueError:
            bad(f"{column} must be a number, not {value!r}")


def _read_table(path: Path, required: set):
    """The `required` columns of a CSV file, each under today's name: an earlier schema's (OLD_NAMES),
    in the file or in `required` (a schema 3 file's own columns), is read as today's."""
    import pandas as pd
    if not path.is_file():
        raise ResultFileError(path, "missing")
    wanted = {OLD_NAMES.get(c, c): c for c in required}  # today's name -> as the caller named it
    try:
        table = pd.read_csv(path, usecols=lambda c: OLD_NAMES.get(c, c) in wanted, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"not a readable CSV ({str(e).strip()})") from None
    table = table.rename(columns=OLD_NAMES)
    missing = [named for name, named in wanted.items() if name not in table.columns]
    if missing:
        raise ResultFileError(path, f"lacks column(s) {', '.join(sorted(missing))}")
    return table


def load_reference(path: Path) -> dict:
    """reference.json (schema 4, collect/passes/reference.py): the reference work of a run's machine."""
    data = read_json(path)
    for key in ("apps", "loadgens", "database"):
        if not isinstance(data.get(key), dict):
            raise ResultFileError(path, f"{key} is missing or not an object")
    return data


def load_run_table(path: Path, columns: list[str]):
    """A run-level table of schema 3 (ceiling.csv, crosscheck.csv, memory.csv): its `columns`, each
    required."""
    return _read_table(path, set(columns))


def load_jtl(path: Path):
    """The measured samples of a JMeter CSV JTL (as summary.csv counts them: by completion inside
    the window its run.json records, or by label before schema 3): elapsed ms and success."""
    import pandas as pd
    jtl = _read_table(path, JTL_COLUMNS)
    for column in ("timeStamp", "elapsed"):
        values = pd.to_numeric(jtl[column], errors="coerce")
        if values.isna().any():
            line = int(values.isna().to_numpy().nonzero()[0][0]) + 2
            raise ResultFileError(path, f"line {line}: {column} must be a number")
        jtl[column] = values
    jtl["success"] = jtl["success"].astype(str).str.lower() == "true"
    return measured(jtl, recorded_window(path.parent / RUN_JSON)).reset_index(drop=True)


def recorded_window(run_json: Path) -> tuple[int, int] | None:
    """The measured window (epoch ms) an item's run.json records; None before schema 3."""
    try:
        window = json.loads(run_json.read_text()).get("window") or {}
    except (OSError, ValueError):
        return None
    measured_ms = window.get("measured_ms")
    return tuple(measured_ms) if measured_ms else None


# A latency JTL's columns the report reads (the samples' latency from their intended send time).
LATENCY_JTL_COLUMNS = {"timeStamp", "elapsed", "intended_ms"}


def load_latency_jtl(path: Path):
    """A latency measurement's samples as latencies from the intended send time, ms (a numpy array):
    timeStamp + elapsed - intended_ms. The file holds only the window's requests."""
    import pandas as pd
    jtl = _read_table(path, LATENCY_JTL_COLUMNS)
    for column in LATENCY_JTL_COLUMNS:
        values = pd.to_numeric(jtl[column], errors="coerce")
        if values.isna().any():
            line = int(values.isna().to_numpy().nonzero()[0][0]) + 2
            raise ResultFileError(path, f"line {line}: {column} must be a number")
        jtl[column] = values
    return (jtl["timeStamp"] + jtl["elapsed"] - jtl["intended_ms"]).to_numpy()


def load_proc(path: Path):
    """The /proc sampler's file: t_s,role,pid,cpu_pct,rss_kb at 10 Hz."""
    import pandas as pd
    proc = _read_table(path, set(PROC_COLUMNS))
    for column in ("t_s", "cpu_pct", "rss_kb"):
        values = pd.to_numeric(proc[column], errors="coerce")
        if values.isna().any():
            line = int(values.isna().to_numpy().nonzero()[0][0]) + 2
            raise ResultFileError(path, f"line {line}: {column} must be a number")
        proc[column] = values
    return proc
