"""`testbed run`: the whole matrix (collect/orchestrator.py), after setting everything up."""
import argparse
import os
import signal
from pathlib import Path

from cli.common import ROOT, UserError, fail, say

PARTS = {
    "express-api": ROOT / "express-api" / "framework.json",
    "aspnet-api": ROOT / "aspnet-api" / "framework.json",
    "jmeter-plans": ROOT / "jmeter-plans" / "cases.csv",
    "collect (the orchestrator)": ROOT / "collect" / "orchestrator.py",
}


def names(text: str) -> list[str]:
    return [n for n in text.replace(",", " ").split() if n]


def case_numbers(text: str) -> list[int]:
    """`1,4,7-9` → [1, 4, 7, 8, 9]."""
    out = []
    for part in names(text):
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise argparse.ArgumentTypeError(f"numbers and ranges such as 1,4,7-9, not {part!r}")
        out += range(int(low), int(high or low) + 1)
    return sorted(set(out))


def register(sub):
    p = sub.add_parser("run", help="run the benchmark matrix",
                       description="Set up, start the database, seed, build the apps, then run "
                                   "every framework x API x case x iteration and write "
                                   "results/<run-id>/ (see collect/README.md).")
    p.add_argument("--profile", choices=["smoke", "quick", "study"], default=None,
                   help="smoke: all cases, tiny loads (CI); quick: full loads, 1 iteration "
                        "(default); study: the study's protocol, 10 iterations")
    p.add_argument("--frameworks", type=names, metavar="F[,F…]", help="default: every framework.json")
    p.add_argument("--apis", type=names, metavar="rest,graphql", help="default: both")
    p.add_argument("--cases", type=case_numbers, metavar="N[,N-M…]", help="default: 1-18")
    p.add_argument("--iterations", type=int, metavar="N", help="override the profile's iterations")
    p.add_argument("--pin", action="store_true",
                   help="pin app, database and JMeter to separate CPU sets (as taskset does)")
    p.add_argument("--seed", type=int, help="seed of the shuffled order (default: random, recorded)")
    p.add_argument("--resume", metavar="RUN_ID", help="continue an interrupted run with its own settings")
    p.add_argument("--results-dir", type=Path, metavar="DIR",
                   help="where runs are written (default: $TESTBED_RESULTS, else results/)")
    p.set_defaults(func=run)


def run(args) -> int:
    # A run naming its frameworks may go ahead while another implementation is still missing.
    needed = {n: m for n, m in PARTS.items() if not (args.frameworks and n.endswith("-api"))}
    missing = [name for name, marker in needed.items() if not marker.exists()]
    if missing:
        fail(f"the benchmark matrix cannot run yet: not built: {', '.join(missing)}.")
    # Imported only now: the placeholder above must work while collect/ is missing.
    from collect import orchestrator as orch
    from collect import parts
    from collect.profiles import DEFAULT, PROFILES

    root = args.results_dir or Path(os.environ.get("TESTBED_RESULTS") or parts.DEFAULT_RESULTS)
    root = root.resolve()
    chosen = [o for o in ("profile", "frameworks", "apis", "cases", "iterations", "seed")
              if getattr(args, o) is not None] + (["pin"] if args.pin else [])
    if args.resume and chosen:
        fail(f"--resume continues a run with its recorded settings; drop --{', --'.join(chosen)}.")
    if not args.resume:
        orch.validate(args.frameworks or [], args.apis or [], args.cases or [], args.iterations)
    orch.check_results_root(root)
    orch.check_tools()
    launcher = parts.find_jmeter()
    frameworks = orch.recorded(root, args.resume)["settings"]["frameworks"] if args.resume \
        else args.frameworks
    impls = orch.implementations(frameworks)
    orch.check_ports(impls)

    db = prepare(impls.values())
    if args.resume:
        engine = orch.resume(root, args.resume, impls, launcher, db)
    else:
        profile = PROFILES[args.profile or DEFAULT]
        if args.iterations:
            profile = profile.with_iterations(args.iterations)
        options = orch.Options(profile, list(impls), args.apis or ["rest", "graphql"],
                               args.cases or list(range(1, 19)), args.pin, root)
        if args.seed is not None:
            options.seed = args.seed
        engine = orch.create(options, impls, launcher, db)
    say(f"run: {engine.dir.name}: {len(engine.items)} measurements, profile "
        f"{engine.manifest['profile']}, pinning: {engine.pinning['note']}.")
    signal.signal(signal.SIGTERM, _interrupt)
    code = engine.execute()
    if code == 0:
        write_report(engine.dir)
    say(f"run: results in {engine.dir}")
    return code


def _interrupt(signum, frame):
    raise KeyboardInterrupt()


def prepare(impls):
    """Everything a fresh clone lacks: packages, the database, the data set, built apps."""
    from cli.db import start
    from cli.seed import seed
    from cli.setup import ensure_debian
    from collect import parts
    ensure_debian("db", "python", "samplers")
    db = start()
    seed()
    for impl in impls:
        parts.build(impl)
    return db


def write_report(run_dir: Path) -> None:
    try:
        from cli.report import report
    except ImportError:
        say("run: no report (analysis/ is not installed); summary.csv holds the figures.")
        return
    try:
        report(run_dir.name, run_dir.parent, None)
    except UserError as e:  # the measurements are complete either way; say how to retry
        say(f"run: the report could not be written ({e}); retry with "
            f"./testbed report {run_dir.name} --results-dir {run_dir.parent}")
