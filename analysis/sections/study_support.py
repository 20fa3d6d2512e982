"""The report's "Do the study's own tables support its claims?": each claim tested on the study's
published Tables 1-10 (analysis/study_check.py), and which framework the study found faster per
users x rows, so a reader can tell "did not reproduce" from "was never supported"."""
import pandas as pd

from analysis import study_check
from analysis.render import Doc
from analysis.sections.verdicts import tested_as


def section(doc: Doc, checks, study: pd.DataFrame) -> None:
    doc.heading(2, "Do the study's own tables support its claims?")
    doc.para("Computed from the study's published Tables 1-10 (study-2021-tables.csv), by the same "
             "test as our verdicts, each cell's ratio being one published number: supported when the "
             "claim's share of cells agrees. The study gave no intervals, so this is what its numbers "
             "show, not whether its differences were significant. Values whose transcription from the "
             "thesis's text is uncertain are tried in every reading.")
    doc.table(pd.DataFrame([{
        "Claim": c.claim.id, "Tested as": tested_as(c.claim), "Study's own tables": c.status,
        "Published ratios A/E": c.detail, "Uncertain transcriptions": c.uncertain or "–"}
        for c in checks.values()]))
    for api, table in (("rest", 3), ("graphql", 8)):
        lower = study_check.lower_per_case(study, api, "rt_mean_ms")
        pattern = ("for each row count the same framework is lower at every concurrency: the winner "
                   "follows the rows, not the concurrency" if study_check.follows_rows(lower) else
                   "the lower framework changes with concurrency for some row count")
        doc.table(study_check.users_by_rows(lower),
                  f"{'REST' if api == 'rest' else 'GraphQL'} mean response time, the study's Table "
                  f"{table}: the framework with the lower published value, per users x rows "
                  f"(cases with and without join); {pattern}")
