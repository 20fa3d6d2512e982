"""Our run's verdict on each of the study's claims (analysis.claims).

Input, one row per cell (api, case, metric): `ratio` = mean(ASP.NET Core) / mean(Express.js), its
95 % interval `ratio_low`/`ratio_high` (empty when there is none, `ratio_note` says why) and a
significance flag (`judged`, `significant`). How the interval was computed is not this module's
concern: analysis.tables.significance fills the columns from the paired rounds when the run has
them (analysis.paired), otherwise from independent groups of iterations (analysis.stats).

Per cell:
- direction: agree when the difference is significant and A/E is on the claimed side of 1, oppose
  when it is significant the other way; otherwise not significant, or cannot be judged.
- equivalence, non-inferiority, magnitude: agree when the interval lies inside the claim's band,
  oppose when it lies wholly outside (a value on a bound counts as outside: "similar within 10 %"
  is not shown by an interval that reaches 10 %), straddles when it crosses a bound; cannot be
  judged without an interval.
Per claim:
- share "all": reproduced when every cell agrees; "most": when more than half of them agree;
  not reproduced when at least half oppose (NOT_REPRODUCED_SHARE; a single opposite cell among
  many can be a chance result); inconclusive otherwise, including when no cell is in the run.
- share "peak": judged on the largest ratio of the cells. Its interval runs from the largest lower
  end to the largest upper end: if every cell's interval holds its true ratio, the largest true
  ratio lies in it. Inside the band: reproduced; wholly outside: not reproduced; else inconclusive.
"""
from dataclasses import dataclass

import pandas as pd

from analysis.claims import ALL, ASPNET, PEAK, Claim, Direction
from analysis.metrics import METRICS

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
AGREE, OPPOSE, NOT_SIGNIFICANT, STRADDLES, UNJUDGED = (
    "agree", "oppose", "not significant", "straddles a bound", "cannot be judged")
OUTCOMES = (AGREE, OPPOSE, NOT_SIGNIFICANT, STRADDLES, UNJUDGED)
NOT_REPRODUCED_SHARE = 0.5
API_NAMES = {"rest": "REST", "graphql": "GraphQL"}
SHORT = {OPPOSE: "opposite", STRADDLES: "across a bound"}


def known(value) -> bool:
    return value is not None and not pd.isna(value)


def band_outcome(band: tuple[float, float], low: float, high: float) -> str:
    lower_bound, upper_bound = band
    if low > lower_bound and high < upper_bound:
        return AGREE
    if high <= lower_bound or low >= upper_bound:
        return OPPOSE
    return STRADDLES


def cell_outcome(claim: Claim, ratio, low, high, judged: bool, significant: bool) -> str:
    if isinstance(claim.test, Direction):
        if not judged:
            return UNJUDGED
        if not significant:
            return NOT_SIGNIFICANT
        claimed, other = (ratio < 1, ratio > 1) if claim.test.lower == ASPNET else (ratio > 1, ratio < 1)
        return AGREE if claimed else OPPOSE if other else UNJUDGED
    if not (known(low) and known(high)):
        return UNJUDGED
    return band_outcome(claim.test.band(), low, high)


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str
    counts: dict           # outcome -> cells
    missing: tuple         # (api, case, metric) cells the run lacks
    explanation: str

    @property
    def cells(self) -> int:
        return sum(self.counts.values())


def claim_cells(claim: Claim, cells: pd.DataFrame) -> pd.DataFrame:
    """The claim's cells present in the run, each with its outcome."""
    part = cells[cells["api"].isin(claim.apis) & cells["case"].isin(claim.cases)
                 & cells["metric"].isin(claim.metrics)].copy()
    part["outcome"] = [cell_outcome(claim, r.ratio, r.ratio_low, r.ratio_high, r.judged, r.significant)
                       for r in part.itertuples()]
    return part


def metric_words(metric: str) -> str:
    label = METRICS[metric].label
    return label[0].lower() + label[1:]


def cell_name(claim: Claim, api: str, case: int, metric: str) -> str:
    parts = [API_NAMES[api]] if len(claim.apis) > 1 else []
    parts += [metric_words(metric)] if len(claim.metrics) > 1 else []
    return " ".join(parts + [f"case {case}"])


def interval_text(low, high) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def listed(claim: Claim, part: pd.DataFrame, limit: int = 8) -> str:
    names = [f"{cell_name(claim, r.api, r.case, r.metric)} (A/E {r.ratio:.2f}"
             + (f" {interval_text(r.ratio_low, r.ratio_high)})" if known(r.ratio_low) else ")")
             for r in part.itertuples()]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def nothing_to_judge(claim: Claim, unmeasured: dict) -> str:
    lacking = [f"{' and '.join(unmeasured[api])} has no ok {API_NAMES[api]} iteration in this run"
               for api in claim.apis if unmeasured.get(api)]
    return "; ".join(lacking) if lacking else \
        "none of the claim's cases is in this run with both frameworks measured"


def judge_peak(claim: Claim, part: pd.DataFrame) -> tuple[str, str]:
    bounded = part[part["ratio_low"].map(known) & part["ratio_high"].map(known)]
    if len(bounded) < len(part):
        notes = sorted(set(part.loc[~part.index.isin(bounded.index), "ratio_note"].dropna()) - {""})
        return INCONCLUSIVE, (f"the largest ratio needs every cell's interval; {len(part) - len(bounded)} "
                              f"of {len(part)} cells have none" + (f" ({', '.join(notes)})" if notes else ""))
    low, high = bounded["ratio_low"].max(), bounded["ratio_high"].max()
    top = bounded.loc[bounded["ratio"].idxmax()]
    outcome = band_outcome(claim.test.band(), low, high)
    verdict = {AGREE: REPRODUCED, OPPOSE: NOT_REPRODUCED, STRADDLES: INCONCLUSIVE}[outcome]
    where = {AGREE: "inside", OPPOSE: "outside", STRADDLES: "across a bound of"}[outcome]
    return verdict, (f"largest A/E {top['ratio']:.2f} ({cell_name(claim, top['api'], top['case'], top['metric'])}); "
                     f"the largest ratio lies in {interval_text(low, high)}, {where} the band")


def judge_share(claim: Claim, part: pd.DataFrame, counts: dict) -> tuple[str, str]:
    total, agree, oppose = len(part), counts[AGREE], counts[OPPOSE]
    tally = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    against = part[part["outcome"] == OPPOSE]
    if oppose >= NOT_REPRODUCED_SHARE * total:
        return NOT_REPRODUCED, f"opposite in {oppose} of {total} cells: {listed(claim, against)}"
    needed = total if claim.share == ALL else total // 2 + 1
    if agree >= needed:
        return REPRODUCED, f"agree in {agree} of {total} cells" + (f" ({tally})" if agree < total else "")
    if counts[UNJUDGED] == total:
        notes = sorted(set(part["ratio_note"].dropna()) - {""})
        return INCONCLUSIVE, "cannot be judged" + (f": {', '.join(notes)}" if notes else "")
    # Mixed or not significant: name the cells that kept the claim from agreeing, so a reader can
    # see whether it missed by one cell or by all of them.
    return INCONCLUSIVE, "; ".join([tally] + [
        f"{SHORT.get(outcome, outcome)}: {listed(claim, part[part['outcome'] == outcome])}"
        for outcome in OUTCOMES if outcome != AGREE and counts[outcome]])


def judge(claim: Claim, cells: pd.DataFrame, unmeasured: dict | None = None) -> Verdict:
    part = claim_cells(claim, cells)
    present = set(zip(part["api"], part["case"], part["metric"]))
    missing = tuple((api, case, metric) for api in claim.apis for case in claim.cases
                    for metric in claim.metrics if (api, case, metric) not in present)
    counts = {outcome: int((part["outcome"] == outcome).sum()) for outcome in OUTCOMES}
    if part.empty:
        verdict, why = INCONCLUSIVE, nothing_to_judge(claim, unmeasured or {})
    elif claim.share == PEAK:
        verdict, why = judge_peak(claim, part)
    else:
        verdict, why = judge_share(claim, part, counts)
    if missing and not part.empty:
        absent = sorted({case for _, case, _ in missing})
        why += (f"; judged on {len(part)} of {len(part) + len(missing)} cells (not in this run: case "
                + ", ".join(map(str, absent)) + ")")
    return Verdict(claim, verdict, counts, missing, why)


def verdicts(claims: list[Claim], cells: pd.DataFrame, unmeasured: dict | None = None) -> list[Verdict]:
    return [judge(claim, cells, unmeasured) for claim in claims]


def cell_table(claims: list[Claim], cells: pd.DataFrame) -> pd.DataFrame:
    """Every claim's cells in the run with each one's outcome (tables/claim_cells.csv): the evidence
    behind each verdict, cell by cell."""
    columns = ["claim", "api", "case", "metric", "ratio", "ratio_low", "ratio_high", "p", "pairs",
               "ratio_note", "outcome"]
    return pd.concat([claim_cells(claim, cells).assign(claim=claim.id) for claim in claims],
                     ignore_index=True).reindex(columns=columns)


def verdict_table(results: list[Verdict], checks: dict) -> pd.DataFrame:
    """One row per claim; `checks` (claim id -> analysis.study_check.StudyCheck) adds the column
    saying whether the study's own tables support the claim."""
    return pd.DataFrame.from_records([{
        "claim": v.claim.id, "claim_tested": v.claim.summary, "study_words": v.claim.words,
        "study_lines": v.claim.cited, "apis": " ".join(v.claim.apis),
        "cases": " ".join(map(str, v.claim.cases)), "metrics": " ".join(v.claim.metrics),
        "share": v.claim.share, "test": v.claim.test.describe(), "reading": v.claim.reading,
        "study_own_data": checks[v.claim.id].status, "study_own_data_detail": checks[v.claim.id].detail,
        "verdict": v.verdict, **{outcome.replace(" ", "_"): v.counts[outcome] for outcome in OUTCOMES},
        "missing_cells": len(v.missing), "explanation": v.explanation} for v in results])
