"""The report's section on the protocol's own checks: the A/A calibration of an `--aa` run (how
many cells chance alone made significant) and the arm order's effect on each comparison's ratios
(analysis/aa.py, analysis/order_effect.py)."""
from pathlib import Path

import pandas as pd

from analysis import aa, answer, order_effect
from analysis.load import Run
from analysis.render import Doc
from analysis.stats import ALPHA

HEADING = "The protocol's own checks"


def section(doc: Doc, run: Run, every_answer: pd.DataFrame, comparisons: list, tabs: Path) -> None:
    """`comparisons`: the run's answer.Versus, framework and variant alike."""
    orders = pd.concat([order_effect.table(run, v.numerator, v.denominator) for v in comparisons]
                       or [pd.DataFrame(columns=order_effect.COLUMNS)], ignore_index=True)
    orders.to_csv(tabs / "order_effect.csv", index=False)
    if not run.manifest.settings.aa and orders.empty:
        return
    doc.heading(2, HEADING)
    if run.manifest.settings.aa:
        calibration_part(doc, run, every_answer, comparisons, tabs)
    if not orders.empty:
        order_part(doc, run, orders, comparisons)


def calibration_part(doc: Doc, run: Run, every_answer: pd.DataFrame, comparisons: list, tabs: Path) -> None:
    twins = run.manifest.settings.aa
    versus = next(v for v in comparisons if run.base(v.numerator) == run.base(v.denominator) == twins)
    found = aa.calibration(answer.of(every_answer, versus))
    found.to_csv(tabs / "aa_calibration.csv", index=False)
    own, judged, p_all = aa.all_families(found)
    doc.heading(3, "A/A calibration")
    doc.para(f"This is an A/A run: {run.display_name(versus.numerator)} and {run.display_name(versus.denominator)} "
             f"are two processes of one build with the same settings, so every cell called significant is a false "
             f"positive of this protocol on this machine. {own} of {judged} judged cells "
             f"({own / judged:.0%} of them) came out significant by their own 95 % interval, where chance gives "
             f"{ALPHA:.0%} (and that many or more with probability {p_all:.2f}, a guide only: the families share "
             f"rounds and processes); after the Benjamini-Hochberg adjustment the answer applies, "
             f"{int(found['significant_bh'].sum())}. " if judged else
             "This is an A/A run, but no cell was judged, so it calibrates nothing. ")
    if judged:
        doc.para(bar_text(found))
    shown = found.assign(share=found["share"].map(lambda s: "–" if pd.isna(s) else f"{s:.0%}"),
                         p_or_more=found["p_or_more"].map(lambda p: "–" if pd.isna(p) else f"{p:.2f}"))
    doc.table(shown.rename(columns={"significant_own": "significant (own 95 % interval)",
                                    "expected": "expected by chance", "p_or_more": "P(that many or more)",
                                    "significant_bh": "significant after BH"}),
              "Per API and metric: judged cells, those significant by their own interval against the 5 % chance "
              "gives, the binomial probability of that many or more, and those significant after BH")


def bar_text(found: pd.DataFrame) -> str:
    """Which families are over the bar, and which of them beyond what chance puts there."""
    over = aa.over_the_bar(found)
    if over.empty:
        return f"Every family is within the bar of {aa.ALLOWED_SHARE:.0%}."
    listed = ", ".join(f"{r.api} {r.metric} ({r.significant_own} of {r.judged}, P {r.p_or_more:.2f}; "
                       f"a calibrated family of {r.judged} is over the bar in {aa.chance_over_the_bar(r.judged):.0%} "
                       f"of runs)" for r in over.itertuples())
    beyond = aa.beyond_chance(found)
    return (f"Families above the bar of {aa.ALLOWED_SHARE:.0%}: {listed}. "
            + ("None of them is beyond what chance gives in one run (P below 5 %); another A/A run would tell."
               if beyond.empty else
               "Beyond chance (P below 5 %), so there the intervals are too narrow for what varies between "
               "processes: " + ", ".join(f"{r.api} {r.metric}" for r in beyond.itertuples()) + "."))


def order_part(doc: Doc, run: Run, orders: pd.DataFrame, comparisons: list) -> None:
    doc.heading(3, "The arm order")
    texts = []
    for versus in comparisons:
        both, several = order_effect.balance(run, versus.numerator, versus.denominator)
        if several:
            texts.append(f"{run.display_name(versus.numerator)} / {run.display_name(versus.denominator)}: "
                         f"{both} of {several} cells with two or more rounds ran in both orders")
    doc.para("In each slot the arms run one after the other; what the second inherits from the first "
             "would move the ratio by the same factor each time one arm goes first. The run alternates which arm "
             "goes first in each cell's rounds, so that factor cancels but for an odd round, and estimates it "
             "within cells: the ratio with the numerator first over the same ratio with it second, per API and "
             "metric (1: no effect). " + "; ".join(texts) + ". "
             + order_effect.describe(orders))
    shown = orders.assign(**{"first over second": orders.apply(order_effect.interval_text, axis=1)})
    doc.table(shown[["api", "metric", "numerator", "denominator", "cells", "pairs", "first over second"]],
              "The arm order's effect, 95 % interval, within cells")
