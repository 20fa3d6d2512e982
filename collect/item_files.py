"""Where measured items are written (collect/run_loop.py measures them): each item's folder with
its run.json, and a row of the summary. A folder that exists belongs to a finished item or to an
attempt that was cut short; the latter is moved under `interrupted/` before it is redone, so
nothing is ever overwritten."""
import json
from dataclasses import dataclass
from pathlib import Path

from benchlib.files import write_json
from benchlib.jtl import JTL_FIELDS
from benchlib.results import RUN_JSON, SAMPLER_FIELDS, append_summary, item_key, summary_row, summary_rows
from collect.item import new_record
from collect.profiles import Profile
from collect.run_manifest import now_iso

FINISHED = ("ok", "failed", "excluded")


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

    def folder(self, item: dict) -> Path:
        return self.root / item_key(item)

    def read(self, item: dict) -> dict:
        return json.loads((self.folder(item) / RUN_JSON).read_text())

    def write(self, item: dict, record: dict) -> None:
        write_json(self.folder(item) / RUN_JSON, record)

    def finished(self, item: dict) -> bool:
        try:
            return self.read(item)["status"] in FINISHED
        except (OSError, ValueError, KeyError):
            return False

    def begin(self, item: dict) -> dict:
        """The item's new folder, and its run.json as it starts (status `running`), not yet written."""
        self.folder(item).mkdir(parents=True)
        return new_record(item, self.profile)

    def set_aside(self, item: dict) -> None:
        """An attempt cut short is kept, out of the way, under interrupted/."""
        folder = self.folder(item)
        if not folder.exists():
            return
        n = 1
        while (target := self.root / "interrupted" / f"{item_key(item)}-attempt-{n}").exists():
            n += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        folder.rename(target)

    def reconcile(self, items: list[dict]) -> None:
        """An item whose run.json was written before a kill took its summary row gets the row back."""
        have = {(r["framework"], r["api"], int(r["case"]), int(r["iteration"])) for r in summary_rows(self.summary)}
        for item in items:
            if (item["framework"], item["api"], item["case"], item["iteration"]) in have \
                    or not self.finished(item):
                continue
            record = self.read(item)
            results = record.get("results", {})
            append_summary(self.summary, summary_row(
                item, record["status"], record["flags"], {k: results.get(k) for k in JTL_FIELDS},
                {k: results.get(k) for k in SAMPLER_FIELDS}, record.get("checks")))

    def measured(self, item: dict, record: dict, summary: dict, stats: dict) -> None:
        """A measurement that ran to its end: `record` holds its flags and checks."""
        self.write(item, record)
        append_summary(self.summary, summary_row(item, "ok", record["flags"], summary, stats, record["checks"]))

    def exclude(self, item: dict) -> str:
        return self.outcome(item, self.begin(item), "excluded",
                            f"{item['framework']} does not implement {item['api']} (framework.json apis)", None)

    def failure(self, item: dict, record: dict, reason: str, tail: str | None, summary: dict | None = None) -> str:
        self.outcome(item, record, "failed", reason, tail, summary)
        return f"FAILED: {reason}"

    def outcome(self, item: dict, record: dict, status: str, reason: str, tail: str | None,
                summary: dict | None = None) -> str:
        summary = summary or {}
        record.update(status=status, reason=reason, ended_at=now_iso(), results=summary)
        if tail is not None:
            record["log_tail"] = tail
        self.write(item, record)
        append_summary(self.summary, summary_row(item, status, [], summary, {}))
        return f"{status}: {reason}"
