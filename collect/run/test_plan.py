"""The parts of a run that need no app: order, profiles, pinning, trimming, flags, summary rows."""
import csv
from dataclasses import replace

import pytest

from benchlib import results
from benchlib.cases import cases
from benchlib.jtl import window_bounds
from benchlib.items import Item
from collect.items import item_stats
from collect.load import pinning
from collect.passes.order import arms_in_slot, extra_round, order
from collect.items.profiles import DEFAULT, PROFILES, RESTARTS


def test_order_is_a_shuffled_permutation_per_round_and_repeats_with_its_seed():
    first = order(["aspnet", "express"], ["rest", "graphql"], range(1, 19), 2, "case", seed=7)
    assert first == order(["aspnet", "express"], ["rest", "graphql"], range(1, 19), 2, "case", seed=7)
    assert first != order(["aspnet", "express"], ["rest", "graphql"], range(1, 19), 2, "case", seed=8)
    assert len(first) == len(set(first)) == 144
    one = [k for k in first if k.endswith("iter-01")]
    assert first[:72] == one  # round 1 finishes before round 2 starts
    natural = [f"{f}/{a}/case-{c:02d}/iter-01" for f in ("aspnet", "express")
               for a in ("rest", "graphql") for c in range(1, 19)]
    assert one != natural and sorted(one) == sorted(natural)


def test_interleaved_rounds_run_the_frameworks_of_each_slot_back_to_back_in_a_seeded_order():
    frameworks, apis, numbers = ["aspnet", "express"], ["rest", "graphql"], range(1, 19)
    keys = order(frameworks, apis, numbers, 3, "run", seed=11)
    assert keys == order(frameworks, apis, numbers, 3, "run", seed=11)
    assert keys != order(frameworks, apis, numbers, 3, "run", seed=12)
    assert len(keys) == len(set(keys)) == 216
    items = [Item.parse(k, cases()) for k in keys]
    assert [i.round for i in items] == sorted(i.round for i in items)  # round by round
    pairs = [items[i:i + 2] for i in range(0, 216, 2)]
    assert all(a.api == b.api and a.case == b.case and a.round == b.round
               and {a.framework, b.framework} == set(frameworks) for a, b in pairs)
    first = [a.framework for a, _ in pairs]
    assert 20 < first.count("aspnet") < 88  # which one goes first is drawn per cell, not fixed
    slots = [(a.api, a.case) for a, _ in pairs[:36]]
    assert slots != [(a, c) for a in apis for c in numbers] and sorted(slots) == sorted(
        (a, c) for a in apis for c in numbers)


def test_each_cell_s_arm_order_is_counterbalanced_over_its_rounds_extra_rounds_included():
    frameworks, apis, numbers = ["aspnet", "express"], ["rest", "graphql"], range(1, 19)
    keys = order(frameworks, apis, numbers, 4, "run", seed=5) \
        + extra_round(frameworks, [("rest", 1), ("graphql", 18)], 5, seed=5)
    firsts: dict = {}
    for a, b in zip(keys[::2], keys[1::2]):
        item = Item.parse(a, cases())
        firsts.setdefault((item.api, item.case), []).append(item.framework)
    assert all(rounds[:4].count("aspnet") == 2 for rounds in firsts.values())  # 2 of 4 rounds each
    assert all(rounds[0] != rounds[1] and rounds[0] == rounds[2] for rounds in firsts.values())
    assert firsts["rest", 1][4] == firsts["rest", 1][0]  # the fifth round goes on with the rotation
    starts = [rounds[0] for rounds in firsts.values()]
    assert 6 < starts.count("aspnet") < 30  # which arm opens a cell is drawn per cell


def test_three_arms_each_go_first_once_in_three_rounds_of_a_cell():
    arms = ["aspnet", "express", "fastify"]
    assert sorted(arms_in_slot(arms, "rest", 7, r, seed=3)[0] for r in (1, 2, 3)) == sorted(arms)
    assert all(sorted(arms_in_slot(arms, "rest", 7, r, seed=3)) == sorted(arms) for r in (1, 2, 3))


def test_keys_name_the_results_folders_and_parse_back():
    item = Item.parse("express/graphql/case-08/iter-03", cases())
    assert item == Item(framework="express", api="graphql", case=8, requests=250, rows=50, joins=0, round=3)
    assert item.key == "express/graphql/case-08/iter-03"
    assert Item.from_row({k: str(v) for k, v in item.fields().items()}) == item  # as a result file's row holds it


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_profile_is_a_load_the_plans_accept(name):
    """What plan_command demands of any profile: whole seconds, the ramp-up inside the warm-up,
    a measured window, and threads that never exceed the case's own requests."""
    profile = PROFILES[name]
    for seconds in (profile.rampup_s, profile.warmup_s, profile.duration_s):
        assert float(seconds).is_integer() and seconds >= 0
    assert profile.duration_s >= 1 and profile.rampup_s <= profile.warmup_s
    assert profile.restart in RESTARTS and profile.rounds >= 1
    for case in cases().values():
        assert 1 <= profile.threads(case["requests"]) <= case["requests"]


def test_the_default_profile_gives_paired_rounds_and_study_keeps_the_study_s_protocol():
    quick, study = PROFILES[DEFAULT], PROFILES["study"]
    assert quick.paired and quick.rounds >= 3 and quick.protocol()["paired"] is True
    assert not study.paired and study.rounds == 10 and study.restart == "case"
    assert study.protocol()["name"] == "per-case-restart"


def test_a_thread_cap_caps_and_no_cap_is_the_case_s_own_load():
    capped = replace(PROFILES["smoke"], rounds=3)
    assert capped.rounds == 3 and PROFILES["smoke"].rounds == 1
    assert capped.threads(capped.thread_cap + 1) == capped.thread_cap
    assert capped.threads(capped.thread_cap - 1) == capped.thread_cap - 1
    uncapped = [p for p in PROFILES.values() if p.thread_cap is None]
    assert uncapped and all(p.threads(500) == 500 for p in uncapped)


def test_a_recorded_profile_reads_back_as_itself():
    for profile in PROFILES.values():
        assert type(profile).from_recorded(profile.settings()) == profile


@pytest.mark.parametrize("cores, need, sets", [
    ([0, 1], None, {"app": [0], "db": [0], "loadgen": [1]}),
    ([0, 1, 2], None, {"app": [0, 1], "db": [0, 1], "loadgen": [2]}),
    (list(range(8)), 1.7, {"app": [0, 1, 2, 3, 4], "db": [0, 1, 2, 3, 4], "loadgen": [5, 6, 7]}),
])
def test_pin_gives_the_load_generator_enough_cores_of_its_own_and_the_server_the_rest(cores, need, sets):
    plan = pinning.plan(True, cores, need)
    assert plan["applied"] and plan["cpus"] == sets and plan["requested"] == "pin"


def test_no_pin_shares_every_core_and_one_core_cannot_be_pinned():
    assert pinning.plan(False, [0, 1])["applied"] is False
    assert pinning.plan(True, [0])["applied"] is False
    assert pinning.plan(None, [0, 1])["requested"] == "auto"


def test_the_layout_is_chosen_by_what_the_load_generator_costs_beside_the_server():
    # wrk's 0.1 ms beside a server's 0.4 ms: sharing 2 cores leaves the server 1.6, a core of
    # wrk's own only 1; on 8 cores a core of its own costs the server far less than it saves.
    two = pinning.choose([0, 1], 0.1, 0.4)
    assert not two["applied"] and two["need_cores"] == 0.4 and "every core shared" in two["note"]
    eight = pinning.choose(list(range(8)), 0.1, 0.4)
    assert eight["applied"] and eight["cpus"]["loadgen"] == [6, 7] and eight["own_cores"] == 2
    # JMeter's 0.42 ms beside the same server takes more than half of any machine: it shares.
    assert not pinning.choose(list(range(8)), 0.42, 0.4)["applied"]


def test_children_started_inside_launching_on_inherit_the_cpu_set():
    import os
    import subprocess
    before = os.sched_getaffinity(0)
    target = [min(before)]
    with pinning.launching_on(target):
        child = subprocess.Popen(["sleep", "5"])
    try:
        assert os.sched_getaffinity(child.pid) == set(target)
        assert os.sched_getaffinity(0) == before
    finally:
        child.kill()
        child.wait()


def test_trim_keeps_the_window_and_counts_from_its_start(tmp_path):
    raw = tmp_path / "raw.csv"
    raw.write_text("t_s,role,pid,cpu_pct,rss_kb\n0.5,app,1,10,100\n1.0,app,1,20,100\n"
                   "2.0,app,1,30,100\n3.5,app,1,40,100\n")
    item_stats.trim(raw, tmp_path / "proc.csv", 1.0, 3.0)
    assert (tmp_path / "proc.csv").read_text() == \
        "t_s,role,pid,cpu_pct,rss_kb\n0.000,app,1,20,100\n1.000,app,1,30,100\n"


def test_an_item_of_a_batch_keeps_its_own_app_as_app_and_drops_the_other(tmp_path):
    raw = tmp_path / "batch-proc.csv"
    raw.write_text("t_s,role,pid,cpu_pct,rss_kb\n1.5,app:aspnet,7,50,900\n1.5,app:express,8,0,500\n"
                   "1.5,db,9,5,300\n1.5,jmeter,10,80,700\n")
    item_stats.trim(raw, tmp_path / "proc.csv", 1.0, 3.0, {"app:express": "app", "db": "db", "jmeter": "jmeter"})
    assert (tmp_path / "proc.csv").read_text() == ("t_s,role,pid,cpu_pct,rss_kb\n0.500,app,8,0,500\n"
                                                   "0.500,db,9,5,300\n0.500,jmeter,10,80,700\n")
    assert raw.exists()  # the batch's own file stays


def test_without_the_clock_s_window_the_labels_give_it_as_jmeter_s_dashboard_reads_them(tmp_path):
    jtl = tmp_path / "results.jtl"
    jtl.write_text("timeStamp,elapsed,label,responseCode,success\n"
                   "1000000,50,warmup GET /rest/comment/{id},200,true\n"
                   "1002000,30,GET /rest/comment/{id},200,true\n"
                   "1004000,100,GET /rest/comment/{id},200,true\n")
    assert window_bounds(jtl) == pytest.approx((1002.0, 1004.1))
    assert window_bounds(jtl, (1001000, 1005000)) == pytest.approx((1001.0, 1005.0))


def test_flags():
    assert item_stats.flags({"errors": 0}, {"loadgen_cpu_mean_pct": 170.0}, 2, 100) == []
    assert item_stats.flags({"errors": 2}, {"loadgen_cpu_mean_pct": 180.0}, 2, 100) == \
        ["errors", "loadgen_saturated"]
    assert item_stats.flags({"errors": 0}, {"loadgen_cpu_mean_pct": 95.0}, 1, 100) == ["loadgen_saturated"]


def test_a_case_whose_threads_were_mostly_outside_requests_is_underloaded():
    assert item_stats.flags({"errors": 0, "in_flight_mean": 50.0}, {}, 2, 100) == []
    assert item_stats.flags({"errors": 0, "in_flight_mean": 49.9}, {}, 2, 100) == ["underloaded"]
    assert item_stats.flags({"errors": 0, "in_flight_mean": 17.0}, {}, 2, 500) == ["underloaded"]


def test_sampler_stats_and_summary_row(tmp_path):
    proc = tmp_path / "proc.csv"
    proc.write_text("t_s,role,pid,cpu_pct,rss_kb\n0.1,app,1,100.0,2048\n0.2,app,1,50.0,4096\n"
                    "0.1,db,2,20.0,9000\n0.1,jmeter,3,80.0,1\n0.2,jmeter,3,120.0,1\n")
    stats = item_stats.sampler_stats(proc)
    assert stats["cpu_peak_pct"] == 100.0 and stats["cpu_mean_pct"] == 75.0
    assert stats["rss_peak_mb"] == 4.0 and stats["db_cpu_mean_pct"] == 20.0
    assert stats["loadgen_cpu_peak_pct"] == 120.0 and stats["loadgen_cpu_mean_pct"] == 100.0
    item = {"framework": "express", "api": "rest", "case": 1, "requests": 100, "rows": 1,
            "joins": 0, "round": 1}
    summary = tmp_path / "summary.csv"
    results.append_summary(summary, results.summary_row(item, "ok", ["errors"], {"samples": 5}, stats))
    results.append_summary(summary, results.summary_row(item, "failed", [], {}, {}))
    with open(summary) as f:
        lines = f.read().splitlines()
    assert lines[0].split(",") == results.SUMMARY_COLUMNS
    rows = list(csv.DictReader(lines))
    assert rows[0]["flags"] == "errors" and rows[0]["samples"] == "5"
    assert rows[1]["status"] == "failed" and rows[1]["samples"] == ""
