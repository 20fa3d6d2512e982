"""The run engine behind `./testbed run`: every framework x API x case x iteration, in a recorded
shuffled order, each measured the same way (DESIGN §5, §7).

Per item: (re)start the app and wait for readiness; JMeter warms up then measures (one JVM, warm-up
samples labelled and left out); both samplers run meanwhile and are trimmed to the measured window
read from the JTL; run.json, the sampler files, the JTL and the app's log land in the item's
folder, and a row is appended to summary.csv. A folder that exists belongs to a finished item or
to an attempt that was cut short; the latter is moved under `interrupted/` before it is redone,
so nothing is ever overwritten.
"""
import json
import os
import random
import shutil
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from cli.common import UserError, fail, manifests, say
from collect import manifest as manifest_mod
from collect import metrics, parts, pinning
from collect.plan import APIS, key, load_cases, order, parse_key
from collect.profiles import Profile
from collect.progress import Progress
from collect.samplers import Samplers, java_pid

SCHEMA_VERSION = 1
FINISHED = ("ok", "failed", "excluded")
READY_TIMEOUT_S = 90
LOG_TAIL_LINES = 15


class DatabaseDown(Exception):
    """The database stopped answering: the run stops, resumable, rather than record garbage."""


@dataclass
class Options:
    profile: Profile
    frameworks: list[str]
    apis: list[str]
    cases: list[int]
    pin: bool
    results_root: Path
    seed: int = field(default_factory=lambda: random.SystemRandom().randrange(1, 2 ** 31))

    def settings(self) -> dict:
        return {"profile": self.profile.settings(), "frameworks": self.frameworks,
                "apis": self.apis, "cases": self.cases, "iterations": self.profile.iterations,
                "pin": self.pin}


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id(profile: str) -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S") + f"-{profile}"


# --- checks before anything starts ------------------------------------------------------------------

def check_results_root(root: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        fail(f"cannot write results under {root} ({e.strerror or e}); "
             f"make it writable or choose another folder with --results-dir.")


def check_tools() -> None:
    for tool, package in (("top", "procps"), ("grep", "grep")):
        if not shutil.which(tool):
            fail(f"{tool} not found: install the Debian package {package} (./testbed setup).")


def check_ports(impls: dict) -> None:
    for impl in impls.values():
        if parts.port_taken(parts.port(impl)):
            fail(f"port {parts.port(impl)} ({impl['name']}) is already in use: stop what listens "
                 f"there (./testbed down?) or set TESTBED_PORT_OFFSET to move the apps.")


def db_pid(db) -> int | None:
    """The managed server's pid, for sampling; an external server is not ours to sample."""
    if not db.managed:
        return None
    from cli.db import PIDFILE
    try:
        pid = int(PIDFILE.read_text().strip())
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
    except (OSError, ValueError):
        return None
    return pid if comm in ("mariadbd", "mysqld") else None


def db_alive(db) -> bool:
    if db.managed and not db_pid(db):
        return False
    try:
        with socket.create_connection((db.host, db.port), timeout=3) as s:
            s.settimeout(3)
            return len(s.recv(1)) > 0  # a MySQL server speaks first: its handshake
    except OSError:
        return False


# --- one run -------------------------------------------------------------------------------------

class Run:
    def __init__(self, run_dir: Path, manifest: dict, impls: dict[str, dict], jmeter: str,
                 db, stream=None):
        self.dir = run_dir
        self.manifest = manifest
        self.impls = impls
        self.jmeter = jmeter
        self.db = db
        self.pinned_db = None    # the database pid whose threads were moved (--pin)
        self.cases = load_cases()
        settings = manifest["settings"]
        self.profile = Profile(**{k: v for k, v in settings["profile"].items() if k != "threads"})
        self.pinning = manifest["pinning"]
        self.cpus = self.pinning.get("cpus", {}) if self.pinning.get("applied") else {}
        self.items = [parse_key(k, self.cases) for k in manifest["order"]]
        self.app = None          # (framework, Popen, log path) of the app now running
        self.loaded = {}         # framework -> what its running app reported loading
        self.block = None        # (framework, api, iteration) the running app has served
        self.stream = stream

    # state.json: whether the run is going, interrupted, stopped or complete
    def set_state(self, status: str, reason: str | None = None) -> None:
        state = {"status": status, "reason": reason, "pid": os.getpid(), "updated_at": now_iso(),
                 "done": sum(1 for item in self.items if self.finished(item))}
        tmp = self.dir / "state.json.tmp"
        tmp.write_text(json.dumps(state, indent=2) + "\n")
        os.replace(tmp, self.dir / "state.json")

    def item_dir(self, item) -> Path:
        return self.dir / key(item)

    def finished(self, item) -> bool:
        try:
            return json.loads((self.item_dir(item) / "run.json").read_text())["status"] in FINISHED
        except (OSError, ValueError, KeyError):
            return False

    def set_aside(self, item) -> None:
        """An attempt cut short is kept, out of the way, under interrupted/."""
        folder = self.item_dir(item)
        if not folder.exists():
            return
        n = 1
        while (target := self.dir / "interrupted" / f"{key(item)}-attempt-{n}").exists():
            n += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)

    def execute(self) -> int:
        todo = [item for item in self.items if not self.finished(item)]
        for item in todo:
            self.set_aside(item)
        self.reconcile_summary()
        progress = Progress(len(self.items), len(self.items) - len(todo), self.estimate(),
                            self.stream)
        self.set_state("running")
        current = None
        try:
            for index, item in enumerate(todo):
                current = item
                progress.start(f"{key(item)} ({item['requests']} req, {item['rows']} rows, "
                               f"{'join' if item['joins'] else 'no join'})")
                outcome = self.run_item(item, progress, todo[index + 1] if index + 1 < len(todo) else None)
                progress.finish(outcome)
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
            fix = "start the database (./testbed db start)" if isinstance(e, DatabaseDown) \
                else "fix that"
            progress.note(f"run: stopped: {e}")
            progress.note(f"run: {fix}, then resume with "
                          f"./testbed run --resume {self.dir.name}{self.results_dir_hint()}")
            return 3
        finally:
            self.stop_app()
            if self.pinned_db:
                pinning.pin_threads(self.pinned_db, sorted(os.sched_getaffinity(0)))
        self.set_state("complete")
        self.print_summary()
        return 0

    def reconcile_summary(self) -> None:
        """A run killed between an item's run.json and its summary row gets the row back."""
        have = {(r["framework"], r["api"], int(r["case"]), int(r["iteration"]))
                for r in metrics.read_summary(self.dir / "summary.csv")}
        for item in self.items:
            if (item["framework"], item["api"], item["case"], item["iteration"]) in have \
                    or not self.finished(item):
                continue
            record = json.loads((self.item_dir(item) / "run.json").read_text())
            results = record.get("results", {})
            metrics.append_summary(self.dir / "summary.csv", metrics.summary_row(
                item, record["status"], record["flags"],
                {k: results.get(k) for k in metrics.JTL_FIELDS},
                {k: v for k, v in results.items() if k not in metrics.JTL_FIELDS}))

    def results_dir_hint(self) -> str:
        return f" --results-dir {self.dir.parent}" if self.dir.parent.resolve() != parts.DEFAULT_RESULTS.resolve() else ""

    def abandon(self, item) -> None:
        self.stop_app()
        if item is not None and not self.finished(item):
            self.set_aside(item)

    def database_pid(self) -> int | None:
        """Read again per item: the managed server may have been restarted since."""
        pid = db_pid(self.db)
        if pid and self.cpus.get("db") and pid != self.pinned_db:
            pinning.pin_threads(pid, self.cpus["db"])
            self.pinned_db = pid
        return pid

    def estimate(self) -> float:
        p = self.profile
        return p.rampup_s + p.warmup_s + p.duration_s + (6 if p.restart == "case" else 4)

    # --- the app -----------------------------------------------------------------------------
    def start_app(self, framework: str) -> None:
        impl = self.impls[framework]
        logs = self.dir / "logs"
        logs.mkdir(exist_ok=True)
        log = logs / f"{framework}-{datetime.now(timezone.utc).strftime('%H%M%S%f')}.log"
        with pinning.launching_on(self.cpus.get("app")):
            proc = parts.start_app(impl, log)
        self.app = (framework, proc, log)
        try:
            parts.wait_ready(impl, proc, READY_TIMEOUT_S, log)
        except UserError as e:
            tail = log_tail(log)
            self.stop_app()
            raise AppFailed(f"{framework} did not become ready: {e}", tail) from None
        self.record_loaded(framework, manifest_mod.loaded_report(log))

    def record_loaded(self, framework: str, loaded: dict | None) -> None:
        """The versions the running app reports go into each of its items and, when first seen
        or changed, into the manifest: what ran, read from the process, not from its manifest."""
        self.loaded[framework] = loaded
        entry = self.manifest["frameworks"][framework]
        if loaded is not None and entry.get("loaded") != loaded:
            entry["loaded"] = loaded
            manifest_mod.write(self.dir / "manifest.json", self.manifest)

    def stop_app(self) -> None:
        if self.app:
            parts.stop_app(self.app[1])
            self.app = None

    def app_for(self, item, previous_block) -> None:
        alive = self.app and self.app[0] == item["framework"] and self.app[1].poll() is None
        block = (item["framework"], item["api"], item["iteration"])
        if self.profile.restart == "case" or not alive or previous_block != block:
            self.stop_app()
            if not db_alive(self.db):
                raise DatabaseDown(f"the database ({self.db.describe()}) is not answering")
            self.start_app(item["framework"])

    # --- one item -------------------------------------------------------------------------------
    def run_item(self, item, progress: Progress, following) -> str:
        folder = self.item_dir(item)
        folder.mkdir(parents=True)
        threads = self.profile.threads(item["requests"])
        record = {"schema_version": SCHEMA_VERSION, **{k: item[k] for k in (
            "framework", "api", "case", "requests", "rows", "joins", "iteration")},
                  "status": "running", "reason": None, "flags": [], "started_at": now_iso(),
                  "ended_at": None, "pids": {}, "settings": {
                      "threads": threads, "rampup_s": self.profile.rampup_s,
                      "warmup_s": self.profile.warmup_s, "duration_s": self.profile.duration_s}}
        write_json(folder / "run.json", record)
        if not parts.supports(self.impls[item["framework"]], item["api"]):
            return self.record_outcome(item, record, "excluded",
                                       f"{item['framework']} does not implement {item['api']} "
                                       f"(framework.json apis)", None)
        block = (item["framework"], item["api"], item["iteration"])
        try:
            self.app_for(item, self.block)
        except AppFailed as e:
            if not db_alive(self.db):
                raise DatabaseDown(f"the database ({self.db.describe()}) is not answering") from None
            return self.record_failure(item, record, str(e), e.tail, {}, {})
        self.block = block
        framework, app, log = self.app
        log_start = log.stat().st_size if log.exists() else 0
        dbp = self.database_pid()
        record["pids"] = {"app": app.pid, "db": dbp, "jmeter": None}
        record["loaded"] = self.loaded.get(framework)
        if not dbp:
            record["db_sampled"] = False
            record["db_note"] = ("managed server's pid not found: not sampled" if self.db.managed
                                 else "external database server: not sampled")
        progress.phase("warm-up + measure")
        t0 = time.time()
        jtl = folder / "results.jtl"
        raw = folder / "raw"
        raw.mkdir()
        jm, crashed, loadgen_cores = self.measure(item, record, threads, jtl, raw, t0, dbp, progress)
        copy_log(log, log_start, folder / "app.log")
        if crashed is None and app.poll() is not None:
            crashed = app.returncode
        if crashed is not None:
            self.stop_app()
            shutil.rmtree(raw)
            return self.record_failure(item, record,
                                       f"the app exited with code {crashed} during the case",
                                       log_tail(folder / "app.log"), {}, {})
        if jm.returncode not in (0, None) or not jtl.exists():
            shutil.rmtree(raw)
            if not db_alive(self.db):
                raise DatabaseDown(f"the database ({self.db.describe()}) went down during {key(item)}")
            reason = ("JMeter did not finish in time and was stopped" if record.get("jmeter_timeout")
                      else f"JMeter exited with code {jm.returncode}")
            return self.record_failure(item, record, reason,
                                       log_tail(folder / "jmeter.log"), {}, {})
        summary = parts.summarize(jtl)
        if not summary.get("samples"):
            shutil.rmtree(raw)
            if not db_alive(self.db):
                raise DatabaseDown(f"the database ({self.db.describe()}) went down during {key(item)}")
            return self.record_failure(item, record, "no sample finished inside the measured window",
                                       log_tail(folder / "jmeter.log"), summary, {})
        window = metrics.measured_window(jtl, t0)
        for kind in ("proc", "top"):
            metrics.trim(raw / f"{kind}.csv", folder / f"{kind}.csv", *window)
        raw.rmdir()
        stats = metrics.sampler_stats(folder / "proc.csv")
        if (summary.get("errors") or 0) > 0 and not db_alive(self.db):
            raise DatabaseDown(f"the database ({self.db.describe()}) went down during {key(item)}")
        flags = metrics.flags(summary, stats, loadgen_cores, threads)
        record.update(status="ok", flags=flags, ended_at=now_iso(), loadgen_cores=loadgen_cores,
                      window={"t0_epoch": t0, "start_s": window[0], "end_s": window[1]},
                      results={**summary, **stats})
        write_json(folder / "run.json", record)
        metrics.append_summary(self.dir / "summary.csv",
                               metrics.summary_row(item, "ok", flags, summary, stats))
        if self.profile.restart == "case" or not following or \
                (following["framework"], following["api"], following["iteration"]) != block:
            self.stop_app()
        return (f"{summary.get('samples')} samples, {summary.get('errors')} errors, "
                f"{fmt(summary.get('throughput_rps'))} req/s, mean {fmt(summary.get('mean_ms'))} ms, "
                f"app CPU {fmt(stats.get('cpu_mean_pct'))} %" + (f"  FLAGGED: {', '.join(flags)}" if flags else ""))

    def measure(self, item, record, threads, jtl, raw, t0, dbp, progress):
        """JMeter's warm-up and measured window with both samplers running; whatever happens
        (a crash, Ctrl-C), JMeter and the samplers are stopped before this returns."""
        folder = self.item_dir(item)
        app = self.app[1]
        jm = samplers = None
        crashed = None
        ticks = 0
        try:
            with pinning.launching_on(self.cpus.get("jmeter")):
                jm = parts.start_load(self.impls[item["framework"]], item, threads, self.profile,
                                      jtl, folder / "jmeter.log", self.jmeter)
            jvm = java_pid(jm.pid)
            loadgen_cores = pinning.cores_of(jvm)  # the CPU set it runs on: pinned, or all
            record["pids"]["jmeter"] = jvm
            write_json(folder / "run.json", record)  # still running: the pids say who is measured
            samplers = Samplers({"app": app.pid, "db": dbp, "jmeter": jvm}, raw, t0)
            limit = time.monotonic() + self.profile.rampup_s + self.profile.warmup_s + \
                self.profile.duration_s + 120
            while jm.poll() is None:
                if app.poll() is not None:
                    crashed = app.returncode
                    break
                if time.monotonic() > limit:
                    record["jmeter_timeout"] = True
                    break
                time.sleep(0.1)
                ticks += 1
                if ticks % 10 == 0:  # the elapsed time and ETA move on during the window
                    progress.phase("warm-up + measure")
        finally:
            if samplers:
                samplers.stop()
            if jm and jm.poll() is None:
                parts.stop_process(jm)
        return jm, crashed, loadgen_cores

    def record_failure(self, item, record, reason, tail, summary, stats) -> str:
        self.record_outcome(item, record, "failed", reason, tail, summary, stats)
        return f"FAILED: {reason}"

    def record_outcome(self, item, record, status, reason, tail, summary=None, stats=None) -> str:
        summary, stats = summary or {}, stats or {}
        record.update(status=status, reason=reason, ended_at=now_iso(), results={**summary, **stats})
        if tail is not None:
            record["log_tail"] = tail
        write_json(self.item_dir(item) / "run.json", record)
        metrics.append_summary(self.dir / "summary.csv",
                               metrics.summary_row(item, status, [], summary, stats))
        return f"{status}: {reason}"

    def print_summary(self) -> None:
        rows = metrics.read_summary(self.dir / "summary.csv")
        ok = sum(1 for r in rows if r["status"] == "ok")
        say(f"\nrun {self.dir.name}: {len(rows)} of {len(self.items)} measured, {ok} ok, "
            f"{sum(1 for r in rows if r['status'] == 'failed')} failed, "
            f"{sum(1 for r in rows if r['flags'])} flagged as untrustworthy.")
        for r in rows:
            where = f"{r['framework']}/{r['api']}/case-{int(r['case']):02d}/iter-{int(r['iteration']):02d}"
            if r["status"] != "ok":
                say(f"  {r['status']}: {where}")
            elif r["flags"]:
                say(f"  flagged ({r['flags'].replace(';', ', ')}): {where}")


class AppFailed(Exception):
    def __init__(self, message, tail):
        super().__init__(message)
        self.tail = tail


def fmt(value) -> str:
    return "-" if value is None else f"{value:.1f}" if isinstance(value, float) else str(value)


def write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def copy_log(log: Path, start: int, target: Path) -> None:
    with open(target, "wb") as out:
        if log.exists():
            with open(log, "rb") as src:
                src.seek(start)
                shutil.copyfileobj(src, out)


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# --- creating and resuming runs --------------------------------------------------------------

def implementations(frameworks: list[str] | None) -> dict[str, dict]:
    found = {m["name"]: m for m in manifests()}
    if not found:
        fail("no implementation found (no */framework.json).")
    unknown = [f for f in frameworks or [] if f not in found]
    if unknown:
        fail(f"unknown framework {', '.join(unknown)}; known: {', '.join(sorted(found))}.")
    return {name: found[name] for name in (frameworks or sorted(found))}


def validate(frameworks, apis, cases, iterations) -> None:
    bad = [a for a in apis if a not in APIS]
    if bad:
        fail(f"unknown API {', '.join(bad)}; choose from {', '.join(APIS)}.")
    known = load_cases()
    wrong = [str(c) for c in cases if c not in known]
    if wrong:
        fail(f"no case {', '.join(wrong)}; cases are 1-{max(known)}.")
    if iterations is not None and iterations < 1:
        fail("--iterations must be 1 or more.")


def create(options: Options, impls: dict, jmeter: str, db) -> Run:
    run_id = new_run_id(options.profile.name)
    run_dir = options.results_root / run_id
    try:
        run_dir.mkdir()
    except FileExistsError:
        fail(f"{run_dir} already exists; results are never overwritten: wait a second and retry.")
    from cli.db import loaded
    manifest = {
        "schema_version": SCHEMA_VERSION, "run_id": run_id, **manifest_mod.git(),
        "created_at": now_iso(), "profile": options.profile.name, "settings": options.settings(),
        "seed": options.seed,
        "order": order(list(impls), options.apis, options.cases, options.profile.iterations,
                       options.profile.restart, options.seed),
        "frameworks": manifest_mod.frameworks(list(impls.values())),
        "versions": manifest_mod.runtime_versions(jmeter),
        "machine": manifest_mod.machine(),
        "pinning": pinning.plan(options.pin),
        "ports": {name: parts.port(impl) for name, impl in impls.items()},
        "database": manifest_mod.database_info(db, loaded(db), parts.db_version(db)),
        "samplers": {"proc": "/proc/<pid>/stat every 0.1 s: CPU % of one core from utime+stime, RSS",
                     "top": "top -b -d 0.1 -p PIDS | grep --line-buffered (study Appendix B, by pid)",
                     "summary_source": "proc.csv, trimmed to the measured window"},
    }
    if not manifest["database"]["managed"]:
        manifest["database"]["sampled"] = False
    manifest_mod.write(run_dir / "manifest.json", manifest)
    return Run(run_dir, manifest, impls, jmeter, db)


def recorded(results_root: Path, run_id: str) -> dict:
    """The manifest of a run that can be resumed; a clear error for one that cannot."""
    run_dir = results_root / run_id
    if Path(run_id).name != run_id:
        fail(f"--resume takes a run id (a folder name under {results_root}), not {run_id!r}.")
    try:
        manifest = json.loads((run_dir / "manifest.json").read_text())
    except (OSError, ValueError):
        fail(f"no run {run_id} under {results_root} (no readable manifest.json).")
    try:
        state = json.loads((run_dir / "state.json").read_text())
    except (OSError, ValueError):
        state = {}
    if state.get("status") == "complete":
        fail(f"run {run_id} is already complete; start a new run instead.")
    if state.get("status") == "running" and pid_alive(state.get("pid")):
        fail(f"run {run_id} is still running (pid {state['pid']}).")
    if not os.access(run_dir, os.W_OK):
        fail(f"cannot write into {run_dir}; make it writable to resume.")
    return manifest


def resume(results_root: Path, run_id: str, impls: dict, jmeter: str, db) -> Run:
    run_dir = results_root / run_id
    return Run(run_dir, recorded(results_root, run_id), impls, jmeter, db)


def pid_alive(pid) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
