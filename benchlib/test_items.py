"""An item and its run.json: what the writer builds is what the reader gets back, and a run.json
the report cannot read names the file and the field."""
from pathlib import Path

import pytest

from benchlib.cases import cases
from benchlib.items import EngineLoad, Item, Record, read_record
from benchlib.files import write_json
from benchlib.results import ResultFileError

ITEM = Item.parse("express/graphql/case-08/iter-03", cases())


def test_a_record_round_trips_through_its_json_leaving_out_what_is_unset():
    engine = EngineLoad(endpoint="10.0.0.2:1099", threads=50, samples=900, cpu_mean_pct=None, cpu_peak_pct=None,
                        cores=2, late_ms=0)
    record = Record(item=ITEM, status="failed", reason="engine lost", engines=[engine])
    written = record.to_json()
    assert written["case"] == 8 and written["requests"] == 250 and written["reason"] == "engine lost"
    assert "window" not in written and written["engines"][0]["cpu_mean_pct"] is None
    assert Record.from_json(written, Path("run.json")) == record


def test_the_reader_takes_finished_items_only(tmp_path):
    write_json(tmp_path / "run.json", Record(item=ITEM).to_json())
    with pytest.raises(ResultFileError, match="status must be one of excluded, failed, ok"):
        read_record(tmp_path / "run.json")
    write_json(tmp_path / "run.json", Record(item=ITEM, status="excluded", reason="no graphql").to_json())
    assert read_record(tmp_path / "run.json").reason == "no graphql"


def test_an_older_run_json_reads_without_the_keys_it_never_had():
    raw = {**ITEM.fields(), "schema_version": 1, "status": "ok", "reason": None, "flags": [], "started_at": "t",
           "ended_at": "t", "pids": {}, "settings": {"threads": 250}}
    assert Record.from_json(raw, Path("run.json")) == Record(item=ITEM, status="ok", started_at="t", ended_at="t")


@pytest.mark.parametrize("engines, words", [
    ("one", "engines must be a list of objects with an endpoint"),
    ([{"threads": 5}], "engines must be a list of objects with an endpoint"),
    ([{"endpoint": "10.0.0.2:1099", "cpu_mean_pct": "high"}], "cpu_mean_pct must be a number or null, not 'high'")])
def test_a_run_json_the_report_cannot_read_names_the_file_and_the_field(tmp_path, engines, words):
    path = tmp_path / "run.json"
    with pytest.raises(ResultFileError, match=words) as found:
        Record.from_json({**ITEM.fields(), "status": "ok", "engines": engines}, path)
    assert str(path) in str(found.value)
    with pytest.raises(ResultFileError, match="requests is missing"):
        Record.from_json({"framework": "express", "api": "rest", "case": 1, "iteration": 1, "status": "ok"}, path)


def test_a_run_json_before_schema_5_reads_its_iteration_as_the_round():
    raw = {**{k: v for k, v in ITEM.fields().items() if k != "round"}, "iteration": 3, "schema_version": 4,
           "status": "ok"}
    assert Record.from_json(raw, Path("run.json")).item == ITEM
    assert "iteration" not in ITEM.fields() and Record(item=ITEM).to_json()["round"] == 3
