"""The latency pass's rates and order, from a run's summary.csv, with no app, JMeter or database:
the same rates for every framework, fractions of the slowest one's capacity, fixed in the manifest."""
import csv
import io
import json

from benchlib.database import Database
from benchlib.results import MANIFEST, SUMMARY, SUMMARY_COLUMNS
from collect.passes import latency
from collect.passes.run_context import RunContext
from collect.run.run_loop import RunLoop
from collect.items.profiles import PROFILES
from collect.passes.progress import Progress

EXTERNAL = Database("127.0.0.1", 1, "forum", "a", "a", "s", "s", managed=False)


def new_run(tmp_path, capacity: dict, profile: str = "latency") -> RunLoop:
    """A latency run of rest case 1 and 18 whose closed-model round measured `capacity`:
    (framework, case) -> (throughput, validity, errors)."""
    order = [f"{fw}/rest/case-{case:02d}/iter-01" for fw, case in capacity]
    manifest = {"settings": {"profile": PROFILES[profile].settings()}, "order": order, "seed": 42,
                "layout": {"requested": "no-pin", "applied": False, "note": "not requested"},
                "frameworks": {"a": {}, "b": {}}}
    with open(tmp_path / SUMMARY, "w", newline="") as f:
        writer = csv.DictWriter(f, SUMMARY_COLUMNS, restval="")
        writer.writeheader()
        for (fw, case), (rps, validity, errors) in capacity.items():
            writer.writerow({"framework": fw, "api": "rest", "case": case, "round": 1, "status": "ok",
                             "throughput_rps": rps, "validity": validity, "errors": errors})
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    frameworks = {name: {"name": name, "apis": ["rest"], "dir": tmp_path} for name in ("a", "b")}
    return RunLoop(RunContext(tmp_path, manifest, frameworks, "jmeter", EXTERNAL), stream=io.StringIO())


def progress() -> Progress:
    return Progress(0, 0, 0, io.StringIO())


def cells(run: RunLoop, notes: Progress) -> list[dict]:
    """The pass's cells, fixed in the manifest by the run loop the first time."""
    run.apply(latency.fix_cells(run, notes))
    return run.context.manifest["latency"]["cells"]


def test_rates_are_fractions_of_the_slowest_capacity_and_the_same_for_every_framework(tmp_path):
    run = new_run(tmp_path, {("a", 1): (2000, "valid", 0), ("b", 1): (1000, "bound", 0),
                             ("a", 18): (300, "invalid", 0), ("b", 18): (200, "valid", 3)})
    notes = progress()
    [cell] = cells(run, notes)
    assert cell["slowest"] == "b" and cell["rates"] == [250, 500, 750, 900, 1200]
    assert cell["capacity_bound"] == {"a": False, "b": True}
    # Case 18: b's only measurement had errors, so the cell has no capacity for it and is left out.
    assert "rest case 18 left out: no error-free measurement of b" in notes.stream.getvalue()
    recorded = json.loads((tmp_path / MANIFEST).read_text())["latency"]
    assert recorded["cells"] == [cell] and recorded["fractions"] == [0.25, 0.5, 0.75, 0.9]
    # Fixed once: a later summary does not move the rates of a resumed run.
    assert cells(run, progress()) == [cell]

    first = latency.planned(run, [cell], 1)
    assert len(first) == 10 and first == latency.planned(run, [cell], 1)
    assert first != latency.planned(run, [cell], 2)
    for a, b in zip(first[::2], first[1::2]):  # each (case, step) slot's frameworks back to back
        assert ((a.step, a.target_rps) == (b.step, b.target_rps) and {a.item.framework, b.item.framework} == {"a", "b"})
    assert all(m.pool_threads == 100 and m.capacity_rps == 1000 and m.item.round == 1 for m in first)


def test_an_invalid_but_error_free_capacity_is_used_and_said(tmp_path):
    run = new_run(tmp_path, {("a", 1): (300, "invalid", 0), ("b", 1): (400, "valid", 0)})
    notes = progress()
    [cell] = cells(run, notes)
    assert cell["slowest"] == "a" and cell["capacity_validity"] == {"a": "invalid", "b": "valid"}
    assert "capacity of a comes from a measurement that failed" in notes.stream.getvalue()


def test_the_pass_has_as_many_rounds_as_its_profile_says(tmp_path):
    capacity = {("a", 1): (2000, "valid", 0), ("b", 1): (1000, "valid", 0)}
    for name in ("latency", "smoke"):
        (tmp_path / name).mkdir()
    latency_run = new_run(tmp_path / "latency", capacity)
    smoke_run = new_run(tmp_path / "smoke", capacity, "latency-smoke")
    for run, rounds in ((latency_run, 3), (smoke_run, 1)):
        cells(run, progress())
        assert run.context.manifest["latency"]["rounds"] == rounds
    assert latency.estimate_s(latency_run) == 3 * latency.estimate_s(smoke_run) > 0
