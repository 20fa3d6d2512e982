"""Where things live, and the environment settings that move them (TESTBED_HOME, TESTBED_RESULTS,
TESTBED_DB_PORT, TESTBED_PORT_OFFSET, TESTBED_BIND_ADDRESS), read in this one place."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Overridable so tests can run a second, isolated managed server beside the shared one.
TESTBED_HOME = Path(os.environ.get("TESTBED_HOME") or ROOT / ".testbed").resolve()
LOGS = TESTBED_HOME / "logs"
IDS = TESTBED_HOME / "ids"
PIDS = TESTBED_HOME / "run"  # pid files of the apps `./testbed up` started
# Build stamps and locks stay beside the builds they describe, whatever TESTBED_HOME says: every
# testbed home runs the apps from the same folders, so an isolated one (the tests') that kept its
# own stamps rebuilt them, and `npm ci` emptied node_modules under another home's running app.
BUILDS = ROOT / ".testbed" / "build"
PLANS = ROOT / "jmeter-plans"
DEFAULT_RESULTS = ROOT / "results"
MANAGED_DB_PORT = int(os.environ.get("TESTBED_DB_PORT") or 3307)


def results_root() -> Path:
    """Where runs are written unless --results-dir says otherwise: $TESTBED_RESULTS, else results/."""
    return Path(os.environ.get("TESTBED_RESULTS") or DEFAULT_RESULTS)


def port_offset() -> int:
    """Added to every app's default port, to run beside another testbed on the same machine."""
    return int(os.environ.get("TESTBED_PORT_OFFSET") or 0)


def shown(path: Path) -> str:
    """A path as a user reads it: relative to the repository when inside it."""
    path = Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def bind_address() -> str:
    """Where the apps listen: loopback, unless TESTBED_BIND_ADDRESS names the address that remote
    load engines reach (`run --engines` and `--bind` set it)."""
    return os.environ.get("TESTBED_BIND_ADDRESS") or "127.0.0.1"
