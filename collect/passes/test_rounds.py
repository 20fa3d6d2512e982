"""Extra rounds, decided from a run's summary.csv so far, with no app or JMeter: the run loop's
bookkeeping (the manifest's order and `sequential` entry, its items). The rule itself is tested in
benchlib/test_stopping.py; the rounds a real run adds are in its manifest (collect/README.md)."""
import io
import json
import time
from dataclasses import replace

from benchlib.cases import cases
from benchlib.items import Item
from benchlib.results import MANIFEST, SUMMARY, append_summary, item_key, summary_row
from collect.passes import ceiling, extra_passes, rounds
from collect.passes.phase_run import Added
from collect.passes.probe import probe_profile
from collect.passes.run_context import RunContext
from collect.run.run_loop import RunLoop
from collect.items.profiles import PROFILES
from collect.run.test_run_loop import EXTERNAL

ARMS = ("aspnet", "express")


def run_after_three_rounds(tmp_path, created_at: str, budget_s: float | None = 600) -> RunLoop:
    """Cases 1 (tight ratios), 2 (noisy) and 3 (express invalid) of REST, three rounds measured."""
    profile = replace(PROFILES["quick"], rounds=3, budget_s=budget_s)
    order = [item_key({"framework": f, "api": "rest", "case": c, "round": i})
             for i in (1, 2, 3) for c in (1, 2, 3) for f in ARMS]
    manifest = {"settings": {"profile": profile.settings()}, "order": order, "seed": 7,
                "created_at": created_at, "sequential": rounds.protocol(profile),
                "layout": {"requested": "no-pin", "applied": False, "note": "not requested"},
                "frameworks": {f: {} for f in ARMS}}
    frameworks = {f: {"name": f, "apis": ["rest"], "dir": tmp_path} for f in ARMS}
    run = RunLoop(RunContext(tmp_path, manifest, frameworks, "jmeter", EXTERNAL), stream=io.StringIO())
    express = {1: (500, 505, 500), 2: (400, 600, 500), 3: (500, 500, 500)}
    for item in run.items:
        rps = 1000 if item.framework == "aspnet" else express[item.case][item.round - 1]
        valid = "invalid" if item.framework == "express" and item.case == 3 else "valid"
        append_summary(tmp_path / SUMMARY, summary_row(item.fields(), "ok", [], {"throughput_rps": rps}, {},
                                                       {"validity": valid}))
    return run


def added(run: RunLoop, later_s: float = 0) -> list[Item]:
    """The next round's items, with `later_s` seconds of phases still to come after the rounds,
    once the run loop has applied the decision."""
    decided = rounds.Rounds(run, lambda: later_s).next_round()
    run.apply(decided)
    return [item for effect in decided if isinstance(effect, Added) for item in effect.items]


def test_only_the_cell_whose_interval_is_wide_gets_another_round(tmp_path):
    run = run_after_three_rounds(tmp_path, "2099-01-01T00:00:00Z")  # the whole budget ahead
    more = added(run)
    # Case 1's three ratios differ by 1 %: even at t(0.9875, 2) = 6.2 (benchlib/stopping.py) its interval is ±2 %.
    # Case 3 failed its checks in every round: more of the same would not help.
    assert sorted((i.framework, i.case, i.round) for i in more) == [("aspnet", 2, 4), ("express", 2, 4)]
    assert [i.key for i in more] == run.context.manifest["order"][-2:] and run.items[-2:] == more
    assert more[0].requests == cases()[2]["requests"]
    assert run.context.manifest["sequential"]["rounds"] == [
        {"round": 4, "cells": [["rest", 2]], "estimated_s": round(2 * run.estimate())}]
    assert {s["case"]: s["state"] for s in run.context.manifest["sequential"]["states"]} == \
        {1: "settled", 2: "needs another round", 3: "unmeasurable here"}


def test_no_round_is_added_once_the_budget_is_spent_and_the_manifest_says_why(tmp_path):
    run = run_after_three_rounds(tmp_path, "2000-01-01T00:00:00Z")
    assert added(run) == []
    assert run.context.manifest["sequential"]["stopped"].startswith("the budget")
    assert len(run.context.manifest["order"]) == 18
    assert json.loads((tmp_path / MANIFEST).read_text())["sequential"] == run.context.manifest["sequential"]


def test_the_phases_after_the_rounds_keep_their_time(tmp_path):
    """The wide cell's round (both arms) fits a budget less what follows the rounds, or does not."""
    run = run_after_three_rounds(tmp_path, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), budget_s=120)
    after_one_round = 120 - 2 * run.estimate()
    assert added(run, later_s=after_one_round + 5) == []
    assert run.context.manifest["sequential"]["stopped"].startswith("the budget: ")
    assert len(added(run, later_s=after_one_round - 5)) == 2


def test_without_a_budget_the_profile_rounds_are_all(tmp_path):
    run = run_after_three_rounds(tmp_path, "2099-01-01T00:00:00Z", budget_s=None)
    assert added(run) == [] and "rounds" not in run.context.manifest["sequential"]


def test_the_budget_leaves_room_for_the_passes_at_the_rounds_they_measure(tmp_path):
    """The quick profile measures memory on 2 fresh processes per arm and case, and cross-checks 2 of
    its 3 rounds: the extra rounds' budget reserves exactly that."""
    run = run_after_three_rounds(tmp_path, "2099-01-01T00:00:00Z")
    profile = run.context.profile
    assert (profile.memory_rounds, profile.crosscheck_round_count()) == (2, 2)
    assert extra_passes.memory_s(run) == 3 * len(ARMS) * 2 * (profile.memory_s + extra_passes.OVERHEAD_S["memory"])
    # Of cases 1-3 only case 1 is one the cross-check measures again, after wrk's ceiling at its
    # 100 connections (the run's generator is JMeter).
    wrk_ceiling = ceiling.ATTEMPTS * (probe_profile(profile).longest() + 1)
    assert ceiling.estimate_s(run, "wrk", [100]) == wrk_ceiling
    assert extra_passes.crosscheck_s(run) == \
        wrk_ceiling + len(ARMS) * 2 * (profile.longest() + extra_passes.OVERHEAD_S["crosscheck"])
    assert replace(profile, rounds=1).crosscheck_round_count() == 1
