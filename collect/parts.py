"""The other parts of the testbed as the orchestrator uses them: the apps (framework.json, through
cli/apps.py) and JMeter (cli/jmeter.py). One place to adapt when their interfaces change."""
import os
import signal
import subprocess

from cli import jmeter
from cli.common import IDS, ROOT, fail

DEFAULT_RESULTS = ROOT / "results"
HOST = "127.0.0.1"


def find_jmeter() -> str:
    return jmeter.find_jmeter()


def jmeter_home(launcher: str) -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(launcher)))


def url(impl: dict, path: str = "") -> str:
    return f"http://{HOST}:{impl['default_port']}{path}"


def start_load(impl, item, threads, profile, jtl, log, launcher) -> subprocess.Popen:
    """JMeter in its own session, so a Ctrl-C reaches the orchestrator alone, which stops it."""
    cmd = jmeter.plan_command(item["api"], {k: item[k] for k in ("case", "requests", "rows", "joins")},
                              HOST, impl["default_port"], threads, profile.rampup_s,
                              profile.warmup_s, profile.duration_s, jtl, IDS, log, jmeter=launcher)
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def summarize(jtl) -> dict:
    return jmeter.summarize_jtl(jtl)


def stop_process(proc: subprocess.Popen, grace: float = 10) -> None:
    """SIGTERM to the process group, SIGKILL after `grace` seconds."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def db_version(db) -> str | None:
    from cli.db import sql
    out = sql("SELECT VERSION()", db=db, check=False)
    return out.stdout.strip() or None if out.returncode == 0 else None


# --- the apps: until cli/apps.py lands, straight from the framework.json contract ---------------

def start_app(impl, log, db_env) -> subprocess.Popen:
    env = {**os.environ, **impl.get("env", {}), **db_env, impl["port_env"]: str(impl["default_port"])}
    with open(log, "ab") as out:
        return subprocess.Popen(impl["start"], cwd=impl["dir"], env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait_ready(impl, proc, timeout) -> None:
    import time
    import urllib.request
    deadline = time.monotonic() + timeout
    target = url(impl, impl["readiness_path"])
    while True:
        if proc.poll() is not None:
            fail(f"it exited with code {proc.returncode} while starting")
        try:
            with urllib.request.urlopen(target, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            fail(f"{target} did not answer 200 within {timeout} s")
        time.sleep(0.1)


def stop_app(proc) -> None:
    stop_process(proc)


def build(impl) -> None:
    from cli.common import say
    say(f"run: building {impl['name']} ({impl['build']}) ...")
    result = subprocess.run(impl["build"], shell=True, cwd=impl["dir"], capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()[-2:]
        fail(f"building {impl['name']} failed ({impl['build']}): {' '.join(last)}")
