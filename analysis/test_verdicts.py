"""The verdict logic on crafted cells: each claim type, each share, and the edges where an
interval touches a bound."""
import math

import pandas as pd

from analysis.claims import ALL, CLAIMS, MOST, PEAK, Claim, Equivalence, NonInferiority, Source, \
    more_than, roughly
from analysis.verdicts import AGREE, INCONCLUSIVE, NOT_REPRODUCED, OPPOSE, REPRODUCED, STRADDLES, \
    UNJUDGED, cell_outcome, judge

EXPRESS_LOWER = next(c for c in CLAIMS if c.id == "graphql-peak-load-express-faster")  # 14, 15, 17, 18


def crafted(test, share=ALL, cases=(1, 2, 3, 4)) -> Claim:
    return Claim("crafted", "a crafted claim", (Source((1, 1), "Abstract", "crafted"),), ("graphql",),
                 cases, "crafted cases", ("mean_ms",), test, share)


def cells(claim: Claim, values: dict) -> pd.DataFrame:
    """values: {case: (ratio, low, high, significant)}; low None = no interval; significant None =
    not judged."""
    return pd.DataFrame.from_records([{
        "api": claim.apis[0], "case": case, "metric": claim.metrics[0], "ratio": ratio,
        "ratio_low": low, "ratio_high": high, "judged": significant is not None,
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
    assert "case 14 (A/E 0.60 [0.50, 0.70])" in v.explanation


def test_direction_inconclusive_when_some_cells_are_not_significant():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER, 17: UNCLEAR, 18: UNCLEAR}))
    assert v.verdict == INCONCLUSIVE and v.counts["not significant"] == 2


def test_one_opposite_cell_makes_an_all_cells_claim_inconclusive():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER, 17: SLOWER, 18: FASTER}))
    assert v.verdict == INCONCLUSIVE and (v.counts[AGREE], v.counts[OPPOSE]) == (3, 1)


def test_an_inconclusive_claim_names_the_cells_that_did_not_agree():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: UNCLEAR, 17: FASTER, 18: SLOWER}))
    assert v.explanation == ("2 agree, 1 oppose, 1 not significant; opposite: case 17 (A/E 0.60 [0.50, 0.70]); "
                             "not significant: case 15 (A/E 1.05 [0.90, 1.20])")


def test_direction_follows_the_significance_flag_not_the_interval():
    # a flag from a test that disagrees with the interval: the flag decides a direction claim
    assert cell_outcome(EXPRESS_LOWER, 1.2, 0.9, 1.5, True, True) == AGREE
    assert cell_outcome(EXPRESS_LOWER, 1.2, 1.1, 1.3, True, False) == "not significant"


def test_one_iteration_cannot_be_judged_and_says_why():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {c: ONE_ITERATION for c in (14, 15, 17, 18)}))
    assert v.verdict == INCONCLUSIVE and v.counts[UNJUDGED] == 4
    assert v.explanation == "cannot be judged: n=1 iteration"


def test_missing_cases_are_listed():
    v = judge(EXPRESS_LOWER, cells(EXPRESS_LOWER, {14: SLOWER, 15: SLOWER}))
    assert v.verdict == REPRODUCED
    assert v.missing == (("graphql", 17, "mean_ms"), ("graphql", 18, "mean_ms"))
    assert "judged on 2 of 4 cells" in v.explanation and "case 17, 18" in v.explanation


def test_no_cells_is_inconclusive_and_names_the_framework_without_data():
    none = cells(EXPRESS_LOWER, {1: SLOWER})
    v = judge(EXPRESS_LOWER, none)
    assert v.verdict == INCONCLUSIVE and "none of the claim's cases" in v.explanation
    v = judge(EXPRESS_LOWER, none.iloc[0:0], {"graphql": ["ASP.NET Core"], "rest": []})
    assert v.explanation == "ASP.NET Core has no ok GraphQL iteration in this run"


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
    inside, outside = (1.0, 0.9, 1.1, False), (1.5, 1.3, 1.7, True)
    assert judge(claim, cells(claim, {c: inside for c in (1, 2, 3, 4)})).verdict == REPRODUCED
    assert judge(claim, cells(claim, {1: inside, 2: inside, 3: outside, 4: outside})).verdict == NOT_REPRODUCED
    touching = judge(claim, cells(claim, {1: inside, 2: inside, 3: inside, 4: (0.9, 0.8, 1.0, False)}))
    assert touching.verdict == INCONCLUSIVE and touching.counts[STRADDLES] == 1


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
    small, peak = (2.2, 2.0, 2.5, True), (3.6, 3.4, 3.8, True)
    v = judge(claim, cells(claim, {1: small, 2: small, 3: small, 4: peak}))
    assert v.verdict == REPRODUCED and "largest A/E 3.60 (case 4)" in v.explanation
    # another cell's upper end raises the largest ratio's: it may lie above the band
    wide = (3.5, 3.3, 4.2, True)
    v = judge(claim, cells(claim, {1: small, 2: small, 3: wide, 4: peak}))
    assert v.verdict == INCONCLUSIVE and "[3.40, 4.20]" in v.explanation
    assert judge(claim, cells(claim, {c: small for c in (1, 2, 3, 4)})).verdict == NOT_REPRODUCED
    touching = (3.5, low, 3.7, True)
    assert judge(claim, cells(claim, {1: small, 2: touching})).verdict == INCONCLUSIVE
    v = judge(claim, cells(claim, {1: peak, 2: ONE_ITERATION}))
    assert v.verdict == INCONCLUSIVE and "1 of 2 cells have none (n=1 iteration)" in v.explanation
