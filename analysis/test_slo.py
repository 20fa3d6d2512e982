"""`--slo pNN:MS`: what it accepts, and a bad value as one line before anything runs."""
import subprocess
from pathlib import Path

import pytest

from analysis import slo

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("text, percentile, ms, column", [
    ("p99:100", "99", 100.0, "p99"), ("p99.9:250", "99.9", 250.0, "p999"), ("P50:2.5", "50", 2.5, "p50"),
    (" p95:40 ", "95", 40.0, "p95")])
def test_pnn_ms_names_a_percentile_and_milliseconds(text, percentile, ms, column):
    objective = slo.parse(text)
    assert (objective.percentile, objective.ms, objective.column) == (percentile, ms, column)


def test_the_default_is_p99_at_most_100_ms():
    assert str(slo.parse(slo.DEFAULT)) == "p99 ≤ 100 ms"
    assert slo.label("p999") == "p99.9"


@pytest.mark.parametrize("text", ["p98:100", "99:100", "p99", "p99:", "p99:abc", "p99:0", "p99:-5", "p99:inf",
                                  "q99:100", ""])
def test_anything_else_says_how_to_write_it(text):
    with pytest.raises(slo.BadObjective, match="write pNN:MS, NN one of 50, 90, 95, 99, 99.9"):
        slo.parse(text)


@pytest.mark.parametrize("command", [["report"], ["run", "--apis", "rest", "--cases", "1"]])
def test_a_bad_slo_is_one_line_and_exit_2_before_any_work(command, tmp_path):
    # run would set up, start the database and measure; the objective is checked before all that,
    # so this returns at once and writes nothing.
    done = subprocess.run([str(ROOT / "testbed"), *command, "--slo", "p98:100", "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["testbed: --slo p98:100: write pNN:MS, NN one of 50, 90, 95, 99, 99.9 and "
                                        "MS a positive number of milliseconds, e.g. p99:100"]
    assert list(tmp_path.iterdir()) == []
