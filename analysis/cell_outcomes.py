"""Each claim's cells in the run, the test each one reads and its outcome (agree, oppose, not
significant, straddles a bound, cannot be judged): what analysis.verdicts weighs, claim by claim. The
cells are analysis.verdicts.report_cells' (its docstring says what each column holds).

Per cell, by the claim's type (the test used is named in claim_cells.csv):
- direction: the two-sided t-test, significance read off q (off p in an "all" claim, analysis.verdicts):
  agree when significant and on the claimed side of 1; oppose when significant the other way, or
  when the 95 % interval shows the claimed difference smaller than MARGIN (10 %, what the report
  calls similar), i.e. lies wholly on the far side of 1.1 (or of 1/1.1 for a claimed decrease)
  away from the claim (refutation_band); otherwise not significant, or cannot be judged. Without
  that second way a claimed difference where there is none could never be refuted: an interval
  around 1 never clears 1, however many rounds narrow it. A cell both significant the claim's way
  and under 10 % agrees: the claim names a direction, not a size.
- equivalence, non-inferiority, magnitude: two one-sided tests (TOST) at alpha 0.05, i.e. the 90 %
  interval (1 - 2 alpha) inside the claim's band: agree when inside, oppose when wholly outside (a
  value on a bound counts as outside: "similar within 10 %" is not shown by an interval that reaches
  10 %), straddles when it crosses a bound; cannot be judged without a standard error. The 95 %
  interval stays for the answer: TOST is the usual test for equivalence, and the 95 % one would
  make it a 2.5 % test on each side.
- interaction: A/E of one cell over A/E of another, its log standard error the two cells'
  combined (sqrt(se1² + se2²), Welch-Satterthwaite df, at most the larger cell's where the two are
  of one family and share its prior; the cells are measured in different slots, so independent),
  two-sided 95 % interval: agree when above 1, oppose when below 1 + 10 % (as a
  direction's), otherwise not significant. Not in the q family (there are few, and each is a claim
  of its own).
"""
import math

import numpy as np
import pandas as pd
from scipy import stats

from analysis import scope
from analysis.claim_types import ALL, ASPNET, PEAK, Claim, Direction, Interaction, Unjudgeable
from analysis.claims import MARGIN
from analysis.stats import ALPHA, CONFIDENCE, interval_of, known, tost_p

AGREE, OPPOSE, NOT_SIGNIFICANT, STRADDLES, UNJUDGED = (
    "agree", "oppose", "not significant", "straddles a bound", "cannot be judged")
OUTCOMES = (AGREE, OPPOSE, NOT_SIGNIFICANT, STRADDLES, UNJUDGED)
API_NAMES = {"rest": "REST", "graphql": "GraphQL"}
TOST_CONFIDENCE = 1 - 2 * ALPHA   # 90 %: each one-sided test at alpha
T_TEST, TOST, INTERACTION_TEST = "t-test, significance on q", "TOST (90 % interval)", "t-test on A/E over A/E"


def test_name(claim: Claim) -> str:
    if isinstance(claim.test, Direction):
        return T_TEST
    if isinstance(claim.test, Interaction):
        return INTERACTION_TEST
    if claim.share == PEAK:
        return "TOST on simultaneous (Bonferroni) intervals"
    return TOST


def band_outcome(band: tuple[float, float], low: float, high: float) -> str:
    lower_bound, upper_bound = band
    if low > lower_bound and high < upper_bound:
        return AGREE
    if high <= lower_bound or low >= upper_bound:
        return OPPOSE
    return STRADDLES


def refutation_band(test) -> tuple[float, float]:
    """The band a cell's interval must lie wholly outside of to oppose the claim. A band claim's own.
    A direction or an interaction claims a difference, which a cell opposes when its interval shows
    the difference the other way or smaller than MARGIN, the 10 % within which the report calls two
    values similar: otherwise a claim of a difference where there is none could never be decided,
    since an interval around 1 never clears 1, however many rounds narrow it."""
    low, high = test.band()
    if not isinstance(test, (Direction, Interaction)):
        return low, high
    return (1 + MARGIN, math.inf) if math.isinf(high) else (0.0, 1 / (1 + MARGIN))


def cell_outcome(claim: Claim, ratio, low, high, judged: bool, significant: bool) -> str:
    """low, high: the interval the claim's test reads (TOST's 90 % for a band, the 95 % for a
    direction or an interaction); a direction claim agrees by the significance flag (read off q)."""
    interval = known(low) and known(high)
    if isinstance(claim.test, Direction):
        if not judged:
            return UNJUDGED
        claimed, other = (ratio < 1, ratio > 1) if claim.test.lower == ASPNET else (ratio > 1, ratio < 1)
        if significant and (claimed or other):
            return AGREE if claimed else OPPOSE
    elif not interval:
        return UNJUDGED
    else:
        outcome = band_outcome(claim.test.band(), low, high)
        if outcome == AGREE or not isinstance(claim.test, Interaction):
            return outcome
    refuted = interval and band_outcome(refutation_band(claim.test), low, high) == OPPOSE
    return OPPOSE if refuted else NOT_SIGNIFICANT


def column(cells: pd.DataFrame, name: str) -> pd.Series:
    return cells[name] if name in cells else pd.Series(np.nan, index=cells.index, dtype=float)


def interaction_cells(claim: Claim, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per pair and metric: A/E of the first cell over A/E of the second, named by the
    first cell with `versus` the second."""
    by = cells.set_index(["api", "case", "metric"])
    records = []
    for (api, case), (v_api, v_case) in claim.test.pairs:
        for metric in claim.metrics:
            if (api, case, metric) not in by.index or (v_api, v_case, metric) not in by.index:
                continue
            a, b = by.loc[(api, case, metric)], by.loc[(v_api, v_case, metric)]
            records.append({"api": api, "case": case, "metric": metric, "versus": f"{API_NAMES[v_api]} case {v_case}"
                            if v_api != api else f"case {v_case}", **ratio_over(a, b)})
    columns = ["api", "case", "metric", "versus", "ratio", "ratio_low", "ratio_high", "log_se", "df", "p",
               "pairs", "ratio_note", "judged", "significant", "spread"]
    return pd.DataFrame.from_records(records, columns=columns)


def ratio_over(a: pd.Series, b: pd.Series) -> dict:
    value = a["ratio"] / b["ratio"] if a["ratio"] > 0 and b["ratio"] > 0 else math.nan
    pairs = min(x for x in (a.get("pairs"), b.get("pairs")) if known(x)) if \
        known(a.get("pairs")) and known(b.get("pairs")) else None
    if not all(known(x.get(k)) for x in (a, b) for k in ("log_se", "df")) or math.isnan(value):
        why = "; ".join(f"{'the first' if x is a else 'the second'} cell: {scope.why_not(x, {})}" for x in (a, b)
                        if not (known(x.get("log_se")) and known(x.get("df"))))
        return {"ratio": value, "ratio_low": None, "ratio_high": None, "log_se": None, "df": None, "p": None,
                "pairs": pairs, "ratio_note": why or "a ratio that is not positive", "judged": False,
                "significant": False}
    va, vb = a["log_se"] ** 2, b["log_se"] ** 2
    log_se = math.sqrt(va + vb)
    spread = math.hypot(a["spread"], b["spread"]) if known(a.get("spread")) and known(b.get("spread")) else None
    df = (va + vb) ** 2 / (va ** 2 / a["df"] + vb ** 2 / b["df"]) if va + vb > 0 else math.inf
    if (a.name[0], a.name[2]) == (b.name[0], b.name[2]):
        # One family's cells draw their spreads from one prior (benchlib.moderated), which
        # Welch-Satterthwaite would count once per cell (72 df from two cells of a pooled 36).
        df = min(df, max(a["df"], b["df"]))
    low, high = interval_of(value, log_se, df, CONFIDENCE)
    p = float(2 * stats.t.sf(abs(math.log(value)) / log_se, df)) if log_se > 0 else None
    return {"ratio": value, "ratio_low": low, "ratio_high": high, "log_se": log_se, "df": df, "p": p,
            "pairs": pairs, "ratio_note": "", "judged": p is not None, "significant": p is not None and p < ALPHA,
            "spread": spread}


def intervals_at(part: pd.DataFrame, confidence: float) -> tuple[list, list]:
    """Each cell's interval at `confidence`, drawn from its ratio, log standard error and degrees of
    freedom: (lower ends, upper ends), None where a cell has no standard error."""
    bounds = [interval_of(r, se, d, confidence)
              for r, se, d in zip(part["ratio"], column(part, "log_se"), column(part, "df"))]
    return [low for low, _ in bounds], [high for _, high in bounds]


def claim_cells(claim: Claim, cells: pd.DataFrame) -> pd.DataFrame:
    """The claim's cells present in the run, each with the interval its test reads (`test_low`,
    `test_high`), that test's p (`test_p`: the t-test's for a direction, TOST's for a band) and its
    outcome."""
    if isinstance(claim.test, Interaction):
        part = interaction_cells(claim, cells)
    else:
        part = cells[cells["api"].isin(claim.apis) & cells["case"].isin(claim.cases)
                     & cells["metric"].isin(claim.metrics)].copy()
    if isinstance(claim.test, Unjudgeable):
        part = part.iloc[0:0]
    log_se, df = column(part, "log_se"), column(part, "df")
    if isinstance(claim.test, (Direction, Interaction)):
        part["test_low"], part["test_high"] = part["ratio_low"], part["ratio_high"]
        part["test_p"] = column(part, "p")
    else:
        confidence = 1 - 2 * ALPHA / max(len(cell_keys(claim)), 1) if claim.share == PEAK else TOST_CONFIDENCE
        part["test_low"], part["test_high"] = intervals_at(part, confidence)
        part["test_p"] = [tost_p(r, se, d, claim.test.band()) for r, se, d in zip(part["ratio"], log_se, df)]
    part["test"] = test_name(claim)
    significant = own_significance(part) if claim.share == ALL else part["significant"]
    part["outcome"] = [cell_outcome(claim, r.ratio, r.test_low, r.test_high, r.judged, s)
                       for r, s in zip(part.itertuples(), significant)]
    return part


def own_significance(part: pd.DataFrame) -> pd.Series:
    """Each cell significant at alpha on its own p, before Benjamini-Hochberg; a cell without a p
    keeps its flag. An "all" claim reads these: an intersection-union test rejects only if every
    cell does at alpha, which already holds its error at alpha (Berger 1982), so adjusting the
    cells for multiplicity would only cost power."""
    p = column(part, "p")
    return part["significant"].astype(bool).where(p.isna(), part["judged"].astype(bool) & (p < ALPHA))


def cell_keys(claim: Claim) -> list[tuple]:
    if isinstance(claim.test, Interaction):
        return [(api, case, metric) for (api, case), _ in claim.test.pairs for metric in claim.metrics]
    return [(api, case, metric) for api in claim.apis for case in claim.cases for metric in claim.metrics]
