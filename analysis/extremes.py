"""Minimum and maximum response times on equal sample counts, for the study's min/max claims.

The extremes of a sample depend on its size: the framework that completed more requests in the
same window (ASP.NET Core often has 2-3x Express.js's: 22,579 against 8,762 in one GraphQL case)
shows a lower minimum and a higher maximum by sampling alone. So both sides are compared at the same
count m, the smaller side's: each side's value is the expected minimum (maximum) of m samples drawn
at random without replacement from its measured samples. The expectation is exact, from the sorted
samples (x_(1) <= … <= x_(N)): the maximum of m draws is x_(i) with probability
C(i-1, m-1) / C(N, m), so no random draw, no seed, and the same number every time. For the side
with m samples it is its own minimum (maximum).

In a paired run m is the smaller count of the round's pair; in any other the smallest count of the
case's ok iterations on either side. The per-iteration values are then compared like any metric
(analysis.tables.compare_metric: paired rounds or independent groups, response times by their own
verdict, a bound one a bound), as `min_ms_equal_n` and `max_ms_equal_n`.
An item without its JTL (fixtures trimmed to one case) has no value.

A JTL's elapsed times are whole milliseconds (JMeter's and wrk's rows alike), so an expected
minimum under RESOLUTION_MS is mostly zeros: the ratio of two of them compares the rounding (a
default run's REST case 1 gave A/E 0.00 with an interval up to 10^165). Such a cell is not judged
and says why.
"""
import math

import numpy as np
import pandas as pd
from scipy.special import gammaln

from analysis.claims import MAX, MIN
from analysis.load import Run, load_jtl
from analysis.tables import CASE_COLUMNS, SIGNIFICANCE_COLUMNS, compare_cells, compare_metric, ok_rows
from benchlib.cases import STUDY_PAIR

RESOLUTION_MS = 1.0


def expected_extreme(values, m: int, largest: bool) -> float:
    """The expected maximum (largest) or minimum of m draws without replacement from values."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if not 1 <= m <= n:
        raise ValueError(f"cannot draw {m} of {n} samples")
    if not largest:   # the minimum of the draws is minus the maximum of the negated samples
        return -expected_extreme(-x, m, True)
    i = np.arange(m, n + 1)  # ranks that can be the maximum of m draws
    log_w = (gammaln(i) - gammaln(m) - gammaln(i - m + 1)) - (gammaln(n + 1) - gammaln(m + 1) - gammaln(n - m + 1))
    return float(np.sum(x[m - 1:] * np.exp(log_w)))


def elapsed(run: Run, row) -> np.ndarray | None:
    path = run.cell_dir(row.framework, row.api, row.case, row.round) / "results.jtl"
    return load_jtl(path)["elapsed"].to_numpy() if path.is_file() else None


# What compare_metric reads of an item beside its values: its verdicts and what an unfair one left.
CARRIED = ["validity", "latency_validity", "latency_reasons", "unserved", "threads"]


def item_values(run: Run) -> pd.DataFrame:
    """Per usable item of the study's two frameworks: min_ms_equal_n and max_ms_equal_n, with the
    item's verdicts (CARRIED)."""
    ok = ok_rows(run)
    ok = ok[ok["framework"].isin(STUDY_PAIR)]
    samples = {(r.framework, r.api, r.case, r.round): elapsed(run, r) for r in ok.itertuples()}
    paired = run.manifest.paired
    records = []
    for r in ok.itertuples():
        mine = samples[(r.framework, r.api, r.case, r.round)]
        peers = [v for (f, api, case, round_), v in samples.items()
                 if api == r.api and case == r.case and (round_ == r.round or not paired) and v is not None]
        m = min(len(v) for v in peers) if mine is not None and peers else 0
        records.append({"framework": r.framework, "api": r.api, **{c: getattr(r, c) for c in CASE_COLUMNS},
                        "round": r.round, **{c: getattr(r, c) for c in CARRIED},
                        MIN: expected_extreme(mine, m, False) if m else math.nan,
                        MAX: expected_extreme(mine, m, True) if m else math.nan})
    return pd.DataFrame.from_records(records, columns=["framework", "api", *CASE_COLUMNS, "round", *CARRIED,
                                                       MIN, MAX])


def cells(run: Run) -> pd.DataFrame:
    """The significance table's rows (analysis.tables.significance's columns) for the two
    equal-count metrics, ASP.NET Core over Express.js."""
    values = item_values(run)
    a_name, b_name = STUDY_PAIR
    cells = []
    for (api, *case), group in values.groupby(["api", *CASE_COLUMNS]):
        a, b = group[group["framework"] == a_name], group[group["framework"] == b_name]
        cells += [({"api": api, **dict(zip(CASE_COLUMNS, case)), "metric": metric}, a, b) for metric in (MIN, MAX)
                  if not (a.empty or b.empty or a[metric].isna().all() or b[metric].isna().all())]
    # A minimum under the resolution is not judged, so its spread (of the rounding) moderates no other.
    smallest = [min(a[MIN].min(), b[MIN].min()) if key["metric"] == MIN else math.inf for key, a, b in cells]
    judged = iter(compare_cells(run, [c for c, low in zip(cells, smallest) if low >= RESOLUTION_MS], STUDY_PAIR))
    records = []
    for (key, a, b), low in zip(cells, smallest):
        found = next(judged) if low >= RESOLUTION_MS else \
            under_resolution(compare_metric(run, a, b, MIN, STUDY_PAIR), low)
        records.append({**key, **found, f"{a_name}_mean": found["a_mean"], f"{b_name}_mean": found["b_mean"],
                        f"{a_name}_n": found["a_n"], f"{b_name}_n": found["b_n"]})
    return pd.DataFrame.from_records(records, columns=SIGNIFICANCE_COLUMNS)


def under_resolution(found: dict, smallest: float) -> dict:
    why = (f"under the response times' {RESOLUTION_MS:g} ms resolution: an expected minimum of "
           f"{abs(smallest):.2f} ms is mostly zeros")  # abs: the minimum of zeros comes back as -0.0
    return {**found, "test": "", "p": None, "judged": False, "significant": False, "sign": 0,
            "result": f"not judged: {why}", "ratio_low": None, "ratio_high": None, "ratio_note": why,
            "log_se": None, "df": None}
