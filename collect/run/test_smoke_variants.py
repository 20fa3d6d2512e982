"""A smoke run over variants of each framework (framework.json variants): each arm's items record
what its process really ran (driver, runtime, GC and heap settings), read from the process itself.
Apart from collect/run/test_smoke.py, so that pytest-xdist can run the two on different workers."""
import json

from collect.conftest import run_testbed


def test_a_smoke_run_over_variants_of_each_framework_records_what_each_really_ran(tmp_path, run_env):
    # Measured by wrk alone, on cases outside the cross-check's and the memory pass's 1, 13 and 18:
    # what this test reads is in the rounds' items; collect/run/test_smoke.py runs every pass.
    arms = ["aspnet", "aspnet:mysql-data", "aspnet:no-datas", "express", "express:node20"]
    result = run_testbed("run", "--profile", "smoke", "--variants", ",".join(arms), "--apis", "rest",
                         "--cases", "2,4", "--loadgen", "wrk", "--results-dir", str(tmp_path), env=run_env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    [run] = [p for p in tmp_path.iterdir() if p.is_dir()]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["settings"]["frameworks"] == arms and list(manifest["frameworks"]) == arms
    assert [manifest["frameworks"][a]["variant_run"] for a in arms] == [
        "default", "mysql-data", "no-datas", "default", "node20"]
    assert len({manifest["ports"][a] for a in arms}) == 5  # served side by side
    loaded = {}
    for arm in arms:
        for case in (2, 4):
            record = json.loads((run / arm / "rest" / f"case-{case:02d}" / "iter-01" / "run.json").read_text())
            assert record["status"] == "ok" and record["results"]["samples"] > 0, (arm, case, record)
            assert record["variant"] == manifest["frameworks"][arm]["variant_run"]
            loaded[arm] = record["loaded"]
    # Read from each process at start-up, not from framework.json.
    assert loaded["aspnet"]["driver"] == "MySqlConnector" and loaded["aspnet:mysql-data"]["driver"] == "MySql.Data"
    assert loaded["express"]["runtime"].startswith("Node.js v24.")
    assert loaded["express:node20"]["runtime"].startswith("Node.js v20.")
    # The GC and heap settings in force, as each runtime reports them, in every item and the manifest.
    # (On one processor the runtime runs Workstation GC, DATAS off, whatever the settings say.)
    several = int(loaded["aspnet"]["processor_count"]) > 1
    assert [loaded[a]["gc_datas"] for a in ("aspnet", "aspnet:no-datas")] == [str(several).lower(), "false"]
    assert all(loaded[a]["gc_mode"] == ("server" if several else "workstation") and int(loaded[a]["gc_heap_count"]) >= 1
               for a in arms if a.startswith("aspnet"))
    assert all(loaded[a]["heap_size_limit_mb"] > 0 and loaded[a]["exec_argv"] == []
               for a in ("express", "express:node20"))
    assert all(manifest["frameworks"][a]["loaded"] == loaded[a] for a in arms)
