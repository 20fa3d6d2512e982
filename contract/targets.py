"""The implementations verify talks to: a running one if its readiness path answers on the default
port, else one it builds and starts itself (through cli/apps.py) and stops afterwards."""
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from cli import apps
from cli.common import API_STYLES, LOGS, database, fail, manifests, say, served_apis
from cli.isolated import free_port
from contract.sqlcount import StatementCounter

REQUIRED = ("name", "build", "start", "port_env", "default_port", "readiness_path")


@dataclass
class Target:
    name: str
    url: str
    apis: tuple = API_STYLES  # what the manifest says it serves; verify checks only those
    proc: object = None      # the Popen verify started, or None for one that was running
    relay: StatementCounter | None = None   # counts its statements, if verify started it

    def release(self) -> None:
        if self.proc is not None:
            apps.stop_app(self.proc)
            self.proc = None
        if self.relay is not None:
            self.relay.close()
            self.relay = None


def read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        fail(f"cannot read the manifest {path}: {e}")
    missing = [key for key in REQUIRED if key not in manifest]
    if missing:
        fail(f"{path} lacks {', '.join(missing)}; see contract/README.md for the manifest fields.")
    manifest["dir"] = Path(path).resolve().parent
    return manifest


def select(names: list[str] | None, extra: list[Path]) -> list[dict]:
    """Every */framework.json plus the extra manifests, or just the ones named."""
    found = [read_manifest(m["dir"] / "framework.json") for m in manifests()]
    found += [read_manifest(path) for path in extra]
    if not found:
        fail("no implementation found: no folder holds a framework.json.")
    if not names:
        return found
    known = {m["name"]: m for m in found}
    unknown = [n for n in names if n not in known]
    if unknown:
        fail(f"no framework named {', '.join(unknown)}; known: {', '.join(known)}.")
    return [known[n] for n in names]


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def acquire(manifest: dict, fresh: bool = False) -> Target:
    """A running instance on the default port unless `fresh`; else one started here."""
    base = apps.url(manifest)
    if not fresh and _ready(base + manifest["readiness_path"]):
        say(f"verify: {manifest['name']}: using the one running at {base}.")
        return Target(manifest["name"], base, served_apis(manifest))
    port = manifest["default_port"] if apps.port_free(manifest["default_port"]) else free_port()
    return launch(manifest, port)


def launch(manifest: dict, port: int, extra_env: dict | None = None,
           purpose: str = "verify") -> Target:
    """Build (if its sources changed) and start the implementation on `port` with extra_env, its
    database behind a statement relay; wait until it is ready. Log: .testbed/logs/PURPOSE-NAME.log."""
    apps.build(manifest)
    log = LOGS / f"{purpose}-{manifest['name']}.log"
    db = database()
    relay = StatementCounter(db.host, db.port)
    relayed = {"DB_HOST": "127.0.0.1", "DB_PORT": str(relay.port)}
    proc = apps.start_app(manifest, port=port, log_path=log, extra_env={**(extra_env or {}), **relayed})
    target = Target(manifest["name"], apps.url(manifest, port), served_apis(manifest), proc, relay)
    try:
        apps.wait_ready(target.url + manifest["readiness_path"], proc=proc, log_path=log)
    except BaseException:
        target.release()
        raise
    say(f"{purpose}: {manifest['name']}: started at {target.url} (log {log}).")
    return target
