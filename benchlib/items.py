"""One item of a run (framework x API x case x round) and its run.json, typed once for the
writer (collect/), the resume (collect/items/item_files.py) and the reader (analysis/); the files
themselves are described in docs/results-format.md and named in benchlib/results.py.

A run.json is built whole from a Record and written whole: the writer never patches a dict, and the
reader gets the same type back, so a field is added in one place."""
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from benchlib.results import ITEM_FIELDS, OLD_NAMES, SCHEMA_VERSION, STATUSES, ResultFileError, item_key, read_json


@dataclass(frozen=True, kw_only=True)
class Item:
    """What is measured: a framework's API at a case (its concurrent requests, rows and joins), in a
    round, the repeat of the matrix it belongs to (0 for a probe of no round: the ceiling, the
    reference work)."""
    framework: str
    api: str
    case: int
    requests: int
    rows: int
    joins: int
    round: int = 0

    @property
    def key(self) -> str:
        """Its folder under the run, and its name in the manifest's order: `iter-NN` for its round,
        the name before schema 5, kept because runs already made (and resumed) are keyed by it."""
        return item_key(self.fields())

    def fields(self) -> dict:
        """benchlib.results.ITEM_FIELDS, as the result files' columns hold them."""
        return asdict(self)

    def describe(self) -> str:
        return f"{self.requests} req, {self.rows} rows, {'join' if self.joins else 'no join'}"

    @classmethod
    def parse(cls, key: str, cases: dict[int, dict]) -> "Item":
        """The item named `key` (Item.key: its round still `iter-NN`), its case's shape from `cases`
        (benchlib.cases.cases)."""
        framework, api, case, round_ = key.split("/")
        shape = cases[int(case.removeprefix("case-"))]
        return cls(framework=framework, api=api, case=shape["case"], requests=shape["requests"], rows=shape["rows"],
                   joins=shape["joins"], round=int(round_.removeprefix("iter-")))

    @classmethod
    def from_row(cls, row: dict) -> "Item":
        """The item of a result file's row (summary.csv, crosscheck.csv, memory.csv: text columns, as
        benchlib.results.summary_rows reads them)."""
        return cls(framework=row["framework"], api=row["api"], **{
            k: int(row[k]) for k in ("case", "requests", "rows", "joins", "round")})


@dataclass(frozen=True, kw_only=True)
class EngineLoad:
    """One remote engine's part of an item (run.json `engines`): its threads, the measured samples
    it sent, its CPU over the window as % of one core (None when it never reported it), its cores,
    how late its clock started, and whether it was saturated."""
    endpoint: str
    threads: int
    samples: int
    cpu_mean_pct: float | None
    cpu_peak_pct: float | None
    cores: int | None = None  # None: before runs recorded it, the manifest's figure for the endpoint
    late_ms: int | None = None
    saturated: bool = False


@dataclass(frozen=True, kw_only=True)
class Record:
    """An item's run.json: `running` while it is measured, then how it ended (STATUSES) and why,
    what measured it, its window, figures and checks. Fields left None are not written. The writer
    builds a new one for each state (dataclasses.replace) and writes it whole."""
    item: Item
    status: str = "running"
    reason: str | None = None
    flags: list[str] = field(default_factory=list)
    started_at: str | None = None
    ended_at: str | None = None
    pids: dict = field(default_factory=dict)     # app, db, loadgen: the processes sampled
    load: dict | None = None                     # threads, rampup_s, warmup_s, duration_s
    loadgen: str | None = None                   # jmeter, wrk, or engines
    variant: str | None = None
    loaded: dict | None = None                   # what the app's process reported loading
    batch: dict | None = None                    # folder, position, of
    db_sampled: bool | None = None               # False when the database's process was not sampled
    db_note: str | None = None                   # why not
    socket_errors: dict | None = None            # wrk's lost connections, by kind
    loadgen_cores: int | None = None
    window: dict | None = None                   # the measured window (collect/items/item.py trimmed_stats)
    results: dict | None = None                  # the JTL's summary and the samplers' figures
    checks: dict | None = None                   # collect/items/validity.py's VALIDITY_FIELDS
    engines: list[EngineLoad] | None = None      # None: no remote engine sent its load
    log_tail: str | None = None                  # the end of the log that explains a failure

    @property
    def finished(self) -> bool:
        return self.status in STATUSES

    def to_json(self) -> dict:
        found = {"schema_version": SCHEMA_VERSION, **self.item.fields(), "status": self.status,
                 "reason": self.reason, "flags": self.flags, "started_at": self.started_at,
                 "ended_at": self.ended_at, "pids": self.pids}
        for name in OPTIONAL:
            value = getattr(self, name)
            if value is not None:
                found[name] = [_engine_json(e) for e in value] if name == "engines" else value
        return found

    @classmethod
    def from_json(cls, raw: dict, path: Path) -> "Record":
        """A run.json as read (benchlib.results.read_json), of any readable schema: keys that an
        older run wrote and this one no longer does (schema 1's `settings`) are left out, and those it
        wrote under an older name (benchlib.results.OLD_NAMES) are read as today's."""
        raw = {OLD_NAMES.get(k, k): v for k, v in raw.items()}
        for key in (*ITEM_FIELDS, "status"):
            if key not in raw:
                raise ResultFileError(path, f"{key} is missing")
        known = {f.name for f in fields(cls)} - {"item", "engines"}
        return cls(item=Item(**{k: raw[k] for k in ITEM_FIELDS}), engines=_engines(raw.get("engines"), path),
                   **{k: v for k, v in raw.items() if k in known})


def read_record(path: Path) -> Record:
    """A finished item's run.json, for the reader: one that says `running` was cut short."""
    record = Record.from_json(read_json(path), path)
    if not record.finished:
        raise ResultFileError(path, f"status must be one of {', '.join(sorted(STATUSES))}")
    return record


OPTIONAL = [f.name for f in fields(Record) if f.default is None and f.name not in ("reason", "started_at", "ended_at")]


def _engines(raw, path: Path) -> list[EngineLoad] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(e, dict) and e.get("endpoint") for e in raw):
        raise ResultFileError(path, "engines must be a list of objects with an endpoint")
    for e in raw:
        for what in ("threads", "samples", "cpu_mean_pct", "cpu_peak_pct", "cores"):
            value = e.get(what)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ResultFileError(path, f"{what} must be a number or null, not {value!r}")
    return [EngineLoad(endpoint=e["endpoint"], threads=e.get("threads"), samples=e.get("samples"),
                       cpu_mean_pct=e.get("cpu_mean_pct"), cpu_peak_pct=e.get("cpu_peak_pct"), cores=e.get("cores"),
                       late_ms=e.get("late_ms"), saturated=e.get("saturated") is True) for e in raw]


def _engine_json(engine: EngineLoad) -> dict:
    found = asdict(engine)
    return {k: v for k, v in found.items() if v is not None or k in ("cpu_mean_pct", "cpu_peak_pct")}
