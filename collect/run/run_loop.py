"""The run loop behind `./testbed run`: runs a run's phases in order (collect/passes/phases.py: the
reference work and the ceiling, the rounds, the passes after them), applies what each yields
(collect/passes/phase_run.py), keeps `state.json`, and stops the run, resumable, on Ctrl-C, a database
that went down or a lost engine. The phases measure through it: a batch at a time
(collect/load/batch.py: one load generator process, wrk's driver or JMeter, measures a batch's items one
after another), on the apps of its pool (collect/load/app_pool.py), each item written
(collect/items/item_files.py) as it ends.
"""
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import replace

from benchlib import database as managed_db
from benchlib import interrupts
from benchlib.cases import cases
from benchlib.console import UserError
from benchlib.files import write_json
from benchlib.items import Item, Record
from benchlib.jtl import summarize
from benchlib.paths import DEFAULT_RESULTS
from benchlib.processes import alive
from benchlib.results import JTL, MANIFEST, STATE, SUMMARY, now_iso, summary_rows
from collect.load import batch as batches
from collect.load import pinning, remote
from collect.passes import ceiling
from collect.load.app_pool import AppFailed, AppPool, ExternalApps
from collect.load.conditioning import condition
from collect.passes.phase_run import Added, Ceilings, Effect, ManifestEntry
from collect.passes.phases import PHASES, ROUNDS, Phase, after_rounds_s, allowed
from collect.load.remote import EngineLost
from collect.load.batch import LOADGENS, Batch, Measurement
from collect.load.driver import Ending, Stages, drive, finished, trimmed_stats
from collect.items.item import LOADGEN_SLACK_S, copy_log, judge, log_tail, outcome_line
from collect.items.item_files import ItemFiles
from collect.passes.run_context import RunContext
from collect.load.samplers import LOADGEN_ROLE, MACHINE_ROLES
from collect.passes.progress import Progress, final_report


class DatabaseDown(Exception):
    """The database stopped answering: the run stops, resumable, rather than record garbage."""


class RunLoop:
    def __init__(self, context: RunContext, stream=None, pool: ExternalApps | None = None,
                 resume_command: str | None = None):
        """`pool`: apps something else runs, instead of the run's own; `resume_command`: what the
        user types to resume the run, when not `./testbed run --resume`."""
        self.context = context
        self.stream = stream or sys.stdout
        known = cases()
        self.items = [Item.parse(k, known) for k in context.manifest["order"]]
        self.apps = pool or AppPool(context.frameworks, context.dir / "logs", lambda: context.cpus.get("app"),
                                    self.record_loaded)
        self.resume_command = resume_command or \
            f"./testbed run --resume {context.dir.name}{self.results_dir_hint()}"
        self.pinned_db: int | None = None          # the database pid whose threads were moved
        # loadgen -> threads -> what it drives against the cheapest answer (collect/passes/ceiling.py)
        self.ceilings = {lg: ceiling.read(context.dir, lg) for lg in LOADGENS}

    @property
    def files(self) -> ItemFiles:
        """The run's own items' files (the cross-check's are its own: measure's `into`)."""
        c = self.context
        return ItemFiles(c.dir, c.dir / SUMMARY, c.loadgen, c.profile, remote=bool(c.engines))

    # --- the run's files --------------------------------------------------------------------------
    def set_state(self, status: str, reason: str | None = None) -> None:
        """state.json: whether the run is going, interrupted, stopped or complete."""
        write_json(self.context.dir / STATE, {
            "status": status, "reason": reason, "pid": os.getpid(), "updated_at": now_iso(),
            "done": sum(1 for item in self.items if self.files.finished(item))})

    def results_dir_hint(self) -> str:
        return "" if self.context.dir.parent.resolve() == DEFAULT_RESULTS.resolve() \
            else f" --results-dir {self.context.dir.parent}"

    # --- the loop --------------------------------------------------------------------------------
    def phases(self) -> list[Phase]:
        """The phases the run's apps allow: every one for its own apps; for apps something else runs,
        only those that neither start an app, nor read its CPU, nor need wrk beside it (the rounds:
        collect/passes/phases.py `own_apps`)."""
        return allowed(PHASES, self.apps)

    def execute(self, reference: str | None = None) -> int:
        """The phases in order (collect/passes/phases.py), each resuming what it has left; the console's
        bottom line at the end compares the other arms against `reference` (None: the report's default)."""
        todo = [item for item in self.items if not self.files.finished(item)]
        self.set_aside_unfinished()
        self.files.reconcile(self.items)
        progress = Progress(len(self.items), len(self.items) - len(todo), self.estimate(), self.stream)
        self.set_state("running")
        try:
            for item in [i for i in todo if not self.serves(i)]:
                progress.result(item.key, self.files.exclude(item))
            for phase in self.phases():
                if phase.name == ROUNDS:  # the progress line times the items, and counts what follows them
                    progress.begin_items(after_rounds_s(self))
                try:
                    self.apply(phase.run(self, progress))
                except AppFailed as e:
                    progress.note(f"run: {e}; the rest of the {phase.name} is left for --resume")
                    if phase.app_failure == "stop":
                        self.set_state("stopped", str(e))
                        return 3
        except (DatabaseDown, EngineLost, UserError) as e:  # e.g. the app's port taken by someone else
            self.abandon()
            self.set_state("stopped", str(e))
            fix = "start the database (./testbed db start)" if isinstance(e, DatabaseDown) \
                else "start the engine again (./testbed engine start on its machine)" if isinstance(e, EngineLost) \
                else "fix that"
            progress.note(f"run: stopped: {e}")
            progress.note(f"run: {fix}, then resume with {self.resume_command}")
            return 3
        except BaseException as e:
            if not interrupts.caused(e):
                raise
            self.abandon()
            self.set_state("interrupted", "Ctrl-C")
            progress.note(f"run: interrupted; resume with {self.resume_command}")
            return 130
        finally:
            self.apps.stop_all()
            if self.pinned_db:
                pinning.pin_threads(self.pinned_db, sorted(os.sched_getaffinity(0)))
        self.set_state("complete")
        run_dir = self.context.dir
        final_report(run_dir, len(self.items), summary_rows(run_dir / SUMMARY), self.stream, reference)
        return 0

    def todo(self) -> list[Item]:
        """The items still to measure (those of an API the framework lacks are excluded, not measured)."""
        return [item for item in self.items if not self.files.finished(item) and self.serves(item)]

    def apply(self, effects: Iterable[Effect] | None) -> None:
        """What a phase produced, applied as it yields it (collect/passes/phase_run.py), before the phase
        goes on: the one place where a phase's results change the loop and its manifest."""
        for effect in effects or ():
            match effect:
                case Added(items):
                    self.items += items
                    self.apply([ManifestEntry("order", [*self.context.manifest["order"], *(i.key for i in items)])])
                case ManifestEntry(key, value):
                    self.context.manifest[key] = value
                    write_json(self.context.dir / MANIFEST, self.context.manifest)
                case Ceilings(loadgen, by_threads):
                    self.ceilings[loadgen] = dict(by_threads)

    def measure(self, items: list[Item], progress: Progress, into: ItemFiles | None = None) -> None:
        """Measures `items` as one batch (run_batch) into `into` (the cross-check's files, its load
        generator on this machine), or into the run's own, after which state.json counts them."""
        self.run_batch(items, progress, into)
        if into is None:
            self.set_state("running")

    def thread_counts(self, items: list[Item] | None = None) -> list[int]:
        """The thread counts of `items` (the run's, unless given) under the run's profile."""
        return sorted({self.context.profile.threads(i.requests) for i in (self.items if items is None else items)})

    def set_aside_unfinished(self) -> None:
        for item in self.items:
            if not self.files.finished(item):
                self.files.set_aside(item)

    def abandon(self) -> None:
        self.apps.stop_all()
        self.set_aside_unfinished()

    def estimate(self) -> float:
        p = self.context.profile
        return p.longest() + {"case": 6, "slot": 2.5}.get(p.restart, 1)

    def database_pid(self) -> int | None:
        """Read again per batch: the managed server may have been restarted since. An external
        server is the pool's to find, if it samples one (`./testbed load`)."""
        db, cpus = self.context.db, self.context.cpus
        pid = managed_db.server_pid() if db and db.managed else self.apps.database(db) if db else None
        if pid and cpus.get("db") and pid != self.pinned_db:
            pinning.pin_threads(pid, cpus["db"])
            self.pinned_db = pid
        return pid

    def check_database(self, during: str = "") -> None:
        db = self.context.db
        if db and not managed_db.answering(db):
            raise DatabaseDown(f"the database ({db.describe()}) "
                               + (f"went down during {during}" if during else "is not answering"))

    def sampled(self) -> dict[str, int]:
        """What the samplers watch besides the load generator: every running app, the database."""
        db_pid = self.database_pid()
        return {**{f"app:{name}": pid for name, pid in self.apps.sampled().items()},
                **({"db": db_pid} if db_pid else {})}

    def roles(self, framework: str) -> dict[str, str]:
        """How a measurement of `framework` keeps the samplers' rows (item_stats.trim): its app as
        `app`, the other arms' apps (idle meanwhile) as `other-app`, and the rest as they are."""
        return {**{f"app:{name}": "app" if name == framework else "other-app" for name in self.context.frameworks},
                **{role: role for role in ("db", LOADGEN_ROLE, "testbed", "samplers", *MACHINE_ROLES)}}

    # --- the apps ------------------------------------------------------------------------------
    def serves(self, item: Item) -> bool:
        return self.apps.serves(item.framework, item.api)

    def record_loaded(self, name: str, loaded: dict | None) -> None:
        """The versions the running app reports go into each of its items and, when first seen
        or changed, into the manifest: what ran, read from the process, not from framework.json."""
        recorded = self.context.manifest["frameworks"]
        if loaded is not None and recorded[name].get("loaded") != loaded:
            self.apply([ManifestEntry("frameworks", {**recorded, name: {**recorded[name], "loaded": loaded}})])

    # --- one batch -------------------------------------------------------------------------------
    def run_batch(self, items: list[Item], progress: Progress, files: ItemFiles | None = None) -> None:
        """Measures `items` with one load generator process into `files` (the run's own unless
        given); each that ran to its end is recorded,
        and one cut by a fault is failed or left to redo. Raises DatabaseDown and KeyboardInterrupt
        once what finished is recorded."""
        profile, files = self.context.profile, files or self.files
        if profile.restart != "run":  # every batch on processes started for it
            self.apps.stop_all()
        for name in dict.fromkeys(item.framework for item in items):
            try:
                self.apps.ensure(name)
            except AppFailed as e:
                items = self.fail_arm(items, name, e, files, progress)
        if profile.condition_s and self.apps.ours and profile.restart != "run" and items:
            names = list(dict.fromkeys(item.framework for item in items))
            for name, failure in condition(self.apps, names, profile.condition_s).items():
                items = self.fail_arm(items, name, failure, files, progress)
        if not items:
            return
        self.check_database()
        c = self.context
        batch = Batch(batches.new_folder(c.dir),
                      [Measurement(item, *self.apps.address(item.framework)) for item in items],
                      time.time(), loadgen=files.loadgen, ids=c.ids)
        stages = ItemStages(self, files, self.database_pid(), progress)
        end = drive(batch, stages)
        if end.reason and end.finished < len(stages.marks):
            cut = batch.measurements[end.finished].item
            if end.failed:
                record = stages.take_files(batch, end.finished, files.read(cut))
                progress.result(cut.key, files.failure(record, end.reason, end.tail))
            else:
                files.set_aside(cut)
        if end.database_down:
            self.check_database("the batch")
        if end.engine_lost:
            raise EngineLost(end.reason)

    def fail_arm(self, items: list[Item], name: str, e: AppFailed, files: ItemFiles,
                 progress: Progress) -> list[Item]:
        """`items` without `name`'s, the first of them recorded as failed with why."""
        self.check_database()
        first = next((item for item in items if item.framework == name), None)
        if first:
            progress.result(first.key, files.failure(files.begin(first), str(e), e.tail))
        return [item for item in items if item.framework != name]


class ItemStages(Stages):
    """A batch of the run's items (the rounds', the cross-check's): each opened as its measurement
    begins and judged as it ends; the batch ends early when an app or the database dies or a
    measurement overruns. The finished are counted by the items opened (`marks`), not by the load
    generator's log: an item is only kept once it was opened."""

    def __init__(self, run: RunLoop, files: ItemFiles, db_pid: int | None, progress: Progress):
        self.run, self.files, self.db_pid, self.progress = run, files, db_pid, progress
        self.marks: list[dict] = []  # per opened item: where each app's log stood as it began

    @property
    def before_current(self) -> int:
        """The items opened before the one the load generator is on."""
        return max(0, len(self.marks) - 1)

    def start(self, batch):
        c, apps = self.run.context, self.run.apps
        batches.start(batch, c.profile, c.jmeter, self.run.sampled(), c.cpus.get("loadgen"),
                      c.engines if self.files.remote else None, sampler_kinds=apps.sampler_kinds)
        self.deadline = time.monotonic() + c.profile.longest() + LOADGEN_SLACK_S

    def cut_before_begin(self, batch):
        # An app's death first: wrk fails the measurement the app died in and starts the next at
        # once, so an item opened, or an exit read, before this check blames the wrong case.
        exited = self.run.apps.exited(list(dict.fromkeys(s.framework for s in batch.measurements)))
        if not exited:
            return None
        name, code = exited
        running = batch.measurements[len(self.marks) - 1].framework if self.marks else None
        return Ending(self.before_current, f"the app exited with code {code} during the case",
                      failed=running == name, tail=log_tail(self.run.apps.running[name].log))

    def begin(self, batch, index):
        if self.marks:
            self.progress.advance()
        self.open_item(batch, index)
        self.deadline = time.monotonic() + self.run.context.profile.longest() + LOADGEN_SLACK_S
        begun = batch.measurements[index].item
        self.progress.start(f"{begun.key} ({begun.describe()})")

    def engine_lost(self, batch, fault):
        return Ending(self.before_current, fault, engine_lost=True)

    def exited(self, batch, code):
        done = self.finished(batch)
        if done == len(self.marks) and self.marks:
            self.progress.advance()
        return Ending(done, None if done == len(batch.measurements) else batch.tool.exited(code),
                      tail=log_tail(batch.log))

    def cut(self, batch):
        if self.db_pid and not alive(self.db_pid):
            return Ending(self.before_current, "the database went down", failed=False, database_down=True)
        return None

    def overran(self, batch):
        return Ending(self.before_current, batch.tool.overran(), tail=log_tail(batch.log))

    def waiting(self):
        self.progress.phase("warm-up + measure")

    def finished(self, batch):
        return finished(batch, len(self.marks))

    def keep(self, batch, index):
        self.progress.result(batch.measurements[index].item.key, self.finish_item(batch, index))

    # --- one item --------------------------------------------------------------------------------
    def open_item(self, batch: Batch, index: int) -> None:
        """The item the load generator has just begun: its folder, and a run.json that says `running`
        and who is measured. Also marks where each app's log stands, so the item keeps its own
        slice."""
        run, measurement = self.run, batch.measurements[index]
        self.marks.append({name: (app.log, app.log.stat().st_size if app.log.exists() else 0)
                           for name, app in run.apps.running.items()})
        unsampled = None if self.db_pid else "managed server's pid not found: not sampled" \
            if run.context.db and run.context.db.managed else "external database server: not sampled"
        self.files.write(replace(
            self.files.begin(measurement.item),
            pids={"app": run.apps.sampled().get(measurement.framework), "db": self.db_pid,
                  "loadgen": batch.loadgen_pid},
            loadgen=batch.loadgen, variant=run.context.frameworks[measurement.framework]["variant"]["name"],
            loaded=run.apps.loaded.get(measurement.framework),
            batch={"folder": batch.folder.relative_to(run.context.dir).as_posix(), "position": index + 1,
                   "of": len(batch.measurements)},
            db_sampled=False if unsampled else None, db_note=unsampled))

    def finish_item(self, batch: Batch, index: int) -> str:
        run, measurement = self.run, batch.measurements[index]
        item, folder = measurement.item, self.files.folder(measurement.item)
        record = self.take_files(batch, index, self.files.read(item))
        engines = record.engines
        window_ms = batch.window_ms(index)
        summary = summarize(folder / JTL, window_ms)
        if not summary.get("samples"):
            run.check_database(item.key)
            return self.files.failure(record, "no sample finished inside the measured window",
                                      log_tail(batch.log), summary)
        if (summary.get("errors") or 0) > 0:
            run.check_database(item.key)
        window, stats = trimmed_stats(folder, batch, run.roles(measurement.framework), window_ms)
        window["warmup_taken_s"] = batch.warmup_taken_s(index)
        cores = batch.cores
        if engines is not None:  # the load generator is the busiest engine, on its own cores
            cores, stats = remote.busiest(engines, stats)
        threads = record.load["threads"]
        lost = batch.tool.lost_connections(folder)
        flags, checks = judge(summary, stats, threads, cores, run.context.machine_cores,
                              None if engines else run.ceilings.get(batch.loadgen, {}).get(threads), engines,
                              batch.loadgen, sum(lost.values()), shares_cores=run.context.loadgen_shares_cores)
        record = replace(record, status="ok", flags=flags, ended_at=now_iso(), socket_errors=lost or None,
                         loadgen_cores=cores, window=window, results={**summary, **stats}, checks=checks)
        self.files.measured(record, summary, stats)
        return outcome_line(summary, stats, flags, checks)

    def take_files(self, batch: Batch, index: int, record: Record) -> Record:
        """The item's JTL, out of the batch's folder (with engines, theirs merged into one), with the
        load generator's own report of it, and its slice of its app's log; `record` with what each
        engine ran and reported, when there were any."""
        measurement, marks = batch.measurements[index], self.marks
        folder = self.files.folder(measurement.item)
        if batch.controllers:
            record = replace(record, loadgen="engines", engines=remote.take(
                batch.controllers, index, folder / JTL, record.load["threads"]))
        elif batch.jtl(index).exists():
            batch.jtl(index).rename(folder / JTL)
            batch.tool.take_report(batch.jtl(index), folder)
        if measurement.framework in marks[index]:
            log, start = marks[index][measurement.framework]
            after = marks[index + 1].get(measurement.framework) if index + 1 < len(marks) else None
            copy_log(log, start, folder / "app.log", after[1] if after and after[0] == log else None)
        return record
