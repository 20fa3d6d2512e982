"""`./testbed report` finds runs where `./testbed run` writes them."""
import os
import shutil
import subprocess

from analysis.conftest import FIXTURE_RESULTS
from benchlib.paths import ROOT

RUN = "20261125-083652-smoke"


def test_report_reads_the_results_folder_testbed_results_names(tmp_path):
    shutil.copytree(FIXTURE_RESULTS / RUN, tmp_path / RUN)
    env = {**os.environ, "TESTBED_RESULTS": str(tmp_path)}
    done = subprocess.run([str(ROOT / "testbed"), "report"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / RUN / "report" / "index.html").exists()
    assert done.stdout.strip() == f"report: {tmp_path / RUN / 'report' / 'index.html'}"
