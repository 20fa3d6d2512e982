"""CPU and memory samplers for the measured window (collect/README.md, "The samplers").

Two samplers run side by side, each as its own process so its cost can be measured and it never
competes with the run loop:
- `proc`: reads /proc/<pid>/stat at 10 Hz (CPU from utime+stime deltas, RSS) → proc.csv; an app's
  row sums the app and its descendants (a cluster's workers), RSS included (shared pages counted in
  each process, as `ps` would); the load generator's row sums it and the processes it starts
  (collect/load/wrk_batch.py's wrk); the testbed's own processes are rows too (`testbed`, the run loop;
  `samplers`, both samplers with top and grep), and so is the whole machine from /proc/stat
  (`machine`: user, nice, system and interrupt time of every core; `steal`: the hypervisor's), so
  that what else kept the machine busy can be told apart (collect/items/item_stats.py other_cpu_pct);
- `top`: the study's `top -d 0.1 | grep --line-buffered` (Appendix B), by exact PID, parsed → top.csv.
Both stamp rows with seconds since a shared t0 (wall clock), so their files line up.

    python3 -m collect.load.samplers proc --out proc.csv --t0 EPOCH app=PID db=PID loadgen=PID
    python3 -m collect.load.samplers top  --out top.csv  --t0 EPOCH app=PID db=PID loadgen=PID
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchlib.paths import ROOT
from benchlib.processes import TICKS, children, parse_stat

PROC_HEADER = "t_s,role,pid,cpu_pct,rss_kb\n"
TOP_HEADER = "t_s,role,pid,cpu_pct,mem_pct,res_kb\n"
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
# How often a role's descendants are looked up: an app's workers live as long as it does; the load
# generator starts a wrk per measurement, each found within a tick (and before its window, which
# follows a warm-up); the samplers' top and grep start with them.
TREE_REFRESH_S = {"app": 1.0, "loadgen": 0.0, "samplers": 0.0}
LOADGEN_ROLE = "loadgen"
MACHINE_ROLES = ("machine", "steal")
TOP_UNITS = {"k": 1, "m": 1024, "g": 1024 ** 2, "t": 1024 ** 3, "p": 1024 ** 4, "e": 1024 ** 5}


class Stop(Exception):
    """Raised by the SIGTERM/SIGINT handler so a sampler flushes its file and exits."""


def _stop(signum, frame):
    raise Stop()


def descendants(pid: int) -> list[int]:
    found, todo = [], children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children(child)
    return found


def direct_children(pid: int) -> list[int]:
    """The processes `pid`'s main thread started (a launcher's): one read, however many threads
    `pid` has (JMeter's JVM has hundreds)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class Tree:
    """One sampled role: a process and, for an app, its descendants (a cluster's workers), for the
    load generator and the samplers the processes they start; their CPU and RSS are summed into the
    role's row. `refresh_s`: how often descendants are looked up (None: never)."""

    def __init__(self, pid: int, refresh_s: float | None, others: tuple[int, ...] = ()):
        self.root, self.refresh_s = pid, refresh_s
        self.fds: dict[int, int] = {}
        self.last: dict[int, int] = {}   # pid -> CPU ticks at the previous tick
        self.looked_up = float("-inf")
        for p in (pid, *others):
            self.add(p)

    def add(self, pid: int) -> None:
        try:
            self.fds[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        except OSError:
            pass

    def refresh(self, now: float) -> None:
        if self.refresh_s is None or now - self.looked_up < self.refresh_s:
            return
        self.looked_up = now
        found = descendants(self.root) if self.refresh_s else direct_children(self.root)
        for pid in found:
            if pid not in self.fds:
                self.add(pid)

    @property
    def alive(self) -> bool:
        return self.root in self.fds

    def read(self) -> tuple[int, int]:
        """(CPU ticks used since the previous read by the processes seen both times, RSS pages)."""
        used = rss = 0
        for pid, fd in list(self.fds.items()):
            try:
                cpu, pages = parse_stat(os.pread(fd, 1024, 0).decode())
            except (OSError, ValueError):  # the process is gone: stop sampling it
                os.close(self.fds.pop(pid))
                self.last.pop(pid, None)
                continue
            used += cpu - self.last.get(pid, cpu)
            self.last[pid] = cpu
            rss += pages
        return used, rss

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


def machine_ticks() -> tuple[int, int]:
    """(user + nice + system + irq + softirq, steal) ticks of every core so far, from /proc/stat.
    Interrupt time counts: this kernel charges it to the process it interrupted as well (measured
    under wrk's load: user + system alone fell 39 % of a core short of the processes' sum, the
    same as irq + softirq), so leaving it out would hide other work behind the load's own."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:9]]
    return sum(fields[0:3]) + fields[5] + fields[6], fields[7]


def tree_for(role: str, pid: int) -> Tree:
    kind = role.split(":")[0]
    # The samplers' row is this sampler and the top sampler with its top and grep.
    return Tree(pid, TREE_REFRESH_S.get(kind), (os.getpid(),) if kind == "samplers" and pid != os.getpid() else ())


def sample_proc(targets: dict[str, int], out, t0: float, hz: float = 10.0) -> None:
    """Sample until Stop: one row per live role per tick, CPU % of one core since the last tick,
    and the machine's rows (MACHINE_ROLES). An app's role (app, app:<framework>) covers its
    descendants too."""
    trees = {role: tree_for(role, pid) for role, pid in {"samplers": os.getpid(), **targets}.items()}
    trees = {role: tree for role, tree in trees.items() if tree.alive}
    interval = 1.0 / hz
    tick = time.monotonic()
    read_at = {}  # role -> when its CPU time was last read (monotonic)
    machine = None
    try:
        while trees:
            wall = time.time() - t0
            busy, steal = machine_ticks()
            now = time.monotonic()
            if machine:
                elapsed = now - machine[0]
                for role, used in (("machine", busy - machine[1]), ("steal", steal - machine[2])):
                    out.write(f"{wall:.3f},{role},0,{used / TICKS / elapsed * 100:.1f},0\n")
            machine = (now, busy, steal)
            for role, tree in list(trees.items()):
                tree.refresh(now)
                used, pages = tree.read()
                if not tree.alive:
                    tree.close()
                    del trees[role]
                    continue
                # Each role's CPU over the time between its own reads, not between ticks: a sampler
                # descheduled inside a tick (a loaded machine) reads a role late, and run 225723
                # charged 0.11 s of CPU read that way to the 1 ms since the tick before (11,025 %).
                read = time.monotonic()
                if role in read_at:
                    pct = used / TICKS / (read - read_at[role]) * 100
                    out.write(f"{wall:.3f},{role},{tree.root},{pct:.1f},{pages * PAGE_KB}\n")
                read_at[role] = read
            # The next tick on the schedule (missed ones skipped), and never sooner than half a tick
            # after this one: /proc counts CPU time in 10 ms steps, so a sampler woken late that
            # read again at once would turn one step into a rate of thousands of per cent.
            tick = max(tick + interval, time.monotonic() + interval / 2)
            time.sleep(max(0.0, tick - time.monotonic()))
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
    Each has its own session, so a Ctrl-C reaches the run loop alone, which stops them."""

    def __init__(self, targets: dict[str, int], out_dir: Path, t0: float | None = None,
                 kinds: tuple[str, ...] = ("proc", "top")):
        self.t0 = time.time() if t0 is None else t0
        self.targets = {role: pid for role, pid in targets.items() if pid}
        base = [sys.executable, "-S", "-m", "collect.load.samplers"]  # -S: no site, a quicker start
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.procs = {}
        # top first, so that the proc sampler can count it among the testbed's own processes.
        try:
            for kind in sorted(kinds, key=lambda k: k != "top"):
                own = {"testbed": os.getpid(), **({"samplers": self.procs["top"].pid} if "top" in self.procs else {})} \
                    if kind == "proc" else {}
                args = ["--t0", f"{self.t0:.6f}", "--parent", str(os.getpid()),
                        *(f"{r}={p}" for r, p in {**self.targets, **own}.items())]
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
    p = argparse.ArgumentParser(prog="python3 -m collect.load.samplers", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["proc", "top"])
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--t0", type=float, default=None, help="epoch seconds that t_s counts from")
    p.add_argument("--hz", type=float, default=10.0, help="proc sampler rate (default 10)")
    p.add_argument("--parent", type=int, default=None,
                   help="the pid that started it: it stops once that is gone (default: its parent now)")
    p.add_argument("targets", nargs="+", metavar="ROLE=PID")
    args = p.parse_args(argv)
    try:
        args.targets = {r: int(pid) for r, pid in (t.split("=", 1) for t in args.targets)}
    except ValueError:
        p.error("targets must be ROLE=PID, e.g. app=1234")
    return args


def exit_with_parent(parent: int) -> None:
    """Stops this sampler (as SIGTERM does) once `parent`, the process that started it, is no
    longer its parent. A Ctrl-C that lands while the run loop is starting the samplers can leave one
    it never learnt of: it would sample for ever, and hold the run's output open after the run had
    exited."""
    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch, daemon=True).start()


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.time() if args.t0 is None else args.t0
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    exit_with_parent(args.parent or os.getppid())
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
