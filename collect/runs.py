"""Creating a run (its folder and manifest.json) and resuming one that was cut short."""
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from benchlib.console import fail
from benchlib.files import write_json
from benchlib.paths import bind_address
from benchlib.processes import alive
from benchlib.results import MANIFEST, STATE
from collect import run_manifest
from collect.run_context import RunContext
from collect.run_loop import RunLoop
from collect.profiles import Profile
from collect.remote import Engines


@dataclass
class RunOptions:
    """What a new run measures; recorded in its manifest as `settings`."""
    profile: Profile
    frameworks: list[str]
    apis: list[str]
    cases: list[int]
    pin: bool | None  # None: the layout is chosen by measurement
    results_root: Path
    engines: Engines | None = None  # None: the load generator runs on this machine
    loadgen: str = "auto"  # wrk, jmeter, or auto: chosen by measurement
    seed: int = field(default_factory=lambda: random.SystemRandom().randrange(1, 2 ** 31))
    aa: str | None = None  # an A/A run: the framework whose two processes are the arms

    def recorded(self) -> dict:
        return {"profile": self.profile.settings(), "frameworks": self.frameworks,
                "apis": self.apis, "cases": self.cases, "iterations": self.profile.iterations,
                "pin": {True: "pin", False: "no-pin"}.get(self.pin, "auto"), "loadgen": self.loadgen,
                "bind_address": bind_address(), "aa": self.aa,
                **(self.engines.recorded() if self.engines else {})}


def create(options: RunOptions, frameworks: dict, jmeter: str, db, layout: dict) -> RunLoop:
    manifest = run_manifest.build(options, frameworks, jmeter, db, layout)
    run_dir = options.results_root / manifest["run_id"]
    try:
        run_dir.mkdir()
    except FileExistsError:
        fail(f"{run_dir} already exists; results are never overwritten: wait a second and retry.")
    write_json(run_dir / MANIFEST, manifest)
    return RunLoop(RunContext(run_dir, manifest, frameworks, jmeter, db, engines=options.engines))


def recorded(results_root: Path, run_id: str) -> dict:
    """The manifest of a run that can be resumed; a clear error for one that cannot."""
    run_dir = results_root / run_id
    if Path(run_id).name != run_id:
        fail(f"--resume takes a run id (a folder name under {results_root}), not {run_id!r}.")
    try:
        manifest = json.loads((run_dir / MANIFEST).read_text())
    except (OSError, ValueError):
        fail(f"no run {run_id} under {results_root} (no readable manifest.json).")
    try:
        state = json.loads((run_dir / STATE).read_text())
    except (OSError, ValueError):
        state = {}
    if state.get("status") == "complete":
        fail(f"run {run_id} is already complete; start a new run instead.")
    if state.get("status") == "running" and state.get("pid") != os.getpid() and alive(state.get("pid")):
        fail(f"run {run_id} is still running (pid {state['pid']}).")
    if not os.access(run_dir, os.W_OK):
        fail(f"cannot write into {run_dir}; make it writable to resume.")
    return manifest


def resume(results_root: Path, run_id: str, frameworks: dict, jmeter: str, db,
           engines: Engines | None = None) -> RunLoop:
    return RunLoop(RunContext(results_root / run_id, recorded(results_root, run_id), frameworks, jmeter, db,
                              engines=engines))
