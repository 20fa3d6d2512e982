"""What bounds a cell's rate, the first paragraph's load sentence, and when two load generators' ratios
agree: each rule both ways."""
from pathlib import Path

import pandas as pd

from analysis import crosscheck, machine
from analysis.load import Run
from analysis.records import Manifest

PARTS = {"app_ms": 0.30, "db_ms": 0.12, "loadgen_ms": 0.06, "other_ms": 0.01}


def test_full_cores_are_the_bound_and_the_largest_share_of_a_request_is_named():
    text = machine.bound_by(PARTS, 0.49, busy=0.97, app_core=1.2, cores=2)
    assert text == "the 2 cores, most of it the app: 0.3 of 0.49 ms per request"
    database = machine.bound_by({**PARTS, "db_ms": 0.5}, 0.87, busy=0.95, app_core=0.6, cores=2)
    assert "most of it the database: 0.5 of 0.87" in database


def test_an_app_at_one_core_on_a_machine_with_room_is_held_by_one_thread_else_not_by_the_cpu():
    assert machine.bound_by(PARTS, 0.49, busy=0.62, app_core=0.97, cores=2) \
        .startswith("one busy thread of the app (97 %")
    assert machine.bound_by(PARTS, 0.49, busy=0.40, app_core=0.5, cores=2).startswith("no CPU (40 % of the machine")


def run_with(manifest: dict, where: Path = Path(".")) -> Run:
    return Run(where, Manifest.from_dict({"schema_version": 4, "run_id": "20260101-000000-quick",
                                          "machine": {"cores": 2}, **manifest}), pd.DataFrame({"framework": []}), 0)


def test_the_rate_the_load_generator_took_on_full_cores_moves_the_ratio_by_the_arms_difference():
    # Run Q's REST cases 1 and 2 (2026-11-28): ASP.NET Core filled the cores, Express.js did not in case 2.
    split = pd.DataFrame({"framework": ["aspnet", "aspnet", "express", "express"], "api": ["rest"] * 4,
                          "case": [1, 2, 1, 2], "loadgen_taken": [0.223, 0.215, 0.238, 0.0]})
    run = run_with({"settings": {"frameworks": ["aspnet", "express"]}})
    text = machine.generator_effect(split, run)
    assert "aspnet 22 % in 2 of 2 cells; express 24 % in 1 of 2 cells" in text
    # case 1: (1 - 0.238) / (1 - 0.223) = 0.98; case 2: 1 / (1 - 0.215) = 1.27; median 1.13
    assert "change by a factor of 1.13 in the median cell (0.98-1.27; more than 5 % in 1 of 2 cells)" in text
    assert machine.generator_effect(split.assign(loadgen_taken=0.0), run) is None


def test_the_first_paragraph_says_which_load_generator_measured_where_and_why():
    chosen = run_with({"loadgen": {"requested": "auto", "tool": "wrk", "why": "it spent 60 µs of CPU per request"},
                       "layout": {"requested": "auto", "applied": False, "note": "every core shared: …"}})
    assert machine.load_sentence(chosen) == ("The load came from wrk sharing every core with the apps (load "
                                             "generator: it spent 60 µs of CPU per request; "
                                             "layout: every core shared: …).")
    pinned = run_with({"loadgen": {"requested": "jmeter", "tool": "jmeter", "why": "--loadgen jmeter"},
                       "layout": {"requested": "pin", "applied": True, "note": "2 cores: …"}})
    assert machine.load_sentence(pinned).startswith("The load came from JMeter on a CPU set of its own")
    assert machine.load_sentence(run_with({})) == "The load came from JMeter."  # before schema 4


def test_two_load_generators_agree_within_fifteen_percent_either_way():
    assert crosscheck.agree(1.50, 1.31) and crosscheck.agree(1.31, 1.50)
    assert not crosscheck.agree(1.50, 1.28) and not crosscheck.agree(1.28, 1.50)
    assert crosscheck.agree(None, 1.2) is None and crosscheck.agree(1.2, float("nan")) is None


def test_the_ceiling_is_the_most_any_attempt_drove_in_the_table_and_in_the_items_figure(tmp_path):
    from analysis.sections import trust
    from benchlib.results import CEILING_COLUMNS
    measured = [("wrk", "before", 1, 100, 14909.0), ("wrk", "before", 2, 100, 18271.0),
                ("wrk", "before", 3, 100, 18243.0), ("wrk", "after", 1, 100, 16002.0),
                ("jmeter", "before", 1, 100, 2204.0)]
    pd.DataFrame([{**dict.fromkeys(CEILING_COLUMNS, ""), "loadgen": lg, "when": when, "attempt": attempt,
                   "threads": threads, "ceiling_rps": rps} for lg, when, attempt, threads, rps in measured],
                 columns=CEILING_COLUMNS).to_csv(tmp_path / "ceiling.csv", index=False)
    run = run_with({"loadgen": {"tool": "wrk"}}, tmp_path)
    table = machine.ceiling_table(run)
    assert table.set_index("Load generator").loc["wrk", ["Before the rounds (req/s)",
                                                         "After the rounds (req/s)"]].tolist() == [18271.0, 16002.0]
    found, _ = trust.ceilings(run)
    assert found.to_dict("records") == [{"threads": 100, "throughput_rps": 18271.0}]
