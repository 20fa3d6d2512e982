"""`./testbed test`: every suite (flake8, pytest, each implementation's own) against the real
database, apps and tools, after setting all of them up: side by side (each implementation's suite
on a managed server of its own), then the tests that need the machine to themselves."""
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchlib import apps, builds, database, jmeter, toolchains
from benchlib.console import UserError, say
from benchlib.dataset import seed
from benchlib.isolated import IsolatedTestbed
from benchlib.net import free_port
from benchlib.packages import DEBIAN, NODE_PROJECTS, ensure_debian, ensure_npm
from benchlib.paths import IDS, ROOT, TESTBED_HOME


def suite_env() -> dict:
    """What suites are told: the API account as DB_*, the seeder's, and where ids and JMeter are."""
    db = database.start()
    extra = {**db.api_env(), "DB_SEED_USER": db.seed_user, "DB_SEED_PASSWORD": db.seed_password,
             "TESTBED_DB_MANAGED": "1" if db.managed else "0", "TESTBED_IDS": str(IDS)}
    if jmeter.SHARED.exists():
        extra.setdefault("JMETER_HOME", str(jmeter.SHARED))
    return {**os.environ, **extra}


PYTEST = "pytest"  # the suite whose output streams while the others run beside it
# pytest's exit status when options (`-k`) leave one of its two runs nothing to run.
NO_TESTS_SELECTED = 5


@dataclass(frozen=True)
class Suite:
    name: str
    command: list[str] | str  # a string runs through the shell (framework.json's `test`)
    cwd: Path
    alone: bool = False       # runs after the others, with the machine to itself
    # Its own managed server: the implementations' suites stop theirs to test the 503 of an outage
    # (which, on the shared one, failed the suites and pytest tests beside them).
    own_database: bool = False

    def run(self, env: dict, out=None) -> bool:
        """Runs it, on its own database if it has one, its output to `out` (default: this
        process's); whether it passed."""
        if not (self.own_database and env.get("TESTBED_DB_MANAGED") == "1"):
            return self.execute(env, out)
        try:
            with private_database(self.name, env) as own:
                return self.execute(own, out)
        except UserError as e:
            print(f"testbed: {e}", file=out or sys.stdout, flush=True)
            return False

    def execute(self, env: dict, out=None) -> bool:
        code = subprocess.run(self.command, cwd=self.cwd, env=env, shell=isinstance(self.command, str),
                              stdout=out, stderr=subprocess.STDOUT if out else None).returncode
        return code == 0 or (self.name.startswith("pytest") and code == NO_TESTS_SELECTED)

    def heading(self) -> str:
        command = self.command if isinstance(self.command, str) else " ".join(self.command)
        return f"\n== {self.name}: {command}"


@contextmanager
def private_database(name: str, env: dict):
    """`env` with a managed server of its own, started and seeded as the shared one, on a free
    port (an external server is left as it is: the outage tests skip it); stopped afterwards."""
    testbed = IsolatedTestbed(TESTBED_HOME / "suites" / name, free_port())
    shutil.rmtree(testbed.home, ignore_errors=True)
    testbed.home.mkdir(parents=True)
    try:
        for step in (("db", "start"), ("seed",)):
            done = testbed.run(*step)
            if done.returncode != 0:
                raise UserError(f"the {name} suite's own database: ./testbed {' '.join(step)} failed: "
                                f"{(done.stderr or done.stdout).strip()}")
        yield {**env, "TESTBED_HOME": str(testbed.home), "TESTBED_DB_PORT": str(testbed.port),
               "DB_PORT": str(testbed.port)}
    finally:
        testbed.run("db", "stop")
        shutil.rmtree(testbed.home / "mysql", ignore_errors=True)  # its logs stay


def pytest_suites(pytest_args: list[str]) -> list[Suite]:
    """flake8: the Python linter, with the repository's .flake8, over every Python file (seconds; a
    finding fails it as a failed test does). pytest twice: its tests spread over the cores
    (pytest-xdist; a file's tests stay together on one worker, so a module's fixtures are made
    once), then the tests marked `alone`, which assert on timing or CPU shares. The slowest tests,
    printed after each, are where the suite's time goes."""
    pytest = [sys.executable, "-m", "pytest", "--durations=20"]
    workers = str(max(2, os.cpu_count() or 1))
    return [Suite("flake8", [sys.executable, "-m", "flake8"], ROOT),
            Suite(PYTEST, [*pytest, "-n", workers, "--dist", "loadfile", "-m", "not alone", *pytest_args], ROOT),
            Suite("pytest, tests alone", [*pytest, "-m", "alone", *pytest_args], ROOT, alone=True)]


def run_all(pytest_args: list[str]) -> int:
    toolchains.require(toolchains.needed(apps.frameworks()))
    ensure_debian(*DEBIAN)  # the suites run every part, wrk and the samplers included
    with database.left_as_found():
        return run_suites(pytest_args)


def run_suites(pytest_args: list[str]) -> int:
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
    suites = pytest_suites(pytest_args) + [Suite(f["name"], f["test"], f["dir"], own_database=True)
                                           for f in implementations if f.get("test")]
    database.start()
    failed = side_by_side([s for s in suites if not s.alone], env)
    for suite in (s for s in suites if s.alone):
        database.start()  # a suite that stopped the database and failed must not fail the next one too
        say(suite.heading())
        if not suite.run(env):
            failed.append(suite.name)
    say(f"\ntest: {len(suites) - len(failed)} suites passed, {len(failed)} failed"
        + (f": {', '.join(failed)}" if failed else "."))
    return 1 if failed else 0


def side_by_side(suites: list[Suite], env: dict) -> list[str]:
    """Runs pytest and, beside it, the other `suites` one after another; the names of those that
    failed. The end-to-end tests leave a third of two cores idle (waiting for apps, engines and
    windows: 142 % of 200 in a clean-clone run), which the other suites use; one at a time, so that
    pytest's workers never share the cores with more than one of them. pytest's output streams as it
    goes; each other suite's is kept and printed whole after it, in order, so no two are interleaved."""
    streamed = next(s for s in suites if s.name == PYTEST)
    kept = [s for s in suites if s is not streamed]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=1) as pool:
        outputs = {s.name: open(Path(tmp) / f"{i}.out", "w+") for i, s in enumerate(kept)}
        running = {s.name: pool.submit(s.run, env, outputs[s.name]) for s in kept}
        say(streamed.heading())
        passed = {streamed.name: streamed.run(env)}
        for suite in kept:
            passed[suite.name] = running[suite.name].result()
            say(suite.heading())
            outputs[suite.name].seek(0)
            sys.stdout.write(outputs[suite.name].read())
            outputs[suite.name].close()
        sys.stdout.flush()
    return [s.name for s in suites if not passed[s.name]]
