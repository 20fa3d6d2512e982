"""What would close each open question of a report: the runs and rounds that would decide an
inconclusive claim as a whole at the spread this run saw, at 80 % power and with the widening the
stopping rule applies (verdicts.csv `rounds_needed`, a column of the verdict table: "R runs × n
rounds (≈ M minutes)", analysis.rounds_needed.Plan), and one line each under the answer and the
verdicts. With each family's between-run spread (for_verdicts' `taus`, from analysis.pool) the
plan may take several runs; without, it is one run and says the run-to-run spread is not known.

A claim every cell of whose scope was judged is projected cell by cell (analysis.rounds_needed):
each undecided cell keeps its ratio and spread, and decides once its test's interval clears the
nearest edge of the claim's band (it agrees) or of its refutation band (it opposes;
analysis.cell_outcomes.refutation_band): the 95 % interval for a direction (edges 1 and 1.1, or
1/1.1; unadjusted, as an "all" claim reads it, a lower bound for a "most" claim, which reads q)
or an interaction, TOST's 90 % interval for a band, each cell's simultaneous interval for a
peak. The claim is decided at the fewest rounds at which its share rule, applied to the cells
decided by then, says reproduced or not reproduced; for an "all" claim a cell outside its
refutation band decides it once that cell's simultaneous interval
(analysis.refutation.simultaneous_confidence) clears that band's edge, or once the cells' average
does (average_rounds). If it never does (a ratio on an edge), no number of rounds decides it at
these ratios. A scope cell that is a bound, or had no usable round, or whose metric its verdict
left out, is no question of rounds (a memory cell from one fresh process is: --memory-rounds 2
gives it a spread): no number of rounds on this machine, after the rounds at
which the judged cells alone would decide the claim where they can (analysis.verdicts.
settled_on_part: refuting an "all" claim, deciding a "most" one); one the run did not measure needs
a run of the claim's whole scope.
"""
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from analysis import scope
from analysis.cell_outcomes import AGREE, OPPOSE, UNJUDGED, band_outcome, column, refutation_band
from analysis.claim_types import ALL, AT_EXPRESS_PEAK, EXPRESS, PEAK, Direction, Interaction
from analysis.claims import MEMORY
from analysis.memory import NOTE as FRESH_PROCESS
from analysis.rounds_needed import MAX_ROUNDS, MEMORY_ROUNDS, NO_ROUNDS, NO_SPREAD, POWER, ROUNDS_FIRST, \
    best_plan, borrowed_df, on_fresh_processes, rounds_of, rounds_to_clear, widening
from analysis.tables import STOPPED_ON
from analysis.stats import ALPHA, geometric_mean, known
from analysis.refutation import average_confidence, averaged, design_effect, simultaneous_confidence
from analysis.verdicts import INCONCLUSIVE, Verdict, share_verdict

NOT_DECIDED = "no number of rounds decides it at these ratios"
# Why a scope cell was not judged, as analysis.scope words it, by what would change it.
NO_SPREAD_NOTES = ("n=1", "the same ratio in every round")


@dataclass(frozen=True)
class Projection:
    """The runs a claim is projected over: `runs` runs, each family's between-run sd of the log
    ratio (`taus`: (api, metric) -> tau; None: not known), and whether a run has a budget, which
    widens the throughput of the cells the stopping rule extends (analysis.rounds_needed)."""
    runs: int = 1
    taus: dict | None = field(default=None, hash=False)
    budget: bool = True

    def tau(self, row: pd.Series) -> float:
        return float((self.taus or {}).get((row["api"], row["metric"]), 0.0))

    def widened(self, row: pd.Series) -> bool:
        return self.budget and row["metric"] in STOPPED_ON


ONE_RUN = Projection()


def for_verdicts(results: list[Verdict], fresh_memory: bool = False, taus: dict | None = None,
                 seconds_per_round: float | None = None, budget: bool = True) -> dict[str, str]:
    """claim id -> rounds_needed, for every inconclusive verdict. With `fresh_memory` (the run's
    memory claims read its memory pass) a claim of peak memory says so: those cells' rounds are
    fresh processes, which --memory-rounds sets and --iterations does not. `taus`: (api, metric) ->
    the family's between-run sd (analysis.pool), which lets a plan take several runs;
    `seconds_per_round`: a round of the whole run (analysis.rounds_needed.seconds_per_round), for
    the minutes; `budget`: whether the next run has one (the default run does)."""
    return {v.claim.id: on_fresh_processes(text) if fresh_memory and MEMORY in v.claim.metrics else text
            for v in results if v.verdict == INCONCLUSIVE
            for text in (for_verdict(v, taus, seconds_per_round, budget),)}


def for_verdict(v: Verdict, taus: dict | None = None, seconds_per_round: float | None = None,
                budget: bool = True) -> str:
    """What decides the claim as a whole: the plan (analysis.rounds_needed.Plan) at which the cells'
    projection decides it, or why none does."""
    def planned(rounds_at) -> str | None:
        found = best_plan(lambda runs: rounds_at(Projection(runs, taus, budget)), taus is not None, seconds_per_round)
        return found.text() if found else None

    reasons = [why for _, why in v.not_judged]
    here = [why for why in reasons if why != scope.NOT_IN_RUN and not why.startswith(NO_SPREAD_NOTES)
            and FRESH_PROCESS not in why]
    if here:
        never = f"{NO_ROUNDS}: " + ", ".join(f"{n} cell{'s' if n != 1 else ''} {kind}"
                                             for kind, n in kinds(here).items())
        on_part = planned(lambda projection: part_rounds(v, projection))
        return f"{on_part} on its judged cells; else {never}" if on_part is not None else never
    if scope.NOT_IN_RUN in reasons:
        return f"a run of its whole scope: {reasons.count(scope.NOT_IN_RUN)} cells not in this run"
    if reasons:
        return NO_SPREAD
    return planned(lambda projection: claim_rounds(v, projection)) or undecided(v)


def claim_rounds(v: Verdict, projection: Projection) -> int | None:
    """The rounds per run at which the whole scope's projection decides the claim; None: never."""
    part = v.part
    if v.claim.share == PEAK:
        return peak_rounds(v.claim, part, projection)
    if v.claim.share == AT_EXPRESS_PEAK:
        means = part.get(f"{EXPRESS}_mean")
        return None if means is None or means.isna().all() else \
            cell_rounds(v.claim, part.loc[means.idxmax()], projection=projection)[0]
    if v.claim.share == ALL:
        return all_rounds(v.claim, part, len(part), projection=projection)
    return most_rounds(v.claim, [cell_rounds(v.claim, row, projection=projection) for _, row in part.iterrows()],
                       len(part))


def undecided(v: Verdict) -> str:
    """Why no plan decides it: the ratios sit on an edge (no number of rounds ever would), or it
    would take more than MAX_ROUNDS."""
    means = v.part.get(f"{EXPRESS}_mean")
    if v.claim.share == AT_EXPRESS_PEAK and (means is None or means.isna().all()):
        return NOT_DECIDED
    if v.claim.share not in (ALL, PEAK, AT_EXPRESS_PEAK) and \
            all(cell_rounds(v.claim, row)[0] is not None for _, row in v.part.iterrows()):
        return NOT_DECIDED
    return f"{NOT_DECIDED} (more than {MAX_ROUNDS})"


def most_rounds(claim, decisions: list, total: int) -> int | None:
    """The fewest rounds at which the cells decided by then make a "most" claim of `total` cells
    reproduced or not reproduced (share_verdict), each cell as cell_rounds decides it."""
    for n in sorted({n for n, _ in decisions if n is not None}):
        decided = [outcome for m, outcome in decisions if m is not None and m <= n]
        if share_verdict(claim.share, decided.count(AGREE), decided.count(OPPOSE), total) != INCONCLUSIVE:
            return n
    return None


def part_rounds(v: Verdict, projection: Projection = ONE_RUN) -> int | None:
    """The rounds at which the judged cells alone would decide a claim some of whose cells no
    number of rounds judges (analysis.verdicts.settled_on_part): an "all" claim refuted by a cell at
    the simultaneous level of its whole scope, a "most" claim once its judged cells reach a share of
    the whole scope; None: they never would, or the claim needs every cell."""
    if v.claim.share in (PEAK, AT_EXPRESS_PEAK):
        return None
    part = v.part[v.part["outcome"] != UNJUDGED]
    if v.claim.share == ALL:
        return all_rounds(v.claim, part, v.scope, reproducible=False, projection=projection)
    return most_rounds(v.claim, [cell_rounds(v.claim, row, projection=projection) for _, row in part.iterrows()],
                       v.scope)


def kinds(reasons: list[str]) -> dict[str, int]:
    """How many scope cells each kind of obstacle holds."""
    out: dict[str, int] = {}
    for why in reasons:
        kind = ("bound" if why.startswith("bound") else
                "with no usable round" if why.startswith(scope.NO_USABLE_ROUND) else
                "left out by their verdict" if "left out" in why else
                "without an ok iteration" if "has no ok" in why else why)
        out[kind] = out.get(kind, 0) + 1
    return out


def rounds_now(row: pd.Series) -> int:
    """The rounds a cell rests on: its pairs, or (unpaired) the smaller arm's iterations."""
    if known(row.get("pairs")):
        return int(row["pairs"])
    counts = [row.get(c) for c in ("aspnet_n", "express_n") if known(row.get(c))]
    return int(min(counts)) if counts else 0


def cell_rounds(claim, row: pd.Series, refute_confidence: float | None = None,
                projection: Projection = ONE_RUN) -> tuple[int | None, str | None]:
    """(the rounds at which the cell's test decides, the outcome it then has); None: never. A cell
    outside the band decides at `refute_confidence` when given (an "all" claim's simultaneous level).
    A cell already decided stays so in one run; over several, each run needs its rounds again."""
    now = rounds_now(row)
    decided = row["outcome"] == AGREE or (row["outcome"] == OPPOSE and refute_confidence is None)
    if decided and projection.runs == 1:
        return now, row["outcome"]
    ratio, spread = row["ratio"], row.get("spread")
    if not (ratio > 0 and known(spread) and spread > 0):  # the same ratio every round: never an interval
        return None, None
    confidence = 0.95 if isinstance(claim.test, (Direction, Interaction)) else 1 - 2 * ALPHA
    # A ratio inside the band agrees once its interval clears the band's nearest edge; one the
    # claim's refutation band leaves out opposes once its interval clears that band's edge. A
    # direction's ratio between 1 and 1.1 (or 1/1.1) can do either: whichever comes first.
    found = []
    for band, outcome in ((claim.test.band(), AGREE), (refutation_band(claim.test), OPPOSE)):
        if band_outcome(band, ratio, ratio) != outcome:
            continue
        distance = min(abs(math.log(ratio / e)) for e in band if 0 < e < math.inf)
        level = refute_confidence if outcome == OPPOSE and refute_confidence is not None else confidence
        n = rounds_to_clear(distance, float(spread), level, now + 1, borrowed_df(row.get("df"), now),
                            projection.widened(row), projection.runs, projection.tau(row))
        found.append((math.inf if n is None else n, outcome))
    n, outcome = min(found, default=(math.inf, None))
    return (None if math.isinf(n) else int(n)), outcome


def all_rounds(claim, part: pd.DataFrame, total: int, reproducible: bool = True,
               projection: Projection = ONE_RUN) -> int | None:
    """An "all" claim of `total` cells is reproduced once every cell agrees (when `part` is all of
    them: `reproducible`), and not reproduced once any cell outside its band is outside it at the
    simultaneous level over the `total` (analysis.refutation.simultaneous_outcomes): the fewer of
    those rounds."""
    confidence = simultaneous_confidence(claim, total)
    decisions = [cell_rounds(claim, row, confidence, projection) for _, row in part.iterrows()]
    refute = [n for n, outcome in decisions if outcome == OPPOSE and n is not None] + [
        n for n in (average_rounds(claim, part, projection),) if n is not None]
    agree = [n for n, outcome in decisions if outcome == AGREE]
    reproduce = max(agree) if reproducible and len(agree) == len(decisions) and None not in agree else None
    return min([n for n in (*refute, reproduce) if n is not None], default=None)


def average_rounds(claim, part: pd.DataFrame, projection: Projection = ONE_RUN) -> int | None:
    """The fewest rounds at which an "all" claim's cells' average (analysis.refutation.average_of)
    refutes it, the cells keeping their ratios and spreads: the geometric mean outside the
    refutation band and not on the claimed side, its interval clearing the band's nearest edge. Its
    spread per round is the cells' over k, times the design effect of their correlation within a
    round; it borrows the degrees of freedom its largest cell does. Over several runs its tau is
    the cells' root mean square one: a run's effect taken as shared by its cells (the conservative
    end), so it does not average out over them."""
    if not averaged(claim):
        return None
    usable = part[(part["ratio"] > 0) & column(part, "spread").map(known) & column(part, "df").map(known)]
    if len(usable) < 2:
        return None
    ratio = geometric_mean(usable["ratio"])
    refutes = band_outcome(refutation_band(claim.test), ratio, ratio) == OPPOSE and \
        band_outcome(claim.test.band(), ratio, ratio) != AGREE
    if not refutes:
        return None
    distance = min(abs(math.log(ratio / e)) for e in refutation_band(claim.test) if 0 < e < math.inf)
    spread = math.sqrt((usable["spread"].astype(float) ** 2).sum() * design_effect(len(usable))) / len(usable)
    now = min(rounds_now(row) for _, row in usable.iterrows())
    borrowed = max(borrowed_df(row["df"], rounds_now(row)) for _, row in usable.iterrows())
    tau = math.sqrt(np.mean([projection.tau(row) ** 2 for _, row in usable.iterrows()]))
    return rounds_to_clear(distance, spread, average_confidence(claim), now + 1, borrowed,
                           projection.widened(usable.iloc[0]), projection.runs, tau)


def peak_rounds(claim, part: pd.DataFrame, projection: Projection = ONE_RUN) -> int | None:
    """The fewest rounds at which the peak's simultaneous interval (each cell's at 1 - 2 alpha / k)
    lies inside the band or wholly outside it with POWER probability at each end, every cell
    keeping its ratio and spread."""
    if not (part["ratio"] > 0).all() or not part["spread"].map(known).all():
        return None
    k, start = len(part), min(rounds_now(r) for _, r in part.iterrows()) + 1
    n = np.arange(max(start, 2), MAX_ROUNDS + 1)
    half = np.array([peak_half(row, n, k, projection) for _, row in part.iterrows()])
    centre = np.log(part["ratio"].to_numpy(dtype=float))[:, None]
    low, high = (centre - half).max(axis=0), (centre + half).max(axis=0)
    lower, upper = (math.log(e) if 0 < e < math.inf else (-math.inf if e == 0 else math.inf) for e in claim.test.band())
    decided = ((low > lower) & (high < upper)) | (high <= lower) | (low >= upper)
    return int(n[decided.argmax()]) if decided.any() else None


def peak_half(row: pd.Series, n: np.ndarray, k: int, projection: Projection) -> np.ndarray:
    """How far a peak cell's estimate must be from an edge at each n, for its simultaneous interval
    to clear it with POWER probability (analysis.rounds_needed's formula)."""
    spread, runs, tau = float(row["spread"]), projection.runs, projection.tau(row)
    borrowed = borrowed_df(row.get("df"), rounds_now(row))
    df = runs * (n - 1) + borrowed
    se = np.sqrt(tau ** 2 / runs + spread ** 2 / (runs * n))
    level = stats.t.ppf(1 - ALPHA / k, df) * widening(spread, n, n - 1 + borrowed, projection.widened(row))
    return (level + stats.t.ppf(POWER, df)) * se


def answer_line(answers: pd.DataFrame, width: float) -> str:
    """One sentence under the answer: how many of its cells are still open, and what would close them."""
    needed = answers["rounds_needed"].fillna("").astype(str)
    counted = needed.str.extract(f"^({ROUNDS_FIRST.pattern})", expand=False).dropna().astype(int)
    more = int(needed.str.startswith("more than").sum())
    parts = []
    if len(counted) + more:
        parts.append(f"{plural(len(counted) + more, 'cell')} with a 95 % interval wider than ±{width * 100:g} %"
                     + (f" would need {counted.min()}-{counted.max()} rounds (median {counted.median():g}) at the "
                        "spread this run saw" if len(counted) else "")
                     + (f", {more} of them more than {MAX_ROUNDS}" if more else ""))
    never = int(needed.str.startswith(NO_ROUNDS).sum())
    if never:
        parts.append(f"{plural(never, 'cell')} bound or left out, which no number of rounds on this machine decides")
    unknown = int(needed.str.startswith(NO_SPREAD).sum())
    if unknown:
        parts.append(f"{plural(unknown, 'cell')} with one usable round, no spread yet")
    if not parts:
        return f"Every cell with an interval has it within ±{width * 100:g} %: nothing here needs more rounds."
    return ("Still open: " + "; ".join(parts)
            + " (tables/answer.csv, `rounds_needed`: rounds in all, fixed in advance with --iterations, and with "
            f"{MEMORY_ROUNDS} for memory).")


def verdict_line(needed: dict[str, str]) -> str:
    """One sentence under the verdicts: what would decide the inconclusive ones (for_verdicts)."""
    if not needed:
        return "No verdict is inconclusive."
    numbers = {c: n for c, t in needed.items() if (n := rounds_of(t)) is not None}
    kinds_ = {"no number of rounds on this machine (bound, invalid or left-out cells)": NO_ROUNDS,
              "only a run of the claim's whole scope": "a run of its whole scope",
              "no number of rounds at these ratios": NOT_DECIDED, "more rounds first, to see the spread": NO_SPREAD}
    parts = ([f"{len(numbers)} by a number of rounds fixed in advance (--iterations N, and {MEMORY_ROUNDS} N where "
              f"it says so; the fewest {min(numbers.values())}, {min(numbers, key=numbers.get)})"]
             if numbers else []) + [
        f"{n} by {words}" for words, prefix in kinds_.items()
        if (n := sum(t.startswith(prefix) for t in needed.values()))]
    return (f"{plural(len(needed), 'verdict')} inconclusive. What would decide them at the spread this run saw (the "
            "table's last column, verdicts.csv `rounds_needed`): " + "; ".join(parts) + ".")


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"
