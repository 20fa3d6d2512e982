"""Write results/<run-id>/report/: index.html, report.md, figures/*.png, tables/*.csv.

The report is derived data: a pure function of the run's result files and this code. So a new
report replaces the old one instead of piling up report-2/, report-3/, … beside it (which would
leave readers guessing which is current). It is built in a temporary folder and swapped in with
two renames, so a failed build leaves the previous report intact and a reader never sees half a
report. The result files themselves are only ever read.
"""
import datetime
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd

from analysis import figures, replication, tables
from analysis.load import ResultFileError, Run, load_run
from analysis.metrics import (EXTRA_GROUPS, METRICS, PAIR, STUDY_FIGURES, STUDY_TABLES, case_label,
                              ordered_frameworks)
from analysis.render import Doc, html_page, markdown
from analysis.stats import ALPHA
from analysis.study import STUDY_METRICS, load_study

CODE_DIR = Path(__file__).resolve().parent


def write_report(run_dir: Path, timeline_case: int | None = None) -> Path:
    """Build the report for one run; returns the report directory."""
    run_dir = Path(run_dir)
    run = load_run(run_dir)
    final = run_dir / "report"
    building = run_dir / f".report-building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    try:
        build(run, building, timeline_case)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    old = run_dir / f".report-old-{os.getpid()}"
    if final.exists():
        final.rename(old)
    building.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def fmt(value) -> str:
    if value is None or pd.isna(value):
        return "–"
    size = abs(value)
    return f"{value:.0f}" if size >= 1000 else f"{value:.1f}" if size >= 10 else \
        f"{value:.2f}" if size >= 1 else f"{value:.3g}"


def fmt_ci(mean, low, high, n, flagged) -> str:
    if pd.isna(n) or n == 0:
        return "–"
    text = fmt(mean) + (f" [{fmt(low)}, {fmt(high)}]" if n >= 2 else " (n=1)")
    return text + (f" †{int(flagged)}" if flagged else "")


def heaviest_case(run: Run) -> int:
    cases = tables.ok_rows(run)[tables.CASE_COLUMNS].drop_duplicates()
    if cases.empty:
        raise ResultFileError(run.dir / "summary.csv", "has no iteration with status ok")
    return int(cases.sort_values(["requests", "rows", "joins"]).iloc[-1]["case"])


def code_version() -> str:
    try:
        out = subprocess.run(["git", "-C", str(CODE_DIR), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def build(run: Run, out: Path, timeline_case: int | None) -> None:
    figs, tabs = out / "figures", out / "tables"
    figs.mkdir(parents=True)
    tabs.mkdir()
    agg, sig = tables.aggregate(run), tables.significance(run)
    if agg.empty:
        raise ResultFileError(run.dir / "summary.csv", "has no iteration with status ok")
    study = load_study()
    side = replication.side_by_side(agg, run.cores, study)
    ratios = replication.ratios(side)
    results = replication.verdicts(sig)
    status, problems = tables.run_status(run), tables.problems(run)

    agg.to_csv(tabs / "metrics.csv", index=False)
    sig.to_csv(tabs / "significance.csv", index=False)
    side.to_csv(tabs / "study_side_by_side.csv", index=False)
    ratios.to_csv(tabs / "study_ratios.csv", index=False)
    replication.verdict_table(results).to_csv(tabs / "verdicts.csv", index=False)
    status.to_csv(tabs / "iterations.csv", index=False)
    problems.to_csv(tabs / "problem_iterations.csv", index=False)

    apis = [a for a in ("rest", "graphql") if a in set(agg["api"])]
    # The figures that read JTLs and sampler files come first, so a broken one fails fast.
    case = heaviest_case(run) if timeline_case is None else timeline_case
    details = detail_figures(run, agg, apis, case, figs)
    doc = Doc(f"Testbed report: run {run.run_id}")
    intro(doc, run, status, problems)
    verdict_section(doc, results)
    study_section(doc, run, agg, sig, study, apis, figs, tabs)
    extra_section(doc, run, agg, sig, apis, tabs)
    doc.heading(2, "Latency distributions and resources over time")
    for path, caption in details:
        doc.figure(path, caption)
    replication_section(doc, run, side, ratios, apis)
    (out / "report.md").write_text(markdown(doc, out))
    (out / "index.html").write_text(html_page(doc))


def intro(doc: Doc, run: Run, status: pd.DataFrame, problems: pd.DataFrame) -> None:
    m = run.manifest
    machine = m.get("machine", {})
    doc.para(f"Profile {m.get('profile', '?')}; results commit {m.get('git_commit', '?')}"
             f"{' (dirty)' if m.get('git_dirty') else ''}; report written "
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} by analysis at "
             f"commit {code_version()}.")
    doc.para(f"Machine: {machine.get('cpu_model', '?')}, {run.cores} cores, "
             f"{machine.get('mem_total_mb', '?')} MB RAM, kernel {machine.get('kernel', '?')}. "
             "Versions: " + ", ".join(f"{k} {v}" for k, v in m.get("versions", {}).items()
                                      if isinstance(v, (str, int, float))) + ".")
    profile = m.get("settings", {}).get("profile", {})
    if isinstance(profile, dict) and profile.get("threads"):
        doc.para(f"Load ({profile.get('name', '?')} profile): JMeter threads = {profile['threads']}; "
                 f"warm-up {profile.get('warmup_s', '?')} s, measured window "
                 f"{profile.get('duration_s', '?')} s. Case labels give the study's users per case; "
                 "where the profile caps threads, the load actually applied is the cap.")
    doc.heading(2, "How to read this report")
    doc.bullets([
        "Every value is the mean over the iterations with status ok; brackets give the 95 % "
        "t-interval of that mean across iterations; (n=1) means a single iteration, so no interval.",
        "† k: k of the iterations behind the value were flagged as untrustworthy by the run "
        "(e.g. errors, a saturated load generator); they are included, so weigh the value accordingly.",
        f"Significance (ASP.NET Core vs Express.js, two-sided, alpha = {ALPHA}): Mann-Whitney U on "
        "per-iteration values; Welch's t-test when there are only 2-3 iterations on a side (Mann-Whitney "
        "cannot reach p < 0.05 there); with 1 iteration it cannot be judged.",
        "CPU % is of one core, as top prints it: 100 % = one core busy, "
        f"{100 * run.cores} % = this whole {run.cores}-core machine.",
    ])
    doc.heading(2, "Iterations")
    doc.table(status.rename(columns={"framework": "Framework", "api": "API"}),
              "Iterations per framework and API (flagged is a subset of ok)")
    if not problems.empty:
        doc.table(problems, "Iterations excluded from the statistics (failed, excluded) or flagged")
    if run.duplicates:
        doc.para(f"summary.csv held {run.duplicates} row(s) for cells that were run again; the last "
                 "row of each cell was used.")


def verdict_section(doc: Doc, results) -> None:
    doc.heading(2, "Does it reproduce the study? Verdicts per claim")
    doc.para("A claim is reproduced when the difference is significant in the claimed direction in "
             f"every one of its cells (case x metric) and opposite in none; not reproduced when it is "
             f"significantly opposite in at least {replication.NOT_REPRODUCED_SHARE:.0%} of its cells; "
             "inconclusive otherwise (mixed, not significant, or fewer than 2 iterations). "
             "Memory is compared as peak RSS.")
    doc.table(pd.DataFrame([{
        "Claim (study section)": f"{v.claim.text} ({v.claim.source})",
        "Cases": " ".join(map(str, v.claim.cases)), "Metrics": ", ".join(v.claim.metrics),
        "Verdict": v.verdict, "Cells judged": f"{v.cells} of {v.cells + len(v.missing)}",
        "Why": v.explanation} for v in results]))


def display_wide(run: Run, wide: pd.DataFrame, study: pd.DataFrame | None) -> pd.DataFrame:
    shown = pd.DataFrame({"Case": [case_label(*c) for c in wide[tables.CASE_COLUMNS].itertuples(index=False)]})
    frameworks = [c[:-5] for c in wide.columns if c.endswith("_mean")]
    for f in ordered_frameworks(frameworks):
        shown[run.display_name(f)] = [fmt_ci(*r) for r in wide[[f"{f}_mean", f"{f}_ci_low", f"{f}_ci_high",
                                                                 f"{f}_n", f"{f}_flagged"]].itertuples(index=False)]
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
                    row[f"ours {run.display_name(f)}"] = fmt_ci(r["mean"], r["ci_low"], r["ci_high"], r["n"], 0)
                ratio = ratios[(ratios["api"] == api) & (ratios["case"] == case) & (ratios["study_metric"] == metric)]
                row["study ratio A/E"] = fmt(ratio["study_ratio"].iloc[0]) if not ratio.empty else "–"
                row["our ratio A/E"] = fmt(ratio["our_ratio"].iloc[0]) if not ratio.empty else "–"
                rows.append(row)
            spec = next(t for t in STUDY_TABLES if t.api == api and t.study_metric == metric)
            doc.table(pd.DataFrame(rows), f"Table {spec.number} ({spec.title.split(' (')[0]}) beside "
                                          f"ours ({METRICS[column].label}), in {unit}")
