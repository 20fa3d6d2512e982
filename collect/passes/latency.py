"""The latency profile's pass (`./testbed run --profile latency`), after the closed-model round
that measured each cell's capacity: latency at fixed arrival rates, the same for every framework.

For each API x case, the rates are FRACTIONS of the slowest framework's capacity (summary.csv's
throughput of a valid or bound item; a bound one's is a lower bound) and one rate ABOVE it. The
pass runs the profile's `latency_rounds` interleaved rounds, each one JMeter process (a batch)
measuring every (API, case, step, framework) once, in an order shuffled from the run's seed with
the frameworks of a slot back to back. Each measurement is an open-model thread group (benchlib/run_plans.open_group):
a pool of the case's concurrent users sends a Poisson schedule (collect/load/arrivals.py) for WARMUP_S,
not recorded, then WINDOW_S, recorded; latency counts from each arrival's intended time.

Resumable row by row: latency.csv holds every finished measurement, and the rates are fixed in the
manifest's `latency` entry when the pass first starts, so a resumed run drives the same ones.
"""
import csv
import json
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path

from benchlib import run_plans
from benchlib.items import Item
from benchlib.paths import IDS
from benchlib.results import (LATENCY, LATENCY_COLUMNS, PROC, SUMMARY,
                              append_rows, latency_jtl, summary_rows)
from collect.items import item_stats
from collect.load import arrivals, remote
from collect.passes import latency_checks
from collect.load import batch as batches
from collect.load.batch import Batch, Measurement
from collect.load.driver import Ending, Stages, drive, finished, trim_to_window
from collect.passes.phase_run import Effects, ManifestEntry, PhaseRun
from collect.passes.progress import Progress

FRACTIONS = (0.25, 0.5, 0.75, 0.9)
ABOVE = 1.2
WARMUP_S = 2
WINDOW_S = 5
# Beyond its seconds of load, what a measurement costs (its pool's start, the last responses), and
# a round (JMeter's start), for the estimate; and how long past that a round may run before it is
# stopped.
OVERHEAD_S = {"measurement": 0.5, "round": 4}
ROUND_SLACK_S = 120
ARRIVALS = ("Python draws each measurement's Poisson schedule (seeded from the run's seed and the API, "
            "case, step and round, the same for every framework of a round); a fixed JMeter pool of the "
            "case's concurrent users takes the arrivals in order, each thread waiting until its "
            "arrival's intended time, and each sample records that time (intended_ms), so an arrival "
            "sent late because every thread was busy counts its latency from when it was intended")
SAMPLE_VARIABLES = ",".join(run_plans.OPEN_VARIABLES)
PROPERTIES = {"sample_variables": SAMPLE_VARIABLES}


@dataclass(frozen=True, kw_only=True)
class OpenMeasurement:
    """One measurement of the pass: an item's cell (in its round) driven at one rate."""
    item: Item
    step: int
    fraction: float
    target_rps: float
    capacity_rps: float
    pool_threads: int

    @property
    def key(self) -> tuple:
        """As latency.csv's rows are keyed (key)."""
        return self.item.framework, self.item.api, self.item.case, self.step, self.item.round

    def fields(self) -> dict:
        """latency.csv's columns that say what was measured."""
        return {**self.item.fields(),
                "step": self.step, "fraction": self.fraction, "target_rps": self.target_rps,
                "capacity_rps": self.capacity_rps, "pool_threads": self.pool_threads}


def capacities(run: PhaseRun) -> dict[tuple[str, int], dict[str, tuple[float, str]]]:
    """(api, case) -> framework -> (capacity in req/s, the validity of the items it came from),
    from the closed-model round: the mean throughput of its valid and bound items (a bound one's
    is a lower bound) or, when a cell has none, of its error-free invalid ones (on a shared or
    small machine the round's short windows often fail a steady-state or Little's-law check; their
    throughput is still what the server did at the case's concurrency, and the manifest says so)."""
    found: dict[tuple[str, int], dict[str, dict[str, list[float]]]] = {}
    for r in summary_rows(run.context.dir / SUMMARY):
        if r["status"] == "ok" and r["throughput_rps"] and not float(r["errors"] or 0):
            by = found.setdefault((r["api"], int(r["case"])), {}).setdefault(r["framework"], {})
            by.setdefault(r.get("validity") or "invalid", []).append(float(r["throughput_rps"]))
    out = {}
    for key, cell in found.items():
        for fw, by in cell.items():
            usable = [s for s in ("valid", "bound") if s in by] or ["invalid"]
            values = [v for s in usable for v in by.get(s, [])]
            if values:
                out.setdefault(key, {})[fw] = (round(sum(values) / len(values), 1),
                                               "bound" if "bound" in usable else usable[0])
    return out


def fix_cells(run: PhaseRun, progress: Progress) -> Effects:
    """The manifest's `latency` entry, the first time the pass starts (a resumed run drives the
    rates it fixed): its protocol and its cells, each (API, case) whose every framework has a
    capacity, with the rates every framework is driven at."""
    if "latency" in run.context.manifest:
        return
    known, out = capacities(run), []
    for api, case in dict.fromkeys((i.api, i.case) for i in run.items):
        arms = [f for f in run.context.frameworks if run.apps.serves(f, api)]
        have = known.get((api, case), {})
        missing = [f for f in arms if f not in have]
        if missing or not arms:
            progress.note(f"latency: {api} case {case} left out: no error-free measurement of "
                          f"{', '.join(missing) or 'any framework'} in the closed-model round")
            continue
        slowest = min(arms, key=lambda f: have[f][0])
        base = have[slowest][0]
        shaky = [f for f in arms if have[f][1] == "invalid"]
        if shaky:
            progress.note(f"latency: {api} case {case}: the capacity of {', '.join(shaky)} comes from "
                          f"a measurement that failed a validity check (summary.csv)")
        out.append({"api": api, "case": case, "capacity": {f: have[f][0] for f in arms},
                    "capacity_bound": {f: have[f][1] == "bound" for f in arms},
                    "capacity_validity": {f: have[f][1] for f in arms}, "slowest": slowest,
                    "rates": [round(base * x, 1) for x in (*FRACTIONS, ABOVE)]})
    yield ManifestEntry("latency", {
        "fractions": list(FRACTIONS), "above": ABOVE, "rounds": run.context.profile.latency_rounds,
        "late_ms": latency_checks.LATE_MS, "warmup_s": WARMUP_S, "window_s": WINDOW_S,
        "arrivals": ARRIVALS, "checks": latency_checks.protocol(), "cells": out})


def planned(run: PhaseRun, cell_list: list[dict], round_: int) -> list[OpenMeasurement]:
    """Round `round_`'s measurements in order: its (API, case, step) slots shuffled, each slot's
    frameworks back to back in a shuffled order, all drawn from the run's seed."""
    rng = random.Random(f"latency-order:{run.context.seed}:{round_}")
    known = {i.case: i for i in run.items}
    slots = [(cell, step) for cell in cell_list for step in range(1, len(cell["rates"]) + 1)]
    rng.shuffle(slots)
    out = []
    for cell, step in slots:
        arms = list(cell["capacity"])
        rng.shuffle(arms)
        for fw in arms:
            item = replace(known[cell["case"]], framework=fw, api=cell["api"], round=round_)
            out.append(OpenMeasurement(
                item=item, step=step, fraction=(*FRACTIONS, ABOVE)[step - 1], target_rps=cell["rates"][step - 1],
                capacity_rps=cell["capacity"][cell["slowest"]],
                pool_threads=run.context.profile.threads(item.requests)))
    return out


def key(row: dict) -> tuple:
    return row["framework"], row["api"], int(row["case"]), int(row["step"]), int(row["round"])


def done(run_dir: Path) -> set[tuple]:
    try:
        with open(run_dir / LATENCY, newline="") as f:
            return {key(r) for r in csv.DictReader(f)}
    except FileNotFoundError:
        return set()


def estimate_s(run: PhaseRun) -> float:
    if not run.context.profile.latency:
        return 0
    per = WARMUP_S + WINDOW_S + OVERHEAD_S["measurement"]
    measurements = len({(i.api, i.case, i.framework) for i in run.items}) * (len(FRACTIONS) + 1)
    return (run.context.profile.latency_rounds * (measurements * per + OVERHEAD_S["round"])
            - len(done(run.context.dir)) * per)


def run_pass(run: PhaseRun, progress: Progress) -> Effects:
    """The pass's rounds, each measurement not yet in latency.csv (none but in the latency profile),
    at the rates fixed in the manifest."""
    if not run.context.profile.latency:
        return
    yield from fix_cells(run, progress)
    cell_list = run.context.manifest["latency"]["cells"]
    have = done(run.context.dir)
    for round_ in range(1, run.context.profile.latency_rounds + 1):
        todo = [m for m in planned(run, cell_list, round_) if m.key not in have]
        if todo:
            run_round(run, todo, round_, progress)


def run_round(run, todo: list[OpenMeasurement], round_: int, progress) -> None:
    for name in dict.fromkeys(m.item.framework for m in todo):
        run.apps.ensure(name)
    run.check_database()
    batch = Batch(batches.new_folder(run.context.dir, run.context.dir / "latency-batches"),
                  [Measurement(m.item, *run.apps.address(m.item.framework)) for m in todo], time.time())
    where = f"{len(run.context.engines.endpoints)} engines" if run.context.engines else "one JMeter"
    progress.note(f"latency: round {round_}/{run.context.profile.latency_rounds}: {len(todo)} measurements of "
                  f"{WARMUP_S} + {WINDOW_S} s, {where} …")
    drive(batch, RoundStages(run, todo, f"latency round {round_} ({batch.folder.name})", progress))


class RoundStages(Stages):
    """A round of the pass as a batch: a line per measurement as it begins, a latency.csv row per
    measurement that ran to its end. The finished are counted from JMeter's log (or the engines'
    schedule): the pass opens nothing as a measurement begins. An engine that refused the round or
    stopped answering ends it with nothing kept (EngineLost: the run stops for --resume)."""
    poll_s = 0.2

    def __init__(self, run, todo: list[OpenMeasurement], title: str, progress):
        self.run, self.todo, self.title, self.progress = run, todo, title, progress
        self.deadline = time.monotonic() + len(todo) * (WARMUP_S + WINDOW_S + 5) + ROUND_SLACK_S

    def start(self, batch):
        run = self.run
        length_ms = (WARMUP_S + WINDOW_S) * 1000
        groups = [{"api": m.item.api, "case": m.item, "host": at.host, "port": at.port, "pool": m.pool_threads,
                   "end_ms": length_ms, "offsets": arrivals.offsets(m.target_rps, length_ms, seed_of(run, m))}
                  for m, at in zip(self.todo, batch.measurements)]
        targets = run.sampled()
        if run.context.engines:
            batch.warmup_s, batch.duration_s = WARMUP_S, WINDOW_S
            batch.starts = remote.schedule(len(self.todo), WARMUP_S, WINDOW_S)
            self.deadline += remote.LEAD_S
            batch.controllers = remote.launch_open(batch.folder, self.title, groups, batch.starts,
                                                   run.context.engines, run.context.jmeter, PROPERTIES)
            batches.sample_remote(batch, targets)
        else:
            batches.start(batch, run.context.profile, run.context.jmeter, targets, run.context.cpus.get("loadgen"),
                          plan=local_plan(batch, groups, self.title), properties=PROPERTIES)

    def begin(self, batch, index):
        m = self.todo[index]
        self.progress.note(f"  [{index + 1}/{len(self.todo)}] {m.item.framework} {m.item.api} case {m.item.case} "
                           f"step {m.step}: {m.target_rps:g} req/s ({m.fraction:g} x capacity)")

    def overran(self, batch):
        self.progress.note(f"latency: {batch.tool.title} did not finish the round in time and was stopped")
        return Ending(self.finished(batch))

    def finished(self, batch):
        return finished(batch, batch.groups_started())

    def keep(self, batch, index):
        row = measure(self.run, batch, index, self.todo[index])
        if row is None:
            return
        append_rows(self.run.context.dir / LATENCY, LATENCY_COLUMNS, [row])
        self.progress.note(f"  {row['framework']} {row['api']} case {row['case']} step {row['step']} round "
                           f"{row['round']}: {row['achieved_rps']} of {row['target_rps']} req/s, p50 "
                           f"{row['p50_ms']} ms, p99 {row['p99_ms']} ms, late {row['late']}, dropped "
                           f"{row['dropped']}{', saturated' if row['saturated'] else ''}: {row['validity']}")


def local_plan(batch: Batch, groups: list[dict], title: str) -> Path:
    """The round's plan for the JMeter on this machine: each schedule a file of the batch."""
    local = []
    for i, g in enumerate(groups):
        schedule = batch.folder / f"arrivals-{i + 1:03d}.csv"
        arrivals.write(schedule, g["offsets"])
        local.append({**{k: v for k, v in g.items() if k != "offsets"}, "schedule": schedule, "jtl": batch.jtl(i),
                      "window_file": batch.window_file(i), "ids_dir": IDS})
    plan = batch.folder / "plan.jmx"
    plan.write_text(run_plans.open_plan(title, local))
    return plan


def seed_of(run, m: OpenMeasurement) -> str:
    return arrivals.seed_of(run.context.seed, m.item.api, m.item.case, m.step, m.item.round)


def measure(run, batch: Batch, index: int, m: OpenMeasurement) -> dict | None:
    """Measurement `index`'s row, its window's samples and sampler rows moved beside it (None:
    it never started its clock)."""
    schedule = arrivals.offsets(m.target_rps, (WARMUP_S + WINDOW_S) * 1000, seed_of(run, m))
    engines = None
    if batch.controllers:  # the engines' shares, in one file; t0 was set for every engine alike
        t0 = batch.starts[index]
        w0, w1 = window(t0)
        parts = [c.jtl(index) for c in batch.controllers]
        shares = [share for _, share in remote.divide(schedule, m.pool_threads, len(parts))]
        engines = latency_checks.engines(parts, shares, t0, w0, w1)
        if any(part.exists() for part in parts):
            remote.merge(parts, batch.jtl(index))
    else:
        try:
            t0 = int(batch.window_file(index).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        w0, w1 = window(t0)
    out = latency_jtl(run.context.dir, m.item.framework, m.item.api, m.item.case, m.step, m.item.round)
    out.parent.mkdir(parents=True, exist_ok=True)
    if batch.jtl(index).exists():
        samples = latency_checks.window_samples(batch.jtl(index), out, w0, w1)
        batch.jtl(index).unlink()  # the warm-up's samples: megabytes per measurement, never read
    else:  # nothing was sent: the file says so rather than being missing
        samples = []
        out.write_text("timeStamp,elapsed,label,success," + SAMPLE_VARIABLES + "\n")
    trim_to_window(batch, out.parent, w0 / 1000 - batch.t0, w1 / 1000 - batch.t0, run.roles(m.item.framework))
    stats = item_stats.sampler_stats(out.parent / PROC) if (out.parent / PROC).exists() else {}
    scheduled = sum(1 for t in schedule if WARMUP_S * 1000 <= t < (WARMUP_S + WINDOW_S) * 1000)
    figures = latency_checks.figures(samples, scheduled, WINDOW_S, stats, run.context.machine_cores, engines,
                                     shares_cores=run.context.loadgen_shares_cores)
    (out.parent / "measurement.json").write_text(json.dumps(
        {"window_ms": [w0, w1], "batch": batch.folder.relative_to(run.context.dir).as_posix(),
         "position": index + 1, "schedule_seed": seed_of(run, m),
         **({"engines": [str(c.endpoint) for c in batch.controllers], "late_start_ms": engines.late_start_ms,
             "engine_sent": [list(pair) for pair in engines.sent]} if engines else {})}, indent=2) + "\n")
    return {**m.fields(), **figures}


def window(t0: int) -> tuple[int, int]:
    """A measurement's window in epoch ms, from when its clock started."""
    return t0 + WARMUP_S * 1000, t0 + (WARMUP_S + WINDOW_S) * 1000
