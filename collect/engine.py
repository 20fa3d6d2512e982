"""The run engine behind `./testbed run`: works through a run's items in their recorded order,
(re)starting each app when its block or the profile asks for it (DESIGN §5, §7).

A folder that exists belongs to a finished item or to an attempt that was cut short; the latter is
moved under `interrupted/` before it is redone, so nothing is ever overwritten.
"""
import json
import os
import shutil
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

from benchlib import apps
from benchlib import database as managed_db
from benchlib.cases import cases
from benchlib.console import UserError
from benchlib.files import write_json
from benchlib.jtl import JTL_FIELDS, summarize
from benchlib.paths import DEFAULT_RESULTS
from benchlib.processes import stop_group
from benchlib.results import (JTL, MANIFEST, RUN_JSON, STATE, SUMMARY, append_summary, item_key,
                              parse_item_key, summary_row, summary_rows)
from collect import item_stats, pinning
from collect.item import (RunningApp, copy_log, log_tail, measure, new_record, outcome_line,
                          sampled_pid, trimmed_stats)
from collect.profiles import Profile
from collect.progress import Progress, final_report
from collect.run_manifest import loaded_report, now_iso

FINISHED = ("ok", "failed", "excluded")
READY_TIMEOUT_S = 90


class DatabaseDown(Exception):
    """The database stopped answering: the run stops, resumable, rather than record garbage."""


class AppFailed(Exception):
    def __init__(self, message, tail):
        super().__init__(message)
        self.tail = tail


class Block(NamedTuple):
    """What one app process serves in a row when the profile restarts per block."""
    framework: str
    api: str
    iteration: int


def block_of(item: dict) -> Block:
    return Block(item["framework"], item["api"], item["iteration"])


class RunEngine:
    def __init__(self, run_dir: Path, manifest: dict, frameworks: dict[str, dict], jmeter: str,
                 db, stream=None):
        self.dir = run_dir
        self.manifest = manifest
        self.frameworks = frameworks
        self.jmeter = jmeter
        self.db = db
        self.stream = stream or sys.stdout
        self.profile = Profile.from_recorded(manifest["settings"]["profile"])
        self.pinning = manifest["pinning"]
        self.cpus = self.pinning.get("cpus", {}) if self.pinning.get("applied") else {}
        known = cases()
        self.items = [parse_item_key(k, known) for k in manifest["order"]]
        self.app: RunningApp | None = None
        self.block: Block | None = None   # what the running app has served
        self.loaded: dict[str, dict | None] = {}   # framework -> what its running app reported
        self.pinned_db: int | None = None          # the database pid whose threads were moved

    # --- the run's files --------------------------------------------------------------------------
    def set_state(self, status: str, reason: str | None = None) -> None:
        """state.json: whether the run is going, interrupted, stopped or complete."""
        write_json(self.dir / STATE, {
            "status": status, "reason": reason, "pid": os.getpid(), "updated_at": now_iso(),
            "done": sum(1 for item in self.items if self.finished(item))})

    def item_dir(self, item: dict) -> Path:
        return self.dir / item_key(item)

    def finished(self, item: dict) -> bool:
        try:
            return json.loads((self.item_dir(item) / RUN_JSON).read_text())["status"] in FINISHED
        except (OSError, ValueError, KeyError):
            return False

    def set_aside(self, item: dict) -> None:
        """An attempt cut short is kept, out of the way, under interrupted/."""
        folder = self.item_dir(item)
        if not folder.exists():
            return
        n = 1
        while (target := self.dir / "interrupted" / f"{item_key(item)}-attempt-{n}").exists():
            n += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)

    def reconcile_summary(self) -> None:
        """A run killed between an item's run.json and its summary row gets the row back."""
        have = {(r["framework"], r["api"], int(r["case"]), int(r["iteration"]))
                for r in summary_rows(self.dir / SUMMARY)}
        for item in self.items:
            if (item["framework"], item["api"], item["case"], item["iteration"]) in have \
                    or not self.finished(item):
                continue
            record = json.loads((self.item_dir(item) / RUN_JSON).read_text())
            results = record.get("results", {})
            append_summary(self.dir / SUMMARY, summary_row(
                item, record["status"], record["flags"], {k: results.get(k) for k in JTL_FIELDS},
                {k: v for k, v in results.items() if k not in JTL_FIELDS}))

    def results_dir_hint(self) -> str:
        return "" if self.dir.parent.resolve() == DEFAULT_RESULTS.resolve() \
            else f" --results-dir {self.dir.parent}"

    # --- the loop --------------------------------------------------------------------------------
    def execute(self) -> int:
        todo = [item for item in self.items if not self.finished(item)]
        for item in todo:
            self.set_aside(item)
        self.reconcile_summary()
        progress = Progress(len(self.items), len(self.items) - len(todo), self.estimate(), self.stream)
        self.set_state("running")
        current = None
        try:
            for index, item in enumerate(todo):
                current = item
                progress.start(f"{item_key(item)} ({item['requests']} req, {item['rows']} rows, "
                               f"{'join' if item['joins'] else 'no join'})")
                following = todo[index + 1] if index + 1 < len(todo) else None
                progress.finish(self.run_item(item, progress, following))
                self.set_state("running")
            current = None
        except KeyboardInterrupt:
            self.abandon(current)
            self.set_state("interrupted", "Ctrl-C")
            progress.note(f"run: interrupted; resume with ./testbed run --resume {self.dir.name}"
                          + self.results_dir_hint())
            return 130
        except (DatabaseDown, UserError) as e:  # e.g. the app's port taken by someone else
            self.abandon(current)
            self.set_state("stopped", str(e))
            fix = "start the database (./testbed db start)" if isinstance(e, DatabaseDown) else "fix that"
            progress.note(f"run: stopped: {e}")
            progress.note(f"run: {fix}, then resume with "
                          f"./testbed run --resume {self.dir.name}{self.results_dir_hint()}")
            return 3
        finally:
            self.stop_app()
            if self.pinned_db:
                pinning.pin_threads(self.pinned_db, sorted(os.sched_getaffinity(0)))
        self.set_state("complete")
        final_report(self.dir.name, len(self.items), summary_rows(self.dir / SUMMARY), self.stream)
        return 0

    def abandon(self, item: dict | None) -> None:
        self.stop_app()
        if item is not None and not self.finished(item):
            self.set_aside(item)

    def estimate(self) -> float:
        p = self.profile
        return p.rampup_s + p.warmup_s + p.duration_s + (6 if p.restart == "case" else 4)

    def database_pid(self) -> int | None:
        """Read again per item: the managed server may have been restarted since. An external
        server is not ours to sample."""
        pid = managed_db.server_pid() if self.db.managed else None
        if pid and self.cpus.get("db") and pid != self.pinned_db:
            pinning.pin_threads(pid, self.cpus["db"])
            self.pinned_db = pid
        return pid

    def check_database(self, during: str = "") -> None:
        if not managed_db.answering(self.db):
            raise DatabaseDown(f"the database ({self.db.describe()}) "
                               + (f"went down during {during}" if during else "is not answering"))

    # --- the app ---------------------------------------------------------------------------------
    def needs_fresh_app(self, item: dict) -> bool:
        alive = self.app is not None and self.app.framework == item["framework"] \
            and self.app.proc.poll() is None
        return self.profile.restart == "case" or not alive or self.block != block_of(item)

    def keeps_app_after(self, item: dict, following: dict | None) -> bool:
        return self.profile.restart != "case" and following is not None \
            and block_of(following) == block_of(item)

    def start_app(self, name: str) -> None:
        framework = self.frameworks[name]
        logs = self.dir / "logs"
        logs.mkdir(exist_ok=True)
        log = logs / f"{name}-{datetime.now(timezone.utc).strftime('%H%M%S%f')}.log"
        with pinning.launching_on(self.cpus.get("app")):
            proc = apps.start_app(framework, apps.port(framework), log,
                                  apps.default_variant(framework).get("env", {}))
        try:
            apps.wait_ready(framework, apps.port(framework), proc, log, READY_TIMEOUT_S)
        except UserError as e:
            stop_group(proc)
            raise AppFailed(f"{name} did not become ready: {e}", log_tail(log)) from None
        self.app = RunningApp(name, proc, log, sampled_pid(framework, proc))
        self.record_loaded(name, loaded_report(log))

    def record_loaded(self, name: str, loaded: dict | None) -> None:
        """The versions the running app reports go into each of its items and, when first seen
        or changed, into the manifest: what ran, read from the process, not from framework.json."""
        self.loaded[name] = loaded
        entry = self.manifest["frameworks"][name]
        if loaded is not None and entry.get("loaded") != loaded:
            entry["loaded"] = loaded
            write_json(self.dir / MANIFEST, self.manifest)

    def stop_app(self) -> None:
        if self.app:
            stop_group(self.app.proc)
            self.app = None

    # --- one item --------------------------------------------------------------------------------
    def run_item(self, item: dict, progress: Progress, following: dict | None) -> str:
        folder = self.item_dir(item)
        folder.mkdir(parents=True)
        record = new_record(item, self.profile)
        write_json(folder / RUN_JSON, record)
        if item["api"] not in apps.served_apis(self.frameworks[item["framework"]]):
            return self.record_outcome(item, record, "excluded",
                                       f"{item['framework']} does not implement {item['api']} "
                                       f"(framework.json apis)", None)
        try:
            if self.needs_fresh_app(item):
                self.stop_app()
                self.check_database()
                self.start_app(item["framework"])
        except AppFailed as e:
            self.check_database()
            return self.record_failure(item, record, str(e), e.tail)
        self.block = block_of(item)
        app = self.app
        log_start = app.log.stat().st_size if app.log.exists() else 0
        db_pid = self.database_pid()
        record["pids"] = {"app": app.pid, "db": db_pid, "jmeter": None}
        record["loaded"] = self.loaded.get(app.framework)
        if not db_pid:
            record["db_sampled"] = False
            record["db_note"] = ("managed server's pid not found: not sampled" if self.db.managed
                                 else "external database server: not sampled")
        progress.phase("warm-up + measure")
        t0 = time.time()
        (folder / "raw").mkdir()
        m = measure(app, self.frameworks[item["framework"]], item, self.profile, folder, record,
                    lambda r: write_json(folder / RUN_JSON, r), self.cpus.get("jmeter"), db_pid,
                    t0, self.jmeter, progress)
        copy_log(app.log, log_start, folder / "app.log")
        app_exit = m.app_exit if m.app_exit is not None else app.proc.poll()
        if app_exit is not None:
            self.stop_app()
            shutil.rmtree(folder / "raw")
            return self.record_failure(item, record, f"the app exited with code {app_exit} during the case",
                                       log_tail(folder / "app.log"))
        if m.timed_out:
            record["jmeter_timeout"] = True
        if m.jmeter.returncode not in (0, None) or not (folder / JTL).exists() or m.timed_out:
            shutil.rmtree(folder / "raw")
            self.check_database(item_key(item))
            reason = ("JMeter did not finish in time and was stopped" if m.timed_out
                      else f"JMeter exited with code {m.jmeter.returncode}")
            return self.record_failure(item, record, reason, log_tail(folder / "jmeter.log"))
        summary = summarize(folder / JTL)
        if not summary.get("samples"):
            shutil.rmtree(folder / "raw")
            self.check_database(item_key(item))
            return self.record_failure(item, record, "no sample finished inside the measured window",
                                       log_tail(folder / "jmeter.log"), summary)
        window, stats = trimmed_stats(folder, t0)
        if (summary.get("errors") or 0) > 0:
            self.check_database(item_key(item))
        threads = record["load"]["threads"]
        flags = item_stats.flags(summary, stats, m.loadgen_cores, threads)
        record.update(status="ok", flags=flags, ended_at=now_iso(), loadgen_cores=m.loadgen_cores,
                      window=window, results={**summary, **stats})
        write_json(folder / RUN_JSON, record)
        append_summary(self.dir / SUMMARY, summary_row(item, "ok", flags, summary, stats))
        if not self.keeps_app_after(item, following):
            self.stop_app()
        return outcome_line(summary, stats, flags)

    def record_failure(self, item, record, reason, tail, summary=None) -> str:
        self.record_outcome(item, record, "failed", reason, tail, summary)
        return f"FAILED: {reason}"

    def record_outcome(self, item, record, status, reason, tail, summary=None, stats=None) -> str:
        summary, stats = summary or {}, stats or {}
        record.update(status=status, reason=reason, ended_at=now_iso(), results={**summary, **stats})
        if tail is not None:
            record["log_tail"] = tail
        write_json(self.item_dir(item) / RUN_JSON, record)
        append_summary(self.dir / SUMMARY, summary_row(item, status, [], summary, stats))
        return f"{status}: {reason}"
