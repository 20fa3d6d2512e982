"""Quick HTTP benchmark of running implementations with wrk: requests/s and p99 latency for REST
case 1 (/rest/comment/{id}, ids from the seeder's list) and case 3 (/rest/comments/100).

Not the study's protocol (that is `./testbed run`, with JMeter): a fast check that a change did
not make an implementation slower, comparing frameworks inside one run on one machine.

    ./testbed up
    /usr/bin/python3 -m bench.http_bench                 # every implementation that answers
    /usr/bin/python3 -m bench.http_bench --frameworks express aspnet --duration 20
"""
import argparse
import subprocess
import sys
import urllib.request
from pathlib import Path

from cli.common import IDS, UserError, fail, manifests, need_tool, say
from cli.setup import ensure_debian

HERE = Path(__file__).resolve().parent
CASES = [
    # case, label, wrk script, path (or path prefix for the id list)
    (1, "/rest/comment/{id}", "rotate_ids.lua", "/rest/comment/"),
    (3, "/rest/comments/100", "fixed_path.lua", "/rest/comments/100"),
]


def parse_args(argv):
    p = argparse.ArgumentParser(prog="http_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--frameworks", nargs="*", metavar="F",
                   help="framework names (default: every implementation that answers its readiness path)")
    p.add_argument("--connections", type=int, default=50, help="open connections (default 50)")
    p.add_argument("--threads", type=int, default=1,
                   help="wrk threads (default 1: the app shares the machine's cores)")
    p.add_argument("--duration", type=int, default=10, help="measured seconds per case (default 10)")
    p.add_argument("--warmup", type=int, default=3, help="unmeasured seconds before each case (default 3)")
    p.add_argument("--host", default="127.0.0.1")
    return p.parse_args(argv)


def ready(base: str, manifest: dict) -> bool:
    try:
        with urllib.request.urlopen(base + manifest["readiness_path"], timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def targets(names, host):
    found = {m["name"]: m for m in manifests()}
    unknown = [n for n in names or [] if n not in found]
    if unknown:
        fail(f"unknown framework(s): {', '.join(unknown)}; known: {', '.join(found)}.")
    chosen = []
    for name in names or found:
        base = f"http://{host}:{found[name]['default_port']}"
        if ready(base, found[name]):
            chosen.append((name, base))
        elif names:
            fail(f"{name} does not answer at {base}{found[name]['readiness_path']}; "
                 f"start it with ./testbed up --framework {name}.")
        else:
            say(f"http_bench: {name} is not running at {base}; skipped.")
    if not chosen:
        fail("no implementation is running; start them with ./testbed up.")
    return chosen


def wrk(base, script, path, args, seconds):
    ids = IDS / "comment_ids.csv"
    cmd = [need_tool("wrk", "Run ./testbed setup."), f"-t{args.threads}", f"-c{args.connections}",
           f"-d{seconds}s", "--timeout", "10s", "-s", str(HERE / script)]
    if script == "rotate_ids.lua":
        if not ids.exists():
            fail(f"{ids} is missing; run ./testbed seed.")
        cmd += [base, "--", str(ids), path]
    else:
        cmd += [base + path]
    out = subprocess.run(cmd, capture_output=True, text=True)
    line = next((l for l in out.stdout.splitlines() if l.startswith("RESULT ")), None)
    if out.returncode != 0 or line is None:
        fail(f"wrk failed: {(out.stderr or out.stdout).strip().splitlines()[-1:]}")
    requests, duration_us, errors, p99_us = map(int, line.split()[1:])
    return requests / (duration_us / 1e6), p99_us / 1000, errors


def bench(args) -> int:
    ensure_debian("load")
    chosen = targets(args.frameworks, args.host)
    say(f"wrk: {args.connections} connections, {args.threads} thread(s), "
        f"{args.warmup} s warm-up + {args.duration} s per case")
    say(f"{'framework':<10} {'case':>4}  {'endpoint':<20} {'requests/s':>11} {'p99 ms':>8} {'errors':>7}")
    for name, base in chosen:
        for case, label, script, path in CASES:
            if args.warmup:
                wrk(base, script, path, args, args.warmup)
            rps, p99, errors = wrk(base, script, path, args, args.duration)
            say(f"{name:<10} {case:>4}  {label:<20} {rps:>11.1f} {p99:>8.2f} {errors:>7}")
    return 0


def main(argv=None) -> int:
    try:
        return bench(parse_args(sys.argv[1:] if argv is None else argv))
    except UserError as e:
        print(f"http_bench: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
