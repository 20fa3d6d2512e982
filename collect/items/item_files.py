"""Where measured items are written (collect/run/run_loop.py measures them): each item's folder with
its run.json, and a row of the summary. A folder that exists belongs to a finished item or to an
attempt that was cut short; the latter is moved under `interrupted/` before it is redone, so
nothing is ever overwritten."""
import json
from dataclasses import dataclass, replace
from pathlib import Path

from benchlib.files import write_json
from benchlib.items import Item, Record
from benchlib.jtl import JTL_FIELDS
from benchlib.results import (RUN_JSON, ResultFileError, SAMPLER_FIELDS,
                              append_summary, now_iso, summary_row, summary_rows)
from collect.items.item import new_record
from collect.items.profiles import Profile


@dataclass(frozen=True)
class ItemFiles:
    """A run's own items (its folder and summary.csv, measured by the run's load generator, from
    remote engines if it has them), or the cross-check's (crosscheck/ and crosscheck.csv, by the
    other one, on this machine)."""
    root: Path
    summary: Path
    loadgen: str
    profile: Profile
    remote: bool = False

    def folder(self, item: Item) -> Path:
        return self.root / item.key

    def read(self, item: Item) -> Record:
        path = self.folder(item) / RUN_JSON
        return Record.from_json(json.loads(path.read_text()), path)

    def write(self, record: Record) -> None:
        write_json(self.folder(record.item) / RUN_JSON, record.to_json())

    def finished(self, item: Item) -> bool:
        try:
            return self.read(item).finished
        except (OSError, ValueError, ResultFileError):
            return False

    def begin(self, item: Item) -> Record:
        """The item's new folder, and its run.json as it starts (status `running`), not yet written."""
        self.folder(item).mkdir(parents=True)
        return new_record(item, self.profile)

    def set_aside(self, item: Item) -> None:
        """An attempt cut short is kept, out of the way, under interrupted/."""
        folder = self.folder(item)
        if not folder.exists():
            return
        n = 1
        while (target := self.root / "interrupted" / f"{item.key}-attempt-{n}").exists():
            n += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)

    def reconcile(self, items: list[Item]) -> None:
        """An item whose run.json was written before a kill took its summary row gets the row back."""
        have = {Item.from_row(r) for r in summary_rows(self.summary)}
        for item in items:
            if item in have or not self.finished(item):
                continue
            record = self.read(item)
            results = record.results or {}
            append_summary(self.summary, summary_row(
                item.fields(), record.status, record.flags, {k: results.get(k) for k in JTL_FIELDS},
                {k: results.get(k) for k in SAMPLER_FIELDS}, record.checks))

    def measured(self, record: Record, summary: dict, stats: dict) -> None:
        """A measurement that ran to its end: `record` holds its flags and checks."""
        self.write(record)
        append_summary(self.summary, summary_row(record.item.fields(), "ok", record.flags, summary, stats,
                                                 record.checks))

    def exclude(self, item: Item) -> str:
        return self.outcome(self.begin(item), "excluded",
                            f"{item.framework} does not implement {item.api} (framework.json apis)", None)

    def failure(self, record: Record, reason: str, tail: str | None, summary: dict | None = None) -> str:
        self.outcome(record, "failed", reason, tail, summary)
        return f"FAILED: {reason}"

    def outcome(self, record: Record, status: str, reason: str, tail: str | None, summary: dict | None = None) -> str:
        summary = summary or {}
        self.write(replace(record, status=status, reason=reason, ended_at=now_iso(), results=summary, log_tail=tail))
        append_summary(self.summary, summary_row(record.item.fields(), status, [], summary, {}))
        return f"{status}: {reason}"
