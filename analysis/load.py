"""One run's results as the analysis uses them, read through benchlib/results.py (the layout and
schema, with its validation); analysis modules read no result file any other way.

The readers are imported here so the analysis modules have one place to take them from.
"""
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.metrics import ordered_frameworks
from benchlib.results import (MANIFEST, SUMMARY, ResultFileError, item_dir, latest_run,  # noqa: F401
                              load_jtl, load_manifest, load_proc, load_run_json, load_summary)


@dataclass
class Run:
    """A finished (or partial) run's results; not to be confused with the run being measured
    (collect/engine.py's RunEngine)."""
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
        return item_dir(self.dir, framework, api, case, iteration)

    def display_name(self, framework: str) -> str:
        return self.entry(framework).get("display_name", framework)

    def entry(self, arm: str) -> dict:
        """The manifest's `frameworks[arm]` (framework.json as that variant ran it), {} if absent."""
        entry = self.manifest.get("frameworks", {}).get(arm, {})
        return entry if isinstance(entry, dict) else {}

    def base(self, arm: str) -> str:
        """The framework an arm runs (`aspnet` for `aspnet:net8`). Runs before variants have no
        `base` key; their arm names are the framework names."""
        return self.entry(arm).get("base") or arm.split(":")[0]

    def variant_name(self, arm: str) -> str:
        """The variant an arm runs: `variant_run` of the manifest, else the part after ':' (the
        default arm of a run before variants: `default`)."""
        variant = self.entry(arm).get("variant")
        return (self.entry(arm).get("variant_run") or (variant.get("name") if isinstance(variant, dict) else None)
                or (arm.split(":", 1)[1] if ":" in arm else "default"))

    @property
    def arms(self) -> list[str]:
        """Every arm of the run: those the user named (settings.frameworks), in that order, then
        any other arm summary.csv holds, in the study's order (aspnet, express, then by name)."""
        named = self.manifest.get("settings", {}).get("frameworks")
        named = [a for a in named if isinstance(a, str)] if isinstance(named, list) else []
        seen = set(named)
        rest = [a for a in ordered_frameworks(self.summary["framework"]) if a not in seen]
        return list(dict.fromkeys(named)) + rest


def load_run(run_dir: Path) -> Run:
    if not run_dir.is_dir():
        raise ResultFileError(run_dir, "no such run directory")
    manifest = load_manifest(run_dir / MANIFEST)
    summary, duplicates = load_summary(run_dir / SUMMARY, manifest["schema_version"])
    return Run(run_dir, manifest, summary, duplicates)
