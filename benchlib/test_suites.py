"""benchlib/suites.py's suites: flake8, pytest and the implementations' own side by side, the timing
tests alone after them. flake8 runs over the repository with its .flake8, and that config really
checks: the default rules at 120 columns, the dependency and output folders skipped. flake8 runs on
a few files of a temporary tree, so the file takes a second or two."""
import os
import subprocess
import sys
from pathlib import Path

from benchlib.paths import ROOT, TESTBED_HOME
from benchlib.suites import PYTEST, Suite, pytest_suites, side_by_side

CONFIG = ROOT / ".flake8"
# Folders of dependencies and outputs the config must skip, wherever they sit.
SKIPPED = ["node_modules", ".testbed", "results", "bin", "obj"]


def test_flake8_and_pytest_run_beside_the_rest_and_the_timing_tests_alone_with_the_extra_arguments():
    suites = pytest_suites(["-k", "seed"])
    assert suites[0] == Suite("flake8", [sys.executable, "-m", "flake8"], ROOT)
    assert [(s.name, s.alone) for s in suites[1:]] == [("pytest", False), ("pytest, tests alone", True)]
    assert all(s.command[-2:] == ["-k", "seed"] for s in suites[1:])


def test_suites_side_by_side_each_print_their_whole_output_after_pytest_s_and_name_who_failed(capfd):
    script = "import sys, time; time.sleep(float(sys.argv[1])); print(sys.argv[2]); sys.exit(int(sys.argv[3]))"
    suites = [Suite("slow", [sys.executable, "-c", script, "0.5", "slow line", "1"], ROOT),
              Suite(PYTEST, [sys.executable, "-c", script, "0.2", "pytest line", "0"], ROOT),
              Suite("quick", [sys.executable, "-c", script, "0", "quick line", "0"], ROOT)]
    assert side_by_side(suites, dict(os.environ)) == ["slow"]
    out = capfd.readouterr().out
    # pytest's streams first; the others follow in the listed order, each under its heading.
    assert [line for line in out.splitlines() if line] == [
        f"== pytest: {' '.join(suites[1].command)}", "pytest line",
        f"== slow: {' '.join(suites[0].command)}", "slow line",
        f"== quick: {' '.join(suites[2].command)}", "quick line"]


def test_the_config_finds_unused_imports_and_long_lines_and_skips_dependencies(tmp_path):
    assert CONFIG.is_file()
    code = tmp_path / "pkg"
    code.mkdir()
    (code / "unused.py").write_text("import os\n")
    (code / "long.py").write_text(f"WIDE = \"{'x' * 111}\"\nWIDER = \"{'x' * 111}\"\n")  # 120, then 121 columns
    for folder in SKIPPED:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "dep.py").write_text("import os\n")
    found = subprocess.run([sys.executable, "-m", "flake8", "--config", str(CONFIG), "."], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 1, found.stderr
    assert sorted(found.stdout.splitlines()) == [
        "./pkg/long.py:2:121: E501 line too long (121 > 120 characters)",
        "./pkg/unused.py:1:1: F401 'os' imported but unused"]


def test_an_implementation_s_suite_stops_its_own_database_and_not_the_one_pytest_uses(tmp_path, forum):
    # As the aspnet and Node suites' outage tests do, beside pytest's tests on the shared server:
    # without DB_HOST, which ./testbed test sets and which would make ./testbed take it for external.
    seen = tmp_path / "seen"
    suite = Suite("outage", f'echo "$TESTBED_HOME $DB_PORT" > {seen} && env -u DB_HOST ./testbed db stop', ROOT,
                  own_database=True)
    env = {**os.environ, "TESTBED_DB_MANAGED": "1"}
    assert suite.run(env)
    home, port = seen.read_text().split()
    assert Path(home) == TESTBED_HOME / "suites" / "outage" and int(port) != forum.port
    forum.ping(reconnect=False)  # the shared server still answers
    status_env = {k: v for k, v in env.items() if k != "DB_HOST"}
    stopped = subprocess.run([str(ROOT / "testbed"), "db", "status"], capture_output=True, text=True, timeout=60,
                             env={**status_env, "TESTBED_HOME": home, "TESTBED_DB_PORT": port})
    assert stopped.returncode == 3 and stopped.stdout.startswith("db: stopped"), stopped.stdout
