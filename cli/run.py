"""`testbed run`: the benchmark matrix (collect/), then its report (analysis/)."""
from pathlib import Path

from analysis import slo
from benchlib.apps import select
from benchlib.cases import STUDY_PAIR
from benchlib.console import UserError, fail, say
from benchlib.engines import parse_endpoints
from benchlib.paths import results_root
from cli.engine import add_load_options
from cli.report import add_reference_option, add_slo_option, parse_slo, report
from collect.load.batch import LOADGENS
from collect.run.matrix import MatrixRequest, run_matrix
from collect.run.preflight import case_numbers, names, profile_name
from collect.items.profiles import PROFILES, RESTARTS


def register(sub):
    p = sub.add_parser("run", help="run the benchmark matrix",
                       description="Set up, start the database, seed, build the apps, then run "
                                   "every framework x API x case x iteration and write "
                                   "results/<run-id>/ (see collect/README.md).")
    p.add_argument("--profile", type=profile_name, metavar="{" + ",".join(PROFILES) + "}", default=None,
                   help="smoke: all cases, tiny loads (CI); quick: full loads, 3 interleaved rounds, "
                        "paired statistics (default); study: the study's protocol, 10 iterations; latency: "
                        "each cell's capacity, then latency at fixed arrival rates (open model); latency-smoke: "
                        "the same with one round at each rate (CI)")
    p.add_argument("--frameworks", type=names, metavar="F[,F…]",
                   help="default: the study's pair, aspnet,express; all: every framework.json")
    p.add_argument("--variants", type=names, metavar="F:V[,F:V…]",
                   help="framework:variant pairs to run instead of each framework's default "
                        "(framework.json variants), e.g. aspnet:net8,aspnet")
    p.add_argument("--aa", metavar="F",
                   help="an A/A run: two independent processes of framework F's default build and settings "
                        "as two arms, through the same protocol and report, which counts the cells that come "
                        "out significant against the number chance gives (the pipeline's false positives)")
    p.add_argument("--apis", type=names, metavar="rest,graphql", help="default: both")
    p.add_argument("--cases", type=case_numbers, metavar="N[,N-M…]", help="default: 1-18")
    p.add_argument("--iterations", type=int, metavar="N", help="override the profile's iterations (rounds)")
    p.add_argument("--budget", type=float, metavar="MINUTES", dest="budget_min",
                   help="after the profile's rounds, add rounds for the cells whose interval is still "
                        f"wider than ±10 %% while the run stays within MINUTES "
                        f"(quick: {PROFILES['quick'].budget_s / 60:g})")
    p.add_argument("--restart", choices=RESTARTS[1:],
                   help="when the apps start afresh in a paired profile: run (once), round (at each round's "
                        "start, so rounds replicate processes) or slot (for each API and case of a round, so "
                        f"no cell follows another); default: the profile's (quick: {PROFILES['quick'].restart})")
    p.add_argument("--memory-rounds", type=int, metavar="N",
                   help="fresh processes per framework and case in the memory pass, instead of the profile's "
                        f"(quick: {PROFILES['quick'].memory_rounds}); the rounds a memory claim's "
                        "`rounds_needed` asks for")
    layout = p.add_mutually_exclusive_group()
    layout.add_argument("--pin", dest="pin", action="store_true", default=None,
                        help="give the load generator a CPU set of its own, the app and database the rest "
                             "(as taskset does; default: chosen by measuring the load generator's and the "
                             "servers' CPU per request)")
    layout.add_argument("--no-pin", dest="pin", action="store_false",
                        help="let the app, the database and the load generator share every core")
    p.add_argument("--loadgen", choices=LOADGENS,
                   help="the load generator measuring the rounds (default: jmeter for --profile study and "
                        "latency and with --engines, else the one the run measures as cheaper per request)")
    p.add_argument("--seed", type=int, help="seed of the order (default: random, recorded)")
    add_load_options(p, "this machine's address on the route to them (or --bind)")
    p.add_argument("--bind", metavar="ADDR",
                   help="the address of this machine the apps listen on (default: loopback, or with "
                        "--engines the address on the route to them)")
    p.add_argument("--resume", metavar="RUN_ID", help="continue an interrupted run with its own settings")
    p.add_argument("--results-dir", type=Path, metavar="DIR",
                   help="where runs are written (default: $TESTBED_RESULTS, else results/)")
    add_reference_option(p)
    add_slo_option(p)
    p.set_defaults(func=run)


def check_reference(args) -> None:
    """An unknown --reference fails now, not after the run it would only have named in the report."""
    if not args.reference or args.resume:
        return
    named = args.variants or args.frameworks or ([args.aa] if args.aa else list(STUDY_PAIR))
    if named == ["all"]:
        named = [f["name"] for f in select(None)]
    if args.reference not in named:
        fail(f"--reference {args.reference}: not a framework of this run ({', '.join(named)}); "
             "name one of them, or add it to --frameworks.")


def run(args) -> int:
    check_reference(args)
    goal = parse_slo(args.slo)  # a bad --slo fails now, before anything is measured
    code, run_dir = run_matrix(MatrixRequest(
        results_root=args.results_dir or results_root(), profile=args.profile, frameworks=args.frameworks,
        variants=args.variants, apis=args.apis, cases=args.cases, iterations=args.iterations,
        budget_min=args.budget_min, pin=args.pin, seed=args.seed, resume=args.resume,
        engines=parse_endpoints(args.engines) if args.engines is not None else None, bind=args.bind, ssl=args.ssl,
        loadgen=args.loadgen, memory_rounds=args.memory_rounds, aa=args.aa, restart=args.restart,
        reference=args.reference))
    if code == 0:
        try:
            report(run_dir.name, run_dir.parent, None, args.reference, goal)
        except UserError as e:  # the measurements are complete either way; say how to retry
            say(f"run: the report could not be written ({e}); retry with "
                f"./testbed report {run_dir.name} --results-dir {run_dir.parent}"
                + (f" --reference {args.reference}" if args.reference else "")
                + (f" --slo {args.slo}" if args.slo != slo.DEFAULT else ""))
    say(f"run: results in {run_dir}")
    return code
