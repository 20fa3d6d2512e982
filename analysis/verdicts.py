"""Our run's verdict on each of the study's claims (analysis.claims).

Input, one row per cell (api, case, metric): `ratio` = ASP.NET Core / Express.js, its 95 % interval
`ratio_low`/`ratio_high` (empty when there is none, `ratio_note` says why), the standard error of
log(ratio) with its degrees of freedom (`log_se`, `df`; from them any other interval is drawn), `p`,
`q` (Benjamini-Hochberg over the report's family, analysis.stats.adjust_family) and `significant`
(read off q). How the interval was computed is not this module's concern: analysis.tables fills the
columns from the paired rounds when the run has them (analysis.paired), otherwise from independent
groups of iterations (analysis.stats).

Per cell, by the claim's type: the test each cell reads and its outcome, analysis.cell_outcomes.
Per claim:
- cannot be judged here: the claim needs what this testbed lacks (more cores than the run's
  machine had, or a protocol it does not run); it says what, and is never "not reproduced".
- its whole scope first: a claim with cells not judged says "judged on k of n cells", with each
  cell that was not and why (analysis.scope: not in this run, no usable round and which checks
  failed, a bound, no interval), then what the judged cells say, and is inconclusive unless no
  outcome of the cells not judged could change the verdict (settled_on_part): the share and the
  Bonferroni level count all n cells, so an "all" claim is refuted by one refuting cell, a "most"
  claim decided once its agreeing or opposing cells are that share of the n, and an "up to" claim
  refuted when its judged cells alone put the peak above the band. Reproducing an "all" claim or
  placing a peak needs every cell: the validity checks could otherwise remove exactly the cells
  that would oppose a claim, and a claim about every case would be "reproduced" on one.
- mean response time (analysis.claims TIME) is connections / throughput, whose cells restate the
  throughput's and take its q (with_q_of).
- share "all": reproduced when every cell agrees (an intersection-union test: no adjustment is
  needed, so each direction cell reads its own p, not its q (cell_outcomes.own_significance), and
  the claim's p is its largest cell p); not reproduced when any cell that does not agree lies
  wholly outside the claim's refutation band at the simultaneous level
  (refutation.simultaneous_outcomes): its interval with alpha' / k in each tail the band has a
  finite edge on, k the cells. Bonferroni: if every cell's true ratio is inside the refutation band, the chance
  that any of them looks that far off is at most alpha', whatever the cells' correlation. For a
  band claim that is the claim itself; for a claimed difference it is "at least 10 % the claimed
  way", so a true difference smaller than that can come out either way. A claim of one metric is
  also not reproduced when the geometric mean of its judged cells lies wholly outside that band
  (refutation.average_of), its interval with alpha' in each such tail (its variance widened for
  the cells' correlation within a round, design_effect), and not on the claimed side: were the
  claim true of every cell, their average would be inside the band too. One cell far off is found
  by the first test, a difference that falls short a little in many cells by the second (a
  claimed 10 % where the cells scatter around 1: six cells each under it at their own 95 % level,
  none at the simultaneous level). The two split alpha (Bonferroni over them): alpha' = alpha / 2
  each; a claim of two metrics has only the first, with all of alpha. Inconclusive otherwise.
  After extra rounds the widened standard error holds a cell's tail only nearly: simulated, a cell
  on the edge looks beyond it at most 1.16 alpha' / k of the time, so the claim's error is at most
  5.8 % (benchlib/test_stopping.py). (The rule before needed half of the cells opposite at each
  cell's own level: for a band claim with 2 cells that is one, a 10 % test, and with 18 cells
  nine, which a claim false in a few cells never meets.)
- share "most": reproduced when more than half of the cells agree; not reproduced when at least
  half oppose (NOT_REPRODUCED_SHARE; a single opposite cell among many can be a chance result);
  inconclusive otherwise.
- share "peak": judged on the largest true ratio of the k cells, through simultaneous intervals:
  each cell's at 1 - 2 alpha / k (Bonferroni), and the peak's interval from the largest lower end
  to the largest upper end. If every cell's interval holds its true ratio, the largest true ratio
  lies in that interval; by Bonferroni each end is wrong with probability at most alpha = 5 %
  whatever the cells' correlation, so "inside the band" is a 5 % test like TOST. (The rule it
  replaces used each cell's 95 % interval, which all hold their ratios only about 0.95^k of the
  time: 0.74 for 6 cells.) Inside the band: reproduced; wholly outside: not reproduced; else
  inconclusive.
- share "where Express.js peaks": the cell with Express.js's largest mean, by its TOST interval.
Every verdict records the run's machine's cores.
"""
from dataclasses import dataclass

import pandas as pd

from analysis import extremes, scope, tables
from analysis.answer import METRICS_ANSWERED
from analysis.cell_outcomes import AGREE, API_NAMES, OPPOSE, OUTCOMES, STRADDLES, UNJUDGED, band_outcome, cell_keys, \
    claim_cells, column, test_name
from analysis.claim_types import ALL, AT_EXPRESS_PEAK, EXPRESS, PEAK, Claim, Direction, Interaction, Unjudgeable
from analysis.claims import MARGIN, MAX, MIN
from analysis.little_q import with_q_of
from analysis.load import Run
from analysis.metrics import METRICS, STUDY_TABLES
from analysis.refutation import average_confidence, average_of, averaged, simultaneous_confidence, \
    simultaneous_outcomes
from analysis.stats import ALPHA, adjust_family, known

REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE = "reproduced", "not reproduced", "inconclusive"
CANNOT_JUDGE_HERE = "cannot be judged here"
NOT_REPRODUCED_SHARE = 0.5
SHORT = {OPPOSE: "opposite", STRADDLES: "across a bound"}
# Beside an "all" claim's opposing cells when they left it open: opposite at their own level only.
NOT_SIMULTANEOUS = " (at its own level, not the simultaneous one)"
# Metrics that are not summary.csv columns: the equal-count extremes of analysis.extremes.
LABELS = {MIN: "Minimum response time (equal sample counts)", MAX: "Maximum response time (equal sample counts)"}


# The family of tests q is computed over: every cell the report marks significant or not (the
# answer's metrics, the study's tables' and the equal-count extremes of its min/max claims), so that
# "significant" means the same in every table and verdict.
Q_FAMILY = tuple(dict.fromkeys([*METRICS_ANSWERED, *(t.column for t in STUDY_TABLES), MIN, MAX]))


def report_cells(run: Run) -> pd.DataFrame:
    """ASP.NET Core against Express.js per api, case and metric (analysis.tables.significance) with
    the equal-count extremes added (analysis.extremes), q beside p, and significance read off q:
    the cells the answer, the study's tables and the verdicts read."""
    framework = tables.significance(run)
    cells = pd.concat([frame for frame in (framework, extremes.cells(run)) if not frame.empty] or [framework],
                      ignore_index=True)
    return with_q_of(adjust_family(cells, Q_FAMILY), "throughput_rps" if run.checked else "mean_ms")


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    verdict: str
    counts: dict           # outcome -> cells
    missing: tuple         # (api, case, metric) cells the run lacks
    explanation: str
    cores: int | None = None   # the run's machine's
    part: pd.DataFrame | None = None  # the claim's cells with their outcomes
    not_judged: tuple = ()     # ((api, case, metric), why) for every cell of the scope that was not judged

    @property
    def cells(self) -> int:
        return sum(self.counts.values())

    @property
    def scope(self) -> int:
        return len(cell_keys(self.claim))


def metric_words(metric: str) -> str:
    label = LABELS.get(metric) or METRICS[metric].label
    return label[0].lower() + label[1:]


def cell_name(claim: Claim, api: str, case: int, metric: str, versus=None) -> str:
    parts = [API_NAMES[api]] if len(claim.apis) > 1 else []
    parts += [metric_words(metric)] if len(claim.metrics) > 1 else []
    return " ".join(parts + [f"case {case}"]) + (f" against {versus}" if known(versus) and versus else "")


def interval_text(low, high) -> str:
    return f"[{low:.2f}, {high:.2f}]"


def listed(claim: Claim, part: pd.DataFrame, limit: int = 8) -> str:
    names = [f"{cell_name(claim, r.api, r.case, r.metric, getattr(r, 'versus', None))} (A/E {r.ratio:.2f}"
             + (f" {interval_text(r.test_low, r.test_high)})" if known(r.test_low) else ")")
             for r in part.itertuples()]
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def judge_peak(claim: Claim, part: pd.DataFrame) -> tuple[str, str]:
    """part: judged cells, each with its simultaneous interval."""
    low, high = part["test_low"].max(), part["test_high"].max()
    top = part.loc[part["ratio"].idxmax()]
    outcome = band_outcome(claim.test.band(), low, high)
    verdict = {AGREE: REPRODUCED, OPPOSE: NOT_REPRODUCED, STRADDLES: INCONCLUSIVE}[outcome]
    where = {AGREE: "inside", OPPOSE: "outside", STRADDLES: "across a bound of"}[outcome]
    return verdict, (f"largest A/E {top['ratio']:.2f} ({cell_name(claim, top['api'], top['case'], top['metric'])}); "
                     f"the largest true ratio lies in {interval_text(low, high)} (simultaneous intervals "
                     f"over {len(part)} cell{'s' if len(part) != 1 else ''}, each end wrong at most "
                     f"{ALPHA * 100:.0f} %), {where} the band")


def judge_at_express_peak(claim: Claim, part: pd.DataFrame) -> tuple[str, str]:
    means = column(part, f"{EXPRESS}_mean")
    if means.isna().all():
        return INCONCLUSIVE, "Express.js's means are not in the cells"
    top = part.loc[means.idxmax()]
    outcome = top["outcome"]
    verdict = {AGREE: REPRODUCED, OPPOSE: NOT_REPRODUCED}.get(outcome, INCONCLUSIVE)
    where = (f" {interval_text(top['test_low'], top['test_high'])}" if known(top["test_low"]) else "")
    return verdict, (f"Express.js peaks in {cell_name(claim, top['api'], top['case'], top['metric'])}: "
                     f"A/E {top['ratio']:.2f}{where}, {outcome}")


def share_verdict(share: str, agree: int, oppose: int, total: int, refuting: int = 0) -> str:
    """What the counts of agreeing and opposing cells make of an "all" or "most" claim; `refuting`:
    the cells of an "all" claim opposite at the simultaneous level (simultaneous_outcomes)."""
    if share == ALL:
        return REPRODUCED if agree == total else NOT_REPRODUCED if refuting else INCONCLUSIVE
    if oppose >= NOT_REPRODUCED_SHARE * total:
        return NOT_REPRODUCED
    return REPRODUCED if agree >= total // 2 + 1 else INCONCLUSIVE


def opposite_words(claim: Claim) -> str:
    """What an opposing cell shows: for a claimed difference, the other way or under MARGIN."""
    if isinstance(claim.test, (Direction, Interaction)):
        return f"opposite or under {MARGIN * 100:.0f} %"
    return SHORT[OPPOSE]


def judge_share(claim: Claim, part: pd.DataFrame, counts: dict, total: int) -> tuple[str, str]:
    """part: the judged cells; total: the claim's scope, which the share and Bonferroni count."""
    agree, oppose = counts[AGREE], counts[OPPOSE]
    tally = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    refuting = simultaneous_outcomes(claim, part, total).query("refutes") if claim.share == ALL else part.iloc[0:0]
    average = average_of(claim, part) if averaged(claim) else None
    refuted_on_average = average is not None and average.refutes
    verdict = share_verdict(claim.share, agree, oppose, total, len(refuting) + refuted_on_average)
    if verdict == NOT_REPRODUCED and claim.share == ALL:
        cells = ", ".join(f"{cell_name(claim, r.api, r.case, r.metric, getattr(r, 'versus', None))} (A/E "
                          f"{r.ratio:.2f} {interval_text(r.sim_low, r.sim_high)})" for r in refuting.itertuples())
        found = ([f"{opposite_words(claim)} at the simultaneous level (each cell's interval at "
                  f"{simultaneous_confidence(claim, total) * 100:.1f} %, Bonferroni over {total} cells) in {cells}"]
                 if cells else [])
        found += [f"{opposite_words(claim)} on average over its {average.cells} judged cells: A/E "
                  f"{average.ratio:.2f} {interval_text(average.low, average.high)} (at "
                  f"{average_confidence(claim) * 100:.1f} %), so not true of every cell"] if refuted_on_average else []
        return verdict, "; ".join(found + [tally])
    if verdict == NOT_REPRODUCED:
        return verdict, (f"{opposite_words(claim)} in {oppose} of {total} cells: "
                         f"{listed(claim, part[part['outcome'] == OPPOSE])}")
    if verdict == REPRODUCED:
        return verdict, f"agree in {agree} of {total} cells" + (f" ({tally})" if agree < total else "")
    # Mixed or not significant: name the cells that kept the claim from agreeing, so a reader can
    # see whether it missed by one cell or by all of them.
    return verdict, "; ".join([tally] + [
        f"{opposite_words(claim) if outcome == OPPOSE else SHORT.get(outcome, outcome)}"
        f"{NOT_SIMULTANEOUS if outcome == OPPOSE and claim.share == ALL else ''}: "
        f"{listed(claim, part[part['outcome'] == outcome])}"
        for outcome in OUTCOMES if outcome != AGREE and counts[outcome]])


def cannot_judge_here(claim: Claim, cores: int | None) -> str:
    """What the claim needs that this run lacks, or "" when it can be judged."""
    if isinstance(claim.test, Unjudgeable):
        return claim.test.needs
    if claim.min_cores and (cores is None or cores < claim.min_cores):
        return (f"a machine with {claim.min_cores} cores, as the study's (this run's has "
                f"{cores if cores is not None else 'an unknown number of'})")
    return ""


def judge(claim: Claim, cells: pd.DataFrame, gone: dict | None = None, cores: int | None = None) -> Verdict:
    """`gone`: (api, case) -> why the run has no usable pair there (analysis.scope.absent); a case
    it does not name and `cells` lacks was not in the run."""
    gone = gone or {}
    part = claim_cells(claim, cells)
    present = set(zip(part["api"], part["case"], part["metric"]))
    missing = tuple(key for key in cell_keys(claim) if key not in present)
    counts = {outcome: int((part["outcome"] == outcome).sum()) for outcome in OUTCOMES}
    needs = cannot_judge_here(claim, cores)
    if needs:
        return Verdict(claim, CANNOT_JUDGE_HERE, {o: 0 for o in OUTCOMES}, (), f"{CANNOT_JUDGE_HERE}: needs {needs}",
                       cores, part.iloc[0:0])
    unjudged = part[part["outcome"] == UNJUDGED]
    not_judged = tuple([(key, missing_reason(claim, key, cells, gone)) for key in missing]
                       + [((r["api"], r["case"], r["metric"]), scope.why_not(r, gone)) for _, r in unjudged.iterrows()])
    total = len(cell_keys(claim))
    judged_part = part[part["outcome"] != UNJUDGED]
    verdict, why = judged_verdict(claim, judged_part, total)
    if not_judged:
        settled = verdict != INCONCLUSIVE and settled_on_part(claim, verdict, judged_part)
        why = (f"judged on {total - len(not_judged)} of {total} cells; not judged: {not_judged_text(claim, not_judged)}"
               + (f"; {SETTLED_ON_PART}" if settled else "")
               + (f"; of the judged cells: {why}" if len(not_judged) < total else ""))
        verdict = verdict if settled else INCONCLUSIVE
    return Verdict(claim, verdict, counts, missing, why, cores, part, not_judged)


def judged_verdict(claim: Claim, part: pd.DataFrame, total: int) -> tuple[str, str]:
    """The verdict and why on the judged cells `part` of a scope of `total` cells (all of them when
    none is missing; settled_on_part says whether a verdict on fewer stands)."""
    if part.empty:
        return INCONCLUSIVE, "no cell judged"
    if claim.share == PEAK:
        return judge_peak(claim, part)
    if claim.share == AT_EXPRESS_PEAK:
        return judge_at_express_peak(claim, part)
    return judge_share(claim, part, {outcome: int((part["outcome"] == outcome).sum()) for outcome in OUTCOMES},
                       total)


SETTLED_ON_PART = "decided on the judged cells: no outcome of the others could change it"


def settled_on_part(claim: Claim, verdict: str, part: pd.DataFrame) -> bool:
    """Whether a verdict on part of the scope holds whatever the cells not judged would show: an
    "all" claim not reproduced by a refuting cell (Bonferroni over the whole scope, so judging fewer
    cells only lowers the chance of a false one); a "most" claim whose agreeing or opposing cells
    are already a share of the whole scope (judge_share counts against it); an "up to" claim whose
    judged cells alone put the largest true ratio above its band (the others can only raise it).
    Reproducing an "all" claim, placing a peak inside or below its band, or finding where Express.js
    peaks needs every cell."""
    if claim.share == ALL:
        return verdict == NOT_REPRODUCED
    if claim.share == PEAK:
        return verdict == NOT_REPRODUCED and part["test_low"].max() >= claim.test.band()[1]
    return claim.share != AT_EXPRESS_PEAK


def missing_reason(claim: Claim, key: tuple, cells: pd.DataFrame, gone: dict) -> str:
    """Why a cell of the scope is not among the run's cells (for an interaction, either of its two)."""
    api, case, metric = key
    if isinstance(claim.test, Interaction):
        present = set(zip(cells["api"], cells["case"], cells["metric"]))
        (_, (v_api, v_case)), = [pair for pair in claim.test.pairs if pair[0] == (api, case)]
        if (api, case, metric) in present:
            return f"its second cell, {API_NAMES[v_api]} case {v_case}: " + gone.get((v_api, v_case), scope.NOT_IN_RUN)
    return gone.get((api, case), scope.NOT_IN_RUN)


def not_judged_text(claim: Claim, not_judged: tuple) -> str:
    """The cells not judged, grouped by why: `cases 2-6, 8 (not in this run); case 1 (bound: …)`."""
    by_reason: dict[str, list[str]] = {}
    for (api, case, metric), why in not_judged:
        by_reason.setdefault(why, []).append(cell_name(claim, api, case, metric))
    return "; ".join(f"{compact(names)} ({why})" for why, names in by_reason.items())


def compact(names: list[str]) -> str:
    """`REST case 2, REST case 3, REST case 5` -> `REST cases 2-3, 5`: cells that differ only in
    their case, written once with the cases as ranges."""
    groups: dict[str, list[int]] = {}
    for name in names:
        prefix, _, case = name.rpartition("case ")
        groups.setdefault(prefix if case.isdigit() else name, []).append(int(case) if case.isdigit() else 0)
    parts = []
    for prefix, found in groups.items():
        if found == [0]:
            parts.append(prefix)
            continue
        runs = []
        for case in sorted(set(found)):
            if runs and case == runs[-1][1] + 1:
                runs[-1][1] = case
            else:
                runs.append([case, case])
        spans = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
        parts.append(f"{prefix}case{'s' if len(found) > 1 else ''} {spans}")
    return ", ".join(parts)


def verdicts(claims: list[Claim], cells: pd.DataFrame, gone: dict | None = None,
             cores: int | None = None) -> list[Verdict]:
    return [judge(claim, cells, gone, cores) for claim in claims]


CELL_COLUMNS = ["claim", "api", "case", "versus", "metric", "ratio", "ratio_low", "ratio_high", "test",
                "test_low", "test_high", "test_p", "p", "q", "pairs", "ratio_note", "outcome"]


def cell_table(claims: list[Claim], cells: pd.DataFrame) -> pd.DataFrame:
    """Every claim's cells in the run with each one's test, the interval and p it read, and its
    outcome (tables/claim_cells.csv): the evidence behind each verdict, cell by cell."""
    return pd.concat([claim_cells(claim, cells).assign(claim=claim.id) for claim in claims],
                     ignore_index=True).reindex(columns=CELL_COLUMNS)


def rounds_text(part: pd.DataFrame) -> str:
    """Rounds (pairs) per cell over the claim's cells: "3", or "3-7" when the stopping rule gave
    some cells more; empty for an unpaired run."""
    pairs = column(part, "pairs").dropna() if part is not None else pd.Series(dtype=float)
    if pairs.empty:
        return ""
    low, high = int(pairs.min()), int(pairs.max())
    return str(low) if low == high else f"{low}-{high}"


def largest(part: pd.DataFrame | None, name: str):
    values = column(part, name).dropna() if part is not None and not part.empty else pd.Series(dtype=float)
    return float(values.max()) if not values.empty else None


def verdict_table(results: list[Verdict], checks: dict, needed: dict | None = None) -> pd.DataFrame:
    """One row per claim; `checks` (claim id -> analysis.study_check.StudyCheck) adds the column
    saying whether the study's own tables support the claim, `needed` (claim id -> text,
    analysis.open_questions) the rounds that would decide an inconclusive one. `p_largest` is the
    largest p of the claim's cells by its test (for an "all" claim, the claim's own p by the
    intersection-union test), `q_largest` the same for q (direction claims)."""
    return pd.DataFrame.from_records([{
        "claim": v.claim.id, "alternative_of": v.claim.alternative_of, "claim_tested": v.claim.summary,
        "study_words": v.claim.words, "study_lines": v.claim.cited, "apis": " ".join(v.claim.apis),
        "cases": " ".join(map(str, v.claim.cases)), "metrics": " ".join(v.claim.metrics),
        "share": v.claim.share, "test": v.claim.test.describe(), "test_used": test_name(v.claim),
        "reading": v.claim.reading,
        "study_own_data": checks[v.claim.id].status, "study_own_data_detail": checks[v.claim.id].detail,
        "verdict": v.verdict, **{outcome.replace(" ", "_"): v.counts[outcome] for outcome in OUTCOMES},
        "missing_cells": len(v.missing), "scope_cells": v.scope,
        "judged_cells": 0 if v.verdict == CANNOT_JUDGE_HERE else v.scope - len(v.not_judged),
        "not_judged": not_judged_text(v.claim, v.not_judged), "p_largest": largest(v.part, "test_p"),
        "q_largest": largest(v.part, "q") if isinstance(v.claim.test, Direction) else None,
        "rounds": rounds_text(v.part), "rounds_needed": (needed or {}).get(v.claim.id, ""), "cores": v.cores,
        "explanation": v.explanation} for v in results])
