"""One item of a run (framework x API x case x iteration): its run.json record, JMeter's warm-up
and measured window with both samplers watching, and its files trimmed to that window."""
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import apps, jtl as jtl_file
from benchlib.jmeter import plan_command
from benchlib.paths import IDS
from benchlib.processes import stop_group, wait_for_named
from benchlib.results import JTL, PROC, SCHEMA_VERSION
from collect import item_stats, pinning
from collect.profiles import Profile
from collect.progress import Progress
from collect.run_manifest import now_iso
from collect.samplers import Samplers

LOG_TAIL_LINES = 15
# Beyond the profile's own time, how long JMeter may take (start-up, a slow app) before it is stopped.
JMETER_SLACK_S = 120


@dataclass
class RunningApp:
    framework: str
    proc: subprocess.Popen
    log: Path
    pid: int  # the process sampled: the framework's process_name at or below proc (proc itself)


@dataclass
class Measurement:
    jmeter: subprocess.Popen | None
    app_exit: int | None    # the app's exit code, if it died during the window
    timed_out: bool         # JMeter ran past the profile's time and was stopped
    loadgen_cores: int      # the CPU set JMeter ran on: pinned, or all


def new_record(item: dict, profile: Profile) -> dict:
    """run.json as the item starts: status `running` until an outcome replaces it."""
    return {"schema_version": SCHEMA_VERSION,
            **{k: item[k] for k in ("framework", "api", "case", "requests", "rows", "joins", "iteration")},
            "status": "running", "reason": None, "flags": [], "started_at": now_iso(),
            "ended_at": None, "pids": {}, "load": {
                "threads": profile.threads(item["requests"]), "rampup_s": profile.rampup_s,
                "warmup_s": profile.warmup_s, "duration_s": profile.duration_s}}


def sampled_pid(framework: dict, proc: subprocess.Popen) -> int:
    """The app's own process: a start command may be a launcher that forks it."""
    name = framework.get("process_name")
    return wait_for_named(proc.pid, name) if name else proc.pid


def load_command(host: str, port: int, item: dict, profile: Profile, folder: Path, ids: Path,
                 launcher: str) -> list[str]:
    """JMeter's argv for one item, its JTL and log in the item's folder."""
    return plan_command(item["api"], {k: item[k] for k in ("case", "requests", "rows", "joins")},
                        host, port, profile.threads(item["requests"]), profile.rampup_s,
                        profile.warmup_s, profile.duration_s, folder / JTL, ids,
                        folder / "jmeter.log", jmeter=launcher)


def start_load(cmd: list[str], profile: Profile) -> subprocess.Popen:
    """JMeter in its own session, so a Ctrl-C reaches the run engine alone, which stops it."""
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, **profile.jmeter_env})


def measure(app: RunningApp, framework: dict, item: dict, profile: Profile, folder: Path,
            record: dict, write_record, jmeter_cpus, db_pid: int | None, t0: float, launcher: str,
            progress: Progress) -> Measurement:
    """JMeter's warm-up and measured window with both samplers running; whatever happens
    (a crash, Ctrl-C), JMeter and the samplers are stopped before this returns."""
    jm = samplers = None
    app_exit, timed_out, loadgen_cores = None, False, os.cpu_count() or 1
    ticks = 0
    try:
        with pinning.launching_on(jmeter_cpus):
            jm = start_load(load_command(apps.HOST, apps.port(framework), item, profile, folder, IDS,
                                         launcher), profile)
        jvm = wait_for_named(jm.pid, "java")
        loadgen_cores = pinning.cores_of(jvm)
        # Sampling first, then the record saying who is measured: a Ctrl-C that follows the record
        # finds samplers to stop.
        samplers = Samplers({"app": app.pid, "db": db_pid, "jmeter": jvm}, folder / "raw", t0)
        record["pids"]["jmeter"] = jvm
        write_record(record)  # still running: the pids say who is measured
        limit = time.monotonic() + profile.rampup_s + profile.warmup_s + profile.duration_s + JMETER_SLACK_S
        while jm.poll() is None:
            if app.proc.poll() is not None:
                app_exit = app.proc.returncode
                break
            if time.monotonic() > limit:
                timed_out = True
                break
            time.sleep(0.1)
            ticks += 1
            if ticks % 10 == 0:  # the elapsed time and ETA move on during the window
                progress.phase("warm-up + measure")
    finally:
        if samplers:
            samplers.stop()
        if jm and jm.poll() is None:
            stop_group(jm)
    return Measurement(jm, app_exit, timed_out, loadgen_cores)


def trimmed_stats(folder: Path, t0: float) -> tuple[dict, dict]:
    """The sampler files cut to the JTL's measured window (t_s from its start); (window, stats)."""
    start, end = jtl_file.window_bounds(folder / JTL) or (t0, t0)
    window = {"t0_epoch": t0, "start_s": start - t0, "end_s": end - t0}
    raw = folder / "raw"
    for sampled in sorted(raw.iterdir()):  # proc.csv, and top.csv where top ran
        item_stats.trim(sampled, folder / sampled.name, window["start_s"], window["end_s"])
    raw.rmdir()
    return window, item_stats.sampler_stats(folder / PROC)


def copy_log(log: Path, start: int, target: Path) -> None:
    """This item's slice of the app's log: from byte `start` on."""
    with open(target, "wb") as out:
        if log.exists():
            with open(log, "rb") as src:
                src.seek(start)
                shutil.copyfileobj(src, out)


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def outcome_line(summary: dict, stats: dict, flags: list[str]) -> str:
    return (f"{summary.get('samples')} samples, {summary.get('errors')} errors, "
            f"{_fmt(summary.get('throughput_rps'))} req/s, mean {_fmt(summary.get('mean_ms'))} ms, "
            f"app CPU {_fmt(stats.get('cpu_mean_pct'))} %" + (f"  FLAGGED: {', '.join(flags)}" if flags else ""))


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.1f}" if isinstance(value, float) else str(value)


