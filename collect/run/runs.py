"""Opening a run, one way for every runner (`./testbed run`, collect/run/matrix.py; the Docker runner,
collect/run/external_run.py; `./testbed load`, collect/run/single_load.py): its specification (RunSpec),
built from the runner's options or read back from a cut-short run's manifest (spec_from_manifest),
then its folder and manifest, claimed and written or taken up again, as the RunContext its run loop
measures with (open_run)."""
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchlib.console import fail
from benchlib.engines import Endpoint, parse_endpoints
from benchlib.files import write_json
from benchlib.paths import IDS, bind_address
from benchlib.processes import alive
from benchlib.results import MANIFEST, STATE
from collect.items.profiles import Profile
from collect.load.remote import Engines
from collect.passes.run_context import RunContext

LAYOUTS = {True: "pin", False: "no-pin"}  # settings.pin as recorded; neither: "auto"


def drawn_seed() -> int:
    """A new run's seed when none is asked for; recorded, so that its order can be drawn again."""
    return random.SystemRandom().randrange(1, 2 ** 31)


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """What a run measures, recorded in its manifest as `settings` and `seed`. Tuples rather than
    lists, so that nothing holding a spec can change it under another."""
    results_root: Path
    profile: Profile
    frameworks: tuple[str, ...]  # the arms: framework, or framework:variant
    apis: tuple[str, ...]
    cases: tuple[int, ...]
    pin: bool | None = None  # None: the layout is chosen by measurement
    loadgen: str = "auto"  # wrk, jmeter, or auto: chosen by measurement
    seed: int = field(default_factory=drawn_seed)
    aa: str | None = None  # an A/A run: the framework whose two processes are the arms
    engines: tuple[Endpoint, ...] = ()  # JMeter remote engines; none: the load is sent from this machine
    ssl: bool = True  # RMI over SSL to the engines
    bind: str | None = None  # where the apps listen; None: loopback, or the address the engines reach
    resumes: str | None = None  # the cut-short run (its id) whose manifest this spec was read from

    def recorded(self) -> dict:
        """The manifest's `settings`. Where the apps listen is recorded as decided once the engines
        answered (TESTBED_BIND_ADDRESS), which a resumed run reads back as its `bind`."""
        return {"profile": self.profile.settings(), "frameworks": list(self.frameworks),
                "apis": list(self.apis), "cases": list(self.cases), "iterations": self.profile.rounds,
                "pin": LAYOUTS.get(self.pin, "auto"), "loadgen": self.loadgen,
                "bind_address": bind_address(), "aa": self.aa,
                **({"engines": [str(e) for e in self.engines], "ssl": self.ssl} if self.engines else {})}


def spec_from_manifest(manifest: dict, folder: Path) -> RunSpec:
    """The spec that opened the run in `folder`, as its manifest recorded it: what a resumed run
    measures the rest with."""
    settings = manifest["settings"]
    return RunSpec(results_root=folder.parent, profile=Profile.from_recorded(settings["profile"]),
                   frameworks=tuple(settings["frameworks"]), apis=tuple(settings["apis"]),
                   cases=tuple(settings["cases"]), pin={v: k for k, v in LAYOUTS.items()}.get(settings.get("pin")),
                   loadgen=settings.get("loadgen", "jmeter"),  # runs made before wrk measured had JMeter
                   seed=manifest["seed"], aa=settings.get("aa"),
                   engines=tuple(parse_endpoints(e)[0] for e in settings.get("engines", [])),
                   ssl=settings.get("ssl", True), bind=settings.get("bind_address"), resumes=folder.name)


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


def resumable(results_root: Path, run_id: str) -> RunSpec:
    """The spec of the cut-short run `run_id`; a clear error for a run that cannot be resumed."""
    return spec_from_manifest(recorded(results_root, run_id), results_root / run_id)


@dataclass(frozen=True, kw_only=True)
class NewRun:
    """How a runner names a new run and records it."""
    run_ids: tuple[str, ...]  # tried in order: the run takes the first that no run holds yet
    manifest: Callable[[str], dict]  # the run's manifest, given its id
    taken: str  # the error when every id is taken
    unwritable: str = ""  # what the error adds when the results folder cannot be written


def claim(results_root: Path, new: NewRun) -> tuple[Path, dict]:
    """The new run's folder, made at once so that two runs never share one and no result is
    overwritten, with its manifest written."""
    for run_id in new.run_ids:
        folder = results_root / run_id
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as e:
            fail(f"cannot write to {folder} ({e.strerror}){new.unwritable}.")
        try:
            manifest = new.manifest(run_id)
        except BaseException:  # a run that did not open leaves no folder, as when the manifest came first
            folder.rmdir()
            raise
        write_json(folder / MANIFEST, manifest)
        return folder, manifest
    fail(new.taken)


def open_run(spec: RunSpec, new: NewRun | None, *, frameworks: dict[str, dict] | None, jmeter: str, db,
             engines: Engines | None = None, ids: Path = IDS) -> RunContext:
    """The run `spec` asks for, ready for its run loop: the cut-short run it resumes, or a new one
    named and recorded as `new` says. `frameworks`: the arms' framework.json; None: the manifest's
    entries, for apps something else runs. `engines`: the remote engines, connected."""
    if spec.resumes:
        folder, manifest = spec.results_root / spec.resumes, recorded(spec.results_root, spec.resumes)
    else:
        folder, manifest = claim(spec.results_root, new)
    return RunContext(dir=folder, manifest=manifest, frameworks=manifest["frameworks"] if frameworks is None
                      else frameworks, jmeter=jmeter, db=db, engines=engines, ids=ids)
