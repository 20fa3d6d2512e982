"""The report's "The machine and the load" section: which load generator measured and why, where it
ran (the layout) and why, the reference work that characterises the machine (reference.json), and
each arm's CPU per request split into the app's, the database's, the load generator's and the rest,
naming what bounds the capacity, and how much of each arm's rate the load generator took where it
shared full cores with it. A ratio that differs on another machine can then be traced to the
machine (a slower database per query, a load generator that costs more) rather than the frameworks.
Runs before schema 4 have none of it, and no section."""
from pathlib import Path

import pandas as pd

from analysis import answer, validity
from analysis.load import Run, run_table
from analysis.tables import report_order
from benchlib.results import CEILING, CEILING_COLUMNS, REFERENCE, ResultFileError, load_reference

NAMES = {"wrk": "wrk", "jmeter": "JMeter"}
# A machine this busy (all its processes, % of all cores) has no CPU to spare: its cores bound the
# rate; an app at this share of one core while the machine has some is held by one busy thread.
SATURATED = 0.90


def loadgen_name(run: Run) -> str:
    return NAMES.get(run.manifest.loadgen_tool, "JMeter")


def load_sentence(run: Run) -> str:
    """One sentence for the report's first paragraph: the load generator and the layout, each with
    why (runs before schema 4: JMeter, as they were)."""
    chosen, layout = run.manifest.loadgen, run.manifest.layout
    if chosen is None:
        return "The load came from JMeter."
    where = ("from remote engines" if run.manifest.engines else
             "on a CPU set of its own" if layout and layout.applied else "sharing every core with the apps")
    text = f"The load came from {NAMES.get(chosen.tool, chosen.tool)} {where}"
    if chosen.why:
        text += f" (load generator: {chosen.why}"
        text += f"; layout: {layout.note})" if layout and layout.note else ")"
    return text + "."


def reference_table(reference: dict, run: Run) -> pd.DataFrame:
    rows = []
    for arm, entry in reference["apps"].items():
        for key, label in (("cheapest", "cheapest answer (404)"), ("rest_case_1", "REST case 1")):
            cell = entry.get(key) or {}
            rows.append({"Arm": run.display_name(arm), "Request": label,
                         "Throughput (req/s)": cell.get("throughput_rps"),
                         "App CPU (ms/req)": cell.get("app_cpu_ms_per_req"),
                         "Database CPU (ms/req)": cell.get("db_cpu_ms_per_req"),
                         "Load generator CPU (ms/req)": cell.get("loadgen_cpu_ms_per_req")})
    return pd.DataFrame(rows)


def database_text(reference: dict) -> str:
    db = reference["database"]
    if not db.get("measured"):
        return f"The database's CPU per query was not measured: {db.get('why', 'no figure')}."
    shapes = "; ".join(f"{name} {entry['cpu_ms_per_query']} ms" for name, entry in db["shapes"].items())
    return f"The database's CPU per query, one client on this machine: {shapes}."


def shares_cores(run: Run) -> bool:
    """Whether the load generator ran on the apps' cores: neither remote engines nor a CPU set of its own."""
    layout = run.manifest.layout
    return not run.manifest.engines and not (layout and layout.applied)


def cpu_split(run: Run) -> pd.DataFrame:
    """Per arm, API and case, over the items whose throughput is valid: the mean CPU per request of
    the app, the database, the load generator and the rest of the machine (ms), the machine's busy
    share, what bounds the capacity, and the share of the rate the load generator took
    (`loadgen_taken`: its part of the CPU per request where it shared cores that were full, since
    there every CPU second it spent was one the server could have served with; 0 where the cores
    had room or it ran elsewhere)."""
    items = validity.judged(run)
    items = items[items["validity"].isin(("", validity.VALID))].copy()
    columns = ["framework", "api", "case", "rounds", "app_ms", "db_ms", "loadgen_ms", "other_ms", "total_ms",
               "machine_busy", "bound_by", "loadgen_taken"]
    if items.empty:
        return pd.DataFrame(columns=columns)
    per_request = items["window_s"] * 1000 / items["samples"] / 100
    items["other_ms"] = items["other_cpu_pct"] * per_request
    items["busy"] = (items[["cpu_mean_pct", "db_cpu_mean_pct", "loadgen_cpu_mean_pct", "other_cpu_pct"]]
                     .fillna(0).sum(axis=1)) / (100 * run.cores)
    records, shared = [], shares_cores(run)
    for (arm, api, case), cell in items.groupby(["framework", "api", "case"]):
        parts = {"app_ms": cell["app_cpu_ms_per_req"].mean(), "db_ms": cell["db_cpu_ms_per_req"].mean(),
                 "loadgen_ms": cell["loadgen_cpu_ms_per_req"].mean(), "other_ms": cell["other_ms"].mean()}
        total = sum(v for v in parts.values() if pd.notna(v))
        busy, app_core = cell["busy"].mean(), cell["cpu_mean_pct"].mean() / 100
        records.append({"framework": arm, "api": api, "case": case, "rounds": len(cell),
                        **{k: round(v, 4) if pd.notna(v) else None for k, v in parts.items()},
                        "total_ms": round(total, 4), "machine_busy": round(busy, 3),
                        "bound_by": bound_by(parts, total, busy, app_core, run.cores),
                        "loadgen_taken": round(parts["loadgen_ms"] / total, 3)
                        if shared and busy >= SATURATED and total and pd.notna(parts["loadgen_ms"]) else 0.0})
    table = pd.DataFrame.from_records(records, columns=columns)
    return table.sort_values(["framework", "api", "case"], key=report_order, ignore_index=True)


def bound_by(parts: dict, total: float, busy: float, app_core: float, cores: int) -> str:
    """What holds the rate: the machine's cores when they are full (with the largest share of a
    request's CPU named), else one busy thread of the app, else no CPU at all."""
    names = {"app_ms": "the app", "db_ms": "the database", "loadgen_ms": "the load generator", "other_ms": "other work"}
    if busy >= SATURATED and total:
        key = max((k for k, v in parts.items() if pd.notna(v)), key=lambda k: parts[k])
        return f"the {cores} cores, most of it {names[key]}: {parts[key]:.3g} of {total:.3g} ms per request"
    if app_core >= SATURATED:
        return (f"one busy thread of the app ({app_core * 100:.0f} % of a core) "
                f"while {(1 - busy) * 100:.0f} % of the machine idled")
    return (f"no CPU ({busy * 100:.0f} % of the machine busy): "
            "the wait is elsewhere (the connection pool, the database's locks)")


def generator_effect(split: pd.DataFrame, run: Run) -> str | None:
    """What the load generator's share did to the ratios: the range each arm lost, and for the
    reference over each other framework the factor a load generator elsewhere would move the ratio
    by ((1 - taken by the other) / (1 - taken by the reference)): a model, which two load generators
    of different cost bear out on average (collect/README.md, "The load generator's share of a full
    machine"); None when it took nothing."""
    if not split["loadgen_taken"].any():
        return None
    lost = "; ".join(f"{run.display_name(arm)} {describe(shares)} in {int((shares > 0).sum())} of {len(shares)} cells"
                     for arm, shares in split.groupby("framework", sort=False)["loadgen_taken"])
    text = (f"Where the cores were full, the load generator's CPU came out of the arm's rate, since it shared "
            f"them (the column \"Rate the load generator took\"): {lost}. ")
    taken = split.pivot_table(index=["api", "case"], columns="framework", values="loadgen_taken")
    for versus in answer.framework_comparisons(run):
        arms = [versus.numerator, versus.denominator]
        pair = taken[arms].dropna() if set(arms) <= set(taken.columns) else None
        if pair is None or pair.empty:
            continue
        factor = (1 - pair[versus.denominator]) / (1 - pair[versus.numerator])
        moved = int((abs(factor - 1) > 0.05).sum())
        text += (f"A load generator on another machine would give each arm back at most the rate it took here: "
                 f"{run.display_name(versus.numerator)} over {run.display_name(versus.denominator)} would then "
                 f"change by a factor of {factor.median():.2f} in the median cell ({factor.min():.2f}-"
                 f"{factor.max():.2f}; more than 5 % in {moved} of {len(factor)} cells), if each server turned "
                 f"the CPU given back into requests at its measured cost. ")
    return text + "Remote engines (docs/your-hardware.md) measure without it."


def describe(shares: pd.Series) -> str:
    taken = shares[shares > 0]
    if taken.empty:
        return "0 %"
    low, high = f"{taken.min() * 100:.0f}", f"{taken.max() * 100:.0f}"
    return f"{low} %" if low == high else f"{low}-{high} %"


def ceiling_table(run: Run) -> pd.DataFrame | None:
    found, _ = run_table(run.dir / CEILING, CEILING_COLUMNS)
    if found is None or found.empty:
        return None
    table = found.pivot_table(index=["loadgen", "threads"], columns="when", values="ceiling_rps",
                              aggfunc="max").reset_index()
    return table.rename(columns={"loadgen": "Load generator", "threads": "Connections",
                                 "before": "Before the rounds (req/s)", "after": "After the rounds (req/s)"})


def section(doc, run: Run, tabs: Path) -> None:
    """Nothing for runs before schema 4, which record no choice, layout or reference work."""
    if run.manifest.schema_version < 4:
        return
    doc.heading(2, "The machine and the load")
    doc.para(load_sentence(run))
    try:
        reference = load_reference(run.dir / REFERENCE)
    except ResultFileError as e:
        doc.para(f"No reference work: {e}.")
        reference = None
    if reference:
        table = reference_table(reference, run)
        table.to_csv(tabs / "reference.csv", index=False)
        doc.table(table.astype(object).where(table.notna(), "–"),
                  f"Reference work at {reference.get('connections')} connections (reference.json): each app's "
                  "cheapest answer and cheapest real request, with the CPU each side spent per request")
        doc.para(database_text(reference) + " " + "; ".join(
            f"{NAMES.get(lg, lg)} spent {e['loadgen_cpu_ms_per_req']} ms of CPU per request on {e['at']}"
            for lg, e in reference["loadgens"].items() if e.get("loadgen_cpu_ms_per_req")) + ".")
    ceilings = ceiling_table(run)
    if ceilings is not None:
        ceilings.to_csv(tabs / "ceilings.csv", index=False)
        doc.table(ceilings.astype(object).where(ceilings.notna(), "–"),
                  "Each load generator's ceiling against the cheapest answer (ceiling.csv: the most any attempt "
                  "drove before the rounds, which every item is judged by, and the check after them)")
    split = cpu_split(run)
    if split.empty:
        doc.para("No item's throughput is valid, so no CPU split per request.")
        return
    split.to_csv(tabs / "cpu_split.csv", index=False)
    shown = split.assign(framework=split["framework"].map(run.display_name)).rename(columns={
        "framework": "Arm", "api": "API", "case": "Case", "rounds": "Rounds", "app_ms": "App",
        "db_ms": "Database", "loadgen_ms": "Load generator", "other_ms": "Other", "total_ms": "Total",
        "machine_busy": "Machine busy", "bound_by": "What bounds the rate",
        "loadgen_taken": "Rate the load generator took"})
    doc.table(shown.astype(object).where(shown.notna(), "–"),
              "CPU per request (ms) of each side, mean over the rounds whose throughput is valid, what "
              "bounds the rate: the machine's cores when they are full, else one busy thread, else not the CPU, "
              "and the share of the rate the load generator took on full cores it shared")
    effect = generator_effect(split, run)
    if effect:
        doc.para(effect)
