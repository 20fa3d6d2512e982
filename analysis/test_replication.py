"""Our numbers beside the study's: unit normalisation and the ratio table."""
import math

from analysis import replication, tables
from analysis.load import load_run
from analysis.study import load_study


def test_side_by_side_normalises_cpu_and_memory(run_dir):
    run = load_run(run_dir)
    agg = tables.aggregate(run)
    side = replication.side_by_side(agg, run.cores, load_study())
    at = side.set_index(["api", "case", "framework", "study_metric"])
    cpu = at.loc[("rest", 14, "aspnet", "cpu_peak_pct")]
    assert math.isclose(cpu["study"], 333.90 / 4)
    assert math.isclose(cpu["mean"], (168.1 + 166.2 + 168.2 + 169.9) / 4 / 2)
    assert cpu["unit"] == "% of machine"
    mem = at.loc[("rest", 14, "aspnet", "mem_peak_pct")]
    assert math.isclose(mem["study"], 1.52 * 8192 / 100)
    assert math.isclose(mem["mean"], (102.34 + 102.934 + 102.516 + 102.69) / 4)
    assert at.loc[("rest", 2, "aspnet", "cpu_peak_pct")]["n"] == 0  # not in this run
    ratio = replication.ratios(side).set_index(["api", "case", "study_metric", "unit"])
    assert math.isclose(ratio.loc[("rest", 14, "cpu_peak_pct", "% of machine"), "study_ratio"], 333.90 / 147.48)
