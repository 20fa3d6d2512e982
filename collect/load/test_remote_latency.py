"""The latency profile through two remote engines, for real (the `lab` fixture, collect/conftest.py):
each measurement's Poisson schedule, split between the engines, is sent as drawn."""
import csv
import json
from collections import Counter

from collect.load import arrivals

from collect.passes import latency
from collect.conftest import needs_root, run_testbed, start_engine, the_run

pytestmark = needs_root


def test_the_latency_profile_through_two_engines_sends_each_schedule_as_drawn(tmp_path, lab):
    """Each engine sends every other arrival from half the pool, timed from the measurement's
    shared start: together, the schedule drawn for the measurement, arrival for arrival. (An engine
    that stalls, as one did in a CI run, sending none of its share, leaves its measurement unjudged:
    `engine_share`, collect/passes/latency_checks.py.)"""
    start_engine(lab, 1099)
    start_engine(lab, 1109)
    result = run_testbed("run", "--profile", "latency-smoke", "--frameworks", "express", "--apis", "rest",
                         "--cases", "1", "--engines", f"{lab.endpoint(1099)},{lab.endpoint(1109)}",
                         "--results-dir", str(tmp_path), env=lab.env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    run = the_run(tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    with open(run / "latency.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 5  # five rates, one round, one framework
    both_sent = 0
    for row in rows:
        assert row["validity"] in ("valid", "bound") and int(row["errors"]) == 0, row
        where = (run / "latency" / "express" / "rest" / "case-01" / f"step-{row['step']}"
                 / f"round-{int(row['round']):02d}")
        measured = json.loads((where / "measurement.json").read_text())
        assert measured["engines"] == [lab.endpoint(1099), lab.endpoint(1109)]
        with open(where / "results.jtl", newline="") as f:
            samples = list(csv.DictReader(f))
        by_engine = Counter(s["threadName"].split("-")[0] for s in samples)
        assert [sent for sent, _ in measured["engine_sent"]] == [by_engine[e] for e in measured["engines"]]
        assert sum(scheduled for _, scheduled in measured["engine_sent"]) == int(row["scheduled"])
        if "engine_share" not in row["validity_reasons"]:
            assert set(by_engine) == set(measured["engines"]), row
            both_sent += 1
        t0 = measured["window_ms"][0] - latency.WARMUP_S * 1000
        drawn = [t for t in arrivals.offsets(float(row["target_rps"]), (latency.WARMUP_S + latency.WINDOW_S) * 1000,
                                             measured["schedule_seed"])
                 if latency.WARMUP_S * 1000 <= t < (latency.WARMUP_S + latency.WINDOW_S) * 1000]
        sent = sorted(int(s["intended_ms"]) - t0 for s in samples)
        # Every arrival sent was drawn (none twice, none invented); a dropped one was not sent in time.
        assert int(row["scheduled"]) == len(drawn) and not Counter(sent) - Counter(drawn), row
        assert len(sent) == len(drawn) - int(row["dropped"])
    assert both_sent, "no measurement was sent by both engines"
    assert manifest["latency"]["cells"][0]["rates"] and "Latency at a given rate" in (
        run / "report" / "report.md").read_text()
