"""The bottom line's comparisons and its one-core notes: which comparisons it speaks of (the
reference against each framework, or a one-framework run's variants), and which arms it names as
using one of the machine's cores, with the variant that uses every core."""
import json
import shutil

import pandas as pd

from analysis import answer, bottom_line, cores
from analysis.conftest import FIXTURE_RESULTS
from analysis.load import load_run

VARIANTS_RUN = "20250701-120000-variants"  # aspnet:mvc, aspnet, express; aspnet / aspnet:mvc REST 1.05
THREE_RUN = "20261125-082957-smoke"        # aspnet, express, fastify as one Node process each, 2 cores


def test_a_run_of_one_frameworks_variants_speaks_of_variant_against_variant(tmp_path):
    run_dir = tmp_path / VARIANTS_RUN
    shutil.copytree(FIXTURE_RESULTS / VARIANTS_RUN, run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["settings"]["frameworks"] = ["aspnet:mvc", "aspnet"]
    del manifest["frameworks"]["express"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    summary = pd.read_csv(run_dir / "summary.csv", dtype=str, keep_default_na=False)
    summary[summary["framework"] != "express"].to_csv(run_dir / "summary.csv", index=False)
    said = bottom_line.for_run(load_run(run_dir))
    assert said[0].startswith("REST: ASP.NET Core served more requests per second than ASP.NET Core (mvc) in ")
    assert not any(line.startswith("Only ") for line in said)


def test_each_one_process_node_arm_is_named_with_the_variant_that_uses_every_core():
    run = load_run(FIXTURE_RESULTS / THREE_RUN)
    assert [cores.one_core(run, arm) for arm in ("aspnet", "express", "fastify")] == [False, True, True]
    said = bottom_line.for_run(run)
    assert any(line.startswith("Express.js used one of this machine's 2 cores (one Node.js process); its variant "
                               "`express:cluster` uses every core") for line in said)
    assert any(line.startswith("Fastify used one of this machine's 2 cores (one Node.js process); Fastify has no "
                               "variant that uses every core") for line in said)


def test_a_cluster_arm_or_a_one_core_machine_gets_no_note(tmp_path):
    run_dir = tmp_path / THREE_RUN
    shutil.copytree(FIXTURE_RESULTS / THREE_RUN, run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["frameworks"]["express"]["variant"]["settings"]["processes"] = "1 primary + 2 workers"
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    assert not cores.one_core(load_run(run_dir), "express")
    manifest["machine"]["cores"] = 1
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    assert cores.note(load_run(run_dir), ["aspnet", "express", "fastify"]) == ""


def test_an_api_both_arms_measured_without_a_pair_is_said_one_an_arm_does_not_serve_is_not():
    # Every item of the three-framework run is ok, in cases 1, 13 and 18 of both APIs.
    said = bottom_line.for_run(load_run(FIXTURE_RESULTS / THREE_RUN))
    assert "GraphQL: no case of 3 was measurable for both ASP.NET Core and Express.js." in said
    # Its ASP.NET Core had no GraphQL yet: those items are excluded, and no GraphQL line is written.
    said = bottom_line.for_run(load_run(FIXTURE_RESULTS / "20261122-031909-smoke"))
    assert said[0].startswith("REST: ASP.NET Core served ") and not any(line.startswith("GraphQL") for line in said)


def test_a_bound_that_leaves_the_direction_open_counts_for_neither_side():
    run = load_run(FIXTURE_RESULTS / "20261125-063724-smoke")  # both arms ok in REST cases 1, 13 and 18
    rows = pd.DataFrame({"case": [1, 13, 18], "ratio": [0.8, 1.2, 0.9], "ratio_low": [None, 1.1, None],
                         "ratio_high": [None, 1.3, None], "bound": [">=", "", "<="], "judged": [False, True, False],
                         "significant": [False, True, False]})
    assert bottom_line.throughput_part(run, rows, answer.STUDY, "rest") == (
        "ASP.NET Core served more requests per second than Express.js in 1 of 3 cases (1 significantly), fewer in 1 "
        "(none significantly), 1 open (bound by the load generator, either way): A/E ≥ 0.80 (bound) (case 1) to "
        "1.20 [1.10, 1.30] (case 13)")
