"""CPU and memory samplers for the measured window (DESIGN §5).

Two samplers run side by side, each as its own process so its cost can be measured and it never
competes with the run engine:
- `proc`: reads /proc/<pid>/stat at 10 Hz (CPU from utime+stime deltas, RSS) → proc.csv;
- `top`: the study's `top -d 0.1 | grep --line-buffered` (Appendix B), by exact PID, parsed → top.csv.
Both stamp rows with seconds since a shared t0 (wall clock), so their files line up.

    python3 -m collect.samplers proc --out proc.csv --t0 EPOCH app=PID db=PID jmeter=PID
    python3 -m collect.samplers top  --out top.csv  --t0 EPOCH app=PID db=PID jmeter=PID
"""
import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchlib.processes import TICKS, parse_stat

PROC_HEADER = "t_s,role,pid,cpu_pct,rss_kb\n"
TOP_HEADER = "t_s,role,pid,cpu_pct,mem_pct,res_kb\n"
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
TOP_UNITS = {"k": 1, "m": 1024, "g": 1024 ** 2, "t": 1024 ** 3, "p": 1024 ** 4, "e": 1024 ** 5}


class Stop(Exception):
    """Raised by the SIGTERM/SIGINT handler so a sampler flushes its file and exits."""


def _stop(signum, frame):
    raise Stop()


def sample_proc(targets: dict[str, int], out, t0: float, hz: float = 10.0) -> None:
    """Sample until Stop: one row per live pid per tick, CPU % of one core since the last tick."""
    fds, last = {}, {}
    for role, pid in targets.items():
        try:
            fds[role] = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        except OSError:
            continue
    interval = 1.0 / hz
    tick = time.monotonic()
    try:
        while fds:
            now = time.monotonic()
            wall = time.time() - t0
            for role, fd in list(fds.items()):
                try:
                    cpu, rss = parse_stat(os.pread(fd, 1024, 0).decode())
                except (OSError, ValueError):  # the process is gone: stop sampling it
                    os.close(fds.pop(role))
                    continue
                if role in last:
                    prev_cpu, prev_t = last[role]
                    pct = (cpu - prev_cpu) / TICKS / (now - prev_t) * 100
                    out.write(f"{wall:.3f},{role},{targets[role]},{pct:.1f},{rss * PAGE_KB}\n")
                last[role] = (cpu, now)
            tick += interval
            delay = tick - time.monotonic()
            if delay < 0:  # fell behind (a loaded machine): skip ticks rather than burst
                tick = time.monotonic()
            else:
                time.sleep(delay)
    finally:
        out.flush()


def top_command(pids) -> tuple[list[str], list[str]]:
    """The study's pipeline, by exact PID instead of process name (Appendix B)."""
    pid_list = ",".join(str(p) for p in pids)
    top = ["top", "-b", "-d", "0.1", "-p", pid_list]
    grep = ["grep", "--line-buffered", "-E", f"^ *({'|'.join(str(p) for p in pids)}) "]
    return top, grep


def parse_top_line(line: str):
    """(pid, cpu_pct, mem_pct, res_kb) from a top task line; RES may carry a k/m/g/t unit."""
    fields = line.split()
    if len(fields) < 10:
        return None
    res = fields[5].lower()
    scale = TOP_UNITS.get(res[-1]) if res[-1].isalpha() else 1
    try:
        return int(fields[0]), float(fields[8]), float(fields[9]), round(float(res.rstrip("kmgtpe")) * scale)
    except (ValueError, TypeError):
        return None


def sample_top(targets: dict[str, int], out, t0: float, procs: list | None = None) -> None:
    """Run top | grep and turn each matching line into a row stamped when grep emitted it."""
    roles = {pid: role for role, pid in targets.items()}
    top_cmd, grep_cmd = top_command(list(targets.values()))
    env = {**os.environ, "LC_ALL": "C"}  # a decimal point, not the study's locale comma
    top = subprocess.Popen(top_cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    grep = subprocess.Popen(grep_cmd, stdin=top.stdout, stdout=subprocess.PIPE, env=env)
    top.stdout.close()
    if procs is not None:
        procs += [top, grep]
    try:
        for raw in grep.stdout:
            row = parse_top_line(raw.decode(errors="replace"))
            if row and row[0] in roles:
                pid, cpu, mem, res = row
                out.write(f"{time.time() - t0:.3f},{roles[pid]},{pid},{cpu},{mem},{res}\n")
    finally:
        out.flush()
        for p in (top, grep):
            if p.poll() is None:
                p.terminate()
            p.wait()


class Samplers:
    """The samplers (both unless `kinds` says otherwise) as child processes over one window; stop()
    ends them and flushes their files.
    Each has its own session, so a Ctrl-C reaches the run engine alone, which stops them."""

    def __init__(self, targets: dict[str, int], out_dir: Path, t0: float | None = None,
                 kinds: tuple[str, ...] = ("proc", "top")):
        self.t0 = time.time() if t0 is None else t0
        self.targets = {role: pid for role, pid in targets.items() if pid}
        base = [sys.executable, "-S", "-m", "collect.samplers"]  # -S: no site, a quicker start
        args = ["--t0", f"{self.t0:.6f}", *(f"{r}={p}" for r, p in self.targets.items())]
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        self.procs = {}
        try:
            for kind in kinds:
                self.procs[kind] = subprocess.Popen(
                    [*base, kind, "--out", str(out_dir / f"{kind}.csv"), *args],
                    stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        except BaseException:  # a Ctrl-C between two starts must not leave the first one running
            self.stop()
            raise

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m collect.samplers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["proc", "top"])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--t0", type=float, default=None, help="epoch seconds that t_s counts from")
    p.add_argument("--hz", type=float, default=10.0, help="proc sampler rate (default 10)")
    p.add_argument("targets", nargs="+", metavar="ROLE=PID")
    args = p.parse_args(argv)
    try:
        args.targets = {r: int(pid) for r, pid in (t.split("=", 1) for t in args.targets)}
    except ValueError:
        p.error("targets must be ROLE=PID, e.g. app=1234")
    return args


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.time() if args.t0 is None else args.t0
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with open(args.out, "w", buffering=1 << 16) as out:
        out.write(PROC_HEADER if args.kind == "proc" else TOP_HEADER)
        try:
            if args.kind == "proc":
                sample_proc(args.targets, out, t0, args.hz)
            else:
                sample_top(args.targets, out, t0)
        except Stop:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
