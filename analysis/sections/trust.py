"""The report's "Can you trust this run?" section and its appendix of checks: per item whether it
measured the server (analysis.validity), JMeter against its own ceiling, the second load
generator's ratio beside JMeter's, and memory from fresh processes. Only runs whose items carry
validity checks (schema 3) have them; older runs get one sentence saying they predate the checks."""
from pathlib import Path

import pandas as pd

from analysis import answer, crosscheck, figures, machine, memory, validity
from analysis.item_counts import ItemCounts, counts
from analysis.load import Run, run_table
from analysis.metrics import case_label
from analysis.render import Doc
from analysis.tables import REPORTED_ROUND, report_order
from benchlib.cases import STUDY_PAIR
from benchlib.results import CEILING, CEILING_COLUMNS, CEILING_V3_COLUMNS, METRIC_FIELDS, VALIDITY_FIELDS

ASPNET, EXPRESS = STUDY_PAIR
# The checks' own columns, as the appendix lists them (summary.csv's VALIDITY_FIELDS).
CHECK_COLUMNS = ["framework", "api", "case", "round", "status", "validity", *(
    f for f in VALIDITY_FIELDS if f not in ("validity", "validity_reasons")), "validity_reasons", *METRIC_FIELDS]


def predates(run: Run) -> str:
    return (f"This run predates the validity checks (results schema {run.manifest.schema_version}; the "
            "checks came with schema 3): its items were never checked for steady state, Little's law or "
            "the load generator's ceiling, so every ok iteration counts, as it did when it was made.")


def summary_line(run: Run, counted: ItemCounts) -> str:
    """The trust section in one line, for the first screen: how much of the run passed its checks,
    and where the details are (the section itself follows the answer)."""
    if not run.checked:
        return predates(run)
    cells = cell_states(run)
    return (f"Can you trust this run? {counted.valid} of {counted.items} items passed every check, "
            f"{counted.bound} were bound by the load generator, {counted.invalid} invalid, {counted.failed} failed "
            f"and {counted.excluded} excluded; "
            f"{cells.get(validity.VALID, 0)} of {int(cells.sum())} cells (arm x API x case) have a valid round. "
            "Which checks failed where: [Can you trust this run?](#can-you-trust-this-run).")


def cell_states(run: Run) -> pd.Series:
    """How many cells (arm x API x case) have a valid round, only bound ones, or none usable."""
    return validity.judged(run).groupby(["framework", "api", "case"])["validity"].agg(
        lambda v: validity.INVALID if (v == validity.INVALID).all() else
        validity.BOUND if not (v == validity.VALID).any() else validity.VALID).value_counts()


def grid(run: Run) -> pd.DataFrame:
    """Framework x API by case: each cell's items counted over rounds by validity, with the checks
    the invalid and bound ones failed (tables/validity_grid.csv)."""
    items = validity.judged(run)
    records = []
    for (framework, api), mine in items.groupby(["framework", "api"]):
        row = {"framework": framework, "api": api}
        for case, cell in mine.groupby("case"):
            parts = []
            for state in validity.VALID, validity.BOUND, validity.INVALID:
                these = cell[cell["validity"] == state]
                if these.empty:
                    continue
                names = [n for r in these["reasons"] for n in validity.check_names(r)]
                checks = pd.Series(names, dtype=object).value_counts()
                named = ", ".join(f"{n} {k}" if k > 1 else n for n, k in checks.items()
                                  if not (state == validity.BOUND and n == "littles_law"))
                parts.append(f"{len(these)} {state}" + (f" ({named})" if named else ""))
            row[f"case {case}"] = "; ".join(parts)
        records.append(row)
    table = pd.DataFrame.from_records(records)
    cases = sorted({int(c.split()[1]) for c in table.columns if c.startswith("case ")})
    table = table[["framework", "api", *(f"case {c}" for c in cases)]].fillna("–")
    return table.sort_values(["framework", "api"], key=report_order, ignore_index=True)


def counts_text(run: Run) -> str:
    cells = cell_states(run)
    return (f"{counts(run).sentence()} Of {int(cells.sum())} cells (arm x API x case), "
            f"{cells.get(validity.VALID, 0)} have a valid round, {cells.get(validity.BOUND, 0)} only bound ones "
            f"and {cells.get(validity.INVALID, 0)} none usable.")


def unfair_text(run: Run) -> str:
    """A finding about the servers, not the run: which left connections without any answer for a
    whole window (their throughput stands; their response times describe the connections served)."""
    items = validity.judged(run)
    unfair = items[items["latency_validity"] == "unfair"]
    if unfair.empty:
        return ""
    said = []
    for (arm, api, case), cell in unfair.groupby(["framework", "api", "case"]):
        total = int((items["framework"].eq(arm) & items["api"].eq(api) & items["case"].eq(case)).sum())
        said.append(f"{run.display_name(arm)} {'REST' if api == 'rest' else 'GraphQL'} case {case} in {len(cell)} of "
                    f"{total} rounds (up to {int(cell['unserved'].max())} of {int(cell['threads'].max())} connections)")
    return ("Connections left unserved: " + "; ".join(said) + ". Each of these servers left some connections "
            "without a single answer for the whole window: its throughput stands, but its response times "
            "describe only the connections it served, so they are shown as unfair and never compared.")


def section(doc: Doc, run: Run, answers: pd.DataFrame, apis: list[str], figs: Path, tabs: Path) -> None:
    doc.heading(2, "Can you trust this run?")
    doc.para("Every item (one arm, API, case and round) was checked before any number below uses it "
             "(collect/README.md, \"Validity\"), metric by metric. Its throughput (and its CPU per "
             "request, from the same window) needs requests counted by completion inside the window, "
             "steady throughput, no errors, the load generator below its ceiling and keeping the "
             "connections busy, and no other work on the machine; its response times need that and "
             "Little's law within 10 % and every connection served. Valid items are used; bound ones "
             "(the load generator set the rate) are used with their throughput and response times shown "
             "as bounds (≥ or ≤) and their CPU and memory left out; invalid ones are never used, and a "
             "cell left without usable rounds says \"not measurable here\" and what would measure it. "
             + counts_text(run))
    unfair = unfair_text(run)
    if unfair:
        doc.para(unfair)
    table = grid(run)
    table.to_csv(tabs / "validity_grid.csv", index=False)
    doc.table(table.rename(columns={"framework": "Arm", "api": "API"}),
              "Validity per arm, API and case, counted over rounds, with the checks that failed "
              "(each item's figures: the appendix and tables/validity.csv)")
    ceiling_figures(doc, run, apis, figs)
    crosscheck_table(doc, run, answers, tabs)
    memory_table(doc, run, tabs)


def ceilings(run: Run) -> tuple[pd.DataFrame | None, str]:
    """(threads, throughput_rps) of the ceiling the run's items were judged by: the main load
    generator's most at each thread count over its attempts before the rounds (schema 4, as
    collect/passes/ceiling.read), or JMeter's one measurement (schema 3)."""
    if run.manifest.schema_version < 4:
        return run_table(run.dir / CEILING, CEILING_V3_COLUMNS)
    found, why = run_table(run.dir / CEILING, CEILING_COLUMNS)
    if found is None:
        return None, why
    tool = run.manifest.loadgen_tool
    mine = found[(found["loadgen"] == tool) & (found["when"] == "before")]
    if mine.empty:
        return None, f"ceiling.csv has no ceiling of {tool} before the rounds"
    most = mine.groupby("threads", as_index=False)["ceiling_rps"].max()
    return most.rename(columns={"ceiling_rps": "throughput_rps"}), ""


def ceiling_figures(doc: Doc, run: Run, apis: list[str], figs: Path) -> None:
    found, why = ceilings(run)
    if found is None:
        doc.para(f"No figure of the load generator against its ceiling: {why} (a run with remote engines "
                 "judges each engine's own CPU instead).")
        return
    share = run.manifest.ceiling_share
    items = validity.judged(run)
    for api in apis:
        mine = items[items["api"] == api]
        if mine.empty:
            continue
        path = figures.ceiling(run, mine, found, share, api, figs / f"ceiling_{api}.png")
        doc.figure(path, f"{api}: each item's throughput against what the load generator drives at the same "
                         "connections against an app's 404 (ceiling.csv). At or above the dashed line the item is "
                         "bound.")


def main_ratio(answers: pd.DataFrame, api: str, case: int) -> pd.Series | None:
    row = answers[(answers["api"] == api) & (answers["case"] == case) & (answers["metric"] == "throughput_rps")]
    return row.iloc[0] if not row.empty else None


def crosscheck_table(doc: Doc, run: Run, answers: pd.DataFrame, tabs: Path) -> None:
    found, why = crosscheck.ratios(run, ASPNET, EXPRESS)
    if found.empty:
        why = run.manifest.crosscheck_skipped or why or "crosscheck.csv has no case both frameworks measured"
        doc.para(f"No second load generator's ratio: {why}.")
        return
    main_name = machine.loadgen_name(run)
    records, rows = [], []
    for r in found.sort_values(["api", "case"], key=report_order).itertuples(index=False):
        main = main_ratio(answers, r.api, r.case)
        main_value = main["ratio"] if main is not None and main.get("judged", True) else None
        agreed = crosscheck.agree(main_value, r.ratio)
        records.append({**r._asdict(), "main_tool": main_name, "main_ratio": main_value, "agree": agreed})
        other = pd.Series({"ratio": r.ratio, "ratio_low": r.ratio_low, "ratio_high": r.ratio_high,
                           "note": r.ratio_note or "", "judged": False, "significant": False})
        rows.append({"API": "REST" if r.api == "rest" else "GraphQL", "Case": r.case,
                     f"{main_name} A/E throughput (usable rounds)": answer.ratio_text(main) if main is not None
                     else "not measurable here (see the answer)",
                     f"{crosscheck.NAMES.get(r.tool, r.tool)} A/E throughput (valid rounds)":
                         answer.ratio_text(other) if r.rounds else r.ratio_note,
                     "rounds": f"{r.rounds} of {r.measured}", "per round": r.per_round or "–",
                     f"agree within {crosscheck.AGREEMENT - 1:.0%}": {True: "yes", False: "no", None: "–"}[agreed]})
    pd.DataFrame.from_records(records).to_csv(tabs / "crosscheck.csv", index=False)
    doc.table(pd.DataFrame(rows), f"Throughput A/E from {main_name} beside the other load generator at the same "
                                  "concurrency (crosscheck.csv), each over the rounds its own checks passed: where "
                                  "the two differ, the one with less headroom set its ratio")
    if why_few := crosscheck.headroom(run, main_name):
        doc.para(why_few)


def memory_table(doc: Doc, run: Run, tabs: Path) -> None:
    found = memory.ratios(run, ASPNET, EXPRESS)
    if found.empty:
        _, why = memory.table(run)
        doc.para(f"No memory from fresh processes: {why or 'memory.csv has no case both frameworks measured'}; "
                 "memory is the run-long peak RSS.")
        return
    cases = run.summary[["case", "requests", "rows", "joins"]].drop_duplicates().set_index("case")
    found.to_csv(tabs / "memory.csv", index=False)
    rows = [{"API": "REST" if r.api == "rest" else "GraphQL",
             "Case": case_label(r.case, *cases.loc[r.case]) if r.case in cases.index else r.case,
             "ASP.NET Core (MB)": f"{r.numerator_mb:.0f}", "Express.js (MB)": f"{r.denominator_mb:.0f}",
             "A/E": f"{r.ratio:.2f}" + (f" [{r.ratio_low:.2f}, {r.ratio_high:.2f}]" if pd.notna(r.ratio_low) else "")}
            for r in found.sort_values(["api", "case"], key=report_order).itertuples()]
    processes = int(found["pairs"].max())
    doc.table(pd.DataFrame(rows), "Memory per case from a fresh process under the case's concurrency "
                                  f"(memory.csv: VmHWM, {processes} process{'es' if processes > 1 else ''} per "
                                  "arm and case, A/E their geometric mean with its 95 % interval); the answer's memory")
    doc.para(memory.DIRECTION.format(low=found["ratio"].min(), high=found["ratio"].max(), cores=run.cores))


def appendix(doc: Doc, run: Run, tabs: Path) -> None:
    """Every check of every item, from summary.csv's validity columns (tables/validity.csv)."""
    items = run.summary[CHECK_COLUMNS].sort_values(["framework", "api", "case", "round"], key=report_order,
                                                   ignore_index=True).rename(columns={"round": REPORTED_ROUND})
    items.to_csv(tabs / "validity.csv", index=False)
    doc.heading(2, "Appendix: every check of every item")
    doc.para("As summary.csv records them (collect/items/validity.py; thresholds in the manifest's `validity`): "
             "littles_ratio = throughput x mean response time / threads; completed_threads of threads; "
             "trend_pct (p) and spread_cv over the window's bins; machine and load-generator CPU as % of "
             "all cores; ceiling_share = throughput / ceiling_rps; CPU per request in ms. Failed and "
             "excluded items have no checks.")
    shown = items.drop(columns=["in_flight_start", "in_flight_end", "spanning", "ceiling_rps"])
    doc.table(shown.astype(object).where(shown.notna(), "–"),
              "Every item's checks, by arm, API (REST first), case and round")
