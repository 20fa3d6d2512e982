"""The report's "Latency distributions and resources over time": per API the response-time
percentiles and the CPU and memory over time of one case (--timeline-case, by default the heaviest),
and every case's percentiles. They read the JTLs and sampler files, so the report draws them before
any section: a broken file then fails the report fast."""
from pathlib import Path

from analysis import figures, tables
from analysis.load import ResultFileError, Run
from analysis.metrics import case_label
from analysis.render import Doc


def heaviest_case(run: Run) -> int:
    cases = tables.ok_rows(run)[tables.CASE_COLUMNS].drop_duplicates()
    if cases.empty:
        raise ResultFileError(run.dir / "summary.csv", "has no iteration with status ok")
    return int(cases.sort_values(["requests", "rows", "joins"]).iloc[-1]["case"])


def draw(run, agg, apis, timeline_case, figs) -> list[tuple[Path, str]]:
    """The section's figures, each with its caption."""
    case = heaviest_case(run) if timeline_case is None else timeline_case
    ok = tables.ok_rows(run)
    rows = ok[ok["case"] == case]
    if rows.empty:
        raise ResultFileError(run.dir / "summary.csv", f"has no ok iteration of case {case} "
                                                       "(--timeline-case)")
    label = case_label(case, *rows.iloc[0][["requests", "rows", "joins"]].astype(int))
    made = []
    for api in apis:
        if rows[rows["api"] == api].empty:
            continue
        path = figures.latency_curve(run, api, case, label, figs / f"latency_curve_{api}_case{case:02d}.png")
        made.append((path, f"{api}, {label}: response-time percentiles 0-100, all ok iterations pooled."))
        path = figures.timeline(run, api, case, label, figs / f"timeline_{api}_case{case:02d}.png")
        made.append((path, f"{api}, {label}: CPU and memory over time (first ok iteration per framework)."))
    for api in apis:
        path = figures.percentiles_by_case(run, agg, api, figs / f"percentiles_{api}.png")
        made.append((path, f"{api}: p50/p90/p95/p99 response time per case."))
    return made


def section(doc: Doc, drawn: list[tuple[Path, str]]) -> None:
    doc.heading(2, "Latency distributions and resources over time")
    for path, caption in drawn:
        doc.figure(path, caption)
