"""What a phase (collect/passes/phases.py) may read of the run and ask of it, and what it hands back.

A phase sees the run through `PhaseRun`, which the run loop (collect/run/run_loop.py) is: the run's
context, its items, its apps, what is finished, a batch measured into given files. It changes
nothing of the loop itself: what it produces (items added, a load generator's ceiling, a manifest
entry) it yields as one of the small values below, and the loop applies each before the phase goes
on, so a later step of the same phase reads it (the ceiling that judges the items it then measures,
the load generator chosen before its ceiling). The loop is then the manifest's one writer, and a
phase's effects on the run can be read off what it yields.
"""
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from benchlib.items import Item
from collect.load.app_pool import AppPool, ExternalApps
from collect.items.item_files import ItemFiles
from collect.passes.progress import Progress
from collect.passes.run_context import RunContext


@dataclass(frozen=True)
class Added:
    """Items that join the run (an extra round): appended to its items and to the manifest's order,
    so a resumed run measures them too."""
    items: tuple[Item, ...]


@dataclass(frozen=True)
class ManifestEntry:
    """A top-level entry of the manifest, set to `value` and written at once: a choice the run made
    (its load generator, its layout, the latency pass's rates) or why it skipped a pass, which a
    resumed run then reads instead of deciding again."""
    key: str
    value: Any


@dataclass(frozen=True)
class Ceilings:
    """`loadgen`'s ceiling (threads -> req/s, collect/passes/ceiling.py) that the items it measures from
    now on are judged by."""
    loadgen: str
    by_threads: Mapping[int, float]


Effect = Added | ManifestEntry | Ceilings
# A phase yields its effects as it goes, or returns None when it has none.
Effects = Iterator[Effect] | None


@runtime_checkable
class PhaseRun(Protocol):
    """The run as a phase sees it (collect/run/run_loop.py RunLoop is one). Read-only but for
    `measure`, which records the items it measures in their files, and the apps, which a phase
    starts and restarts as its measurements need."""

    @property
    def context(self) -> RunContext: ...

    @property
    def items(self) -> Sequence[Item]:
        """The run's items in the manifest's order, the extra rounds' included."""

    @property
    def apps(self) -> AppPool | ExternalApps: ...

    @property
    def files(self) -> ItemFiles:
        """Where the run's own items are (what is finished)."""

    @property
    def ceilings(self) -> Mapping[str, Mapping[int, float]]:
        """loadgen -> threads -> what it drives against the cheapest answer (collect/passes/ceiling.py)."""

    def todo(self) -> list[Item]: ...

    def serves(self, item: Item) -> bool: ...

    def thread_counts(self, items: Sequence[Item] | None = None) -> list[int]: ...

    def estimate(self) -> float:
        """Roughly how long an item takes, before any has been timed."""

    def measure(self, items: list[Item], progress: Progress, into: ItemFiles | None = None) -> None:
        """Measures `items` as one batch into `into` (another load generator's files, as the
        cross-check's), or into the run's own."""

    # What the measurements read (collect/passes/probe.py, collect/passes/latency.py run_round).
    def sampled(self) -> dict[str, int]: ...

    def roles(self, framework: str) -> dict[str, str]: ...

    def check_database(self, during: str = "") -> None: ...
