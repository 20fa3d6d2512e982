"""The run's section of the report: the load applied per case, on the hand-made fixture run; the
arms (what each ran, and the deviations from the contract its framework.json declares) on the
crafted variants fixture (arms aspnet:mvc, aspnet, express)."""
import json

from analysis.report import write_report
from analysis.test_variants import VARIANTS_RUN, section

DEVIATION = {"check": "bad-input", "request": "graphql commentById id literal 2147483648 [json]",
             "why": "the library validates an ID literal as a 32-bit Int",
             "upstream": "https://github.com/graph-gophers/graphql-go/issues/333"}


def test_the_load_applied_sits_beside_the_nominal_threads(run_dir):
    """A run with in_flight_mean (the fixtures predate it) shows it per case next to the threads."""
    summary = run_dir / "summary.csv"
    lines = summary.read_text().splitlines()
    lines = [lines[0] + ",in_flight_mean"] + [line + ",42.5" for line in lines[1:]]
    summary.write_text("\n".join(lines) + "\n")
    text = (write_report(run_dir) / "report.md").read_text()
    # the answer's table comes first
    table = text[text.index("Load applied: the load generator's connections per case"):]
    row = next(line for line in table.splitlines() if line.startswith("| case 18: 500 users"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "500" and cells[2:] and all(c == "42.5" for c in cells[2:]), row


def the_run(run) -> str:
    return section((write_report(run) / "report.md").read_text(), "## The run", "\n## ")


def test_each_arm_shows_the_runtime_its_process_loaded_its_processes_and_connections(results):
    text = the_run(results / VARIANTS_RUN)
    assert "| Arm | Variant | Type | Runtime | Processes | Connections | Declared deviations |" in text
    assert "| ASP.NET Core (mvc) | mvc | ? | .NET 10.0.12 | 1 | 100 | 0 |" in text
    assert "| Express.js | default | ? | Node.js v20.20.2 | 1 | 100 | 0 |" in text
    assert "No arm's framework.json declares a deviation from the contract" in text


def test_a_declared_deviation_is_listed_with_its_arm_check_request_why_and_upstream(results):
    run = results / VARIANTS_RUN
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["frameworks"]["express"]["deviations"] = [DEVIATION]
    (run / "manifest.json").write_text(json.dumps(manifest))
    text = the_run(run)
    assert "| Express.js | default | ? | Node.js v20.20.2 | 1 | 100 | 1 |" in text
    assert ("- Express.js (express), bad-input, `graphql commentById id literal 2147483648 [json]`: the library "
            "validates an ID literal as a 32-bit Int (upstream: https://github.com/graph-gophers/graphql-go/issues/333)"
            ) in text
    assert "No arm's framework.json declares" not in text
