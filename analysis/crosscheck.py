"""The other load generator's ratio beside the run's own (crosscheck.csv, collect/passes/extra_passes.py):
the profile's cross-check cases (1, 13 and 18; the quick profile's 1 and 18) of each API, every arm,
in interleaved rounds at the case's concurrency, measured
again by the other load generator (JMeter when wrk measured the run, wrk when JMeter did). From
schema 4 its rows are whole items, judged by the same checks: only rounds whose throughput is valid
for both arms give a ratio. Where the two generators' valid ratios differ, the one with less
headroom set its ratio. Before schema 4 the rows are wrk's figures only, every round counted."""
import numpy as np
import pandas as pd

from analysis.load import Run, run_table
from analysis.paired import paired
from analysis.validity import check_names
from benchlib.results import CROSSCHECK, CROSSCHECK_V3_COLUMNS, SUMMARY_COLUMNS

NAMES = {"wrk": "wrk", "jmeter": "JMeter"}
# Two load generators' ratios on the same cell agree when they are within this factor of each other.
AGREEMENT = 1.15
COLUMNS = ["tool", "api", "case", "ratio", "ratio_low", "ratio_high", "ratio_note", "rounds", "measured", "per_round"]


def rows(run: Run) -> tuple[pd.DataFrame | None, str]:
    """crosscheck.csv as (framework, api, case, round, tool, throughput_rps, usable) rows."""
    if run.manifest.schema_version < 4:
        found, why = run_table(run.dir / CROSSCHECK, CROSSCHECK_V3_COLUMNS)
        return (None, why) if found is None else (found.assign(usable=True), "")
    found, why = run_table(run.dir / CROSSCHECK, SUMMARY_COLUMNS)
    if found is None:
        return None, why
    return found.assign(tool=found["loadgen"], usable=(found["status"] == "ok") & (found["validity"] == "valid")), ""


def ratios(run: Run, numerator: str, denominator: str) -> tuple[pd.DataFrame, str]:
    """Per tool, api and case: the throughput ratio numerator / denominator over the rounds both
    arms measured validly (geometric mean, paired t interval, as the answer), how many rounds were
    measured, and the per-round ratios; with why there is none when the run has no crosscheck.csv."""
    found, why = rows(run)
    if found is None:
        return pd.DataFrame(columns=COLUMNS), why
    records = []
    for (tool, api, case), cell in found.groupby(["tool", "api", "case"]):
        a, b = (cell[(cell["framework"] == arm) & cell["usable"]].set_index("round")["throughput_rps"]
                for arm in (numerator, denominator))
        measured = len(set(cell["round"]))
        both = a.index.intersection(b.index)
        if both.empty:
            records.append({"tool": tool, "api": api, "case": int(case), "rounds": 0, "measured": measured,
                            "ratio_note": "no round in which both arms' throughput was valid"})
            continue
        p = paired(a[both], b[both])
        records.append({"tool": tool, "api": api, "case": int(case), "ratio": p.ratio.value,
                        "ratio_low": p.ratio.low, "ratio_high": p.ratio.high, "ratio_note": p.ratio.reason,
                        "rounds": p.n, "measured": measured,
                        "per_round": ", ".join(f"{v:.2f}" for v in a[both] / b[both])})
    return pd.DataFrame.from_records(records, columns=COLUMNS), ""


def agree(main: float | None, other: float | None) -> bool | None:
    """Whether two load generators' ratios agree within AGREEMENT (None: one is missing)."""
    if main is None or other is None or pd.isna(main) or pd.isna(other):
        return None
    return bool(abs(np.log(main / other)) <= np.log(AGREEMENT))


def headroom(run: Run, main_tool: str) -> str:
    """Why the cross-check's cells have few or no ratios: per load generator whose items were not all
    valid, what its own checks said and the CPU figures behind them ("" before schema 4, whose rows
    carry no checks)."""
    found, _ = rows(run)
    if found is None or run.manifest.schema_version < 4:
        return ""
    return " ".join(text for tool, items in found.groupby("tool")
                    if (text := checked(NAMES.get(tool, tool), items, main_tool)))


def checked(name: str, items: pd.DataFrame, main_tool: str) -> str:
    """One paragraph on one load generator's cross-check items (summary.csv's columns): how many its
    checks passed, its CPU per request against the servers' and its share of the machine, and, when
    most were bound, that its ratio cannot check `main_tool`'s here."""
    counts = items["validity"].value_counts()
    if counts.get("valid", 0) == len(items):
        return ""
    own = items["loadgen_cpu_ms_per_req"].dropna()
    server = (items["app_cpu_ms_per_req"] + items["db_cpu_ms_per_req"]).dropna()
    share = items["loadgen_share_pct"].dropna()
    text = (f"{name}'s items in the cross-check: {counts.get('valid', 0)} of {len(items)} valid, "
            f"{counts.get('bound', 0)} bound, {counts.get('invalid', 0)} invalid by its own checks.")
    if not own.empty and not server.empty:
        text += (f" It spent {own.min():.2f}-{own.max():.2f} ms of CPU per request (median {own.median():.2f}) "
                 f"where the servers spent {server.min():.2f}-{server.max():.2f} (median {server.median():.2f}, "
                 "app and database)")
        text += (f", and held {share.min():.0f}-{share.max():.0f} % of the machine (median {share.median():.0f} %)."
                 if not share.empty else ".")
    bound = [check_names(r) for r in items.loc[items["validity"] == "bound", "validity_reasons"]]
    if bound:
        held = sum("loadgen_share" in names for names in bound)
        costly = sum("loadgen_cost" in names for names in bound)
        waited = sum("underloaded" in names for names in bound)
        text += (f" Of its bound items, {held} held too large a share of a busy machine, {costly} spent too "
                 f"large a share of the servers' CPU per request on their cores, and in {waited} the "
                 "connections waited in it (fewer than half of them in flight at the servers).")
    if counts.get("bound", 0) > len(items) / 2:
        text += (f" With most of its items bound, its ratio cannot check {main_tool}'s here: it needs enough "
                 "cores the servers do not share"
                 + (", as remote engines on other machines give it (`./testbed run --engines`)."
                    if name == "JMeter" else ": a machine with more of them."))
    return text
