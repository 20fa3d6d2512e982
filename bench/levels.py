"""`python3 -m bench levels`: which level a cell's ratio between two frameworks moves at, in one
designed experiment (issue 53: the same commit's REST case 1 ratio was 1.47-1.52 in runs of 2-3
cases and 1.11-1.27 in full runs).

Each replicate starts every target afresh, then measures the cell (a warm-up, then the measured
seconds, each target in turn, the first target first in odd replicates and last in even ones):
- `fresh`: on the processes just started;
- `same cell k`: the same again, k = 1 … --repeats: processes that served only this cell, as in a
  run of two or three cases;
- `after soak`: after each process has served this cell alone for as long as the history below
  takes: what the process ran for, without what it served;
- `after history`: after each process has served every other cell of the matrix (both APIs,
  --history seconds each, the same shuffled order for every target), as in a full run, where 35
  cells come between two visits of a cell.
Per stage it prints the geometric mean of the ratio (first target over the second) over the
replicates with a 95 % interval, the stages' paired differences, and the spread of the log ratio
between processes (replicates) against the spread inside one process (the same-cell repeats): the
levels a run's intervals must carry. Every measurement also records the share of the machine's CPU
time the hypervisor took (steal), the hour's candidate. Rows go to --out as CSV.

    /usr/bin/python3 -m bench levels --replicates 4 --out /tmp/levels.csv
"""
import argparse
import csv
import math
import random
import resource
import statistics
import sys
from pathlib import Path

from scipy import stats as scipy_stats

from benchlib import apps
from benchlib import wrk as wrk_tool
from benchlib.builds import build
from benchlib.cases import API_STYLES, cases
from benchlib.console import say
from benchlib.database import server_pid, start as start_database
from benchlib.net import free_port
from benchlib.packages import ensure_debian
from benchlib.paths import LOGS
from benchlib.processes import TICKS, cpu_seconds, stop_group

COLUMNS = ("replicate", "stage", "target", "position", "throughput_rps", "p99_ms", "errors", "steal_share",
           "other_share")
# A measurement during which other work took more of the machine than this is measured again (at
# most RETRIES times): the validity checks of a run ask for under 15 % of a core on 2 cores.
OTHER_LIMIT = 0.075
RETRIES = 5


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python3 -m bench levels", description=__doc__.split("\n\n")[0])
    p.add_argument("--targets", nargs=2, default=["aspnet", "express"], metavar="F[:VARIANT]",
                   help="the two arms; the ratio is the first over the second (default aspnet express)")
    p.add_argument("--api", default="rest", choices=API_STYLES)
    p.add_argument("--case", type=int, default=1, help="the cell's case (default 1)")
    p.add_argument("--replicates", type=int, default=4, help="fresh processes per target (default 4)")
    p.add_argument("--repeats", type=int, default=3, help="same-cell measurements after the fresh one (default 3)")
    p.add_argument("--warmup", type=float, default=3, help="unmeasured seconds before each measurement (default 3)")
    p.add_argument("--duration", type=float, default=3, help="measured seconds (default 3, as a default run)")
    p.add_argument("--history", type=float, default=1.5,
                   help="seconds of load on each other cell in the history stage (default 1.5)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, help="CSV of every measurement")
    args = p.parse_args(argv)
    if min(args.replicates, args.repeats) < 1 or args.replicates < 2:
        p.error("--replicates must be at least 2 and --repeats at least 1")
    return args


def cpu_times(ours: list[int]) -> tuple[float, float, float, float]:
    """(all, busy, steal, ours) CPU seconds of the machine so far: /proc/stat's cpu line, and the
    processes of the experiment (`ours`, this process and the wrk it has waited for)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = resource.getrusage(resource.RUSAGE_SELF)
    used = sum(cpu_seconds(pid) or 0 for pid in ours) + children.ru_utime + children.ru_stime \
        + mine.ru_utime + mine.ru_stime
    return sum(fields[:8]) / TICKS, (sum(fields[:8]) - fields[3] - fields[4]) / TICKS, fields[7] / TICKS, used


def measure(base: str, cell: dict, args, ours: list[int]) -> dict:
    """wrk's figures over the window, with the machine's steal and the share of the machine that
    processes other than the experiment's took; measured again while that share is too high."""
    for _ in range(RETRIES):
        wrk_tool.run(base, cell, cell["requests"], args.warmup)
        before = cpu_times(ours)
        figures = wrk_tool.run(base, cell, cell["requests"], args.duration)
        after = cpu_times(ours)
        total, busy, steal, used = (b - a for a, b in zip(before, after))
        figures |= {"steal_share": round(steal / total, 4) if total else 0.0,
                    "other_share": round(max(0.0, busy - steal - used) / total, 4) if total else 0.0}
        if figures["other_share"] <= OTHER_LIMIT:
            break
        say(f"  other work took {figures['other_share']:.0%} of the machine: measured again")
    return figures


class Targets:
    """The two arms, each on a port of its own, started afresh for each replicate."""

    def __init__(self, specs: list[str]):
        self.arms = apps.select_arms(specs)
        self.procs = {}
        self.bases = {}

    def restart(self) -> None:
        self.stop()
        for arm in self.arms:
            build(arm)
            port = free_port()
            log = LOGS / f"levels-{arm['name'].replace(':', '-')}.log"
            proc = apps.start_app(arm, port, log)
            apps.wait_ready(arm, port, proc, log)
            self.procs[arm["name"]], self.bases[arm["name"]] = proc, apps.url(arm, port)

    def pids(self) -> list[int]:
        """The apps' and the managed database's processes, whose CPU is the experiment's own."""
        return [p.pid for p in self.procs.values()] + [pid for pid in [server_pid()] if pid]

    def stop(self) -> None:
        for proc in self.procs.values():
            stop_group(proc)
        self.procs.clear()


def experiment(args) -> tuple[list[dict], list[str]]:
    """Every measurement's row, and the two arms' names (the ratio is the first over the second)."""
    ensure_debian("load")
    start_database()
    matrix = cases()
    cell = {"api": args.api, **matrix[args.case]}
    others = [{"api": api, **c} for api in API_STYLES for n, c in matrix.items() if (api, n) != (args.api, args.case)]
    targets = Targets(args.targets)
    rng = random.Random(args.seed)
    rows = []
    say(f"levels: {args.api} case {args.case}, {' / '.join(a['name'] for a in targets.arms)}, "
        f"{args.replicates} replicates, {args.warmup:g} s warm-up + {args.duration:g} s, "
        f"history {len(others)} cells x {args.history:g} s")
    try:
        for replicate in range(1, args.replicates + 1):
            targets.restart()
            order = targets.arms if replicate % 2 else targets.arms[::-1]
            stages = ["fresh", *(f"same cell {k}" for k in range(1, args.repeats + 1)), "after soak", "after history"]
            for stage in stages:
                if stage in ("after soak", "after history"):
                    served = rng.sample(others, len(others)) if stage == "after history" else [cell] * len(others)
                    for arm in order:
                        for other in served:
                            wrk_tool.run(targets.bases[arm["name"]], other, other["requests"], args.history)
                for position, arm in enumerate(order, 1):
                    figures = measure(targets.bases[arm["name"]], cell, args, targets.pids())
                    rows.append({"replicate": replicate, "stage": stage, "target": arm["name"],
                                 "position": position, **{k: figures[k] for k in COLUMNS[4:]}})
                    say(f"replicate {replicate} {stage:<14} {arm['name']:<10} "
                        f"{figures['throughput_rps']:>9.1f} req/s steal {figures['steal_share']:.3f} "
                        f"other {figures['other_share']:.3f}")
    finally:
        targets.stop()
    return rows, [arm["name"] for arm in targets.arms]


def log_ratios(rows: list[dict], first: str, second: str) -> dict[str, list[float]]:
    """{stage: [log(first / second) per replicate]}."""
    by = {(r["replicate"], r["stage"], r["target"]): r["throughput_rps"] for r in rows}
    out = {}
    for replicate, stage in dict.fromkeys((r["replicate"], r["stage"]) for r in rows):
        out.setdefault(stage, []).append(math.log(by[replicate, stage, first] / by[replicate, stage, second]))
    return out


def interval(values: list[float]) -> str:
    mean = statistics.fmean(values)
    half = scipy_stats.t.ppf(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return f"{math.exp(mean):.3f} [{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]"


def report(rows: list[dict], first: str, second: str) -> None:
    ratios = log_ratios(rows, first, second)
    say(f"\nratio {first} / {second}: geometric mean over replicates, 95 % t interval")
    for stage, values in ratios.items():
        say(f"  {stage:<14} {interval(values)}  ({', '.join(f'{math.exp(v):.2f}' for v in values)})")
    fresh = ratios["fresh"]
    say("paired against fresh (ratio of ratios):")
    for stage, values in ratios.items():
        if stage != "fresh":
            say(f"  {stage:<14} {interval([v - f for v, f in zip(values, fresh)])}")
    same = [[ratios[s][i] for s in ratios if s.startswith("same cell")] for i in range(len(fresh))]
    within = statistics.fmean(statistics.variance(v) for v in same) if len(same[0]) > 1 else float("nan")
    between = statistics.variance([statistics.fmean(v) for v in same])
    say(f"log-ratio spread: within a process (same-cell repeats) sd {math.sqrt(within):.3f}; "
        f"between processes (replicate means of the repeats) sd {math.sqrt(between):.3f}, of which "
        f"{math.sqrt(max(0.0, between - within / len(same[0]))):.3f} is the processes' own")
    steal = [r["steal_share"] for r in rows]
    other = [r["other_share"] for r in rows]
    say(f"hypervisor steal during the windows: median {statistics.median(steal):.3f}, max {max(steal):.3f}; "
        f"other work: median {statistics.median(other):.3f}, max {max(other):.3f}")


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    rows, arms = experiment(args)
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
    report(rows, *arms)
    return 0
