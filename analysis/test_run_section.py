"""The run's section of the report, on the hand-made fixture run: the load applied per case."""
from analysis.report import write_report


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
