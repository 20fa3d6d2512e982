"""`testbed load`: one JMeter run of one case against an implementation that is already running."""
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from cli import jmeter
from cli.common import IDS, ROOT, fail, manifests, say, served_apis



def results_root():
    """results/load/, or $TESTBED_RESULTS/load/ (as `testbed run` honours it)."""
    return Path(os.environ.get("TESTBED_RESULTS") or ROOT / "results") / "load"


def shown(path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def register(sub):
    p = sub.add_parser("load", help="run one JMeter plan against a running implementation",
                       description="Load one running implementation with one case of the matrix, "
                                   "print one summary line and keep the JTL under results/load/. "
                                   "Exits with 1 when any measured request failed.")
    p.add_argument("--framework", required=True, help="implementation name (its framework.json)")
    p.add_argument("--api", required=True, help="rest or graphql")
    p.add_argument("--case", required=True, type=int, help="case number, 1-18 (jmeter-plans/cases.csv)")
    p.add_argument("--threads", type=int, help="concurrent requests (default: the case's)")
    p.add_argument("--duration", type=int, default=jmeter.DEFAULTS["duration_s"],
                   help="measured seconds (default %(default)s)")
    p.add_argument("--warmup", type=int, default=jmeter.DEFAULTS["warmup_s"],
                   help="warm-up seconds, left out of the statistics (default %(default)s)")
    p.add_argument("--rampup", type=int, help="seconds to start all threads, within the warm-up "
                                              f"(default: the lesser of {jmeter.DEFAULTS['rampup_s']} and --warmup)")
    p.add_argument("--port", type=int, help="where it listens (default: its manifest's default_port)")
    p.add_argument("--host", default="127.0.0.1", help="where it runs (default %(default)s)")
    p.add_argument("--dashboard", action="store_true", help="also write JMeter's HTML dashboard")
    p.set_defaults(func=load)


def validate(args) -> dict:
    """Every input checked before anything runs; returns the framework's manifest."""
    found = {m["name"]: m for m in manifests()}
    if args.framework not in found:
        fail(f"no framework named {args.framework!r}; known: {', '.join(found) or 'none'} "
             "(folders with a framework.json).")
    if args.api not in jmeter.APIS:
        fail(f"--api must be rest or graphql, not {args.api!r}.")
    if args.api not in served_apis(found[args.framework]):
        fail(f"{args.framework} does not serve {args.api} (the apis in its framework.json).")
    jmeter.find_case(args.case)
    for name in ("threads", "duration"):
        value = getattr(args, name)
        if value is not None and value < 1:
            fail(f"--{name} must be at least 1, not {value}.")
    if args.warmup < 0:
        fail(f"--warmup must be 0 or more seconds, not {args.warmup}.")
    if args.rampup is not None and not 0 <= args.rampup <= args.warmup:
        fail(f"--rampup must be from 0 to --warmup ({args.warmup}) seconds, so that the measured "
             f"window has every thread running; got {args.rampup}.")
    if args.port is not None and not 1 <= args.port <= 65535:
        fail(f"--port must be from 1 to 65535, not {args.port}.")
    if not (IDS / "comment_ids.csv").is_file() or not (IDS / "user_ids.csv").is_file():
        fail(f"the id files are missing from {shown(IDS)}; run ./testbed seed first.")
    return found[args.framework]


def check_ready(url: str, name: str) -> None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            status = response.status
    except urllib.error.HTTPError as e:
        status = e.code
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        fail(f"{name} is not answering {url} ({reason}); start it first: ./testbed up --framework {name}")
    if status != 200:
        fail(f"{name} answers {url} with HTTP {status}, not 200; is its database up? (./testbed db start)")


def new_folder(framework, api, case):
    """results/load/<UTC time>-<framework>-<api>-case-NN/, never one that exists already."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = f"{stamp}-{framework}-{api}-case-{case:02d}"
    root = results_root()
    root.mkdir(parents=True, exist_ok=True)
    for n in range(1, 100):
        folder = root / (base if n == 1 else f"{base}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    fail(f"too many runs named {base} in {shown(root)}.")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def summary_line(s: dict, folder) -> str:
    if not s["samples"]:
        return f"no measured requests; see {shown(folder)}/jmeter.log"
    return (f"{s['samples']} requests, {s['errors']} errors ({s['error_pct']:.2f}%), "
            f"{s['throughput_rps']:.1f} req/s, mean {s['mean_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms, "
            f"max {s['max_ms']} ms -> {shown(folder)}/")


def load(args) -> int:
    manifest = validate(args)
    launcher = jmeter.find_jmeter()
    c = jmeter.find_case(args.case)
    port = args.port or manifest["default_port"]
    check_ready(f"http://{args.host}:{port}{manifest['readiness_path']}", args.framework)
    threads = args.threads or c["requests"]
    rampup = args.rampup if args.rampup is not None else min(jmeter.DEFAULTS["rampup_s"], args.warmup)
    folder = new_folder(args.framework, args.api, args.case)
    jtl = folder / "results.jtl"
    cmd = jmeter.plan_command(args.api, c, args.host, port, threads, rampup, args.warmup, args.duration,
                              jtl, IDS, folder / "jmeter.log", jmeter=launcher)
    record = {"schema_version": 1, "framework": args.framework, "api": args.api, **c, "host": args.host,
              "port": port, "settings": {"threads": threads, "rampup_s": rampup, "warmup_s": args.warmup,
                                         "duration_s": args.duration},
              "command": cmd, "started_at": now(), "ended_at": None, "summary": None}
    (folder / "load.json").write_text(json.dumps(record, indent=2))
    say(f"load: {args.framework} {args.api} case {args.case} ({c['rows']} rows, {c['joins']} joins): "
        f"{threads} threads, {args.warmup} s warm-up + {args.duration} s measured ...")
    with open(folder / "jmeter.out", "w") as out:
        code = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode
    if code != 0 or not jtl.is_file():
        fail(f"JMeter exited with {code}; see {shown(folder)}/jmeter.log")
    stats = jmeter.summarize_jtl(jtl)
    (folder / "load.json").write_text(json.dumps({**record, "ended_at": now(), "summary": stats}, indent=2))
    say(summary_line(stats, folder))
    if stats["errors"]:
        say("  most common errors: " + "; ".join(jmeter.failures(jtl)))
    if args.dashboard:
        started = time.monotonic()
        report = folder / "dashboard"
        with open(folder / "dashboard.out", "w") as out:
            code = subprocess.run(jmeter.dashboard_command(jtl, report, jmeter=launcher),
                                  stdout=out, stderr=subprocess.STDOUT).returncode
        if code != 0 or not (report / "index.html").is_file():
            fail(f"the dashboard was not written (JMeter exited with {code}); see {shown(folder)}/dashboard.out")
        say(f"dashboard: {shown(report / 'index.html')} ({time.monotonic() - started:.0f} s)")
    return 1 if stats["errors"] or not stats["samples"] else 0
