"""The implementations verify talks to: a running one if its readiness path answers on the default
port, else one it builds and starts itself (through benchlib/apps.py) and stops afterwards."""
from dataclasses import dataclass

from benchlib import apps
from benchlib.builds import build
from benchlib.cases import API_STYLES
from benchlib.console import say
from benchlib.database import database
from benchlib.net import free_port, http_status, port_free
from benchlib.paths import LOGS
from benchlib.processes import stop_group
from contract.sqlcount import StatementCounter


@dataclass
class Target:
    name: str
    url: str
    apis: tuple = API_STYLES  # what its framework.json says it serves; verify checks only those
    proc: object = None      # the Popen verify started, or None for one that was running
    relay: StatementCounter | None = None   # counts its statements, if verify started it

    def release(self) -> None:
        if self.proc is not None:
            stop_group(self.proc)
            self.proc = None
        if self.relay is not None:
            self.relay.close()
            self.relay = None


def acquire(framework: dict, fresh: bool = False) -> Target:
    """A running instance on its port unless `fresh`; else one started here. Its port is the one
    `./testbed up` serves it on (TESTBED_PORT_OFFSET included), so verify finds what `up` started
    and never answers for another testbed's app on the unshifted port."""
    base = apps.url(framework)
    if not fresh and http_status(base + framework["readiness_path"]) == 200:
        say(f"verify: {framework['name']}: using the one running at {base}.")
        return Target(framework["name"], base, apps.served_apis(framework))
    port = apps.port(framework) if port_free(apps.port(framework)) else free_port()
    return launch(framework, port)


def launch(framework: dict, port: int, extra_env: dict | None = None,
           purpose: str = "verify") -> Target:
    """Build (if its sources changed) and start the implementation on `port` with extra_env, its
    database behind a statement relay; wait until it is ready. Log: .testbed/logs/PURPOSE-NAME.log."""
    build(framework)
    log = LOGS / f"{purpose}-{framework['name']}.log"
    db = database()
    relay = StatementCounter(db.host, db.port)
    relayed = {"DB_HOST": "127.0.0.1", "DB_PORT": str(relay.port)}
    proc = apps.start_app(framework, port, log, extra_env={**(extra_env or {}), **relayed})
    target = Target(framework["name"], apps.url(framework, port), apps.served_apis(framework), proc, relay)
    try:
        apps.wait_ready(framework, port, proc, log)
    except BaseException:
        target.release()
        raise
    say(f"{purpose}: {framework['name']}: started at {target.url} (log {log}).")
    return target
