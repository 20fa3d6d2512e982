"""One item of a run (framework x API x case x round): its run.json record, its files trimmed to
the measured window, and its checks."""
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchlib.results import now_iso
from benchlib.items import EngineLoad, Item, Record
from collect.items import item_stats, validity
from collect.items.profiles import Profile

LOG_TAIL_LINES = 15
# Beyond the profile's own time, how long the load generator may take (JMeter's start-up, a slow app)
# before it is stopped.
LOADGEN_SLACK_S = 120


@dataclass
class RunningApp:
    framework: str
    proc: subprocess.Popen
    log: Path
    pid: int  # the process sampled: the framework's process_name at or below proc (proc itself)


def new_record(item: Item, profile: Profile) -> Record:
    """run.json as the item starts: status `running` until an outcome replaces it."""
    return Record(item=item, started_at=now_iso(), load={
        "threads": profile.threads(item.requests), "rampup_s": profile.rampup_s,
        "warmup_s": profile.warmup_s, "duration_s": profile.duration_s})


def judge(summary: dict, stats: dict, threads: int, loadgen_cores: int, machine_cores: int,
          ceiling_rps: float | None, engines: list[EngineLoad] | None = None, loadgen: str = "jmeter",
          socket_errors: int = 0, shares_cores: bool = True) -> tuple[list[str], dict]:
    """An item's trust flags and validity checks (collect/items/validity.py), the same for every way a
    run is launched; `engines`: what each remote engine reported, when the load came from them;
    `loadgen`: which load generator measured it; `socket_errors`: connections wrk lost;
    `shares_cores`: the load generator ran on the server's cores (no CPU set of its own)."""
    flags = item_stats.flags(summary, stats, loadgen_cores, threads, engines, socket_errors)
    checks = validity.checks(summary, stats, threads, machine_cores, ceiling_rps=ceiling_rps,
                             loadgen_local=engines is None, flags=flags, loadgen=loadgen, shares_cores=shares_cores)
    return flags, checks


def copy_log(log: Path, start: int, target: Path, end: int | None = None) -> None:
    """This item's slice of the app's log: from byte `start` to `end` (None: to its end)."""
    with open(target, "wb") as out:
        if log.exists():
            with open(log, "rb") as src:
                src.seek(start)
                out.write(src.read() if end is None else src.read(max(0, end - start)))


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def outcome_line(summary: dict, stats: dict, flags: list[str], checks: dict | None = None) -> str:
    line = (f"{summary.get('samples')} samples, {summary.get('errors')} errors, "
            f"{_fmt(summary.get('throughput_rps'))} req/s, mean {_fmt(summary.get('mean_ms'))} ms, "
            f"app CPU {_fmt(stats.get('cpu_mean_pct'))} %" + (f"  FLAGGED: {', '.join(flags)}" if flags else ""))
    if checks and checks["validity"] != "valid":
        line += f"  {checks['validity'].upper()}: {checks['validity_reasons'].split(':')[0]}" \
                + ("…" if ";" in checks["validity_reasons"] else "")
    return line


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.1f}" if isinstance(value, float) else str(value)
