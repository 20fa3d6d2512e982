"""The apps a run measures, as a pool the run loop asks for them:

- AppPool, the run's own apps: each started when a phase first needs it, on the app cores of the
  run's layout, restarted when it has exited, or afresh when a phase wants a fresh process (the
  study's protocol, the memory pass). What each running app reports it loaded goes to the run's
  manifest.
- ExternalApps, apps something else runs (the Docker runner's containers, the app `./testbed load`
  is pointed at): each framework at a host and port of its own, never started, restarted or
  stopped here, only checked to answer; for `./testbed load`, sampled when it listens on this machine.
"""
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchlib import apps
from benchlib.console import UserError
from benchlib.net import http_status, listening_here
from benchlib.processes import stop_group
from collect.load import pinning
from collect.items.item import RunningApp, log_tail

LOADED_PREFIX = "testbed-loaded "


def loaded_report(log: Path) -> dict | None:
    """What an app says it loaded (runtime, driver, libraries): its start-up line
    `testbed-loaded {json}` (docs/adding-a-framework.md), read from the process's own log."""
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(LOADED_PREFIX):
                    return json.loads(line[len(LOADED_PREFIX):])
    except (OSError, ValueError):
        return None
    return None


class AppFailed(Exception):
    def __init__(self, message, tail):
        super().__init__(message)
        self.tail = tail


class AppPool:
    # The apps are this run's: phases may start them afresh and sample their CPU and memory.
    ours = True
    sampler_kinds = ("proc", "top")

    def __init__(self, frameworks: dict[str, dict], logs: Path, cores: Callable[[], list[int] | None],
                 on_loaded: Callable[[str, dict | None], None]):
        """`cores`: the app cores of the layout when an app starts (the layout is chosen after the
        first apps run); `on_loaded`: told what each app reports it loaded, as it starts."""
        self.frameworks = frameworks
        self.logs = logs
        self.cores = cores
        self.on_loaded = on_loaded
        self.running: dict[str, RunningApp] = {}
        self.loaded: dict[str, dict | None] = {}   # framework -> what its running app reported

    def serves(self, name: str, api: str) -> bool:
        return api in self.served(name)

    def served(self, name: str) -> tuple:
        """The APIs `name` serves."""
        return apps.served_apis(self.frameworks[name])

    def address(self, name: str) -> tuple[str, int]:
        """Where `name` is reached: host and port."""
        return apps.host(), apps.port(self.frameworks[name])

    def sampled(self) -> dict[str, int]:
        """{framework: the pid the samplers watch} of the running apps."""
        return {name: app.pid for name, app in self.running.items()}

    def database(self, db) -> int | None:
        """An external database server is not a run's to sample (the managed one is: RunLoop)."""
        return None

    def ensure(self, name: str) -> None:
        """`name` running: started if it is not, or has exited."""
        app = self.running.get(name)
        if app is None or app.proc.poll() is not None:
            self.running.pop(name, None)
            self.start([name])

    def start(self, names: list[str]) -> None:
        """Starts the apps side by side and waits until each is ready (a fresh process each)."""
        started = {}
        self.logs.mkdir(exist_ok=True)
        try:
            for name in names:
                framework = self.frameworks[name]
                log = self.logs / f"{name}-{datetime.now(timezone.utc).strftime('%H%M%S%f')}.log"
                with pinning.launching_on(self.cores()):
                    started[name] = (apps.start_app(framework, apps.port(framework), log), log)
            for name, (proc, log) in started.items():
                try:
                    apps.wait_ready(self.frameworks[name], apps.port(self.frameworks[name]), proc, log)
                except UserError as e:
                    raise AppFailed(f"{name} did not become ready: {e}", log_tail(log)) from None
        except BaseException:
            # Not in `running` yet, so stop_all would miss them: an app that never became ready, or
            # one a Ctrl-C caught starting, would stay on its port and refuse the resumed run's.
            for proc, _ in started.values():
                stop_group(proc)
            raise
        for name, (proc, log) in started.items():
            self.running[name] = RunningApp(name, proc, log, apps.sampled_pid(self.frameworks[name], proc))
            self.loaded[name] = loaded_report(log)
            self.on_loaded(name, self.loaded[name])

    def restart(self, names: list[str]) -> None:
        """Fresh processes for `names`, so that what they hold in memory is the next case's own."""
        for name in names:
            app = self.running.pop(name, None)
            if app:
                stop_group(app.proc)
        self.start(names)

    def stop_all(self) -> None:
        for app in self.running.values():
            stop_group(app.proc)
        self.running.clear()

    def exited(self, names) -> tuple[str, int] | None:
        """The first of `names` whose process has exited, with its exit code."""
        for name in names:
            code = self.running[name].proc.poll()
            if code is not None:
                return name, code
        return None


# Every framework.json's readiness_path (docker/test_compose.py checks that they agree): the
# containers hold no framework.json to read it from.
READINESS_PATH = "/healthz"


@dataclass(frozen=True)
class Target:
    """A framework something else runs, where it is reached and the APIs it serves."""
    framework: str
    host: str
    port: int
    apis: tuple[str, ...]
    readiness_path: str = READINESS_PATH


class ExternalApps:
    """The apps of `targets`, run by something else (the Docker runner's containers, the app
    `./testbed load` is pointed at): nothing to start, restart or stop (`running` stays empty).
    Starting one only checks that it answers its readiness path and, with `sample_local`, finds
    the process listening on its port when that is on this machine, for the samplers to watch as
    they watch a run's own app: without the server's CPU per request, the load generator's
    headroom cannot be checked."""
    ours = False
    # The proc sampler alone: it gives every figure the checks read (and the Docker runner's image
    # has no top).
    sampler_kinds = ("proc",)

    def __init__(self, targets: dict[str, Target], start_hint: str = "it runs elsewhere (TARGETS): start it there",
                 sample_local: bool = False):
        """`start_hint`: what the user does about one that does not answer."""
        self.targets = targets
        self.start_hint = start_hint
        self.sample_local = sample_local
        self.running: dict[str, RunningApp] = {}
        self.loaded: dict[str, dict | None] = {}
        self.pids: dict[str, int] = {}

    def sampled(self) -> dict[str, int]:
        """{framework: pid} of the apps found listening on this machine."""
        return dict(self.pids)

    def database(self, db) -> int | None:
        """With `sample_local`, the process listening on the database's port, when on this machine."""
        return listening_here(db.host, db.port) if self.sample_local else None

    def serves(self, name: str, api: str) -> bool:
        return api in self.targets[name].apis

    def address(self, name: str) -> tuple[str, int]:
        return self.targets[name].host, self.targets[name].port

    def ensure(self, name: str) -> None:
        """`name` answers its readiness path with 200, or AppFailed says what it did instead."""
        target = self.targets[name]
        url = f"http://{target.host}:{target.port}{target.readiness_path}"
        status = http_status(url, timeout=5)
        if status != 200:
            raise AppFailed(f"{name} is not answering {url} ("
                            + ("no answer" if status is None else f"HTTP {status}")
                            + f"); {self.start_hint}", "")
        pid = listening_here(target.host, target.port) if self.sample_local else None
        if pid:
            self.pids[name] = pid
        else:
            self.pids.pop(name, None)

    def start(self, names: list[str]) -> None:
        """Not ours to start: checks that each answers."""
        for name in names:
            self.ensure(name)

    def restart(self, names: list[str]) -> None:
        """Not ours to restart: checks that each answers."""
        self.start(names)

    def stop_all(self) -> None:
        """Not ours to stop."""

    def exited(self, names) -> tuple[str, int] | None:
        """No process of ours to have exited; one that stops answering fails its requests."""
        return None
