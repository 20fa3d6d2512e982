"""The records of a run (analysis/records.py): an old manifest and a current one read with the
defaults their schema implies, a manifest the report cannot read named in one line, records that do
not change once read, and an item's run.json as the report reads it (benchlib/test_items.py has the
rest of run.json)."""
import dataclasses

import pytest

from analysis.conftest import FIXTURE_RESULTS, HAND_RUN
from analysis.load import MANIFEST, ResultFileError, load_manifest, load_run
from analysis.records import CEILING_SHARE, Engine, LatencyCell, Manifest, StoppingState
from benchlib.items import EngineLoad
from benchlib.stopping import TARGET

LATENCY_RUN = "20261125-110616-latency"
VARIANTS_RUN = "20250701-120000-variants"
REQUIRED = {"schema_version": 4, "run_id": "20260101-000000-quick", "machine": {"cores": 2}}


def fixture(run: str) -> Manifest:
    path = FIXTURE_RESULTS / run / MANIFEST
    return Manifest.from_dict(load_manifest(path), path)


def test_a_schema_1_run_gets_the_defaults_of_a_run_before_every_later_key():
    m = fixture(HAND_RUN)
    assert (m.run_id, m.schema_version, m.machine.cores, m.profile) == (HAND_RUN, 1, 2, "fixture")
    assert (m.machine.cpu_model, m.machine.mem_total_mb, m.machine.kernel) == ("fixture CPU", 24000, "6.1.0")
    assert not m.paired and m.protocol.name is None and m.protocol.rounds is None
    assert not m.extra_rounds and m.sequential.target == TARGET and m.sequential.states == ()
    assert m.loadgen is None and m.loadgen_tool == "jmeter" and m.layout is None and m.pinning is None
    assert m.engines == () and m.latency.rounds is None and m.latency.cells == ()
    assert m.ceiling_share == CEILING_SHARE and m.dataset_checksum == "fixture" and m.database_version is None
    assert m.settings.frameworks == () and m.settings.profile is None and m.settings.bind_address is None
    aspnet = m.arm("aspnet")  # no base, variant, type or colour before variants
    assert (aspnet.display_name, aspnet.base, aspnet.variant, aspnet.type, aspnet.colour) == \
        ("ASP.NET Core", "aspnet", "default", "", None)
    unknown = m.arm("aspnet:net8")  # an arm the manifest does not describe: its name says what it is
    assert (unknown.display_name, unknown.base, unknown.variant) == ("aspnet:net8", "aspnet", "net8")


def test_a_current_run_reads_its_protocol_latency_pass_and_arms():
    m = fixture(LATENCY_RUN)
    assert m.paired and m.protocol.name == "interleaved-rounds" and m.protocol.rounds == 1
    assert not m.extra_rounds and m.sequential.budget_s is None
    assert m.settings.frameworks == ("aspnet", "express") and m.settings.bind_address == "127.0.0.1"
    assert m.latency.rounds == 3 and m.latency.window_s == 5 and m.latency.warmup_s == 2
    assert set(m.latency.thresholds) >= {"bound", "invalid", "saturated"}
    assert m.latency.cells[0] == LatencyCell("graphql", 1, "aspnet", {"aspnet": True, "express": False})
    assert m.arm("aspnet").type in ("realistic", "tuned") and m.arm("aspnet").colour
    assert m.dataset_checksum.startswith("c34de5f4")
    variants = fixture(VARIANTS_RUN)
    mvc = variants.arm("aspnet:mvc")
    assert (mvc.base, mvc.variant, mvc.display_name) == ("aspnet", "mvc", "ASP.NET Core (mvc)")
    assert mvc.description.startswith("MVC controllers") and mvc.env["API_STYLE"] == "mvc"


def test_schema_4_keys_are_read_into_their_records():
    m = Manifest.from_dict({
        **REQUIRED, "loadgen": {"requested": "auto", "tool": "wrk", "why": "cheaper"},
        "layout": {"applied": True, "note": "2 cores"}, "validity": {"numbers": {"ceiling_share": 0.7}},
        "engines": [{"endpoint": "10.0.0.2:1099", "cores": 4, "ssl": False}],
        "sequential": {"budget_s": 600, "target": 0.05, "rounds": [{"round": 4, "cells": [["rest", 1], ["rest", 7]]}],
                       "states": [{"api": "rest", "case": 1, "state": "settled"}], "stopped": "the budget"}})
    assert m.loadgen_tool == "wrk" and m.loadgen.why == "cheaper" and m.layout.applied and m.layout.note == "2 cores"
    assert m.ceiling_share == 0.7 and m.engines == (Engine("10.0.0.2:1099", cores=4, ssl=False),)
    assert m.extra_rounds and m.sequential.target == 0.05 and m.sequential.round_cells == (2,)
    assert m.sequential.states == (StoppingState("rest", 1, "settled"),) and m.sequential.stopped == "the budget"


def test_only_a_protocol_that_says_paired_is_paired():
    def paired(protocol) -> bool:
        return Manifest.from_dict({**REQUIRED, "protocol": protocol}).paired
    assert paired({"name": "interleaved-rounds", "paired": True, "rounds": 3})
    assert not paired({"name": "per-case-restart", "paired": False})
    assert not paired(None) and not paired("interleaved-rounds")


@pytest.mark.parametrize("change, words", [
    ({"run_id": None}, "run_id is missing"),
    ({"machine": {"cpu_model": "x"}}, "machine.cores must be a positive integer"),
    ({"schema_version": 9}, "schema_version must be one of"),
    ({"engines": [{"host": "a"}]}, "engines must be a list of objects with an endpoint"),
    ({"sequential": {"states": [{"api": "rest", "state": "settled"}]}}, "sequential.states"),
])
def test_a_manifest_the_report_cannot_read_names_the_file_and_the_field(tmp_path, change, words):
    path = tmp_path / MANIFEST
    with pytest.raises(ResultFileError) as caught:
        Manifest.from_dict({**REQUIRED, **change}, path)
    assert str(caught.value).startswith(f"{path}: ") and words in str(caught.value)
    assert caught.value.path == path


def test_the_records_do_not_change_once_read():
    m = fixture(VARIANTS_RUN)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.run_id = "another"
    with pytest.raises(TypeError):
        m.arm("aspnet").settings["pool_size"] = 1
    with pytest.raises(TypeError):
        m.arms["express"] = m.arm("aspnet")


ENGINES_RUN = "20250801-120000-engines"


def test_an_item_reads_how_it_ended_and_what_each_engine_did():
    run = load_run(FIXTURE_RESULTS / ENGINES_RUN)
    row = run.summary.iloc[0]
    item = run.item(row["framework"], row["api"], row["case"], row["round"])
    assert item.status == row["status"] and item.engines
    assert all(isinstance(e, EngineLoad) and e.endpoint and e.threads > 0 for e in item.engines)
