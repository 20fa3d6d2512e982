"""The report's answer, "The answer: every framework, per case": every framework ranked per case,
then the reference against each other framework, per API a table of ratios and a forest plot, then
how to read them and how they were computed. The variant sections reuse its tables, legend and
method for two arms of one framework."""
from pathlib import Path

import pandas as pd

from analysis import answer, cores, figures, memory, open_questions, ranking, ratio_figures, rounds_needed, tables, \
    validity
from analysis.formatting import fmt_ci
from analysis.load import Run
from analysis.metrics import case_label
from analysis.names import listing, typed_name, versus_names
from analysis.render import Doc
from analysis.sections.ratio_method import HOW_COMPUTED, extra_rounds_text, method_text
from analysis.stats import ALPHA


def section(doc: Doc, run: Run, answers: pd.DataFrame, against: list, ranked: pd.DataFrame,
            agg: pd.DataFrame, apis: list[str], figs: Path) -> None:
    """Every framework ranked per case, then the reference against each other framework: the tables
    and figures first, with one line on how to read them; the flags and the method after them, for
    the reader who wants to know why. One framework, two or ten: the same section."""
    doc.heading(2, "The answer: every framework, per case")
    reference = against[0].numerator if against else None
    frameworks = answer.framework_arms(run)
    doc.para(f"The frameworks: {listing([typed_name(run, a) for a in frameworks])}. First each one's own "
             "figures per case, ranked by throughput; then "
             + (f"the reference, {run.display_name(reference)} (`--reference`; by default the first of the "
                "study's pair, ASP.NET Core and Express.js, in the run, else its first framework), against "
                f"each other framework, as the ratio {run.display_name(reference)} / other with its 95 % "
                "interval. The study's claims further down are ASP.NET Core against Express.js whatever "
                "the reference." if against else
                "no ratio: the run has one framework, so there is nothing to compare it with.")
             + " Realistic entries run as their documentation teaches; tuned ones depart from that to go "
             "faster (docs/adding-a-framework.md): compare realistic with realistic.")
    ranking_tables(doc, run, ranked, agg, apis, figs)
    for versus in against:
        comparison_section(doc, run, answer.of(answers, versus), versus, apis, figs)
    if against:
        kind = basis(run, answers) if not answers.empty else ("paired" if run.manifest.paired else "independent")
        legend(doc, run, answers, kind, symbol="A/E" if against == [answer.STUDY] else "reference / other")


def unmeasurable(doc: Doc, run: Run, reference: str | None) -> None:
    """The answer of a run none of whose items passed: per comparison, every cell as not measurable
    here, with what would measure it."""
    doc.heading(2, "The answer: every framework, per case")
    for versus in answer.framework_comparisons(run, reference):
        doc.heading(3, versus_names(run, versus))
        doc.bullets([not_measurable_text(r) for r in
                     validity.unmeasurable(run, (versus.numerator, versus.denominator)).itertuples()]
                    or ["No case has both frameworks."])


def ranking_tables(doc: Doc, run: Run, ranked: pd.DataFrame, agg: pd.DataFrame, apis: list[str],
                   figs: Path) -> None:
    """Per API: every arm's throughput, p95, CPU per request and memory per case, ranked."""
    doc.heading(3, "Every framework, ranked")
    for api in apis:
        title = "REST" if api == "rest" else "GraphQL"
        part = ranked[ranked["api"] == api]
        if part.empty:
            continue
        fresh = (part["memory_source"] == ranking.FRESH).any()
        shown = pd.DataFrame({
            "Case": [case_label(*c) for c in part[tables.CASE_COLUMNS].itertuples(index=False)],
            "Rank": part["rank"], "Framework": [typed_name(run, a) for a in part["framework"]],
            "Throughput (requests/s)": [ci_of(r, "throughput_rps") for _, r in part.iterrows()],
            "p95 (ms)": [ci_of(r, "p95_ms") for _, r in part.iterrows()],
            "App CPU per request (ms)": [ci_of(r, "app_cpu_ms_per_req") for _, r in part.iterrows()],
            "Memory (MB)": [ci_of(r, "memory_mb") + ("" if not fresh or r["memory_source"] == ranking.FRESH
                                                     else " (run-long peak)") for _, r in part.iterrows()]})
        if not part["app_cpu_ms_per_req_n"].fillna(0).astype(bool).any():
            shown = shown.drop(columns="App CPU per request (ms)")  # runs before schema 3 lack it
        doc.table(shown, f"{title}: every framework per case, ranked by mean throughput (1 = highest); mean [95 % "
                         "interval] over usable items, † k flagged; memory "
                         + ("from a fresh process per case (memory.csv, VmHWM)" if fresh else "as the run-long "
                            "peak RSS") + ". A rank is not a test: where intervals overlap the order is "
                         "open; the ratios below test it (tables/ranking.csv)")
        if run.checked:
            path = figures.cpu_per_request(run, agg[agg["framework"].isin(set(part["framework"]))], api,
                                           figs / f"cpu_per_request_{api}.png")
            doc.figure(path, f"{title}: the app's and the database's CPU time per request, per case.")


def ci_of(row: pd.Series, metric: str) -> str:
    return fmt_ci(*(row[f"{metric}_{f}"] for f in ranking.FIELDS))


def comparison_section(doc: Doc, run: Run, answers: pd.DataFrame, versus, apis: list[str], figs: Path) -> None:
    """The reference over one other framework: which way the ratio reads, then per API its table
    and forest plot."""
    a, b = (run.display_name(x) for x in (versus.numerator, versus.denominator))
    doc.heading(3, f"{a} / {b}" + (f" ({versus.symbol})" if versus.study else ""))
    tuned = [typed_name(run, x) for x in (versus.numerator, versus.denominator) if ranking.kind(run, x) == "tuned"]
    kind = basis(run, answers) if not answers.empty else ("paired" if run.manifest.paired else "independent")
    doc.para(f"{a} / {b}, with its 95 % interval. Throughput above 1: {a} served more requests per second. "
             f"p95 response time, CPU and memory below 1: {a} was faster or used less; above 1: {b} did. "
             f"{answer.SIGNIFICANT} significant (q < {ALPHA}: p adjusted for the report's many tests); "
             f"{answer.FLAGGED} load-flagged case (explained below). {BASIS_LINE[kind]}"
             + (f" Not realistic against realistic: {listing(tuned)} {'is' if len(tuned) == 1 else 'are'} "
                "tuned." if tuned else "")
             + (f" {one_core}" if (one_core := cores.note(run, [versus.numerator, versus.denominator])) else ""))
    comparison_tables(doc, run, answers, versus, apis, figs, level=4)


def comparison_tables(doc: Doc, run: Run, answers: pd.DataFrame, versus, apis: list[str], figs: Path,
                      level: int = 3) -> None:
    """Per API: the table of ratios per case and its forest plot."""
    symbol = versus.symbol if versus.study else versus_names(run, versus)
    for api in apis:
        title = "REST" if api == "rest" else "GraphQL"
        doc.heading(level, title)
        if answers[answers["api"] == api].empty:
            ok = tables.ok_rows(run)
            lacking = " and ".join(run.display_name(a) for a in (versus.numerator, versus.denominator)
                                   if ok[(ok["api"] == api) & (ok["framework"] == a)].empty)
            doc.para(f"No {title} case has both {'frameworks' if versus.frameworks else 'arms'} measured: "
                     + (f"{lacking} has no ok {title} iteration." if lacking else
                        f"they have no ok {title} iteration of one case."))
            unmeasured_cells(doc, run, versus, api)
            continue
        table, classes = answer.display(answers, api)
        doc.table(table, f"{title}: {symbol} per case, 95 % interval; {answer.SIGNIFICANT} significant, "
                         f"{answer.FLAGGED} load-flagged case", classes)
        path = ratio_figures.forest(run, answers, api, figs / figure_name(versus, api), versus)
        doc.figure(path, f"{title}: {symbol} per case and metric, with 95 % intervals, on a log axis (0.5 and 2 "
                         "are equally far from 1).")
        unmeasured_cells(doc, run, versus, api)


def unmeasured_cells(doc: Doc, run: Run, versus, api: str) -> None:
    """The cases of the API that the comparison's arms both ran but could not measure."""
    found = validity.unmeasurable(run, (versus.numerator, versus.denominator))
    found = found[found["api"] == api]
    if not found.empty:
        doc.bullets([not_measurable_text(r) for r in found.itertuples()])


def not_measurable_text(row) -> str:
    return (f"{'REST' if row.api == 'rest' else 'GraphQL'} {case_label(row.case, row.requests, row.rows, row.joins)}: "
            f"not measurable here: {row.reason}. To measure it: {row.fix}.")


def figure_name(versus, api: str) -> str:
    """answer_<numerator>_vs_<denominator>_<api>.png for two frameworks, variants_…_vs_…_<api>.png
    for two arms of one, with the ':' of an arm's name written '-' (a colon in a link can read as a
    scheme)."""
    return (f"{'answer' if versus.frameworks else 'variants'}_{versus.numerator.replace(':', '-')}_vs_"
            f"{versus.denominator.replace(':', '-')}_{api}.png")


def basis(run: Run, answers: pd.DataFrame) -> str:
    """What the answer's ratios rest on: paired rounds, independent groups, or single iterations."""
    if run.manifest.paired:
        return "paired"
    single = answers["ratio_low"].isna() & (answers[["numerator_n", "denominator_n"]].min(axis=1) < 2)
    return "single" if single.all() else "independent"


# One line above the tables, so a reader knows how far to trust them before reading them.
BASIS_LINE = {
    "paired": "From paired rounds: both frameworks measured back to back in each round.",
    "independent": "From independent groups of iterations, not paired rounds: weaker, see below.",
    "single": "From one iteration per framework: no intervals and no tests, see below.",
}


def basis_line(kind: str, who: str = "frameworks", where: str = "see below") -> str:
    return BASIS_LINE[kind].replace("frameworks", who).replace("framework", who[:-1]).replace("see below", where)


def legend(doc: Doc, run: Run, answers: pd.DataFrame, kind: str, who: str = "frameworks",
           symbol: str = "A/E") -> None:
    """How to read the answer's tables, and how their ratios were computed."""
    used = sorted({f for flags in answers["load_flags"] for f in flags.split(";") if f})
    doc.heading(3, "How to read the answer")
    doc.bullets([
        f"{answer.SIGNIFICANT} (bold in the HTML page, filled blue in the figures): significant, q < "
        f"{ALPHA}. q is p adjusted by Benjamini-Hochberg over every test the report marks (the answer's "
        "metrics, the study's tables and the extremes of its claims), so that among the cells called "
        "significant about 5 % at most are so by chance; a cell with p < 0.05 but q ≥ 0.05 is not "
        "marked" + (" (its 95 % interval then excludes 1 without the mark)" if kind == "paired" else
                    ". p is the test of the study's tables below, which is not the one behind the "
                    "interval, so at the edge the two can disagree")
        + f". Without the mark, this run cannot tell the two {who} apart at that level. The grey band "
        "in the figures is within 10 % of 1. tables/answer.csv has p, q, the test, the rounds used "
        "(`pairs`) and, for a run with extra rounds, each cell's state when they ended (`stopping`).",
        f"{answer.FLAGGED} after a case (grey in the table, hollow markers in the figures): at least one "
        f"iteration of either {who[:-1]} in that case was flagged "
        + " or ".join(answer.LOAD_FLAGS) + ". " + " ".join(
            f"{f.capitalize()}: {answer.LOAD_FLAGS[f]}." for f in answer.LOAD_FLAGS)
        + " Such a case measured a lighter load than its name says."
        + ("" if used else " No case of this run is flagged."),
        "CPU is the app's mean CPU over the measured window; memory its peak resident set (RSS). Mean "
        "and p99 response time, and every cell's p and n, are in tables/answer.csv.",
    ] + ([
        "App and DB CPU per request: the process's CPU time over the window per request completed in "
        "it (ms), paired like the rest; a shared machine distorts it least, since it stays comparable "
        "when the load generator sets the rate.",
        "Only items that passed their validity checks (valid or bound, see \"Can you trust this run?\") "
        "count, each metric by its own verdict, and a paired cell uses only the rounds where both arms "
        "have a usable value. A ratio written ≥ or ≤ had a load-generator-bound arm, and is a bound, not "
        "an estimate, never judged (both arms bound: not measurable). A bound item's throughput is what "
        "the load generator could drive, so the server could have served more. Its response time is a "
        "lower bound of the server's at the case's concurrency: the generator kept some of the threads "
        "waiting in it instead of in the server (Little's ratio below 1: at 0.745, about 7.5 of 10 "
        "requests were in flight), so the server answered a lighter load, faster than it would the case's "
        "full one. Its CPU per request, CPU and memory are left out: which way the generator moved them is "
        "not known. An unfair item (some connections never served) keeps its throughput; its response "
        "times, of the connections it did serve, are left out.",
    ] if run.checked else []) + ([
        "Memory (fresh process): each arm's high-water mark (VmHWM) on a process restarted just before "
        "the case (memory.csv), one per arm and case, so no interval; the run-long peak RSS carries "
        "every case before it and stays in tables/answer.csv only.",
    ] if memory.METRIC in set(answers["metric"]) else []))
    doc.para(open_questions.answer_line(answers, rounds_needed.target(run.manifest)))
    doc.heading(3, "How the ratios were computed, and why")
    doc.para(method_text(run, kind, who, symbol))
    if kind == "paired":
        doc.bullets(HOW_COMPUTED)
        doc.para(extra_rounds_text(run.manifest))
