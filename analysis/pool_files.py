"""A pool folder (`./testbed pool`, results/pool-<first>-<last>/) as its writer and its readers
(`./testbed compare`) share it: what runs must have in common to be pooled, the manifest's
schema, and the spread between runs per family (families.csv) read back.

A pool's manifest.json: `schema_version` (SCHEMA_VERSION), `kind` "pool", `runs` (the run ids
pooled, oldest first), `git_commit`, `git_dirty`, `code_commit` (this code's, which computed it),
`recorded` (what the runs share besides the commit, flat: MATCHED's keys), `model` (the estimator,
the interval and the adjustment, in words), `families` and `families_with_tau` (how many families
the pool has, and how many a tau could be estimated for)."""
from dataclasses import dataclass
from pathlib import Path

from analysis.differing import flat
from analysis.load import Run, load_run_table
from analysis.records import Placement
from benchlib.results import ResultFileError, read_json

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
FAMILIES = "families.csv"
PREFIX = "pool-"
RATIO, OWN = "ratio", "own"
COMMIT = "commit"
# What runs must share to be pooled, in the order a refusal names them.
MATCHED = (COMMIT, "data set", "load generator", "layout", "machine", "settings")
FAMILY_KEY = ["kind", "numerator", "denominator", "api", "metric"]
FAMILY_COLUMNS = [*FAMILY_KEY, "runs", "cells", "tau", "tau2", "dl_tau", "q_cochran", "df", "q_p", "i2"]


def recorded(run: Run) -> dict:
    """What runs must share to be pooled (MATCHED), flat (`settings.cases`, `machine.cores`)."""
    m = run.manifest
    placement = m.layout or m.pinning or Placement()
    return flat({COMMIT: f"{m.git_commit}{' (dirty tree)' if m.git_dirty else ''}",
                 "data set": m.dataset_checksum, "load generator": m.loadgen_tool,
                 "layout": {"load generator on its own cores": placement.applied},
                 "machine": {"cpu": m.machine.cpu_model, "cores": m.machine.cores},
                 "settings": dict(m.settings.recorded)})


def shared(run: Run) -> dict:
    """recorded() less the commit: what a pool's tau says something about."""
    return {k: v for k, v in recorded(run).items() if k != COMMIT}


@dataclass(frozen=True)
class Spread:
    """The spread between runs a pool found: `taus` maps each family (FAMILY_KEY's values) to
    (tau, the degrees of freedom it rests on); families without a tau are absent."""
    folder: Path
    runs: tuple[str, ...]
    git_commit: str | None
    shared: dict
    taus: dict

    def tau(self, *family) -> tuple[float, float] | None:
        return self.taus.get(tuple(family))


def read(folder: Path) -> Spread:
    """A pool folder's spread between runs; ResultFileError naming the file it cannot read."""
    manifest = read_json(folder / MANIFEST)
    if manifest.get("kind") != "pool" or manifest.get("schema_version") != SCHEMA_VERSION:
        raise ResultFileError(folder / MANIFEST, f"is not a pool's manifest of schema {SCHEMA_VERSION} "
                                                 "(written by ./testbed pool)")
    families = load_run_table(folder / FAMILIES, FAMILY_COLUMNS).fillna({"denominator": ""})
    known = families[families["tau"].notna()]
    return Spread(folder, tuple(manifest.get("runs") or ()), manifest.get("git_commit"),
                  dict(manifest.get("recorded") or {}),
                  {tuple(r[k] for k in FAMILY_KEY): (float(r["tau"]), float(r["df"])) for _, r in known.iterrows()})


def folders(results_dir: Path) -> list[Path]:
    """The pool folders under results_dir, by name (the runs' ids start with their time, so a pool
    whose runs began later sorts later)."""
    if not results_dir.is_dir():
        return []
    return sorted(p for p in results_dir.iterdir() if p.is_dir() and p.name.startswith(PREFIX))
