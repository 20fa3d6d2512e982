"""Write results/<run-id>/report/: index.html, report.md, figures/*.png, tables/*.csv.

The report is derived data: a pure function of the run's result files and this code, rebuilt whole
each time and swapped in for the old one (analysis/folder_swap.py). The result files themselves are
only ever read. This module works out the run's numbers, writes its tables, and lists the report's
sections in the order a reader meets them; each section is a module of its own.
"""
from pathlib import Path

import pandas as pd

from analysis import (answer, bottom_line, engines, item_counts, machine, memory, open_questions, ranking, replication,
                      rounds_needed, scope, sections, slo, study_check, tables, validity, verdicts)
# write_report raises it for an unknown --reference; cli/report.py catches it from here.
from analysis.answer import UnknownReference  # noqa: F401
from analysis.claims import CLAIMS
from analysis.folder_swap import replace_dir
from analysis.load import ResultFileError, Run, load_run
from analysis.render import Doc, write
from analysis.study import load_study
from benchlib.cases import STUDY_PAIR


def write_report(run_dir: Path, timeline_case: int | None = None, reference: str | None = None,
                 objective: slo.Objective | None = None) -> Path:
    """Build the report for one run; returns the report directory. `reference`: the framework every
    other is compared with (analysis.answer.reference; an unknown one raises UnknownReference);
    `objective`: the latency objective of a latency run (--slo; default p99 ≤ 100 ms)."""
    run_dir = Path(run_dir)
    run = load_run(run_dir)
    answer.reference(run, reference)  # an unknown reference fails before anything is built
    return replace_dir(run_dir / "report", lambda building: build(run, building, timeline_case, reference,
                                                                  objective or slo.DEFAULT_OBJECTIVE))


def build(run: Run, out: Path, timeline_case: int | None, reference: str | None = None,
          objective: slo.Objective = slo.DEFAULT_OBJECTIVE) -> None:
    figs, tabs = out / "figures", out / "tables"
    figs.mkdir(parents=True)
    tabs.mkdir()
    agg, sig = tables.aggregate(run), verdicts.report_cells(run)
    if agg.empty and run.checked and not validity.judged(run).empty:
        return build_unmeasurable(run, out, tabs, reference, objective)
    if agg.empty:
        raise ResultFileError(run.dir / "summary.csv", "has no iteration with status ok")
    # The study's memory claims are judged on fresh processes where the run measured them.
    claim_cells = memory.for_verdicts(run, sig)
    # The study's sections compare the two default arms, aspnet and express, and nothing else: a
    # run with extra variants gives the same study sections as one without them.
    study_agg = agg[agg["framework"].isin(STUDY_PAIR)]
    study = load_study()
    side = replication.side_by_side(study_agg, run.cores, study)
    ratios = replication.ratios(side)
    results = verdicts.verdicts(CLAIMS, claim_cells, scope.absent(run), run.cores)
    checks = study_check.checks(CLAIMS, study)
    status, problems = tables.run_status(run), tables.problems(run)
    against = answer.framework_comparisons(run, reference)
    comparisons = answer.variant_comparisons(run)
    every_answer = pd.concat([a for a in (answer.answer(run, sig, v) for v in [*against, *comparisons])
                              if not a.empty] or [pd.DataFrame(columns=answer.COLUMNS)], ignore_index=True)
    answers = every_answer[every_answer["numerator"].isin([v.numerator for v in against])
                           & every_answer["denominator"].isin([v.denominator for v in against])]
    # The trust section's cross-check and memory tables are the study's A/E, whatever the reference.
    study_answer = answer.answer(run, sig, answer.STUDY) \
        if set(answer.STUDY_PAIR) <= set(answer.framework_arms(run)) else pd.DataFrame(columns=answer.COLUMNS)
    ranked = ranking.ranking(run, agg, answer.framework_arms(run))

    every_answer.to_csv(tabs / "answer.csv", index=False)
    ranked.to_csv(tabs / "ranking.csv", index=False)
    agg.to_csv(tabs / "metrics.csv", index=False)
    sig.to_csv(tabs / "significance.csv", index=False)
    side.to_csv(tabs / "study_side_by_side.csv", index=False)
    ratios.to_csv(tabs / "study_ratios.csv", index=False)
    needed = open_questions.for_verdicts(results, fresh_memory=memory.table(run)[0] is not None,
                                         seconds_per_round=rounds_needed.seconds_per_round(run))
    verdicts.verdict_table(results, checks, needed).to_csv(tabs / "verdicts.csv", index=False)
    verdicts.cell_table(CLAIMS, claim_cells).to_csv(tabs / "claim_cells.csv", index=False)
    status.to_csv(tabs / "iterations.csv", index=False)
    problems.to_csv(tabs / "problem_iterations.csv", index=False)
    engine_table = engines.engine_table(run)  # None unless the load came from remote engines
    if engine_table is not None:
        engine_table.to_csv(tabs / "engines.csv", index=False)
    rates = sections.latency.write_tables(run, reference, objective, tabs)  # None unless the run is a latency run

    apis = [a for a in ("rest", "graphql") if a in set(agg["api"])]
    study_apis = [a for a in apis if a in set(study_agg["api"])]
    # The figures that read JTLs and sampler files come first, so a broken one fails fast.
    distributions = sections.distributions.draw(run, agg, apis, timeline_case, figs)
    doc = Doc(f"Testbed report: run {run.run_id}")
    sections.summary.opening(doc, run, every_answer, bottom_line.compared(run, reference), item_counts.counts(run),
                             apis, figs)
    sections.summary.section(doc, run, agg, comparisons, against)
    if rates is not None:
        doc.para(sections.latency.run_text(run))
    if rates is not None:
        sections.latency.section(doc, run, *rates, objective, figs)
    sections.answer.section(doc, run, answers, against, ranked, agg, apis, figs)
    for i, versus in enumerate(comparisons):
        # The legend and the method are the framework answer's; without one, the first variant
        # section carries them.
        sections.variants.section(doc, run, answer.of(every_answer, versus), versus, apis, figs,
                                  explain=i == 0 and not against)
    sections.protocol.section(doc, run, every_answer, [*against, *comparisons], tabs)
    # The checks' grids and tables are for the reader who asks why; the opening says the gist.
    if run.checked:
        sections.trust.section(doc, run, study_answer, apis, figs, tabs)
    machine.section(doc, run, tabs)
    sections.run.section(doc, run, status, engine_table)
    sections.verdicts.section(doc, run, results, checks, needed)
    sections.study_support.section(doc, checks, study)
    sections.study.section(doc, run, study_agg, sig, study, study_apis, figs, tabs)
    sections.extra.section(doc, run, study_agg, sig, study_apis, tabs)
    sections.distributions.section(doc, distributions)
    sections.replication.section(doc, run, side, ratios, study_apis)
    sections.run.appendix(doc, problems)
    if run.checked:
        sections.trust.appendix(doc, run, tabs)
    write(doc, out)


def build_unmeasurable(run: Run, out: Path, tabs: Path, reference: str | None = None,
                       objective: slo.Objective = slo.DEFAULT_OBJECTIVE) -> None:
    """A checked run none of whose items passed: no statistic can be computed, so the report is the
    trust section, what would measure each cell, and every check."""
    doc = Doc(f"Testbed report: run {run.run_id}")
    sections.summary.opening(doc, run, pd.DataFrame(columns=answer.COLUMNS), [], item_counts.counts(run), [],
                             out / "figures")
    doc.para("No item of this run passed its validity checks, so it gives no answer, no verdict and "
             "none of the study's tables: every number would describe a load the case does not name.")
    items = validity.judged(run)
    apis = [a for a in ("rest", "graphql") if a in set(items["api"])]
    sections.trust.section(doc, run, pd.DataFrame(columns=answer.COLUMNS), apis, out / "figures", tabs)
    machine.section(doc, run, tabs)
    rates = sections.latency.write_tables(run, reference, objective, tabs)
    if rates is not None:
        sections.latency.section(doc, run, *rates, objective, out / "figures")
    sections.answer.unmeasurable(doc, run, reference)
    # Whether remote engines ran out of CPU is part of why nothing passed.
    engine_table = engines.engine_table(run)
    if engine_table is not None:
        engine_table.to_csv(tabs / "engines.csv", index=False)
        sections.engines.section(doc, run, engine_table)
    sections.trust.appendix(doc, run, tabs)
    write(doc, out)
