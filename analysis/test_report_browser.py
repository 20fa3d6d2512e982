"""The report as a reader meets it: a fixture run's index.html opened in headless Chromium (Debian's
`chromium`, driven by playwright-core from analysis/browser/, both installed by ./testbed setup) at a
laptop's 1280x800 and a phone's 390x844. Every figure loads, nothing logs an error, the page never
scrolls sideways (wide tables and figures scroll inside their own box), every in-page link brings
its target on screen, and the bottom line starts on the first screen (with the summary figure on a
laptop's). The screenshots are left in the test's tmp folder for a person to look at."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.conftest import FIXTURE_RESULTS
from analysis.report import write_report

BROWSER_DIR = Path(__file__).parent / "browser"
CHROMIUM = Path("/usr/bin/chromium")
SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
# A checked run with three frameworks (two comparisons, one-core notes, the trust section), and an
# older paired run with every case of the study's pair measured.
RUNS = ["20261125-082957-smoke", "20250601-120000-quick"]


@pytest.fixture(scope="module", params=RUNS)
def seen(request, tmp_path_factory):
    """What check_report.mjs found on the run's report, per screen size, and the report."""
    installed = {"chromium": CHROMIUM.is_file(), "node": shutil.which("node"),
                 "playwright-core": (BROWSER_DIR / "node_modules" / "playwright-core").is_dir()}
    missing = [what for what, there in installed.items() if not there]
    assert not missing, f"{', '.join(missing)} not installed: run ./testbed setup"
    where = tmp_path_factory.mktemp(request.param)
    shutil.copytree(FIXTURE_RESULTS / request.param, where / request.param)
    report = write_report(where / request.param)
    done = subprocess.run(["node", "check_report.mjs", str(report / "index.html"), str(where)], cwd=BROWSER_DIR,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), report


@pytest.mark.parametrize("size", SIZES)
def test_every_figure_loads_and_nothing_logs_an_error(seen, size):
    found, report = seen
    images = found[size]["images"]
    assert len(images) == len(list((report / "figures").iterdir())) > 0
    assert [i["alt"] for i in images if not i["loaded"]] == []
    assert found[size]["console_errors"] == []


@pytest.mark.parametrize("size", SIZES)
def test_the_page_never_scrolls_sideways(seen, size):
    found = seen[0][size]
    assert (found["viewport_width"], found["page_width"]) == (SIZES[size][0], SIZES[size][0])
    assert found["overflowing"] == []


@pytest.mark.parametrize("size", SIZES)
def test_every_in_page_link_lands_on_its_target(seen, size):
    found = seen[0][size]
    assert [link["href"] for link in found["links"] if not link["target"]] == []
    height = SIZES[size][1]
    assert [land["href"] for land in found["links_landing"] if not 0 <= round(land["top"]) < height] == []


@pytest.mark.parametrize("size", SIZES)
def test_the_bottom_line_starts_on_the_first_screen(seen, size):
    found = seen[0][size]
    bottom_line, height = found["bottom_line"], SIZES[size][1]
    assert bottom_line is not None, "no element with id the-bottom-line"
    assert 0 <= bottom_line["heading_top"] < bottom_line["first_line_bottom"] <= height
    assert "requests per second" in bottom_line["text"]
    if size == "laptop":  # a laptop's first screen holds the whole first sentence and the figure's top
        assert bottom_line["paragraph_bottom"] <= height and found["summary_figure_top"] < height
