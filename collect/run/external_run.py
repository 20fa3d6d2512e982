"""The matrix against apps that something else runs: the Docker runner (docker/jmeter/run-matrix.sh
calls this in the jmeter container). It is `./testbed run`'s run loop (collect/run/run_loop.py) on a
pool of apps it never starts (collect/load/app_pool.py ExternalApps): the same interleaved order, one
JMeter per round, the same checks, run layout, state.json, interrupted/ and resume, with the phases
such apps allow (the rounds). Its settings are read and checked by `./testbed run`'s own functions
(collect/run/preflight.py), named by their environment variables.

    python3 -m collect.run.external_run --targets "aspnet=aspnet-api:5000:rest,graphql express=…" \\
        [--frameworks aspnet,express] [--apis rest,graphql] [--cases all|1,4] [--iterations N] \\
        [--profile quick] [--ids-dir DIR] [--results-dir DIR] [--run-id ID | --resume ID] [--dry-run]

Unlike `./testbed run`, the apps are never restarted (a container cannot restart its neighbours)
and neither they nor the database are sampled: only JMeter's JVM, by the /proc sampler. The
profile's rounds only, never extra ones: the quick profile's budget is `./testbed run`'s 40 minutes
on a 2-core machine, and it saves time for passes this runner does not make.
"""
import argparse
import os
import shlex
import signal
import sys
from dataclasses import replace
from pathlib import Path

from benchlib import interrupts
from benchlib.apps import unknown_framework
from benchlib.cases import cases
from benchlib.console import UserError, fail, say
from benchlib.jmeter import find_jmeter
from benchlib.paths import IDS, results_root
from benchlib.items import Item
from benchlib.results import new_run_id
from collect.run import preflight, run_manifest, runs
from collect.load.app_pool import READINESS_PATH, ExternalApps, Target
from collect.load.batch import jmeter_command, next_batch
from collect.run.matrix import MatrixRequest
from collect.passes.order import order
from collect.items.profiles import DEFAULT, PROFILES
from collect.run.run_loop import RunLoop

RUNNER = "collect/run/external_run.py (docker-compose jmeter service)"
# The settings as run-matrix.sh takes them, for the errors that name one.
SETTINGS = {"iterations": "ITERATIONS"}


def parse_targets(text: str) -> dict[str, Target]:
    """`framework=host:port:api,api …` (docker-compose.yml writes it from the framework.json files)."""
    found = {}
    for entry in text.split():
        try:
            name, where = entry.split("=", 1)
            host, port, apis = where.split(":", 2)
            found[name] = Target(name, host, int(port), tuple(apis.split(",")))
        except ValueError:
            fail(f"TARGETS entry {entry!r} is not framework=host:port:api,api.")
    if not found:
        fail("TARGETS is empty; start this through docker-compose.yml.")
    return found


def setting(name: str, read, text: str):
    """`text` read as `./testbed run` reads its option, an error naming the variable `name` as
    argparse names the option."""
    try:
        return read(text)
    except argparse.ArgumentTypeError as e:
        fail(f"{name}: {e}.")
    except ValueError:
        fail(f"{name}: invalid {read.__name__} value: {text!r}.")


def spec_from_settings(args, targets: dict[str, Target]) -> runs.RunSpec:
    """A new run's spec from the runner's settings, checked as `./testbed run` checks its options."""
    frameworks = setting("FRAMEWORKS", preflight.names, args.frameworks) or list(targets)
    for name in frameworks:
        if name not in targets:
            fail(unknown_framework(name, targets, "TARGETS"))
    request = MatrixRequest(
        results_root=args.results_dir, profile=setting("PROFILE", preflight.profile_name, args.profile),
        apis=setting("APIS", preflight.names, args.apis) or None,
        cases=None if args.cases == "all" else setting("CASES", preflight.case_numbers, args.cases),
        iterations=setting("ITERATIONS", int, args.iterations) if args.iterations else None)
    preflight.check_options(request.apis or [], request.cases or [], request.iterations, named=SETTINGS)
    # Containers cannot be restarted from here: the rounds run on the processes the containers
    # started, and the manifest says so instead of claiming a process per round.
    chosen = PROFILES[request.profile]
    profile = replace(chosen, budget_s=None, restart="run" if chosen.paired else chosen.restart, condition_s=0)
    if request.iterations:
        profile = replace(profile, rounds=request.iterations)
    return runs.RunSpec(results_root=args.results_dir, profile=profile, frameworks=tuple(frameworks),
                        apis=request.api_names(), cases=request.case_numbers(), pin=False, loadgen="jmeter")


def manifest(spec: runs.RunSpec, targets: dict[str, Target], launcher: str, run_id: str) -> dict:
    """`./testbed run`'s manifest on apps it does not run (run_manifest.external), with the
    containers' settings."""
    recorded = run_manifest.external(
        spec, targets, launcher, run_id,
        {"name": RUNNER, "restart": "never: the apps run in their own containers",
         "measures": "the profile's rounds only (collect/run/run_loop.py phases): no reference work, "
                     "ceiling, extra rounds, cross-check, memory or latency pass",
         "api_cpus": os.environ.get("API_CPUS"), "api_memory": os.environ.get("API_MEMORY")},
        # The images run each framework.json's default variant (docker/test_compose.py checks the Node ones).
        variant="default", loadgen_why="the Docker runner's load generator",
        layout_note="the apps and the database in their own containers, JMeter in this one",
        sampled="not the apps nor the database: they run in other containers (watch docker stats)")
    recorded["protocol"]["load"] = {"from": "the jmeter container: one JMeter process per batch",
                                    "jmeter": "a thread group per measurement"}
    return recorded


def recorded_targets(recorded: dict) -> dict[str, Target]:
    """A run's targets as its manifest recorded them: a resumed run measures what it began on."""
    return {name: Target(name, f["host"], f["port"], tuple(f["apis"]), f.get("readiness_path", READINESS_PATH))
            for name, f in recorded["frameworks"].items()}


def dry_run(spec: runs.RunSpec, targets: dict[str, Target]) -> None:
    """Each JMeter process the run would start, and the measurements of its plan, in the run's
    order; nothing written."""
    known = cases()
    p = spec.profile
    keys = order(spec.frameworks, spec.apis, spec.cases, p.rounds, p.restart, spec.seed)
    todo = [Item.parse(key, known) for key in keys]
    number = 0
    while todo:
        batch, number = next_batch(todo, p), number + 1
        folder = spec.results_root / "RUN_ID" / "batches" / f"{number:03d}"
        say(shlex.join(jmeter_command("jmeter", folder / "plan.jmx", folder / "jmeter.log")))
        for n, item in enumerate(i for i in batch if i.api in targets[i.framework].apis):
            target = targets[item.framework]
            say(f"  measurement {n + 1}: {item.framework} {item.api} case {item.case} at "
                f"{target.host}:{target.port}, {p.threads(item.requests)} threads, ramp-up {p.rampup_s:g} s, "
                f"warm-up {p.warmup_s:g} s" + (f" (up to {p.warmup_cap_s:g} s)" if p.warmup_cap_s else "")
                + f", window {p.duration_s:g} s")
        todo = todo[len(batch):]


def check_ids(ids: Path) -> None:
    for name in ("comment_ids.csv", "user_ids.csv"):
        if not (ids / name).is_file() or not (ids / name).stat().st_size:
            fail(f"{ids / name} is missing: the seed service has not completed.")


def new_run(spec: runs.RunSpec, targets: dict[str, Target], launcher: str, run_id: str) -> runs.NewRun:
    """A new run named `run_id` (RUN_ID, or the time it starts and its profile)."""
    return runs.NewRun(run_ids=(run_id,), manifest=lambda claimed: manifest(spec, targets, launcher, claimed),
                       taken=f"{spec.results_root / run_id} already exists; results are never overwritten.",
                       unwritable="; on the host: mkdir -p results/docker, and set HOST_UID/HOST_GID in .env "
                                  "to your id -u / id -g")


def run(args) -> int:
    if args.resume:
        spec = runs.resumable(args.results_dir, args.resume)
    else:
        targets = parse_targets(args.targets)
        spec = spec_from_settings(args, targets)
        if args.dry_run:
            dry_run(spec, targets)
            return 0
    check_ids(args.ids_dir)
    launcher = find_jmeter()
    new = None if spec.resumes else \
        new_run(spec, targets, launcher, args.run_id or new_run_id(f"{spec.profile.name}-docker"))
    context = runs.open_run(spec, new, frameworks=None, jmeter=launcher, db=None, ids=args.ids_dir)
    run_dir = context.dir
    # The targets as the manifest recorded them: a resumed run measures what it began on.
    loop = RunLoop(context, pool=ExternalApps(recorded_targets(context.manifest)),
                   resume_command=f"RESUME={run_dir.name} (docker compose --profile bench run --rm "
                                  f"-e RESUME={run_dir.name} jmeter)")
    where = ", ".join(f"{t.framework} at {t.host}:{t.port}" for t in loop.apps.targets.values())
    say(f"run: {run_dir.name}: {len(loop.items)} measurements, profile {context.manifest['profile']}, "
        f"load generator: jmeter, against {where}.")
    interrupts.catch(signal.SIGINT, signal.SIGTERM)  # `docker stop`: stop as Ctrl-C does, resumable
    code = loop.execute()
    say(f"run: results in {run_dir}")
    return code


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m collect.run.external_run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--targets", required=True, help="framework=host:port:api,api …")
    p.add_argument("--frameworks", default="", help="subset of the targets (default: all)")
    p.add_argument("--apis", default="rest,graphql")
    p.add_argument("--cases", default="all", help="all, or case numbers and ranges such as 1,4,7-9")
    p.add_argument("--iterations", default="", help="override the profile's iterations")
    p.add_argument("--profile", default=DEFAULT, help=f"one of {', '.join(PROFILES)} (default {DEFAULT})")
    p.add_argument("--ids-dir", type=Path, default=IDS)
    p.add_argument("--results-dir", type=Path, default=results_root())
    p.add_argument("--run-id", default="")
    p.add_argument("--resume", default="", metavar="RUN_ID",
                   help="continue a run that was cut short, with its recorded settings and targets")
    p.add_argument("--dry-run", action="store_true", help="print JMeter's command lines, write nothing")
    return p.parse_args(argv)


def main(argv=None) -> int:
    try:
        return run(parse_args(sys.argv[1:] if argv is None else argv))
    except UserError as e:
        print(f"run-matrix: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
