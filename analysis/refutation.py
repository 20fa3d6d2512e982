"""How an "all" claim is refuted (analysis.verdicts, share "all"): by a cell that lies wholly outside
the claim's refutation band at the simultaneous level (Bonferroni over the claim's cells), or by the
judged cells' geometric mean lying wholly outside it, its variance widened for the cells'
correlation within a round (the design effect); the two split alpha when both apply. The same
levels tell analysis.open_questions the rounds that would decide a claim."""
import math
from dataclasses import dataclass

import pandas as pd

from analysis.cell_outcomes import AGREE, OPPOSE, band_outcome, column, intervals_at, refutation_band
from analysis.claim_types import ALL, Claim
from analysis.stats import ALPHA, geometric_mean, interval_of, known


def averaged(claim: Claim) -> bool:
    """Whether an "all" claim is also refuted by its cells' average (average_of): its cells must be
    separate measurements, so one metric (two metrics of one case share its rounds, with a
    covariance the run does not estimate)."""
    return claim.share == ALL and len(claim.metrics) == 1


def refuting_alpha(claim: Claim) -> float:
    """The alpha each of an "all" claim's two refutations spends: half each when its average is one
    of them (Bonferroni over the two), all of it on the cells otherwise."""
    return ALPHA / 2 if averaged(claim) else ALPHA


def tails(claim: Claim) -> int:
    """The tails that can leave the claim's refutation band: its finite edges."""
    return max(sum(0 < edge < math.inf for edge in refutation_band(claim.test)), 1)


def simultaneous_confidence(claim: Claim, k: int) -> float:
    """The confidence of each of k cells' intervals for the Bonferroni refutation of an "all" claim:
    its refuting alpha (refuting_alpha) over k in each tail that can leave the refutation band, so
    that a cell whose true ratio is inside it looks outside with at most that probability."""
    return 1 - 2 * refuting_alpha(claim) / (max(k, 1) * tails(claim))


def average_confidence(claim: Claim) -> float:
    """The confidence of the average's interval: the refuting alpha in each tail that can leave the
    refutation band."""
    return 1 - 2 * refuting_alpha(claim) / tails(claim)


# The cells of one round share its processes and minutes: their correlation within a round, the
# rounds' intraclass correlation (analysis/round_effect.py), averaged 0.07 over the throughput and
# CPU-per-request families of four runs on the round-fresh protocol, as it had on the one before
# (docs/reading-the-report.md, "The protocol's own checks"). An average of k cells has the variance
# of independent ones times 1 + (k - 1) times this.
ROUND_CORRELATION = 0.07


def design_effect(k: int, run_correlation: float = 0.0) -> float:
    """How much more an average of k cells varies than it would were they independent: they share
    each round's machine state (ROUND_CORRELATION) and, pooled over runs, each run's
    (`run_correlation`: the share of a cell's variance that an effect common to a run's cells
    carries, e.g. tau² / (tau² + sigma² / n) from analysis.pool). Within one run it is 0: the run's
    intervals are for that run, whose own effect is no sampling error of it."""
    return 1 + (k - 1) * (ROUND_CORRELATION + run_correlation)


@dataclass(frozen=True)
class Average:
    ratio: float      # the geometric mean of the judged cells' ratios
    low: float        # its interval at average_confidence
    high: float
    cells: int
    refutes: bool


def average_of(claim: Claim, part: pd.DataFrame, run_correlation: float = 0.0) -> Average | None:
    """The judged cells' geometric mean ratio with its interval, and whether it refutes the claim:
    the interval lies wholly outside the refutation band and not on the claimed side (an average
    that shows the claimed direction refutes no more than a cell that agrees does). If every cell's
    true ratio is inside the refutation band, so is their average: a claim true everywhere is
    refuted this way with probability at most the refuting alpha. The cells are separate
    measurements, so the log mean's variance is the sum of theirs over k², times the design effect
    of their correlation within a round, and across pooled runs `run_correlation` (design_effect);
    its degrees of freedom are Welch-Satterthwaite's, at most the largest cell's (the cells' spreads
    are moderated towards one prior, benchlib.moderated, so they are not independent estimates).
    None below two cells."""
    usable = part[column(part, "log_se").map(known) & column(part, "df").map(known) & (part["ratio"] > 0)]
    if len(usable) < 2:
        return None
    variances, dfs = usable["log_se"].astype(float) ** 2, usable["df"].astype(float)
    shares = (variances ** 2 / dfs).sum()
    df = min(variances.sum() ** 2 / shares if shares > 0 else math.inf, dfs.max())
    ratio = geometric_mean(usable["ratio"])
    log_se = math.sqrt(variances.sum() * design_effect(len(usable), run_correlation)) / len(usable)
    low, high = interval_of(ratio, log_se, df, average_confidence(claim))
    refutes = (band_outcome(refutation_band(claim.test), low, high) == OPPOSE
               and band_outcome(claim.test.band(), low, high) != AGREE)
    return Average(ratio, low, high, len(usable), refutes)


def simultaneous_outcomes(claim: Claim, part: pd.DataFrame, total: int) -> pd.DataFrame:
    """The judged cells of an "all" claim with each one's simultaneous interval (`sim_low`,
    `sim_high`, simultaneous_confidence over the `total` cells of its scope) and whether the cell
    refutes the claim (`refutes`): it does not agree, and that interval lies wholly outside the
    refutation band. If every cell's true ratio is inside that band, any cell refutes with
    probability at most alpha, whatever the cells' correlation, and whichever of them were judged."""
    part = part.copy()
    confidence = simultaneous_confidence(claim, total)
    part["sim_low"], part["sim_high"] = intervals_at(part, confidence)
    part["refutes"] = [outcome != AGREE and known(low) and known(high)
                       and band_outcome(refutation_band(claim.test), low, high) == OPPOSE
                       for outcome, low, high in zip(part["outcome"], part["sim_low"], part["sim_high"])]
    return part
