"""The report's section on the protocol's own checks: the A/A calibration of an `--aa` run (how
many cells chance alone made significant), the arm order's effect on each comparison's ratios and
how far the cells of one round move together (analysis/aa.py, analysis/order_effect.py,
analysis/round_effect.py)."""
from pathlib import Path

import pandas as pd

from analysis import aa, answer, order_effect, round_effect
from analysis.load import Run
from analysis.render import Doc
from analysis.stats import ALPHA
from analysis.refutation import ROUND_CORRELATION

HEADING = "The protocol's own checks"


def section(doc: Doc, run: Run, every_answer: pd.DataFrame, comparisons: list, tabs: Path) -> None:
    """`comparisons`: the run's answer.Versus, framework and variant alike."""
    observed = [order_effect.observed(run, v.numerator, v.denominator) for v in comparisons]
    orders = per_comparison(order_effect, observed)
    orders.to_csv(tabs / "order_effect.csv", index=False)
    if not run.manifest.settings.aa and orders.empty:
        return
    doc.heading(2, HEADING)
    if run.manifest.settings.aa:
        calibration_part(doc, run, every_answer, comparisons, tabs)
    if not orders.empty:
        order_part(doc, run, orders, observed)
    rounds = per_comparison(round_effect, observed)
    rounds.assign(departures=rounds["departures"].map(round_effect.departures_text)) \
        .to_csv(tabs / "round_effect.csv", index=False)
    if rounds["p"].notna().any():
        rounds_part(doc, rounds)


def per_comparison(check, observed: list) -> pd.DataFrame:
    """One check's table (order_effect, round_effect: its `table` and `COLUMNS`) over every
    comparison's observations (order_effect.Observed)."""
    return pd.concat([check.table(found) for found in observed]
                     or [pd.DataFrame(columns=check.COLUMNS)], ignore_index=True)


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
    """The bar on the report's significance, then the own intervals against what chance puts there."""
    over, bar = aa.over_the_bar(found), f"{aa.ALLOWED_SHARE:.0%}"
    judged = found[found["judged"] > 0]
    worst = judged.assign(bh_share=judged["significant_bh"] / judged["judged"]).sort_values("bh_share").iloc[-1]
    largest = int(judged["judged"].max())
    verdict = (f"The bar, at most {bar} of a family's judged cells significant as this report marks them "
               "(after BH): " + ("met: none is significant." if worst.significant_bh == 0 else
                                 f"met in every family (the most: {worst.significant_bh} of {worst.judged})."
                                 if over.empty else "not met in " + ", ".join(
                                     f"{r.api} {r.metric} ({r.significant_bh} of {r.judged})"
                                     for r in over.itertuples()) + "."))
    own = aa.own_over_the_bar(judged)
    coverage = (f" By their own intervals, families over {bar}: {len(own)} of {len(judged)}, where a calibrated "
                f"pipeline puts {aa.expected_own_over_the_bar(judged):.1f} on average (a family of {largest} has "
                f"{int(aa.ALLOWED_SHARE * largest) + 1} or more by chance alone in "
                f"{aa.chance_over_the_bar(largest):.0%} of runs), so the test there is each family's "
                "P(that many or more): ")
    beyond = aa.beyond_chance(found)
    return verdict + coverage + (
        "none is below 5 %." if beyond.empty else
        "below 5 % in " + ", ".join(f"{r.api} {r.metric}" for r in beyond.itertuples())
        + ", so there the intervals are too narrow for what varies between processes.")


def order_part(doc: Doc, run: Run, orders: pd.DataFrame, observed: list) -> None:
    doc.heading(3, "The arm order")
    texts = []
    for found in observed:
        both, several = order_effect.balance(found)
        if several:
            texts.append(f"{run.display_name(found.numerator)} / {run.display_name(found.denominator)}: "
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


def rounds_part(doc: Doc, rounds: pd.DataFrame) -> None:
    fitted = rounds[rounds["p"].notna()]
    moved = fitted[fitted["p"] < ALPHA]
    doc.heading(3, "The rounds")
    doc.para("A round measures every cell once, within minutes, on processes the quick profile starts afresh for "
             "it; whatever those processes or minutes carry moves every cell of the round by one factor. Per API "
             "and metric, each round's departure from the family's ratio (1: none), the rounds' share of a cell's "
             "round-to-round variance (the intraclass correlation) and the F test of the rounds, over the cells "
             "measured in every round. Each cell's interval carries this departure, since its rounds are its "
             "replicates, but a family's cells share it: their significant cells come in clusters, and an average "
             f"over cells, which assumes a correlation of {ROUND_CORRELATION}, gains less from each cell. "
             + ("In none of the families did the rounds differ beyond chance (F test, p below 5 %)." if moved.empty
                else "The rounds differed beyond chance (p below 5 %) in " + "; ".join(
                    f"{r.api} {r.metric} ({r.numerator} / {r.denominator}: "
                    f"{round_effect.departures_text(r.departures)}, correlation {r.correlation:.2f})"
                    for r in moved.itertuples()) + "."))
    shown = fitted.assign(departures=fitted["departures"].map(round_effect.departures_text),
                          correlation=fitted["correlation"].map(lambda c: f"{c:.2f}"),
                          p=fitted["p"].map(lambda p: f"{p:.3f}"))
    doc.table(shown.rename(columns={"departures": "each round's departure", "correlation": "intraclass correlation"}),
              "The rounds' shared departure per API and metric, over the cells measured in every round")
