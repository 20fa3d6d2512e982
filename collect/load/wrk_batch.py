"""wrk's side of a batch (collect/load/batch.py): the measurements of a round, one after another, each by
one wrk process running benchlib/wrk_measure.lua, as one JMeter process runs a batch plan's thread
groups. It writes what JMeter's plan writes, in the batch's folder: each measurement's JTL and
window file, and a log naming each measurement as it starts (the run loop follows it as it
follows JMeter's). The samplers watch this process and its wrk children as the load generator.

    python3 -m collect.load.wrk_batch PLAN.json

PLAN.json: {"log": path, "measurements": [{"url", "connections", "env": {WRK_*}, "window", "jtl",
"longest_s"}, …]} (collect/load/batch.py write_wrk_plan). Exit 0 once every measurement has run, 130 when
stopped by SIGTERM/SIGINT (the wrk running then is stopped too).
"""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchlib import wrk

# After the window's end, before wrk is stopped: the requests in flight at the end complete, so
# they are counted apart (in_flight_end), as JMeter's threads finish theirs.
TAIL_S = 0.25
# Beyond its ramp-up and warm-up cap, how long a measurement may take to start its window (wrk's
# threads, a slow first response) before it is given up.
START_SLACK_S = 30
STOP_WAIT_S = 60


class Stopped(Exception):
    pass


def _stop(signum, frame):
    raise Stopped()


def command(measurement: dict) -> list[str]:
    """wrk's argv: a thread per connection (so each thread's requests pair with its responses), a
    duration that only backs up the SIGINT that ends the measurement, and a timeout long enough
    that wrk never abandons a slow request the JTL should show."""
    connections = measurement["connections"]
    return wrk.command(measurement["url"], connections, measurement["longest_s"] + START_SLACK_S + 30, wrk.SAMPLES,
                       threads=connections, timeout_s=60)


def measure(n: int, measurement: dict, log) -> None:
    """Measurement `n` (1-based): wrk until its window has ended, then SIGINT, which has wrk write
    the JTL. A measurement whose window never starts leaves no window file (the run loop fails
    its item for want of samples)."""
    window = Path(measurement["window"])
    log.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} Starting measurement: {n} : {measurement['label']}\n")
    log.flush()
    out = open(Path(measurement["jtl"]).with_suffix(".out"), "w")
    proc = subprocess.Popen(command(measurement), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                            env={**os.environ, **measurement["env"]})
    try:
        deadline = time.monotonic() + measurement["longest_s"] + START_SLACK_S
        while not window.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if window.exists():
            w1_ms = int(window.read_text().split()[1])
            time.sleep(max(0.0, w1_ms / 1000 + TAIL_S - time.time()))
        else:
            log.write(f"measurement {n}: no window: "
                      + ("wrk exited" if proc.poll() is not None else "no response before the warm-up cap") + "\n")
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=STOP_WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        out.close()
    log.write(f"measurement {n}: wrk exited with code {proc.returncode}\n")
    log.flush()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    plan = json.loads(Path(argv[0]).read_text())
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with open(plan["log"], "a") as log:
        try:
            for n, measurement in enumerate(plan["measurements"], start=1):
                measure(n, measurement, log)
        except Stopped:
            log.write("stopped\n")
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
