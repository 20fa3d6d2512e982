"""When a run has measured enough: the sequential stopping rule behind extra rounds (`--budget`).

Three paired rounds give a 95 % interval with t = 4.30 (2 degrees of freedom): unless the per-round
ratios agree within a few percent the interval is too wide to call two frameworks similar or
different. Rather than fix the number of rounds for every cell, a run keeps adding rounds for the
cells whose interval is still wide, while its time budget lasts (Laaber et al., "Predicting unstable
software benchmarks using static source code features" / "Dynamically reconfiguring software
microbenchmarks", FSE 2020; BenchmarkDotNet's MaxRelativeError does the same per benchmark).

The rule, per cell (API x case), after every round:
- each arm is compared with the reference arm (the run's first) on throughput, over the rounds where
  both were measured and passed every validity check (`validity` = valid: a bound or invalid
  measurement says nothing more precise the second time);
- the paired 95 % interval of the ratio is exp(mean(d) ± t(0.975, n-1) · sd(d) / √n), d the per-round
  log ratios; its relative half-width is exp(t · sd / √n) - 1;
- the cell is **settled** when every pair has at least 2 usable rounds and a relative half-width at
  most `target` (default 10 %);
- it **needs another round** when some pair is not settled and at least half of its rounds so far were
  usable: more of the same measurement can tighten its interval;
- otherwise it is **unmeasurable here**: most of its measurements failed the checks, and more of them
  will not fix that (the report says what would);
- and rounds stop at `MAX_ROUNDS` for any cell.
The run adds a round of the cells that need one, widest first, only if its estimated time still fits
in the budget (collect/engine.py).
"""
import math
from dataclasses import dataclass

TARGET = 0.10
MAX_ROUNDS = 10
SETTLED, MORE, UNMEASURABLE, CAPPED = "settled", "needs another round", "unmeasurable here", "at the round cap"


@dataclass(frozen=True)
class CellState:
    api: str
    case: int
    rounds: int               # rounds measured so far (any outcome)
    usable: int               # rounds usable for every pair (the fewest over the pairs)
    half_width: float | None  # the widest relative half-width over the pairs (None: fewer than 2 usable)
    state: str

    def recorded(self) -> dict:
        return {"api": self.api, "case": self.case, "rounds": self.rounds, "usable": self.usable,
                "half_width": None if self.half_width is None else round(self.half_width, 4),
                "state": self.state}


def relative_half_width(log_ratios: list[float]) -> float | None:
    from scipy import stats
    n = len(log_ratios)
    if n < 2:
        return None
    mean = sum(log_ratios) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in log_ratios) / (n - 1))
    return math.expm1(stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n))


def usable(row: dict) -> float | None:
    """The row's throughput if it may be used for an interval, else None."""
    try:
        value = float(row["throughput_rps"])
    except (KeyError, TypeError, ValueError):
        return None
    return value if row.get("status") == "ok" and row.get("validity") == "valid" and value > 0 else None


def cell_states(rows: list[dict], arms: list[str], target: float = TARGET,
                max_rounds: int = MAX_ROUNDS) -> list[CellState]:
    """Every (API, case) cell's state from summary.csv's rows so far; `arms[0]` is the reference
    (at least two arms: one alone has no ratio to tighten)."""
    by_cell: dict[tuple[str, int], dict[int, dict[str, float | None]]] = {}
    for row in rows:
        if row.get("framework") in arms:
            rounds = by_cell.setdefault((row["api"], int(row["case"])), {})
            rounds.setdefault(int(row["iteration"]), {})[row["framework"]] = usable(row)
    states = []
    for (api, case), rounds in sorted(by_cell.items()):
        widths, counts = [], []
        for other in arms[1:]:
            d = [math.log(r[other] / r[arms[0]]) for r in rounds.values() if r.get(other) and r.get(arms[0])]
            counts.append(len(d))
            widths.append(relative_half_width(d))
        n_usable = min(counts, default=0)
        widest = None if None in widths or not widths else max(widths)
        if widest is not None and widest <= target:
            state = SETTLED
        elif len(rounds) >= max_rounds:
            state = CAPPED
        elif n_usable * 2 >= len(rounds):
            state = MORE
        else:
            state = UNMEASURABLE
        states.append(CellState(api, case, len(rounds), n_usable, widest, state))
    return states


def next_round(states: list[CellState], fits: int) -> list[CellState]:
    """The cells the next round measures: those that need one, widest interval first (no interval
    yet counts as widest), at most `fits` of them."""
    wanted = [s for s in states if s.state == MORE]
    wanted.sort(key=lambda s: -(math.inf if s.half_width is None else s.half_width))
    return wanted[:fits]
