"""The verdict logic on crafted cells: each claim type, each share, and the edges where an
interval touches a bound."""
import dataclasses
import math

import pandas as pd
from scipy import stats as scipy_stats

from analysis import study_check
from analysis.claim_types import ALL, AT_EXPRESS_PEAK, MOST, PEAK, Claim, Equivalence, Interaction, NonInferiority, \
    Source
from analysis.claims import CLAIMS, TIME, more_than, roughly
from analysis.stats import adjust_family
from analysis.little_q import with_q_of
from analysis.study import load_study
from analysis.cell_outcomes import AGREE, OPPOSE, STRADDLES, UNJUDGED, cell_outcome
from analysis.refutation import average_of, design_effect, simultaneous_confidence
from analysis.verdicts import Q_FAMILY, CANNOT_JUDGE_HERE, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, judge, \
    verdict_table, verdicts

EXPRESS_LOWER = next(c for c in CLAIMS if c.id == "graphql-peak-load-express-faster")  # 14, 15, 17, 18


def crafted(test, share=ALL, cases=(1, 2, 3, 4)) -> Claim:
    return Claim("crafted", "a crafted claim", (Source((1, 1), "Abstract", "crafted"),), ("graphql",),
                 cases, "crafted cases", ("mean_ms",), test, share)


DF = 2  # three rounds


def log_se(low, high) -> float:
    """The standard error on the log scale of a 95 % interval [low, high] on DF degrees of freedom."""
    return math.log(high / low) / (2 * scipy_stats.t.ppf(0.975, DF))


def cells(claim: Claim, values: dict) -> pd.DataFrame:
    """values: {case: (ratio, low, high, significant)}, low and high the 95 % interval; low None =
    no interval; significant None = not judged. Band claims read the 90 % interval drawn from the
    same standard error around the ratio."""
    return pd.DataFrame.from_records([{
        "api": claim.apis[0], "case": case, "metric": claim.metrics[0], "ratio": ratio,
        "ratio_low": low, "ratio_high": high, "log_se": log_se(low, high) if low is not None else None,
        "df": DF if low is not None else None, "judged": significant is not None,
        "significant": bool(significant), "ratio_note": "" if low is not None else "n=1 iteration"}
        for case, (ratio, low, high, significant) in values.items()])


SLOWER = (1.5, 1.3, 1.7, True)     # ASP.NET Core significantly slower
FASTER = (0.6, 0.5, 0.7, True)
UNCLEAR = (1.05, 0.9, 1.2, False)
ONE_ITERATION = (1.5, None, None, None)


def outcome(claim, low, high):
    return cell_outcome(claim, (low + high) / 2, low, high, True, True)


# direction

def test_direction_reproduced_when_every_cell_agrees():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {c: SLOWER for c in (14, 15, 17, 18)}))
    assert v.verdict == REPRODUCED and v.counts[AGREE] == 4 and not v.missing


def test_direction_not_reproduced_when_most_cells_are_significantly_opposite():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: FASTER, 15: FASTER, 17: FASTER, 18: SLOWER}))
    assert v.verdict == NOT_REPRODUCED and (v.counts[AGREE], v.counts[OPPOSE]) == (1, 3)
    assert "case 14 (A/E 0.60 [0.42, 0.85])" in v.explanation  # its interval at the simultaneous level


def test_direction_inconclusive_when_some_cells_are_not_significant():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER, 17: UNCLEAR, 18: UNCLEAR}))
    assert v.verdict == INCONCLUSIVE and v.counts["not significant"] == 2


def test_one_cell_opposite_at_the_simultaneous_level_refutes_an_all_cells_claim():
    # FASTER's 95 % interval [0.50, 0.70] on 2 degrees of freedom is [0.42, 0.85] at 98.75 %, the
    # Bonferroni level of 4 cells with half of alpha (1 - 2 * 0.025 / 4; the other half is the
    # average's): wholly below 1, where the claim needs above.
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER, 17: SLOWER, 18: FASTER}))
    assert v.verdict == NOT_REPRODUCED and (v.counts[AGREE], v.counts[OPPOSE]) == (3, 1)
    assert v.explanation == ("opposite or under 10 % at the simultaneous level (each cell's interval at 98.8 %, "
                             "Bonferroni over 4 cells) in case 18 (A/E 0.60 [0.42, 0.85]); 3 agree, 1 oppose")
    # Under the 10 % a difference needs at its own 95 % level ([0.92, 1.087]) but not at 98.75 %:
    # one of four cells may be that far off by chance, and the average of the four is not under
    # 10 % either, so the claim stays open.
    barely = (1.0, 0.92, 1.087, False)
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER, 17: SLOWER, 18: barely}))
    assert v.verdict == INCONCLUSIVE and v.counts[OPPOSE] == 1


def test_a_cell_that_agrees_never_refutes_though_its_difference_is_under_10_percent():
    # Significant the claimed way, so it agrees; its simultaneous interval lies under 1.1 too,
    # which would refute the claim from a cell that does not agree.
    small = (1.05, 1.02, 1.08, True)
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: small, 15: UNCLEAR, 17: SLOWER, 18: SLOWER}))
    assert v.verdict == INCONCLUSIVE and v.counts[AGREE] == 3
    assert judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: small, 15: SLOWER, 17: SLOWER, 18: SLOWER})).verdict \
        == REPRODUCED


def test_cells_that_each_fall_a_little_short_refute_an_all_claim_through_their_average():
    # Each cell under the claimed 10 % at its own 95 % level ([0.92, 1.087]), none at the
    # simultaneous one: were the claim true of every cell their average would be at least 1.1 too,
    # and it lies wholly below (4 cells, 95 %: alpha / 2 in the one tail the band has; its variance
    # a quarter of a cell's times 1 + 3 x 0.07, the cells' correlation within a round).
    barely = (1.0, 0.92, 1.087, False)
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {c: barely for c in (14, 15, 17, 18)}))
    assert v.verdict == NOT_REPRODUCED
    assert v.explanation == ("opposite or under 10 % on average over its 4 judged cells: A/E 1.00 [0.96, 1.05] "
                             "(at 95.0 %), so not true of every cell; 4 oppose")
    # An average on the claimed side refutes no more than a cell that agrees: three cells 5 %
    # faster (significant), one unclear, average [1.01, 1.09].
    small = (1.05, 1.02, 1.08, True)
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: small, 15: small, 17: small, 18: UNCLEAR}))
    assert v.verdict == INCONCLUSIVE


def test_pooled_runs_widen_the_average_by_what_a_run_shares_among_its_cells():
    # One run: the cells share only a round's machine state (1 + 3 x 0.07 for 4 cells). Pooled over
    # runs, an effect common to a run's cells correlates them further: here a fifth of each cell's
    # variance, so 1 + 3 x 0.27, and the average's interval widens by the root of the ratio.
    assert math.isclose(design_effect(4), 1.21) and math.isclose(design_effect(4, run_correlation=0.2), 1.81)
    barely = cells(EXPRESS_LOWER, {c: (1.0, 0.92, 1.087, False) for c in (14, 15, 17, 18)})
    one, pooled = average_of(EXPRESS_LOWER, barely), average_of(EXPRESS_LOWER, barely, run_correlation=0.2)
    widened = math.log(pooled.high / pooled.low) / math.log(one.high / one.low)
    assert math.isclose(widened, math.sqrt(1.81 / 1.21))


def test_a_claim_of_two_metrics_spends_all_of_alpha_on_its_cells():
    # Its cells share rounds (two metrics of one case), so their average has no variance to read.
    one = crafted(more_than(2.0, "more than double"))
    two = dataclasses.replace(one, metrics=("mean_ms", "max_ms"))
    assert simultaneous_confidence(one, 4) == 1 - 0.05 / 4 and simultaneous_confidence(two, 4) == 1 - 0.10 / 4


def test_an_inconclusive_claim_names_the_cells_that_did_not_agree():
    under = (1.0, 0.92, 1.087, False)  # under the 10 % at its own level, not at the simultaneous one
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: UNCLEAR, 17: under, 18: SLOWER}))
    assert v.explanation == ("2 agree, 1 oppose, 1 not significant; opposite or under 10 % (at its own level, not "
                             "the simultaneous one): case 17 (A/E 1.00 [0.92, 1.09]); not significant: case 15 "
                             "(A/E 1.05 [0.90, 1.20])")


def test_direction_follows_the_significance_flag_not_the_interval():
    # a flag from a test that disagrees with the interval: the flag decides a direction claim
    assert cell_outcome(EXPRESS_LOWER, 1.2, 0.9, 1.5, True, True) == AGREE
    assert cell_outcome(EXPRESS_LOWER, 1.2, 1.1, 1.3, True, False) == "not significant"


def test_one_iteration_cannot_be_judged_and_says_why():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {c: ONE_ITERATION for c in (14, 15, 17, 18)}))
    assert v.verdict == INCONCLUSIVE and v.counts[UNJUDGED] == 4
    assert v.explanation == "judged on 0 of 4 cells; not judged: cases 14-15, 17-18 (n=1 iteration)"


def test_a_claim_is_reproduced_only_on_its_whole_scope():
    # Every cell there agrees: reproduced. Two cells the run lacks, and the same two agreeing cells
    # leave it open: the missing ones might have opposed it.
    assert judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {c: SLOWER for c in (14, 15, 17, 18)})).verdict == REPRODUCED
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER}))
    assert v.verdict == INCONCLUSIVE
    assert v.missing == (("graphql", 17, TIME), ("graphql", 18, TIME))
    assert v.explanation == ("judged on 2 of 4 cells; not judged: cases 17-18 (not in this run); "
                             "of the judged cells: 2 agree")


def test_one_refuting_cell_decides_an_all_claim_whatever_the_cells_not_judged():
    # FASTER is wholly below 1 at the Bonferroni level of the claim's 4 cells ([0.42, 0.85]),
    # whichever of them were judged, and so is the two judged cells' average: the cells the run
    # lacks cannot undo either.
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: FASTER, 15: SLOWER, 17: ONE_ITERATION}))
    assert v.verdict == NOT_REPRODUCED
    assert v.explanation == (
        "judged on 2 of 4 cells; not judged: case 18 (not in this run); case 17 (n=1 iteration); decided on the "
        "judged cells: no outcome of the others could change it; of the judged cells: opposite or under 10 % at "
        "the simultaneous level (each cell's interval at 98.8 %, Bonferroni over 4 cells) in case 14 (A/E 0.60 "
        "[0.42, 0.85]); opposite or under 10 % on average over its 2 judged cells: A/E 0.95 [0.85, 1.06] (at "
        "95.0 %), so not true of every cell; 1 agree, 1 oppose")
    # The level counts the whole scope, not the judged cells: [0.61, 1.05] at 95 % is wholly below
    # 1.1 at its own level but not at 98.75 %, and its average with SLOWER is 1.10: open.
    wide = (0.8, 0.61, 1.05, False)
    assert judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: wide, 15: SLOWER})).verdict == INCONCLUSIVE


def test_a_most_claim_is_decided_once_its_judged_cells_are_a_share_of_the_whole_scope():
    claim = crafted(more_than(2.0, "more than double"), MOST, cases=(1, 2, 3, 4, 5))
    above, below = (2.4, 2.1, 2.7, True), (1.5, 1.4, 1.6, True)
    # 3 of 5 agree: more than half of the scope, whatever cases 4 and 5 would show
    v = judge(claim, cells(claim, {1: above, 2: above, 3: above}))
    assert v.verdict == REPRODUCED and "agree in 3 of 5 cells" in v.explanation
    # 2 of 5 agree and 1 opposes: neither share is reached yet
    assert judge(claim, cells(claim, {1: above, 2: above, 3: below})).verdict == INCONCLUSIVE
    # 3 of 5 oppose: at least half of the scope
    assert judge(claim, cells(claim, {1: below, 2: below, 3: below, 4: above})).verdict == NOT_REPRODUCED


def test_a_peak_above_its_band_on_part_of_the_scope_is_decided_the_others_could_only_raise_it():
    claim = crafted(roughly(3.6, "up to 3.6x"), PEAK)
    high, peak = (6.0, 5.8, 6.2, True), (3.6, 3.45, 3.75, True)
    v = judge(claim, cells(claim, {1: high, 2: ONE_ITERATION}))
    assert v.verdict == NOT_REPRODUCED and "decided on the judged cells" in v.explanation
    # inside the band on part of the scope: a cell not judged might hold a larger ratio
    assert judge(claim, cells(claim, {1: peak, 2: ONE_ITERATION})).verdict == INCONCLUSIVE


def test_each_cell_not_judged_says_why():
    gone = {("graphql", 17): "no usable round: ASP.NET Core invalid in 2 of 2 rounds (steady_state 2x)"}
    bound = cells(EXPRESS_LOWER, {15: SLOWER}).assign(
        judged=False, bound="both", ratio_low=None, ratio_high=None, ratio_note="bound: both arms load-generator bound")
    rows = pd.concat([cells(EXPRESS_LOWER, {14: SLOWER}), bound], ignore_index=True)
    v = judge(EXPRESS_LOWER, rows, gone)
    assert v.verdict == INCONCLUSIVE and dict(v.not_judged) == {
        ("graphql", 17, TIME): gone[("graphql", 17)], ("graphql", 18, TIME): "not in this run",
        ("graphql", 15, TIME): "bound: both arms load-generator bound"}
    assert v.explanation.startswith(
        "judged on 1 of 4 cells; not judged: case 17 (no usable round: ASP.NET Core invalid in 2 of 2 rounds "
        "(steady_state 2x)); case 18 (not in this run); case 15 (bound: both arms load-generator bound)")
    table = verdict_table([v], {EXPRESS_LOWER.id: study_check.checks([EXPRESS_LOWER], load_study())[EXPRESS_LOWER.id]})
    assert table.iloc[0][["scope_cells", "judged_cells", "missing_cells"]].tolist() == [4, 1, 2]


def test_no_cells_is_inconclusive_and_names_the_framework_without_data():
    none = cells(EXPRESS_LOWER, {1: SLOWER})
    v = judge(EXPRESS_LOWER, none)
    assert v.verdict == INCONCLUSIVE and v.explanation == \
        "judged on 0 of 4 cells; not judged: cases 14-15, 17-18 (not in this run)"
    lacking = "ASP.NET Core has no ok GraphQL iteration of it"
    v = judge(EXPRESS_LOWER, none.iloc[0:0], {("graphql", c): lacking for c in (14, 15, 17, 18)})
    assert v.explanation.endswith(f"cases 14-15, 17-18 ({lacking})")


def test_other_api_does_not_count():
    rows = cells(EXPRESS_LOWER, {c: SLOWER for c in (14, 15, 17, 18)}).assign(api="rest")
    assert judge(EXPRESS_LOWER, rows).verdict == INCONCLUSIVE


# equivalence: 0.8 < A/E < 1.25 with a 25 % margin (exact in floating point)

def test_equivalence_cells():
    claim = crafted(Equivalence(0.25))
    assert outcome(claim, 0.81, 1.24) == AGREE
    assert outcome(claim, 0.8, 1.0) == STRADDLES       # touches the margin: similarity not shown
    assert outcome(claim, 1.0, 1.25) == STRADDLES
    assert outcome(claim, 1.25, 1.4) == OPPOSE          # on the margin and beyond: not similar
    assert outcome(claim, 0.5, 0.8) == OPPOSE
    assert outcome(claim, 0.7, 1.4) == STRADDLES
    assert cell_outcome(claim, 1.0, None, None, False, False) == UNJUDGED


def test_equivalence_claim():
    claim = crafted(Equivalence(0.25))
    inside, outside = (1.0, 0.9, 1.1, False), (1.8, 1.6, 2.0, True)
    assert judge(claim, cells(claim, {c: inside for c in (1, 2, 3, 4)})).verdict == REPRODUCED
    assert judge(claim, cells(claim, {1: inside, 2: inside, 3: outside, 4: outside})).verdict == NOT_REPRODUCED
    across = judge(claim, cells(claim, {1: inside, 2: inside, 3: inside, 4: (0.9, 0.7, 1.16, False)}))
    assert across.verdict == INCONCLUSIVE and across.counts[STRADDLES] == 1


def test_tost_reads_the_90_percent_interval_so_a_95_percent_one_touching_the_margin_can_be_equivalent():
    claim = crafted(Equivalence(0.25), cases=(1,))
    # 95 % interval [0.8, 1.0125] around 0.9 touches 0.8; the 90 % interval, t(0.95, 2) / t(0.975, 2)
    # = 0.68 as wide on the log scale, is [0.83, 0.97], inside (0.8, 1.25): TOST says equivalent
    ratio = math.sqrt(0.8 * 1.0125)
    v = judge(claim, cells(claim, {1: (ratio, 0.8, 1.0125, False)}))
    assert v.verdict == REPRODUCED
    row = v.part.iloc[0]
    assert 0.8 < row["test_low"] and row["test_high"] < 1.0125 and row["test"] == "TOST (90 % interval)"
    assert row["test_p"] < 0.05
    # twice the spread: the 90 % interval reaches past 0.8 too, and TOST's p is above 0.05
    v = judge(claim, cells(claim, {1: (ratio, ratio / (ratio / 0.8) ** 2, ratio * (ratio / 0.8) ** 2, False)}))
    assert v.verdict == INCONCLUSIVE and v.part.iloc[0]["test_p"] > 0.05


# non-inferiority: Express.js at most 25 % above ASP.NET Core, A/E > 0.8

def test_non_inferiority_cells():
    claim = crafted(NonInferiority("express", 0.25))
    assert outcome(claim, 0.81, 3.0) == AGREE            # far better counts: "similar or better"
    assert outcome(claim, 0.8, 0.9) == STRADDLES        # touches the margin
    assert outcome(claim, 0.7, 0.8) == OPPOSE           # reaches it from below: worse by the margin
    aspnet_better = crafted(NonInferiority("aspnet", 0.25))
    assert outcome(aspnet_better, 0.1, 1.24) == AGREE and outcome(aspnet_better, 1.0, 1.25) == STRADDLES


def test_non_inferiority_claim_reads_the_interval_not_the_flag():
    claim = crafted(NonInferiority("express", 0.25))
    similar = (0.95, 0.85, 1.05, False)
    assert judge(claim, cells(claim, {c: similar for c in (1, 2, 3, 4)})).verdict == REPRODUCED
    v = judge(claim, cells(claim, {1: similar, 2: similar, 3: similar, 4: (0.7, 0.6, 0.79, True)}))
    assert v.verdict == INCONCLUSIVE and v.counts[OPPOSE] == 1 and "case 4" in v.explanation


# magnitude

def test_more_than_double_in_most_cells():
    claim = crafted(more_than(2.0, "more than double"), MOST, cases=(1, 2, 3, 4, 5))
    assert outcome(claim, 2.0, 2.5) == STRADDLES and outcome(claim, 1.5, 2.0) == OPPOSE
    above, across, below = (2.4, 2.1, 2.7, True), (2.0, 1.8, 2.2, True), (1.5, 1.4, 1.6, True)
    assert judge(claim, cells(claim, {1: above, 2: above, 3: above, 4: below, 5: below})).verdict == REPRODUCED
    assert judge(claim, cells(claim, {1: above, 2: above, 3: across, 4: across, 5: below})).verdict == INCONCLUSIVE
    assert judge(claim, cells(claim, {1: above, 2: above, 3: below, 4: below, 5: below})).verdict == NOT_REPRODUCED


def test_roughly_is_a_band_of_the_margin_either_side():
    claim = crafted(roughly(2.8, "roughly 2.8x"))
    low, high = claim.test.band()
    assert math.isclose(low, 2.8 / 1.1) and math.isclose(high, 2.8 * 1.1)
    assert outcome(claim, 2.6, 3.0) == AGREE and outcome(claim, low, 3.0) == STRADDLES
    assert outcome(claim, high, 3.5) == OPPOSE


def test_peak_is_judged_on_the_largest_ratio():
    claim = crafted(roughly(3.6, "up to 3.6x"), PEAK)
    low, _ = claim.test.band()
    small, peak = (2.2, 2.0, 2.5, True), (3.6, 3.45, 3.75, True)
    v = judge(claim, cells(claim, {1: small, 2: small, 3: small, 4: peak}))
    assert v.verdict == REPRODUCED and "largest A/E 3.60 (case 4)" in v.explanation
    # another cell's upper end raises the largest ratio's: it may lie above the band
    wide = (3.5, 3.3, 4.2, True)
    v = judge(claim, cells(claim, {1: small, 2: small, 3: wide, 4: peak}))
    assert v.verdict == INCONCLUSIVE and "across a bound" in v.explanation
    assert judge(claim, cells(claim, {c: small for c in (1, 2, 3, 4)})).verdict == NOT_REPRODUCED
    v = judge(claim, cells(claim, {1: peak, 2: ONE_ITERATION, 3: small, 4: small}))
    assert v.verdict == INCONCLUSIVE and "not judged: case 2 (n=1 iteration)" in v.explanation


def test_the_peak_reads_simultaneous_intervals_that_widen_with_the_cells():
    """Bonferroni: with k cells each interval is at 1 - 0.10 / k, so that the largest true ratio
    lies in [largest lower end, largest upper end] with each end wrong at most 5 %."""
    claim = crafted(roughly(3.6, "up to 3.6x"), PEAK)
    peak = (3.6, 3.3, 3.93, True)
    alone = judge(crafted(roughly(3.6, "up to 3.6x"), PEAK, cases=(4,)), cells(claim, {4: peak}))
    one = alone.part.iloc[0]
    se = log_se(3.3, 3.93)
    t = scipy_stats.t.ppf(0.95, DF)          # one cell: the TOST interval
    assert math.isclose(one["test_low"], 3.6 * math.exp(-t * se))
    assert alone.verdict == REPRODUCED
    among = judge(claim, cells(claim, {1: (1.0, 0.9, 1.1, False), 2: (1.0, 0.9, 1.1, False),
                                       3: (1.0, 0.9, 1.1, False), 4: peak}))
    t4 = scipy_stats.t.ppf(1 - 0.05 / 4, DF)  # four cells: each at 97.5 %
    top = among.part.set_index("case").loc[4]
    assert math.isclose(top["test_low"], 3.6 * math.exp(-t4 * se))
    assert among.verdict == INCONCLUSIVE      # the same peak among four cells no longer decides


# interactions

def test_an_interaction_compares_the_ratio_of_two_cells():
    claim = Claim("rises", "rises more with rows", (Source((1, 1), "Abstract", "x"),), ("rest",), (1, 3),
                  "3 against 1", ("mean_ms",), Interaction(((("rest", 3), ("rest", 1)),), "rises more"))
    grows = cells(claim, {1: (0.8, 0.75, 0.85, True), 3: (1.5, 1.4, 1.6, True)}).assign(api="rest")
    v = judge(claim, grows)
    row = v.part.iloc[0]
    assert v.verdict == REPRODUCED and math.isclose(row["ratio"], 1.5 / 0.8) and row["versus"] == "case 1"
    # the combined standard error of two independent log ratios
    assert math.isclose(row["log_se"], math.hypot(log_se(0.75, 0.85), log_se(1.4, 1.6)))
    flat = cells(claim, {1: (1.0, 0.7, 1.4, False), 3: (1.05, 0.75, 1.45, False)}).assign(api="rest")
    v = judge(claim, flat)
    assert v.verdict == INCONCLUSIVE and v.counts["not significant"] == 1
    assert "case 3 against case 1" in v.explanation


def test_an_interaction_of_one_familys_cells_counts_their_shared_prior_once():
    # Two cells whose spreads are both the family's pooled one (18 cells of 2 df: 36 df each):
    # their combined variance is that one estimate, on 36 df, not Welch-Satterthwaite's 72.
    claim = Claim("rises", "rises more with rows", (Source((1, 1), "Abstract", "x"),), ("rest",), (1, 3),
                  "3 against 1", ("mean_ms",), Interaction(((("rest", 3), ("rest", 1)),), "rises more"))
    pooled = cells(claim, {1: (0.8, 0.75, 0.85, True), 3: (1.5, 1.4, 1.6, True)}).assign(
        api="rest", log_se=0.03, df=36.0)
    assert judge(claim, pooled).part.iloc[0]["df"] == 36
    # Cells of two APIs are two families with priors of their own: Welch-Satterthwaite's df stands.
    across = Claim("amplifies", "GraphQL amplifies", (Source((1, 1), "Abstract", "x"),), ("graphql",), (1,),
                   "GraphQL against REST", ("mean_ms",), Interaction(((("graphql", 1), ("rest", 1)),), "amplifies"))
    apart = pd.concat([pooled[pooled["case"] == 1].assign(api="graphql"), pooled[pooled["case"] == 1]])
    assert judge(across, apart).part.iloc[0]["df"] == 72


def test_an_interaction_with_a_cell_of_no_usable_pair_says_why_instead_of_failing():
    # The default run of 2026-11-26 met it: a cell with pairs == 0 and no interval, read by the
    # interaction from cells indexed by (api, case, metric).
    claim = Claim("rises", "rises more with rows", (Source((1, 1), "Abstract", "x"),), ("rest",), (1, 3),
                  "3 against 1", ("mean_ms",), Interaction(((("rest", 3), ("rest", 1)),), "rises more"))
    lone = cells(claim, {1: (0.8, 0.75, 0.85, True), 3: ONE_ITERATION}).assign(api="rest", pairs=[3, 0])
    v = judge(claim, lone)
    assert v.verdict == INCONCLUSIVE and "the first cell: n=1 iteration" in v.part.iloc[0]["ratio_note"]


def test_where_express_peaks_is_judged_on_that_cell_alone():
    claim = crafted(roughly(3.3, "3.3x"), AT_EXPRESS_PEAK, cases=(1, 2))
    rows = cells(claim, {1: (2.0, 1.9, 2.1, True), 2: (3.3, 3.2, 3.4, True)})
    v = judge(claim, rows.assign(express_mean=[100.0, 200.0]))
    assert v.verdict == REPRODUCED and v.explanation.startswith("Express.js peaks in case 2: A/E 3.30")
    v = judge(claim, rows.assign(express_mean=[300.0, 200.0]))
    assert v.verdict == NOT_REPRODUCED


# what this machine cannot judge

def test_a_claim_needing_more_cores_cannot_be_judged_here_and_says_what_it_needs():
    claim = next(c for c in CLAIMS if c.id == "graphql-cpu-more-than-double")
    above = cells(claim, {c: (2.4, 2.2, 2.6, True) for c in claim.cases})
    on_two = judge(claim, above, cores=2)
    assert on_two.verdict == CANNOT_JUDGE_HERE and on_two.cores == 2
    assert on_two.explanation == ("cannot be judged here: needs a machine with 4 cores, as the study's "
                                  "(this run's has 2)")
    assert judge(claim, above, cores=4).verdict == REPRODUCED


def test_a_claim_no_run_here_can_test_is_never_not_reproduced():
    claim = next(c for c in CLAIMS if c.id == "graphql-memory-grows-across-iterations")
    v = judge(claim, cells(claim, {c: (3.0, 2.9, 3.1, True) for c in claim.cases}), cores=16)
    assert v.verdict == CANNOT_JUDGE_HERE and "one ASP.NET Core process kept running" in v.explanation


def test_every_verdict_records_the_cores_and_names_its_alternative_reading():
    primary = next(c for c in CLAIMS if c.id == "rest-lower-load-aspnet-faster")
    other = next(c for c in CLAIMS if c.alternative_of == primary.id)
    rows = pd.concat([cells(primary, {c: FASTER for c in primary.cases}).assign(api="rest"),
                      cells(other, {c: SLOWER for c in (2, 3, 5, 6)}).assign(api="rest")])
    rows = rows.drop_duplicates(["api", "case", "metric"])
    results = verdicts([primary, other], rows, cores=2)
    checks = study_check.checks([primary, other], load_study())
    table = verdict_table(results, checks).set_index("claim")
    assert list(table["cores"]) == [2, 2]
    assert table.loc[other.id, "alternative_of"] == primary.id
    assert table.loc[primary.id, "verdict"] == REPRODUCED and table.loc[other.id, "verdict"] == NOT_REPRODUCED
    assert table.loc[primary.id, "study_own_data"] == "supported"
    assert table.loc[other.id, "study_own_data"] == "not supported"


# false discoveries

def test_a_most_claim_reads_significance_after_the_adjustment_and_an_all_claim_before_it():
    """Four cells each significant at p < 0.05, among sixteen others of the family at p = 0.5:
    Benjamini-Hochberg over the twenty lifts their q above 0.05, and a claim about most of them is
    no longer shown; four strong cells (p = 0.001) keep it. A claim about every one of them is an
    intersection-union test, which needs no adjustment: each cell at its own p decides it."""
    most_lower = dataclasses.replace(EXPRESS_LOWER, share=MOST)

    def family(p_claim):
        claim_rows = cells(EXPRESS_LOWER, {c: SLOWER for c in (14, 15, 17, 18)}).assign(p=p_claim)
        # The claim's mean by Little's law restates its throughput cell, which the family counts.
        throughput = claim_rows.assign(metric="throughput_rps")
        others = pd.concat([cells(EXPRESS_LOWER, {c: UNCLEAR for c in (1, 2, 3, 4)}).assign(metric=m, p=0.5)
                            for m in ("p95_ms", "p99_ms", "cpu_mean_pct", "rss_peak_mb")])
        return with_q_of(adjust_family(pd.concat([claim_rows, throughput, others], ignore_index=True), Q_FAMILY),
                         "throughput_rps")
    weak = judge(most_lower, family([0.01, 0.02, 0.03, 0.04]))
    assert weak.verdict == INCONCLUSIVE and weak.counts["not significant"] == 4
    assert all(math.isclose(q, 0.2) for q in weak.part["q"])  # each p · 20 / its rank: 0.01 · 20 / 1, …
    strong = judge(most_lower, family([0.001] * 4))
    assert strong.verdict == REPRODUCED and math.isclose(strong.part["q"].max(), 0.005)
    every = judge(EXPRESS_LOWER, family([0.01, 0.02, 0.03, 0.04]))
    assert every.verdict == REPRODUCED and every.counts[AGREE] == 4
    assert judge(EXPRESS_LOWER, family([0.01, 0.02, 0.03, 0.06])).verdict == INCONCLUSIVE


def test_a_mean_by_little_s_law_is_a_bound_where_its_throughput_is():
    """Run 225723's REST case 1: ASP.NET Core's round 1 bound by the load generator, so the
    throughput's ratio is a lower bound (at least 1.415) from all three rounds; the mean by
    Little's law, which leaves that round out, had an interval from the other two, 0.73 [0.54,
    0.97], and no q. It restates the throughput, so it reads as that bound: at most 1 / 1.415."""
    claim = next(c for c in CLAIMS if c.id == "rest-one-row-aspnet-faster")
    bound = "bound: ASP.NET Core load-generator bound"
    throughput = {"api": "rest", "case": 1, "metric": "throughput_rps", "ratio": 1.4150, "ratio_low": None,
                  "ratio_high": None, "log_se": None, "df": None, "p": None, "judged": False, "significant": False,
                  "ratio_note": bound, "result": "not judged: ASP.NET Core load-generator bound", "bound": ">="}
    little = {"api": "rest", "case": 1, "metric": TIME, "ratio": 0.7274, "ratio_low": 0.5433, "ratio_high": 0.9740,
              "log_se": 0.1436, "df": 34.0, "p": 0.0335, "judged": True, "significant": True,
              "ratio_note": "ASP.NET Core left out in 1 round (bound)", "result": "ASP.NET Core lower (p=0.0335)",
              "bound": ""}
    cells = with_q_of(adjust_family(pd.DataFrame([throughput, little]), Q_FAMILY), "throughput_rps")
    mean = cells[cells["metric"] == TIME].iloc[0]
    assert not mean["judged"] and mean["bound"] == "<=" and math.isclose(mean["ratio"], 1 / 1.415)
    assert mean["ratio_note"] == bound and pd.isna(mean["ratio_low"])
    v = judge(claim, cells[cells["metric"] == TIME])
    assert v.counts["cannot be judged"] == 1 and "case 1 (bound: ASP.NET Core load-generator bound)" in v.explanation
