"""`./testbed test`: every suite (flake8, pytest, then each implementation's own) against the real
database, apps and tools, one after another, after setting all of them up."""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from benchlib import apps, builds, database, jmeter
from benchlib.console import say
from benchlib.dataset import seed
from benchlib.packages import DEBIAN, NODE_PROJECTS, ensure_debian, ensure_npm
from benchlib.paths import IDS, ROOT


def suite_env() -> dict:
    """What suites are told: the API account as DB_*, the seeder's, and where ids and JMeter are."""
    db = database.start()
    extra = {**db.api_env(), "DB_SEED_USER": db.seed_user, "DB_SEED_PASSWORD": db.seed_password,
             "TESTBED_DB_MANAGED": "1" if db.managed else "0", "TESTBED_IDS": str(IDS)}
    if jmeter.SHARED.exists():
        extra.setdefault("JMETER_HOME", str(jmeter.SHARED))
    return {**os.environ, **extra}


# pytest's exit status when options (`-k`) leave one of its two runs nothing to run.
NO_TESTS_SELECTED = 5


def pytest_suites(pytest_args: list[str]) -> list[tuple]:
    """flake8 first: the Python linter, with the repository's .flake8, over every Python file
    (seconds; a finding fails it as a failed test does, and the other suites still run). Then
    pytest twice: its tests spread over the cores (pytest-xdist; a file's tests stay together on
    one worker, so a module's fixtures are made once), then the tests marked `alone`, which
    assert on timing or CPU shares and so get the machine to themselves. The slowest tests,
    printed after each, are where the suite's time goes."""
    pytest = [sys.executable, "-m", "pytest", "--durations=20"]
    workers = str(max(2, os.cpu_count() or 1))
    return [("flake8", [sys.executable, "-m", "flake8"], ROOT),
            ("pytest", [*pytest, "-n", workers, "--dist", "loadfile", "-m", "not alone", *pytest_args], ROOT),
            ("pytest, tests alone", [*pytest, "-m", "alone", *pytest_args], ROOT)]


def run_all(pytest_args: list[str]) -> int:
    ensure_debian(*DEBIAN)  # the suites run every part, wrk and the samplers included
    implementations = apps.frameworks()
    # Suites start the apps they test, so every one is built first: side by side, and beside the
    # seeder's and linter's npm ci, the database and the data set (on a fresh clone npm ci and
    # dotnet publish wait on the disk and the network as much as on the CPU).
    with ThreadPoolExecutor(max_workers=len(implementations) or 1) as pool:
        building = [pool.submit(builds.build, framework) for framework in implementations]
        for project in NODE_PROJECTS:  # the seeder, and the linter the Node apps' own suites run
            ensure_npm(ROOT / project)
        env = suite_env()
        seed()
        for done in building:
            done.result()  # a failed build stops here, with its one line
    suites = pytest_suites(pytest_args)
    suites += [(f["name"], f["test"], f["dir"]) for f in implementations if f.get("test")]
    failed = []
    for name, cmd, cwd in suites:
        database.start()  # a suite that stopped the database and failed must not fail the next one too
        say(f"\n== {name}: {' '.join(cmd) if isinstance(cmd, list) else cmd}")
        code = subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str)).returncode
        if code != 0 and not (name.startswith("pytest") and code == NO_TESTS_SELECTED):
            failed.append(f"{name} (exit {code})")
    say(f"\ntest: {len(suites) - len(failed)} suites passed, {len(failed)} failed"
        + (f": {', '.join(failed)}" if failed else "."))
    return 1 if failed else 0
