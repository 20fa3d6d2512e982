"""Memory from fresh processes in the verdicts' cells (analysis.memory.for_verdicts), on the checked
smoke run with a second process per arm and case, as the quick profile's --memory-rounds 2 gives."""
import shutil

import numpy as np
import pandas as pd

from analysis import cell_outcomes, memory, verdicts
from analysis.claims import CLAIMS
from analysis.conftest import FIXTURE_RESULTS
from analysis.load import load_run
from analysis.stats import benjamini_hochberg

CHECKED_RUN = "20261125-063724-smoke"
OVERALL = next(c for c in CLAIMS if c.id == "overall-express-better-in-most-cases")  # time, CPU and memory


def two_processes(tmp_path):
    run_dir = tmp_path / CHECKED_RUN
    shutil.copytree(FIXTURE_RESULTS / CHECKED_RUN, run_dir)
    first = pd.read_csv(run_dir / "memory.csv")
    drift = first["framework"].map({"aspnet": 1.04, "express": 0.98}) * np.linspace(0.97, 1.03, len(first))
    pd.concat([first, first.assign(iteration=2, hwm_mb=first["hwm_mb"] * drift)]).to_csv(
        run_dir / "memory.csv", index=False)
    return load_run(run_dir)


def test_fresh_memory_cells_pay_benjamini_hochberg_as_the_other_cells_of_their_claim_do(tmp_path):
    run = two_processes(tmp_path)
    cells = memory.for_verdicts(run, verdicts.report_cells(run))
    fresh = cells[(cells["metric"] == "rss_peak_mb") & cells["ratio_note"].str.startswith(memory.NOTE)]
    assert not fresh.empty and fresh["p"].notna().all() and fresh["q"].notna().all()
    # One family: every cell with a q, the fresh ones with their own p among them, adjusted together
    # (the Little's-law means take their throughput's q and are not counted twice).
    family = cells["q"].notna() & (cells["metric"] != "littles_mean_ms")
    assert np.allclose(cells.loc[family, "q"], benjamini_hochberg(cells.loc[family, "p"].astype(float)))
    assert (cells.loc[family, "significant"] == (cells.loc[family, "q"] < 0.05)).all()
    # In a "most" claim of time, CPU and memory every cell reads its significance off q alike.
    part = cell_outcomes.claim_cells(OVERALL, cells)
    judged = part[part["judged"].astype(bool)]
    assert "rss_peak_mb" in set(judged["metric"]) and judged["q"].notna().all()
