"""Print each sampler's own CPU cost, as % of one core, while it samples three processes.

    /usr/bin/python3 -m collect.load.bench_samplers [--seconds 20]

Targets: the managed database server when it runs, plus busy and idle child processes. The cost
is read from each sampler process's own utime+stime (/proc/<pid>/stat), both over its whole life
(interpreter start-up included) and in steady state (from 2 s in, to the end).
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib.database import server_pid
from benchlib.processes import children, command_name, cpu_seconds
from collect.load.samplers import Samplers


def targets() -> tuple[dict, list]:
    # A process that wakes 100 times a second, so there is CPU to account for, and an idle one.
    spawned = [subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"]),
               subprocess.Popen(["sleep", "3600"])]
    found = {"app": spawned[0].pid, "jmeter": spawned[1].pid}
    found["db"] = server_pid()
    if not found["db"]:
        spawned.append(subprocess.Popen(["sleep", "3600"]))
        found["db"] = spawned[-1].pid
    return found, spawned


def bench(seconds: float) -> None:
    found, spawned = targets()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        samplers = Samplers(found, Path(tmp))
        time.sleep(2)
        proc_pid, top_parent = samplers.procs["proc"].pid, samplers.procs["top"].pid
        measured = {"proc sampler (python)": proc_pid, "top|grep parser (python)": top_parent}
        measured.update({f"{command_name(c)} (top|grep)": c for c in children(top_parent)})
        first = {name: (cpu_seconds(pid), time.monotonic()) for name, pid in measured.items()}
        time.sleep(max(0.0, seconds - 2))
        last = {name: (cpu_seconds(pid), time.monotonic()) for name, pid in measured.items()}
        life = time.monotonic() - started
        samplers.stop()
        rows = {kind: sum(1 for _ in open(Path(tmp) / f"{kind}.csv")) - 1 for kind in ("proc", "top")}
    for p in spawned:
        p.kill()
        p.wait()
    print(f"sampling {len(found)} processes ({', '.join(f'{r}={p}' for r, p in found.items())}) "
          f"for {life:.1f} s; rows: proc.csv {rows['proc']}, top.csv {rows['top']}")
    print(f"{'process':28} {'steady % core':>14} {'lifetime % core':>16}")
    for name in measured:
        steady = (last[name][0] - first[name][0]) / (last[name][1] - first[name][1]) * 100
        print(f"{name:28} {steady:14.2f} {last[name][0] / life * 100:16.2f}")
    top_total = sum((last[n][0] - first[n][0]) for n in measured if "proc sampler" not in n)
    print(f"{'top sampler total':28} {top_total / (last[name][1] - first[name][1]) * 100:14.2f}")


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m collect.load.bench_samplers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=20.0)
    return p.parse_args(argv)


def main(argv=None) -> int:
    bench(parse_args(sys.argv[1:] if argv is None else argv).seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
