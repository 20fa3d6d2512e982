"""wrk, the second load generator: one case's requests at a given concurrency, for the cross-check of
JMeter's ratios and the memory of fresh processes (collect/extra_passes.py), and for the wrk
benchmarks (bench/).

wrk is an event loop in C: it drives the same requests (benchlib/plans.request, the seeder's id
sequence) at a fraction of JMeter's CPU per request, so where the two disagree on a ratio, the load
generator set JMeter's.
"""
import subprocess
from pathlib import Path

from benchlib import plans
from benchlib.console import UserError
from benchlib.packages import need_tool
from benchlib.paths import IDS

SCRIPT = Path(__file__).resolve().with_name("wrk_case.lua")


def command(base_url: str, item: dict, connections: int, seconds: float, threads: int = 1) -> list[str]:
    """One wrk thread by default: the app, the database and wrk share this machine's cores."""
    key = plans.endpoint_key(item["rows"], item["joins"])
    method, path, body = plans.request(item["api"], key, str(item["rows"]))
    ids = IDS / ("user_ids.csv" if key.startswith("user-") else "comment_ids.csv")
    return [need_tool("wrk", "Run ./testbed setup."), f"-t{threads}", f"-c{connections}",
            f"-d{max(1, round(seconds))}s", "--timeout", "30s", "-s", str(SCRIPT), base_url,
            "--", str(ids), method, path, body or "-"]


def run(base_url: str, item: dict, connections: int, seconds: float, threads: int = 1) -> dict:
    """wrk's figures for `item`'s request (api, rows, joins) over `seconds`: samples,
    throughput_rps, mean_ms, p99_ms, errors, window_s."""
    cmd = command(base_url, item, connections, seconds, threads)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
    if out.returncode != 0 or line is None:
        raise UserError(f"wrk failed: {(out.stderr or out.stdout).strip()[-300:]}")
    requests, duration_us, errors, mean_us, p99_us = line.split()[1:]
    window_s = int(duration_us) / 1e6
    return {"samples": int(requests), "throughput_rps": round(int(requests) / window_s, 3),
            "mean_ms": round(float(mean_us) / 1000, 3), "p99_ms": round(int(p99_us) / 1000, 3),
            "errors": int(errors), "window_s": round(window_s, 3)}
