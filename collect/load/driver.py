"""The one way a batch (collect/load/batch.py) is driven: start -> follow -> count -> keep.

Three kinds of batch share it: the rounds' items (and the cross-check's: collect/run/run_loop.py), the
latency pass's rounds (collect/passes/latency.py) and the probes (collect/passes/probe.py). Each supplies its
`Stages`: how it starts its batch, what it does when a measurement begins, what ends the batch
early, how it keeps a finished measurement. What must not differ between them is here once: the
order in which the load generator is followed, the count of finished measurements, what happens on
Ctrl-C, and how the samplers' files are cut to a measurement's window.
"""
import math
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import interrupts
from benchlib import jtl as jtl_file
from benchlib.results import JTL, PROC
from collect.items import item_stats
from collect.load import remote
from collect.load.batch import Batch


@dataclass(frozen=True)
class Ending:
    """How a batch ended: its first `finished` measurements ran to their end; `reason` says why the
    one after them (if any) was cut, `failed` whether that makes it a failure or a measurement to
    redo, `tail` the log that shows it, and `database_down` / `engine_lost` that the run must stop."""
    finished: int
    reason: str | None = None
    failed: bool = True
    tail: str | None = None
    database_down: bool = False
    engine_lost: bool = False


class Stages:
    """What one kind of batch supplies to `drive`. The defaults are those of a batch that opens
    nothing as a measurement begins and watches nothing but its load generator (the probes)."""
    poll_s = 0.1
    deadline = math.inf  # time.monotonic() past which the load generator has overrun

    def start(self, batch: Batch) -> None:
        """Launches the batch's load generator and its samplers (and sets `deadline`)."""
        raise NotImplementedError

    def cut_before_begin(self, batch: Batch) -> Ending | None:
        """What ends the batch, read before the measurements begun since the last look are opened:
        a fault that would be blamed on the wrong measurement once the next one is open."""
        return None

    def begin(self, batch: Batch, index: int) -> None:
        """Measurement `index` has begun."""

    def engine_lost(self, batch: Batch, fault: str) -> Ending:
        """A remote engine refused the batch or stopped answering: the run stops for --resume."""
        raise remote.EngineLost(fault)

    def exited(self, batch: Batch, code: int) -> Ending:
        """The load generator ended by itself, with `code`."""
        return Ending(self.finished(batch))

    def cut(self, batch: Batch) -> Ending | None:
        """What else ends the batch while its load generator runs (the database's death)."""
        return None

    def overran(self, batch: Batch) -> Ending:
        """The load generator ran past `deadline` (it is stopped next)."""
        raise NotImplementedError

    def waiting(self) -> None:
        """Between two looks at the load generator."""

    def finished(self, batch: Batch) -> int:
        """How many of the batch's measurements ran to their end, as far as this kind counts them."""
        raise NotImplementedError

    def keep(self, batch: Batch, index: int) -> None:
        """Keeps measurement `index`, which ran to its end."""
        raise NotImplementedError


def drive(batch: Batch, stages: Stages) -> Ending:
    """Starts the batch, follows it until it ends, stops it, and keeps its finished measurements.
    On Ctrl-C (or SIGTERM) those that had finished are kept too, then the interrupt goes on up; any
    other exception stops the batch and goes on up with nothing kept."""
    try:
        stages.start(batch)
        ending = follow(batch, stages)
    except BaseException as e:
        if interrupts.caused(e):
            done = stages.finished(batch)  # before the stop: a stopped JMeter may exit 0
            batch.stop()
            keep(batch, stages, done)
        raise
    finally:
        batch.stop()
    keep(batch, stages, ending.finished)
    return ending


def follow(batch: Batch, stages: Stages) -> Ending:
    """Looks at the load generator every `stages.poll_s` until something ends the batch, in an
    order that decides what is blamed: what would blame the wrong measurement once the next is
    opened (`cut_before_begin`); the measurements begun since the last look; an engine's fault,
    named as the reason rather than what the load generator did after it; the load generator's own
    exit, counted as it ended; only then the rest (`cut`) and the deadline."""
    begun = 0
    while True:
        ending = stages.cut_before_begin(batch)
        if ending:
            return ending
        while begun < min(batch.groups_started(), len(batch.measurements)):
            stages.begin(batch, begun)
            begun += 1
        fault = batch.engine_fault()
        if fault:
            return stages.engine_lost(batch, fault)
        code = batch.exit_code()
        if code is not None:
            return stages.exited(batch, code)
        ending = stages.cut(batch)
        if ending:
            return ending
        if time.monotonic() > stages.deadline:
            return stages.overran(batch)
        time.sleep(stages.poll_s)
        stages.waiting()


def keep(batch: Batch, stages: Stages, finished: int) -> None:
    for index in range(finished):
        stages.keep(batch, index)


def finished(batch: Batch, begun: int) -> int:
    """How many measurements ran to their end, `begun` having started: every one when the load
    generator exited cleanly after beginning them all; otherwise (it exited otherwise, or still
    runs) those before the one it was on, which was cut."""
    if not batch.launched:
        return 0
    if begun == len(batch.measurements) and batch.exit_code() == 0:
        return begun
    return max(0, begun - 1)


def trim_to_window(batch: Batch, folder: Path, start_s: float, end_s: float, roles: dict[str, str]) -> None:
    """Every sampler file of the batch cut into `folder` to [start_s, end_s] (seconds from the
    batch's t0), keeping the rows of `roles` (item_stats.trim) and of the batch's controllers, which
    spent this machine's CPU on the measurement's samples."""
    roles = {**roles, **{role: role for role in batch.controller_roles}}
    for sampled in sorted(batch.raw.iterdir()):  # proc.csv, and top.csv where top ran
        item_stats.trim(sampled, folder / sampled.name, start_s, end_s, roles)


def trimmed_stats(folder: Path, batch: Batch, roles: dict[str, str],
                  window_ms: tuple[int, int] | None = None) -> tuple[dict, dict]:
    """The batch's sampler files cut into `folder` to the measured window (`window_ms`, epoch ms,
    or else as its JTL's labels show it), t_s from the window's start, keeping `roles`
    (trim_to_window); (window, stats)."""
    t0 = batch.t0
    start, end = jtl_file.window_bounds(folder / JTL, window_ms) or (t0, t0)
    window = {"t0_epoch": t0, "start_s": start - t0, "end_s": end - t0,
              "measured_ms": list(window_ms) if window_ms else None}
    trim_to_window(batch, folder, window["start_s"], window["end_s"], roles)
    return window, item_stats.sampler_stats(folder / PROC)
