"""Write results/<run-id>/report/: index.html, report.md, figures/*.png, tables/*.csv.

The report is derived data: a pure function of the run's result files and this code. So a new
report replaces the old one instead of piling up report-2/, report-3/, … beside it (which would
leave readers guessing which is current). It is built in a temporary folder and swapped in with
two renames, so a failed build leaves the previous report intact and a reader never sees half a
report. The result files themselves are only ever read.
"""
from pathlib import Path

import pandas as pd

from analysis import answer, answer_section, engines, engines_section, figures, latency_section, machine, memory, open_questions, ranking, replication, \
    scope, slo, study_check, tables, run_section, trust, validity, variants_section, verdicts
from analysis.claims import CLAIMS, CPU_MARGIN, MARGIN
# write_report raises it for an unknown --reference; cli/report.py catches it from here.
from analysis.answer import UnknownReference  # noqa: F401
from analysis.load import ResultFileError, Run, load_run
from analysis.names import listing, typed_name, versus_names
from analysis.metrics import (EXTRA_GROUPS, METRICS, PAIR, STUDY_FIGURES, STUDY_TABLES, case_label,
                              ordered_frameworks)
from analysis.paired import is_paired
from analysis.folder_swap import replace_dir
from analysis.formatting import fmt, fmt_ci
from analysis.render import Doc, write
from analysis.stats import ALPHA
from analysis.study import STUDY_METRICS, load_study


def write_report(run_dir: Path, timeline_case: int | None = None, reference: str | None = None,
                 objective: slo.Objective | None = None) -> Path:
    """Build the report for one run; returns the report directory. `reference`: the framework every
    other is compared with (analysis.answer.reference; an unknown one raises UnknownReference);
    `objective`: the latency objective of a latency run (--slo; default p99 ≤ 100 ms)."""
    run_dir = Path(run_dir)
    run = load_run(run_dir)
    answer.reference(run, reference)  # an unknown reference fails before anything is built
    return replace_dir(run_dir / "report",
                       lambda building: build(run, building, timeline_case, reference, objective or slo.DEFAULT_OBJECTIVE))


def heaviest_case(run: Run) -> int:
    cases = tables.ok_rows(run)[tables.CASE_COLUMNS].drop_duplicates()
    if cases.empty:
        raise ResultFileError(run.dir / "summary.csv", "has no iteration with status ok")
    return int(cases.sort_values(["requests", "rows", "joins"]).iloc[-1]["case"])


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
    study_agg = agg[agg["framework"].isin(PAIR)]
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
        if set(answer.PAIR) <= set(answer.framework_arms(run)) else pd.DataFrame(columns=answer.COLUMNS)
    ranked = ranking.ranking(run, agg, answer.framework_arms(run))

    every_answer.to_csv(tabs / "answer.csv", index=False)
    ranked.to_csv(tabs / "ranking.csv", index=False)
    agg.to_csv(tabs / "metrics.csv", index=False)
    sig.to_csv(tabs / "significance.csv", index=False)
    side.to_csv(tabs / "study_side_by_side.csv", index=False)
    ratios.to_csv(tabs / "study_ratios.csv", index=False)
    needed = open_questions.for_verdicts(results)
    verdicts.verdict_table(results, checks, needed).to_csv(tabs / "verdicts.csv", index=False)
    verdicts.cell_table(CLAIMS, claim_cells).to_csv(tabs / "claim_cells.csv", index=False)
    status.to_csv(tabs / "iterations.csv", index=False)
    problems.to_csv(tabs / "problem_iterations.csv", index=False)
    engine_table = engines.engine_table(run)  # None unless the load came from remote engines
    if engine_table is not None:
        engine_table.to_csv(tabs / "engines.csv", index=False)
    rates = latency_section.write_tables(run, reference, objective, tabs)  # None unless the run is a latency run

    apis = [a for a in ("rest", "graphql") if a in set(agg["api"])]
    study_apis = [a for a in apis if a in set(study_agg["api"])]
    # The figures that read JTLs and sampler files come first, so a broken one fails fast.
    case = heaviest_case(run) if timeline_case is None else timeline_case
    details = detail_figures(run, agg, apis, case, figs)
    doc = Doc(f"Testbed report: run {run.run_id}")
    summary(doc, run, agg, status, comparisons, against)
    if rates is not None:
        doc.para(latency_section.run_text(run))
    if run.checked:
        trust.section(doc, run, study_answer, apis, figs, tabs)
    if rates is not None:
        latency_section.section(doc, run, *rates, objective, figs)
    answer_section.section(doc, run, answers, against, ranked, agg, apis, figs)
    for i, versus in enumerate(comparisons):
        # The legend and the method are the framework answer's; without one, the first variant
        # section carries them.
        variants_section.section(doc, run, answer.of(every_answer, versus), versus, apis, figs,
                                 explain=i == 0 and not against)
    machine.section(doc, run, tabs)
    run_section.section(doc, run, status, engine_table)
    verdict_section(doc, run, results, checks, needed)
    study_support_section(doc, checks, study)
    study_section(doc, run, study_agg, sig, study, study_apis, figs, tabs)
    extra_section(doc, run, study_agg, sig, study_apis, tabs)
    doc.heading(2, "Latency distributions and resources over time")
    for path, caption in details:
        doc.figure(path, caption)
    replication_section(doc, run, side, ratios, study_apis)
    run_section.appendix(doc, problems)
    if run.checked:
        trust.appendix(doc, run, tabs)
    write(doc, out)


def build_unmeasurable(run: Run, out: Path, tabs: Path, reference: str | None = None,
                       objective: slo.Objective = slo.DEFAULT_OBJECTIVE) -> None:
    """A checked run none of whose items passed: no statistic can be computed, so the report is the
    trust section, what would measure each cell, and every check."""
    doc = Doc(f"Testbed report: run {run.run_id}")
    doc.para("No item of this run passed its validity checks, so it gives no answer, no verdict and "
             "none of the study's tables: every number would describe a load the case does not name.")
    items = validity.judged(run)
    apis = [a for a in ("rest", "graphql") if a in set(items["api"])]
    trust.section(doc, run, pd.DataFrame(columns=answer.COLUMNS), apis, out / "figures", tabs)
    machine.section(doc, run, tabs)
    rates = latency_section.write_tables(run, reference, objective, tabs)
    if rates is not None:
        latency_section.section(doc, run, *rates, objective, out / "figures")
    answer_section.unmeasurable(doc, run, reference)
    # Whether remote engines ran out of CPU is part of why nothing passed.
    engine_table = engines.engine_table(run)
    if engine_table is not None:
        engine_table.to_csv(tabs / "engines.csv", index=False)
        engines_section.section(doc, run, engine_table)
    trust.appendix(doc, run, tabs)
    write(doc, out)


def rounds_text(run: Run, agg: pd.DataFrame, who: str = "frameworks") -> str:
    protocol = run.manifest.get("protocol", {})
    if is_paired(run.manifest):
        return (f"in {protocol.get('rounds', agg['n'].max())} interleaved rounds (in each round, for each "
                f"API and case, the {who} ran back to back in a seeded random order)")
    n = agg["n"].max()
    return f"in {n} iteration{'s' if n != 1 else ''} per {who[:-1]}"


def summary(doc: Doc, run: Run, agg: pd.DataFrame, status: pd.DataFrame,
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
             f"{run.manifest.get('profile', '?')}). "
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


def scope_text(claim) -> str:
    apis = " and ".join("REST" if api == "rest" else "GraphQL" for api in claim.apis)
    return f"{apis}, {claim.scope}; " + ", ".join(map(verdicts.metric_words, claim.metrics))


def tested_as(claim) -> str:
    share = {"all": "in every cell", "most": "in more than half of the cells",
             "peak": "for the largest ratio of the cells",
             "where Express.js peaks": "in the case where Express.js's value is highest"}[claim.share]
    return f"{claim.test.describe()}, {share}"


def verdict_section(doc: Doc, run: Run, results, checks, needed: dict) -> None:
    doc.heading(2, "Does it reproduce the study? Verdicts per claim")
    doc.para("Every statement of the abstract and of sections 5 and 6 about which framework is faster "
             "or uses less CPU or memory, and where, is a claim below, in the study's words with its "
             "line numbers in the thesis's text. Each is tested per cell (API x case x metric) on the "
             "ratio A/E = ASP.NET Core / Express.js ("
             + ("memory from fresh processes, memory.csv: one per case, so shown but not judged"
                if memory.ratios(run, *answer.PAIR).size else "memory as peak RSS")
             + "), with its 95 % interval and "
             + ("significance from the paired rounds, as in the answer section (geometric mean of the "
                "per-round ratios, t interval and paired t-test on the log ratios)." if is_paired(run.manifest)
                else "the significance test of the tables below (ratio of the two means, interval by the "
                     "delta method on the log scale with Welch degrees of freedom)."))
    doc.bullets([
        "Direction (\"faster\", \"higher\"): a cell agrees when the difference is significant (q < "
        f"{ALPHA}, as in the answer) and on the claimed side, opposes when it is significant the other way.",
        "Equivalence (\"similar\"), non-inferiority (\"similar or better\") and magnitude (\"more "
        "than double\", \"roughly 2.8x\", \"much higher\"): two one-sided tests (TOST), i.e. the "
        f"90 % interval inside the claim's band: {1 / (1 + MARGIN):.3f} < A/E < {1 + MARGIN:.3f} for "
        f"similar, A/E > {1 / (1 + MARGIN):.3f} (Express.js at most {MARGIN * 100:.0f} % above) for "
        "similar-or-better, the stated band for a magnitude; a value on a bound counts as outside, "
        "an interval across a bound is undecided, a cell without an interval cannot be judged.",
        f"Why a {MARGIN * 100:.0f} % margin: the study names none. It was fixed before judging our "
        "runs and is just under the smallest difference in mean response time the study itself "
        "calls a win (REST case 5: 134.9 against 121.1 ms, 11 %, L1252). CPU's \"very similar\" "
        f"has a margin of {CPU_MARGIN * 100:.0f} %: the smallest round margin the study's own ratios "
        "there (1.23-1.68, read off a 0-400 % chart) pass. CPU claims use the mean CPU over the "
        "window (the peak comes in 10-point steps); minimum and maximum response time are compared "
        "on equal sample counts (the expected extreme of the smaller side's number of samples).",
        "A claim is decided only on its whole scope: with any of its cells not judged (not in this run, "
        "no usable round, a bound, no interval) it is inconclusive, judged on k of n cells, and says "
        "which and why. Reproduced: the claim's share of its cells agrees (every cell for \"all\", more "
        "than half for \"most\"). \"Up to\" claims are judged on the largest true ratio: each cell's interval "
        "at 1 - 0.10/k (Bonferroni, k cells), the peak between the largest lower end and the largest "
        "upper end, so the test is at 5 % whatever the cells' correlation (the old rule, each cell's "
        "95 % interval, covered the peak only about 0.95^k of the time). Not reproduced: at least "
        f"{verdicts.NOT_REPRODUCED_SHARE * 100:.0f} % of the cells oppose (or the peak lies outside "
        "the band). Inconclusive: anything else, including no usable cells in the run. Cannot be "
        f"judged here: the claim needs what this run lacks (this machine has {run.cores} cores; the "
        "study's had 4), and is never \"not reproduced\". Every claim's cells, each with its ratio, "
        "interval, the test's interval and p, q and outcome: tables/claim_cells.csv; each verdict's "
        "test, largest p and q, rounds and the machine's cores: tables/verdicts.csv.",
        "Readings: where the study's words allow two readings, the one its own tables support is the "
        "claim, and the other is shown as an alternative with its own verdict.",
        "Study's own tables: whether the study's published Tables 1-10 support the claim by the same "
        "test (see the next section). A claim they do not support cannot fairly be expected to "
        "reproduce: \"not reproduced\" beside \"not supported\" says the study's wording went beyond "
        "its own numbers.",
    ])
    doc.table(pd.DataFrame([{
        "Claim": f"{v.claim.id}: {v.claim.summary}", "The study says": f"{v.claim.words} ({v.claim.cited})",
        "Tested as": tested_as(v.claim), "Scope": scope_text(v.claim),
        "Study's own tables": checks[v.claim.id].status, "Our verdict": v.verdict,
        "Judged": f"{v.scope - len(v.not_judged)} of {v.scope}" if v.verdict != verdicts.CANNOT_JUDGE_HERE else "–",
        "Why": v.explanation, "Would decide it": needed.get(v.claim.id, "")}
        for v in results]))
    doc.para(open_questions.verdict_line(needed))
    doc.bullets([f"{c.id}: {c.reading}" for c in (v.claim for v in results) if c.reading])


def study_support_section(doc: Doc, checks, study: pd.DataFrame) -> None:
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


def display_wide(run: Run, wide: pd.DataFrame, study: pd.DataFrame | None) -> pd.DataFrame:
    shown = pd.DataFrame({"Case": [case_label(*c) for c in wide[tables.CASE_COLUMNS].itertuples(index=False)]})
    frameworks = [c[:-5] for c in wide.columns if c.endswith("_mean")]
    for f in ordered_frameworks(frameworks):
        shown[run.display_name(f)] = [fmt_ci(*r) for r in wide[[f"{f}_mean", f"{f}_ci_low", f"{f}_ci_high", f"{f}_n",
                                                                 f"{f}_flagged", f"{f}_bound"]].itertuples(index=False)]
        if study is not None:
            shown[f"study {run.display_name(f)}"] = wide[f"study_{f}"].map(fmt) \
                if f"study_{f}" in wide else "–"
    shown["difference (test)"] = [f"{r} ({t})" if t else r for r, t in
                                   zip(wide["result"].fillna(""), wide["test"].fillna(""))]
    return shown


def study_section(doc, run, agg, sig, study, apis, figs, tabs) -> None:
    doc.heading(2, "The study's figures 14-19 and tables 1-10, recomputed")
    for spec in STUDY_FIGURES:
        if spec.api in apis:
            path = figures.study_figure(run, agg, sig, spec, figs / f"figure{spec.number}_{spec.api}_{spec.column}.png")
            doc.figure(path, f"Figure {spec.number} recomputed ({spec.api}, {METRICS[spec.column].label}).")
    for spec in STUDY_TABLES:
        if spec.api not in apis:
            continue
        wide = tables.study_table(agg, sig, spec)
        published = study[(study["api"] == spec.api) & (study["metric"] == spec.study_metric)]
        for f in PAIR:
            wide[f"study_{f}"] = wide["case"].map(published[published["framework"] == f].set_index("case")["value"])
        wide.to_csv(tabs / f"table{spec.number:02d}_{spec.api}_{spec.column}.csv", index=False)
        doc.table(display_wide(run, wide, study), f"Table {spec.number}: {spec.title}; study = the "
                                                   "published value, on the study's 4-core, 8 GiB machine")


def extra_section(doc, run, agg, sig, apis, tabs) -> None:
    doc.heading(2, "What the study did not report")
    for api in apis:
        for group, metrics in EXTRA_GROUPS.items():
            for metric in metrics:
                if agg[(agg["api"] == api) & (agg["metric"] == metric)]["n"].sum() == 0:
                    continue  # not recorded in this run (CPU per request before schema 3)
                wide = tables.wide(agg, sig, api, metric)
                wide.to_csv(tabs / f"extra_{api}_{metric}.csv", index=False)
                m = METRICS[metric]
                doc.table(display_wide(run, wide, None), f"{api.upper() if api == 'rest' else 'GraphQL'} "
                                                         f"{group}: {m.label} ({m.unit})")


def detail_figures(run, agg, apis, case, figs) -> list[tuple[Path, str]]:
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


def replication_section(doc, run, side, ratios, apis) -> None:
    doc.heading(2, "Side by side with the study's published numbers")
    doc.para(f"Normalised so units match: CPU as % of the whole machine (study value / 4 cores; ours / "
             f"{run.cores} cores); memory in MB (study % of 8 GiB x 8192 / 100; ours peak RSS). "
             "Absolute values reflect different hardware; the ASP.NET Core / Express.js ratio is the "
             "more comparable figure. Values marked ~ were restored or uncertain in the study's text.")
    for api in apis:
        for metric, (column, unit) in STUDY_METRICS.items():
            part = side[(side["api"] == api) & (side["study_metric"] == metric) & (side["n"] > 0)]
            if part.empty:
                continue
            rows = []
            for case, group in part.groupby("case"):
                by = group.set_index("framework")
                row = {"Case": case_label(case, *group.iloc[0][["requests", "rows", "joins"]].astype(int))}
                for f in PAIR:
                    if f not in by.index:
                        continue
                    r = by.loc[f]
                    mark = "" if r["transcription"] == "exact" else " ~"
                    row[f"study {run.display_name(f)}"] = fmt(r["study"]) + mark
                    row[f"ours {run.display_name(f)}"] = fmt_ci(r["mean"], r["ci_low"], r["ci_high"], r["n"], 0, r["bound"])
                ratio = ratios[(ratios["api"] == api) & (ratios["case"] == case) & (ratios["study_metric"] == metric)]
                row["study ratio A/E"] = fmt(ratio["study_ratio"].iloc[0]) if not ratio.empty else "–"
                row["our ratio A/E"] = fmt(ratio["our_ratio"].iloc[0]) if not ratio.empty else "–"
                rows.append(row)
            spec = next(t for t in STUDY_TABLES if t.api == api and t.study_metric == metric)
            doc.table(pd.DataFrame(rows), f"Table {spec.number} ({spec.title.split(' (')[0]}) beside "
                                          f"ours ({METRICS[column].label}), in {unit}")
