"""The report's sections on the run itself: "The run" (profile, commits, machine, versions, what
each arm ran and where its libraries depart from the contract, the load applied, and the load
engines where there were any), "How to read this report", "Iterations",
and at the report's end the appendix of flagged, excluded and failed iterations."""
import datetime

import pandas as pd

from analysis import machine, tables
from analysis.formatting import fmt, known
from analysis.load import Run
from analysis.metrics import case_label
from analysis.paired import TEST as PAIRED_TEST
from analysis.render import Doc
from analysis.sections import engines
from analysis.stats import ALPHA
from analysis.version import code_version


def section(doc: Doc, run: Run, status: pd.DataFrame, engine_table: pd.DataFrame | None = None) -> None:
    doc.heading(2, "The run")
    m = run.manifest
    hardware = m.machine
    doc.para(f"Profile {known(m.profile)}; results commit {known(m.git_commit)}"
             f"{' (dirty)' if m.git_dirty else ''}; report written "
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} by analysis at "
             f"commit {code_version()}.")
    doc.para(f"Machine: {known(hardware.cpu_model)}, {run.cores} cores, "
             f"{known(hardware.mem_total_mb)} MB RAM, kernel {known(hardware.kernel)}. "
             "Versions: " + ", ".join(f"{k} {v}" for k, v in m.versions.items()) + ".")
    arms(doc, run)
    profile = m.settings.profile
    if profile is not None and profile.threads:
        doc.para(f"Load ({known(profile.name)} profile): "
                 f"{machine.loadgen_name(run)} connections = {profile.threads}; "
                 f"warm-up {known(profile.warmup_s)} s, measured window "
                 f"{known(profile.duration_s)} s. Case labels give the study's users per case; "
                 "where the profile caps threads, the load actually applied is the cap.")
    applied = load_applied(run, profile.thread_cap if profile is not None else None)
    if applied is not None:
        doc.table(applied, "Load applied: the load generator's connections per case beside the mean requests in flight "
                           "(Little's law, mean over ok iterations); well below the threads means the "
                           "load generator, not the case, set the load")
    if engine_table is not None:
        engines.section(doc, run, engine_table)
    doc.heading(2, "How to read this report")
    doc.bullets([
        "Every value is the mean over the iterations with status ok"
        + (" that passed their validity checks (valid or bound)" if run.checked else "") + "; brackets give the 95 % "
        "t-interval of that mean across iterations; (n=1) means a single iteration, so no interval.",
        "† k: k of the iterations behind the value were flagged as untrustworthy by the run "
        "(e.g. errors, a saturated load generator); they are included, so weigh the value accordingly.",
        significance_text(run),
        "CPU % is of one core, as top prints it: 100 % = one core busy, "
        f"{100 * run.cores} % = this whole {run.cores}-core machine.",
    ])
    doc.heading(2, "Iterations")
    doc.table(status.rename(columns={"framework": "Framework", "api": "API"}),
              "Iterations per framework and API (flagged is a subset of ok; the appendix lists them)")
    if run.duplicates:
        doc.para(f"summary.csv held {run.duplicates} row(s) for cells that were run again; the last "
                 "row of each cell was used.")


def arms(doc: Doc, run: Run) -> None:
    """Each arm's runtime as its process reported it, its processes and connections, and each
    deviation from the contract its framework.json declares: a reader weighs a ratio against what
    the two arms were allowed to do differently."""
    entries = [run.entry(arm) for arm in run.arms]
    doc.table(pd.DataFrame([arm_row(entry) for entry in entries]),
              "The arms: the runtime each process reported loading (else its framework.json's), its "
              "processes and database connections in all (the manifest's `frameworks` has every setting)")
    declared = [(entry, d) for entry in entries for d in entry.deviations]
    if not declared:
        doc.para("No arm's framework.json declares a deviation from the contract (`deviations`, "
                 "contract/README.md).")
        return
    doc.para("Declared deviations: where an arm's libraries depart from the contract, as its framework.json "
             "declares them and `./testbed verify` counts them (contract/README.md, \"Declared deviations\").")
    doc.bullets([f"{entry.display_name} ({entry.name}), {known(d.get('check'))}, `{known(d.get('request'))}`: "
                 f"{known(d.get('why'))} (upstream: {known(d.get('upstream'))})" for entry, d in declared])


def arm_row(entry) -> dict:
    def setting(*keys):
        for values in (entry.variant_settings, entry.settings, entry.loaded):
            for key in keys:
                if key in values:
                    return values[key]
        return None
    return {"Arm": entry.display_name, "Variant": entry.variant, "Type": entry.type or "?",
            "Runtime": known(entry.loaded.get("runtime") or entry.runtime),
            "Processes": known(setting("processes")),
            "Connections": known(setting("pool_size_total", "pool_size")),
            "Declared deviations": len(entry.deviations)}


def significance_text(run: Run) -> str:
    if run.manifest.paired:
        return (f"Significance (ASP.NET Core vs Express.js, two-sided, alpha = {ALPHA}): the {PAIRED_TEST} "
                "of the rounds where both frameworks were ok (see the answer section); with 1 pair it "
                "cannot be judged. Tables and figures below mark the same test.")
    return (f"Significance (ASP.NET Core vs Express.js, two-sided, alpha = {ALPHA}): Mann-Whitney U on "
            "per-iteration values; Welch's t-test when there are only 2-3 iterations on a side "
            "(Mann-Whitney cannot reach p < 0.05 there); with 1 iteration it cannot be judged.")


def load_applied(run: Run, thread_cap: int | None) -> pd.DataFrame | None:
    """Per case: the nominal threads, and in_flight_mean per framework and API (None for runs
    written before in_flight_mean existed)."""
    ok = tables.ok_rows(run)
    if "in_flight_mean" not in ok.columns or ok["in_flight_mean"].isna().all():
        return None
    wide = ok.pivot_table(index=tables.CASE_COLUMNS, columns=["framework", "api"],
                          values="in_flight_mean", aggfunc="mean")
    shown = pd.DataFrame({
        "Case": [case_label(*c) for c in wide.index],
        "Threads": [min(c[1], thread_cap) if thread_cap else c[1] for c in wide.index]})
    for framework, api in wide.columns:
        shown[f"{run.display_name(framework)} {api} in flight"] = [fmt(v) for v in wide[(framework, api)]]
    return shown


def appendix(doc: Doc, problems: pd.DataFrame) -> None:
    doc.heading(2, "Appendix: flagged, excluded and failed iterations")
    if problems.empty:
        doc.para("None: every iteration was ok and unflagged.")
        return
    doc.table(problems, "Iterations excluded from the statistics (failed, excluded) or flagged, by "
                        "framework, API (REST first), case and iteration")
