"""The console, the report and the data tell one story: a copy of the checked smoke fixture
(20261125-063724-smoke, 24 items) is seeded with every state an item can end in (failed, excluded,
valid, bound, invalid, unfair, flagged), and the counts the console's end prints, the report's
bottom line and trust line say, and summary.csv holds are the same numbers."""
import csv
import io
import json
import re
import shutil

import pytest

from analysis.conftest import FIXTURE_RESULTS
from analysis.item_counts import counts
from analysis.load import load_run
from analysis.report import write_report
from benchlib.results import V4_COLUMNS, summary_rows
from collect.passes.progress import final_report

CHECKED_RUN = "20261125-063724-smoke"
# (framework, api, case, iteration) -> what the item becomes; every other ok item is made valid.
SEEDED = {
    ("aspnet", "rest", 1, 1): {"status": "failed"},
    ("express", "rest", 1, 2): {"status": "excluded"},
    ("aspnet", "rest", 13, 1): {"validity": "bound"},
    ("express", "rest", 13, 1): {"validity": "bound"},
    ("aspnet", "graphql", 13, 2): {"validity": "invalid"},
    ("express", "graphql", 18, 1): {"validity": "invalid"},
    ("express", "graphql", 18, 2): {"validity": "invalid"},
    ("aspnet", "graphql", 18, 1): {"latency_validity": "unfair", "unserved": "3"},
    ("express", "rest", 18, 2): {"flags": "underloaded"},
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """The fixture as a schema-4 run (its response times judged apart, so an item can be unfair),
    every item valid but those SEEDED, each run.json agreeing with its row."""
    run_dir = tmp_path_factory.mktemp("seeded") / CHECKED_RUN
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, run_dir)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    manifest["schema_version"] = 4
    (run_dir / "manifest.json").write_text(json.dumps(manifest))
    with open(run_dir / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        seed = SEEDED.get((row["framework"], row["api"], int(row["case"]), int(row["iteration"])), {})
        row.update(validity="valid", validity_reasons="", latency_validity="valid", latency_reasons="",
                   loadgen="jmeter", flags="")
        row.update(seed)
        if row["validity"] == "invalid":
            row.update(validity_reasons="steady_state: seeded", latency_validity="invalid")
        if row["status"] != "ok":
            path = run_dir / row["framework"] / row["api"] / f"case-{int(row['case']):02d}" / \
                f"iter-{int(row['iteration']):02d}" / "run.json"
            item = json.loads(path.read_text())
            path.write_text(json.dumps({**item, "status": row["status"], "reason": "seeded"}))
    with open(run_dir / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=V4_COLUMNS, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return run_dir


def from_the_csv(run_dir) -> dict[str, int]:
    """The counts straight from summary.csv, as a reader with a spreadsheet would take them."""
    with open(run_dir / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    ok = [r for r in rows if r["status"] == "ok"]
    return {"items": len(rows), "failed": sum(r["status"] == "failed" for r in rows),
            "excluded": sum(r["status"] == "excluded" for r in rows),
            **{state: sum(r["validity"] == state for r in ok) for state in ("valid", "bound", "invalid")},
            "unfair": sum(r["latency_validity"] == "unfair" for r in ok), "flagged": sum(bool(r["flags"]) for r in ok)}


def said(text: str) -> dict[str, int]:
    """The counts a sentence of analysis.item_counts gives, read back from wherever it was printed."""
    found = re.search(r"Of (\d+) items \(one arm, API, case and round\), (\d+) valid, (\d+) bound by the load "
                      r"generator \(used as bounds\) and (\d+) invalid \(never used\); (\d+) failed and (\d+) "
                      r"excluded; (\d+) of the usable ones left connections unserved .*?; (\d+) carr", text, re.S)
    assert found, text
    return dict(zip(("items", "valid", "bound", "invalid", "failed", "excluded", "unfair", "flagged"),
                    map(int, found.groups())))


def test_the_seeded_run_has_every_kind_of_item(seeded):
    assert from_the_csv(seeded) == {"items": 24, "failed": 1, "excluded": 1, "valid": 17, "bound": 2,
                                    "invalid": 3, "unfair": 1, "flagged": 1}


def test_the_data_the_console_and_the_report_give_the_same_counts(seeded):
    data = from_the_csv(seeded)
    counted = counts(load_run(seeded))
    assert {k: getattr(counted, k) for k in data} == data

    console = io.StringIO()
    final_report(seeded, 24, summary_rows(seeded / "summary.csv"), console)
    printed = console.getvalue()
    assert said(" ".join(printed.split())) == data
    assert f"run {CHECKED_RUN}: 24 of 24 measured." in printed
    assert "  failed: aspnet/rest/case-01/iter-01" in printed and "  excluded: express/rest/case-01/iter-02" in printed

    page = (write_report(seeded) / "report.md").read_text()
    opening = page[:page.index("## The answer")]
    assert said(opening) == data
    assert (f"Can you trust this run? {data['valid']} of {data['items']} items passed every check, {data['bound']} "
            f"were bound by the load generator, {data['invalid']} invalid, {data['failed']} failed and "
            f"{data['excluded']} excluded") in opening
    # The console ends with the bottom line the report opens with, line for line.
    bottom = page[page.index("## The bottom line"):page.index("Can you trust this run?")].split("\n")[1:]
    lines = [" ".join(line.removeprefix("- ").split()) for line in bottom if line.strip()
             and not line.startswith(("![", "*"))]
    ending = " ".join(printed[printed.index("The bottom line"):].split())
    assert len(lines) == 4 and lines[0].startswith("REST: ASP.NET Core served ") and "GraphQL: " in lines[1]
    assert all(line in ending for line in lines)


def test_the_console_compares_against_the_reference_the_report_was_asked_for(seeded):
    console = io.StringIO()
    final_report(seeded, 24, summary_rows(seeded / "summary.csv"), console, reference="express")
    ending = " ".join(console.getvalue()[console.getvalue().index("The bottom line"):].split())
    page = (write_report(seeded, None, "express") / "report.md").read_text()
    first = page[page.index("## The bottom line"):].split("\n- ")[1].split("\n")[0]
    assert first.startswith("REST: Express.js served ") and " ".join(first.split()) in ending
