"""`python3 -m bench frameworks`: implementations and their variants compared with wrk: requests/s and p99 latency for
REST case 1 (/rest/comment/{id}, ids from the seeder's list) and case 3 (/rest/comments/100).

Not the study's protocol (that is `./testbed run`, with JMeter): a fast, repeatable comparison of
targets inside one run on one machine. Each target (framework or framework:variant) is started
here on a port of its own and kept running; every round measures every target once per case, in
an order drawn from a seeded shuffle, so a shared machine's drift falls on all of them alike. The
report gives each target's median over the rounds and its median ratio to the first target.

    /usr/bin/python3 -m bench frameworks                           # every framework's default variant
    /usr/bin/python3 -m bench frameworks --targets aspnet aspnet:mysql-data express --rounds 3
"""
import argparse
import random
import statistics
import subprocess
import sys

from benchlib import apps
from benchlib import wrk as wrk_tool
from benchlib.builds import build
from benchlib.console import UserError, fail, say
from benchlib.database import database, start as start_database
from benchlib.net import free_port
from benchlib.packages import ensure_debian
from benchlib.paths import IDS, LOGS
from benchlib.processes import stop_group

CASES = [
    # case, label, what wrk sends (benchlib/wrk.py: the case's request, ids from the seeder's list)
    (1, "/rest/comment/{id}", {"api": "rest", "rows": 1, "joins": 0}),
    (3, "/rest/comments/100", {"api": "rest", "rows": 100, "joins": 0}),
]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench frameworks", description=__doc__.split("\n\n")[0])
    p.add_argument("--targets", nargs="*", metavar="F[:VARIANT]",
                   help="frameworks, or framework:variant (default: each framework's default variant); "
                        "ratios are to the first")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--seed", type=int, default=1, help="seed of each round's order (default 1)")
    p.add_argument("--connections", type=int, default=50, help="open connections (default 50)")
    p.add_argument("--threads", type=int, default=1,
                   help="wrk threads (default 1: the app shares the machine's cores)")
    p.add_argument("--duration", type=int, default=10, help="measured seconds per measurement (default 10)")
    p.add_argument("--warmup", type=int, default=3,
                   help="unmeasured seconds before each measurement (default 3)")
    args = p.parse_args(argv)
    if args.rounds < 1 or args.duration < 1 or args.connections < 1:
        p.error("--rounds, --duration and --connections must be at least 1")
    return args


def wrk(base, request, args, seconds):
    if not (IDS / "comment_ids.csv").exists():
        fail(f"{IDS / 'comment_ids.csv'} is missing; run ./testbed seed.")
    try:
        figures = wrk_tool.run(base, request, args.connections, seconds, args.threads)
    except UserError as e:
        fail(str(e))
    return figures["throughput_rps"], figures["p99_ms"], figures["errors"]


def start(target: dict) -> tuple[subprocess.Popen, str]:
    """A target is an arm: a framework as one of its variants runs it (benchlib/apps.py)."""
    build(target)
    port = free_port()
    log = LOGS / f"http_bench-{target['name'].replace(':', '-')}.log"
    proc = apps.start_app(target, port, log)
    apps.wait_ready(target, port, proc, log)
    return proc, apps.url(target, port)


def bench(args) -> int:
    ensure_debian("load")
    start_database()
    chosen = apps.select_arms(args.targets)
    say(f"http_bench: database {database().describe()}; wrk {args.connections} connections, "
        f"{args.threads} thread(s), {args.warmup} s warm-up + {args.duration} s per measurement, "
        f"{args.rounds} rounds, seed {args.seed}")
    running = {}
    try:
        for target in chosen:
            running[target["name"]] = start(target)
        results = {(t["name"], case): [] for t in chosen for case, *_ in CASES}
        rng = random.Random(args.seed)
        for round_number in range(1, args.rounds + 1):
            for case, label, request in CASES:
                order = rng.sample(chosen, len(chosen))
                for target in order:
                    base = running[target["name"]][1]
                    if args.warmup:
                        wrk(base, request, args, args.warmup)
                    rps, p99, errors = wrk(base, request, args, args.duration)
                    results[(target["name"], case)].append((rps, p99, errors))
                    say(f"round {round_number} case {case} {target['name']:<20} {rps:>10.1f} req/s "
                        f"p99 {p99:>7.2f} ms errors {errors}")
    finally:
        for proc, _ in running.values():
            stop_group(proc)
    report(chosen, results)
    return 0


def report(chosen: list[dict], results: dict) -> None:
    first = chosen[0]["name"]
    say(f"\nmedians over the rounds; ratio = target / {first}, the median of the per-round ratios")
    say(f"{'target':<22} {'case':>4}  {'endpoint':<20} {'requests/s':>11} {'ratio':>6} "
        f"{'p99 ms':>8} {'ratio':>6} {'errors':>7}")
    for case, label, *_ in CASES:
        base = results[(first, case)]
        for target in chosen:
            runs = results[(target["name"], case)]
            rps_ratio = statistics.median(r[0] / b[0] for r, b in zip(runs, base))
            p99_ratio = statistics.median(r[1] / b[1] for r, b in zip(runs, base) if b[1])
            say(f"{target['name']:<22} {case:>4}  {label:<20} {statistics.median(r[0] for r in runs):>11.1f} "
                f"{rps_ratio:>6.2f} {statistics.median(r[1] for r in runs):>8.2f} {p99_ratio:>6.2f} "
                f"{sum(r[2] for r in runs):>7}")


def main(argv=None) -> int:
    return bench(parse_args(sys.argv[1:] if argv is None else argv))
