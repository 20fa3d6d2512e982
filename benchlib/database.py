"""The database in use: the managed MariaDB under .testbed/ (start, stop, status, reset), or the
external server DB_HOST names; SQL through the command-line client, so no driver is needed."""
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from benchlib.console import fail, say
from benchlib.net import port_free
from benchlib.packages import ensure_debian
from benchlib.paths import LOGS, MANAGED_DB_PORT, ROOT, TESTBED_HOME, shown
from benchlib.processes import alive, command_name

DATA = TESTBED_HOME / "mysql"
DATADIR = DATA / "data"
SOCKET = DATA / "mysqld.sock"
PIDFILE = DATA / "mysqld.pid"
# The server's temporary files, its own: a starting server removes the `#sql*` files it finds in
# its tmpdir, and in a shared /tmp those of another server being installed beside it (whose
# installation then fails: "Could not remove temporary table").
TMPDIR = DATA / "tmp"
SCHEMA = ROOT / "db" / "schema.sql"
ACCOUNTS = ROOT / "db" / "accounts.sql"
MY_CNF = ROOT / "db" / "my.cnf"
FORUM_TABLES = ("comment", "thread", "category", "user", "seed_meta")
SERVER_NAMES = ("mariadbd", "mysqld")


@dataclass(frozen=True)
class Database:
    """Connection details. `managed` means the testbed's own server under .testbed/."""
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
    return Database("127.0.0.1", MANAGED_DB_PORT, "forum", "forum_api", "forum_api",
                    "forum_seed", "forum_seed", True)


# --- SQL through the command-line client, so commands need no driver -------------------------

def _client():
    for name in ("mariadb", "mysql"):
        if shutil.which(name):
            return name
    ensure_debian("db")
    return "mariadb"


def sql(query: str, *, db: Database | None = None, as_root=False, user=None, password=None,
        database_name=True, check=True) -> subprocess.CompletedProcess:
    """Run SQL; as_root uses the managed server's unix socket (root authenticates by socket)."""
    db = db or database()
    cmd = [_client(), "--batch", "--skip-column-names", "--connect-timeout=5"]
    if as_root:
        cmd += [f"--socket={SOCKET}", "--user=root"]
    else:
        cmd += [f"--host={db.host}", f"--port={db.port}", f"--user={user or db.seed_user}"]
    if database_name and not as_root:
        cmd.append(f"--database={db.name}")
    env = {**os.environ, "MYSQL_PWD": db.seed_password if password is None else password}
    result = subprocess.run(cmd, input=query, capture_output=True, text=True, env=env)
    if check and result.returncode != 0:
        fail(f"database {db.describe()}: {result.stderr.strip().splitlines()[-1]}")
    return result


# --- the managed server --------------------------------------------------------------------------

def server_pid() -> int | None:
    """The managed server's pid, if its pid file names a live mariadbd/mysqld."""
    try:
        pid = int(PIDFILE.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if command_name(pid) in SERVER_NAMES and alive(pid) else None


def _server_binary():
    for name in ("mariadbd", "mysqld"):
        for path in (shutil.which(name), f"/usr/sbin/{name}"):
            if path and os.path.exists(path):
                return path
    ensure_debian("db")
    if not os.path.exists("/usr/sbin/mariadbd"):
        fail("mariadbd not found: install a MySQL-compatible server (Debian: mariadb-server, as ./testbed setup "
             "does), or point DB_HOST at a MySQL server.")
    return "/usr/sbin/mariadbd"


def _initialise():
    installer = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
    if not installer:
        fail("mariadb-install-db not found: install a MySQL-compatible server (Debian: mariadb-server, as "
             "./testbed setup does), or point DB_HOST at a MySQL server.")
    say(f"db: creating a private data directory under {shown(DATA)} ...")
    DATADIR.mkdir(parents=True, exist_ok=True)
    TMPDIR.mkdir(exist_ok=True)
    user = ["--user=root"] if os.geteuid() == 0 else []
    result = subprocess.run(
        [installer, "--no-defaults", f"--datadir={DATADIR}", f"--tmpdir={TMPDIR}",
         "--auth-root-authentication-method=socket",
         f"--auth-root-socket-user={os.environ.get('USER') or 'root'}", "--skip-test-db", *user],
        capture_output=True, text=True)
    if result.returncode != 0:
        shutil.rmtree(DATADIR)
        # Its last line is only "[ERROR] Aborting"; what went wrong is in the lines before.
        LOGS.mkdir(parents=True, exist_ok=True)
        log = LOGS / "mariadb-install-db.log"
        log.write_text(result.stdout + result.stderr)
        fail(f"mariadb-install-db failed (exit {result.returncode}); its output is in {shown(log)}.")


def start() -> Database:
    """Start the managed server if it is not running; return the database in use."""
    db = database()
    if not db.managed:
        reach = sql("SELECT 1", db=db, check=False)
        if reach.returncode != 0:
            fail(f"cannot reach the {db.describe()} as {db.seed_user} "
                 f"({reach.stderr.strip().splitlines()[-1]}); start it or fix DB_HOST/DB_PORT/DB_USER.")
        return db
    if server_pid():
        return db
    ensure_debian("db")
    if not port_free(db.port):
        fail(f"port {db.port} on 127.0.0.1 is taken by another process: stop it, "
             f"or point DB_HOST/DB_PORT at that server instead.")
    if not (DATADIR / "mysql").exists():
        _initialise()
    LOGS.mkdir(parents=True, exist_ok=True)
    TMPDIR.mkdir(exist_ok=True)
    user = ["--user=root"] if os.geteuid() == 0 else []
    log = LOGS / "mysqld.log"
    server = subprocess.Popen(
        [_server_binary(), f"--defaults-file={MY_CNF}", f"--datadir={DATADIR}", f"--tmpdir={TMPDIR}",
         f"--port={db.port}", f"--socket={SOCKET}", f"--pid-file={PIDFILE}",
         f"--log-error={log}", *user],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, cwd=TESTBED_HOME)
    # A long-lived caller (./testbed test) stays the server's parent: reap it when it exits, or it
    # lingers as a zombie. A short-lived caller's thread ends with it and init adopts the server.
    threading.Thread(target=server.wait, daemon=True).start()
    deadline = time.monotonic() + 60
    while sql("SELECT 1", as_root=True, check=False).returncode != 0:
        if time.monotonic() > deadline:
            fail(f"the managed database did not start within 60 s; see {log}.")
        time.sleep(0.3)
    sql("CREATE DATABASE IF NOT EXISTS `forum` CHARACTER SET utf8mb4;\n" + ACCOUNTS.read_text(),
        as_root=True)
    ensure_schema(db)
    return db


@contextmanager
def left_as_found() -> Iterator[None]:
    """Around one command (a run, the tests): a managed server it started is stopped again when it
    ends, however it ends, so that the machine is left as the command found it; a server that was
    already running, or an external one, is left as it is."""
    was_running = not database().managed or server_pid() is not None
    try:
        yield
    finally:
        if not was_running and server_pid():
            stop()


def stop():
    if not database().managed:
        say("db: DB_HOST is set; the testbed does not stop external servers.")
        return
    pid = server_pid()
    if not pid:
        say("db: not running.")
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while alive(pid):
        if time.monotonic() > deadline:
            fail(f"the managed database (pid {pid}) did not stop within 60 s.")
        time.sleep(0.2)
    say("db: stopped.")


def ensure_schema(db: Database):
    sql(SCHEMA.read_text(), db=db)


def loaded(db: Database) -> dict | None:
    """The seed_meta row: which data set is loaded, or None."""
    out = sql("SELECT seed, scale, faker_version, checksum, loaded_at FROM seed_meta WHERE id = 1",
              db=db, check=False)
    if out.returncode != 0 or not out.stdout.strip():
        return None
    seed, scale, faker_version, checksum, loaded_at = out.stdout.strip().split("\t")
    return {"seed": int(seed), "scale": int(scale), "faker": faker_version,
            "checksum": checksum, "loaded_at": loaded_at}


def status() -> int:
    """Print whether the server runs and which data set it holds; 3 when it is not reachable."""
    db = database()
    if db.managed and not server_pid():
        say(f"db: stopped (managed server, 127.0.0.1:{db.port}).")
        return 3
    if not db.managed and sql("SELECT 1", db=db, check=False).returncode != 0:
        say(f"db: unreachable ({db.describe()}).")
        return 3
    where = f"pid {server_pid()}, 127.0.0.1:{db.port}" if db.managed else db.describe()
    say(f"db: running ({where}).")
    meta = loaded(db)
    if meta:
        say(f"data: seed {meta['seed']}, scale {meta['scale']}, faker {meta['faker']}, "
            f"checksum {meta['checksum']}, loaded {meta['loaded_at']}.")
    else:
        say("data: none loaded (run ./testbed seed).")
    return 0


def reset() -> None:
    """Drop the forum tables and create them empty."""
    db = start()
    sql("DROP TABLE IF EXISTS " + ", ".join(f"`{t}`" for t in FORUM_TABLES), db=db)
    ensure_schema(db)
    say("db: forum tables dropped and created empty.")


def version(db: Database) -> str | None:
    out = sql("SELECT VERSION()", db=db, check=False)
    return out.stdout.strip() or None if out.returncode == 0 else None


def answering(db: Database) -> bool:
    """The server runs and speaks: a MySQL server sends its handshake first."""
    if db.managed and not server_pid():
        return False
    try:
        with socket.create_connection((db.host, db.port), timeout=3) as s:
            s.settimeout(3)
            return len(s.recv(1)) > 0
    except OSError:
        return False
