"""The smoke profile end to end: every framework x API, real apps, real wrk and JMeter, the report.

The one long test of the suite (a few minutes): it proves the whole pipeline still holds together.
It measures the cases that between them send every request shape (cases 1-6: rows 1, 50 and 100,
with and without a join; 7-18 repeat them at more users, which the smoke profile caps at 10
connections anyway). Of those the cross-check and the memory pass measure (1, 13, 18) it has case 1:
each pass then measures every framework x API on case 1 and leaves out the run's other cases.
(13 and 18 cost two minutes, most of it the memory pass's 24 more fresh processes, and sent no shape
that 1-6 do not; collect/run/test_faults.py resumes both passes over two of their cases, and
jmeter-plans/test_jmeter_runs.py sends every shape with JMeter.) A smoke run over variants is
collect/run/test_smoke_variants.py, apart so that pytest-xdist can run it on the other worker."""
import csv
import json

from benchlib.apps import frameworks, served_apis
from benchlib.cases import STUDY_PAIR
from benchlib.results import (CEILING, CROSSCHECK, LATENCY_VERDICTS, MEMORY, REFERENCE, SUMMARY_COLUMNS,
                              VALIDITY_VERDICTS)
from collect.conftest import run_testbed

LAYOUT = ("run.json", "results.jtl", "proc.csv", "top.csv", "app.log")
CASES = (1, 2, 3, 4, 5, 6)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_smoke_profile_runs_every_framework_and_request_shape_through_every_phase(tmp_path, run_env):
    result = run_testbed("run", "--profile", "smoke", "--frameworks", "all", "--cases", ",".join(map(str, CASES)),
                         "--memory-rounds", "2", "--results-dir", str(tmp_path), env=run_env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    [run] = [p for p in tmp_path.iterdir() if p.is_dir()]
    manifest = json.loads((run / "manifest.json").read_text())
    # --frameworks all: every framework.json, and the report answers each against the reference.
    impls = {m["name"]: m for m in frameworks()}
    assert manifest["profile"] == "smoke" and set(manifest["frameworks"]) == set(impls)
    assert manifest["settings"]["profile"]["thread_cap"] == 10
    assert len(manifest["order"]) == len(impls) * 2 * len(CASES)
    assert json.loads((run / "state.json").read_text())["status"] == "complete"

    with open(run / "summary.csv") as f:
        assert f.readline().strip().split(",") == SUMMARY_COLUMNS
    with open(run / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(manifest["order"])
    for row in rows:
        where = f"{row['framework']}/{row['api']}/case-{int(row['case']):02d}/iter-01"
        implemented = row["api"] in served_apis(impls[row["framework"]])
        assert row["status"] == ("ok" if implemented else "excluded"), (where, row)
        if row["status"] != "ok":
            continue
        assert int(row["samples"]) > 0 and "errors" not in row["flags"], (where, row)
        assert float(row["cpu_mean_pct"]) >= 0 and float(row["rss_peak_mb"]) > 0
        # Every item is judged, and says why when it is not valid.
        assert row["validity"] in VALIDITY_VERDICTS and (row["validity"] == "valid") != bool(row["validity_reasons"])
        assert row["latency_validity"] in LATENCY_VERDICTS and row["loadgen"] == "wrk"
        assert int(row["threads"]) == 10 and float(row["app_cpu_ms_per_req"]) > 0 and float(row["ceiling_rps"]) > 0
        assert float(row["loadgen_cpu_ms_per_req"]) >= 0 and row["other_cpu_pct"] != ""
        for name in LAYOUT:
            assert (run / where / name).exists(), (where, name)
        roles = {line.split(",")[1] for line in (run / where / "proc.csv").read_text().splitlines()[1:]}
        assert {"app", "db", "loadgen", "machine", "steal", "samplers", "testbed"} <= roles, (where, roles)
        # What ran is read from the process itself, item by item, and lands in the manifest.
        loaded = json.loads((run / where / "run.json").read_text())["loaded"]
        assert loaded == manifest["frameworks"][row["framework"]]["loaded"], (where, loaded)
    ok = {(r["framework"], r["api"], r["case"]) for r in rows if r["status"] == "ok"}
    # /proc counts CPU in 10 ms ticks: in a 1 s window wrk may spend less than one (a slow case, a
    # busy machine; seen in CI), but not in every window.
    assert any(float(r["loadgen_cpu_ms_per_req"]) > 0 for r in rows if r["status"] == "ok")
    # The load generator chosen by measurement (wrk costs a fraction of JMeter's CPU per request on
    # every machine the project knows), the layout with its figures, the reference work.
    assert manifest["loadgen"]["requested"] == "auto" and manifest["loadgen"]["tool"] == "wrk"
    assert "µs of CPU per request" in manifest["loadgen"]["why"]
    assert manifest["layout"]["requested"] == "auto" and manifest["layout"]["need_cores"] > 0
    reference = json.loads((run / REFERENCE).read_text())
    assert set(reference["apps"]) == set(impls) and set(reference["loadgens"]) == {"wrk", "jmeter"}
    assert all(e["rest_case_1"]["throughput_rps"] > 0 for e in reference["apps"].values())
    assert reference["database"]["measured"] and len(reference["database"]["shapes"]) == 4
    # Each load generator's ceiling where the load runs: wrk before and after the rounds, JMeter
    # before the cross-check it measures.
    ceilings = read_csv(run / CEILING)
    assert {(r["loadgen"], r["when"]) for r in ceilings} == {("wrk", "before"), ("wrk", "after"), ("jmeter", "before")}
    assert all(r["threads"] == "10" and float(r["ceiling_rps"]) >= float(r["throughput_rps"]) > 0 for r in ceilings)
    # The cross-check: the other load generator's whole items on cases 1, 13 and 18 (here 1), measured
    # although JMeter's reference work says they will be bound (the profile's crosscheck_always).
    crosscheck = read_csv(run / CROSSCHECK)
    assert {(r["framework"], r["api"], r["case"]) for r in crosscheck} == {k for k in ok if k[2] in ("1", "13", "18")}
    assert {r["loadgen"] for r in crosscheck} == {"jmeter"} \
        and all(r["validity"] in VALIDITY_VERDICTS for r in crosscheck)
    assert (run / "crosscheck" / "express" / "rest" / "case-01" / "iter-01" / "results.jtl").exists()
    # The memory pass: --memory-rounds fresh processes per arm and case, whatever the rounds.
    memory = read_csv(run / MEMORY)
    assert manifest["settings"]["profile"]["memory_rounds"] == 2
    assert sorted((r["framework"], r["api"], r["case"], r["round"]) for r in memory) == \
        sorted((*k, i) for k in ok if k[2] in ("1", "13", "18") for i in ("1", "2"))
    assert all(float(r["hwm_mb"]) > 0 for r in memory)
    assert manifest["validity"]["numbers"]["ceiling_share"] > 0
    aspnet = manifest["frameworks"]["aspnet"]["loaded"]
    assert (aspnet["driver"], aspnet["driver_version"]) == ("MySqlConnector", "2.6.2")
    assert (run / "report" / "index.html").exists()
    text = (run / "report" / "report.md").read_text()
    assert "The load came from wrk" in text and "## The machine and the load" in text
    reference = STUDY_PAIR[0]
    for name in sorted(set(impls) - {reference}):
        assert f"### {impls[reference]['display_name']} / {impls[name]['display_name']}" in text, name
    # Usable items only: at 1 s windows a framework may have none, and on a machine busy with other
    # work none at all (then the report is the trust section and what would measure each cell).
    if (run / "report" / "tables" / "ranking.csv").exists():
        ranked = {r["framework"] for r in read_csv(run / "report" / "tables" / "ranking.csv")}
        assert ranked <= set(impls), ranked
