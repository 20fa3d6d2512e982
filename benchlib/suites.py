"""`./testbed test`: every suite (pytest, then each implementation's own) against the real
database, apps and tools, one after another, after setting all of them up."""
import os
import subprocess
import sys

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


def run_all(pytest_args: list[str]) -> int:
    ensure_debian(*DEBIAN)  # the suites run every part, wrk and the samplers included
    for project in NODE_PROJECTS:  # the seeder, and the linter the Node apps' own suites run
        ensure_npm(ROOT / project)
    env = suite_env()
    seed()
    implementations = apps.frameworks()
    for framework in implementations:  # suites start the apps they test, so build them first
        builds.build(framework)
    # The slowest tests, printed after every suite run, are where its time budget goes.
    suites = [("pytest", [sys.executable, "-m", "pytest", "--durations=20", *pytest_args], ROOT)]
    suites += [(f["name"], f["test"], f["dir"]) for f in implementations if f.get("test")]
    failed = []
    for name, cmd, cwd in suites:
        database.start()  # a suite that stopped the database and failed must not fail the next one too
        say(f"\n== {name}: {' '.join(cmd) if isinstance(cmd, list) else cmd}")
        code = subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str)).returncode
        if code != 0:
            failed.append(f"{name} (exit {code})")
    say(f"\ntest: {len(suites) - len(failed)} suites passed, {len(failed)} failed"
        + (f": {', '.join(failed)}" if failed else "."))
    return 1 if failed else 0
