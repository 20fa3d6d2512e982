"""The answer a team choosing a stack came for, which the report opens with: every framework of the
run against a reference framework, per API and case: the ratio reference / other with its 95 %
interval and significance, for the metrics a choice turns on, and whether the load generator rather
than the case set the load. Then the same answer for variant against variant (docs/glossary.md,
"Variant"): each other arm of a framework over its reference arm.

The numbers are analysis.tables' (paired rounds when the run has them, independent groups
otherwise); this module picks the comparisons and the metrics, adds the load flags, and words the
table.

Which arms. The framework answer compares the run's framework arms (each framework's default
variant; a framework run only as other variants takes no part) with the reference framework:
`--reference`, else the first of the study's pair (aspnet, express) in the run, else the run's
first framework. The reference is the numerator, so the default answer of a run with both of the
study's frameworks is the study's own A/E, ASP.NET Core / Express.js. For each framework with two
or more arms in the run, its reference arm is the one named first in `settings.frameworks`
(`--variants aspnet:mvc,aspnet` makes `aspnet:mvc` the reference), and every other arm of that
framework is compared with it, the reference as denominator (a variant reads new / baseline).
"""
import math
from dataclasses import dataclass

import pandas as pd

from analysis import memory, rounds_needed, validity
from analysis.load import Run
from analysis.metrics import case_label
from analysis.stats import adjust_family
from analysis.tables import CASE_COLUMNS, STOPPED_ON, compare_arms, ok_rows, report_order
from benchlib.cases import STUDY_PAIR

ASPNET, EXPRESS = STUDY_PAIR
# All go to answer.csv; the page shows SHOWN so the table fits a screen (mean and p99 follow p95
# closely in every run so far, and are one click away in the CSV). CPU per request and memory from
# fresh processes exist from schema 3 on (validity checks, memory.csv); older runs answer without
# them, and their memory is the run-long peak RSS.
PER_REQUEST = ("app_cpu_ms_per_req", "db_cpu_ms_per_req")
METRICS_ANSWERED = ("throughput_rps", *PER_REQUEST, "mean_ms", "p95_ms", "p99_ms", "cpu_mean_pct", "rss_peak_mb",
                    memory.METRIC)
SHOWN = ("throughput_rps", *PER_REQUEST, "p95_ms", "cpu_mean_pct", "rss_peak_mb", memory.METRIC)
HEADINGS = {"throughput_rps": "Throughput", "app_cpu_ms_per_req": "App CPU per request",
            "db_cpu_ms_per_req": "DB CPU per request", "p95_ms": "p95 response time", "cpu_mean_pct": "CPU (mean)",
            "rss_peak_mb": "Memory (peak RSS)", memory.METRIC: "Memory (fresh process)"}
# Which side of 1 favours the numerator: only for throughput is more better.
HIGHER_IS_BETTER = {"throughput_rps"}
# The flags that mean the case's nominal load was not what the server saw (errors are a flag of
# their own: the numbers still describe the load applied).
LOAD_FLAGS = {
    "underloaded": "fewer than half of JMeter's threads had a request in flight on average, so the "
                   "load generator, not the case, set the load",
    "loadgen_saturated": "JMeter (with remote engines: the busiest engine) used 90 % or more of its "
                         "cores, so it may have held the load back",
    "engines_out_of_step": "a remote engine's threads started more than 1 s after the measurement's "
                           "shared start, so the engines' windows did not line up",
    "loadgen_bound": "the load generator was at its ceiling or held the machine (validity `bound`): "
                     "its throughput and response times are bounds, its CPU and memory left out (below)",
    "unfair": "the server left some connections unserved for the whole window (latency_validity "
              "`unfair`): its response times are left out (below)",
}
# Ratios with a load-generator-bound arm (throughput, response times): validity.bound_direction.
BOUND_TEXT = {">=": "≥", "<=": "≤"}
SIGNIFICANT, FLAGGED = "*", "‡"
PAIRED, INDEPENDENT = "paired rounds", "independent groups"
# Named by role, never by framework: `numerator` / `denominator` are the arms a row compares and
# numerator_n / denominator_n their usable items.
# `q`: p adjusted over the report's family of tests (Benjamini-Hochberg), which `significant` reads;
# `test`: the test behind p; `stopping`: the cell's state when the run's extra rounds ended
# (benchlib/stopping.py; empty for runs without them); `rounds_needed`: the rounds that would bring a
# cell's interval within the target at the spread this run saw, or why none would (empty: it is).
COLUMNS = ["api", *CASE_COLUMNS, "metric", "ratio", "ratio_low", "ratio_high", "p", "significant", "judged",
           "pairs", "load_flags", "comparison", "note",
           "numerator", "denominator", "numerator_n", "denominator_n", "bound", "q", "test", "stopping",
           "rounds_needed"]
COUNT_COLUMNS = ["numerator_n", "denominator_n"]


class UnknownReference(ValueError):
    """--reference names no framework arm of the run."""


@dataclass(frozen=True)
class Versus:
    """One comparison the report answers: numerator / denominator, two arms of the run;
    `frameworks` for two frameworks (the framework answer), else two arms of one framework."""
    numerator: str
    denominator: str
    frameworks: bool = False

    @property
    def study(self) -> bool:
        """The study's own ratio, ASP.NET Core / Express.js."""
        return (self.numerator, self.denominator) == STUDY_PAIR

    @property
    def symbol(self) -> str:
        """How tables and figures write the ratio."""
        return "A/E" if self.study else "ratio"


STUDY = Versus(ASPNET, EXPRESS, frameworks=True)


def framework_arms(run: Run) -> list[str]:
    """The run's frameworks as the framework answer takes them: each one's default arm, in the run's
    order."""
    return [arm for arm in run.arms if run.base(arm) == arm]


def reference(run: Run, wanted: str | None = None) -> str | None:
    """The reference framework: `wanted` (--reference), else the first of the study's pair in the
    run, else the run's first framework; None for a run without a framework arm."""
    arms = framework_arms(run)
    if wanted is not None:
        if wanted not in arms:
            raise UnknownReference(f"--reference {wanted}: run {run.run_id} has no framework {wanted!r}; "
                                   f"its frameworks: {', '.join(arms) or 'none'}")
        return wanted
    return next((f for f in STUDY_PAIR if f in arms), arms[0] if arms else None)


def framework_comparisons(run: Run, wanted: str | None = None) -> list[Versus]:
    """The reference over every other framework of the run, in the run's order."""
    ref = reference(run, wanted)
    return [Versus(ref, arm, frameworks=True) for arm in framework_arms(run) if arm != ref]


def variant_comparisons(run: Run) -> list[Versus]:
    """Per framework with two or more arms, in the order the run names them: each other arm over
    the framework's reference arm (the one named first)."""
    by_base: dict[str, list[str]] = {}
    for arm in run.arms:
        by_base.setdefault(run.base(arm), []).append(arm)
    return [Versus(arm, arms[0]) for arms in by_base.values() for arm in arms[1:]]


def load_flags(run: Run, arms=STUDY_PAIR) -> pd.DataFrame:
    """Per api and case: the load flags any ok iteration of either arm carried, ';'-joined."""
    ok = ok_rows(run)
    ok = ok[ok["framework"].isin(arms)]
    # A bound or unfair item says so in its verdicts, not its flags.
    ok = ok.assign(flags=ok["flags"] + ok["validity"].map({validity.BOUND: ";loadgen_bound"}).fillna("")
                   + ok["latency_validity"].map({validity.UNFAIR: ";unfair"}).fillna(""))
    found = ok.groupby(["api", "case"])["flags"].agg(
        lambda flags: ";".join(f for f in LOAD_FLAGS if any(f in str(v).split(";") for v in flags)))
    return found.rename("load_flags").reset_index()


def stopping_states(run: Run) -> dict[tuple[str, int], str]:
    """(api, case) -> its state when the run's extra rounds ended, from the manifest."""
    return {(s.api, s.case): s.state for s in run.manifest.sequential.states}


def answer(run: Run, sig: pd.DataFrame, versus: Versus = STUDY) -> pd.DataFrame:
    """One comparison's answer: one row per api x case x metric of METRICS_ANSWERED (the columns of
    tables/answer.csv). The study's A/E takes its cells from `sig` (tables.significance, whose q is
    adjusted over the report's family with the study's tables); any other comparison is one family
    of tests of its own, so its q does not depend on which other arms the run had."""
    if versus.study:
        cells = sig.rename(columns={f"{ASPNET}_n": "numerator_n", f"{EXPRESS}_n": "denominator_n"})
    else:
        cells = adjust_family(compare_arms(run, versus.numerator, versus.denominator), METRICS_ANSWERED)
        cells = cells.rename(columns={"a_n": "numerator_n", "b_n": "denominator_n"})
    return shape(run, cells, versus)


def shape(run: Run, cells: pd.DataFrame, versus: Versus) -> pd.DataFrame:
    answered = [m for m in METRICS_ANSWERED if run.checked or m not in PER_REQUEST]
    if run.manifest.paired and not cells.empty:
        # A case whose arms were usable in different rounds has no pair: analysis.validity says why.
        paired_cases = cells.groupby(["api", "case"])["pairs"].transform("max") > 0
        cells = cells[paired_cases]
    part = cells[cells["metric"].isin(answered)]
    fresh = memory_cells(run, cells, versus)
    if not fresh.empty:
        part = pd.concat([part, fresh], ignore_index=True)
    part = part.assign(bound=part["bound"].fillna("") if "bound" in part else "")
    part = part.merge(load_flags(run, (versus.numerator, versus.denominator)), on=["api", "case"], how="left")
    part["load_flags"] = part["load_flags"].fillna("")
    part["comparison"] = PAIRED if run.manifest.paired else INDEPENDENT
    part["note"] = part["ratio_note"].fillna("")
    part["numerator"], part["denominator"] = versus.numerator, versus.denominator
    part = part.astype({c: "Int64" for c in COUNT_COLUMNS})
    if "q" not in part:  # a comparison table from before the family adjustment
        part["q"] = None
    part["test"] = part["test"].fillna("") if "test" in part else ""
    part["stopping"] = [stopping_states(run).get((api, case), "") for api, case in zip(part["api"], part["case"])]
    part["rounds_needed"] = needed(run, part)
    return part.sort_values(["api", "case", "metric"], key=answer_order)[COLUMNS].reset_index(drop=True)


def needed(run: Run, part: pd.DataFrame) -> list[str]:
    """Each row's rounds_needed (analysis.rounds_needed); memory from fresh processes names the
    option that sets their number (--memory-rounds), since --iterations does not."""
    width = rounds_needed.target(run.manifest)
    spread = part["spread"] if "spread" in part else pd.Series(float("nan"), index=part.index)
    degrees = part["df"] if "df" in part else pd.Series(float("nan"), index=part.index)
    texts = [rounds_needed.for_answer(
        r.bound, int(r.pairs) if pd.notna(r.pairs) else int(min(r.numerator_n, r.denominator_n)),
        r.ratio, float(r.ratio_high) if pd.notna(r.ratio_high) else math.nan,
        float(s) if pd.notna(s) else math.nan, r.note, width, df,
        run.manifest.extra_rounds and r.metric in STOPPED_ON)
        for r, s, df in zip(part.itertuples(index=False), spread, degrees)]
    return [rounds_needed.on_fresh_processes(text) if metric == memory.METRIC else text
            for text, metric in zip(texts, part["metric"])]


def memory_cells(run: Run, cells: pd.DataFrame, versus: Versus) -> pd.DataFrame:
    """The fresh processes' memory ratio (memory.csv) as answer cells of the cases the comparison
    has; none for a run without memory.csv."""
    found = memory.ratios(run, versus.numerator, versus.denominator)
    if found.empty or cells.empty:
        return pd.DataFrame(columns=cells.columns)
    cases = cells[["api", *CASE_COLUMNS]].drop_duplicates()
    found = cases.merge(found, on=["api", "case"])
    judged = found["ratio_low"].notna()
    return found.assign(
        metric=memory.METRIC, p=None, judged=judged, bound="",
        significant=judged & ((found["ratio_low"] > 1) | (found["ratio_high"] < 1)),
        numerator_n=found["pairs"], denominator_n=found["pairs"])


def of(answers: pd.DataFrame, versus: Versus) -> pd.DataFrame:
    """The rows of one comparison."""
    return answers[(answers["numerator"] == versus.numerator) & (answers["denominator"] == versus.denominator)]


def answer_order(column: pd.Series) -> pd.Series:
    """REST before GraphQL, metrics as METRICS_ANSWERED lists them."""
    if column.name == "metric":
        return column.map({m: i for i, m in enumerate(METRICS_ANSWERED)})
    return report_order(column)


def better_side(metric: str, versus: Versus = STUDY) -> tuple[str, str]:
    """(the arm favoured left of 1, right of 1) on a ratio axis."""
    a, b = versus.numerator, versus.denominator
    return (b, a) if metric in HIGHER_IS_BETTER else (a, b)


def shown(answers: pd.DataFrame) -> list[str]:
    """The metrics the page shows: SHOWN, those the comparison has, memory from fresh processes
    instead of the run-long peak RSS where the run measured it."""
    present = set(answers["metric"])
    metrics = [m for m in SHOWN if m in present]
    return [m for m in metrics if not (m == "rss_peak_mb" and memory.METRIC in present)]


def ratio_text(cell: pd.Series) -> str:
    if pd.isna(cell["ratio"]):
        return "–"
    if cell.get("bound") == "both":
        return (f"not measurable here: both arms load-generator bound (measured {cell['ratio']:.2f}); "
                f"to measure it: {validity.MORE_LOAD}")
    if cell.get("bound"):
        return f"{BOUND_TEXT[cell['bound']]} {cell['ratio']:.2f} (bound)"
    text = f"{cell['ratio']:.2f}"
    if not pd.isna(cell["ratio_low"]):
        text += f" [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"
    elif cell["note"]:
        text += f" ({cell['note']})"
    return text + (f" {SIGNIFICANT}" if cell["judged"] and cell["significant"] else "")


def display(answers: pd.DataFrame, api: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The page's table for one API, and a same-shaped frame of CSS classes (significant cells bold,
    cells of load-flagged cases greyed)."""
    part = answers[answers["api"] == api]
    rows, classes = [], []
    for (case, *load), group in part.groupby(CASE_COLUMNS, sort=True):
        by = group.set_index("metric")
        flags = group["load_flags"].iloc[0]
        row = {"Case": case_label(case, *load) + (f" {FLAGGED}" if flags else "")}
        css = {"Case": "load-flagged" if flags else ""}
        for metric in shown(answers):
            heading = HEADINGS[metric]
            if metric not in by.index:
                row[heading], css[heading] = "–", ""
                continue
            cell = by.loc[metric]
            row[heading] = ratio_text(cell)
            css[heading] = " ".join(c for c in ("significant" if cell["judged"] and cell["significant"] else "",
                                                "load-flagged" if flags else "") if c)
        row["n"] = count_text(group.iloc[0])
        row["Load flags"] = flags.replace(";", ", ") or "–"
        css["n"] = css["Load flags"] = ""
        rows.append(row)
        classes.append(css)
    return pd.DataFrame(rows), pd.DataFrame(classes)


def count_text(row) -> str:
    """Pairs for a paired run; otherwise the iterations per arm (numerator / denominator)."""
    if row["comparison"] == PAIRED:
        return f"{int(row['pairs'])} pair{'s' if row['pairs'] != 1 else ''}"
    return f"{int(row['numerator_n'])} / {int(row['denominator_n'])} iter."
