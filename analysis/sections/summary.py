"""The report's opening, its first screen: the bottom line in a few sentences (analysis.bottom_line)
and one summary figure, then whether the run can be trusted in one line linking to its details; then
what was measured and in what order the report tells it, in one paragraph."""
from pathlib import Path

import pandas as pd

from analysis import answer, bottom_line, machine, ratio_figures
from analysis.item_counts import ItemCounts
from analysis.load import Run
from analysis.names import listing, typed_name, versus_names
from analysis.render import Doc
from analysis.sections import trust

BOTTOM_LINE = "The bottom line"


def opening(doc: Doc, run: Run, answers: pd.DataFrame, against: list, counted: ItemCounts, apis: list[str],
            figs: Path) -> None:
    """The bottom line and its figure for the comparisons `against` (bottom_line.compared) of
    `answers`: the comparisons' sentences, the figure, then the machine, the items' validity and
    what the intervals cover; then the trust section in one line."""
    doc.heading(2, BOTTOM_LINE)
    said = bottom_line.sentences(run, answers, against, counted)
    comparisons, context = said[:-3], said[-3:]
    doc.bullets(comparisons)
    drawn = pd.concat([answer.of(answers, v) for v in against] or [answers.iloc[:0]])
    drawn = drawn[drawn["ratio"].notna()]
    if against and not drawn.empty:
        path = ratio_figures.summary(run, drawn, against, [a for a in apis if a in set(drawn["api"])],
                                     figs / "summary.png")
        doc.figure(path, "Each framework against the reference, per API and case: throughput and CPU per request "
                         "as ratios with 95 % intervals; every metric, and why a case is missing, in the answer.")
    doc.para(" ".join(context))
    doc.para(trust.summary_line(run, counted))


def rounds_text(run: Run, agg: pd.DataFrame, who: str = "frameworks") -> str:
    rounds = run.manifest.protocol.rounds
    if run.manifest.paired:
        return (f"in {agg['n'].max() if rounds is None else rounds} interleaved rounds (in each round, for each "
                f"API and case, the {who} ran back to back in a seeded random order)")
    n = agg["n"].max()
    return f"in {n} iteration{'s' if n != 1 else ''} per {who[:-1]}"


def section(doc: Doc, run: Run, agg: pd.DataFrame, comparisons: list | None = None,
            against: list | None = None) -> None:
    """What was measured, and in what order the report tells it, in one paragraph."""
    comparisons, against = comparisons or [], against or []
    measured = set(agg["framework"])
    frameworks = listing([typed_name(run, f) for f in run.arms if f in measured])
    cases = sorted(set(agg["case"]))
    apis = " and ".join(a for a, key in (("REST", "rest"), ("GraphQL", "graphql")) if key in set(agg["api"]))
    doc.para(f"{frameworks} served the same forum API over one MySQL-compatible database, as {apis}: "
             f"{len(cases)} case{'s' if len(cases) != 1 else ''} (case "
             f"{', '.join(map(str, cases))} of the 2021 study's 18: concurrent users x rows per request x "
             f"join), each measured {rounds_text(run, agg, 'arms' if comparisons else 'frameworks')}, with "
             f"the app's CPU and memory sampled, on a {run.cores}-core machine (profile "
             f"{run.manifest.profile or '?'}). "
             + "After the bottom line, the answer: every framework's figures per case, ranked"
             + (f", and {run.display_name(against[0].numerator)} (the reference) against "
                f"{listing([run.display_name(v.denominator) for v in against])} per case; " if against else "; ")
             + (f"then variant against variant ({'; '.join(versus_names(run, v) for v in comparisons)}); "
                if comparisons else "")
             + ("then whether the run can be trusted, check by check; " if run.checked else "")
             + "then the run's details, the verdicts on the study's claims, the study's tables and figures "
             "recomputed, and an appendix of the iterations that were flagged, excluded or failed. "
             + machine.load_sentence(run))
