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
from benchlib.engines import Endpoint, check_bind, parse_endpoints
from benchlib.jmeter import find_jmeter
from benchlib.paths import bind_address
from benchlib.packages import ensure_debian
from collect import pinning, preflight, remote, runs
from collect.profiles import DEFAULT, PROFILES, Profile


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

    def case_numbers(self) -> list[int]:
        """The cases asked for (`--cases`), else every case of cases.csv."""
        return self.cases or sorted(cases())

    def api_names(self) -> list[str]:
        """The APIs asked for (`--apis`), else both."""
        return self.apis or list(API_STYLES)

    def chosen(self) -> list[str]:
        """The options given besides --resume and --results-dir, as the command line names them."""
        given = [o for o in ("profile", "frameworks", "variants", "aa", "apis", "cases", "iterations", "budget_min",
                             "memory_rounds", "restart", "seed", "engines", "bind", "loadgen")
                 if getattr(self, o) is not None]
        return [{"budget_min": "budget"}.get(o, o).replace("_", "-") for o in given] \
            + ({True: ["pin"], False: ["no-pin"]}.get(self.pin, [])) + ([] if self.ssl else ["no-ssl"])


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
    settings = runs.recorded(root, request.resume)["settings"] if request.resume else {}
    names = settings["frameworks"] if request.resume else \
        aa_arms(request.aa) if request.aa else request.variants or request.frameworks or default_frameworks()
    chosen = {f["name"]: f for f in apps.select_arms(names)}
    toolchains.require(toolchains.needed(chosen.values()))
    launcher = find_jmeter()
    preflight.check_ports(chosen)
    engines = load_engines(request, settings, launcher)
    with database.left_as_found():
        db = prepare(chosen.values())
        return execute(request, settings, chosen, launcher, engines, db)


def execute(request: MatrixRequest, settings: dict, chosen: dict, launcher, engines, db) -> tuple[int, Path]:
    """A new run, or the resumed one, measured to its end (or its interruption)."""
    root = request.results_root.resolve()
    if request.resume:
        run = runs.resume(root, request.resume, chosen, launcher, db, engines)
    else:
        profile = PROFILES[request.profile or DEFAULT]
        if request.iterations:
            profile = replace(profile, iterations=request.iterations)
        if request.budget_min is not None:
            profile = replace(profile, budget_s=request.budget_min * 60)
        if request.memory_rounds:
            profile = replace(profile, memory_rounds=request.memory_rounds)
        if request.restart:
            profile = replace(profile, restart=request.restart)
        options = runs.RunOptions(profile, list(chosen), request.api_names(), request.case_numbers(),
                                  request.pin, root, engines,
                                  loadgen=request.loadgen or default_loadgen(profile, engines), aa=request.aa)
        if request.seed is not None:
            options.seed = request.seed
        layout = pinning.shared("the load comes from remote engines: every core here is the apps' and the "
                                "database's", "auto") if engines and request.pin is None else pinning.plan(request.pin)
        run = runs.create(options, chosen, launcher, db, layout)
    chose = run.context.loadgen_choice
    say(f"run: {run.context.dir.name}: {len(run.items)} measurements, profile {run.context.manifest['profile']}, "
        f"load generator: {chose['tool'] or 'chosen by measurement'}, layout: {run.context.layout['note']}.")
    interrupts.catch(signal.SIGINT, signal.SIGTERM)
    return run.execute(request.reference), run.context.dir


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


def load_engines(request: MatrixRequest, settings: dict, launcher: str) -> remote.Engines | None:
    """The remote engines, checked before any load (a resumed run's recorded ones), and where the
    apps listen: the address the engines reach, or --bind, else loopback."""
    endpoints, bind, ssl = request.engines, request.bind, request.ssl
    if settings:
        endpoints = [parse_endpoints(e)[0] for e in settings.get("engines", [])] or None
        bind, ssl = settings.get("bind_address"), settings.get("ssl", True)
    found = remote.connect(endpoints, ssl, bind, launcher) if endpoints else None
    if bind and not found:
        check_bind(bind)
    os.environ["TESTBED_BIND_ADDRESS"] = found.address if found else bind or bind_address()
    return found


def prepare(chosen):
    """Everything a fresh clone lacks: packages, the database, the data set, built apps."""
    ensure_debian("db", "python", "samplers", "load")  # load: wrk, for the cross-check and memory passes
    db = database.start()
    seed_dataset()
    for framework in chosen:
        builds.build(framework)
    return db
