"""Whether the study's own Tables 1-10 support each of its claims (analysis.claims).

Each claim is checked on the published values with the bands our verdicts use (analysis.verdicts),
each cell's ratio A/E being one number: supported when the claim's share holds (every cell inside
the band for "all", more than half for "most", the largest ratio for "peak"), not supported
otherwise. The study published no intervals, so this says what its numbers show, not whether the
differences were significant. It lets a reader tell "did not reproduce" from "was never supported".

Values whose transcription is uncertain (analysis.study.READINGS) are checked under every reading;
a claim that rests on one says so, and says whether the reading changes the result.
"""
import itertools
from dataclasses import dataclass

import pandas as pd

from analysis.claims import ALL, NAMES, PEAK, Claim
from analysis.metrics import PAIR
from analysis.study import READINGS, STUDY_METRIC_OF, STUDY_METRICS
from analysis.verdicts import AGREE, API_NAMES, band_outcome, cell_name, metric_words

SUPPORTED, NOT_SUPPORTED, DEPENDS = "supported", "not supported", "depends on the transcription"
LISTED = 8  # cells against a claim named in its detail; the rest are counted


@dataclass(frozen=True)
class StudyCheck:
    claim: Claim
    status: str
    detail: str       # the ratios in scope and the cells against (or the largest ratio)
    uncertain: str    # the uncertain values the claim rests on, and whether they matter


def published(study: pd.DataFrame) -> dict:
    """(api, case, framework, study metric) -> value, as the CSV has it."""
    return {(r.api, r.case, r.framework, r.metric): r.value for r in study.itertuples()}


def cells_of(claim: Claim) -> list[tuple]:
    """Per cell: api, case, our metric, and the keys of its two published values (aspnet, express)."""
    return [(api, case, metric, tuple((api, case, framework, STUDY_METRIC_OF[metric]) for framework in PAIR))
            for api in claim.apis for case in claim.cases for metric in claim.metrics]


def assess(claim: Claim, values: dict) -> tuple[bool, str]:
    """Does the claim hold on these values? And the ratios that say so."""
    cells = [(api, case, metric, values[a] / values[e]) for api, case, metric, (a, e) in cells_of(claim)]
    band = claim.test.band()
    ratios = [r for *_, r in cells]
    span = f"A/E {min(ratios):.2f}" + (f" to {max(ratios):.2f}" if len(ratios) > 1 else "")
    if claim.share == PEAK:
        api, case, metric, top = max(cells, key=lambda c: c[3])
        holds = band_outcome(band, top, top) == AGREE
        return holds, f"{span}; largest {top:.2f} ({cell_name(claim, api, case, metric)})"
    against = [(api, case, metric, r) for api, case, metric, r in cells
               if band_outcome(band, r, r) != AGREE]
    agree = len(cells) - len(against)
    holds = agree == len(cells) if claim.share == ALL else agree > len(cells) / 2
    text = f"{span}; {agree} of {len(cells)} cells agree"
    if against:
        named = [f"{cell_name(claim, api, case, metric)} ({r:.2f})" for api, case, metric, r in against]
        text += "; against: " + ", ".join(named[:LISTED]) + \
            (f" and {len(named) - LISTED} more" if len(named) > LISTED else "")
    return holds, text


def value_name(key: tuple) -> str:
    api, case, framework, metric = key
    return f"{API_NAMES[api]} case {case} {NAMES[framework]} {metric_words(STUDY_METRICS[metric][0])}"


def check(claim: Claim, study: pd.DataFrame) -> StudyCheck:
    values = published(study)
    uncertain = sorted({key for *_, pair in cells_of(claim) for key in pair if key in READINGS})
    varying = [key for key in uncertain if len(READINGS[key]) > 1]
    outcomes = {choice: assess(claim, {**values, **dict(zip(varying, choice))})[0]
                for choice in itertools.product(*(READINGS[key] for key in varying))}
    holds, detail = assess(claim, values)
    if len(set(outcomes.values())) > 1:
        status = DEPENDS
        detail += "; holds when " + " or when ".join(
            ", ".join(f"{value_name(key)} = {v:.1f}" for key, v in zip(varying, choice))
            for choice, ok in outcomes.items() if ok)
    else:
        status = SUPPORTED if holds else NOT_SUPPORTED
    note = ""
    if uncertain:
        note = "rests on uncertain value(s): " + "; ".join(
            f"{value_name(key)} {' or '.join(f'{v:.1f}' for v in READINGS[key])}" for key in uncertain) + \
            ("; the reading changes the result" if status == DEPENDS else "; no reading changes the result")
    return StudyCheck(claim, status, detail, note)


def checks(claims: list[Claim], study: pd.DataFrame) -> dict[str, StudyCheck]:
    return {claim.id: check(claim, study) for claim in claims}


def lower_per_case(study: pd.DataFrame, api: str, metric: str) -> pd.DataFrame:
    """Per case: users, rows, and which framework has the lower published value."""
    part = study[(study["api"] == api) & (study["metric"] == metric)]
    wide = part.pivot_table(index=["case", "requests", "rows"], columns="framework",
                            values="value").reset_index()
    a, e = PAIR
    wide["lower"] = [NAMES[a] if va < ve else NAMES[e] if ve < va else "neither"
                     for va, ve in zip(wide[a], wide[e])]
    return wide.rename(columns={"requests": "users"})[["case", "users", "rows", "lower"]]


def follows_rows(lower: pd.DataFrame) -> bool:
    """For each row count, is one framework lower at every concurrency?"""
    return bool((lower.groupby("rows")["lower"].nunique() == 1).all())


def users_by_rows(lower: pd.DataFrame) -> pd.DataFrame:
    """The lower framework as a users x rows table, with the cases (with and without join) behind it."""
    table = {"users": sorted(lower["users"].unique())}
    for rows in sorted(lower["rows"].unique()):
        table[f"{rows} row{'s' if rows > 1 else ''}"] = [
            "; ".join(f"{name} (case {', '.join(map(str, g['case']))})" for name, g in
                      lower[(lower["users"] == users) & (lower["rows"] == rows)].groupby("lower"))
            for users in table["users"]]
    return pd.DataFrame(table)
