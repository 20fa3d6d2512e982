"""Runs of one commit and settings pooled (`./testbed pool RUN_A RUN_B …`): what the answer and the
verdicts say once the spread between runs is counted, not only the spread inside each.

Issue 53 measured why this is needed: one cell's ratio moved between runs of one commit four times
more than each run's interval allowed (REST 16 over 17, Cochran's Q = 14.1 on 3 df), so a single
run's interval is an interval for that run, not for the next one. Pooling puts the spread between
runs into the interval.

What is pooled. Each run's cells as its own report computes them, never recomputed here: the
study's pair from analysis.verdicts.report_cells (paired rounds or independent groups, moderated,
widened after extra rounds: analysis.tables, analysis.paired), any other framework comparison of
the answer from analysis.tables.compare_arms, and memory from fresh processes from
analysis.answer.memory_cells; each cell gives its log ratio and log standard error. Per family
(one comparison, API and metric; the cells are its cases) analysis.meta fits one between-run
spread tau (Paule-Mandel), and each cell's pooled ratio is the weighted mean of its runs' log
ratios, weights 1 / (s^2 + tau^2), with its interval from t on the family's degrees of freedom
(Hartung-Knapp): the model, the estimator and why are in analysis/meta.py. Each framework's own
figures (throughput, p95, CPU per request per case, as `./testbed compare` reads them:
analysis.compare.side) get a tau of their own per framework, API and metric, which compare uses;
they are not pooled into cells.

A cell is pooled from the runs where it has an interval. Where any run's ratio is a bound (the load
generator held that run's arm back) the pooled ratio is a bound too, in the direction the runs'
bounds point (`both` when they disagree), and not judged: a bound in one run says that run did not
measure the cell, and averaging it with the others would pass a bound off as a measurement, as a
single run's report never does. A run whose cell has no interval (one pair, no variation) is left
out of that cell, and its note says so. Where no cell of a family has an interval in two runs, tau
is unknown and the family's cells are not judged.

Significance and verdicts. p is the pooled t test; q is Benjamini-Hochberg over each comparison's
judged cells, as in a single run's report (the study's pair over analysis.verdicts.Q_FAMILY plus the
fresh processes' memory, which pay the adjustment like any other cell; any other comparison over
the answer's metrics), and the Little's-law mean takes its throughput's q
(analysis.little_q.with_q_of). The study's claims are judged on the pooled cells by
analysis.verdicts itself, with the fresh processes' memory standing for the run-long peak where the
runs measured it (as analysis.memory.for_verdicts does for one run).

Which runs. Only runs that differ in nothing the manifests record about how they measured: the
commit (and whether the tree was dirty), the data set, the load generator, the layout, the machine
(CPU model and cores) and every setting (frameworks, APIs, cases, iterations, the profile, pinning,
engines). tau is then the spread of repeating one measurement; a pool of two machines or two
versions would fold their difference into tau, and that is `./testbed compare`'s question. Anything
else is NotPoolable, in one line naming the difference.
"""
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import answer, compare, memory, meta, rounds_needed, scope, tables, validity, verdicts
from analysis.claims import CLAIMS
from analysis.differing import differing
from analysis.little_q import with_q_of
from analysis.load import Run
from analysis.pool_files import FAMILY_COLUMNS, FAMILY_KEY, MATCHED, OWN, RATIO, SCHEMA_VERSION, recorded, shared
from analysis.stats import ALPHA, adjust_family
from analysis.study import load_study
from analysis.study_check import checks
from analysis.tables import CASE_COLUMNS
from analysis.version import code_version
from benchlib.stopping import TARGET

# `spread`: one round's sd of the log ratio (analysis.stats.Ratio.spread), for runs_needed.
UNIT_COLUMNS = ["kind", "numerator", "denominator", "api", *CASE_COLUMNS, "metric", "run", "ratio", "ratio_low",
                "ratio_high", "log_se", "df", "pairs", "spread", "bound", "note"]
# `runs_needed`: the runs and rounds that would bring the cell's interval within the target (runs_needed).
POOLED_COLUMNS = ["numerator", "denominator", "api", *CASE_COLUMNS, "metric", "ratio", "ratio_low", "ratio_high",
                  "log_se", "df", "p", "q", "significant", "judged", "bound", "runs", "pairs", "tau", "ratio_note",
                  "runs_needed"]


class NotPoolable(ValueError):
    """The runs cannot be pooled: too few, or they differ in how they measured."""


def check(runs: list[Run]) -> None:
    """Raise NotPoolable unless there are two runs or more, each named once, all recording a commit
    and a data set, and none differing from the first in what MATCHED names."""
    if len(runs) < 2:
        raise NotPoolable(f"pooling needs two runs or more, got {len(runs)}: name every run to pool, "
                          "e.g. ./testbed pool RUN_A RUN_B")
    ids = [run.run_id for run in runs]
    twice = next((i for i in ids if ids.count(i) > 1), None)
    if twice:
        raise NotPoolable(f"run {twice} is named twice: a run pooled with itself would count its spread "
                          "as no spread between runs")
    for run in runs:
        for what, value in (("commit (manifest git_commit)", run.manifest.git_commit),
                            ("data set checksum (manifest database.dataset.checksum)", run.manifest.dataset_checksum)):
            if not value:
                raise NotPoolable(f"run {run.run_id} records no {what}, so it cannot be shown to measure what the "
                                  "others did; pool runs made by ./testbed run, which records it")
    first = runs[0]
    for run in runs[1:]:
        found = differing(recorded(first), recorded(run))
        if found:
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            raise NotPoolable(f"run {run.run_id} differs from run {first.run_id} in {found[0]}{more}; pool runs "
                              f"of one {', '.join(MATCHED[:-1])} and {MATCHED[-1]}")


def ratio_units(run: Run, versus: answer.Versus) -> pd.DataFrame:
    """One run's cells of a comparison as its own report computes them (module docstring)."""
    if versus.study:
        cells = verdicts.report_cells(run)
    else:
        cells = tables.compare_arms(run, versus.numerator, versus.denominator)
    fresh = answer.memory_cells(run, cells, versus)
    cells = pd.concat([c for c in (cells, fresh) if not c.empty] or [cells], ignore_index=True)
    return cells.assign(kind=RATIO, numerator=versus.numerator, denominator=versus.denominator, run=run.run_id,
                        bound=cells["bound"].fillna("") if "bound" in cells else "",
                        note=cells["ratio_note"].fillna("")).reindex(columns=UNIT_COLUMNS)


def own_units(run: Run) -> pd.DataFrame:
    """Each framework's own mean per API, case and metric of analysis.compare.METRICS, from the
    values `./testbed compare` uses (analysis.compare.side), with the delta method's log standard
    error sd / (mean sqrt(n)) on n - 1 degrees of freedom."""
    items = validity.judged(run)
    records = []
    for (framework, api, *case), cell in items.groupby(["framework", "api", *CASE_COLUMNS], sort=False):
        for metric in compare.METRICS:
            state, values, why = compare.side(cell, metric)
            n = len(values)
            mean = float(values.mean()) if n else math.nan
            se = float(values.std(ddof=1) / (mean * math.sqrt(n))) if n > 1 else math.nan
            records.append({"kind": OWN, "numerator": framework, "denominator": "", "api": api,
                            **dict(zip(CASE_COLUMNS, case)), "metric": metric, "run": run.run_id, "ratio": mean,
                            "log_se": se, "df": n - 1 if n > 1 else math.nan, "pairs": n,
                            "bound": state if state == compare.BOUND else "",
                            "note": why or ("one usable value" if n == 1 else "")})
    return pd.DataFrame.from_records(records, columns=UNIT_COLUMNS)


def units(runs: list[Run], reference: str | None = None) -> pd.DataFrame:
    """Every run's cells: each comparison of the framework answer (the first run's reference over
    each other framework), the study's pair whatever the reference (the claims are judged on it, as
    in a run's report), and each framework's own figures."""
    against = answer.framework_comparisons(runs[0], reference)
    if set(answer.STUDY_PAIR) <= set(answer.framework_arms(runs[0])) and answer.STUDY not in against:
        against.append(answer.STUDY)
    frames = [ratio_units(run, versus) for run in runs for versus in against] + [own_units(run) for run in runs]
    return pd.concat([f for f in frames if not f.empty] or [pd.DataFrame(columns=UNIT_COLUMNS)], ignore_index=True)


def usable(found: pd.DataFrame) -> pd.Series:
    """The units the model takes: an interval, no bound."""
    se = pd.to_numeric(found["log_se"], errors="coerce")
    ratio = pd.to_numeric(found["ratio"], errors="coerce")
    return (found["bound"].fillna("") == "") & (se > 0) & np.isfinite(se) & (ratio > 0)


def fit(found: pd.DataFrame, width: float = TARGET, seconds: float | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(families.csv: one model per family, FAMILY_COLUMNS; the pooled cells of the comparisons,
    POOLED_COLUMNS, before the family adjustment). `width`: the half-width a settled interval has
    (analysis.rounds_needed.target), `seconds` a round of the whole run
    (analysis.rounds_needed.seconds_per_round), for `runs_needed`."""
    found = found.assign(usable=usable(found))
    families, cells = [], []
    for key, family in found.groupby(FAMILY_KEY, sort=False):
        part = family[family["usable"]]
        model = meta.fit(np.log(part["ratio"].astype(float)), part["log_se"].astype(float), part["case"],
                         part["df"].astype(float))
        families.append({**dict(zip(FAMILY_KEY, key)), "runs": part["run"].nunique(), "cells": part["case"].nunique(),
                         "tau": model.tau if model.known else None, "tau2": model.tau2 if model.known else None,
                         "dl_tau": math.sqrt(model.dl_tau2) if model.known else None,
                         "q_cochran": model.q if model.known else None, "df": model.df, "q_p": model.q_p,
                         "i2": model.i2})
        if key[0] == RATIO:
            cells += [pooled_cell(cell, model, width, seconds)
                      for _, cell in family.groupby(CASE_COLUMNS, sort=False)]
    return (pd.DataFrame.from_records(families, columns=FAMILY_COLUMNS),
            pd.DataFrame.from_records(cells, columns=POOLED_COLUMNS))


def pooled_cell(cell: pd.DataFrame, model: meta.Fit, width: float = TARGET, seconds: float | None = None) -> dict:
    """One cell pooled over its runs (module docstring: bounds, runs left out, tau unknown)."""
    first = cell.iloc[0]
    used = cell[cell["usable"]]
    ratios = cell["ratio"].astype(float)
    ratios = ratios[ratios > 0]
    out = {**{c: first[c] for c in ["numerator", "denominator", "api", *CASE_COLUMNS, "metric"]},
           "ratio": float(np.exp(np.log(ratios).mean())) if len(ratios) else math.nan, "ratio_low": None,
           "ratio_high": None, "log_se": None, "df": None, "p": None, "q": None, "significant": False,
           "judged": False, "bound": "", "runs": len(used), "pairs": pd.to_numeric(cell["pairs"]).sum(),
           "tau": model.tau if model.known else None, "runs_needed": ""}
    bounds = cell[cell["bound"].fillna("") != ""]
    left_out = left_out_text(cell[~cell["usable"]], len(cell))
    if not bounds.empty:
        directions = set(bounds["bound"])
        return {**out, "bound": directions.pop() if len(directions) == 1 else "both",
                "ratio_note": "bound: " + ", ".join(f"run {r.run} {r.bound}" for r in bounds.itertuples())}
    if used.empty:
        return {**out, "ratio_note": left_out or "no run measured it"}
    if not model.known:
        return {**out, "ratio_note": "tau unknown: no cell of its family has an interval in two runs"}
    mean, se, df = model.means[first["case"]], model.ses[first["case"]], model.dfs[first["case"]]
    low, high = meta.interval(mean, se, df)
    p = meta.p_value(mean, se, df)
    return {**out, "ratio": math.exp(mean), "ratio_low": low, "ratio_high": high, "log_se": se, "df": df,
            "p": p, "significant": p < ALPHA, "judged": True,
            "runs_needed": runs_needed(used, model, width, seconds) if high / math.exp(mean) - 1 > width else "",
            "ratio_note": "; ".join(t for t in (left_out, f"one run: its interval with tau {model.tau:.3f} added"
                                                if len(used) == 1 else "") if t)}


def runs_needed(used: pd.DataFrame, model: meta.Fit, width: float, seconds: float | None) -> str:
    """The runs and rounds that would bring a pooled interval within `width` of its ratio (empty
    when it is already): analysis.rounds_needed.plan at its power, with one round's spread the
    runs' (root mean square of `spread`, analysis.stats.Ratio.spread), the degrees of freedom a
    moderated family lends beyond a run's rounds, and tau; "R runs × n rounds (≈ M minutes)",
    `seconds` a round of the whole run."""
    pairs, spreads = pd.to_numeric(used["pairs"]), pd.to_numeric(used["spread"])
    if pairs.isna().all() or spreads.isna().all():
        return ""  # runs without rounds (independent groups) have no round's spread to plan from
    rounds = int(pairs.median())
    spread = math.sqrt(float((spreads ** 2).mean()))
    found = rounds_needed.plan(math.log1p(width), spread, 0.95, rounds,
                               rounds_needed.borrowed_df(float(pd.to_numeric(used["df"]).median()), rounds),
                               tau=model.tau, seconds_per_round=seconds)
    return found.text() if found else (f"no plan of up to {rounds_needed.MAX_RUNS} runs × {rounds_needed.MAX_ROUNDS} "
                                       "rounds")


def left_out_text(cell: pd.DataFrame, runs: int) -> str:
    """Why runs were left out of a cell, each reason once: `in every run: n=1 pair`, or `run X: …`."""
    by_note: dict[str, list[str]] = {}
    for r in cell.itertuples():
        by_note.setdefault(r.note or "no interval", []).append(r.run)
    return "; ".join(f"in every run: {note}" if len(ids) == runs else f"run{'s' if len(ids) > 1 else ''} "
                     f"{', '.join(ids)}: {note}" for note, ids in by_note.items())


def adjusted(cells: pd.DataFrame, checked: bool) -> pd.DataFrame:
    """q per comparison (module docstring), significance read off it."""
    out = []
    for (numerator, denominator), part in cells.groupby(["numerator", "denominator"], sort=False):
        if (numerator, denominator) == answer.STUDY_PAIR:
            part = with_q_of(adjust_family(part, (*verdicts.Q_FAMILY, memory.METRIC)),
                             "throughput_rps" if checked else "mean_ms")
        else:
            part = adjust_family(part, (*answer.METRICS_ANSWERED, memory.METRIC))
        out.append(part)
    return pd.concat(out, ignore_index=True) if out else cells


def claim_cells(cells: pd.DataFrame) -> pd.DataFrame:
    """The study's pair's pooled cells as analysis.verdicts reads them: the fresh processes' memory
    in place of the run-long peak where the runs measured it."""
    study = cells[(cells["numerator"] == answer.ASPNET) & (cells["denominator"] == answer.EXPRESS)]
    fresh = study[study["metric"] == memory.METRIC].set_index(["api", "case"])
    study = study[study["metric"] != memory.METRIC].copy()
    keys = pd.Series(list(zip(study["api"], study["case"])), index=study.index, dtype=object)
    peak = study.index[(study["metric"] == "rss_peak_mb") & keys.isin(fresh.index)]
    replaced = ["ratio", "ratio_low", "ratio_high", "log_se", "df", "p", "q", "significant", "judged", "bound",
                "runs", "pairs", "ratio_note"]
    for i in peak:
        study.loc[i, replaced] = fresh.loc[(study.at[i, "api"], study.at[i, "case"]), replaced].to_numpy()
    return study


def gone(runs: list[Run]) -> dict:
    """(api, case) -> why no run has a usable pair there (analysis.scope.absent), the first run's
    words; a case one run measured is pooled from that run."""
    each = [scope.absent(run) for run in runs]
    return {key: why for key, why in each[0].items() if all(key in other for other in each[1:])}


def judge(runs: list[Run], cells: pd.DataFrame) -> tuple[list, pd.DataFrame, pd.DataFrame]:
    """(the verdicts, verdicts.csv, claim_cells.csv) on the pooled cells."""
    found = claim_cells(cells)
    results = verdicts.verdicts(CLAIMS, found, gone(runs), runs[0].cores)
    table = verdicts.verdict_table(results, checks(CLAIMS, load_study()))
    return results, table, verdicts.cell_table(CLAIMS, found)


def manifest(runs: list[Run], families: pd.DataFrame) -> dict:
    """The pool's manifest.json: what was pooled and how, so the folder says what it holds."""
    first = runs[0].manifest
    return {"schema_version": SCHEMA_VERSION, "kind": "pool", "runs": [run.run_id for run in runs],
            "git_commit": first.git_commit, "git_dirty": first.git_dirty, "code_commit": code_version(),
            "recorded": shared(runs[0]),
            "model": {"tau": "Paule-Mandel, one per family (comparison or framework, API, metric); "
                             "analysis/meta.py",
                      "interval": "weights 1 / (s^2 + tau^2); t on the family's sum of (runs - 1) degrees of "
                                  "freedom (Hartung-Knapp)",
                      "q": "Benjamini-Hochberg per comparison, as a single run's report"},
            "families": int(len(families)), "families_with_tau": int(families["tau"].notna().sum())}


def write_manifest(path: Path, content: dict) -> None:
    path.write_text(json.dumps(content, indent=2, default=str) + "\n")
