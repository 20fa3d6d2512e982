"""The matrix against apps that something else runs: the Docker runner (docker/jmeter/run-matrix.sh
calls this in the jmeter container). It writes the standard run layout (benchlib/results.py), so
`./testbed report` reads its runs, and takes its timings from collect/profiles.py.

    python3 -m collect.external_run --targets "aspnet=aspnet-api:5000:rest,graphql express=…" \\
        [--frameworks aspnet,express] [--apis rest,graphql] [--cases all|1,4] [--iterations N] \\
        [--profile quick] [--ids-dir DIR] [--results-dir DIR] [--run-id ID] [--dry-run]

Unlike `./testbed run`, the apps are never restarted (a container cannot restart its neighbours)
and neither they nor the database are sampled: only JMeter's JVM, by the /proc sampler. A case's
frameworks run back to back, so both meet the same machine state.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib.cases import API_STYLES, cases
from benchlib.console import UserError, fail, say
from benchlib.files import write_json
from benchlib.jmeter import find_jmeter
from benchlib.jtl import summarize
from benchlib.paths import IDS, results_root
from benchlib.processes import stop_group, wait_for_named
from benchlib.results import (JTL, MANIFEST, RUN_JSON, SCHEMA_VERSION, STATE, SUMMARY, append_summary,
                              item_key, new_run_id, parse_item_key, summary_row)
from collect import pinning, run_manifest
from collect.item import JMETER_SLACK_S, judge, load_command, log_tail, new_record, outcome_line, start_load, \
    trimmed_stats
from collect.profiles import DEFAULT, PROFILES, Profile
from collect.samplers import Samplers

RUNNER = "collect/external_run.py (docker-compose jmeter service)"


@dataclass(frozen=True)
class Target:
    framework: str
    host: str
    port: int
    apis: tuple[str, ...]


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


def order(frameworks: list[str], apis: list[str], case_numbers: list[int], iterations: int) -> list[str]:
    return [item_key({"framework": f, "api": a, "case": c, "iteration": i})
            for i in range(1, iterations + 1) for c in case_numbers for a in apis for f in frameworks]


def manifest(run_id: str, profile: Profile, targets: dict[str, Target], frameworks: list[str],
             apis: list[str], case_numbers: list[int], launcher: str) -> dict:
    return {
        "schema_version": SCHEMA_VERSION, "run_id": run_id, **run_manifest.git(),
        "created_at": run_manifest.now_iso(), "profile": profile.name,
        "settings": {"profile": profile.settings(), "frameworks": frameworks, "apis": apis,
                     "cases": case_numbers, "iterations": profile.iterations, "pin": "no-pin", "loadgen": "jmeter"},
        "seed": None, "order": order(frameworks, apis, case_numbers, profile.iterations),
        "frameworks": {f: {"name": f, "host": targets[f].host, "port": targets[f].port,
                           "apis": list(targets[f].apis)} for f in frameworks},
        "versions": run_manifest.runtime_versions(launcher),
        "machine": run_manifest.machine(),
        "loadgen": {"requested": "jmeter", "tool": "jmeter", "why": "the Docker runner's load generator"},
        "layout": {"requested": "no-pin", "applied": False,
                   "note": "the apps and the database in their own containers, JMeter in this one"},
        "runner": {"name": RUNNER, "restart": "never: the apps run in their own containers",
                   "api_cpus": os.environ.get("API_CPUS"), "api_memory": os.environ.get("API_MEMORY")},
        "database": {"managed": False, "sampled": False},
        "samplers": {"proc": "/proc/<pid>/stat every 0.1 s, JMeter's JVM only: the apps and the "
                             "database run in other containers (watch docker stats)",
                     "summary_source": "proc.csv, trimmed to the measured window"},
    }


def measure_one(run_dir: Path, target: Target, item: dict, profile: Profile, ids: Path,
                launcher: str) -> str:
    """Run and record one item; the line to print."""
    folder = run_dir / item_key(item)
    record = new_record(item, profile)
    folder.mkdir(parents=True)
    write_json(folder / RUN_JSON, record)
    if item["api"] not in target.apis:
        return record_outcome(run_dir, item, record, "excluded",
                              f"{target.framework} does not serve {item['api']} (TARGETS)")
    t0 = time.time()
    (folder / "raw").mkdir()
    jm = start_load(load_command(target.host, target.port, item, profile, folder, ids, launcher), profile)
    samplers, timed_out = None, False
    try:
        jvm = wait_for_named(jm.pid, "java")
        samplers = Samplers({"loadgen": jvm}, folder / "raw", t0, kinds=("proc",))
        record["pids"] = {"app": None, "db": None, "loadgen": jvm}
        write_json(folder / RUN_JSON, record)
        jm.wait(timeout=profile.rampup_s + profile.warmup_s + profile.duration_s + JMETER_SLACK_S)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:  # neither JMeter nor the sampler outlives the item, whatever happened
        if samplers:
            samplers.stop()
        stop_group(jm)
    summary = summarize(folder / JTL)
    if timed_out or jm.returncode != 0 or not summary["samples"]:
        reason = ("JMeter did not finish in time and was stopped" if timed_out
                  else f"JMeter exited with code {jm.returncode}" if jm.returncode != 0
                  else "no sample finished inside the measured window")
        record["log_tail"] = log_tail(folder / "jmeter.log")
        return record_outcome(run_dir, item, record, "failed", reason, summary)
    window, stats = trimmed_stats(folder, folder / "raw", t0)
    shutil.rmtree(folder / "raw")
    # The apps run in other containers: no machine figures, and no ceiling measured here.
    flags, checks = judge(summary, stats, record["load"]["threads"], pinning.cores_of(os.getpid()),
                          os.cpu_count() or 1, None)
    record.update(status="ok", flags=flags, ended_at=run_manifest.now_iso(), window=window,
                  results={**summary, **stats}, checks=checks)
    write_json(folder / RUN_JSON, record)
    append_summary(run_dir / SUMMARY, summary_row(item, "ok", flags, summary, stats, checks))
    return outcome_line(summary, stats, flags, checks)


def record_outcome(run_dir: Path, item: dict, record: dict, status: str, reason: str,
                   summary: dict | None = None) -> str:
    record.update(status=status, reason=reason, ended_at=run_manifest.now_iso(),
                  results=dict(summary or {}))
    write_json(run_dir / item_key(item) / RUN_JSON, record)
    append_summary(run_dir / SUMMARY, summary_row(item, status, [], summary or {}, {}))
    return f"{status}: {reason}"


def numbers(text: str, name: str) -> list[str]:
    found = [part.strip() for part in text.replace(" ", ",").split(",") if part.strip()]
    if not found:
        fail(f"{name} is empty.")
    return found


def run(args) -> int:
    targets = parse_targets(args.targets)
    frameworks = numbers(args.frameworks, "FRAMEWORKS") if args.frameworks else list(targets)
    for f in frameworks:
        if f not in targets:
            fail(f"no framework named {f!r} in FRAMEWORKS; known: {','.join(targets)}.")
    apis = numbers(args.apis, "APIS")
    for api in apis:
        if api not in API_STYLES:
            fail(f"unknown API {api!r} in APIS; known: {','.join(API_STYLES)}.")
    known = cases()
    case_numbers = sorted(known) if args.cases == "all" else []
    for text in ([] if args.cases == "all" else numbers(args.cases, "CASES")):
        if not text.isdigit() or int(text) not in known:
            fail(f"no case {text} in cases.csv (CASES={args.cases}).")
        case_numbers.append(int(text))
    if args.profile not in PROFILES:
        fail(f"unknown PROFILE {args.profile!r}; known: {','.join(PROFILES)}.")
    profile = PROFILES[args.profile]
    if args.iterations:
        if not args.iterations.isdigit() or int(args.iterations) < 1:
            fail(f"ITERATIONS must be a whole number from 1 up, not {args.iterations!r}.")
        profile = profile.with_iterations(int(args.iterations))
    items = [parse_item_key(key, known) for key in order(frameworks, apis, case_numbers, profile.iterations)]
    if args.dry_run:
        for item in items:
            target = targets[item["framework"]]
            if item["api"] in target.apis:
                say(shlex.join(load_command(target.host, target.port, item, profile,
                                            args.results_dir / "RUN_ID" / item_key(item),
                                            args.ids_dir, "jmeter")))
        return 0
    for name in ("comment_ids.csv", "user_ids.csv"):
        if not (args.ids_dir / name).is_file() or not (args.ids_dir / name).stat().st_size:
            fail(f"{args.ids_dir / name} is missing: the seed service has not completed.")
    launcher = find_jmeter()
    run_id = args.run_id or new_run_id(f"{profile.name}-docker")
    run_dir = args.results_dir / run_id
    try:
        run_dir.mkdir(parents=True)
    except FileExistsError:
        fail(f"{run_dir} already exists; results are never overwritten.")
    except OSError as e:
        fail(f"cannot write to {run_dir} ({e.strerror}); on the host: mkdir -p results/docker, and "
             f"set HOST_UID/HOST_GID in .env to your id -u / id -g.")
    write_json(run_dir / MANIFEST, manifest(run_id, profile, targets, frameworks, apis, case_numbers,
                                            launcher))
    write_json(run_dir / STATE, {"status": "running", "pid": os.getpid()})
    for item in items:
        line = measure_one(run_dir, targets[item["framework"]], item, profile, args.ids_dir, launcher)
        say(f"{item_key(item)}: {line}")
    write_json(run_dir / STATE, {"status": "complete", "pid": os.getpid()})
    say(f"run: results in {run_dir}")
    return 0


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m collect.external_run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--targets", required=True, help="framework=host:port:api,api …")
    p.add_argument("--frameworks", default="", help="subset of the targets (default: all)")
    p.add_argument("--apis", default=",".join(API_STYLES))
    p.add_argument("--cases", default="all", help="all, or case numbers such as 1,4,7")
    p.add_argument("--iterations", default="", help="override the profile's iterations")
    p.add_argument("--profile", default=DEFAULT, help=f"one of {', '.join(PROFILES)} (default {DEFAULT})")
    p.add_argument("--ids-dir", type=Path, default=IDS)
    p.add_argument("--results-dir", type=Path, default=results_root())
    p.add_argument("--run-id", default="")
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
