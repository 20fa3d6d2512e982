"""How many rounds, and runs, would close an open question, at the spread this run saw: for each
answer cell whose interval is still wider than the target, and (analysis.open_questions) for each
inconclusive verdict, as a whole claim.

A cell's `spread` is the standard deviation of one round's log ratio (analysis.stats.Ratio.spread).
With n rounds its standard error is spread / √n on n - 1 degrees of freedom, plus those a moderated
cell borrows from its family (benchlib.moderated: its degrees of freedom beyond its own pairs',
taken to stay as they are), and the ratio is taken to stay where it is.

At 80 % power (POWER), not 50 %. A claim's cell decides once its interval at confidence c clears
the nearest edge that matters (for a claim, the edge of its band, analysis.open_questions): an
interval centred on where the ratio is now clears it half the time at the n where its half-width
just reaches the edge, since the next run's estimate falls either side of it. By the usual
normal-approximation power formula, written with t quantiles on the same degrees of freedom (a
little more conservative than z), the interval clears the edge with probability POWER once

    (t((1 + c) / 2, df) · w + t(POWER, df)) · se < distance,

w the widening below. An answer cell asks that its interval's half-width be at most the target
(±10 %): its centre does not matter, its spread does, so it is asked of the spread's POWER quantile
(s² ~ σ² χ²(df) / df): t((1 + c) / 2, df) · w · σ · √(χ²(POWER, df) / df) / √n < log(1 + target).

With the widening actually applied. In a run with a budget (every default run) a throughput cell
(and the Little's-law mean that restates it, analysis.tables.STOPPED_ON) whose interval would
still be wider than the target at n rounds is extended by the stopping rule, and then drawn at
benchlib.stopping.EXTENDED_LEVEL, w = se_factor(df, EXTENDED_LEVEL); a cell that settles at n, and
every other metric, is drawn plainly (w = 1). The number is of rounds fixed in advance
(`./testbed run --iterations N`).

Runs. Within a run the intervals say nothing of the spread between runs. Given a between-run
standard deviation τ of a family's log ratio (analysis.pool, on the log scale), R runs of n rounds
each give a pooled log ratio of variance τ² / R + σ² / (R n), on R (n - 1) degrees of freedom (τ
taken as known), and plan() finds the (R, n) that decides with the fewest rounds in all (ties: the
fewer runs). Without τ (one run) R is 1, and the text says the run-to-run spread is not known.
What it says: "R runs × n rounds (≈ M minutes)" (Plan.text), the minutes those rounds of the whole
run take (seconds_per_round; not each run's set-up, ceiling and memory pass).

A bound, or a metric left out by its own verdict, is decided by no number of rounds on this
machine: more of the same measurement stays a bound. A cell with one usable round has no spread yet.
"""
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.records import Manifest
from benchlib.stopping import EXTENDED_LEVEL, TARGET, half_width, se_factor

MAX_ROUNDS = 1000
MAX_RUNS = 10
POWER = 0.8
NO_ROUNDS = "no number of rounds on this machine"
NO_SPREAD = "unknown: one usable round, no spread yet"
SPREAD_UNKNOWN = "the run-to-run spread is not known"
# Memory from fresh processes (the memory pass) has as many rounds as --memory-rounds gives it, not --iterations.
MEMORY_ROUNDS = "--memory-rounds"
ONE_PROCESS = f"{NO_SPREAD} (memory from one fresh process per cell: {MEMORY_ROUNDS} 2 or more)"
# A rounds_needed that is a number of rounds, alone or before what else it says ("7 on its judged cells; else …").
ROUNDS_FIRST = re.compile(r"\d+(?= |$)")
# A claim's rounds_needed: a plan (Plan.text), alone or before what else it says.
PLAN_FIRST = re.compile(r"(\d+) runs? × (\d+) rounds")
# What an item takes beyond its load: wrk's start and stop and its files (collect/README.md, "Time":
# 6.5 s per item of 6 s of load on the 2-core machine).
ITEM_OVERHEAD_S = 0.5


@dataclass(frozen=True)
class Plan:
    """What decides a question: `runs` runs of `rounds` rounds each, `minutes` of rounds in all
    (None: unknown), and whether a between-run spread was known to plan them."""
    runs: int
    rounds: int
    minutes: float | None = None
    spread_known: bool = False

    def text(self) -> str:
        """"R runs × n rounds (≈ M minutes)", saying when the run-to-run spread is not known."""
        said = ([f"≈ {self.minutes:.0f} minutes"] if self.minutes is not None else []) + \
            ([] if self.spread_known else [SPREAD_UNKNOWN])
        return f"{self.runs} run{'s' if self.runs != 1 else ''} × {self.rounds} rounds" + \
            (f" ({'; '.join(said)})" if said else "")


def best_plan(rounds_for: Callable[[int], int | None], spread_known: bool,
              seconds_per_round: float | None = None) -> Plan | None:
    """The plan with the fewest rounds in all (ties: the fewer runs), `rounds_for(R)` giving the
    rounds per run that decide with R runs (None: none do); one run when no between-run spread is
    known. None when no plan up to MAX_RUNS runs decides."""
    found = [(runs, n) for runs in (range(1, MAX_RUNS + 1) if spread_known else (1,))
             if (n := rounds_for(runs)) is not None]
    if not found:
        return None
    runs, n = min(found, key=lambda plan: (plan[0] * plan[1], plan[0]))
    minutes = runs * n * seconds_per_round / 60 if seconds_per_round else None
    return Plan(runs, n, minutes, spread_known)


def plan(distance: float, spread: float, confidence: float, start: int = 2, borrowed: float = 0.0,
         widened: bool = False, tau: float | None = None, seconds_per_round: float | None = None) -> Plan | None:
    """The runs and rounds at which one cell's interval at `confidence` clears an edge `distance`
    away (log scale) with POWER probability (rounds_to_clear). `spread`: one round's sd of the log
    ratio; `start`: the fewest rounds per run; `borrowed`: the degrees of freedom its family lends
    (borrowed_df); `widened`: the run has a budget and this is a metric the stopping rule reads
    (analysis.tables.STOPPED_ON); `tau`: the between-run sd of its family's log ratio (analysis.pool),
    None for a single run; `seconds_per_round`: a round of the whole run (seconds_per_round()), for
    the minutes. Plan.text() says it as "R runs × n rounds (≈ M minutes)"."""
    return best_plan(lambda runs: rounds_to_clear(distance, spread, confidence, start, borrowed, widened, runs,
                                                  tau or 0.0), tau is not None, seconds_per_round)


def seconds_per_round(run) -> float | None:
    """How long a round of this run takes: its items per round (the first round's) times an item's
    load (ramp-up, warm-up and window, as the profile recorded them) and ITEM_OVERHEAD_S; None when
    the manifest does not say."""
    profile = run.manifest.settings.recorded.get("profile") or {}
    load = [profile.get(k) for k in ("rampup_s", "warmup_s", "duration_s")]
    if any(not isinstance(s, (int, float)) for s in load) or run.summary.empty:
        return None
    first = run.summary["round"].min()
    return int((run.summary["round"] == first).sum()) * (sum(load) + ITEM_OVERHEAD_S)


def widening(spread: float, n: np.ndarray, df: np.ndarray, widened: bool):
    """w at each n: EXTENDED_LEVEL's factor where the stopping rule would extend the cell (its
    interval, as the rule reads it, still wider than the target at n rounds), else 1."""
    if not widened:
        return 1.0
    return np.where(half_width(spread, n, df) > TARGET, se_factor(df, EXTENDED_LEVEL), 1.0)


def first(n: np.ndarray, clear: np.ndarray) -> int | None:
    return int(n[clear.argmax()]) if clear.any() else None


def rounds_to_clear(distance: float, spread: float, confidence: float, start: int = 2, borrowed: float = 0.0,
                    widened: bool = False, runs: int = 1, tau: float = 0.0) -> int | None:
    """The fewest n >= start rounds (in each of `runs` runs whose log ratios differ by sd `tau`)
    whose interval at `confidence` clears an edge `distance` away (log scale) with POWER probability;
    None when no n up to MAX_ROUNDS does (or the distance is 0: a ratio on the edge)."""
    if not distance > 0 or not math.isfinite(spread):
        return None
    n = np.arange(max(start, 2), MAX_ROUNDS + 1)
    own, df = n - 1 + borrowed, runs * (n - 1) + borrowed
    se = np.sqrt(tau ** 2 / runs + spread ** 2 / (runs * n))
    level = stats.t.ppf((1 + confidence) / 2, df) * widening(spread, n, own, widened)
    return first(n, (level + stats.t.ppf(POWER, df)) * se < distance)


def rounds_to_narrow(distance: float, spread: float, confidence: float, start: int = 2, borrowed: float = 0.0,
                     widened: bool = False) -> int | None:
    """The fewest n >= start rounds whose interval at `confidence` has a half-width (log scale) below
    `distance` with POWER probability: at the POWER quantile of the spread it will show."""
    if not distance > 0 or not math.isfinite(spread):
        return None
    n = np.arange(max(start, 2), MAX_ROUNDS + 1)
    df = n - 1 + borrowed
    likely = spread * np.sqrt(stats.chi2.ppf(POWER, df) / df)
    return first(n, stats.t.ppf((1 + confidence) / 2, df) * widening(spread, n, df, widened) * likely / np.sqrt(n)
                 < distance)


def borrowed_df(df, rounds: int) -> float:
    """The degrees of freedom a cell has beyond its own rounds' (a moderated cell's prior's)."""
    return max(0.0, float(df) - (rounds - 1)) if df is not None and math.isfinite(float(df)) else 0.0


def count_text(n: int | None) -> str:
    return str(n) if n is not None else f"more than {MAX_ROUNDS}"


def target(manifest: Manifest) -> float:
    """The half-width a settled interval has: the run's extra-rounds target, else the rule's default
    (the record's default)."""
    return manifest.sequential.target


def for_answer(bound: str, rounds: int, ratio: float, high: float, spread: float, note: str,
               width: float = TARGET, df: float | None = None, widened: bool = False) -> str:
    """answer.csv's `rounds_needed` of one cell over `rounds` usable rounds (pairs, or the smaller
    arm's items in an unpaired run): empty when its 95 % interval reaches at most `width` above the
    ratio; else the rounds that would bring it there at POWER (rounds_to_narrow; `widened`: as
    plan's), or why no number would."""
    if bound:
        return f"{NO_ROUNDS}: bound ({bound})"
    if rounds == 0:
        return f"{NO_ROUNDS}: {note.removeprefix('no pairs; ')}" if note else ""
    if math.isfinite(high) and high / ratio - 1 <= width:
        return ""
    if not math.isfinite(spread):
        return NO_SPREAD if rounds == 1 else ""
    return count_text(rounds_to_narrow(math.log1p(width), spread, 0.95, rounds + 1, borrowed_df(df, rounds), widened))


def on_fresh_processes(needed: str) -> str:
    """A rounds_needed of memory from fresh processes, with the option that sets their number."""
    if needed == NO_SPREAD:
        return ONE_PROCESS
    rounds = PLAN_FIRST.match(needed) or ROUNDS_FIRST.match(needed)
    return f"{rounds[0]} ({MEMORY_ROUNDS} {rounds[rounds.lastindex or 0]} for memory){needed[rounds.end():]}" \
        if rounds else needed


def rounds_of(needed: str) -> int | None:
    """The rounds (per run) a rounds_needed starts with: a plan's, or a bare number's."""
    found = PLAN_FIRST.match(needed)
    if found:
        return int(found[2])
    found = ROUNDS_FIRST.match(needed)
    return int(found[0]) if found else None
