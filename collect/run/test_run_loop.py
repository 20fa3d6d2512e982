"""RunLoop's bookkeeping, with no app, JMeter or database: what it records, what one JMeter
process measures, and what it does with apps something else runs. The real processes are in
test_faults.py and test_smoke.py."""
import io
import json
from dataclasses import replace

import pytest

from benchlib.cases import cases
from benchlib.database import Database
from benchlib.items import Item
from benchlib.net import free_port
from benchlib.results import MANIFEST, SUMMARY, summary_rows
from collect.run import run_loop
from collect.load.app_pool import AppFailed, ExternalApps, Target
from collect.load.batch import next_batch
from collect.passes.phase_run import Added, Ceilings, ManifestEntry, PhaseRun
from collect.passes.phases import PHASES, ROUNDS, Phase
from collect.passes.run_context import RunContext
from collect.run.run_loop import RunLoop
from collect.items.profiles import PROFILES
from collect.passes.progress import Progress

ORDER = ["toy/rest/case-01/iter-01", "toy/graphql/case-01/iter-01", "toy/rest/case-04/iter-01",
         "toy/rest/case-01/iter-02"]
EXTERNAL = Database("127.0.0.1", 1, "forum", "a", "a", "s", "s", managed=False)


def new_run(tmp_path, profile="smoke") -> RunLoop:
    manifest = {"settings": {"profile": PROFILES[profile].settings()}, "order": ORDER,
                "layout": {"requested": "no-pin", "applied": False, "note": "not requested"}, "frameworks": {"toy": {}}}
    frameworks = {"toy": {"name": "toy", "apis": ["rest"], "dir": tmp_path}}
    return RunLoop(RunContext(tmp_path, manifest, frameworks, "jmeter", EXTERNAL), stream=io.StringIO())


def test_an_api_the_framework_does_not_serve_is_excluded_without_starting_anything(tmp_path):
    run = new_run(tmp_path)
    graphql = run.items[1]
    assert not run.serves(graphql) and run.serves(run.items[0])
    outcome = run.files.exclude(graphql)
    assert outcome.startswith("excluded: toy does not implement graphql")
    record = json.loads((tmp_path / "toy/graphql/case-01/iter-01/run.json").read_text())
    assert record["status"] == "excluded" and record["load"]["threads"] == 10
    [row] = summary_rows(tmp_path / SUMMARY)
    assert (row["api"], row["status"], row["samples"]) == ("graphql", "excluded", "")
    assert run.files.finished(graphql) and not run.files.finished(run.items[0]) and run.apps.running == {}


def test_state_counts_the_finished_items(tmp_path):
    run = new_run(tmp_path)
    run.files.exclude(run.items[1])
    run.set_state("stopped", "the database is not answering")
    state = json.loads((tmp_path / "state.json").read_text())
    assert (state["status"], state["reason"], state["done"]) == \
        ("stopped", "the database is not answering", 1)


@pytest.mark.parametrize("profile, sizes", [("smoke", [3, 1]), ("quick", [3, 1]), ("study", [1, 1, 1, 1])])
def test_one_jmeter_process_measures_the_rest_of_a_round_or_with_fresh_apps_one_case(tmp_path, profile, sizes):
    run = new_run(tmp_path, profile)
    todo, batches = list(run.items), []
    while todo:
        batches.append(next_batch(todo, run.context.profile))
        todo = todo[len(batches[-1]):]
    assert [len(b) for b in batches] == sizes
    assert all(len({item.round for item in b}) == 1 for b in batches)


def test_with_fresh_apps_per_slot_a_batch_is_one_slot_s_items(tmp_path):
    run = new_run(tmp_path)
    slot = replace(run.context.profile, restart="slot")
    items = [replace(item, framework=arm) for item in run.items for arm in ("toy", "other")]
    todo, batches = list(items), []
    while todo:
        batches.append(next_batch(todo, slot))
        todo = todo[len(batches[-1]):]
    assert [len(b) for b in batches] == [2, 2, 2, 2]
    assert all(len({(i.round, i.api, i.case) for i in b}) == 1 for b in batches)
    assert slot.paired and slot.protocol()["apps"].startswith("started afresh for each (API, case)")


def phase(name, outcome, app_failure="skip"):
    def run_phase(run, progress):
        ran.append(name)
        if outcome == "app fails":
            raise AppFailed(f"{name}'s app did not become ready", "log tail")
    return Phase(name, run_phase, lambda run: 0, app_failure)


ran: list[str] = []


@pytest.mark.parametrize("app_failure, code, state, after", [
    ("skip", 0, "complete", ["b", "c"]),  # the rest of `b` waits for --resume, `c` goes on
    ("stop", 3, "stopped", ["b"]),        # the run stops, resumable
])
def test_the_phases_run_in_order_and_an_app_that_fails_skips_or_stops_as_its_phase_says(
        tmp_path, monkeypatch, app_failure, code, state, after):
    ran.clear()
    monkeypatch.setattr(run_loop, "PHASES", (phase("a", "ok"), phase("b", "app fails", app_failure),
                                             phase("c", "ok")))
    run = new_run(tmp_path)
    assert run.execute() == code
    assert ran == ["a", *after]
    assert json.loads((tmp_path / "state.json").read_text())["status"] == state
    assert "run: b's app did not become ready; the rest of the b is left for --resume" in run.stream.getvalue()


def test_every_phase_says_how_long_it_has_left(tmp_path):
    run = new_run(tmp_path)
    assert [p.name for p in PHASES] == ["reference work and ceiling", ROUNDS, "ceiling after the rounds",
                                        "cross-check", "memory pass", "latency pass"]
    left = {p.name: p.estimate_s(run) for p in PHASES}
    assert left[ROUNDS] == 3 * run.estimate()  # the toy's three REST items; its GraphQL one is excluded
    assert left["ceiling after the rounds"] > 0 and left["latency pass"] == 0  # not the latency profile


def external_run(tmp_path, port: int) -> RunLoop:
    """A run on a pool of apps something else runs: the toy at 127.0.0.1:`port`, serving REST."""
    manifest = {"settings": {"profile": PROFILES["smoke"].settings()}, "order": ORDER,
                "layout": {"requested": "no-pin", "applied": False, "note": "elsewhere"},
                "frameworks": {"toy": {"name": "toy", "variant": {"name": "default"}}}}
    pool = ExternalApps({"toy": Target("toy", "127.0.0.1", port, ("rest",))})
    return RunLoop(RunContext(tmp_path, manifest, manifest["frameworks"], "jmeter", None), stream=io.StringIO(),
                   pool=pool, resume_command="RESUME=it")


def test_apps_run_elsewhere_get_the_rounds_only_at_their_own_address(tmp_path):
    run = external_run(tmp_path, 5999)
    assert [p.name for p in run.phases()] == [ROUNDS]
    assert run.apps.address("toy") == ("127.0.0.1", 5999)
    assert run.serves(run.items[0]) and not run.serves(run.items[1])  # TARGETS says REST only


def test_a_target_that_does_not_answer_fails_its_item_and_nothing_is_started(tmp_path):
    port = free_port()  # nothing listens there
    run = external_run(tmp_path, port)
    with pytest.raises(AppFailed, match=rf"toy is not answering http://127.0.0.1:{port}/healthz \(no answer\)"):
        run.apps.ensure("toy")
    run.run_batch(run.todo()[:1], Progress(1, 0, 1, run.stream))
    record = json.loads((tmp_path / "toy/rest/case-01/iter-01/run.json").read_text())
    assert record["status"] == "failed" and "is not answering" in record["reason"]
    assert not (tmp_path / "batches").exists() and run.apps.running == {}


def test_what_a_phase_yields_is_applied_before_it_goes_on(tmp_path, monkeypatch):
    """A phase changes nothing of the loop: the loop records what it yields (collect/passes/phase_run.py),
    each before the phase's next step, which reads it back."""
    later = Item.parse("toy/rest/case-01/iter-03", cases())
    seen = []

    def yielding(run, progress):
        yield ManifestEntry("layout", {"requested": "no-pin", "applied": False, "note": "chosen"})
        seen.append(run.context.layout["note"])
        yield Ceilings("wrk", {10: 1234.5})
        seen.append(run.ceilings["wrk"][10])
        yield Added((later,))
        seen.append(run.items[-1])

    monkeypatch.setattr(run_loop, "PHASES", (Phase("yielding", yielding, lambda run: 0),))
    run = new_run(tmp_path)
    assert isinstance(run, PhaseRun)  # the loop has every member a phase may use
    assert run.execute() == 0 and seen == ["chosen", 1234.5, later]
    recorded = json.loads((tmp_path / MANIFEST).read_text())
    assert recorded["order"] == [*ORDER, later.key] and recorded["layout"]["note"] == "chosen"
