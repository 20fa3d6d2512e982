import json

import pytest

from analysis.load import ResultFileError, latest_run, load_jtl, load_run
from analysis.report import write_report


def test_fixture_run_loads(run_dir):
    run = load_run(run_dir)
    assert run.run_id == "20240101-120000-fixture"
    assert run.cores == 2
    assert len(run.summary) == 42
    assert run.display_name("aspnet") == "ASP.NET Core"


def test_a_summary_with_requests_in_flight_loads_too(run_dir):
    """Runs since in_flight_mean was added carry it as a last column; older runs still load."""
    path = run_dir / "summary.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0] + ",in_flight_mean"] + [line + ",7.5" for line in lines[1:]]) + "\n")
    assert set(load_run(run_dir).summary["in_flight_mean"]) == {7.5}


def test_latest_run_is_the_last_timestamp_and_ignores_other_folders(results):
    for name in ("20231231-235959-quick", "20990102-000000-smoke", "notes", "20990103-x"):
        (results / name).mkdir()
    assert latest_run(results).name == "20990102-000000-smoke"


def expect_error(run_dir, file_name, words):
    with pytest.raises(ResultFileError) as caught:
        write_report(run_dir)
    message = str(caught.value)
    assert file_name in message, message
    assert words in message, message
    assert not (run_dir / "report").exists()
    return message


def test_missing_manifest(run_dir):
    (run_dir / "manifest.json").unlink()
    expect_error(run_dir, "manifest.json", "missing")


def test_manifest_without_cores(run_dir):
    manifest = json.loads((run_dir / "manifest.json").read_text())
    del manifest["machine"]["cores"]
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    expect_error(run_dir, "manifest.json", "machine.cores")


def test_manifest_not_json(run_dir):
    (run_dir / "manifest.json").write_text("{not json")
    expect_error(run_dir, "manifest.json", "not valid JSON")


def test_summary_with_another_header(run_dir):
    path = run_dir / "summary.csv"
    path.write_text(path.read_text().replace("p95_ms,", "p95,", 1))
    expect_error(run_dir, "summary.csv", "header")


def replace_line(path, number, old, new):
    lines = path.read_text().splitlines()
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    path.write_text("\n".join(lines) + "\n")


def test_summary_with_a_bad_number_names_the_line(run_dir):
    replace_line(run_dir / "summary.csv", 3, ",ok,,16,", ",ok,,sixteen,")
    expect_error(run_dir, "summary.csv", "line 3: samples must be a number")


def test_summary_with_an_unknown_status(run_dir):
    replace_line(run_dir / "summary.csv", 2, ",ok,", ",fine,")
    expect_error(run_dir, "summary.csv", "line 2: status")


def test_missing_run_json_of_an_excluded_iteration(run_dir):
    path = run_dir / "aspnet" / "rest" / "case-01" / "iter-04" / "run.json"
    path.unlink()
    expect_error(run_dir, str(path), "missing")


def test_malformed_jtl(run_dir):
    path = run_dir / "express" / "rest" / "case-18" / "iter-03" / "results.jtl"
    lines = path.read_text().splitlines()
    lines[5] = lines[5].replace(lines[5].split(",")[1], "slow", 1)
    path.write_text("\n".join(lines) + "\n")
    expect_error(run_dir, str(path), "line 6: elapsed must be a number")


def test_missing_proc_csv(run_dir):
    path = run_dir / "aspnet" / "graphql" / "case-18" / "iter-01" / "proc.csv"
    path.unlink()
    expect_error(run_dir, str(path), "missing")


def test_jtl_leaves_out_warm_up_samples(run_dir):
    jtl = load_jtl(run_dir / "aspnet" / "rest" / "case-18" / "iter-01" / "results.jtl")
    assert len(jtl) == 16  # the file holds 3 warm-up samples of 5 s and more before these
    assert jtl["elapsed"].max() < 5000 and jtl["success"].all()
