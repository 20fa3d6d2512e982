"""`python3 -m bench headroom`: how much load can JMeter drive on this machine? Compare it with
wrk on the cheapest endpoint.

Both tools send GET /rest/comment/{id} with the seeder's id sequence, at the same concurrency, to
the same running implementation, one after the other. Prints each tool's requests per second and
its own CPU use per request over its measured window, and JMeter/wrk as a ratio: well below 1
means the load generator, not the framework, limits what a case can show on this machine.

    /usr/bin/python3 -m bench headroom --framework express [--connections 50] [--duration 10] [--rounds 2]

Without --port it starts the implementation itself on a free port (and stops it after).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from benchlib import apps, jmeter, jtl, wrk
from benchlib.packages import need_tool
from benchlib.paths import IDS
from benchlib.processes import cpu_seconds

# Case 1's request, GET /rest/comment/{id}: the cheapest endpoint, where the server holds the load
# generator back least.
REQUEST = {"api": "rest", "rows": 1, "joins": 0}


class CpuSampler(threading.Thread):
    """(wall time, CPU seconds) of some processes every 0.1 s, to cut out any window afterwards."""

    def __init__(self, pids: dict):
        super().__init__(daemon=True)
        self.pids, self.samples, self.done = pids, {name: [] for name in pids}, threading.Event()

    def run(self):
        while not self.done.is_set():
            for name, pid in self.pids.items():
                used = cpu_seconds(pid)
                if used is not None:
                    self.samples[name].append((time.time(), used))
            self.done.wait(0.1)

    def cpu_seconds(self, name, start, end) -> float:
        inside = [cpu for t, cpu in self.samples[name] if start <= t <= end]
        return inside[-1] - inside[0] if len(inside) > 1 else float("nan")


def run_wrk(url, connections, duration, app_pid):
    wrk.run(url, REQUEST, connections, 3, threads=2)  # warm-up
    proc = subprocess.Popen(wrk.case_command(url, REQUEST, connections, duration, threads=2),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = CpuSampler({"wrk": proc.pid, **({"app": app_pid} if app_pid else {})})
    sampler.start()
    start = time.time()
    out, err = proc.communicate()
    end = time.time()
    sampler.done.set()
    figures = wrk.figures(proc.returncode, out, err)
    return {"rps": figures["throughput_rps"], "errors": figures["errors"],
            "loadgen_cpu_s": sampler.cpu_seconds("wrk", start, end),
            "app_cpu_s": app_pid and sampler.cpu_seconds("app", start, end), "window_s": end - start}


def run_jmeter(port, connections, duration, app_pid, out_dir: Path):
    jtl_path = out_dir / "headroom.jtl"
    proc = jmeter.start_plan("rest", 1, "127.0.0.1", port, connections, 1, 5, duration, jtl_path, IDS,
                             out_dir / "jmeter.log")
    sampler = CpuSampler({"jmeter": proc.pid, **({"app": app_pid} if app_pid else {})})
    sampler.start()
    proc.wait()
    sampler.done.set()
    start, end = jtl.window_bounds(jtl_path)
    stats = jtl.summarize(jtl_path)
    return {"rps": stats["throughput_rps"], "errors": stats["errors"],
            "loadgen_cpu_s": sampler.cpu_seconds("jmeter", start, end),
            "app_cpu_s": app_pid and sampler.cpu_seconds("app", start, end), "window_s": end - start}


@contextmanager
def target(framework, port):
    """(port, app pid or None): the running app at `port`, or one started here on a free port."""
    chosen = apps.find_framework(framework)
    if port:
        apps.wait_ready(chosen, port, timeout=5)
        yield port, None
        return
    with apps.started(chosen) as (proc, port):
        yield port, proc.pid


def cpu_per_request(r) -> float:
    return r["loadgen_cpu_s"] / (r["rps"] * r["window_s"])


def line(name, r):
    per_request = 1e6 * cpu_per_request(r)
    app = f", app CPU {100 * r['app_cpu_s'] / r['window_s']:.0f}%" if r["app_cpu_s"] else ""
    return (f"{name:6} {r['rps']:9.1f} req/s, {r['errors']} errors, load generator CPU "
            f"{100 * r['loadgen_cpu_s'] / r['window_s']:.0f}% ({per_request:.0f} us/request){app}")


def headroom(args):
    need_tool("wrk", "Install it: apt-get install wrk (./testbed setup does).")
    with target(args.framework, args.port) as (port, app_pid), tempfile.TemporaryDirectory() as tmp:
        url = f"http://127.0.0.1:{port}"
        print(f"headroom: {args.framework} at {url}, GET /rest/comment/{{id}}, {args.connections} "
              f"connections, {args.duration} s each, on {os.cpu_count()} cores", flush=True)
        ratios, cpu_ratios = [], []
        for _ in range(args.rounds):
            w = run_wrk(url, args.connections, args.duration, app_pid)
            print(line("wrk", w), flush=True)
            j = run_jmeter(port, args.connections, args.duration, app_pid, Path(tmp))
            print(line("jmeter", j), flush=True)
            ratios.append(j["rps"] / w["rps"])
            cpu_ratios.append(cpu_per_request(j) / cpu_per_request(w))
        print(f"ratio  JMeter/wrk throughput = {statistics.median(ratios):.2f} (rounds: "
              f"{', '.join(f'{r:.2f}' for r in ratios)}); JMeter uses {statistics.median(cpu_ratios):.1f}x "
              f"wrk's CPU per request")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench headroom", description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", required=True)
    p.add_argument("--port", type=int, help="an already running instance (default: start one)")
    p.add_argument("--connections", type=int, default=50, help="concurrency of both tools (default 50)")
    p.add_argument("--duration", type=int, default=10, help="measured seconds per tool (default 10)")
    p.add_argument("--rounds", type=int, default=2,
                   help="wrk then JMeter, this many times; the median ratio is printed (default 2)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    headroom(parse_args(sys.argv[1:] if argv is None else argv))
    return 0
