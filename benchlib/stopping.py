"""When a run has measured enough: the sequential stopping rule behind extra rounds (`--budget`).

Three paired rounds give a 95 % interval with t = 4.30 (2 degrees of freedom): unless the per-round
ratios agree within a few percent the interval is too wide to call two frameworks similar or
different. Rather than fix the number of rounds for every cell, a run keeps adding rounds for the
cells whose interval is still wide, while its time budget lasts (Laaber et al., "Dynamically
reconfiguring software microbenchmarks", FSE 2020; BenchmarkDotNet's MaxRelativeError does the same
per benchmark).

The rule, per cell (API x case), after every round:
- each arm is compared with the reference arm (the run's first) on throughput, over exactly the
  rounds the report's throughput ratio uses (analysis/validity.py): both arms ok and `valid` or
  `bound`. A pair with a bound round is a bound at any number of rounds (the report shows it as
  >= or <= and never judges it), so it is out of reach of more rounds;
- the interval is the one the report draws for a run with extra rounds (below): exp(mean(d) ±
  t(0.975, df) · se_factor(df) · s / √n), d the per-round log ratios, s their spread moderated
  towards the family's (the API's cells of the same pair of arms with no bound, benchlib.moderated,
  as analysis.tables moderates them) on df degrees of freedom (n - 1 in a family of fewer than 6
  cells, where s is the cell's own sd(d)); its relative half-width is exp(t · se_factor · s / √n) - 1;
- the cell is **settled** when every pair that is not bound has at least MIN_ROUNDS usable rounds
  and a relative half-width at most `target` (default 10 %);
- it **needs another round** when it is not settled and, in every pair that is not bound, at least
  half of its rounds so far were usable: more of the same measurement can tighten its interval;
- otherwise it is **unmeasurable here**: every pair is bound, or most of its measurements failed the
  checks, and more of them will not fix that (the report says what would);
- and rounds stop at MAX_ROUNDS for any cell.
The run adds a round of the cells that need one, widest first, only if its estimated time still fits
in the budget (collect/passes/rounds.py).

Why the interval is wider than the plain 95 % one. A cell stops when its interval looks narrow, and
an interval looks narrow most often when its rounds happened to agree more than the machine's noise
warrants: stopping then picks out the intervals that are too short. Simulated (benchlib/
test_stopping.py: normal log ratios, 3 starting rounds, target 10 %, cap 10, 20,000 cells per
spread), plain 95 % intervals cover the true ratio only 0.908 of the time at sd 0.15, and TOST calls
a ratio of exactly 1.10 "within 10 %" 7.4 % of the time at sd 0.12 instead of 5 %. So every interval
of a run with extra rounds, and every test drawn from it, uses the standard error multiplied by
se_factor(df) = t((1 + LEVEL) / 2, df) / t(0.975, df): its "95 %" interval is the plain 97.5 % one
(1.44 times as wide at 3 rounds, 1.19 at 10). With it the intervals cover at least 0.948 over sd
0.01 to 0.5 and TOST at the margin rejects at most 4.4 %; 97 % would leave 0.943 at sd 0.15, too
close to 0.94 to rely on.

Only the cells the rule extended, and only in the metric it read (the throughput ratio; analysis.
tables.extended), are drawn wider: a cell that settled on the profile's rounds has the interval a
run of fixed rounds gives it, and a metric the rule never looked at was not selected by it. Those
cells then carry all of the correction: simulated as above, widening the extended cells at LEVEL
leaves 0.941 coverage (sd 0.12) and a cell on a refutation edge beyond it 1.30-1.41 alpha / k of
the time (k 4-36), so they are drawn at EXTENDED_LEVEL (98.5 %: coverage at least 0.950 over sd
0.01 to 0.5, TOST at the margin at most 5.04 %, the edge at most 1.16 alpha / k; 98 % leaves
1.28). MIN_ROUNDS is 3: a cell allowed to settle on 2 usable rounds reads its
spread off one difference (1 degree of freedom), and coverage falls to 0.935 at sd 0.12 even with
the correction (0.887 without it); 3 is also every profile's own number of rounds, so no cell needs
a round only to be allowed to settle.
"""
import math
from dataclasses import dataclass

from benchlib.moderated import Prior, posterior, prior_of

TARGET = 0.10
MAX_ROUNDS = 10
MIN_ROUNDS = 3
LEVEL = 0.975
EXTENDED_LEVEL = 0.985
# The metric whose interval the rule reads: the only one whose rounds it chose.
METRIC = "throughput_rps"
SETTLED, MORE, UNMEASURABLE, CAPPED = "settled", "needs another round", "unmeasurable here", "at the round cap"
USABLE = ("valid", "bound")


@dataclass(frozen=True)
class CellState:
    api: str
    case: int
    rounds: int               # rounds measured so far (any outcome)
    usable: int               # usable rounds of the pairs that are not bound (the fewest over them)
    half_width: float | None  # the widest relative half-width over those pairs (None: fewer than 2 usable)
    state: str
    bound: tuple = ()         # arms whose throughput ratio with the reference is a bound

    def recorded(self) -> dict:
        return {"api": self.api, "case": self.case, "rounds": self.rounds, "usable": self.usable,
                "half_width": None if self.half_width is None else round(self.half_width, 4),
                "state": self.state, "bound": list(self.bound)}


def se_factor(df, level: float = LEVEL):
    """How much wider than the plain 95 % t interval an interval at `level` is (numbers or numpy
    arrays of degrees of freedom): LEVEL for the rule's reading, EXTENDED_LEVEL for the report's
    interval of a cell the rule extended."""
    from scipy import stats
    return stats.t.ppf((1 + level) / 2, df) / stats.t.ppf(0.975, df)


def half_width(sd, n, df=None):
    """The relative half-width of that interval for n rounds whose log ratios have spread sd, on df
    degrees of freedom (n - 1 unless a family's prior lends more)."""
    import numpy as np
    from scipy import stats
    df = n - 1 if df is None else df
    return np.expm1(stats.t.ppf(0.975, df) * se_factor(df) * sd / np.sqrt(n))


def settles(width, n, target: float = TARGET):
    """Whether an interval of this relative half-width over n usable rounds settles its pair."""
    return (n >= MIN_ROUNDS) & (width <= target)


def relative_half_width(log_ratios: list[float], prior: Prior | None = None) -> float | None:
    """The half-width of the report's interval over these per-round log ratios: their spread
    moderated towards the family's (`prior`, benchlib.moderated) on the degrees of freedom it lends,
    as analysis.paired draws it after extra rounds; the plain one without a prior."""
    n = len(log_ratios)
    if n < 2:
        return None
    mean = sum(log_ratios) / n
    variance, df = posterior(prior, sum((d - mean) ** 2 for d in log_ratios) / (n - 1), n - 1)
    return float(half_width(math.sqrt(variance), n, df))


def throughput(row: dict) -> tuple[float, bool] | None:
    """The row's throughput and whether it is a bound, if the report's ratio uses it; else None."""
    try:
        value = float(row["throughput_rps"])
    except (KeyError, TypeError, ValueError):
        return None
    if row.get("status") != "ok" or row.get("validity") not in USABLE or not value > 0:
        return None
    return value, row["validity"] == "bound"


def cell_states(rows: list[dict], arms: list[str], target: float = TARGET,
                max_rounds: int = MAX_ROUNDS) -> list[CellState]:
    """Every (API, case) cell's state from summary.csv's rows so far; `arms[0]` is the reference
    (at least two arms: one alone has no ratio to tighten)."""
    by_cell: dict[tuple[str, int], dict[int, dict[str, tuple | None]]] = {}
    for row in rows:
        if row.get("framework") in arms:
            rounds = by_cell.setdefault((row["api"], int(row["case"])), {})
            rounds.setdefault(int(row["round"]), {})[row["framework"]] = throughput(row)
    ratios = {(api, case, other): log_ratios(rounds, arms[0], other)
              for (api, case), rounds in by_cell.items() for other in arms[1:]}
    # The report's families (analysis.tables.family_priors): one API and one arm against the
    # reference, over the cells with no bound.
    families: dict[tuple[str, str], list[list[float]]] = {}
    for (api, _, other), d in ratios.items():
        if d is not None:
            families.setdefault((api, other), []).append(d)
    priors = {family: prior_of(found) for family, found in families.items()}
    return [state_of(api, case, rounds, target, max_rounds,
                     {other: (ratios[api, case, other], priors.get((api, other))) for other in arms[1:]})
            for (api, case), rounds in sorted(by_cell.items())]


def log_ratios(rounds: dict, reference: str, other: str) -> list[float] | None:
    """The per-round log ratios other / reference over the rounds the report's ratio uses; None when
    a bound enters them (the ratio is a bound then)."""
    pairs = [(r[other], r[reference]) for r in rounds.values() if r.get(other) and r.get(reference)]
    if any(a[1] or b[1] for a, b in pairs):
        return None
    return [math.log(a[0] / b[0]) for a, b in pairs]


def state_of(api: str, case: int, rounds: dict, target: float, max_rounds: int, pairs: dict) -> CellState:
    """`pairs`: each arm other than the reference -> (its log ratios, or None for a bound; its family's prior)."""
    widths, counts, bound = [], [], []
    for other, (d, prior) in pairs.items():
        if d is None:
            bound.append(other)
            continue
        counts.append(len(d))
        widths.append(relative_half_width(d, prior))
    n_usable = min(counts, default=0)
    widest = None if None in widths or not widths else max(widths)
    if not counts:
        state = UNMEASURABLE
    elif widest is not None and settles(widest, n_usable, target):
        state = SETTLED
    elif len(rounds) >= max_rounds:
        state = CAPPED
    elif n_usable * 2 >= len(rounds):
        state = MORE
    else:
        state = UNMEASURABLE
    return CellState(api, case, len(rounds), n_usable, widest, state, tuple(bound))


def next_round(states: list[CellState], fits: int) -> list[CellState]:
    """The cells the next round measures: those that need one, widest interval first (no interval
    yet counts as widest), at most `fits` of them."""
    wanted = [s for s in states if s.state == MORE]
    wanted.sort(key=lambda s: -(math.inf if s.half_width is None else s.half_width))
    return wanted[:fits]
