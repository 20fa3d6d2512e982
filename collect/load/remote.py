"""Load from JMeter remote engines (collect/README.md, "Load from remote engines"): `jmeter -n -R
HOST:PORT` controllers on this machine, one per engine, each sending the batch's plan with that
engine's share of the threads.

JMeter does not synchronise engines: each runs its copy of the plan on its own. So every
measurement gets a start time on the wall clock, the same for every engine (their clocks must
agree, as NTP keeps them), with a gap between measurements for the requests in flight to end and
the next threads to start. The engines read their own CPU over each window and send it back as a
sample of its own, so that a saturated engine is seen per engine.
"""
import csv
import os
import re
import socket
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from benchlib import engines as engine_lib, run_plans
from benchlib.console import fail, say
from benchlib.engines import Endpoint
from benchlib.items import EngineLoad
from benchlib.jmeter import PROPERTIES, jmeter_version
from benchlib.jtl import WARMUP_PREFIX
from benchlib.paths import IDS, TESTBED_HOME, shown
from benchlib.processes import stop_group
from collect.items import item_stats
from collect.load import arrivals

# From launching the controllers to the first measurement: their JVMs start and the plans reach
# the engines (a few seconds each on a small machine; on a 2-core controller busy with other work,
# two controllers took over 15 s, their engines began the first measurement 1.0 and 1.9 s late and
# missed its 1 s window).
LEAD_S = 25
# Between two measurements: the last requests in flight end, and the next group starts its threads.
GAP_S = 3
CONTROLLER_ENV = {"HEAP": "-Xms256m -Xmx512m"}
PROBE_TIMEOUT_S = 90
# How a controller's log says that every engine has ended the test. Its listeners have closed their
# files by then; JMeter's controller still sleeps 5 s ("allow listeners to close files") before it
# exits, which neither a probe nor a batch need wait out.
ALL_ENDED = "All remote engines have ended test"
# Beyond this, an engine's clock is too far off this machine's for measurements that start at shared
# wall-clock times (the gap between two measurements is GAP_S).
CLOCK_TOLERANCE_S = 0.5
STOP_GRACE_S = 20
SHUTDOWN_PORT = re.compile(r"Waiting for possible Shutdown/StopTestNow/HeapDump/ThreadDump message on port (\d+)")
# How a controller's log says its engine did not take the test: refused it, or could not be reached.
NOT_STARTED = ("The following remote engines have not started", "remote engines could not be configured")
GENERIC = ("rconfigure", "have not started", "could not be configured", "Failed to create engine",
           "NonGUIDriver", "An error occurred")
FACTS = ("jmeter", "java", "cores", "host", "os")


class EngineLost(Exception):
    """A load engine stopped answering or refused a batch: the run stops, resumable."""


@dataclass
class Engines:
    """The engines of a run, as the controller reaches them."""
    endpoints: list[Endpoint]
    ssl: bool
    address: str                     # this machine's address that the engines reach
    facts: list[dict] = field(default_factory=list)


@dataclass
class Controller:
    endpoint: Endpoint
    folder: Path
    proc: subprocess.Popen | None = None

    @property
    def log(self) -> Path:
        return self.folder / "jmeter.log"

    def jtl(self, index: int) -> Path:
        return self.folder / f"measurement-{index + 1:03d}.jtl"

    def report(self, index: int) -> Path:
        return self.folder / f"measurement-{index + 1:03d}-engine.jtl"


def controller_command(launcher: str, plan: Path, endpoint: Endpoint, index: int, engines: Engines,
                       log: Path, properties: dict | None = None) -> list[str]:
    """`jmeter -n -R` for one engine; over SSL the call-back ports are the kernel's (see
    benchlib/engines.py), without it CONTROLLER_PORT_BASE + 10 index. `properties`: JMeter
    properties beyond testbed.properties, set on the controller (-J) and sent to the engine (-G)."""
    callback = 0 if engines.ssl else engine_lib.CONTROLLER_PORT_BASE + 10 * index
    extra = [f"-{side}{k}={v}" for k, v in (properties or {}).items() for side in "JG"]
    return [launcher, "-n", "-t", str(plan), "-R", str(endpoint), "-q", str(PROPERTIES), "-j", str(log),
            f"-Jclient.rmi.localport={callback}", f"-Djava.rmi.server.hostname={engines.address}",
            *engine_lib.ssl_properties(engines.ssl), *extra]


def start_controller(controller: Controller, cmd: list[str]) -> None:
    """In its own session, so that a Ctrl-C reaches the run loop alone, which stops it."""
    controller.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True,
                                       env={**os.environ, **CONTROLLER_ENV})


def not_started(controller: Controller) -> str | None:
    """Why the engine did not take the test, when the controller's log says so: the first
    underlying exception, else the first specific error."""
    text = read(controller.log)
    if not any(mark in text for mark in NOT_STARTED):
        return None
    cause = re.search(r"(?m)^Caused by: [\w.$]*?(\w+): (.+)$", text)
    if cause:
        return f"{cause.group(1)}: {cause.group(2).strip()}"
    errors = [e for e in re.findall(r"(?m)^\S+ \S+ ERROR \S+: (.+)$", text) if not any(g in e for g in GENERIC)]
    return errors[0].strip() if errors else "no reason logged"


def stop(controllers: list[Controller]) -> None:
    """Asks each controller to stop its engine's test (StopTestNow on its shutdown port, as
    JMeter's stoptest.sh does), waits for them, then ends those still running. A controller whose
    engine has ended the test (ended) or no longer answers is ended at once: the first only sleeps,
    the second waits for an engine that cannot stop, so it only ever left after the whole grace (20 s
    more after every lost engine)."""
    for c in controllers:
        if c.proc and c.proc.poll() is None:
            if ended(c) or engine_lib.why_not_answering(c.endpoint):
                stop_group(c.proc)
                continue
            port = SHUTDOWN_PORT.search(read(c.log))
            if port:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.sendto(b"StopTestNow", ("127.0.0.1", int(port.group(1))))
    deadline = time.monotonic() + STOP_GRACE_S
    while any(c.proc and c.proc.poll() is None for c in controllers) and time.monotonic() < deadline:
        time.sleep(0.2)
    for c in controllers:
        if c.proc and c.proc.poll() is None:
            stop_group(c.proc)


def ended(c: Controller) -> bool:
    """Whether the controller's engine has ended the test: its results are written, and the
    controller, which then only sleeps before it exits, counts as done (ALL_ENDED)."""
    return ALL_ENDED in read(c.log)


def lost(endpoints: list[Endpoint]) -> str | None:
    """Which engine stopped answering, and why; None while all answer."""
    for endpoint in endpoints:
        why = engine_lib.why_not_answering(endpoint)
        if why:
            return f"load engine {endpoint} stopped answering ({why})"
    return None


# --- the plans ----------------------------------------------------------------------------------

def ids() -> dict[str, str]:
    return {name: (IDS / name).read_text() for name in ("comment_ids.csv", "user_ids.csv")}


def schedule(count: int, warmup_s: float, duration_s: float, now: float | None = None) -> list[int]:
    """Each measurement's start on the wall clock (epoch ms)."""
    first = (now or time.time()) + LEAD_S
    period = warmup_s + duration_s + GAP_S
    return [round((first + i * period) * 1000) for i in range(count)]


def launch(folder: Path, title: str, measurements: list[dict], starts: list[int],
           engines: Engines, launcher: str) -> list[Controller]:
    """Each engine's plan (write_plans) and its controller, started."""
    controllers = write_plans(folder, title, measurements, starts, engines)
    for i, c in enumerate(controllers):
        start_controller(c, controller_command(launcher, c.folder / "plan.jmx", c.endpoint, i, engines, c.log))
    return controllers


def write_plans(folder: Path, title: str, measurements: list[dict], starts: list[int],
                engines: Engines) -> list[Controller]:
    """One plan per engine in <folder>/engine-<n>/: the same measurements with that engine's share
    of each one's threads, the shared start times, its own result files, and property keys of
    this plan's own (an engine runs plan after plan in one JVM)."""
    id_texts = ids()
    key = plan_key()
    controllers = engine_folders(folder, engines)
    for e, c in enumerate(controllers):
        own = [{**m, "threads": engine_lib.split_threads(m["threads"], len(engines.endpoints))[e],
                "jtl": c.jtl(i), "engine_jtl": c.report(i), "start_ms": starts[i], "plan_key": key,
                "ids_dir": run_plans.remote_folder(id_texts)} for i, m in enumerate(measurements)]
        # An engine may have no thread in a measurement (more engines than threads): it sits it out.
        (c.folder / "plan.jmx").write_text(run_plans.batch_plan(title, [m for m in own if m["threads"]], id_texts))
    return controllers


def plan_key() -> str:
    """The JMeter property prefix of one plan: an engine runs plan after plan in one JVM, whose
    properties outlive each."""
    return f"testbed.{uuid.uuid4().hex[:12]}."


def engine_folders(folder: Path, engines: Engines) -> list[Controller]:
    """A controller per engine, each with its folder <folder>/engine-<n>/ made."""
    controllers = [Controller(endpoint, folder / f"engine-{e + 1}") for e, endpoint in enumerate(engines.endpoints)]
    for c in controllers:
        c.folder.mkdir()
    return controllers


def launch_open(folder: Path, title: str, measurements: list[dict], starts: list[int],
                engines: Engines, launcher: str, properties: dict) -> list[Controller]:
    """A latency round (collect/passes/latency.py) on the engines, each with its own controller: every
    measurement's schedule (`offsets`) and pool divided among the engines (divide), each share timed
    from the measurement's shared start, so that together the engines send the schedule as drawn.
    The id files and the schedules travel in the plan."""
    id_texts = ids()
    key = plan_key()
    controllers = engine_folders(folder, engines)
    for e, c in enumerate(controllers):
        files, own = dict(id_texts), []
        for i, m in enumerate(measurements):
            pool, share = divide(m["offsets"], m["pool"], len(engines.endpoints))[e]
            if not pool:  # more engines than the pool has threads: this one sits it out
                continue
            name = f"arrivals-{i + 1:03d}.csv"
            files[name] = arrivals.text(share)
            own.append({**{k: v for k, v in m.items() if k != "offsets"}, "pool": pool, "schedule": name,
                        "jtl": c.jtl(i), "start_ms": starts[i], "plan_key": key})
        there = run_plans.remote_folder(files)
        for m in own:
            m.update(schedule=f"{there}/{m['schedule']}", ids_dir=there)
        (c.folder / "plan.jmx").write_text(run_plans.open_plan(title, own, files))
        start_controller(c, controller_command(launcher, c.folder / "plan.jmx", c.endpoint, e, engines, c.log,
                                               properties))
    return controllers


def divide(offsets: list[int], pool: int, engines: int) -> list[tuple[int, list[int]]]:
    """A latency measurement's pool and schedule divided among `engines` engines: each engine's
    (threads, arrivals), as launch_open sends them and latency.measure counts them."""
    pools = engine_lib.split_threads(pool, engines)
    return list(zip(pools, arrivals.shares(offsets, pools)))


# --- what comes back -----------------------------------------------------------------------------

def first_sample(jtl: Path) -> tuple[float, dict] | None:
    """When the first sample started (epoch s, by the engine's clock) and the `key=value;…` pairs
    of its response message, if that sample succeeded."""
    try:
        with open(jtl, newline="") as f:
            row = next(csv.DictReader(f), None)
    except OSError:
        return None
    if not row or row.get("success") != "true":
        return None
    return int(row["timeStamp"]) / 1000, dict(pair.split("=", 1) for pair in row["responseMessage"].split(";")
                                              if "=" in pair)


def report_of(path: Path) -> dict:
    """The engine's CPU over one window, from the sample its plan sent (run_plans.engine_report)."""
    _, values = first_sample(path) or (None, None)
    if not values:
        return {"cpu_mean_pct": None, "cpu_peak_pct": None, "cores": None, "late_ms": None}
    # No reading at all: the reporter began after the window closed (its script compiles on first
    # use, which a window of 1 s can outlast), so the engine's CPU is unknown, not 0.
    read = int(values["samples"]) > 0
    return {"cpu_mean_pct": float(values["cpu_mean_pct"]) if read else None,
            "cpu_peak_pct": float(values["cpu_peak_pct"]) if read else None,
            "cores": int(values["cores"]), "late_ms": int(values["late_ms"])}


def take(controllers: list[Controller], index: int, target: Path, threads: int) -> list[EngineLoad]:
    """Measurement `index`'s JTLs from every engine, merged into `target`; per engine, its share
    of the threads, the measured samples it sent, and its CPU over the window."""
    counts = merge([c.jtl(index) for c in controllers], target)
    shares = engine_lib.split_threads(threads, len(controllers))
    found = []
    for c, share in zip(controllers, shares):
        cpu = report_of(c.report(index))
        found.append(EngineLoad(endpoint=str(c.endpoint), threads=share, samples=counts[c.jtl(index)], **cpu,
                                saturated=cpu["cpu_mean_pct"] is not None
                                and item_stats.saturated(cpu["cpu_mean_pct"], cpu["cores"])))
    return found


def busiest(engines: list[EngineLoad], stats: dict) -> tuple[int, dict]:
    """(its cores, `stats` with its CPU as the load generator's): the engine with the highest
    share of its own cores, so that loadgen_saturated is judged per engine."""
    measured = [e for e in engines if e.cpu_mean_pct is not None]
    if not measured:
        return 1, stats
    top = max(measured, key=lambda e: e.cpu_mean_pct / e.cores)
    return top.cores, {**stats, "loadgen_cpu_mean_pct": top.cpu_mean_pct, "loadgen_cpu_peak_pct": top.cpu_peak_pct}


def merge(parts: list[Path], target: Path) -> dict[Path, int]:
    """The engines' JTLs of one measurement as one (one header), and each part's count of
    measured samples (warm-up left out)."""
    counts = {}
    with open(target, "w") as out:
        header_written = False
        for part in parts:
            counts[part] = 0
            if not part.exists():
                continue
            with open(part) as src:
                header = src.readline()
                if header and not header_written:
                    out.write(header)
                    header_written = True
                for line in src:
                    out.write(line)
                    counts[part] += not line.split(",", 3)[2].startswith(WARMUP_PREFIX)
            part.unlink()
    return counts


# --- before any load ------------------------------------------------------------------------------

def probe_plan(jtl: Path) -> str:
    """One sample whose response message carries the engine's versions, cores and host."""
    script = ("prev.setResponseMessage('jmeter=' + org.apache.jmeter.util.JMeterUtils.getJMeterVersion()"
              " + ';java=' + System.getProperty('java.version') + ';cores=' + Runtime.runtime.availableProcessors()"
              " + ';host=' + java.net.InetAddress.localHost.hostName + ';os=' + System.getProperty('os.name')"
              " + ' ' + System.getProperty('os.version') + ' ' + System.getProperty('os.arch'))")
    return run_plans.probe_plan(script, jtl)


def probe(endpoint: Endpoint, index: int, engines: Engines, launcher: str, folder: Path) -> dict:
    """Runs the probe plan on one engine; its facts, or {"error": why}."""
    why = engine_lib.why_not_answering(endpoint)
    if why:
        return {"error": f"engine {endpoint} is not reachable ({why}); start it there with "
                         f"./testbed engine start --bind {endpoint.host} --port {endpoint.port}"}
    c = Controller(endpoint, folder / f"probe-{index + 1}")
    c.folder.mkdir(parents=True)
    jtl = c.folder / "facts.jtl"
    (c.folder / "plan.jmx").write_text(probe_plan(jtl))
    before = time.time()
    start_controller(c, controller_command(launcher, c.folder / "plan.jmx", endpoint, index, engines, c.log))
    if not probe_done(c, jtl):
        stop([c])
        return {"error": f"engine {endpoint} did not run a probe test in {PROBE_TIMEOUT_S} s; see {shown(c.log)}"}
    refused = not_started(c)
    if refused:
        hint = ("it runs another test: wait, or restart it" if "busy" in refused.lower() else
                "both ends need the same keystore, or both --no-ssl" if "ssl" in refused.lower()
                or "handshake" in refused.lower() or "certificate" in refused.lower() else
                "check that it runs the same JMeter and Java as this machine")
        return {"error": f"engine {endpoint} refused the test ({refused}); {hint}"}
    sample = first_sample(jtl)
    if not sample or any(k not in sample[1] for k in FACTS):
        return {"error": f"engine {endpoint} ran the probe but sent nothing back; see {shown(c.log)}"}
    at, found = sample
    off = clock_off(at, before, time.time())
    if off:
        return {"error": f"engine {endpoint}'s clock is at least {off:.1f} s off this machine's; keep both "
                         "in step (NTP, chrony): every measurement starts at a wall-clock time they share"}
    java = re.search(r"java\.version=(\S+)", read(c.log))
    return {**{k: int(found[k]) if k == "cores" else found[k] for k in FACTS}, "endpoint": str(endpoint),
            "ssl": engines.ssl, "controller_java": java.group(1) if java else None}


def probe_done(c: Controller, jtl: Path) -> bool:
    """Whether the probe's controller finished within PROBE_TIMEOUT_S: it exited, or its engine
    ended the test and the sample is in (the controller, left only its 5 s sleep, is ended here)."""
    deadline = time.monotonic() + PROBE_TIMEOUT_S
    while c.proc.poll() is None:
        if ended(c) and first_sample(jtl):
            stop_group(c.proc)
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def clock_off(at: float, before: float, after: float) -> float | None:
    """How far outside the probe's run, by this machine's clock, the engine's clock put the probe's
    sample (seconds), when that is beyond CLOCK_TOLERANCE_S: a lower bound of the clocks' offset."""
    off = max(before - at, at - after, 0.0)
    return off if off > CLOCK_TOLERANCE_S else None


def mismatch(facts: dict, jmeter: str) -> str | None:
    """Versions JMeter's manual asks to match on every node: JMeter exactly, Java's feature release."""
    if facts["jmeter"] != jmeter:
        return (f"engine {facts['endpoint']} runs JMeter {facts['jmeter']}, this machine {jmeter}; "
                f"install JMeter {jmeter} there (JMETER_HOME) and restart the engine")
    mine = facts.get("controller_java")
    if mine and facts["java"].split(".")[0] != mine.split(".")[0]:
        return (f"engine {facts['endpoint']} runs Java {facts['java']}, this machine {mine}; "
                "install the same Java release on both")
    return None


def connect(endpoints: list[Endpoint], ssl: bool, bind: str | None, launcher: str) -> Engines:
    """Checks every engine before any load: reachable, willing, same JMeter and Java. One line
    for the first that is not; their facts otherwise. The probes' files stay under
    .testbed/engines/probes/."""
    folder = TESTBED_HOME / "engines" / "probes" / datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-%f")
    if ssl:
        engine_lib.require_keystore()
    address = bind or engine_lib.reaching_address(endpoints[0].host)
    if bind:
        engine_lib.check_bind(bind)
    engines = Engines(endpoints, ssl, address)
    jmeter = jmeter_version(launcher)
    say(f"engines: checking {', '.join(map(str, endpoints))} (this machine answers them on {address}) ...")
    with ThreadPoolExecutor(len(endpoints)) as pool:
        found = list(pool.map(lambda pair: probe(pair[1], pair[0], engines, launcher, folder),
                              enumerate(endpoints)))
    for facts in found:
        if "error" in facts:
            fail(facts["error"])
        why = mismatch(facts, jmeter)
        if why:
            fail(why)
    engines.facts = found
    for f in found:
        say(f"engines: {f['endpoint']}: {f['host']}, JMeter {f['jmeter']}, Java {f['java']}, {f['cores']} cores")
    return engines


def read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
