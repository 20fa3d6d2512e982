"""The numbers of the report's "Latency at a given rate" (its words: analysis/sections/latency.py):
from a latency run's latency.csv and the JTL of every measurement, per API, case, rate (step) and
framework, the percentiles of the pooled samples with bootstrap intervals, the reference / other
ratio of each percentile with its interval, and per framework and case the rates at which a latency
objective (analysis/slo.py) held.

Which measurements count: those collect judged `valid` (a `bound` one is a rate JMeter could not
hold, an `invalid` one could not be computed: both are left out of the percentiles and counted; a
`saturated` one is the server not keeping up, a result, so it counts and is marked). A `bound`
measurement that sent its schedule still bounds the server's latency from above (JMeter's lag
only adds to a latency counted from the intended time, and its CPU only slows the server), so
`<p>_upper` is the upper end of the interval over the valid and such bound rounds pooled, and the
latency objective may hold on it: "held, as an upper bound"; never fail on it.

Latency is each request's completion minus its **intended** send time (timeStamp + elapsed -
intended_ms), so a request sent late because every thread was busy counts its wait.

Percentiles are of the POOLED samples of a cell's usable rounds (never an average of per-round
percentiles), with the (n+1)p rank and interpolation that summary.csv's percentiles use
(benchlib/jtl.py).

Each quantile only where the sample supports it. A bootstrap never goes past the sample's largest
value, so for a tail quantile of a small sample its upper end says nothing (p99.9 of 375 samples:
its 97.5 % end held the true quantile 33 % of the time). What the objective reads is `<p>_bound`,
the larger of the bootstrap's upper end and the distribution-free order-statistic bound: the r-th
smallest sample, r the fewest with P(Binomial(n, q) <= r - 1) >= 0.975, which lies at or above the
true q-quantile at least 97.5 % of the time for any distribution of independent samples. It exists
only from needed(q) samples on (the fewest n with q^n <= 0.025: 368 for p99, 3,688 for p99.9);
below that the objective is not judged: "too few samples for p99.9: needs 3,688 arrivals". Their
intervals are a percentile bootstrap, stratified by round: each replicate resamples every round's
samples with replacement, as many as that round had, pools them and takes the percentile, so a
round keeps its weight; it measures the sampling noise of the samples, not drift between rounds
(three rounds are too few to resample), which the interleaved rounds keep small. The ratio's
replicates are the reference's over the other's, both drawn independently. Resampling draws
multinomial counts over the distinct latencies (JMeter writes whole milliseconds, so there are
few), which is the same as resampling the samples and much cheaper. Seeded per cell, so a report is
the same every time it is written.
"""
import math
import re
import zlib

import numpy as np
import pandas as pd
from scipy import stats

from analysis.answer import reference as reference_of
from analysis.load import (LATENCY, LATENCY_COLUMNS, ResultFileError, Run, latency_jtl, load_latency_jtl,
                           load_run_table)
from analysis.slo import PERCENTILES, Objective, label

QUANTILES = {column: round(float(name) / 100, 4) for name, column in PERCENTILES.items()}  # p50 -> 0.5 …
RESAMPLES = 1000
LEVEL = 0.95
SEED = 26  # any fixed number: a report's intervals stay the same; each cell's stream is this and its name
CHUNK = 100  # replicates drawn at once, so a cell with many distinct latencies stays small in memory
USABLE = "valid"
CHECK_NAME = re.compile(r"(?:^|;)\s*([a-z_]+):")
BOUND = "bound"  # JMeter's lag is in its latencies: they are upper bounds of the server's
SENT_FOR_BOUND = 0.95  # collect's SATURATED_SENT: below it, the server did not see the scheduled rate
ONE_SIDED = 1 - (1 - LEVEL) / 2  # the upper end of a 95 % interval: 97.5 %
TEXT = {"framework", "api", "saturated", "validity", "validity_reasons"}
CELL = ["api", "case", "requests", "rows", "joins", "step"]
COLUMNS = [*CELL, "fraction", "target_rps", "capacity_rps", "framework", "rounds", "left_out",
           "left_out_reasons", "left_out_checks", "samples", "scheduled", "achieved_rps", "late", "late_loadgen",
           "dropped", "saturated",
           *(f"{p}_{part}" for p in QUANTILES for part in ("ms", "low", "high")),
           "reference", *(f"ratio_{p}{part}" for p in QUANTILES for part in ("", "_low", "_high")),
           "upper_rounds", *(f"{p}_upper" for p in QUANTILES), *(f"{p}_bound" for p in QUANTILES),
           "upper_samples", "upper_scheduled", "upper_dropped"]
SLO_COLUMNS = ["api", "case", "requests", "rows", "joins", "framework", "objective", "held_up_to_rps",
               "held_up_to_step", "first_not_held_rps", "first_not_held_step", "first_not_held",
               "first_not_held_ms", "first_not_held_low", "first_not_held_high", "held_as_upper_bound"]
# Why the first rate that did not hold did not: its interval wholly above the objective, across it,
# above it only with JMeter's lag in it (bound rounds alone), or no usable measurement there.
EXCEEDED, UNDECIDED, LOADGEN, UNMEASURED = "exceeded", "not shown to hold", "not judged: load generator", \
    "not measured"
# ... or too many of its arrivals were never sent (dropped): they have no latency, and the percentile
# of the sent ones leaves out what may be the longest waits; or its sample cannot bound the quantile.
DROPPED = "not shown to hold: arrivals dropped"
TOO_FEW = "too few samples"


def measurements(run: Run) -> pd.DataFrame | None:
    """latency.csv, one row per measurement; None for a run without one (not a latency run)."""
    path = run.dir / LATENCY
    if not path.is_file():
        return None
    table = load_run_table(path, LATENCY_COLUMNS)
    for column in LATENCY_COLUMNS:
        if column in TEXT:
            table[column] = table[column].fillna("").astype(str)
            continue
        values = pd.to_numeric(table[column], errors="coerce")
        bad = values.isna() & table[column].notna()
        if bad.any():
            raise ResultFileError(path, f"line {int(bad.to_numpy().nonzero()[0][0]) + 2}: {column} must be a number")
        table[column] = values
    return table


def latencies(run: Run, row) -> np.ndarray:
    """One measurement's intended-time latencies, ms."""
    return load_latency_jtl(latency_jtl(run.dir, row.framework, row.api, row.case, row.step, row.round))


def weibull(values: np.ndarray, counts: np.ndarray, q: float) -> np.ndarray:
    """The (n+1)q-rank percentile with interpolation (numpy's method="weibull") of samples given as
    `counts` (one row per replicate) of the sorted distinct `values`."""
    n = int(counts[0].sum())
    h = min(max((n + 1) * q, 1), n)
    k = int(np.floor(h))
    cum = counts.cumsum(axis=1)
    low = values[(cum < k).sum(axis=1)]
    high = values[(cum < min(k + 1, n)).sum(axis=1)]
    return low + (h - k) * (high - low)


def bootstrap(rounds: list[np.ndarray], seed: int) -> dict[str, np.ndarray]:
    """Per percentile column, RESAMPLES replicates of the pooled percentile, resampling each round's
    samples within that round."""
    values = np.unique(np.concatenate(rounds))
    per_round = [np.bincount(np.searchsorted(values, r), minlength=len(values)) for r in rounds]
    rng = np.random.default_rng([SEED, seed])
    out = {p: [] for p in QUANTILES}
    for start in range(0, RESAMPLES, CHUNK):
        size = min(CHUNK, RESAMPLES - start)
        counts = sum(rng.multinomial(c.sum(), c / c.sum(), size=size) for c in per_round if c.sum())
        for p, q in QUANTILES.items():
            out[p].append(weibull(values, counts, q))
    return {p: np.concatenate(parts) for p, parts in out.items()}


def cell_seed(*key) -> int:
    return zlib.crc32("/".join(map(str, key)).encode())


def ends(replicates: np.ndarray) -> tuple[float, float]:
    tail = (1 - LEVEL) / 2 * 100
    finite = replicates[np.isfinite(replicates)]
    if finite.size == 0:
        return np.nan, np.nan
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def table(run: Run, wanted: str | None = None) -> pd.DataFrame | None:
    """tables/latency.csv: one row per API, case, step and framework (COLUMNS); None without
    latency.csv. `wanted`: --reference, as the framework answer takes it."""
    rows = measurements(run)
    if rows is None:
        return None
    arms = [a for a in run.arms if a in set(rows["framework"])] + sorted(set(rows["framework"]) - set(run.arms))
    ref = reference_of(run, wanted)
    ref = ref if ref in arms else (arms[0] if arms else None)
    records, replicates = [], {}
    for key, group in rows.groupby(CELL + ["framework"], sort=False):
        cell, framework = dict(zip(CELL, key[:-1])), key[-1]
        used = group[group["validity"] == USABLE].sort_values("round")
        left = group[group["validity"] != USABLE]
        samples = [latencies(run, r) for r in used.itertuples(index=False)]
        samples = [s for s in samples if s.size]
        record = {**cell, "fraction": group["fraction"].iloc[0], "target_rps": group["target_rps"].median(),
                  "capacity_rps": group["capacity_rps"].iloc[0], "framework": framework,
                  "rounds": len(used), "left_out": len(left),
                  "left_out_reasons": "; ".join(f"round {r.round}: {r.validity}"
                                                + (f" ({r.validity_reasons})" if r.validity_reasons else "")
                                                for r in left.sort_values("round").itertuples(index=False)),
                  "left_out_checks": "; ".join(f"round {r.round} {r.validity}" + (": " + ", ".join(checks(r))
                                                                                  if checks(r) else "")
                                               for r in left.sort_values("round").itertuples(index=False)),
                  "samples": int(sum(s.size for s in samples)),
                  "scheduled": used["scheduled"].sum(), "achieved_rps": used["achieved_rps"].mean(),
                  "late": used["late"].sum(), "late_loadgen": used["late_loadgen"].sum(),
                  "dropped": used["dropped"].sum(), "saturated": int(truthy(used["saturated"]).sum())}
        if samples:
            pooled = np.concatenate(samples)
            reps = bootstrap(samples, cell_seed(*key))
            replicates[tuple(key)] = reps
            for p, q in QUANTILES.items():
                record[f"{p}_ms"] = float(np.percentile(pooled, q * 100, method="weibull"))
                record[f"{p}_low"], record[f"{p}_high"] = ends(reps[p])
                record[f"{p}_bound"] = upper_end(record[f"{p}_high"], pooled, q)
        record.update(upper_bounds(run, group, key, record))
        records.append(record)
    out = pd.DataFrame.from_records(records).reindex(columns=COLUMNS)
    add_ratios(out, replicates, ref)
    order = {a: i for i, a in enumerate(arms)}
    return out.sort_values(["api", "case", "step", "framework"],
                           key=lambda s: s.map(order) if s.name == "framework" else
                           s.map({"rest": 0, "graphql": 1}) if s.name == "api" else s).reset_index(drop=True)


def upper_bounds(run: Run, group: pd.DataFrame, key, record: dict) -> dict:
    """upper_rounds and <p>_upper: each percentile's upper bound (as <p>_bound) over the valid and
    bound rounds pooled (the valid ones' own when no round was bound), with the samples, scheduled
    and dropped arrivals of those rounds. A bound round counts only if it sent at least
    SENT_FOR_BOUND of its scheduled arrivals: one that sent fewer spared the server part of the
    traffic, and its latencies bound nothing."""
    full = (group["validity"] == USABLE) | ((group["validity"] == BOUND)
                                            & (group["sent"] >= SENT_FOR_BOUND * group["scheduled"]))
    bounded = group[full].sort_values("round")
    counts = {"upper_rounds": len(bounded), "upper_scheduled": bounded["scheduled"].sum(),
              "upper_dropped": bounded["dropped"].sum()}
    if not (bounded["validity"] == BOUND).any():
        return {**counts, "upper_samples": record["samples"],
                **{f"{p}_upper": record.get(f"{p}_bound") for p in QUANTILES}}
    samples = [s for s in (latencies(run, r) for r in bounded.itertuples(index=False)) if s.size]
    if not samples:
        return {**counts, "upper_rounds": 0, "upper_samples": 0}
    reps, pooled = bootstrap(samples, cell_seed(*key, BOUND)), np.concatenate(samples)
    return {**counts, "upper_samples": pooled.size,
            **{f"{p}_upper": upper_end(ends(reps[p])[1], pooled, q) for p, q in QUANTILES.items()}}


def upper_end(bootstrap_high: float, pooled: np.ndarray, q: float) -> float:
    """What an objective on the q-quantile reads: the larger of the bootstrap's upper end and the
    order-statistic bound; NaN where the sample is too small for the latter."""
    bound = order_bound(pooled, q)
    return math.nan if math.isnan(bound) else max(bootstrap_high, bound)


def needed(q: float) -> int:
    """The fewest samples whose largest bounds the q-quantile from above at ONE_SIDED: q^n <= 1 - ONE_SIDED."""
    return math.ceil(math.log(1 - ONE_SIDED) / math.log(q) - 1e-9)


def order_bound(samples: np.ndarray, q: float) -> float:
    """The distribution-free ONE_SIDED upper confidence bound of the q-quantile: the r-th smallest
    sample, r the fewest with P(Binomial(n, q) <= r - 1) >= ONE_SIDED; NaN when even the largest is
    not one."""
    r = int(stats.binom.ppf(ONE_SIDED, samples.size, q)) + 1
    return float(np.sort(samples)[r - 1]) if r <= samples.size else math.nan


def checks(row) -> list[str]:
    """The names of the checks a measurement failed (`loadgen_lag: … (…; 24 arrivals …);machine: …` ->
    loadgen_lag, machine), for the report's flags; the reasons in full stay in left_out_reasons. A name
    is what opens a reason; runs recorded before collect kept ';' out of a reason's text have one
    inside the loadgen_lag reason, so the text between ';' is not a name unless it opens with one."""
    return list(dict.fromkeys(CHECK_NAME.findall(row.validity_reasons)))


def truthy(column: pd.Series) -> pd.Series:
    """collect writes saturated as true/false; pandas may have read it as bool or as text."""
    return column.astype(str).str.lower().isin({"true", "1", "yes"})


def add_ratios(out: pd.DataFrame, replicates: dict, ref: str | None) -> None:
    """reference / other of each percentile, on the other framework's rows: the point from the
    pooled percentiles, the interval from the two bootstraps' replicates."""
    out["reference"] = ref
    for i, row in out.iterrows():
        cell = tuple(row[c] for c in CELL)
        mine, theirs = replicates.get((*cell, row["framework"])), replicates.get((*cell, ref))
        if row["framework"] == ref or mine is None or theirs is None:
            continue
        reference = out[(out[CELL] == pd.Series(cell, index=CELL)).all(axis=1) & (out["framework"] == ref)].iloc[0]
        for p in QUANTILES:
            if row[f"{p}_ms"] > 0:
                out.at[i, f"ratio_{p}"] = reference[f"{p}_ms"] / row[f"{p}_ms"]
            with np.errstate(divide="ignore", invalid="ignore"):
                out.at[i, f"ratio_{p}_low"], out.at[i, f"ratio_{p}_high"] = ends(theirs[p] / mine[p])


def slo(latency: pd.DataFrame, objective: Objective) -> pd.DataFrame:
    """Per API, case and framework: the highest rate up to which the objective held at every rate
    (the percentile's upper bound at or below it: `<p>_bound` over the valid rounds, else `<p>_upper`
    over the valid and bound ones, an upper bound, which `held_as_upper_bound` says), and the first
    rate where it did not, with why (EXCEEDED, UNDECIDED, LOADGEN, UNMEASURED, DROPPED, or too few
    samples for the percentile: too_few) and its percentile there. A rate whose rounds dropped more
    than 1 - q of their scheduled arrivals cannot hold a q-percentile objective, on the valid rounds
    or on the valid and bound ones: the q-th latency may be one that was never sent."""
    p, q = objective.column, objective.quantile
    records = []
    for (api, case, requests, rows_, joins, framework), group in latency.groupby(
            ["api", "case", "requests", "rows", "joins", "framework"], sort=False):
        record = {"api": api, "case": case, "requests": requests, "rows": rows_, "joins": joins,
                  "framework": framework, "objective": str(objective), "held_as_upper_bound": False}
        for row in group.sort_values("step").itertuples(index=False):
            high, low, bound, upper = (getattr(row, f"{p}_{part}") for part in ("high", "low", "bound", "upper"))
            dropped = row.dropped > (1 - q) * row.scheduled
            upper_dropped = row.upper_dropped > (1 - q) * row.upper_scheduled
            if pd.notna(bound) and bound <= objective.ms and not dropped:
                record.update(held_up_to_rps=row.target_rps, held_up_to_step=row.step)
                continue
            if pd.isna(bound) and pd.notna(upper) and upper <= objective.ms and not upper_dropped:
                record.update(held_up_to_rps=row.target_rps, held_up_to_step=row.step, held_as_upper_bound=True)
                continue
            record.update(first_not_held_rps=row.target_rps, first_not_held_step=row.step,
                          first_not_held=why_not_held(row, objective), first_not_held_ms=getattr(row, f"{p}_ms"),
                          first_not_held_low=low, first_not_held_high=high)
            break
        records.append(record)
    return pd.DataFrame.from_records(records).reindex(columns=SLO_COLUMNS)


def why_not_held(row, objective: Objective) -> str:
    """Why a rate did not hold the objective: its valid rounds' sample too small for the percentile;
    with none, JMeter's lag (only bound rounds, not under the objective or dropping too much) or no
    usable round; else exceeded, dropped or undecided."""
    p, q = objective.column, objective.quantile
    high, low, upper = (getattr(row, f"{p}_{part}") for part in ("high", "low", "upper"))
    if row.samples and pd.isna(getattr(row, f"{p}_bound")):
        return too_few(objective)
    if pd.isna(high):
        if pd.notna(upper):
            return DROPPED if upper <= objective.ms else LOADGEN
        return too_few(objective) if row.upper_samples else UNMEASURED
    return EXCEEDED if low > objective.ms else DROPPED if row.dropped > (1 - q) * row.scheduled else UNDECIDED


def too_few(objective: Objective) -> str:
    return f"{TOO_FEW} for {label(objective.column)}: needs {needed(objective.quantile):,} arrivals"
