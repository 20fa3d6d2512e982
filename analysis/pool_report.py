"""The page of `./testbed pool RUN_A RUN_B …`: results/pool-<first>-<last>/ with index.html,
report.md, manifest.json, the tables as CSV and the forest plots (analysis.pool's numbers), rebuilt
whole each time, as a run's report is. <first> and <last> are the earliest and latest run ids, so
the folder does not depend on the order the runs were named in.

Files: `pooled.csv` (each comparison's pooled cells, analysis.pool.POOLED_COLUMNS), `runs.csv`
(every run's cells that went in, UNIT_COLUMNS), `families.csv` (tau, I^2, Q per family,
FAMILY_COLUMNS; `./testbed compare` reads it), `verdicts.csv` and `claim_cells.csv` (the study's
claims judged on the pooled cells, as a run's report writes them), `figures/pool_<numerator>_vs_
<denominator>_<api>.png`."""
import math
from pathlib import Path

import pandas as pd

from analysis import answer, pool, pool_files, rounds_needed
from analysis.answer import HEADINGS, SIGNIFICANT, STUDY_PAIR
from analysis.folder_swap import replace_dir
from analysis.load import Run, load_run
from analysis.metrics import case_label
from analysis.pool_figures import forest
from analysis.render import Doc, write
from analysis.stats import ALPHA
from analysis.verdicts import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

API_TITLES = {"rest": "REST", "graphql": "GraphQL"}
WITHIN = "Inside one run the intervals hold; between runs of one commit the ratios move more than they allow"


def folder_name(runs: list[Run]) -> str:
    return f"pool-{runs[0].run_id}-{runs[-1].run_id}"


def write_pool(run_dirs: list[Path], results_dir: Path, reference: str | None = None) -> Path:
    """Pool the runs into results_dir/pool-<first>-<last>/; returns that folder. Raises
    pool.NotPoolable for fewer than two runs or runs that differ in how they measured, and
    answer.UnknownReference for a --reference none of them has."""
    runs = sorted((load_run(Path(d)) for d in run_dirs), key=lambda r: r.run_id)
    pool.check(runs)
    answer.reference(runs[0], reference)
    units = pool.units(runs, reference)
    families, cells = pool.fit(units, rounds_needed.target(runs[0].manifest),
                               rounds_needed.seconds_per_round(runs[0]))
    cells = pool.adjusted(cells, runs[0].checked)
    return replace_dir(Path(results_dir) / folder_name(runs),
                       lambda out: build(runs, units, families, cells, reference, out))


def build(runs: list[Run], units: pd.DataFrame, families: pd.DataFrame, cells: pd.DataFrame,
          reference: str | None, out: Path) -> None:
    figs = out / "figures"
    figs.mkdir(parents=True)
    results, verdict_table, claim_cells = pool.judge(runs, cells)
    cells.to_csv(out / "pooled.csv", index=False)
    units.to_csv(out / "runs.csv", index=False)
    families.to_csv(out / pool_files.FAMILIES, index=False)
    verdict_table.to_csv(out / "verdicts.csv", index=False)
    claim_cells.to_csv(out / "claim_cells.csv", index=False)
    pool.write_manifest(out / pool_files.MANIFEST, pool.manifest(runs, families))

    first = runs[0]
    ids = [run.run_id for run in runs]
    doc = Doc(f"{len(runs)} runs pooled: {ids[0]} … {ids[-1]}")
    doc.para(f"Runs {', '.join(ids)}: one commit ({first.manifest.git_commit[:12]}), data set "
             f"{first.manifest.dataset_checksum[:12]}…, load generator {first.manifest.loadgen_tool}, machine "
             f"{first.manifest.machine.cpu_model or 'unknown'} with {first.cores} cores, profile "
             f"{first.manifest.profile or 'unknown'}, the same settings; "
             + ", ".join(f"{run.run_id} {run.summary['round'].nunique()} rounds" for run in runs) + ".")
    doc.para(f"{WITHIN} (on a 2-core machine one cell's ratio moved four times its standard error). A single "
             "run's report gives intervals for that run. Here each cell's ratio is pooled over the runs with an "
             "interval that counts the spread between runs: per comparison, API and metric one between-run "
             "standard deviation τ of the log ratio (Paule-Mandel), each run weighted by 1 / (its standard "
             "error² + τ²), the interval from t on the family's degrees of freedom (Hartung-Knapp: the sum over "
             "its cases of runs − 1), or on fewer where the runs' own few rounds carry most of the variance "
             "(Welch-Satterthwaite). I² is the share of the spread between runs that their own intervals do not "
             "explain. "
             f"With {len(runs)} runs τ rests on few degrees of freedom per case, which is why one τ serves a "
             "whole family; each run's ratio is drawn beside the pooled one, so a case that moves more than the "
             f"others shows. {SIGNIFICANT} significant: q < {ALPHA} (Benjamini-Hochberg over each "
             "comparison's cells, as a run's report). A cell bound by the load generator in any run stays a bound "
             "and is not judged. The model and why: analysis/meta.py and analysis/pool.py.")
    metrics_shown = answer.shown(cells)
    doc.heading(2, "The spread between runs")
    doc.table(spread_table(first, families[families["kind"] == pool_files.RATIO], metrics_shown),
              "τ per comparison, API and metric: the between-run standard deviation of the log ratio, as "
              "≈ ± % a run's ratio moves; Q and its p test for no spread between runs")
    for versus in answer.framework_comparisons(first, reference):
        mine = cells[(cells["numerator"] == versus.numerator) & (cells["denominator"] == versus.denominator)]
        doc.heading(2, f"{first.display_name(versus.numerator)} / {first.display_name(versus.denominator)}"
                    + (" (A/E)" if versus.study else ""))
        for api in [a for a in API_TITLES if a in set(mine["api"])]:
            part = mine[mine["api"] == api]
            doc.heading(3, API_TITLES[api])
            doc.table(cell_table(part, metrics_shown),
                      f"{API_TITLES[api]}: pooled ratio per case, 95 % interval with τ; {SIGNIFICANT} significant "
                      f"(q < {ALPHA}); the runs and rounds that would bring the throughput's interval within ±10 % "
                      "at the spread seen, at 80 % power (every metric's: pooled.csv, runs_needed)")
            theirs = units[(units["kind"] == pool_files.RATIO) & (units["numerator"] == versus.numerator)
                           & (units["denominator"] == versus.denominator) & (units["api"] == api)]
            path = figs / f"pool_{versus.numerator}_vs_{versus.denominator}_{api}.png".replace(":", "-")
            doc.figure(forest(first, ids, theirs, part, [m for m in metrics_shown if m in set(part["metric"])],
                              api, versus, path),
                       f"{API_TITLES[api]}: each run's ratio and the pooled one, per case")
    if set(STUDY_PAIR) <= set(answer.framework_arms(first)):
        verdict_section(doc, results)
    own = families[families["kind"] == pool_files.OWN]
    if not own.empty:
        doc.heading(2, "Each framework's own figures")
        doc.para("The spread between runs of each framework's own throughput, p95 and CPU per request (not a "
                 "ratio): what `./testbed compare` adds to a framework's figures of two runs.")
        doc.table(own_table(first, own), "τ per framework, API and metric")
    write(doc, out)


def tau_text(tau) -> str:
    return "unknown" if tau is None or pd.isna(tau) else f"{tau:.3f} (≈ ±{math.expm1(tau) * 100:.0f} %)"


def spread_row(family: pd.Series) -> dict:
    return {"API": API_TITLES.get(family["api"], family["api"]), "Metric": HEADINGS.get(family["metric"],
                                                                                        family["metric"]),
            "τ": tau_text(family["tau"]),
            "I²": "–" if pd.isna(family["i2"]) else f"{family['i2'] * 100:.0f} %",
            "Q (df)": "–" if pd.isna(family["q_cochran"]) else f"{family['q_cochran']:.1f} ({int(family['df'])})",
            "p": "–" if pd.isna(family["q_p"]) else f"{family['q_p']:.3g}",
            "Cases, runs": f"{int(family['cells'])}, {int(family['runs'])}"}


def spread_table(run: Run, families: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    return pd.DataFrame([{"Comparison": f"{run.display_name(f['numerator'])} / {run.display_name(f['denominator'])}",
                          **spread_row(f)} for _, f in families[families["metric"].isin(metrics)].iterrows()])


def own_table(run: Run, families: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([{"Framework": run.display_name(f["numerator"]), **spread_row(f)}
                         for _, f in families.iterrows()])


def ratio_text(cell: pd.Series) -> str:
    if pd.isna(cell["ratio"]):
        return f"– ({cell['ratio_note']})" if cell["ratio_note"] else "–"
    if cell["bound"] == "both":
        return f"not measurable: bound both ways ({cell['ratio_note']})"
    if cell["bound"]:
        return f"{answer.BOUND_TEXT[cell['bound']]} {cell['ratio']:.2f} ({cell['ratio_note']})"
    if pd.isna(cell["ratio_low"]):
        return f"{cell['ratio']:.2f} (not judged: {cell['ratio_note']})"
    return (f"{cell['ratio']:.2f} [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"
            + (f" {SIGNIFICANT}" if cell["judged"] and cell["significant"] else ""))


def cell_table(part: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    rows = []
    for (case, *load), group in part.groupby(["case", "requests", "rows", "joins"], sort=True):
        by = group.set_index("metric")
        row = {"Case": case_label(case, *load)}
        row.update({HEADINGS[m]: ratio_text(by.loc[m]) if m in by.index else "–" for m in metrics})
        row["Runs"] = int(by["runs"].max())
        row["Runs × rounds for ±10 %, throughput"] = (by.loc["throughput_rps", "runs_needed"] or "–") \
            if "throughput_rps" in by.index else "–"
        rows.append(row)
    return pd.DataFrame(rows)


def verdict_section(doc: Doc, results: list) -> None:
    counts = {v: sum(r.verdict == v for r in results) for v in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)}
    doc.heading(2, "The study's claims, judged on the pooled cells")
    doc.para(f"The verdict rules of a run's report (analysis.verdicts), on the pooled ASP.NET Core / Express.js "
             f"cells: {counts[REPRODUCED]} reproduced, {counts[NOT_REPRODUCED]} not reproduced, "
             f"{counts[INCONCLUSIVE]} inconclusive, {len(results) - sum(counts.values())} that this machine "
             "cannot judge. verdicts.csv and claim_cells.csv hold every cell's test.")
    doc.table(pd.DataFrame([{"Claim": r.claim.id, "Tested": r.claim.summary, "Verdict": r.verdict,
                             "Why": r.explanation} for r in results]), "Verdicts on the pooled cells")
