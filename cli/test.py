"""`testbed test`: every suite against the real database, apps and tools, one after another."""
import subprocess
import sys

from cli import jmeter
from cli.apps import build
from cli.common import IDS, ROOT, manifests, os_env, say
from cli.db import start
from cli.seed import seed
from cli.setup import ensure_debian


def register(sub):
    p = sub.add_parser("test", help="run all tests (sets everything up first)",
                       description="Set up, start and seed the database, build every implementation, "
                                   "then run the Python tests (pytest) and each "
                                   "implementation's own test command.")
    p.add_argument("pytest_args", nargs="*", help="extra arguments for pytest, e.g. -k seed")
    p.set_defaults(func=lambda args: test(args.pytest_args))


def test_env() -> dict:
    """What suites are told: the API account as DB_*, the seeder's, and where ids and JMeter are."""
    db = start()
    extra = {**db.api_env(), "DB_SEED_USER": db.seed_user, "DB_SEED_PASSWORD": db.seed_password,
             "TESTBED_DB_MANAGED": "1" if db.managed else "0", "TESTBED_IDS": str(IDS)}
    if jmeter.SHARED.exists():
        extra.setdefault("JMETER_HOME", str(jmeter.SHARED))
    return os_env(extra)


def test(pytest_args):
    ensure_debian("db", "python")
    env = test_env()
    seed()
    implementations = manifests()
    for manifest in implementations:  # suites start the apps they test, so build them first
        build(manifest)
    suites = [("pytest", [sys.executable, "-m", "pytest", *pytest_args], ROOT)]
    suites += [(m["name"], m["test"], m["dir"]) for m in implementations if m.get("test")]
    failed = []
    for name, cmd, cwd in suites:
        start()  # a suite that stopped the database and failed must not fail the next one too
        say(f"\n== {name}: {' '.join(cmd) if isinstance(cmd, list) else cmd}")
        code = subprocess.run(cmd, cwd=cwd, env=env, shell=isinstance(cmd, str)).returncode
        if code != 0:
            failed.append(f"{name} (exit {code})")
    say(f"\ntest: {len(suites) - len(failed)} suites passed, {len(failed)} failed"
        + (f": {', '.join(failed)}" if failed else "."))
    return 1 if failed else 0
