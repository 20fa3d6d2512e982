"""Whether the study's own Tables 1-10 support each of its claims (analysis.claims).

Each claim is checked on the published values with the bands our verdicts use (analysis.verdicts),
each cell's ratio A/E being one number: supported when the claim's share holds (every cell inside
the band for "all", more than half for "most", the largest ratio for "peak"), not supported
otherwise. The study published no intervals, so this says what its numbers show, not whether the
differences were significant. It lets a reader tell "did not reproduce" from "was never supported".

Our readings of the metrics map onto the study's published ones: CPU claims (judged here on the
mean) are checked on its peak CPU, the only CPU it published; minimum and maximum (judged here on
equal sample counts) on its minimum and maximum. An interaction is checked on the published A/E of
its two cells, a claim "where Express.js peaks" on the case with Express.js's largest published
value. A claim this testbed cannot judge is checked on the study's tables all the same when it is
a ratio claim; one that is not a ratio (Unjudgeable) is "not checked".

Values whose transcription is uncertain (analysis.study.READINGS) are checked under every reading;
a claim that rests on one says so, and says whether the reading changes the result.
"""
import itertools
from dataclasses import dataclass

import pandas as pd

from analysis.claim_types import ALL, AT_EXPRESS_PEAK, NAMES, PEAK, Claim, Interaction, Unjudgeable
from analysis.claims import CPU, MAX, MIN, TIME
from analysis.study import READINGS, STUDY_METRIC_OF, STUDY_METRICS
from analysis.cell_outcomes import AGREE, API_NAMES, band_outcome
from analysis.verdicts import cell_name, metric_words
from benchlib.cases import STUDY_PAIR

SUPPORTED, NOT_SUPPORTED, DEPENDS = "supported", "not supported", "depends on the transcription"
NOT_CHECKED = "not checked"
# Our metric -> the study's published one it is checked against.
STUDY_METRIC = {**STUDY_METRIC_OF, TIME: "rt_mean_ms", CPU: "cpu_peak_pct", MIN: "rt_min_ms", MAX: "rt_max_ms"}
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


def keys(api: str, case: int, metric: str) -> tuple:
    return tuple((api, case, framework, STUDY_METRIC[metric]) for framework in STUDY_PAIR)


def cells_of(claim: Claim) -> list[tuple]:
    """Per cell: api, case, our metric, and the keys of the published values its ratio is made of:
    (aspnet, express), and for an interaction the second cell's (aspnet, express) after them."""
    if isinstance(claim.test, Interaction):
        return [(api, case, metric, keys(api, case, metric) + keys(v_api, v_case, metric))
                for (api, case), (v_api, v_case) in claim.test.pairs for metric in claim.metrics]
    return [(api, case, metric, keys(api, case, metric))
            for api in claim.apis for case in claim.cases for metric in claim.metrics]


def named(claim: Claim, api: str, case: int, metric: str) -> str:
    """A cell named by the study's own metric (its maximum, not our equal-count one)."""
    return cell_name(claim, api, case, STUDY_METRICS[STUDY_METRIC[metric]][0])


def ratio(values: dict, pair: tuple) -> float:
    a_over_e = values[pair[0]] / values[pair[1]]
    return a_over_e / (values[pair[2]] / values[pair[3]]) if len(pair) == 4 else a_over_e


def assess(claim: Claim, values: dict) -> tuple[bool, str]:
    """Does the claim hold on these values? And the ratios that say so."""
    cells = [(api, case, metric, ratio(values, pair)) for api, case, metric, pair in cells_of(claim)]
    band = claim.test.band()
    ratios = [r for *_, r in cells]
    what = "(A/E) / (A/E)" if isinstance(claim.test, Interaction) else "A/E"
    span = f"{what} {min(ratios):.2f}" + (f" to {max(ratios):.2f}" if len(ratios) > 1 else "")
    if claim.share == AT_EXPRESS_PEAK:
        (api, case, metric, r), _ = max(zip(cells, cells_of(claim)), key=lambda c: values[c[1][3][1]])
        holds = band_outcome(band, r, r) == AGREE
        return holds, f"Express.js peaks in {named(claim, api, case, metric)}: A/E {r:.2f}"
    if claim.share == PEAK:
        api, case, metric, top = max(cells, key=lambda c: c[3])
        holds = band_outcome(band, top, top) == AGREE
        return holds, f"{span}; largest {top:.2f} ({named(claim, api, case, metric)})"
    against = [(api, case, metric, r) for api, case, metric, r in cells
               if band_outcome(band, r, r) != AGREE]
    agree = len(cells) - len(against)
    holds = agree == len(cells) if claim.share == ALL else agree > len(cells) / 2
    text = f"{span}; {agree} of {len(cells)} cells agree"
    if against:
        listed = [f"{named(claim, api, case, metric)} ({r:.2f})" for api, case, metric, r in against]
        text += "; against: " + ", ".join(listed[:LISTED]) + \
            (f" and {len(listed) - LISTED} more" if len(listed) > LISTED else "")
    return holds, text


def value_name(key: tuple) -> str:
    api, case, framework, metric = key
    return f"{API_NAMES[api]} case {case} {NAMES[framework]} {metric_words(STUDY_METRICS[metric][0])}"


def check(claim: Claim, study: pd.DataFrame) -> StudyCheck:
    if isinstance(claim.test, Unjudgeable):
        return StudyCheck(claim, NOT_CHECKED, "not a ratio of the two frameworks", "")
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
    a, e = STUDY_PAIR
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
