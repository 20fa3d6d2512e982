"""One batch of a run: several measurements, one after another, by one load generator process
while both samplers watch every app, the database and the load generator: JMeter running
benchlib/run_plans.py's batch plan, or collect/load/wrk_batch.py running one wrk per measurement
(benchlib/wrk_measure.lua). Both write the same files: each measurement's JTL and window, and a
log naming each measurement as it starts.

A batch's files stay in `batches/<n>/` of the run: the plan, the load generator's log, each
measurement's JTL until its item takes it, and the samplers' files for the whole batch, from which
each item keeps its own window. Which measurement the load generator is on is read from its log
(measurements run one after another: one starts when the one before has ended).

With remote engines (collect/load/remote.py) each engine's controller has its own `engine-<n>/` folder,
and each measurement starts at a time set in advance, the same for every engine.
"""
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchlib import plans, run_plans, wrk
from benchlib.items import Item
from benchlib.jmeter import PROPERTIES
from benchlib.paths import IDS, ROOT
from benchlib.processes import stop_group, wait_for_named
from collect.load import pinning, remote
from collect.items.profiles import Profile
from collect.load.samplers import LOADGEN_ROLE, Samplers

# JMeter names each thread group as it starts it; collect/load/wrk_batch.py each measurement.
GROUP_STARTED = re.compile(r"Starting (?:ThreadGroup|measurement): (\d+) : ")
LOADGEN_OUT = "loadgen.out"  # wrk's own report of a measurement (its socket errors), in the item's folder


@dataclass
class Measurement:
    """One of a batch's measurements (one thread group of JMeter's plan, one of wrk_batch's): the
    item, and where the app that serves it is reached (its pool's address for it: this machine's
    for the run's own apps, a target's own host for apps something else runs)."""
    item: Item
    host: str
    port: int
    ceiling: bool = False  # send plans.CEILING_PATH (answered 404) instead of the item's case

    @property
    def framework(self) -> str:
        return self.item.framework


@dataclass
class Batch:
    folder: Path
    measurements: list[Measurement]
    t0: float                      # what the samplers' t_s counts from
    loadgen: str = "jmeter"        # a name in LOADGENS
    process: subprocess.Popen | None = None  # JMeter, or wrk_batch (local load)
    # what the samplers watch as the load generator: JMeter's JVM, or wrk_batch and its wrk
    loadgen_pid: int | None = None
    cores: int = 1                 # the CPU set the load generator runs on: pinned, or all
    samplers: Samplers | None = None
    controllers: list[remote.Controller] = field(default_factory=list)  # one per remote engine
    starts: list[int] = field(default_factory=list)  # with engines: each measurement's start, epoch ms
    checked: float = 0.0  # when the engines were last seen answering (time.monotonic)
    warmup_s: float = 0.0
    duration_s: float = 0.0
    ids: Path = IDS  # the seeder's id files, which the requests take their ids from

    def jtl(self, index: int) -> Path:
        return self.folder / f"measurement-{index + 1:03d}.jtl"

    def window_file(self, index: int) -> Path:
        """Where the measurement's clock writes its window (benchlib/run_plans.group_clock)."""
        return self.folder / f"measurement-{index + 1:03d}.window"

    def window_ms(self, index: int) -> tuple[int, int] | None:
        """The measured window of measurement `index`, epoch ms: as its clock wrote it or, with
        engines, as the schedule set it for every engine (each engine's lateness is in its run.json
        entry and flagged). None: the clock never ended the window."""
        if self.starts:
            return self.starts[index] + round(self.warmup_s * 1000), \
                self.starts[index] + round((self.warmup_s + self.duration_s) * 1000)
        try:
            w0, w1, _ = self.window_file(index).read_text().split()
            return int(w0), int(w1)
        except (OSError, ValueError):
            return None

    def warmup_taken_s(self, index: int) -> float | None:
        """How long the warm-up of measurement `index` ran (it waits for every thread to have
        completed a request, up to the profile's cap); None with engines, whose warm-up is fixed."""
        try:
            return int(self.window_file(index).read_text().split()[2]) / 1000
        except (OSError, ValueError, IndexError):
            return None

    @property
    def tool(self) -> "LoadGen":
        return TOOLS[self.loadgen]

    @property
    def log(self) -> Path:
        """The load generator's log (with engines, the first controller's)."""
        return self.controllers[0].log if self.controllers else self.folder / f"{self.loadgen}.log"

    @property
    def raw(self) -> Path:
        return self.folder / "samplers"

    @property
    def launched(self) -> bool:
        """Whether its load generator (or a controller) was started: until then there is no exit to read."""
        return self.process is not None or bool(self.controllers)

    @property
    def controller_roles(self) -> list[str]:
        """The samplers' name for each engine's controller, in the engines' order."""
        return [f"controller:{i + 1}" for i in range(len(self.controllers))]

    def groups_started(self) -> int:
        """How many measurements the load generator has started, from its log; with engines, how
        many have reached their start time."""
        if self.controllers:
            now_ms = time.time() * 1000
            return sum(1 for start in self.starts if start <= now_ms)
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return 0
        return max((int(n) for n in GROUP_STARTED.findall(text)), default=0)

    def exit_code(self) -> int | None:
        """None while the load generator (every controller, with engines) runs; then its exit
        code, the first non-zero one of the controllers'. A controller whose engine has ended the
        test is done (0), running or not: it only sleeps 5 s before it exits, and stop() ends it."""
        if not self.controllers:
            return self.process.poll()
        codes = [0 if remote.ended(c) else c.proc.poll() for c in self.controllers]
        return None if None in codes else next((code for code in codes if code), 0)

    def engine_fault(self) -> str | None:
        """With engines: one that refused the plan, or stopped answering (checked every 2 s)."""
        for c in self.controllers:
            refused = remote.not_started(c)
            if refused:
                return f"load engine {c.endpoint} refused the batch ({refused})"
        if self.controllers and time.monotonic() - self.checked > 2:
            self.checked = time.monotonic()
            return remote.lost([c.endpoint for c in self.controllers])
        return None

    def stop(self) -> None:
        """The load generator (with engines: their tests, then the controllers) and the samplers,
        whatever state they are in."""
        if self.process and self.process.poll() is None:
            stop_group(self.process)
        remote.stop(self.controllers)
        if self.samplers:
            self.samplers.stop()


def next_batch(todo: list[Item], profile: Profile) -> list[Item]:
    """What one load generator process measures: the rest of the current round; one slot's items
    when every slot gets fresh apps; one item when every case does."""
    if profile.restart == "case":
        return todo[:1]
    first = todo[0]
    same = ("round", "api", "case") if profile.restart == "slot" else ("round",)
    return [item for item in todo if all(getattr(item, k) == getattr(first, k) for k in same)]


def new_folder(run_dir: Path, parent: Path | None = None) -> Path:
    """batches/<n> (or <parent>/<n>): numbered on, never reused, so a resumed run keeps the
    batches cut short."""
    parent = parent or run_dir / "batches"
    parent.mkdir(exist_ok=True)
    n = 1 + max((int(p.name) for p in parent.iterdir() if p.name.isdigit()), default=0)
    folder = parent / f"{n:03d}"
    folder.mkdir()
    return folder


def plan_measurements(batch: Batch, profile: Profile) -> list[dict]:
    return [{"api": s.item.api, "case": s.item, "host": s.host, "port": s.port,
             "threads": profile.threads(s.item.requests), "warmup_s": profile.warmup_s,
             "duration_s": profile.duration_s, "jtl": batch.jtl(i), "ids_dir": batch.ids,
             "window_file": batch.window_file(i),
             "request": plans.ceiling_request(s.host, str(s.port)) if s.ceiling else None, "rampup_s": profile.rampup_s,
             "warmup_cap_s": profile.warmup_cap_s}
            for i, s in enumerate(batch.measurements)]


def write_plan(batch: Batch, profile: Profile) -> Path:
    path = batch.folder / "plan.jmx"
    path.write_text(run_plans.batch_plan(f"batch {batch.folder.name}", plan_measurements(batch, profile)))
    return path


def write_wrk_plan(batch: Batch, profile: Profile) -> Path:
    """collect/load/wrk_batch.py's plan: per measurement, what wrk_measure.lua sends and checks, and
    the same ramp-up, warm-up rule and window as the JMeter plan's."""
    def ms(seconds):
        return str(round(seconds * 1000))
    entries = []
    for i, s in enumerate(batch.measurements):
        threads = profile.threads(s.item.requests)
        if s.ceiling:
            method, path, body, check, ids, status = "GET", plans.CEILING_PATH, None, "status", "-", 404
            label = f"GET {plans.CEILING_PATH}"
        else:
            key, method, path, body, ids = wrk.request(s.item.fields(), batch.ids)
            check, status, label = key, 200, plans.label(s.item.api, key, str(s.item.rows))
        entries.append({
            "label": label, "url": f"http://{s.host}:{s.port}", "connections": threads,
            "longest_s": profile.longest(), "window": str(batch.window_file(i)), "jtl": str(batch.jtl(i)),
            "env": {"WRK_IDS": str(ids), "WRK_METHOD": method, "WRK_PATH": path, "WRK_BODY": body or "-",
                    "WRK_API": s.item.api, "WRK_CHECK": check, "WRK_ROWS": str(s.item.rows),
                    "WRK_STATUS": str(status), "WRK_LABEL": label, "WRK_CONNECTIONS": str(threads),
                    "WRK_RAMPUP_MS": ms(profile.rampup_s), "WRK_WARMUP_MS": ms(profile.warmup_s),
                    "WRK_WARMUP_CAP_MS": ms(profile.warmup_cap_s or 0), "WRK_DURATION_MS": ms(profile.duration_s),
                    "WRK_WINDOW": str(batch.window_file(i)), "WRK_JTL": str(batch.jtl(i))}})
    path = batch.folder / "plan.json"
    path.write_text(json.dumps({"log": str(batch.log), "measurements": entries}, indent=1))
    return path


def jmeter_command(launcher: str, plan: Path, log: Path, properties: dict | None = None) -> list[str]:
    """JMeter's argv for a batch's plan: `properties` (-J) beyond testbed.properties."""
    return [launcher, "-n", "-t", str(plan), "-q", str(PROPERTIES), "-j", str(log),
            *(f"-J{k}={v}" for k, v in (properties or {}).items())]


class LoadGen:
    """A batch's load generator on this machine, one object per tool, asked instead of branching
    on its name: its name in the run's files (`name`, LOADGENS) and in messages (`title`), the
    process a batch starts and the one the samplers watch."""
    name = title = ""

    def launch(self, batch: Batch, profile: Profile, launcher: str, plan: Path | None,
               properties: dict | None) -> tuple[list[str], dict]:
        """(argv, environment) of the process that measures `batch`."""
        raise NotImplementedError

    def sampled(self, process: subprocess.Popen) -> int:
        return process.pid

    def exited(self, code: int) -> str:
        return f"{self.title} exited with code {code}"

    def overran(self) -> str:
        return f"{self.title} did not finish in time and was stopped"

    def take_report(self, jtl: Path, folder: Path) -> None:
        """Moves the tool's own report of a measurement, where it writes one beside the JTL, into
        the item's `folder`."""

    def lost_connections(self, folder: Path) -> dict[str, int]:
        """The connections the tool lost during the item's measurement, by kind, from the report
        in `folder` ({} if none, or if the tool does not report them)."""
        return {}


class Wrk(LoadGen):
    """collect/load/wrk_batch.py runs a wrk per measurement; the samplers count the wrk it runs with it.
    Each wrk's own report (its socket errors) is written beside the measurement's JTL."""
    name = title = "wrk"

    def launch(self, batch, profile, launcher, plan, properties):
        return ([sys.executable, "-m", "collect.load.wrk_batch", str(write_wrk_plan(batch, profile))],
                {**os.environ, "PYTHONPATH": str(ROOT)})

    def take_report(self, jtl, folder):
        if jtl.with_suffix(".out").exists():
            jtl.with_suffix(".out").rename(folder / LOADGEN_OUT)

    def lost_connections(self, folder):
        try:
            return wrk.socket_errors((folder / LOADGEN_OUT).read_text())
        except OSError:
            return {}


class JMeter(LoadGen):
    """`launcher` on `plan` (one written already: collect/passes/latency.py) or on the batch's closed-model
    plan, `properties` (-J) beyond testbed.properties."""
    name, title = "jmeter", "JMeter"

    def launch(self, batch, profile, launcher, plan, properties):
        return (jmeter_command(launcher, plan or write_plan(batch, profile), batch.log, properties),
                {**os.environ, **profile.jmeter_env})

    def sampled(self, process):
        """The JVM, which the launcher script starts: what spends the load generator's CPU."""
        return wait_for_named(process.pid, "java")


TOOLS = {tool.name: tool for tool in (Wrk(), JMeter())}
LOADGENS = tuple(TOOLS)


def start(batch: Batch, profile: Profile, launcher: str, targets: dict[str, int],
          loadgen_cpus, engines: "remote.Engines | None" = None, plan: Path | None = None,
          properties: dict | None = None, sampler_kinds: tuple[str, ...] = ("proc", "top")) -> None:
    """The batch's load generator (LoadGen.launch; JMeter's: `launcher`, `plan`, `properties`), in its
    own session, so a Ctrl-C reaches the run loop alone, which stops it; then the samplers
    (`sampler_kinds`) on `targets` (role -> pid) and the load generator."""
    if engines:
        start_remote(batch, profile, launcher, targets, engines)
        return
    batch.warmup_s, batch.duration_s = profile.warmup_s, profile.duration_s
    argv, env = batch.tool.launch(batch, profile, launcher, plan, properties)
    with pinning.launching_on(loadgen_cpus):
        batch.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True, env=env)
    batch.loadgen_pid = batch.tool.sampled(batch.process)
    batch.cores = pinning.cores_of(batch.loadgen_pid)
    batch.raw.mkdir()
    batch.samplers = Samplers({**targets, LOADGEN_ROLE: batch.loadgen_pid}, batch.raw, batch.t0, sampler_kinds)


def start_remote(batch: Batch, profile: Profile, launcher: str, targets: dict[str, int],
                 engines: "remote.Engines") -> None:
    """One controller per engine, each with its plan (its share of the threads, the shared start
    times), then the samplers."""
    batch.warmup_s, batch.duration_s = profile.warmup_s, profile.duration_s
    batch.starts = remote.schedule(len(batch.measurements), profile.warmup_s, profile.duration_s)
    batch.controllers = remote.launch(batch.folder, f"batch {batch.folder.name}",
                                      plan_measurements(batch, profile), batch.starts, engines, launcher)
    sample_remote(batch, targets)


def sample_remote(batch: Batch, targets: dict[str, int]) -> None:
    """The samplers on `targets` and on the batch's controllers, which spend this machine's CPU on
    receiving the samples."""
    batch.raw.mkdir()
    batch.samplers = Samplers({**targets, **{role: wait_for_named(c.proc.pid, "java")
                                             for role, c in zip(batch.controller_roles, batch.controllers)}},
                              batch.raw, batch.t0)
