"""The report's variant sections, "Variants: <numerator> / <reference>": two arms of one framework
compared as the framework answer compares frameworks, after a paragraph on what differs between
them (settings, environment, what the processes loaded)."""
from pathlib import Path

import pandas as pd

from analysis import answer
from analysis.sections.answer import basis, basis_line, comparison_tables, legend
from analysis.differing import differing, flat
from analysis.load import Run
from analysis.names import versus_names
from analysis.render import Doc
from analysis.stats import ALPHA


def section(doc: Doc, run: Run, answers: pd.DataFrame, versus, apis: list[str], figs: Path,
            explain: bool = False) -> None:
    """Variant against variant, as the framework answer: what differs between the two arms, then
    per API the table and forest plot of numerator / reference. `explain`: carry the legend and the
    method (when the run has no framework answer to carry them)."""
    names = versus_names(run, versus)
    a, b = (run.display_name(x) for x in (versus.numerator, versus.denominator))
    doc.heading(2, f"Variants: {names}")
    doc.para(differences(run, versus))
    kind = basis(run, answers) if not answers.empty else ("paired" if run.manifest.paired else "independent")
    where = "see below" if explain else "as for the framework answer above"
    doc.para(f"{names}: {versus.numerator} over the reference arm {versus.denominator} (the arm of "
             f"{run.base(versus.denominator)} named first in this run), with its 95 % interval. Throughput "
             f"above 1: {a} served more requests per second. p95 response time, CPU and memory below 1: "
             f"{a} was faster or used less; above 1: {b} did. {answer.SIGNIFICANT} significant (q < {ALPHA}); "
             f"{answer.FLAGGED} load-flagged case. {basis_line(kind, 'arms', where)}")
    comparison_tables(doc, run, answers, versus, apis, figs)
    if explain:
        legend(doc, run, answers, kind, "arms", "ratio")
    else:
        doc.para("Read as the framework answer above: the marks, the intervals and the tests mean the "
                 "same, with this framework's two arms in place of the two frameworks.")


def differences(run: Run, versus) -> str:
    """One paragraph: each arm's variant with its description, then the settings, environment and
    loaded versions that differ between the two, from the manifest."""
    described, effective = [], {}
    for arm in (versus.numerator, versus.denominator):
        entry = run.entry(arm)
        described.append(f"{entry.display_name} ({arm}, variant {entry.variant}"
                         + (", the reference" if arm == versus.denominator else "") + "): "
                         + (entry.description or "the manifest does not describe this variant"))
        effective[arm] = {"settings": flat({**entry.settings, **entry.variant_settings}), "env": flat(entry.env),
                          "loaded": flat(entry.loaded)}
    a, b = effective[versus.numerator], effective[versus.denominator]
    order = f"{run.display_name(versus.numerator)} against {run.display_name(versus.denominator)}"
    text = "What the ratio compares. " + "; ".join(described) + "."
    found = False
    for part, what in (("settings", "Settings that differ"), ("env", "Environment that differs"),
                       ("loaded", "What the processes reported loading, where it differs")):
        if part == "loaded" and not (a["loaded"] and b["loaded"]):
            continue
        lines = differing(a[part], b[part])
        if lines:
            found = True
            text += f" {what} ({order}): " + "; ".join(lines) + "."
    if not found:
        text += " Their recorded settings, environment and loaded versions do not differ."
    return text
