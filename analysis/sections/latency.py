"""The report's "Latency at a given rate" section, for a latency run (`--profile latency`) only: its
tables (tables/latency.csv and latency_slo.csv), how they were measured and computed, then per API
and case the figure, the table and what it says, in a sentence at one rate and the rates at which
the objective held. The numbers are analysis/latency.py's; the objective is analysis/slo.py's."""
from pathlib import Path

import pandas as pd

from analysis import figures, latency, slo, tables
from analysis.formatting import fmt, known
from analysis.load import Run
from analysis.metrics import case_label
from analysis.names import listing
from analysis.records import LatencyCell, LatencyPass
from analysis.render import Doc


def write_tables(run: Run, reference: str | None, objective: slo.Objective, tabs: Path):
    """A latency run's tables/latency.csv and tables/latency_slo.csv, returned as (rates, held);
    None for any other run."""
    rates = latency.table(run, reference)
    if rates is None:
        return None
    held = latency.slo(rates, objective)
    rates.to_csv(tabs / "latency.csv", index=False)
    held.to_csv(tabs / "latency_slo.csv", index=False)
    return rates, held


def run_text(run: Run) -> str:
    """Said once under a latency run's summary: its closed-model rounds only set the rates."""
    rounds = tables.ok_rows(run)["round"].nunique()
    return ("This is a latency run (`--profile latency`): its closed-model round measured each framework's "
            "capacity, from which the arrival rates were set, and its main result is \"Latency at a given "
            f"rate\" below. The closed-model answer further down rests on {rounds} round{'s' if rounds != 1 else ''}"
            + (", too few for intervals or tests" if rounds < 2 else "")
            + ": read it as the capacities the rates came from.")


# How the latency section measured and computed, for every latency run (analysis/README.md).
METHOD = [
    "An open model: requests arrive at a set rate whether or not earlier ones have returned, as a team's "
    "users do, instead of the closed model of the rest of this report (each JMeter thread waiting for its "
    "last response), where a slow server slows its own load down and mean response time only restates "
    "throughput (Little's law).",
    "Latency is timed from each request's intended send time, not from when JMeter sent it: when every "
    "thread of the pool is busy the next arrival goes out late, and its wait counts (no coordinated "
    "omission).",
    "The same arrival schedule for every framework: in each round, for each API, case and rate, the "
    "arrivals (Poisson: exponential gaps, seeded) are drawn once and replayed against each framework, "
    "back to back in a seeded order; the rates are fixed fractions of the slowest framework's capacity "
    "(its closed-model throughput at the case's users, measured earlier in the run) and one above it.",
    "Percentiles (p50 to p99.9) of all the samples of a rate's usable rounds pooled, never an average of "
    "per-round percentiles; the (n+1)p rank with interpolation, as elsewhere in the report.",
    f"Intervals: a 95 % percentile bootstrap ({latency.RESAMPLES} replicates, seeded), resampling the "
    "samples within each round so each round keeps its weight; the ratio's interval takes the reference's "
    "replicates over the other's. It covers the sampling noise of the samples, not drift between rounds "
    "(a handful of rounds are too few to resample), which the interleaving keeps small. A bootstrap never "
    "goes past the largest sample, so the objective reads the larger of its upper end and the "
    "distribution-free order-statistic bound, and only where the sample has one: from "
    f"{latency.needed(0.99):,} samples for p99, {latency.needed(0.999):,} for p99.9 (fewer: \"too few samples\").",
    "Only measurements collect judged valid count; a bound one (JMeter could not hold the rate, so the "
    "server was not what limited it) or an invalid one is left out and counted in the table's flags. "
    "A bound one still bounds the latency from above (JMeter's lag only adds to a latency counted from "
    "the intended time): where every round of a rate was bound, the table shows that upper bound, and "
    "the objective may hold on it but never fail on it. "
    "Saturated (the server could not keep up) is a result, not a fault: it counts, and is drawn hollow.",
    "An arrival still unsent when its schedule ended is dropped: it has no latency, so a rate's "
    "percentiles are of the sent arrivals and, where some were dropped, understate the tail (the "
    "table's flags count them); a rate that dropped more than 1 - q of its arrivals (in the rounds the "
    "verdict reads, bound ones included) is never counted as holding a q-percentile objective.",
]


def thresholds_text(entry: LatencyPass) -> str:
    """collect's thresholds for bound, invalid and saturated, in its own words (the manifest's
    latency.checks.thresholds); empty for a run that did not record them."""
    found = entry.thresholds
    if not found:
        return ""
    return "The checks, as this run recorded them: " + "; ".join(
        f"{name}: {found[name]}" for name in ("bound", "invalid", "saturated") if name in found) + "."


def rate_text(rps) -> str:
    return f"{rps:,.0f} req/s" if pd.notna(rps) else "–"


def fmt_ms(value) -> str:
    """Milliseconds as a reader compares them: whole from 10 ms up (JMeter times in whole ms)."""
    return "–" if pd.isna(value) else f"{value:,.0f}" if abs(value) >= 10 else f"{value:.1f}".removesuffix(".0")


def latency_ci(row, p: str) -> str:
    """`18 ms [15, 22]`; without a valid round, `≤ 40 ms (bound)` from the bound rounds' upper end
    (JMeter's lag only adds to a latency counted from the intended time), else –; a sample too
    small to bound the percentile from above (analysis.latency.needed) says so."""
    if not row["samples"]:
        upper = row.get(f"{p}_upper")
        return "–" if upper is None or pd.isna(upper) else f"≤ {fmt_ms(upper)} ms (bound)"
    if pd.isna(row.get(f"{p}_bound")):
        return f"{fmt_ms(row[f'{p}_ms'])} ms (too few samples for an upper end)"
    return f"{fmt_ms(row[f'{p}_ms'])} ms [{fmt_ms(row[f'{p}_low'])}, {fmt_ms(row[f'{p}_high'])}]"


def section(doc: Doc, run: Run, rates: pd.DataFrame, held: pd.DataFrame, objective: slo.Objective,
            figs: Path) -> None:
    """Latency at a given rate: how it was measured, then per API and case the figure, the
    table and what it says, in a sentence at one rate and the rates at which the objective held."""
    doc.heading(2, "Latency at a given rate")
    entry = run.manifest.latency
    used, left = int(rates["rounds"].sum()), int(rates["left_out"].sum())
    ref = rates["reference"].dropna().iloc[0] if rates["reference"].notna().any() else None
    doc.para("What latency a team's traffic would see at a given request rate, and up to which rate each "
             f"framework keeps it under an objective ({objective}; `--slo pNN:MS` sets another). "
             + (f"The run measured each rate in {entry.rounds} interleaved rounds, {known(entry.window_s)} s "
                f"each after {known(entry.warmup_s)} s of warm-up; arrivals: {entry.arrivals or 'Poisson'}. "
                if entry.rounds else "")
             + f"{used} measurement{'s' if used != 1 else ''} used, {left} left out (bound or invalid). "
             + (f"Ratios are {run.display_name(ref)} (the reference, as in the answer) over each other "
                "framework: below 1, the reference's latency was lower." if rates["framework"].nunique() > 1
                and ref else ""))
    doc.bullets(METHOD)
    if thresholds_text(entry):
        doc.para(thresholds_text(entry))
    for api in [a for a in ("rest", "graphql") if a in set(rates["api"])]:
        doc.heading(3, "REST" if api == "rest" else "GraphQL")
        part = rates[rates["api"] == api]
        for case, rows in part.groupby("case", sort=True):
            first = rows.iloc[0]
            label = case_label(case, *(int(first[c]) for c in ("requests", "rows", "joins")))
            doc.heading(4, label[0].upper() + label[1:])
            doc.para(capacity_text(run, entry, api, case, rows))
            path = figures.latency_vs_rate(run, rates, api, case, label, objective,
                                           figs / f"latency_rate_{api}_case{case:02d}.png")
            doc.figure(path, f"{'REST' if api == 'rest' else 'GraphQL'}, {label}: p50 and p99 against the "
                             f"arrival rate, 95 % bootstrap intervals, the objective {objective}.")
            doc.table(latency_rows(run, rows, objective), f"{'REST' if api == 'rest' else 'GraphQL'}, {label}: per "
                      "rate and framework, percentiles of the pooled usable rounds [95 % bootstrap interval], or, "
                      "where every round was bound, ≤ the upper end of the bound rounds' interval; "
                      "achieved rate, late and dropped arrivals summed over the usable rounds (tables/latency.csv)")
            doc.para(" ".join(t for t in (at_rate_text(run, rows, objective),
                                          held_text(run, held[(held["api"] == api) & (held["case"] == case)],
                                                    objective)) if t))


def capacity_text(run: Run, entry: LatencyPass, api: str, case: int, rows: pd.DataFrame) -> str:
    """Which capacity the rates are fractions of, and whether it is a lower bound."""
    cell = next((c for c in entry.cells if c.api == api and c.case == case), LatencyCell(api, case))
    slowest = cell.slowest
    capacity = rows["capacity_rps"].iloc[0]
    fractions = ", ".join(f"{f * 100:g} %" for f in sorted(set(rows["fraction"])))
    bound = bool(cell.capacity_bound.get(slowest)) if slowest else False
    return (f"Rates: {fractions} of {rate_text(capacity)}, the capacity of the slowest framework"
            + (f", {run.display_name(slowest)}" if slowest else "")
            + " (its closed-model throughput at the case's users in this run's round"
            + ("; a lower bound: JMeter set that rate, so the server may have more" if bound else "") + ").")


def latency_rows(run: Run, rows: pd.DataFrame, objective: slo.Objective) -> pd.DataFrame:
    percentiles = list(dict.fromkeys(["p50", "p99", objective.column]))
    shown = []
    for r in rows.itertuples(index=False):
        row = r._asdict()
        line = {"Rate (req/s)": f"{r.target_rps:,.0f} ({r.fraction * 100:g} %)",
                "Framework": run.display_name(r.framework)}
        for p in percentiles:
            line[f"{slo.label(p)} (ms)"] = latency_ci(row, p)
        line["Reference / this, p99"] = (
            "reference" if r.framework == r.reference else "–" if pd.isna(r.ratio_p99) else
            f"{fmt(r.ratio_p99)} [{fmt(r.ratio_p99_low)}, {fmt(r.ratio_p99_high)}]")
        line["Achieved (req/s)"] = fmt(r.achieved_rps) if r.rounds else "–"
        line["Late / dropped"] = f"{r.late:.0f} / {r.dropped:.0f} of {r.scheduled:.0f}" if r.rounds else "–"
        line["Flags"] = "; ".join(
            ([f"saturated in {r.saturated} of {r.rounds} rounds"] if r.saturated else [])
            + ([f"{r.left_out} of {r.left_out + r.rounds} rounds left out ({r.left_out_checks})"]
               if r.left_out else [])
            + ([f"late from JMeter: {r.late_loadgen:.0f}"] if r.late_loadgen else [])
            + ([f"{r.dropped:.0f} dropped: never sent, so the percentiles, of the sent ones, understate the tail"]
               if r.dropped else [])) or "–"
        shown.append(line)
    return pd.DataFrame(shown)


def at_rate_text(run: Run, rows: pd.DataFrame, objective: slo.Objective) -> str:
    """`At 1,200 req/s ASP.NET Core's p99 was 18 ms [15, 22], Express.js's 95 ms [80, 120].`: at the
    highest rate within the slowest framework's capacity that every framework measured."""
    measured = rows[rows["samples"] > 0]
    complete = [s for s, g in measured.groupby("step") if g["framework"].nunique() == rows["framework"].nunique()]
    within = [s for s in complete if measured[measured["step"] == s]["fraction"].iloc[0] <= 1]
    if not complete:
        return "No rate has a usable measurement of every framework."
    at = measured[measured["step"] == max(within or complete)]
    parts = [f"{run.display_name(r['framework'])}'s"
             + (f" {slo.label(objective.column)} was" if i == 0 else "")
             + f" {latency_ci(r, objective.column)}" for i, (_, r) in enumerate(at.iterrows())]
    return f"At {rate_text(at['target_rps'].iloc[0])} " + listing(parts) + "."


def held_text(run: Run, held: pd.DataFrame, objective: slo.Objective) -> str:
    """Per framework: up to which rate the objective held, and what happened at the next one."""
    out = []
    for r in held.itertuples(index=False):
        name, there = run.display_name(r.framework), rate_text(r.first_not_held_rps)
        # A bound round's latencies carry JMeter's lag: under the objective even so, the server was.
        bound_note = " (at some rates as an upper bound: rounds with JMeter's lag in them)" \
            if r.held_as_upper_bound is True else ""
        value = (f" ({slo.label(objective.column)} {fmt_ms(r.first_not_held_ms)} ms "
                 f"[{fmt_ms(r.first_not_held_low)}, {fmt_ms(r.first_not_held_high)}])")
        if pd.isna(r.first_not_held_rps):
            out.append(f"{name} held {objective} at every rate measured, up to {rate_text(r.held_up_to_rps)}"
                       + bound_note + ".")
            continue
        if pd.isna(r.held_up_to_rps):
            # The first entry words a reason the others do not name: too few samples for the percentile.
            out.append({r.first_not_held: f"{name} was not judged against {objective}: at the lowest rate, {there}, "
                                          f"{r.first_not_held}.",
                        latency.EXCEEDED: f"{name} did not hold {objective} even at the lowest rate, {there}{value}.",
                        latency.DROPPED: f"{name} was not shown to hold {objective} even at the lowest rate, "
                                         f"{there}{value}: too many of its arrivals were never sent.",
                        latency.UNDECIDED: f"{name} was not shown to hold {objective} even at the lowest rate, "
                                           f"{there}{value}: its interval spans the objective.",
                        latency.LOADGEN: f"{name} was not judged against {objective}: at the lowest rate, {there}, "
                                         "only rounds JMeter's lag was in, and not under it even so.",
                        latency.UNMEASURED: f"{name} was not judged against {objective}: no usable round at the "
                                            f"lowest rate, {there}."}[r.first_not_held])
            continue
        out.append(f"{name} held {objective} up to {rate_text(r.held_up_to_rps)}" + bound_note + "; " + {
            r.first_not_held: f"not judged from {there} on: {r.first_not_held}.",
            latency.EXCEEDED: f"exceeded at {there}{value}.",
            latency.UNDECIDED: f"not shown to hold at {there}{value}: its interval spans the objective.",
            latency.DROPPED: f"not shown to hold at {there}{value}: too many of its arrivals were never sent.",
            latency.LOADGEN: f"not judged from {there} on: only rounds JMeter's lag was in, and not under it even so.",
            latency.UNMEASURED: f"not judged from {there} on: no usable round there."}[r.first_not_held])
    return " ".join(out)
