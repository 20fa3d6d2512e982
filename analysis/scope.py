"""Why a cell of a claim's scope was not judged (analysis.verdicts: a claim is reproduced or not
reproduced only on its whole scope). A cell (API x case x metric) is missing from a run's cells when
the run did not measure its case, when an arm has no ok iteration there, or when no round had both
arms usable (each arm's invalid rounds and their checks, analysis.validity.unmeasurable); it is
present but not judged when its ratio is a bound (a load-generator-bound arm), or when it has no
interval (one usable pair, the metric's own verdict leaving rounds out, one fresh process per case).
Each reason says which, so a reader can tell a run that lacked a case from one whose machine could
not measure it."""
import pandas as pd

from analysis import validity
from analysis.load import Run
from benchlib.cases import API_STYLES, STUDY_PAIR, cases

NOT_IN_RUN = "not in this run"
NO_USABLE_ROUND = "no usable round"
API_NAMES = {"rest": "REST", "graphql": "GraphQL"}


def absent(run: Run, arms: tuple[str, str] = STUDY_PAIR) -> dict[tuple[str, int], str]:
    """(api, case) -> why the two arms have no usable pair there, for every case of the study's
    matrix that has none; cases with a usable pair are not keys."""
    summary = run.summary
    ok = summary[summary["status"] == "ok"]
    unmeasurable = {(r.api, r.case): r.reason for r in validity.unmeasurable(run, arms).itertuples()}
    out = {}
    for api in API_STYLES:
        for case in cases():
            if (api, case) in unmeasurable:
                out[(api, case)] = f"{NO_USABLE_ROUND}: {unmeasurable[(api, case)]}"
                continue
            mine = ok[(ok["api"] == api) & (ok["case"] == case)]
            lacking = [run.display_name(arm) for arm in arms if mine[mine["framework"] == arm].empty]
            if summary[(summary["api"] == api) & (summary["case"] == case)].empty:
                out[(api, case)] = NOT_IN_RUN
            elif lacking:
                out[(api, case)] = f"{' and '.join(lacking)} has no ok {API_NAMES[api]} iteration of it"
    return out


def why_not(cell: pd.Series, gone: dict[tuple[str, int], str]) -> str:
    """Why a cell present in the run's cells was not judged: a bound, no usable round, or why it
    has no interval."""
    bound = cell.get("bound")
    if isinstance(bound, str) and bound:
        return cell["ratio_note"]
    # An interaction's cells come indexed by (api, case, metric), without those as fields.
    where = (cell.get("api"), cell.get("case"))
    if cell.get("pairs") == 0 and where in gone:
        return gone[where]
    note = cell.get("ratio_note")
    return note if isinstance(note, str) and note else "no interval"
