"""Extra rounds, after the profile's own, for the cells whose interval is still wider than the
target, while the run's time budget lasts (`--budget`; the rule is benchlib/stopping.py's). Every
decision, and each cell's final state, is recorded in the manifest's `sequential` entry, and the
added items join its `order`, so a resumed run carries on where it was."""
import time
from collections.abc import Callable
from datetime import datetime, timezone

from benchlib import stopping
from benchlib.cases import cases
from benchlib.items import Item
from benchlib.results import SUMMARY, TIMESTAMP, summary_rows
from collect.passes.order import extra_round
from collect.passes.phase_run import Added, Effect, ManifestEntry, PhaseRun


def protocol(profile) -> dict:
    """The rule as the manifest records it before any extra round."""
    if not profile.budget_s:
        return {"rule": "none: the profile's rounds only", "budget_s": None}
    return {"rule": "another round for every (API, case) whose throughput ratio (each arm against the "
                    "first) has a 95 % interval, read at 97.5 % (the report draws the cells it extended at "
                    "98.5 %; its spread moderated towards its API's), wider than ± target, over the rounds the "
                    "report's ratio uses (valid or bound; a bound one makes "
                    "the ratio a bound, which no round settles), while at least half of its rounds were "
                    "usable; settled on at least min_rounds usable rounds; widest first, while the round "
                    "fits in the budget (benchlib/stopping.py)",
            "target": profile.target, "budget_s": profile.budget_s, "max_rounds": stopping.MAX_ROUNDS,
            "min_rounds": stopping.MIN_ROUNDS, "interval_level": stopping.LEVEL,
            "budget_counts": "wall time from the run's creation to the end of the wrk passes",
            "rounds": []}


def elapsed_s(manifest: dict) -> float:
    created = datetime.strptime(manifest["created_at"], TIMESTAMP).replace(tzinfo=timezone.utc)
    return (datetime.now(timezone.utc) - created).total_seconds()


class Rounds:
    """Times the rounds as they run, and decides whether another one fits."""

    def __init__(self, run: PhaseRun, later_s: Callable[[], float]):
        """`later_s`: how long the phases after the rounds will take, from where the run is."""
        self.run = run
        self.later_s = later_s
        self.started = time.monotonic()
        self.measured = 0

    def ran(self, items: int) -> None:
        self.measured += items

    def seconds_per_item(self) -> float:
        return (time.monotonic() - self.started) / self.measured if self.measured \
            else self.run.estimate()

    def next_round(self) -> list[Effect]:
        """The decision on another round, for the run loop to apply: the manifest's `sequential`
        entry with each cell's state and either why the rounds stop or the round added, and that
        round's items; [] when the run adds no rounds."""
        run, profile = self.run, self.run.context.profile
        arms = list(run.context.frameworks)
        sequential = run.context.manifest.get("sequential")
        if not profile.budget_s or len(arms) < 2 or not profile.paired or sequential is None:
            return []
        states = stopping.cell_states(summary_rows(run.context.dir / SUMMARY), arms, profile.target)
        left = profile.budget_s - elapsed_s(run.context.manifest) - self.later_s()
        per_cell = self.seconds_per_item() * len(arms)
        cells = stopping.next_round(states, max(0, int(left // per_cell)))
        sequential = {**sequential, "states": [s.recorded() for s in states]}
        if not cells:
            why = "every cell settled, unmeasurable (bound or invalid) or capped" \
                if not any(s.state == stopping.MORE for s in states) else \
                f"the budget: {max(0, left):.0f} s left, a cell's round takes about {per_cell:.0f} s"
            return [ManifestEntry("sequential", {**sequential, "stopped": why})]
        round_ = max(item.round for item in run.items) + 1
        keys = extra_round(arms, [(s.api, s.case) for s in cells], round_, run.context.seed)
        decided = {"round": round_, "cells": [[s.api, s.case] for s in cells],
                   "estimated_s": round(per_cell * len(cells))}
        return [ManifestEntry("sequential", {**sequential, "rounds": [*sequential["rounds"], decided]}),
                Added(tuple(Item.parse(k, cases()) for k in keys))]
