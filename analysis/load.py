"""One run's results as the analysis uses them, read through benchlib/results.py (the layout and
schema, with its validation); analysis modules read no result file any other way.

The readers are imported here so the analysis modules have one place to take them from.
"""
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.metrics import LITTLES_MEAN, ordered_frameworks
from analysis.records import Arm, Manifest
from benchlib.items import Record, read_record
from benchlib.results import (LATENCY, LATENCY_COLUMNS, MANIFEST, METRIC_FIELDS, RUN_JSON, SUMMARY,  # noqa: F401
                              TEXT_COLUMNS, VALIDITY_FIELDS, ResultFileError, item_dir, latency_jtl, latest_run,
                              load_jtl, load_latency_jtl, load_manifest, load_proc, load_run_table,
                              load_summary)

# The first schema whose items carry their validity checks (collect/items/validity.py), and the first
# that judges the throughput and the response times apart.
CHECKED_SCHEMA = 3
PER_METRIC_SCHEMA = 4


@dataclass
class Run:
    """A finished (or partial) run's results; not to be confused with the run being measured
    (collect/run/run_loop.py's RunLoop)."""
    dir: Path
    manifest: Manifest     # read once into records (analysis/records.py)
    summary: pd.DataFrame  # one row per framework x api x case x round, validated
    duplicates: int        # rows of summary.csv superseded by a later row for the same cell

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    @property
    def cores(self) -> int:
        return self.manifest.machine.cores

    def cell_dir(self, framework: str, api: str, case: int, round_: int) -> Path:
        return item_dir(self.dir, framework, api, case, round_)

    def item(self, framework: str, api: str, case: int, round_: int) -> Record:
        """The item's run.json (benchlib/items.py)."""
        return read_record(self.cell_dir(framework, api, case, round_) / RUN_JSON)

    def display_name(self, framework: str) -> str:
        return self.entry(framework).display_name

    def entry(self, arm: str) -> Arm:
        """The manifest's `frameworks[arm]` (framework.json as that variant ran it); the defaults of
        the arm's name if absent."""
        return self.manifest.arm(arm)

    def base(self, arm: str) -> str:
        """The framework an arm runs (`aspnet` for `aspnet:net8`). Runs before variants have no
        `base` key; their arm names are the framework names."""
        return self.entry(arm).base

    def variant_name(self, arm: str) -> str:
        """The variant an arm runs: `variant_run` of the manifest, else the part after ':' (the
        default arm of a run before variants: `default`)."""
        return self.entry(arm).variant

    @property
    def checked(self) -> bool:
        """Whether the run's items carry validity checks; older runs predate them."""
        return self.manifest.schema_version >= CHECKED_SCHEMA

    @property
    def arms(self) -> list[str]:
        """Every arm of the run: those the user named (settings.frameworks), in that order, then
        any other arm summary.csv holds, in the study's order (aspnet, express, then by name)."""
        named = self.manifest.settings.frameworks
        seen = set(named)
        rest = [a for a in ordered_frameworks(self.summary["framework"]) if a not in seen]
        return list(dict.fromkeys(named)) + rest


def load_run(run_dir: Path) -> Run:
    if not run_dir.is_dir():
        raise ResultFileError(run_dir, "no such run directory")
    manifest = Manifest.from_dict(load_manifest(run_dir / MANIFEST), run_dir / MANIFEST)
    summary, duplicates = load_summary(run_dir / SUMMARY, manifest.schema_version)
    # Runs before the checks get their columns empty, so every module reads one shape of summary.
    for column in (*VALIDITY_FIELDS, *METRIC_FIELDS):
        if column not in summary.columns:
            summary[column] = "" if column in TEXT_COLUMNS else float("nan")
    if manifest.schema_version < PER_METRIC_SCHEMA:
        # One verdict then covered every metric (Little's law and every thread served included).
        summary["latency_validity"] = summary["validity"]
        summary["latency_reasons"] = summary["validity_reasons"]
    summary[LITTLES_MEAN] = littles_mean_ms(summary, manifest.schema_version >= CHECKED_SCHEMA)
    return Run(run_dir, manifest, summary, duplicates)


def littles_mean_ms(summary: pd.DataFrame, closed_loop: bool) -> pd.Series:
    """Per item, connections / throughput in ms: by Little's law the mean time a request spends in
    a closed loop without think time, every connection counted, those a server leaves waiting
    included (the window's sample mean counts only the requests it completed, so it leaves them out:
    analysis.claims TIME). It includes the load generator's own time per request
    (loadgen_ms_per_req: a median of -0.05 ms, half of the items within -0.6 and 0.1 ms, on a
    default run's items with valid response times, against means of 20 ms and more). Only a checked
    run's items are known to be such loops (collect/items/validity.py checks Little's law on them); older
    runs, whose threads could wait between requests, keep the sample mean."""
    if not closed_loop:
        return summary["mean_ms"]
    return summary["threads"] * 1000 / summary["throughput_rps"].where(summary["throughput_rps"] > 0)


def run_table(path: Path, columns: list[str]) -> tuple[pd.DataFrame | None, str]:
    """A run-level table that only some runs have (ceiling.csv, crosscheck.csv, memory.csv): the
    table and "", or None and why there is none. A missing or malformed one never stops the report:
    the section that needed it says why it is empty."""
    if not path.is_file():
        return None, f"this run has no {path.name}"
    try:
        return load_run_table(path, columns), ""
    except ResultFileError as e:
        return None, f"{path.name}: {str(e).removeprefix(f'{path}: ')}"
