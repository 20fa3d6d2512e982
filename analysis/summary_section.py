"""The report's opening: what was measured and in what order the report tells it, in one
paragraph, and how many iterations the appendix lists as flagged, excluded or failed."""
import pandas as pd

from analysis import machine, trust
from analysis.load import Run
from analysis.names import listing, typed_name, versus_names
from analysis.render import Doc


def rounds_text(run: Run, agg: pd.DataFrame, who: str = "frameworks") -> str:
    rounds = run.manifest.protocol.rounds
    if run.manifest.paired:
        return (f"in {agg['n'].max() if rounds is None else rounds} interleaved rounds (in each round, for each "
                f"API and case, the {who} ran back to back in a seeded random order)")
    n = agg["n"].max()
    return f"in {n} iteration{'s' if n != 1 else ''} per {who[:-1]}"


def section(doc: Doc, run: Run, agg: pd.DataFrame, status: pd.DataFrame,
            comparisons: list | None = None, against: list | None = None) -> None:
    """What was measured, in one paragraph, and how many iterations the appendix lists."""
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
             + ("First whether the run can be trusted: which measurements passed their checks. Then "
                if run.checked else "First ")
             + "the answer: every framework's figures per case, ranked"
             + (f", and {run.display_name(against[0].numerator)} (the reference) against "
                f"{listing([run.display_name(v.denominator) for v in against])} per case; " if against else "; ")
             + (f"then variant against variant ({'; '.join(versus_names(run, v) for v in comparisons)}); "
                if comparisons else "")
             + "then the run's details, the verdicts on the study's claims, the study's tables and figures "
             "recomputed, and an appendix of the iterations that were flagged, excluded or failed. "
             + machine.load_sentence(run))
    if not run.checked:
        doc.para(trust.predates(run))
    flagged, excluded, failed = (int(status[c].sum()) for c in ("flagged", "excluded", "failed"))
    doc.para(f"{flagged} iteration{'s' if flagged != 1 else ''} flagged, {excluded} excluded, {failed} "
             "failed: see the appendix." if flagged + excluded + failed else
             "No iteration was flagged, excluded or failed.")
