"""RunEngine's bookkeeping, with no app, JMeter or database: what it records, sets aside and
restores, and when it restarts an app. The real processes are in test_faults.py and test_smoke.py."""
import io
import json

import pytest

from benchlib.database import Database
from benchlib.files import write_json
from benchlib.results import SUMMARY, summary_rows
from collect.engine import RunEngine
from collect.profiles import PROFILES
from collect.progress import Progress

ORDER = ["toy/rest/case-01/iter-01", "toy/graphql/case-01/iter-01", "toy/rest/case-04/iter-01"]
EXTERNAL = Database("127.0.0.1", 1, "forum", "a", "a", "s", "s", managed=False)


def engine(tmp_path, profile="smoke") -> RunEngine:
    manifest = {"settings": {"profile": PROFILES[profile].settings()}, "order": ORDER,
                "pinning": {"applied": False, "note": "not requested"}, "frameworks": {"toy": {}}}
    frameworks = {"toy": {"name": "toy", "apis": ["rest"], "dir": tmp_path}}
    return RunEngine(tmp_path, manifest, frameworks, "jmeter", EXTERNAL, stream=io.StringIO())


def progress():
    return Progress(1, 0, 1.0, io.StringIO())


def test_an_api_the_framework_does_not_serve_is_excluded_without_starting_anything(tmp_path):
    run = engine(tmp_path)
    graphql = run.items[1]
    outcome = run.run_item(graphql, progress(), None)
    assert outcome.startswith("excluded: toy does not implement graphql")
    record = json.loads((tmp_path / "toy/graphql/case-01/iter-01/run.json").read_text())
    assert record["status"] == "excluded" and record["load"]["threads"] == 10
    [row] = summary_rows(tmp_path / SUMMARY)
    assert (row["api"], row["status"], row["samples"]) == ("graphql", "excluded", "")
    assert run.finished(graphql) and not run.finished(run.items[0]) and run.app is None


def test_a_cut_attempt_is_set_aside_and_numbered_never_overwritten(tmp_path):
    run = engine(tmp_path)
    item = run.items[0]
    for attempt in (1, 2):
        (run.item_dir(item)).mkdir(parents=True)
        write_json(run.item_dir(item) / "run.json", {"status": "running", "attempt": attempt})
        assert not run.finished(item)
        run.set_aside(item)
        assert not run.item_dir(item).exists()
    kept = tmp_path / "interrupted/toy/rest/case-01"
    assert sorted(p.name for p in kept.iterdir()) == ["iter-01-attempt-1", "iter-01-attempt-2"]
    assert json.loads((kept / "iter-01-attempt-2/run.json").read_text())["attempt"] == 2


def test_a_summary_row_lost_to_a_kill_is_restored_once_from_run_json(tmp_path):
    run = engine(tmp_path)
    item = run.items[0]
    run.item_dir(item).mkdir(parents=True)
    write_json(run.item_dir(item) / "run.json", {
        "status": "ok", "flags": ["underloaded"],
        "results": {"samples": 7, "errors": 0, "in_flight_mean": 2.5, "cpu_mean_pct": 40.0}})
    run.reconcile_summary()
    run.reconcile_summary()
    [row] = summary_rows(tmp_path / SUMMARY)
    assert (row["case"], row["samples"], row["in_flight_mean"], row["cpu_mean_pct"], row["flags"]) == \
        ("1", "7", "2.5", "40.0", "underloaded")


def test_state_counts_the_finished_items(tmp_path):
    run = engine(tmp_path)
    run.run_item(run.items[1], progress(), None)
    run.set_state("stopped", "the database is not answering")
    state = json.loads((tmp_path / "state.json").read_text())
    assert (state["status"], state["reason"], state["done"]) == \
        ("stopped", "the database is not answering", 1)


@pytest.mark.parametrize("profile, keeps", [("smoke", True), ("quick", False)])
def test_an_app_serves_a_whole_block_only_when_the_profile_says_so(tmp_path, profile, keeps):
    run = engine(tmp_path, profile)
    rest_1, graphql_1, rest_4 = run.items
    assert run.keeps_app_after(rest_1, rest_4) is keeps
    assert run.keeps_app_after(rest_1, graphql_1) is False
    assert run.keeps_app_after(rest_4, None) is False
    assert run.needs_fresh_app(rest_1)  # nothing runs yet
