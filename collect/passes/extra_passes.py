"""What a run measures after its rounds, each pass resumable item by item:

- **the cross-check** (crosscheck.csv, items under crosscheck/): the profile's `crosscheck_cases`
  (cases 1, 13 and 18; the quick profile's 1 and 18) of each API in the run, every arm, in as many
  interleaved rounds as the run has (at most the profile's `crosscheck_rounds`), measured again by
  the other load
  generator (JMeter when wrk measured the run, wrk when JMeter did) through the same batches,
  windows and checks, on the apps that served the run; its rows are whole items in summary.csv's
  columns. Where the two generators' ratios differ, the one with less headroom set its ratio. Not
  measured (the manifest's `crosscheck.skipped` says why) when the reference work found the other
  generator spending more CPU per request than the servers on cores it shares with them: its items
  would all be bound.
- **memory per case** (memory.csv): every (arm, API, case) on a fresh process (smoke: cases 1, 13
  and 18 only, the profile's `memory_cases`), restarted just before it, under the case's concurrency
  for the profile's `memory_s`, in the profile's `memory_rounds` interleaved rounds (two give each
  case's ratio a spread); its peak resident memory is the process's own high-water mark
  (VmHWM). The apps serve the whole run for the rounds (a restart before each case would have .NET
  measured during its tiered JIT's warm-up), so their in-window RSS carries every case before; this
  pass gives each case's memory on its own.
"""
import random
from pathlib import Path

from benchlib import apps
from benchlib.processes import children
from benchlib.items import Item
from benchlib.results import CROSSCHECK, MEMORY, MEMORY_COLUMNS, append_rows, summary_rows
from benchlib import wrk
from collect.passes import ceiling, reference
from collect.items.item_files import ItemFiles
from collect.passes.order import order
from collect.passes.phase_run import Ceilings, Effects, ManifestEntry, PhaseRun
from collect.passes.progress import Progress

CROSSCHECK_DIR = "crosscheck"
# What a pass's measurement costs beyond its seconds of load, for the run's time budget: the load
# generator's start and end for the cross-check, a fresh app's stop and start-up for the memory pass
# (collect/README.md, "Extra rounds until the interval is tight", for the figures).
OVERHEAD_S = {"crosscheck": 2, "memory": 1}
# The other generator's CPU per request in the reference work (REST case 1, alone), as a share of
# the servers' (app and database), above which its cross-check items are all bound (validity's
# LOADGEN_COST) and give no ratio, as JMeter's did at shares of 2.2 and 3.1 (collect/README.md,
# "After the rounds").
CROSSCHECK_HOPELESS = 1.0


def done(path: Path) -> set[str]:
    """The items a pass's file already holds (by item key)."""
    return {Item.from_row(r).key for r in summary_rows(path)}


def todo(run: PhaseRun, path: Path, case_numbers, rounds: int) -> list[Item]:
    """The pass's items in interleaved order (drawn from the run's seed), less those already
    measured."""
    apis = list(dict.fromkeys(i.api for i in run.items))
    known = {i.case: {"case": i.case, "requests": i.requests, "rows": i.rows, "joins": i.joins} for i in run.items}
    keys = order(list(run.context.frameworks), apis, sorted(set(known) & set(case_numbers)), rounds, "run",
                 random.Random(run.context.seed).randrange(2 ** 31))
    have = done(path)
    return [item for item in (Item.parse(k, known) for k in keys if k not in have) if run.serves(item)]


def other_loadgen(run: PhaseRun) -> str:
    return "wrk" if run.context.loadgen == "jmeter" else "jmeter"


def crosscheck_items(run: PhaseRun) -> list[Item]:
    profile = run.context.profile
    if not profile.crosscheck or crosscheck_skipped(run):
        return []
    return todo(run, run.context.dir / CROSSCHECK, profile.crosscheck_cases, profile.crosscheck_round_count())


def crosscheck_skipped(run: PhaseRun) -> str:
    """Why the cross-check is not worth its minutes on this run ("" when it is, or when a run made
    before this rule has begun it)."""
    if run.context.profile.crosscheck_always or not run.context.loadgen_shares_cores or run.context.engines \
            or done(run.context.dir / CROSSCHECK):
        return ""
    return hopeless(reference.read(run.context.dir), other_loadgen(run))


def hopeless(measured: dict | None, loadgen: str) -> str:
    """Why `loadgen` would be bound on every cross-check item, from the reference work `measured`
    (reference.json) with it on the servers' cores: "" when it was not measured there or is cheap
    enough."""
    spent = ((measured or {}).get("loadgens", {}).get(loadgen) or {})
    cost = spent.get("loadgen_cpu_ms_per_req")
    server = reference.server_ms_per_req(measured) if measured else None
    if not cost or not server or cost <= CROSSCHECK_HOPELESS * server:
        return ""
    return (f"{loadgen} spent {cost:.2f} ms of CPU per request in the reference work ({spent['at']}), "
            f"{cost / server:.1f} times the servers' {server:.2f} ms (app and database), on the cores it would "
            f"share with them: from {CROSSCHECK_HOPELESS:g} times the servers' its cross-check items were "
            f"bound (31 of 32 in two default runs), so it was not measured")


def crosscheck_s(run: PhaseRun) -> float:
    """Roughly how long the cross-check still to do will take, the other generator's ceiling with it."""
    items = crosscheck_items(run)
    if not items:
        return 0
    return ceiling.estimate_s(run, other_loadgen(run), run.thread_counts(items)) \
        + len(items) * (run.context.profile.longest() + OVERHEAD_S["crosscheck"])


def memory_s(run: PhaseRun) -> float:
    p = run.context.profile
    return len(todo(run, run.context.dir / MEMORY, memory_cases(run), p.memory_rounds)) \
        * (p.memory_s + OVERHEAD_S["memory"]) if p.memory_s else 0


def crosscheck(run: PhaseRun, progress: Progress) -> Effects:
    """The cross-check's items, a round per batch, into crosscheck/ and crosscheck.csv, after the
    other load generator's ceiling (measured here if the run has none for it), which judges them."""
    if run.context.profile.crosscheck and (why := crosscheck_skipped(run)):
        yield ManifestEntry("crosscheck", {"skipped": why})
        progress.note(f"cross-check: {why}")
        return
    items = crosscheck_items(run)
    if not items:
        return
    loadgen = other_loadgen(run)
    progress.total += len(items)
    cases = run.context.profile.crosscheck_cases
    progress.note(f"cross-check: {len(items)} measurements with {loadgen} (cases {', '.join(map(str, cases))}) …")
    into = ItemFiles(run.context.dir / CROSSCHECK_DIR, run.context.dir / CROSSCHECK, loadgen, run.context.profile)
    for item in items:
        into.set_aside(item)  # an attempt cut short by an interruption
    # Its ceiling at the thread counts it measures: each costs the other generator an attempt.
    yield Ceilings(loadgen, ceiling.measure(run, loadgen, run.thread_counts(items), progress, remote=into.remote))
    while items:
        batch = [i for i in items if i.round == items[0].round]
        run.measure(batch, progress, into)
        items = crosscheck_items(run)


def memory(run: PhaseRun, progress: Progress) -> None:
    path, seconds = run.context.dir / MEMORY, run.context.profile.memory_s
    items = todo(run, path, memory_cases(run), run.context.profile.memory_rounds) if seconds else []
    if items:
        progress.note(f"memory: {len(items)} fresh processes ({run.context.profile.memory_rounds} per arm and "
                      f"case), {seconds:g} s of wrk load each …")
    for item in items:
        run.apps.restart([item.framework])
        app = run.apps.running[item.framework]
        connections = run.context.profile.threads(item.requests)
        figures = wrk.run(apps.url(run.context.frameworks[item.framework]), item.fields(), connections, seconds)
        hwm, rss = resident_kb(app.pid)
        append_rows(path, MEMORY_COLUMNS, [{**item.fields(), "tool": "wrk",
                                            "connections": connections, "load_s": figures["window_s"],
                                            "requests_done": figures["samples"], "hwm_mb": round(hwm / 1024, 3),
                                            "rss_end_mb": round(rss / 1024, 3)}])
        progress.note(f"  memory {item.key}: peak {hwm / 1024:.0f} MB")


def memory_cases(run: PhaseRun) -> list[int]:
    """The run's cases the memory pass measures: the profile's choice among them, else all."""
    cases = sorted({i.case for i in run.items})
    chosen = run.context.profile.memory_cases
    return [c for c in cases if chosen is None or c in chosen]


def resident_kb(pid: int) -> tuple[int, int]:
    """(VmHWM, VmRSS) in KiB of `pid` and its descendants (a cluster's workers), from /proc."""
    hwm = rss = 0
    for p in family(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        hwm += int(fields.get("VmHWM", "0 kB").split()[0])
        rss += int(fields.get("VmRSS", "0 kB").split()[0])
    return hwm, rss


def family(pid: int) -> list[int]:
    return [pid, *(p for child in children(pid) for p in family(child))]
