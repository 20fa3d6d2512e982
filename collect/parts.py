"""The other parts of the testbed as the orchestrator uses them: the apps (framework.json, through
cli/apps.py) and JMeter (cli/jmeter.py). One place to adapt when their interfaces change."""
import os
import signal
import subprocess

from cli import apps, jmeter
from cli.common import IDS, ROOT, served_apis

DEFAULT_RESULTS = ROOT / "results"
HOST = "127.0.0.1"


def find_jmeter() -> str:
    return jmeter.find_jmeter()


def port(impl: dict) -> int:
    """The app's port: its default, shifted by TESTBED_PORT_OFFSET to run beside another testbed."""
    return impl["default_port"] + int(os.environ.get("TESTBED_PORT_OFFSET") or 0)


def port_taken(number: int) -> bool:
    return not apps.port_free(number)


def url(impl: dict, path: str = "") -> str:
    return f"http://{HOST}:{port(impl)}{path}"


def start_load(impl, item, threads, profile, jtl, log, launcher) -> subprocess.Popen:
    """JMeter in its own session, so a Ctrl-C reaches the orchestrator alone, which stops it."""
    cmd = jmeter.plan_command(item["api"], {k: item[k] for k in ("case", "requests", "rows", "joins")},
                              HOST, port(impl), threads, profile.rampup_s,
                              profile.warmup_s, profile.duration_s, jtl, IDS, log, jmeter=launcher)
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, **profile.jmeter_env})


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


# --- the apps (cli/apps.py) ------------------------------------------------------------------------

def variant(impl: dict) -> dict:
    """The variant a run measures: the manifest's first (its default)."""
    return (impl.get("variants") or [{"name": "default", "env": {}}])[0]


def start_app(impl, log) -> subprocess.Popen:
    return apps.start_app(impl, port(impl), log, variant(impl).get("env", {}))


def wait_ready(impl, proc, timeout, log) -> None:
    apps.wait_ready(url(impl, impl["readiness_path"]), timeout, proc, log)


def stop_app(proc) -> None:
    apps.stop_app(proc)


def build(impl) -> None:
    apps.build(impl)


def supports(impl: dict, api: str) -> bool:
    return api in served_apis(impl)
