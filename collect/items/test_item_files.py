"""A run's item files: set aside, never overwritten, and a summary row restored from run.json."""
import json
from dataclasses import replace

from benchlib.cases import cases
from benchlib.items import Item
from benchlib.results import SUMMARY, summary_rows
from collect.items.item_files import ItemFiles
from collect.items.profiles import PROFILES

ITEM = Item.parse("toy/rest/case-01/iter-01", cases())


def files(tmp_path) -> ItemFiles:
    return ItemFiles(tmp_path, tmp_path / SUMMARY, "wrk", PROFILES["smoke"])


def test_a_cut_attempt_is_set_aside_and_numbered_never_overwritten(tmp_path):
    items = files(tmp_path)
    for attempt in (1, 2):
        items.write(replace(items.begin(ITEM), pids={"app": attempt}))
        assert not items.finished(ITEM)
        items.set_aside(ITEM)
        assert not items.folder(ITEM).exists()
    kept = tmp_path / "interrupted/toy/rest/case-01"
    assert sorted(p.name for p in kept.iterdir()) == ["iter-01-attempt-1", "iter-01-attempt-2"]
    assert json.loads((kept / "iter-01-attempt-2/run.json").read_text())["pids"] == {"app": 2}


def test_a_summary_row_lost_to_a_kill_is_restored_once_from_run_json(tmp_path):
    items = files(tmp_path)
    items.write(replace(items.begin(ITEM), status="ok", flags=["underloaded"],
                        results={"samples": 7, "errors": 0, "in_flight_mean": 2.5, "cpu_mean_pct": 40.0}))
    items.reconcile([ITEM])
    items.reconcile([ITEM])
    [row] = summary_rows(tmp_path / SUMMARY)
    assert (row["case"], row["samples"], row["in_flight_mean"], row["cpu_mean_pct"], row["flags"]) == \
        ("1", "7", "2.5", "40.0", "underloaded")


def test_a_failure_keeps_its_reason_and_the_tail_of_the_log(tmp_path):
    items = files(tmp_path)
    assert items.failure(items.begin(ITEM), "the app exited", "last line") == "FAILED: the app exited"
    record = items.read(ITEM)
    assert (record.status, record.reason, record.log_tail) == ("failed", "the app exited", "last line")
    assert items.finished(ITEM) and summary_rows(tmp_path / SUMMARY)[0]["status"] == "failed"


def test_a_record_is_written_whole_and_reads_back_as_written(tmp_path):
    items = files(tmp_path)
    started = items.begin(ITEM)
    assert "loadgen" not in started.to_json() and started.to_json()["status"] == "running"  # None is not written
    items.write(replace(started, loadgen="wrk", batch={"folder": "batches/001", "position": 1, "of": 2}))
    assert items.read(ITEM) == replace(started, loadgen="wrk", batch={"folder": "batches/001", "position": 1, "of": 2})
