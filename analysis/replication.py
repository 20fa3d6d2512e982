"""Our numbers beside the study's published ones, and a verdict on each of its conclusions.

Units differ between the study's machine and ours, so values are normalised before they sit side
by side: CPU to % of the whole machine (the study's 0-400 % on 4 cores / 4; ours / our cores), and
memory to MB (the study's % of 8 GiB x 8192 / 100, against our peak RSS). Response times are ms on
both sides. Absolute values still reflect different hardware; the ASP.NET/Express ratio per case
is the fairer thing to compare, so it is given too.

Verdict rules, per claim (the claims are data, in CLAIMS below):
- A claim covers cells: its cases x its metrics, for one api. Cells the run lacks (a case not run,
  or a framework without an ok iteration) are listed and left out.
- Each cell is `agree` (difference significant in the claimed direction), `oppose` (significant,
  opposite direction), `not significant`, or `cannot be judged` (fewer than 2 iterations on a side;
  see analysis.stats for the test and its alpha).
- not reproduced: `oppose` in at least half the cells (NOT_REPRODUCED_SHARE).
- reproduced: `agree` in at least the claim's `share` of the cells (1.0, i.e. every cell, unless
  the claim says otherwise) and `oppose` in none.
- inconclusive: anything else, including no cells and cells that cannot be judged.
"""
from dataclasses import dataclass

import pandas as pd

from analysis.metrics import PAIR
from analysis.study import STUDY_METRICS, normalise_study

NOT_REPRODUCED_SHARE = 0.5

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    source: str            # where the study says it
    api: str
    cases: tuple
    metrics: tuple         # our summary columns
    lower: str             # the framework the study says has the lower values
    share: float = 1.0


ONE_ROW = (1, 4, 7, 10, 13, 16)
HIGH_LOAD_ROWS = (14, 15, 17, 18)  # 500 users, 50 and 100 rows
ALL_CASES = tuple(range(1, 19))
CLAIMS = [
    Claim("rest-one-row-faster", "REST: ASP.NET Core is faster (mean response time) in the 1-row cases",
          "§5.1.3, §6.1", "rest", ONE_ROW, ("mean_ms",), "aspnet"),
    Claim("rest-one-row-min-max", "REST: in the 1-row cases ASP.NET Core's minimum and maximum response "
          "times are also lower", "§5.1.3", "rest", ONE_ROW, ("min_ms", "max_ms"), "aspnet"),
    Claim("rest-high-load-express-faster", "REST: Express.js is faster at 500 users with 50 and 100 rows",
          "§5.1.3, §6.4", "rest", HIGH_LOAD_ROWS, ("mean_ms",), "express"),
    Claim("rest-aspnet-more-resources", "REST: ASP.NET Core uses more CPU and memory",
          "§5.1.1, §6.1", "rest", ALL_CASES, ("cpu_peak_pct", "rss_peak_mb"), "express"),
    Claim("graphql-express-less-resources", "GraphQL: Express.js uses less CPU and memory in every case",
          "§5.2.1, §5.2.2, §6.4", "graphql", ALL_CASES, ("cpu_peak_pct", "rss_peak_mb"), "express"),
    Claim("graphql-high-load-express-faster", "GraphQL: Express.js is faster at high load (500 users, "
          "50 and 100 rows)", "§5.2.3, §6.1", "graphql", HIGH_LOAD_ROWS, ("mean_ms",), "express"),
]


def normalise_ours(column: str, value, cores: int):
    return value / cores if column == "cpu_peak_pct" and value is not None else value


def side_by_side(agg: pd.DataFrame, cores: int, study: pd.DataFrame) -> pd.DataFrame:
    """Every published value with ours (mean and 95 % interval) in the same unit; NaN where not run."""
    ours = agg.set_index(["api", "case", "framework", "metric"])
    records = []
    for _, s in study.iterrows():
        column, unit = STUDY_METRICS[s["metric"]]
        key = (s["api"], s["case"], s["framework"], column)
        mine = ours.loc[key] if key in ours.index else None
        records.append({
            "api": s["api"], "case": s["case"], "requests": s["requests"], "rows": s["rows"],
            "joins": s["joins"], "framework": s["framework"], "study_metric": s["metric"],
            "our_metric": column, "unit": unit,
            "study": normalise_study(s["metric"], s["value"]), "transcription": s["transcription"],
            **{field: (normalise_ours(column, mine[field], cores) if mine is not None else None)
               for field in ("mean", "ci_low", "ci_high")},
            "n": int(mine["n"]) if mine is not None else 0})
    return pd.DataFrame.from_records(records)


def ratios(side: pd.DataFrame) -> pd.DataFrame:
    """ASP.NET Core / Express.js per api, case and metric, in the study and here."""
    a, b = PAIR
    wide = side.pivot_table(index=["api", "case", "study_metric", "unit"], columns="framework",
                            values=["study", "mean"], aggfunc="first")
    out = pd.DataFrame(index=wide.index)
    out["study_ratio"] = wide[("study", a)] / wide[("study", b)]
    if ("mean", a) in wide.columns and ("mean", b) in wide.columns:
        out["our_ratio"] = wide[("mean", a)] / wide[("mean", b)]
    else:
        out["our_ratio"] = float("nan")
    return out.reset_index()


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str
    agree: int
    oppose: int
    not_significant: int
    unjudged: int
    missing: tuple        # (case, metric) cells the run lacks
    explanation: str

    @property
    def cells(self) -> int:
        return self.agree + self.oppose + self.not_significant + self.unjudged


def claim_cells(claim: Claim, sig: pd.DataFrame) -> pd.DataFrame:
    """The claim's cells present in the run, each with its outcome."""
    claimed_sign = -1 if claim.lower == PAIR[0] else 1  # sign of mean(aspnet) - mean(express)
    part = sig[(sig["api"] == claim.api) & sig["case"].isin(claim.cases)
               & sig["metric"].isin(claim.metrics)].copy()

    def outcome(row):
        if not row["judged"]:
            return "cannot be judged"
        if not row["significant"]:
            return "not significant"
        return "agree" if row["sign"] == claimed_sign else "oppose"
    part["outcome"] = part.apply(outcome, axis=1) if not part.empty else pd.Series(dtype=str)
    return part


def judge(claim: Claim, sig: pd.DataFrame) -> Verdict:
    cells = claim_cells(claim, sig)
    present = set(zip(cells["case"], cells["metric"]))
    missing = tuple((c, m) for c in claim.cases for m in claim.metrics if (c, m) not in present)
    count = cells["outcome"].value_counts().to_dict() if not cells.empty else {}
    agree, oppose = count.get("agree", 0), count.get("oppose", 0)
    ns, unjudged = count.get("not significant", 0), count.get("cannot be judged", 0)
    total = len(cells)
    tally = f"{agree} agree, {oppose} opposite, {ns} not significant, {unjudged} cannot be judged"
    if total == 0:
        verdict, why = INCONCLUSIVE, ("the run has none of the claim's cases with both "
                                      "frameworks measured")
    elif oppose >= NOT_REPRODUCED_SHARE * total:
        verdict, why = NOT_REPRODUCED, f"significantly opposite in {oppose} of {total} cells ({tally})"
    elif oppose == 0 and agree >= claim.share * total:
        verdict, why = REPRODUCED, f"significant in the claimed direction in {agree} of {total} cells"
    elif unjudged == total:
        verdict, why = INCONCLUSIVE, "significance cannot be judged with fewer than 2 iterations"
    else:
        verdict, why = INCONCLUSIVE, tally
    if missing and total:
        cases = sorted({c for c, _ in missing})
        why += f"; judged on {total} of {total + len(missing)} cells (not in this run: case " \
               + ", ".join(map(str, cases)) + ")"
    return Verdict(claim, verdict, agree, oppose, ns, unjudged, missing, why)


def verdicts(sig: pd.DataFrame) -> list[Verdict]:
    return [judge(claim, sig) for claim in CLAIMS]


def verdict_table(results: list[Verdict]) -> pd.DataFrame:
    return pd.DataFrame.from_records([{
        "claim": v.claim.id, "statement": v.claim.text, "study_section": v.claim.source,
        "api": v.claim.api, "cases": " ".join(map(str, v.claim.cases)),
        "metrics": " ".join(v.claim.metrics), "verdict": v.verdict, "agree": v.agree,
        "oppose": v.oppose, "not_significant": v.not_significant, "cannot_be_judged": v.unjudged,
        "missing_cells": len(v.missing), "explanation": v.explanation} for v in results])
