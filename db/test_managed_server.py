"""`./testbed db`: a private server under TESTBED_HOME, stopped by its own pid file only."""
import socket
import subprocess
import sys
import time

from benchlib.database import database
from benchlib.isolated import IsolatedTestbed
from benchlib.net import free_port
from benchlib.paths import ROOT
from benchlib.processes import alive


def test_status_reports_a_running_server_without_data(isolated_testbed):
    status = isolated_testbed.run("db", "status")
    assert status.returncode == 0
    assert "running (pid" in status.stdout and f"127.0.0.1:{isolated_testbed.port}" in status.stdout


def test_starting_twice_is_harmless(isolated_testbed):
    pid = (isolated_testbed.home / "mysql" / "mysqld.pid").read_text()
    again = isolated_testbed.run("db", "start")
    assert again.returncode == 0, again.stderr
    assert (isolated_testbed.home / "mysql" / "mysqld.pid").read_text() == pid


def test_stop_stops_only_its_own_server(isolated_testbed):
    assert isolated_testbed.run("db", "stop").returncode == 0
    stopped = isolated_testbed.run("db", "status")
    assert stopped.returncode != 0 and "stopped" in stopped.stdout
    shared = database()
    with socket.create_connection((shared.host, shared.port), timeout=5):
        pass  # the shared server still answers
    assert isolated_testbed.run("db", "stop").stdout.strip() == "db: not running."
    assert isolated_testbed.run("db", "start").returncode == 0


def test_a_taken_port_is_one_clear_line(tmp_path):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        testbed = IsolatedTestbed(tmp_path, squatter.getsockname()[1])
        result = testbed.run("db", "start")
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and "is taken by another process" in result.stderr


def test_an_external_server_is_used_and_never_started(isolated_testbed, tmp_path):
    other = IsolatedTestbed(tmp_path, free_port())
    external = {"DB_HOST": "127.0.0.1", "DB_PORT": str(isolated_testbed.port),
                "DB_USER": "forum_seed", "DB_PASSWORD": "forum_seed"}
    result = other.run("db", "start", **external)
    assert result.returncode == 0, result.stderr
    assert "external server" in result.stdout
    assert not (tmp_path / "mysql").exists()


def test_a_server_started_by_a_process_that_lives_on_still_stops(isolated_testbed):
    """As under ./testbed test: the starter outlives the server, and a suite runs `db stop`."""
    assert isolated_testbed.run("db", "stop").returncode == 0
    holder = subprocess.Popen(
        [sys.executable, "-c", "from benchlib.database import start; start(); import sys; sys.stdin.read()"],
        cwd=ROOT, env=isolated_testbed.env(PYTHONPATH=str(ROOT)), stdin=subprocess.PIPE)
    try:
        for _ in range(600):
            if isolated_testbed.run("db", "status").returncode == 0:
                break
            time.sleep(0.1)
        stopped = isolated_testbed.run("db", "stop")
        assert stopped.returncode == 0 and stopped.stdout.strip() == "db: stopped.", stopped.stderr
    finally:
        holder.stdin.close()
        holder.wait()
    assert isolated_testbed.run("db", "start").returncode == 0


# A command's body under database.left_as_found, as `./testbed run` and `./testbed test` have it:
# it starts the server, and ends with the exit status it is given (a failure or an interruption
# ends it as well).
COMMAND = ("import sys\nfrom benchlib import database\n"
           "with database.left_as_found():\n    database.start()\n    sys.exit(int(sys.argv[1]))\n")


def test_a_command_stops_the_server_it_started_and_leaves_one_it_found_running(isolated_testbed):
    def command(status: int) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", COMMAND, str(status)], cwd=ROOT,
                              env=isolated_testbed.env(PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                              timeout=120)
    pid = (isolated_testbed.home / "mysql" / "mysqld.pid").read_text()
    found_running = command(0)
    assert found_running.returncode == 0 and found_running.stdout == "", found_running.stderr
    assert (isolated_testbed.home / "mysql" / "mysqld.pid").read_text() == pid
    assert isolated_testbed.run("db", "stop").returncode == 0
    started = command(3)
    assert started.returncode == 3 and started.stdout.strip().endswith("db: stopped."), started.stderr
    assert isolated_testbed.run("db", "status").returncode != 0
    assert isolated_testbed.run("db", "start").returncode == 0


def test_a_zombie_does_not_count_as_running():
    child = subprocess.Popen(["true"])
    while open(f"/proc/{child.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)
    assert not alive(child.pid)
    child.wait()
