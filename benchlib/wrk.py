"""wrk, the second load generator, run one way: `command` is every wrk command line the testbed
starts, and what its scripts print is read here. Its scripts differ in what they make of the load:

- SUMMARY (wrk_case.lua): one case's request, a line of figures for the whole run (`run`): the
  memory pass and the conditioning (collect/), and the wrk benchmarks (bench/);
- SAMPLES (wrk_measure.lua): wrk as a measuring load generator, every request a JTL row in a
  window its clock sets, configured by environment (collect/load/batch.py write_wrk_plan, run by
  collect/load/wrk_batch.py), and a line of the connections it lost (`socket_errors`).

wrk is an event loop in C: it drives the same requests (benchlib/plans.request, the seeder's id
sequence) at a fraction of JMeter's CPU per request, so where the two disagree on a ratio, the load
generator set JMeter's.
"""
import subprocess
from pathlib import Path
from typing import NamedTuple

from benchlib import plans
from benchlib.console import UserError
from benchlib.packages import need_tool
from benchlib.paths import IDS

SUMMARY = Path(__file__).resolve().with_name("wrk_case.lua")
SAMPLES = Path(__file__).resolve().with_name("wrk_measure.lua")


class Request(NamedTuple):
    """What wrk sends for a case: the JMeter plans' request (ids still as ${comment_id} /
    ${user_id}), its endpoint (`key`, plans.ENDPOINTS) and the seeder's id list the ids come from."""
    key: str
    method: str
    path: str
    body: str | None
    ids: Path


def request(item: dict, ids_dir: Path = IDS) -> Request:
    """`item`'s request (api, rows, joins), its ids from the lists in `ids_dir`."""
    key = plans.endpoint_key(item["rows"], item["joins"])
    method, path, body = plans.request(item["api"], key, str(item["rows"]))
    ids = ids_dir / ("user_ids.csv" if key.startswith("user-") else "comment_ids.csv")
    return Request(key, method, path, body, ids)


def command(url: str, connections: int, seconds: float, script: Path, threads: int = 1, timeout_s: int = 30,
            args: tuple[str, ...] = ()) -> list[str]:
    """wrk's argv: `script` (SUMMARY or SAMPLES) against `url` for `seconds`; `args` reach the
    script's init(). `timeout_s` is long enough that wrk does not abandon a slow request as a
    timeout error in the figures."""
    return [need_tool("wrk", "Run ./testbed setup."), f"-t{threads}", f"-c{connections}",
            f"-d{max(1, round(seconds))}s", "--timeout", f"{timeout_s}s", "-s", str(script), url,
            *(("--", *args) if args else ())]


def case_command(base_url: str, item: dict, connections: int, seconds: float, threads: int = 1) -> list[str]:
    """One wrk thread by default: the app, the database and wrk share this machine's cores."""
    r = request(item)
    return command(base_url, connections, seconds, SUMMARY, threads, args=(str(r.ids), r.method, r.path, r.body or "-"))


def run(base_url: str, item: dict, connections: int, seconds: float, threads: int = 1) -> dict:
    """wrk's figures for `item`'s request (api, rows, joins) over `seconds` (`figures`)."""
    out = subprocess.run(case_command(base_url, item, connections, seconds, threads), capture_output=True, text=True,
                         timeout=seconds + 60)
    return figures(out.returncode, out.stdout, out.stderr)


def figures(returncode: int, stdout: str, stderr: str) -> dict:
    """What a finished wrk on SUMMARY reported: samples, throughput_rps, mean_ms, p99_ms, errors
    (every kind: connect, read, write, status, timeout) and window_s (wrk's own duration)."""
    line = next((x for x in stdout.splitlines() if x.startswith("RESULT ")), None)
    if returncode != 0 or line is None:
        raise UserError(f"wrk failed: {(stderr or stdout).strip()[-300:]}")
    requests, duration_us, errors, mean_us, p99_us = line.split()[1:]
    window_s = int(duration_us) / 1e6
    return {"samples": int(requests), "throughput_rps": round(int(requests) / window_s, 3),
            "mean_ms": round(float(mean_us) / 1000, 3), "p99_ms": round(int(p99_us) / 1000, 3),
            "errors": int(errors), "window_s": round(window_s, 3)}


def socket_errors(output: str) -> dict[str, int]:
    """The connections a wrk on SAMPLES lost, by kind (connect, read, write, timeout), from its
    output; only the kinds it lost any of."""
    line = next((x for x in output.splitlines() if x.startswith("SOCKET_ERRORS ")), "")
    counts = {k: int(v) for k, v in (pair.split("=") for pair in line.split()[1:])}
    return {k: v for k, v in counts.items() if v}
