"""A run's phases, in order (collect/run/run_loop.py runs them): the reference work and the ceiling,
the rounds (with extra rounds while the budget lasts), the ceiling again, the cross-check, each
case's memory, and the latency pass. Each measures only what the run's files do not hold yet, so a
resumed run carries on where it stopped, and says how long what it has left will take, for the
progress line and the budget of extra rounds. A phase reads the run and measures through it
(collect/passes/phase_run.py PhaseRun) and yields what it produces, which the run loop applies."""
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from collect.load import pinning
from collect.passes import ceiling, extra_passes, latency, reference
from collect.load.app_pool import AppPool, ExternalApps
from collect.load.batch import LOADGENS, next_batch
from collect.passes.phase_run import Added, Ceilings, Effects, ManifestEntry, PhaseRun
from collect.passes.progress import Progress
from collect.passes.rounds import Rounds

ROUNDS = "rounds"


@dataclass(frozen=True)
class Phase:
    name: str
    run: Callable[[PhaseRun, Progress], Effects]
    estimate_s: Callable[[PhaseRun], float]  # the seconds it has left
    # An app that will not start: "skip" leaves the rest of the phase to --resume and goes on with
    # the next; "stop" stops the run, resumable.
    app_failure: str = "skip"
    # The phase starts apps afresh, reads their CPU or measures them with wrk, none of which apps that
    # something else runs allow (the Docker runner's: collect/load/app_pool.py ExternalApps).
    own_apps: bool = True


def allowed(phases: Sequence[Phase], apps: AppPool | ExternalApps) -> list[Phase]:
    """Those of `phases` that `apps` allow: every one for the run's own apps, only those that do not
    need its own apps (`own_apps`) for apps something else runs."""
    return [phase for phase in phases if apps.ours or not phase.own_apps]


def choose_loadgen(measured: dict) -> dict:
    """The load generator that spent less CPU per request on the same cell, so leaves the servers
    the most of the machine, with why."""
    costs = {lg: e["loadgen_cpu_ms_per_req"] for lg, e in measured["loadgens"].items()
             if e.get("loadgen_cpu_ms_per_req")}
    tool = min(costs, key=costs.get)
    others = ", ".join(f"{lg} {ms * 1000:.0f} µs" for lg, ms in costs.items() if lg != tool)
    return {"tool": tool, "why": f"it spent {costs[tool] * 1000:.0f} µs of CPU per request on "
                                 f"{measured['loadgens'][tool]['at']}" + (f", against {others}" if others else "")
                                 + ": the cheaper load generator leaves the servers the most of this machine"}


def choose_layout(measured: dict, loadgen: str) -> dict:
    """The layout from the reference work: the fastest arm's REST case 1 gives the server's CPU per
    request (app + database) and the load generator's (collect/load/pinning.py choose)."""
    generator = measured["loadgens"].get(loadgen, {}).get("loadgen_cpu_ms_per_req") \
        or reference.fastest(measured)["loadgen_cpu_ms_per_req"]
    return pinning.choose(sorted(os.sched_getaffinity(0)), generator, reference.server_ms_per_req(measured))


def before_rounds(run: PhaseRun, progress: Progress) -> Effects:
    """Before the first round (each step kept, so a resumed run skips what it has): the reference
    work, the load generator and the layout where the run left them to measurement (each choice
    recorded in the manifest before the next step reads it), the layout applied, and the load
    generator's ceiling. With remote engines the load is not this machine's: the reference work
    alone (with wrk) characterises it. Nothing when every item is done."""
    if not run.todo():
        return
    chosen = run.context.loadgen_choice
    measured = reference.measure(run, list(LOADGENS) if chosen["requested"] == "auto" else
                                 ["wrk" if run.context.engines else run.context.loadgen], progress)
    if run.context.engines:
        return
    if chosen.get("tool") is None:
        chosen = {**chosen, **choose_loadgen(measured)}
        yield ManifestEntry("loadgen", chosen)
        progress.note(f"load generator: {chosen['tool']}: {chosen['why']}")
    if run.context.layout["requested"] == "auto" and "loadgen_share" not in run.context.layout:
        yield ManifestEntry("layout", choose_layout(measured, run.context.loadgen))
        progress.note(f"layout: {run.context.layout['note']}")
    if run.context.cpus:
        run.apps.restart(list(run.apps.running))  # started before the layout: now on the server's cores
    loadgen = run.context.loadgen
    yield Ceilings(loadgen, ceiling.measure(run, loadgen, run.thread_counts(), progress, remote=run.files.remote))


def rounds(run: PhaseRun, progress: Progress) -> Effects:
    """The items in the manifest's order, a batch (a round, or an item when every case gets a fresh
    app) at a time, then extra rounds while the budget lasts (collect/passes/rounds.py), each added to the
    run before it is measured."""
    todo, extra = run.todo(), Rounds(run, lambda: after_rounds_s(run))
    while todo:
        batch = next_batch(todo, run.context.profile)
        run.measure(batch, progress)
        extra.ran(len(batch))
        todo = [item for item in todo if not run.files.finished(item)]
        if not todo:
            for effect in extra.next_round():
                yield effect
                if isinstance(effect, Added):
                    todo = list(effect.items)
        progress.total = len(run.items)


def after_rounds_s(run: PhaseRun) -> float:
    """How long the run's phases after the rounds will take from where it is: the time extra rounds
    leave them."""
    phases = allowed(PHASES, run.apps)
    return sum(phase.estimate_s(run) for phase in phases[[p.name for p in phases].index(ROUNDS) + 1:])


def ceiling_after(run: PhaseRun, progress: Progress) -> None:
    ceiling.measure(run, run.context.loadgen, run.thread_counts(), progress, when="after", remote=run.files.remote)


def ceiling_after_s(run: PhaseRun) -> float:
    return ceiling.estimate_s(run, run.context.loadgen, run.thread_counts(), when="after")


PHASES = (
    Phase("reference work and ceiling", before_rounds, lambda run: 0, app_failure="stop"),
    Phase(ROUNDS, rounds, lambda run: len(run.todo()) * run.estimate(), own_apps=False),
    Phase("ceiling after the rounds", ceiling_after, ceiling_after_s),
    Phase("cross-check", extra_passes.crosscheck, extra_passes.crosscheck_s),
    Phase("memory pass", extra_passes.memory, extra_passes.memory_s),
    Phase("latency pass", latency.run_pass, latency.estimate_s, app_failure="stop"),
)
