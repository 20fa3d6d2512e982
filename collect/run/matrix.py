"""`./testbed run` from its options to a finished run: pre-flight checks, set-up (packages, the
database, the data set, built apps), a new or resumed run, and its execution."""
import os
import signal
from dataclasses import dataclass, replace
from pathlib import Path

from benchlib import apps, builds, database, interrupts, toolchains
from benchlib.cases import API_STYLES, STUDY_PAIR, cases
from benchlib.console import fail, say
from benchlib.dataset import seed as seed_dataset
from benchlib.engines import Endpoint, check_bind
from benchlib.jmeter import find_jmeter
from benchlib.paths import bind_address
from benchlib.packages import ensure_debian
from benchlib.results import new_run_id
from collect.load import pinning, remote
from collect.run import preflight, run_manifest, runs
from collect.items.profiles import DEFAULT, PROFILES, Profile
from collect.run.run_loop import RunLoop


@dataclass(frozen=True, kw_only=True)
class MatrixRequest:
    """The `run` command's options: a new run's choices, or the id of one to resume. Lists as
    argparse gives them, never changed."""
    results_root: Path
    profile: str | None = None
    frameworks: list[str] | None = None
    variants: list[str] | None = None   # framework:variant names; instead of frameworks
    apis: list[str] | None = None
    cases: list[int] | None = None
    iterations: int | None = None
    budget_min: float | None = None  # extra rounds while the run stays within this many minutes
    pin: bool | None = None  # --pin, --no-pin; None: the layout is chosen by measurement
    seed: int | None = None
    resume: str | None = None
    engines: list[Endpoint] | None = None  # remote JMeter engines; None: JMeter runs here
    bind: str | None = None                # where the apps listen (default: loopback, or towards the engines)
    ssl: bool = True                       # RMI over SSL to the engines
    loadgen: str | None = None             # wrk or jmeter; None: by profile, engines or measurement
    memory_rounds: int | None = None       # fresh processes per arm and case in the memory pass
    aa: str | None = None                  # A/A: two processes of this framework's default arm
    restart: str | None = None             # when the apps start afresh (Profile.restart); None: the profile's
    reference: str | None = None           # the arm the console's bottom line compares the others against

    def case_numbers(self) -> tuple[int, ...]:
        """The cases asked for (`--cases`), else every case of cases.csv."""
        return tuple(self.cases or sorted(cases()))

    def api_names(self) -> tuple[str, ...]:
        """The APIs asked for (`--apis`), else both."""
        return tuple(self.apis or API_STYLES)

    def chosen(self) -> list[str]:
        """The options given besides --resume and --results-dir, as the command line names them."""
        given = [o for o in ("profile", "frameworks", "variants", "aa", "apis", "cases", "iterations", "budget_min",
                             "memory_rounds", "restart", "seed", "engines", "bind", "loadgen")
                 if getattr(self, o) is not None]
        return [{"budget_min": "budget"}.get(o, o).replace("_", "-") for o in given] \
            + ({True: ["pin"], False: ["no-pin"]}.get(self.pin, [])) + ([] if self.ssl else ["no-ssl"])

    def spec(self, root: Path, arms: dict[str, dict]) -> runs.RunSpec:
        """A new run's spec: the profile as the options change it, the arms chosen."""
        profile = PROFILES[self.profile or DEFAULT]
        if self.iterations:
            profile = replace(profile, rounds=self.iterations)
        if self.budget_min is not None:
            profile = replace(profile, budget_s=self.budget_min * 60)
        if self.memory_rounds:
            profile = replace(profile, memory_rounds=self.memory_rounds)
        if self.restart:
            profile = replace(profile, restart=self.restart)
        return runs.RunSpec(results_root=root, profile=profile, frameworks=tuple(arms), apis=self.api_names(),
                            cases=self.case_numbers(), pin=self.pin,
                            loadgen=self.loadgen or default_loadgen(profile, self.engines),
                            seed=runs.drawn_seed() if self.seed is None else self.seed, aa=self.aa,
                            engines=tuple(self.engines or ()), ssl=self.ssl, bind=self.bind)


def run_matrix(request: MatrixRequest) -> tuple[int, Path]:
    """(exit code, the run's folder)."""
    root = request.results_root.resolve()
    if request.resume and request.chosen():
        fail(f"--resume continues a run with its recorded settings; drop --{', --'.join(request.chosen())}.")
    if request.frameworks and request.variants:
        fail("--variants names framework:variant pairs; use it or --frameworks, not both.")
    if request.aa and (request.frameworks or request.variants):
        fail("--aa F measures two processes of F as the run's two arms; drop --frameworks and --variants.")
    if not request.resume:
        preflight.check_options(request.apis or [], request.cases or [], request.iterations,
                                request.budget_min)
        preflight.check_loadgen(request.loadgen, request.profile or DEFAULT, bool(request.engines))
        preflight.check_memory_rounds(request.memory_rounds, request.profile or DEFAULT)
        if request.restart and not PROFILES[request.profile or DEFAULT].paired:
            fail(f"the {request.profile} profile starts a fresh app for every item; drop --restart.")
    preflight.check_results_root(root)
    preflight.check_tools()
    resumed = runs.resumable(root, request.resume) if request.resume else None
    names = resumed.frameworks if resumed else \
        aa_arms(request.aa) if request.aa else request.variants or request.frameworks or default_frameworks()
    chosen = {f["name"]: f for f in apps.select_arms(names)}
    toolchains.require(toolchains.needed(chosen.values()))
    launcher = find_jmeter()
    preflight.check_ports(chosen)
    spec = resumed or request.spec(root, chosen)
    engines = load_engines(spec, launcher)
    with database.left_as_found():
        db = prepare(chosen.values())
        return execute(spec, chosen, launcher, engines, db, request.reference)


def execute(spec: runs.RunSpec, chosen: dict, launcher, engines, db, reference: str | None) -> tuple[int, Path]:
    """A new run, or the resumed one, measured to its end (or its interruption); the console's
    bottom line compares the other arms against `reference`."""
    new = None if spec.resumes else new_run(spec, chosen, launcher, engines, db)
    run = RunLoop(runs.open_run(spec, new, frameworks=chosen, jmeter=launcher, db=db, engines=engines))
    chose = run.context.loadgen_choice
    say(f"run: {run.context.dir.name}: {len(run.items)} measurements, profile {run.context.manifest['profile']}, "
        f"load generator: {chose['tool'] or 'chosen by measurement'}, layout: {run.context.layout['note']}.")
    interrupts.catch(signal.SIGINT, signal.SIGTERM)
    return run.execute(reference), run.context.dir


def new_run(spec: runs.RunSpec, chosen: dict, launcher, engines, db) -> runs.NewRun:
    """A new run of the testbed's own apps, named after the time it starts and its profile."""
    run_id = new_run_id(spec.profile.name)
    return runs.NewRun(
        run_ids=(run_id,),
        manifest=lambda claimed: run_manifest.build(spec, claimed, chosen, launcher, db, layout(spec, engines),
                                                    engines),
        taken=f"{spec.results_root / run_id} already exists; results are never overwritten: wait a second and retry.")


def layout(spec: runs.RunSpec, engines) -> dict:
    """Where the load generator runs beside the apps and the database, as asked (collect/load/pinning.py)."""
    if engines and spec.pin is None:
        return pinning.shared("the load comes from remote engines: every core here is the apps' and the "
                              "database's", "auto")
    return pinning.plan(spec.pin)


def aa_arms(name: str) -> list[str]:
    """The two arms of an A/A run: the framework's default arm and a second process of it."""
    framework = apps.find_framework(name)
    if any(v["name"] == apps.AA_VARIANT for v in apps.variants(framework)):
        fail(f"{name} has a variant of its own named {apps.AA_VARIANT!r}, which --aa needs for its second "
             f"process; rename that variant in {name}'s framework.json.")
    return [name, f"{name}:{apps.AA_VARIANT}"]


def default_loadgen(profile: Profile, engines) -> str:
    """JMeter for the study's protocol (its tool, with remote engines as its client machine), the
    latency profile (its open-model plans) and remote engines; otherwise the load generator the
    run's reference work finds cheaper per request ("auto": wrk on the 2-core machines)."""
    return "jmeter" if engines or profile.measured_by_jmeter else "auto"


def default_frameworks() -> list[str] | None:
    """The study's pair when both are here (a third framework is added by name: a default run
    with three takes half as long again as the 40 minutes the default is held to); otherwise all."""
    found = {f["name"] for f in apps.frameworks()}
    return list(STUDY_PAIR) if set(STUDY_PAIR) <= found else None


def load_engines(spec: runs.RunSpec, launcher: str) -> remote.Engines | None:
    """The remote engines, checked before any load, and where the apps listen: the address the
    engines reach, or the spec's (--bind, a resumed run's recorded address), else loopback."""
    found = remote.connect(list(spec.engines), spec.ssl, spec.bind, launcher) if spec.engines else None
    if spec.bind and not found:
        check_bind(spec.bind)
    os.environ["TESTBED_BIND_ADDRESS"] = found.address if found else spec.bind or bind_address()
    return found


def prepare(chosen):
    """Everything a fresh clone lacks: packages, the database, the data set, built apps."""
    ensure_debian("db", "python", "samplers", "load")  # load: wrk, for the cross-check and memory passes
    db = database.start()
    seed_dataset()
    for framework in chosen:
        builds.build(framework)
    return db
