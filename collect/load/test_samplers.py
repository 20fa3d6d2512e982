"""The samplers against real processes: a busy loop, an idle sleeper and a launcher that forks java."""
import csv
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchlib.paths import ROOT
from benchlib.net import free_port, is_local, listening_here
from benchlib.processes import alive, command_name, find_named, listener, wait_for_named
from collect.items import item_stats
from collect.load.samplers import Samplers, parse_stat, parse_top_line, top_command

# A busy child's share of a core, and other work's share of the machine: only with no other test running.
pytestmark = pytest.mark.alone


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.fixture
def processes():
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    idle = subprocess.Popen(["sleep", "60"])
    yield busy, idle
    for p in (busy, idle):
        p.kill()
        p.wait()


def test_both_samplers_see_the_busy_process_and_not_the_idle_one(processes, tmp_path):
    busy, idle = processes
    samplers = Samplers({"app": busy.pid, "jmeter": idle.pid}, tmp_path)
    time.sleep(1.5)
    samplers.stop()
    for kind in ("proc", "top"):
        table = rows(tmp_path / f"{kind}.csv")
        by_role = {role: [r for r in table if r["role"] == role] for role in ("app", "jmeter")}
        assert by_role["app"] and by_role["jmeter"], kind
        assert {r["pid"] for r in by_role["app"]} == {str(busy.pid)}
        busy_cpu = sum(float(r["cpu_pct"]) for r in by_role["app"])
        idle_cpu = sum(float(r["cpu_pct"]) for r in by_role["jmeter"])
        assert busy_cpu > idle_cpu, kind
        assert all(float(r["t_s"]) >= 0 for r in table)
    # /proc/<pid>/stat's RSS (what the sampler reads) is the kernel's per-CPU-cached count, VmRSS
    # the exact one: they may differ by the caches' batches (max(32, 2 x CPUs) pages per CPU, for
    # each of file, anon and shmem pages), never more; a unit slip (pages for KiB) or another
    # field would.
    status = Path(f"/proc/{busy.pid}/status").read_text()
    vm_rss = int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1])
    rss = [int(r["rss_kb"]) for r in rows(tmp_path / "proc.csv") if r["role"] == "app"]
    cpus = os.cpu_count()
    slack_kb = 3 * cpus * max(32, 2 * cpus) * os.sysconf("SC_PAGE_SIZE") // 1024
    assert abs(rss[-1] - vm_rss) <= slack_kb, (rss[-1], vm_rss, slack_kb)


def test_a_process_that_dies_stops_being_sampled_and_the_rest_go_on(processes, tmp_path):
    busy, idle = processes
    short = subprocess.Popen(["sleep", "1"])  # outlives the samplers' start on a busy machine
    samplers = Samplers({"app": short.pid, "db": idle.pid}, tmp_path)
    short.wait()
    time.sleep(1.0)
    samplers.stop()
    table = rows(tmp_path / "proc.csv")
    last_app = max(float(r["t_s"]) for r in table if r["role"] == "app")
    last_db = max(float(r["t_s"]) for r in table if r["role"] == "db")
    assert last_db > last_app


def test_stat_parsing_survives_a_command_name_with_spaces_and_parentheses():
    line = "42 (we ird) (name)) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 5 1000 321 rest"
    assert parse_stat(line) == (300, 321)


@pytest.mark.parametrize("res, kb", [("14836", 14836), ("1.5m", 1536), ("2.0g", 2097152), ("512k", 512)])
def test_top_res_units(res, kb):
    line = f" 4408 mysql     20   0 8193.2g {res}  23560 S 141.2   0.7   0:05.55 mariadbd"
    assert parse_top_line(line) == (4408, 141.2, 0.7, kb)


def test_top_is_piped_through_grep_of_the_exact_pids():
    top, grep = top_command([12, 345])
    assert top == ["top", "-b", "-d", "0.1", "-p", "12,345"]
    assert grep[:2] == ["grep", "--line-buffered"] and grep[-1] == "^ *(12|345) "


def test_the_jvm_is_found_behind_a_launcher_that_does_not_exec(tmp_path):
    java = tmp_path / "java"
    java.symlink_to("/bin/sleep")
    launcher = subprocess.Popen(["sh", "-c", f"{java} 30; true"], start_new_session=True)
    try:
        found = wait_for_named(launcher.pid, "java")
        assert found != launcher.pid
        assert Path(f"/proc/{found}/comm").read_text().strip() == "java"
    finally:
        os.killpg(launcher.pid, 9)
        launcher.wait()


def test_an_app_s_row_sums_its_descendants_as_a_cluster_s_workers_would_be(tmp_path):
    # An idle parent whose child burns a core: the app's CPU is the child's; the same tree under
    # another role (the database's) counts only the process named.
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; "
                               "subprocess.Popen([sys.executable, '-c', 'while True: pass']); time.sleep(60)"],
                              start_new_session=True)
    try:
        time.sleep(0.5)
        samplers = Samplers({"app:toy": parent.pid, "db": parent.pid}, tmp_path, kinds=("proc",))
        time.sleep(2.5)
        samplers.stop()
    finally:
        os.killpg(parent.pid, 9)
        parent.wait()
    table = [r for r in rows(tmp_path / "proc.csv") if r["role"] in ("app:toy", "db")]
    late = [r for r in table if float(r["t_s"]) > 1.2]  # the children are looked up once a second
    app = [float(r["cpu_pct"]) for r in late if r["role"] == "app:toy"]
    db = [float(r["cpu_pct"]) for r in late if r["role"] == "db"]
    assert app and db and {r["pid"] for r in table} == {str(parent.pid)}
    assert sum(app) > 10 * max(sum(db), 1.0)  # the child's core, not the sleeping parent's


def test_the_load_generator_s_row_counts_the_processes_it_starts_from_their_first_tick(tmp_path):
    # collect/load/wrk_batch.py starts a wrk per measurement: its CPU is the load generator's.
    driver = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time; time.sleep(0.5); "
                               "subprocess.Popen([sys.executable, '-c', 'while True: pass']); time.sleep(60)"],
                              start_new_session=True)
    try:
        samplers = Samplers({"loadgen": driver.pid}, tmp_path, kinds=("proc",))
        time.sleep(2.0)
        samplers.stop()
    finally:
        os.killpg(driver.pid, 9)
        driver.wait()
    loadgen = [r for r in rows(tmp_path / "proc.csv") if r["role"] == "loadgen"]
    assert len({r["pid"] for r in loadgen}) == 1  # the row is the driver's, its children summed in
    assert max(float(r["cpu_pct"]) for r in loadgen if float(r["t_s"]) > 1.0) > 50


def test_work_the_run_did_not_start_shows_as_the_machine_s_other_cpu(processes, tmp_path):
    busy, idle = processes  # `busy` is not among the roles: another user's process, to the run
    samplers = Samplers({"app": idle.pid, "db": idle.pid}, tmp_path, kinds=("proc",))
    time.sleep(1.5)
    samplers.stop()
    table = rows(tmp_path / "proc.csv")
    assert {"machine", "steal", "samplers", "testbed"} <= {r["role"] for r in table}
    assert item_stats.sampler_stats(tmp_path / "proc.csv")["other_cpu_pct"] > 50


def test_a_process_whose_runtime_renamed_its_main_thread_is_found_by_its_program():
    # Node.js 24 names its main thread `MainThread`, which /proc/<pid>/comm then shows.
    renamed = subprocess.Popen([sys.executable, "-c", "open('/proc/self/comm', 'w').write('MainThread'); "
                                "import time; time.sleep(30)"])
    try:
        program = Path(os.readlink(f"/proc/{renamed.pid}/exe")).name
        deadline = time.monotonic() + 10
        while Path(f"/proc/{renamed.pid}/comm").read_text().strip() != "MainThread" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert command_name(renamed.pid) == "MainThread"
        assert find_named(renamed.pid, program) == renamed.pid
    finally:
        renamed.kill()
        renamed.wait()


def test_an_app_started_by_something_else_is_found_by_the_port_it_listens_on():
    # ./testbed load samples the app it is pointed at, when it listens here, by this lookup.
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", f"import socket, time; s = socket.socket(socket.AF_INET6); "
                               f"s.bind(('::', {port})); s.listen(); print(flush=True); time.sleep(30)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()  # listening
        assert listener(port) == server.pid
        assert listening_here("localhost", port) == server.pid and listening_here("192.0.2.1", port) is None
    finally:
        server.kill()
        server.wait()
    assert listener(port) is None
    assert is_local("127.0.0.1") and is_local("localhost")
    assert not is_local("192.0.2.1") and not is_local("no-such-host.invalid")  # TEST-NET-1, unresolvable


def test_a_sampler_whose_starter_is_gone_stops_by_itself(tmp_path):
    """As when a Ctrl-C lands while the run loop starts the samplers: the one it never learnt of
    must not sample for ever."""
    starter = subprocess.run(
        [sys.executable, "-c", "import os, subprocess, sys\n"
         "p = subprocess.Popen([sys.executable, '-S', '-m', 'collect.load.samplers', 'proc', '--out', sys.argv[1],\n"
         "                      '--parent', str(os.getpid()), f'app={sys.argv[2]}'], start_new_session=True,\n"
         "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
         "while not os.path.exists(sys.argv[1]):\n"
         "    pass\n"
         "print(p.pid)", str(tmp_path / "proc.csv"), str(os.getpid())],
        capture_output=True, text=True, cwd=ROOT, timeout=30)
    orphan = int(starter.stdout)
    deadline = time.monotonic() + 20
    while alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not alive(orphan)
    assert (tmp_path / "proc.csv").read_text().startswith("t_s,")  # it ran, and flushed as it stopped


def test_a_sampler_held_up_never_reports_more_cpu_than_the_process_could_use(processes, tmp_path):
    # A loaded machine deschedules the sampler between its ticks and inside one: run 225723 read
    # the app, database and wrk ~0.1 s after stamping a tick 1 ms after the one before, and wrote
    # 11,025 % for the app. Stopping the sampler at random points does the same, more often.
    busy, idle = processes
    samplers = Samplers({"app": busy.pid, "db": idle.pid}, tmp_path, kinds=("proc",))
    sampler, pauses = samplers.procs["proc"].pid, random.Random(7)
    end = time.monotonic() + 4
    while time.monotonic() < end:
        time.sleep(pauses.uniform(0.0, 0.12))
        os.kill(sampler, signal.SIGSTOP)
        time.sleep(pauses.uniform(0.05, 0.25))
        os.kill(sampler, signal.SIGCONT)
    samplers.stop()
    app = [r for r in rows(tmp_path / "proc.csv") if r["role"] == "app"]
    ticks = [float(r["t_s"]) for r in app]
    assert len(app) > 10 and min(b - a for a, b in zip(ticks, ticks[1:])) >= 0.045
    # One process on one core: 100 %, give or take /proc's 10 ms steps over at least 50 ms.
    assert max(float(r["cpu_pct"]) for r in app) <= 125
