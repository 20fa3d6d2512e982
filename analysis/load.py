"""Read and validate one run's result files (layout: briefs/common.md, DESIGN §7).

Every problem is a ResultFileError that names the file, so a user knows which file to look at.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from cli.jmeter import WARMUP_PREFIX

SUMMARY_COLUMNS = [
    "framework", "api", "case", "requests", "rows", "joins", "iteration", "status", "flags",
    "samples", "errors", "error_pct", "throughput_rps", "mean_ms", "min_ms", "max_ms",
    "p50_ms", "p90_ms", "p95_ms", "p99_ms", "cpu_peak_pct", "cpu_mean_pct", "rss_peak_mb",
    "mem_peak_pct", "db_cpu_mean_pct", "loadgen_cpu_peak_pct", "loadgen_cpu_mean_pct"]
# Added after the first runs were made; runs without it still load.
LATER_COLUMNS = ["in_flight_mean"]
INT_COLUMNS = ["case", "requests", "rows", "joins", "iteration"]
NUMBER_COLUMNS = SUMMARY_COLUMNS[SUMMARY_COLUMNS.index("samples"):] + LATER_COLUMNS
STATUSES = {"ok", "failed", "excluded"}
APIS = ("rest", "graphql")
PROC_COLUMNS = ["t_s", "role", "pid", "cpu_pct", "rss_kb"]
JTL_COLUMNS = {"timeStamp", "elapsed", "label", "success"}
RUN_ID = re.compile(r"^\d{8}-\d{6}-[A-Za-z0-9_.-]+$")


class ResultFileError(Exception):
    """A result file is missing or malformed; the message starts with the file's path."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path


@dataclass
class Run:
    dir: Path
    manifest: dict
    summary: pd.DataFrame  # one row per framework x api x case x iteration, validated
    duplicates: int        # rows of summary.csv superseded by a later row for the same cell

    @property
    def run_id(self) -> str:
        return self.manifest["run_id"]

    @property
    def cores(self) -> int:
        return int(self.manifest["machine"]["cores"])

    def cell_dir(self, framework: str, api: str, case: int, iteration: int) -> Path:
        return self.dir / framework / api / f"case-{case:02d}" / f"iter-{iteration:02d}"

    def display_name(self, framework: str) -> str:
        return self.manifest.get("frameworks", {}).get(framework, {}).get("display_name", framework)


def latest_run(results_dir: Path) -> Path:
    """Run ids start with a UTC timestamp, so the last in sort order is the newest."""
    if not results_dir.is_dir():
        raise ResultFileError(results_dir, "no such results directory; run `./testbed run` first")
    runs = sorted(p for p in results_dir.iterdir() if p.is_dir() and RUN_ID.match(p.name))
    if not runs:
        raise ResultFileError(results_dir, "holds no runs (results/<YYYYMMDD-HHMMSS-profile>/)")
    return runs[-1]


def load_run(run_dir: Path) -> Run:
    if not run_dir.is_dir():
        raise ResultFileError(run_dir, "no such run directory")
    manifest = load_manifest(run_dir / "manifest.json")
    summary, duplicates = load_summary(run_dir / "summary.csv")
    return Run(run_dir, manifest, summary, duplicates)


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
    if manifest.get("schema_version") != 1:
        raise ResultFileError(path, f"schema_version must be 1, not {manifest.get('schema_version')!r}")
    if not isinstance(manifest.get("run_id"), str):
        raise ResultFileError(path, "run_id is missing")
    cores = manifest.get("machine", {}).get("cores")
    if not isinstance(cores, int) or cores < 1:
        raise ResultFileError(path, f"machine.cores must be a positive integer, not {cores!r}")
    return manifest


def load_summary(path: Path) -> tuple[pd.DataFrame, int]:
    if not path.is_file():
        raise ResultFileError(path, "missing")
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"not a readable CSV ({str(e).strip()})") from None
    if list(table.columns) not in (SUMMARY_COLUMNS, SUMMARY_COLUMNS + LATER_COLUMNS):
        raise ResultFileError(path, "header differs from the contract; expected "
                                    + ",".join(SUMMARY_COLUMNS + LATER_COLUMNS))
    for i, row in table.iterrows():
        check_summary_row(path, i + 2, row)  # line 1 is the header
    for column in INT_COLUMNS:
        table[column] = table[column].astype(int)
    for column in table.columns.intersection(NUMBER_COLUMNS):
        table[column] = pd.to_numeric(table[column].replace("", None), errors="coerce")
    # A resumed run may re-run a cell; its later row is the one that counts.
    key = ["framework", "api", "case", "iteration"]
    deduplicated = table.drop_duplicates(key, keep="last").reset_index(drop=True)
    return deduplicated, len(table) - len(deduplicated)


def check_summary_row(path: Path, line: int, row) -> None:
    def bad(problem):
        raise ResultFileError(path, f"line {line}: {problem}")
    if not row["framework"]:
        bad("framework is empty")
    if row["api"] not in APIS:
        bad(f"api must be one of {', '.join(APIS)}, not {row['api']!r}")
    if row["status"] not in STATUSES:
        bad(f"status must be one of {', '.join(sorted(STATUSES))}, not {row['status']!r}")
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


def load_run_json(path: Path) -> dict:
    data = read_json(path)
    for key in ("framework", "api", "case", "iteration", "status"):
        if key not in data:
            raise ResultFileError(path, f"{key} is missing")
    if data["status"] not in STATUSES:
        raise ResultFileError(path, f"status must be one of {', '.join(sorted(STATUSES))}")
    return data


def read_table(path: Path, required: set) -> pd.DataFrame:
    if not path.is_file():
        raise ResultFileError(path, "missing")
    try:
        table = pd.read_csv(path, usecols=lambda c: c in required, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"not a readable CSV ({str(e).strip()})") from None
    missing = required - set(table.columns)
    if missing:
        raise ResultFileError(path, f"lacks column(s) {', '.join(sorted(missing))}")
    return table


def load_jtl(path: Path) -> pd.DataFrame:
    """The measured samples of a JMeter CSV JTL (warm-up samples, labelled by the plans with
    WARMUP_PREFIX, left out, as summary.csv leaves them out): elapsed ms and success."""
    jtl = read_table(path, JTL_COLUMNS)
    elapsed = pd.to_numeric(jtl["elapsed"], errors="coerce")
    if elapsed.isna().any():
        line = int(elapsed.isna().to_numpy().nonzero()[0][0]) + 2
        raise ResultFileError(path, f"line {line}: elapsed must be a number")
    jtl["elapsed"] = elapsed
    jtl["success"] = jtl["success"].astype(str).str.lower() == "true"
    return jtl[~jtl["label"].astype(str).str.startswith(WARMUP_PREFIX)].reset_index(drop=True)


def load_proc(path: Path) -> pd.DataFrame:
    """The /proc sampler's file: t_s,role,pid,cpu_pct,rss_kb at 10 Hz."""
    proc = read_table(path, set(PROC_COLUMNS))
    for column in ("t_s", "cpu_pct", "rss_kb"):
        values = pd.to_numeric(proc[column], errors="coerce")
        if values.isna().any():
            line = int(values.isna().to_numpy().nonzero()[0][0]) + 2
            raise ResultFileError(path, f"line {line}: {column} must be a number")
        proc[column] = values
    return proc
