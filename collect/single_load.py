"""`./testbed load`: one JMeter run of one case against an implementation that is already running,
kept under results/load/<UTC time>-<framework>-<api>-case-NN/ with a load.json beside the JTL."""
import os
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchlib import apps, jmeter, jtl
from benchlib.cases import find_case
from benchlib.console import fail, say
from benchlib.files import write_json
from benchlib.net import http_status
from benchlib.engines import Endpoint
from benchlib.paths import IDS, results_root, shown
from benchlib.results import JTL
from collect import preflight, remote
from collect.batch import Batch
from collect.item import JMETER_SLACK_S, judge


@dataclass
class LoadRequest:
    framework: str
    api: str
    case: int
    threads: int | None = None
    duration: int = jmeter.DEFAULTS["duration_s"]
    warmup: int = jmeter.DEFAULTS["warmup_s"]
    rampup: int | None = None
    port: int | None = None
    host: str | None = None  # default: loopback, or with engines this machine's address towards them
    dashboard: bool = False
    engines: list[Endpoint] | None = None
    ssl: bool = True


def validate(r: LoadRequest) -> dict:
    """Every input checked before anything runs; returns the framework."""
    framework = apps.find_framework(r.framework)
    preflight.check_options([r.api], [r.case], None)  # ./testbed run's checks, in its words
    if r.api not in apps.served_apis(framework):
        fail(f"{r.framework} does not serve {r.api} (the apis in its framework.json).")
    for name in ("threads", "duration"):
        value = getattr(r, name)
        if value is not None and value < 1:
            fail(f"--{name} must be at least 1, not {value}.")
    if r.warmup < 0:
        fail(f"--warmup must be 0 or more seconds, not {r.warmup}.")
    if r.engines and r.rampup is not None:
        fail("--rampup does not apply with --engines: the engines' threads all start, then wait for "
             "each other, as in ./testbed run; drop --rampup.")
    if r.rampup is not None and not 0 <= r.rampup <= r.warmup:
        fail(f"--rampup must be from 0 to --warmup ({r.warmup}) seconds, so that the measured "
             f"window has every thread running; got {r.rampup}.")
    if r.port is not None and not 1 <= r.port <= 65535:
        fail(f"--port must be from 1 to 65535, not {r.port}.")
    if not (IDS / "comment_ids.csv").is_file() or not (IDS / "user_ids.csv").is_file():
        fail(f"the id files are missing from {shown(IDS)}; run ./testbed seed first.")
    return framework


def check_ready(url: str, name: str) -> None:
    status = http_status(url, timeout=5)
    if status is None:
        fail(f"{name} is not answering {url}; start it first: ./testbed up --framework {name}")
    if status != 200:
        fail(f"{name} answers {url} with HTTP {status}, not 200; is its database up? (./testbed db start)")


def new_folder(framework: str, api: str, case: int) -> Path:
    """results/load/<UTC time>-<framework>-<api>-case-NN/, never one that exists already."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    base = f"{stamp}-{framework}-{api}-case-{case:02d}"
    root = results_root() / "load"
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


def summary_line(s: dict, folder: Path) -> str:
    if not s["samples"]:
        return f"no measured requests; see {shown(folder)}/jmeter.log"
    return (f"{s['samples']} requests, {s['errors']} errors ({s['error_pct']:.2f}%), "
            f"{s['throughput_rps']:.1f} req/s, mean {s['mean_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms, "
            f"max {s['max_ms']} ms -> {shown(folder)}/")


def load(r: LoadRequest) -> int:
    """Exit code 1 when any measured request failed (or none was measured)."""
    framework = validate(r)
    launcher = jmeter.find_jmeter()
    c = find_case(r.case)
    port = r.port or apps.port(framework)
    engines = remote.connect(r.engines, r.ssl, None, launcher) if r.engines else None
    host = r.host or (engines.address if engines else "127.0.0.1")
    check_ready(f"http://{host}:{port}{framework['readiness_path']}", r.framework)
    threads = r.threads or c["requests"]
    rampup = 0 if engines else r.rampup if r.rampup is not None else min(jmeter.DEFAULTS["rampup_s"], r.warmup)
    folder = new_folder(r.framework, r.api, r.case)
    jtl_path = folder / JTL
    cmd = None if engines else jmeter.plan_command(r.api, c, host, port, threads, rampup, r.warmup, r.duration,
                                                   jtl_path, IDS, folder / "jmeter.log", jmeter=launcher)
    record = {"schema_version": 1, "framework": r.framework, "api": r.api, **c, "host": host,
              "port": port, "load": {"threads": threads, "rampup_s": rampup, "warmup_s": r.warmup,
                                     "duration_s": r.duration},
              "command": cmd, "started_at": now(), "ended_at": None, "summary": None,
              **({"engines": engines.facts} if engines else {})}
    write_json(folder / "load.json", record)
    say(f"load: {r.framework} {r.api} case {r.case} ({c['rows']} rows, {c['joins']} joins): "
        f"{threads} threads, {r.warmup} s warm-up + {r.duration} s measured"
        + (f", from {len(engines.endpoints)} engine(s)" if engines else "") + " ...")
    if engines:
        record["load"]["engines"] = load_from_engines(r, c, host, port, threads, folder, launcher, engines)
    else:
        with open(folder / "jmeter.out", "w") as out:
            code = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode
        if code != 0 or not jtl_path.is_file():
            fail(f"JMeter exited with {code}; see {shown(folder)}/jmeter.log")
    stats = jtl.summarize(jtl_path)
    # No samplers here: the checks that need the machine's CPU or the ceiling are left empty.
    flags, checks = judge(stats, {}, threads, 1, os.cpu_count() or 1, None, record["load"].get("engines"))
    write_json(folder / "load.json", {**record, "ended_at": now(), "summary": stats, "flags": flags,
                                      "checks": checks})
    say(summary_line(stats, folder))
    if checks["validity"] != "valid":
        say(f"  {checks['validity']}: {checks['validity_reasons']}")
    if stats["errors"]:
        say("  most common errors: " + "; ".join(jtl.failures(jtl_path)))
    if r.dashboard:
        started = time.monotonic()
        report = folder / "dashboard"
        with open(folder / "dashboard.out", "w") as out:
            code = subprocess.run(jmeter.dashboard_command(jtl_path, report, jmeter=launcher),
                                  stdout=out, stderr=subprocess.STDOUT).returncode
        if code != 0 or not (report / "index.html").is_file():
            fail(f"the dashboard was not written (JMeter exited with {code}); see {shown(folder)}/dashboard.out")
        say(f"dashboard: {shown(report / 'index.html')} ({time.monotonic() - started:.0f} s)")
    return 1 if stats["errors"] or not stats["samples"] else 0


def load_from_engines(r: LoadRequest, c: dict, host: str, port: int, threads: int, folder: Path,
                      launcher: str, engines: remote.Engines) -> list[dict]:
    """One measurement as `./testbed run` makes it through engines (collect/batch.py), its JTLs
    merged into the folder's; what each engine ran and reported."""
    measurement = {"api": r.api, "case": c, "host": host, "port": port, "threads": threads, "warmup_s": r.warmup,
                   "duration_s": r.duration, "jtl": None, "ids_dir": None}
    batch = Batch(folder, [], time.time(), starts=remote.schedule(1, r.warmup, r.duration))
    batch.controllers = remote.launch(folder, "load", [measurement], batch.starts, engines, launcher)
    deadline = time.monotonic() + remote.LEAD_S + r.warmup + r.duration + JMETER_SLACK_S
    try:
        while batch.exit_code() is None:
            fault = batch.engine_fault() or ("the engines did not finish in time"
                                             if time.monotonic() > deadline else None)
            if fault:
                fail(f"{fault}; see {shown(folder)}/engine-*/jmeter.log")
            time.sleep(0.2)
        refused = batch.engine_fault()
        if refused:
            fail(refused)
    finally:
        batch.stop()
    return remote.take(batch.controllers, 0, folder / JTL, threads)
