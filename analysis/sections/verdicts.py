"""The report's "Does it reproduce the study? Verdicts per claim": how a claim is tested and
decided, then every claim of the study with its verdict beside what the study's own tables say
(the verdicts are analysis/verdicts.py's, the study's support analysis/study_check.py's)."""
import pandas as pd

from analysis import memory, open_questions, validity, verdicts
from analysis.claims import CPU_MARGIN, MARGIN
from analysis.load import Run
from analysis.metrics import LITTLES_MEAN
from analysis.render import Doc
from analysis.stats import ALPHA
from benchlib.cases import STUDY_PAIR


def scope_text(claim) -> str:
    apis = " and ".join("REST" if api == "rest" else "GraphQL" for api in claim.apis)
    return f"{apis}, {claim.scope}; " + ", ".join(map(verdicts.metric_words, claim.metrics))


def tested_as(claim) -> str:
    share = {"all": "in every cell", "most": "in more than half of the cells",
             "peak": "for the largest ratio of the cells",
             "where Express.js peaks": "in the case where Express.js's value is highest"}[claim.share]
    return f"{claim.test.describe()}, {share}"


def mean_time_text(run: Run) -> str:
    """How the mean response time claims read the mean, with this run's figures behind it."""
    if not run.checked:
        return "Mean response time: the mean of each window's samples (a run before the checks)."
    items = validity.usable(run)
    fair = items[items["latency_validity"] == validity.VALID]["littles_ratio"].dropna()
    unfair = items[items["latency_validity"] == validity.UNFAIR]
    understated = (unfair[LITTLES_MEAN] / unfair["mean_ms"]).dropna()
    return ("Mean response time: connections / throughput, the mean time a request takes in a closed "
            "loop without think time by Little's law, every connection counted. A window's sample mean "
            "counts only the requests that completed in it, so where a server leaves connections "
            "unserved (unfair) it leaves out their waits"
            + (f": in this run connections / throughput is {understated.median():.2f} times the sample mean "
               f"at the median of {len(understated)} unfair items ({understated.min():.2f}-{understated.max():.2f})"
               if len(understated) else "")
            + (f"; where every connection was served the two agree (Little's ratio {fair.min():.2f}-"
               f"{fair.max():.2f}, median {fair.median():.2f}, over {len(fair)} items)" if len(fair) else "")
            + ". So a claim about the mean is judged wherever the throughput was, and its cells carry the "
              "throughput's test and q (the same hypothesis); minimum and maximum have no such identity "
              "and stay left out where a server was unfair.")


def section(doc: Doc, run: Run, results, checks, needed: dict) -> None:
    doc.heading(2, "Does it reproduce the study? Verdicts per claim")
    doc.para("Every statement of the abstract and of sections 5 and 6 about which framework is faster "
             "or uses less CPU or memory, and where, is a claim below, in the study's words with its "
             "line numbers in the thesis's text. Each is tested per cell (API x case x metric) on the "
             "ratio A/E = ASP.NET Core / Express.js ("
             + ("memory from fresh processes, memory.csv: one per case, so shown but not judged"
                if memory.ratios(run, *STUDY_PAIR).size else "memory as peak RSS")
             + "), with its 95 % interval and "
             + ("significance from the paired rounds, as in the answer section (geometric mean of the "
                "per-round ratios, t interval and paired t-test on the log ratios)." if run.manifest.paired
                else "the significance test of the tables below (ratio of the two means, interval by the "
                     "delta method on the log scale with Welch degrees of freedom)."))
    doc.bullets([
        "Direction (\"faster\", \"higher\"): a cell agrees when the difference is significant (q < "
        f"{ALPHA}, as in the answer) and on the claimed side, opposes when it is significant the other way.",
        "Equivalence (\"similar\"), non-inferiority (\"similar or better\") and magnitude (\"more "
        "than double\", \"roughly 2.8x\", \"much higher\"): two one-sided tests (TOST), i.e. the "
        f"90 % interval inside the claim's band: {1 / (1 + MARGIN):.3f} < A/E < {1 + MARGIN:.3f} for "
        f"similar, A/E > {1 / (1 + MARGIN):.3f} (Express.js at most {MARGIN * 100:.0f} % above) for "
        "similar-or-better, the stated band for a magnitude; a value on a bound counts as outside, "
        "an interval across a bound is undecided, a cell without an interval cannot be judged.",
        f"Why a {MARGIN * 100:.0f} % margin: the study names none. It was fixed before judging our "
        "runs and is just under the smallest difference in mean response time the study itself "
        "calls a win (REST case 5: 134.9 against 121.1 ms, 11 %, L1252). CPU's \"very similar\" "
        f"has a margin of {CPU_MARGIN * 100:.0f} %: the smallest round margin the study's own ratios "
        "there (1.23-1.68, read off a 0-400 % chart) pass. CPU claims use the mean CPU over the "
        "window (the peak comes in 10-point steps); minimum and maximum response time are compared "
        "on equal sample counts (the expected extreme of the smaller side's number of samples).",
        mean_time_text(run),
        "A claim is reproduced only on its whole scope: with any of its cells not judged (not in this "
        "run, no usable round, a bound, no interval) it is judged on k of n cells, says which and why, "
        "and is inconclusive unless the judged cells decide it whatever the others would show: an "
        "\"all\" claim with a cell that refutes it at the simultaneous level (Bonferroni over all n "
        "cells), a \"most\" claim whose agreeing (or opposing) cells are already more than (at least) "
        "half of the n, an \"up to\" claim whose judged cells alone put the peak above its band. "
        "Reproduced: the claim's share of its cells agrees (every cell for \"all\", more "
        "than half for \"most\"). A claimed difference (a direction, an interaction) is opposed by a cell "
        f"whose interval shows it the other way or smaller than {MARGIN * 100:.0f} %, so a claim of a "
        "difference where there is none can be refuted. \"Up to\" claims are judged on the largest true "
        "ratio: each cell's interval at 1 - 0.10/k (Bonferroni, k cells), the peak between the largest "
        "lower end and the largest upper end, so the test is at 5 % whatever the cells' correlation "
        "(the old rule, each cell's 95 % interval, covered the peak only about 0.95^k of the time). "
        "Not reproduced: for \"all\", any cell that does not agree opposite at the simultaneous level "
        "(0.025/k in each tail that can leave the band, Bonferroni: at most 2.5 % if every cell is inside "
        "it, whatever the cells' correlation), or, for a claim of one metric, the cells' geometric mean "
        "wholly outside the band and not on the claimed side (0.025 in each such tail: were the claim "
        "true of every cell it would be of their average); the two together a 5 % test, and a claim of "
        "two metrics has only the first, at 0.05/k; for \"most\", at least "
        f"{verdicts.NOT_REPRODUCED_SHARE * 100:.0f} % of the cells opposite; for \"up to\", the peak "
        "outside the band. Inconclusive: anything else, including no usable cells in the run. Cannot be "
        f"judged here: the claim needs what this run lacks (this machine has {run.cores} cores; the "
        "study's had 4), and is never \"not reproduced\". Every claim's cells, each with its ratio, "
        "interval, the test's interval and p, q and outcome: tables/claim_cells.csv; each verdict's "
        "test, largest p and q, rounds and the machine's cores: tables/verdicts.csv.",
        "Readings: where the study's words allow two readings, the one its own tables support is the "
        "claim, and the other is shown as an alternative with its own verdict.",
        "Study's own tables: whether the study's published Tables 1-10 support the claim by the same "
        "test (see the next section). A claim they do not support cannot fairly be expected to "
        "reproduce: \"not reproduced\" beside \"not supported\" says the study's wording went beyond "
        "its own numbers.",
    ])
    doc.table(pd.DataFrame([{
        "Claim": f"{v.claim.id}: {v.claim.summary}", "The study says": f"{v.claim.words} ({v.claim.cited})",
        "Tested as": tested_as(v.claim), "Scope": scope_text(v.claim),
        "Study's own tables": checks[v.claim.id].status, "Our verdict": v.verdict,
        "Judged": f"{v.scope - len(v.not_judged)} of {v.scope}" if v.verdict != verdicts.CANNOT_JUDGE_HERE else "–",
        "Why": v.explanation, "Would decide it": needed.get(v.claim.id, "")}
        for v in results]))
    doc.para(open_questions.verdict_line(needed))
    doc.bullets([f"{c.id}: {c.reading}" for c in (v.claim for v in results) if c.reading])
