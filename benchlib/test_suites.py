"""benchlib/suites.py's list of suites: flake8 runs first, over the repository with its .flake8, and
that config really checks: the default rules at 120 columns, the dependency and output folders
skipped. flake8 runs on a few files of a temporary tree, so the file takes a second or two."""
import subprocess
import sys

from benchlib.paths import ROOT
from benchlib.suites import pytest_suites

CONFIG = ROOT / ".flake8"
# Folders of dependencies and outputs the config must skip, wherever they sit.
SKIPPED = ["node_modules", ".testbed", "results", "bin", "obj"]


def test_flake8_runs_first_from_the_root_and_pytest_alone_gets_the_extra_arguments():
    suites = pytest_suites(["-k", "seed"])
    assert suites[0] == ("flake8", [sys.executable, "-m", "flake8"], ROOT)
    assert [name for name, _, _ in suites[1:]] == ["pytest", "pytest, tests alone"]
    assert all(cmd[-2:] == ["-k", "seed"] for _, cmd, _ in suites[1:])


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
