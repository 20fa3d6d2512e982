"""`./testbed load`: one measurement of one case against an implementation that is already running,
made as `./testbed run` makes its items: the run loop (collect/run/run_loop.py) on a pool of one app it
never starts (collect/load/app_pool.py ExternalApps), so the same plan, measured window, samplers,
validity checks and files, with or without remote engines. Its folder,
results/load/<UTC time>-<framework>-<api>-case-NN/, is a run of one item, with a load.json beside it
that holds the settings and the summary line's figures."""
import json
import signal
import subprocess
import sys
import time
from benchlib.results import now_iso
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from datetime import datetime, timezone
from pathlib import Path

from benchlib import apps, database, interrupts, jmeter, jtl
from benchlib.cases import find_case
from benchlib.console import fail, say
from benchlib.files import write_json
from benchlib.net import http_status, listening_here
from benchlib.engines import Endpoint
from benchlib.jtl import EDGE_FIELDS, JTL_FIELDS
from benchlib.paths import IDS, results_root, shown
from benchlib.items import Record
from benchlib.results import JTL, STATE
from collect.load import remote
from collect.run import preflight, run_manifest, runs
from collect.load.app_pool import ExternalApps, Target
from collect.items.profiles import Profile
from collect.run.run_loop import RunLoop

# Who ran the run, and what it measures (the manifest's `runner`).
RUNNER = {"name": "collect/run/single_load.py (./testbed load)",
          "restart": "never: the app was started by ./testbed up or by hand",
          "measures": "one item: the rounds phase of collect/run/run_loop.py, one round"}


@dataclass(frozen=True, kw_only=True)
class LoadRequest:
    """`./testbed load`'s options. A list as argparse gives it, never changed."""
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


def new_run(r: LoadRequest, root: Path, manifest: Callable[[str], dict]) -> runs.NewRun:
    """results/load/<UTC time>-<framework>-<api>-case-NN/, numbered on (-2, -3, …) past those that exist."""
    base = f"{datetime.now(timezone.utc).strftime('%Y%m%d-%H%M%S')}-{r.framework}-{r.api}-case-{r.case:02d}"
    return runs.NewRun(run_ids=(base, *(f"{base}-{n}" for n in range(2, 100))), manifest=manifest,
                       taken=f"too many runs named {base} in {shown(root)}.")


def profile(r: LoadRequest, threads: int, rampup: float) -> Profile:
    """The run's one measurement as the options ask: one round, exactly --warmup seconds of warm-up."""
    return Profile("load", "one case against an app already running (./testbed load)", rounds=1,
                   rampup_s=rampup, warmup_s=r.warmup, duration_s=r.duration, thread_cap=None,
                   restart="run", thread_count=threads)


def summary_line(s: dict, folder: Path) -> str:
    return (f"{s['samples']} requests, {s['errors']} errors ({s['error_pct']:.2f}%), "
            f"{s['throughput_rps']:.1f} req/s, mean {s['mean_ms']:.1f} ms, p95 {s['p95_ms']:.1f} ms, "
            f"max {s['max_ms']} ms -> {shown(folder)}/")


def sampled_note(framework: str, port: int, local: bool, db) -> str:
    """What the samplers watch besides the load generator, for the manifest."""
    app = (f"{framework}'s process, the one listening on port {port} here" if local else
           f"not {framework}: it does not listen on this machine, so the load generator's headroom "
           f"against its CPU per request is not checked")
    return f"{app}; " + (f"the database server, the one listening on port {db.port} here" if db else
                         "not the database: it does not listen on this machine")


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
    target = Target(r.framework, host, port, (r.api,), framework["readiness_path"])
    # Sampled, where they run here, as a run samples its own: the load generator's headroom is
    # judged against the server's CPU per request (collect/items/validity.py loadgen_cost, loadgen_share).
    local = listening_here(host, port) is not None
    db = database.database()
    db = db if (database.server_pid() if db.managed else listening_here(db.host, db.port)) else None
    spec = runs.RunSpec(results_root=results_root() / "load", profile=profile(r, threads, rampup),
                        frameworks=(r.framework,), apis=(r.api,), cases=(r.case,), pin=False, loadgen="jmeter",
                        engines=tuple(r.engines or ()), ssl=r.ssl)
    manifest = partial(run_manifest.external, spec, {r.framework: target}, launcher, runner=RUNNER, variant=None,
                       loadgen_why="./testbed load measures with JMeter, the study's tool",
                       layout_note="no pinning: the app where it was started, JMeter on this machine's cores",
                       sampled=sampled_note(r.framework, port, local, db), db=db, engines=engines)
    context = runs.open_run(spec, new_run(r, spec.results_root, manifest), frameworks=None, jmeter=launcher, db=db,
                            engines=engines)
    folder = context.dir
    say(f"load: {r.framework} {r.api} case {r.case} ({c['rows']} rows, {c['joins']} joins): "
        f"{threads} threads, {r.warmup} s warm-up + {r.duration} s measured"
        + (f", from {len(engines.endpoints)} engine(s)" if engines else "") + " ...")
    started_at = now_iso()
    interrupts.catch(signal.SIGINT, signal.SIGTERM)
    # The run loop's progress on a terminal; a script sees the start line and the summary line only.
    with nullcontext(sys.stdout) if sys.stdout.isatty() else open(folder / "progress.log", "w") as progress:
        loop = RunLoop(context, stream=progress,
                       pool=ExternalApps({r.framework: target},
                                         f"start it first: ./testbed up --framework {r.framework}", sample_local=True),
                       resume_command="the same ./testbed load (a load is one measurement: it starts afresh)")
        code = loop.execute()
    if code:  # interrupted, or stopped by an app that stopped answering
        state = json.loads((folder / STATE).read_text())
        say(f"load: {state['status']}: {state['reason']}; see {shown(folder)}/")
        return code
    [item] = loop.items
    measured = loop.files.read(item)
    results = measured.results or {}
    engine_loads = measured.to_json().get("engines")
    write_json(folder / "load.json", {
        "schema_version": 2, "framework": r.framework, "api": r.api, **c, "host": host, "port": port,
        "load": {**measured.load, **({"engines": engine_loads} if engine_loads is not None else {})},
        "item": item.key, "started_at": started_at, "ended_at": measured.ended_at,
        "status": measured.status, "reason": measured.reason,
        "summary": {k: results.get(k) for k in (*JTL_FIELDS, *EDGE_FIELDS)} if results else None,
        "flags": measured.flags, "checks": measured.checks,
        **({"engines": engines.facts} if engines else {})})
    return report(measured, loop.files.folder(item), folder, r.dashboard, launcher)


def report(measured: Record, item_folder: Path, folder: Path, dashboard: bool, launcher: str) -> int:
    """The summary line and what the checks found, then JMeter's dashboard if asked; exit code 1
    when the measurement failed or any measured request did."""
    if measured.status != "ok":
        say(f"no measurement: {measured.reason}; see {shown(item_folder)}/")
        return 1
    results, checks = measured.results, measured.checks
    say(summary_line(results, folder))
    if checks["validity"] != "valid":
        say(f"  {checks['validity']}: {checks['validity_reasons']}")
    if checks["app_cpu_ms_per_req"] is None:
        say("  the load generator's headroom was not checked: the app was not sampled (it does not listen "
            "on this machine); see the manifest's samplers")
    window = measured.window["measured_ms"]
    window = tuple(window) if window else None
    if results["errors"]:
        common = jtl.failures(item_folder / JTL, window_ms=window)
        say("  most common errors: " + "; ".join(common))
    if dashboard:
        write_dashboard(item_folder / JTL, window, folder, launcher)
    return 1 if results["errors"] else 0


def write_dashboard(jtl_path: Path, window_ms: tuple[int, int] | None, folder: Path, launcher: str) -> None:
    """JMeter's dashboard of the requests the summary line counts, those that completed in the window
    (dashboard.jtl). Left to its labels, JMeter would leave out the requests started in the warm-up:
    the slowest, and every one when the server answers more slowly than the window is long."""
    started = time.monotonic()
    window_jtl, out_dir = folder / "dashboard.jtl", folder / "dashboard"
    if not jtl.write_measured(jtl_path, window_jtl, window_ms):
        fail("no dashboard: no request completed in the measured window; measure longer (--duration)")
    with open(folder / "dashboard.out", "w") as out:
        code = subprocess.run(jmeter.dashboard_command(window_jtl, out_dir, jmeter=launcher),
                              stdout=out, stderr=subprocess.STDOUT).returncode
    if code != 0 or not (out_dir / "index.html").is_file():
        fail(f"the dashboard was not written (JMeter exited with {code}); see {shown(folder)}/dashboard.out")
    say(f"dashboard: {shown(out_dir / 'index.html')} ({time.monotonic() - started:.0f} s)")
