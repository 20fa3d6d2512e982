"""The report's Load engines section, on the engines fixture (the smoke run with two JMeter remote
engines added): engine A, 10.231.7.2:1099, 2 cores, mean CPU 100-190 % of one core over the 12 ok
items, saturated (>= 180) in 3; engine B, 10.231.7.3:1099, 4 cores, 40, 45, … 95 %, never
saturated. The 4 excluded items (ASP.NET Core's GraphQL) ran no load and have no `engines`."""
import json

import pandas as pd
import pytest

from analysis import engines
from analysis.conftest import HAND_RUN
from analysis.load import ResultFileError, load_run
from analysis.report import write_report

ENGINES_RUN = "20250801-120000-engines"
A, B = "10.231.7.2:1099", "10.231.7.3:1099"


def item(run_dir, framework, api, case, iteration):
    return run_dir / framework / api / f"case-{case:02d}" / f"iter-{iteration:02d}" / "run.json"


def edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def recorded(run_dir, endpoint, field):
    """The field of one engine summed over every item's run.json, read here without analysis."""
    return sum(e[field] for p in run_dir.glob("*/*/case-*/iter-*/run.json")
               for e in json.loads(p.read_text()).get("engines", []) if e["endpoint"] == endpoint)


@pytest.fixture
def engines_dir(results):
    return results / ENGINES_RUN


def test_section_and_csv_give_each_engines_figures(engines_dir):
    report = write_report(engines_dir)
    table = pd.read_csv(report / "tables" / "engines.csv").set_index("endpoint")
    assert list(table.index) == [A, B]  # the manifest's order
    a, b = table.loc[A], table.loc[B]
    assert (a["host"], a["jmeter"], a["java"], a["cores"], a["ssl"]) == ("loadgen-a", "5.6.3", "17.0.13", 2, "on")
    assert (b["host"], b["java"], b["cores"], b["ssl"]) == ("loadgen-b", "21.0.5", 4, "off")
    # A: median of 100…190 is (150 + 150) / 2 = 150 % of one core, 75 % of its 2 cores; max 190 -> 95;
    # peak max 200 -> 100. B: median (65 + 70) / 2 / 4 = 16.875, max 95 / 4, peak max 115 / 4.
    assert (a["items"], a["saturated_items"], a["threads"]) == (12, 3, 60)
    assert (a["cpu_mean_median_pct_of_cores"], a["cpu_mean_max_pct_of_cores"],
            a["cpu_peak_max_pct_of_cores"]) == (75.0, 95.0, 100.0)
    assert (b["items"], b["saturated_items"], b["threads"]) == (12, 0, 60)
    assert (b["cpu_mean_median_pct_of_cores"], b["cpu_mean_max_pct_of_cores"],
            b["cpu_peak_max_pct_of_cores"]) == (16.875, 23.75, 28.75)
    assert a["samples"] == recorded(engines_dir, A, "samples") == 1328
    assert b["samples"] == recorded(engines_dir, B, "samples") == 1320

    text = (report / "report.md").read_text()
    section = text[text.index("## Load engines"):text.index("## How to read this report")]
    assert text.index("## The run") < text.index("## Load engines")
    assert "the apps listened on 10.231.7.1 (settings.bind_address)" in section
    assert "at or above 90 % of its cores" in section and "add engines or use bigger machines" in section
    assert f"Saturated: {A} in 3 of 12 items." in section
    assert f"| {A} | loadgen-a | 5.6.3 | 17.0.13 | 2 | on | 12 | 75.0 | 95.0 | 100.0 | 3 | 60 | 1328 |" in section
    assert f"| {B} | loadgen-b | 5.6.3 | 21.0.5 | 4 | off | 12 | 16.9 | 23.8 | 28.8 | 0 | 60 | 1320 |" in section
    page = (report / "index.html").read_text()
    assert '<h2 id="load-engines">Load engines</h2>' in page and "<td>loadgen-a</td>" in page


def test_a_run_without_engines_has_no_section(run_dir, fixture_report):
    assert engines.engine_table(load_run(run_dir)) is None
    report = fixture_report(HAND_RUN)
    assert "Load engines" not in (report / "report.md").read_text()
    assert "Load engines" not in (report / "index.html").read_text()
    assert not (report / "tables" / "engines.csv").exists()
    assert run_dir.name == HAND_RUN


def test_an_item_without_engines_or_with_null_figures_is_skipped(engines_dir):
    # A's saturated item express/rest/18/2 lost its engines; B's figures are null in another item
    edit(item(engines_dir, "express", "rest", 18, 2), lambda d: d.pop("engines"))
    edit(item(engines_dir, "aspnet", "rest", 1, 1),
         lambda d: d["engines"][1].update(cpu_mean_pct=None, cpu_peak_pct=None))
    table = engines.engine_table(load_run(engines_dir)).set_index("endpoint")
    assert (table.loc[A, "items"], table.loc[A, "saturated_items"], table.loc[A, "threads"]) == (11, 2, 55)
    assert table.loc[A, "cpu_mean_max_pct_of_cores"] == 95.0  # 190, express/graphql/18/2, is still there
    # B lost 95 (express/rest/18/2) and 40 (aspnet/rest/1/1): 45 … 90 remain
    assert (table.loc[B, "items"], table.loc[B, "threads"]) == (10, 50)
    assert table.loc[B, "cpu_mean_max_pct_of_cores"] == 90 / 4
    assert table.loc[B, "cpu_mean_median_pct_of_cores"] == (65 + 70) / 2 / 4


def test_a_malformed_engines_entry_names_its_file(engines_dir):
    path = item(engines_dir, "express", "rest", 1, 1)
    edit(path, lambda d: d["engines"][0].update(cpu_mean_pct="high"))
    with pytest.raises(ResultFileError, match="cpu_mean_pct must be a number") as caught:
        engines.engine_table(load_run(engines_dir))
    assert str(path) in str(caught.value)
