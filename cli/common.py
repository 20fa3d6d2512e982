"""What every subcommand shares: where things live, how errors reach the user, the database in use."""
import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Overridable so tests can run a second, isolated managed server beside the shared one.
STATE = Path(os.environ.get("TESTBED_HOME") or ROOT / ".testbed").resolve()
LOGS = STATE / "logs"
IDS = STATE / "ids"


class UserError(Exception):
    """A problem the user can fix: printed as one or two lines, exit status 2."""


def fail(message: str) -> "NoReturn":
    raise UserError(message)


def say(message: str) -> None:
    print(message, flush=True)


def port_free(port: int) -> bool:
    """True if nothing listens on the port, on any address (so 127.0.0.1 listeners count too)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def need_tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if not path:
        fail(f"{name} not found. {hint}")
    return path


def run(cmd, **kwargs) -> subprocess.CompletedProcess:
    """Run a command, failing with its own last lines of output rather than a traceback."""
    kwargs.setdefault("check", False)
    result = subprocess.run(cmd, **kwargs)
    if result.returncode != 0:
        fail(f"`{' '.join(map(str, cmd))}` exited with {result.returncode}.")
    return result


@dataclass(frozen=True)
class Database:
    """Connection settings. `managed` means the testbed's own server under .testbed/."""
    host: str
    port: int
    name: str
    api_user: str
    api_password: str
    seed_user: str
    seed_password: str
    managed: bool

    def api_env(self) -> dict:
        """The DB_* variables every implementation reads: the read-only account."""
        return {"DB_HOST": self.host, "DB_PORT": str(self.port), "DB_NAME": self.name,
                "DB_USER": self.api_user, "DB_PASSWORD": self.api_password}

    def seed_env(self) -> dict:
        return {**self.api_env(), "DB_USER": self.seed_user, "DB_PASSWORD": self.seed_password}

    def describe(self) -> str:
        kind = "managed" if self.managed else "external"
        return f"{kind} server {self.host}:{self.port}/{self.name}"


MANAGED_PORT = int(os.environ.get("TESTBED_DB_PORT") or 3307)


def database() -> Database:
    """The external server named by DB_HOST, or else the managed one on 127.0.0.1:3307."""
    env = os.environ
    if env.get("DB_HOST"):
        port = env.get("DB_PORT", "3306")
        if not port.isdigit():
            fail(f"DB_PORT must be a port number, not {port!r}.")
        user, password = env.get("DB_USER", "root"), env.get("DB_PASSWORD", "")
        return Database(env["DB_HOST"], int(port), env.get("DB_NAME", "forum"), user, password,
                        env.get("DB_SEED_USER", user), env.get("DB_SEED_PASSWORD", password), False)
    return Database("127.0.0.1", MANAGED_PORT, "forum", "forum_api", "forum_api",
                    "forum_seed", "forum_seed", True)


def manifests() -> list[dict]:
    """Every implementation: a folder at the root holding a framework.json (DESIGN §2)."""
    found = []
    for path in sorted(ROOT.glob("*/framework.json")):
        try:
            manifest = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            fail(f"{path.relative_to(ROOT)} is not valid JSON ({e}); fix it or remove the folder.")
        manifest["dir"] = path.parent
        found.append(manifest)
    return found


API_STYLES = ("rest", "graphql")


def served_apis(manifest: dict) -> tuple:
    """The API styles an implementation serves: its manifest's optional `apis`, else both."""
    apis = tuple(manifest.get("apis", API_STYLES))
    if not apis or any(a not in API_STYLES for a in apis):
        fail(f"{manifest['dir'] / 'framework.json'}: apis must be a non-empty list of "
             f"{' and '.join(API_STYLES)}, not {list(apis)}.")
    return apis


def main_guard(func, args) -> int:
    try:
        code = func(args)
        return code if isinstance(code, int) else 0
    except UserError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("testbed: interrupted.", file=sys.stderr)
        return 130


def os_env(extra: dict) -> dict:
    return {**os.environ, **extra}
