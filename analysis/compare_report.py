"""The page of `./testbed compare RUN_A RUN_B`: results/compare-<a>-<b>/ with index.html, report.md,
compare.csv (each framework's own figures, B/A) and ratios.csv (run B's framework ratio over run
A's), analysis.compare's numbers, rebuilt whole each time, as a run's report is."""
from pathlib import Path

import pandas as pd

from analysis import compare
from analysis.answer import BOUND_TEXT, SIGNIFICANT
from analysis.differing import differing, flat
from analysis.folder_swap import replace_dir
from analysis.formatting import known
from analysis.load import Run, load_run
from analysis.metrics import case_label
from analysis.pool_files import Spread
from analysis.records import Placement
from analysis.render import Doc, write
from analysis.stats import ALPHA

HEADINGS = {"throughput_rps": "Throughput B/A", "p95_ms": "p95 B/A", "app_cpu_ms_per_req": "App CPU per request B/A"}
API_TITLES = {"rest": "REST", "graphql": "GraphQL"}


def write_comparison(run_a: Path, run_b: Path, results_dir: Path, pool: str | None = None) -> Path:
    """Compare two runs (B over A) into results_dir/compare-<a>-<b>/; returns that folder. `pool`:
    --pool (analysis.compare.spread_for). Raises compare.NotComparable for runs of different data
    sets or without a shared cell, or a --pool of other runs."""
    a, b = load_run(Path(run_a)), load_run(Path(run_b))
    compare.check(a, b)
    spread = compare.spread_for(a, b, Path(results_dir), pool)
    found, between = compare.cells(a, b, spread), compare.ratios(a, b, spread)
    return replace_dir(Path(results_dir) / f"compare-{a.run_id}-{b.run_id}",
                       lambda out: build(a, b, found, between, spread, out))


def build(a: Run, b: Run, found: pd.DataFrame, between: pd.DataFrame, spread: Spread | None, out: Path) -> None:
    out.mkdir(parents=True)
    found.to_csv(out / "compare.csv", index=False)
    between.to_csv(out / "ratios.csv", index=False)
    doc = Doc(f"Run {b.run_id} against run {a.run_id}")
    doc.para(f"Run B ({b.run_id}) over run A ({a.run_id}), per framework, API and case; both measured data set "
             f"{compare.checksum(a)[:12]}…. Throughput above 1: B served more requests per second; p95 and CPU per "
             "request below 1: B was faster or used less. Each interval is from the two runs' own rounds as "
             "independent groups (the delta method on the log scale, Welch's degrees of freedom)"
             + (", plus the spread between runs (below)" if spread else "") + "; "
             f"{SIGNIFICANT} significant, q < {ALPHA} over this comparison's cells (Benjamini-Hochberg). A side "
             "whose items were load-generator bound makes the ratio a bound (≥ or ≤), and a side its run's "
             "checks left without a usable value says so; neither is judged (compare.csv has every figure).")
    doc.para(spread_text(spread, [run.run_id for run in (a, b)]))
    doc.para(" ".join(f"Run {name}: {machine_text(run)}." for name, run in (("A", a), ("B", b))))
    arms = sorted({framework for framework, _, _ in compare.shared(a, b)})
    lines = differing(recorded(a, arms), recorded(b, arms))
    doc.para("What differs between the runs (A against B): " + "; ".join(lines) + "." if lines else
             "Their recorded machines, versions and settings do not differ: a different ratio is the "
             "measurement's own spread, or a change the manifests do not record.")
    for api in [x for x in API_TITLES if x in set(found["api"])]:
        doc.heading(2, API_TITLES[api])
        doc.table(table(a, found[found["api"] == api]), f"{API_TITLES[api]}: run B / run A per framework and case, "
                                                        f"95 % interval; {SIGNIFICANT} significant (q < {ALPHA})")
    ratios_section(doc, a, between)
    alone = [f"only in run {name}: " + ", ".join(f"{f} {API_TITLES[api]} case {case}" for f, api, case in sorted(keys))
             for name, keys in (("A", compare.measured(a) - compare.measured(b)),
                                ("B", compare.measured(b) - compare.measured(a))) if keys]
    if alone:
        doc.para("Not compared, " + "; ".join(alone) + ".")
    write(doc, out)


def spread_text(spread: Spread | None, ids: list[str]) -> str:
    if spread is None:
        return ("No spread between runs is known for runs like these (no pool of such runs in the results "
                "directory, or --pool none): these intervals are within-run only, so a difference between two "
                "runs is called significant more often than the 5 % they promise (analysis/README.md, The spread "
                "between runs, has the figures). Pool runs of one commit and these settings (./testbed pool RUN_A "
                "RUN_B …) to know it; this comparison then adds it.")
    return (f"The spread between runs, τ, is pool {spread.folder.name}'s (runs {', '.join(spread.runs)}, commit "
            f"{(spread.git_commit or 'unknown')[:12]}; the same data set, load generator, layout, machine and settings "
            "as these two): each run of a cell lands off its true value by a run's own departure, so every interval "
            "below adds 2τ² to the log ratio's variance, τ per framework (or framework ratio), API and metric "
            "(compare.csv and ratios.csv: `tau`). Rows with no τ in the pool are within-run only."
            + (" These runs are among the pooled ones, so τ was estimated partly from their own difference: the "
               "comparison then asks whether they differ more than runs of this setup usually do."
               if set(ids) & set(spread.runs) else ""))


def ratios_section(doc: Doc, a: Run, between: pd.DataFrame) -> None:
    if between.empty:
        return
    doc.heading(2, "The framework ratios between runs")
    doc.para("What the comparison of two frameworks says in each run, and run B's ratio over run A's: 1 when the "
             "two runs give the same answer. Each run's ratio is its report's (paired rounds or independent "
             "groups); the interval of B's over A's adds the two runs' log variances" +
             " and 2τ² where τ is known" + f"; {SIGNIFICANT} significant, q < {ALPHA} over this table's rows "
             "(ratios.csv).")
    for api in [x for x in API_TITLES if x in set(between["api"])]:
        rows = []
        for (numerator, denominator, case), cell in between[between["api"] == api].groupby(
                ["numerator", "denominator", "case"], sort=False):
            by = cell.set_index("metric")
            first = cell.iloc[0]
            line = {"Ratio": f"{a.display_name(numerator)} / {a.display_name(denominator)}",
                    "Case": case_label(case, first["requests"], first["rows"], first["joins"])}
            line.update({HEADINGS[m].replace(" B/A", ""): between_text(by.loc[m]) for m in compare.METRICS
                         if m in by.index})
            rows.append(line)
        doc.table(pd.DataFrame(rows), f"{API_TITLES[api]}: run A's ratio → run B's: B's over A's, 95 % interval; "
                                      f"{SIGNIFICANT} significant (q < {ALPHA})")


def between_text(cell: pd.Series) -> str:
    each = " → ".join(f"{v:.2f}" if pd.notna(v) else "–" for v in (cell["a_ratio"], cell["b_ratio"]))
    if pd.isna(cell["ratio"]):
        return f"{each}: not judged ({cell['note']})"
    if cell["bound"] == "both":
        return f"{each}: not measurable, bound both ways ({cell['note']})"
    if cell["bound"]:
        return f"{each}: {BOUND_TEXT[cell['bound']]} {cell['ratio']:.2f} ({cell['note']})"
    if pd.isna(cell["ratio_low"]):
        return f"{each}: {cell['ratio']:.2f} ({cell['note']})"
    return (f"{each}: {cell['ratio']:.2f} [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"
            + (f" {SIGNIFICANT}" if cell["significant"] else ""))


def machine_text(run: Run) -> str:
    m = run.manifest
    return (f"{known(m.machine.cpu_model)}, {run.cores} cores, kernel {known(m.machine.kernel)}; profile "
            f"{known(m.profile)}, {run.summary['round'].nunique()} rounds")


def recorded(run: Run, arms: list[str]) -> dict:
    """What a run recorded about where and how it measured, flat: machine, versions, database,
    settings (frameworks and cases included), pinning, and what the compared arms' processes loaded."""
    m = run.manifest
    return flat({"machine": m.machine.recorded, "versions": m.versions,
                 "database": {"version": m.database_version},
                 "settings": {k: v for k, v in m.settings.recorded.items() if k != "profile"},
                 # Where the load generator ran: `layout` from schema 4, `pinning` before.
                 "profile": m.profile,
                 "pinning": {"applied": (m.layout or m.pinning or Placement()).applied},
                 "loaded": {arm: run.entry(arm).loaded for arm in arms}})


def table(a: Run, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per framework and case, a column per metric."""
    shown = []
    for (framework, case), cell in rows.groupby(["framework", "case"], sort=False):
        by = cell.set_index("metric")
        first = cell.iloc[0]
        line = {"Framework": a.display_name(framework),
                "Case": case_label(case, first["requests"], first["rows"], first["joins"])}
        line.update({HEADINGS[m]: ratio_text(by.loc[m]) for m in compare.METRICS if m in by.index})
        line["Rounds A / B"] = f"{by.loc['throughput_rps', 'a_n']} / {by.loc['throughput_rps', 'b_n']}"
        shown.append(line)
    return pd.DataFrame(shown)


def ratio_text(cell: pd.Series) -> str:
    if pd.isna(cell["ratio"]):
        return f"not judged: {cell['note']}"
    if cell["bound"] == "both":
        return f"not measurable: both runs load-generator bound (measured {cell['ratio']:.2f})"
    if cell["bound"]:
        return f"{BOUND_TEXT[cell['bound']]} {cell['ratio']:.2f} ({cell['note']})"
    text = f"{cell['ratio']:.2f}" + (f" [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"
                                     if pd.notna(cell["ratio_low"]) else f" ({cell['note']})")
    return text + (f" {SIGNIFICANT}" if cell["significant"] else "")
