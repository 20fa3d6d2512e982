"""How the answer's ratios were computed, in the report's words: the method for the run's kind of
comparison (paired rounds, independent groups or single iterations), the paired statistics step by
step for a student (analysis/README.md tells the same at more length), and what the run's extra
rounds did."""
from analysis.load import Run
from analysis.paired import wilcoxon_smallest_p
from analysis.records import Manifest


# The paired statistics step by step, for a student (analysis/README.md points here).
HOW_COMPUTED = [
    "One ratio per round: in round r, the numerator's value over the denominator's (A over E for the "
    "study's A/E), a_r / b_r; 0.8 means the numerator's value is 20 % lower. "
    "Taking the ratio inside the round cancels the machine's drift.",
    "Average on the log scale: d_r = log(a_r / b_r), averaged and turned back, exp(mean d), the "
    "geometric mean of the ratios; \"twice as fast\" and \"half as fast\" are then equally far from 1.",
    "95 % interval: exp(mean d ± t · sd / √n), sd the spread of the d_r over n rounds and t from "
    "Student's t with n - 1 degrees of freedom (4.30 for 3 rounds, 2.26 for 10). Repeat the whole "
    "experiment many times and 95 % of such intervals contain the true ratio.",
    "Cells borrow each other's spread: 2 or 3 rounds say little about a cell's own spread, but the cells "
    "of one API and metric share the machine and the rounds, and their spreads differ about as chance "
    "makes them. With at least 6 such cells, each cell's spread is moderated towards the family's "
    "(empirical Bayes, limma's: Smyth 2004) as far as their spreads agree, and its t gets the degrees "
    "of freedom the family lends it (about 2.0 instead of 4.30 when they agree); the ratio stays the "
    "cell's own. The test is then the \"moderated paired t\" (significance.csv: `test`, `df`).",
    "p and q: p is the chance of a mean log ratio this far from 0 if the frameworks were really equal "
    "(the paired t-test). The report tests hundreds of cells, and at p < 0.05 about 1 in 20 equal "
    "cells would look different by luck, so each p gets a q (Benjamini-Hochberg: sort the m p-values, "
    "multiply the k-th smallest by m / k, make the sequence non-decreasing from the top). Calling a "
    "cell significant only when q < 0.05 keeps the share of false alarms among the significant cells "
    "at about 5 % or less.",
    "\"Similar\" needs its own test: with few rounds everything is \"not significant\", which is not "
    "\"similar\". Two one-sided tests (TOST) ask whether the ratio is significantly above 0.909 and "
    "significantly below 1.1; both at 5 % is the same as the 90 % interval lying inside (0.909, 1.1). "
    "\"More than double\" or \"roughly 2.8x\" are tested the same way on their own band.",
    "\"Up to\" claims are about the largest ratio among k cells: each cell's interval is widened "
    "(Bonferroni, at 1 - 0.10/k), so all hold their true ratios at once often enough, and the largest "
    "true ratio lies between the largest lower end and the largest upper end.",
    "How many rounds: three give wide intervals (t = 4.30). While the run's time budget lasts it adds "
    "rounds for the cells whose 95 % interval of the throughput ratio is wider than ±10 %, widest "
    "first, and settles none on fewer than 3 usable rounds; the rule looks only at the width, never at "
    "which framework is ahead. But a cell that stops when its interval looks narrow stops most often "
    "when its rounds agreed by luck, so the throughput of a cell given extra rounds is drawn wider (the "
    "plain 98.5 % interval stands for the 95 % one), which a simulation shows keeps 95 % coverage; "
    "cells that settled on the profile's rounds, and the metrics the rule never read, keep the plain one.",
]


def extra_rounds_text(manifest: Manifest) -> str:
    """What this run's stopping rule did, from the manifest's `sequential` entry."""
    sequential = manifest.sequential
    if not manifest.extra_rounds:
        return ("This run had no extra rounds: every cell has the profile's rounds (a run made with "
                "--budget MINUTES adds rounds where the interval is still wide).")
    added = sequential.round_cells
    states = [s.state for s in sequential.states]
    counts = ", ".join(f"{states.count(state)} {state}" for state in dict.fromkeys(states))
    return (f"This run's extra rounds: target ±{sequential.target * 100:.0f} % (the throughput "
            f"ratio's 95 % interval), budget {sequential.budget_s / 60:.0f} minutes; "
            f"{len(added)} round{'s' if len(added) != 1 else ''} added"
            + (f" ({sum(added)} cell-rounds)" if added else "")
            + (f"; when they ended the cells were: {counts}" if counts else "")
            + (f"; why they stopped: {sequential.stopped}" if sequential.stopped else "")
            + ". Each cell's rounds and state: tables/answer.csv (`pairs`, `stopping`).")


def method_text(run: Run, kind: str, who: str = "frameworks", symbol: str = "A/E") -> str:
    """How the ratios were computed; `who` names the two sides (frameworks, or arms of a variant
    comparison) and `symbol` the ratio."""
    return _method_text(run, kind, symbol).replace("frameworks", who).replace("framework", who[:-1])


def _method_text(run: Run, kind: str, symbol: str) -> str:
    if kind == "paired":
        return ("In each round both frameworks ran seconds apart, in a seeded random order, so each "
                f"round gives one ratio {symbol} in which the drift of the shared machine that both felt "
                "cancels. The ratio shown is the geometric mean of the per-round ratios; its 95 % "
                "interval is the Student t interval of the mean log ratio, exponentiated, its spread "
                "moderated by the other cells of its API and metric (below); significance "
                "is the paired t-test on the log ratios (two-sided, alpha 0.05), which can reach "
                "significance with 3 rounds (the Wilcoxon signed-rank test cannot: its smallest "
                f"two-sided p with 3 pairs is {wilcoxon_smallest_p(3):.2f}). Logs make the interval the "
                "same whichever framework is on top and turn \"x % faster\" into a difference the t "
                "interval can average. The t interval assumes the log ratios are roughly normal, which 3 "
                "rounds cannot check: read a p near 0.05 as borderline. Only rounds where both "
                "frameworks were ok count; n is the number of such pairs, and a cell with fewer than 2 "
                "has no interval. This follows Georges et al. (\"Statistically Rigorous Java Performance "
                "Evaluation\", OOPSLA 2007): compare with confidence intervals; and pyperf's practice of "
                "giving a ratio with its spread.")
    protocol = run.manifest.protocol.name
    why = (f"its protocol, {protocol}, measures each framework's iterations separately" if protocol else
           "it was made before the interleaved protocol, so each framework's iterations ran separately")
    if kind == "single":
        return (f"This run's iterations are not paired ({why}), and each framework has one iteration "
                "per case: each ratio is one measurement against one, with no interval and no test, and "
                "cannot be told apart from the machine's drift. The default profile (3 interleaved "
                "rounds) gives the answer with its uncertainty.")
    return (f"This run's iterations are not paired ({why}), so each ratio is of the two frameworks' "
            "means over independent groups of iterations, with a delta-method 95 % interval on the log "
            "scale (Welch degrees of freedom), and significance is the test of the tables below "
            "(Mann-Whitney U, or Welch's t with 2-3 iterations a side). This is weaker than a paired "
            "comparison: drift of the shared machine between one framework's iterations and the other's "
            "widens the interval, or, if it hit one framework more, moves the ratio itself.")
