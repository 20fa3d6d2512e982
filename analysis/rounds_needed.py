"""How many rounds would close an open question, at the spread this run saw: for each
answer cell whose interval is still wider than the target, and (analysis.open_questions) for each
inconclusive verdict.

A cell's `spread` is the standard deviation of one round's log ratio (analysis.stats.Ratio.spread).
With n rounds its standard error is spread / √n on n - 1 degrees of freedom, plus those a moderated
cell borrows from its family (benchlib.moderated: its degrees of freedom beyond its own pairs',
taken to stay as they are), and the ratio is taken to stay where it is. A test at confidence c
decides the cell once its interval, exp(log r ± t((1 + c) / 2, n - 1 + borrowed) · spread / √n),
clears the nearest edge that matters: for the answer, ±target
around the ratio (the half-width log(1 + target), as the extra rounds' rule reads it); for a claim,
the edge of its band (analysis.open_questions). The number is of rounds fixed in advance
(`./testbed run --iterations N` without `--budget`), for which the plain t interval holds; rounds
added one at a time by the stopping rule are drawn wider (analysis/paired.py).

A bound, or a metric left out by its own verdict, is decided by no number of rounds on this
machine: more of the same measurement stays a bound. A cell with one usable round has no spread yet.
"""
import math
import re

import numpy as np
from scipy import stats

from analysis.records import Manifest
from benchlib.stopping import TARGET

MAX_ROUNDS = 1000
NO_ROUNDS = "no number of rounds on this machine"
NO_SPREAD = "unknown: one usable round, no spread yet"
# Memory from fresh processes (the memory pass) has as many rounds as --memory-rounds gives it, not --iterations.
MEMORY_ROUNDS = "--memory-rounds"
ONE_PROCESS = f"{NO_SPREAD} (memory from one fresh process per cell: {MEMORY_ROUNDS} 2 or more)"
# A rounds_needed that is a number of rounds, alone or before what else it says ("7 on its judged cells; else …").
ROUNDS_FIRST = re.compile(r"\d+(?= |$)")


def rounds_to_clear(distance: float, spread: float, confidence: float, start: int = 2,
                    borrowed: float = 0.0) -> int | None:
    """The fewest n >= start rounds whose interval at `confidence` has a half-width (log scale) below
    `distance`; None when no n up to MAX_ROUNDS does (or the distance is 0: a ratio on the edge)."""
    if not distance > 0 or not math.isfinite(spread):
        return None
    n = np.arange(max(start, 2), MAX_ROUNDS + 1)
    clear = stats.t.ppf((1 + confidence) / 2, n - 1 + borrowed) * spread / np.sqrt(n) < distance
    return int(n[clear.argmax()]) if clear.any() else None


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
               width: float = TARGET, df: float | None = None) -> str:
    """answer.csv's `rounds_needed` of one cell over `rounds` usable rounds (pairs, or the smaller
    arm's items in an unpaired run): empty when its 95 % interval reaches at most `width` above the
    ratio; else the rounds that would bring it there, or why no number would."""
    if bound:
        return f"{NO_ROUNDS}: bound ({bound})"
    if rounds == 0:
        return f"{NO_ROUNDS}: {note.removeprefix('no pairs; ')}" if note else ""
    if math.isfinite(high) and high / ratio - 1 <= width:
        return ""
    if not math.isfinite(spread):
        return NO_SPREAD if rounds == 1 else ""
    return count_text(rounds_to_clear(math.log1p(width), spread, 0.95, rounds + 1, borrowed_df(df, rounds)))


def on_fresh_processes(needed: str) -> str:
    """A rounds_needed of memory from fresh processes, with the option that sets their number."""
    if needed == NO_SPREAD:
        return ONE_PROCESS
    rounds = ROUNDS_FIRST.match(needed)
    return f"{rounds[0]} ({MEMORY_ROUNDS} {rounds[0]} for memory){needed[rounds.end():]}" if rounds else needed
