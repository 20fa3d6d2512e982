"""The bottom line: what a team choosing a stack asks first (which framework served more, by how
much, at what CPU per request and memory, and how sure), in a few sentences written from the run's
own figures. The report opens with it and the console ends with it (collect/passes/progress.py), both from
`sentences`, so the two say the same thing.

Per comparison (the reference over each other framework, as the answer has them) and API: in how
many cases the reference served more requests per second and in how many significantly, and the
range of its throughput, CPU-per-request and memory ratios, each end with its 95 % interval and
case. Then where an arm used one core of several (analysis.cores), the machine and the load
generator, how many items were valid (analysis.item_counts), and what the intervals cover.
"""
import pandas as pd

from analysis import answer, cores, machine, memory, verdicts
from analysis.item_counts import ItemCounts, counts
from analysis.load import Run

API_NAMES = {"rest": "REST", "graphql": "GraphQL"}
# What a single run's interval covers, and what pooling runs adds (docs/commands.md, "testbed pool").
THIS_RUN_ONLY = ("Every interval is this run's alone (95 %, over its rounds on this machine): a second run of "
                 "the same commit can land elsewhere by the spread between runs, which `./testbed pool RUN…` "
                 "measures over several runs and adds to each interval (docs/commands.md, \"testbed pool\").")


def usable(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows whose ratio says something: measured, and not bound on both sides."""
    return rows[rows["ratio"].notna() & (rows["bound"] != "both")]


def short(cell: pd.Series) -> str:
    """A ratio as few characters as say it: `1.27 [1.00, 1.62]`, `≥ 2.70 (bound)`, `4.62 (no interval)`."""
    if cell["bound"]:
        return f"{answer.BOUND_TEXT[cell['bound']]} {cell['ratio']:.2f} (bound)"
    if pd.isna(cell["ratio_low"]):
        return f"{cell['ratio']:.2f} (no interval)"
    return f"{cell['ratio']:.2f} [{cell['ratio_low']:.2f}, {cell['ratio_high']:.2f}]"


def span(rows: pd.DataFrame) -> str:
    """`1.05 [0.95, 1.16] (case 4) to 1.62 [1.40, 1.88] (case 18)`: the smallest and the largest
    ratio of the rows, each with its interval and case."""
    rows = usable(rows).sort_values("ratio")
    low, high = rows.iloc[0], rows.iloc[-1]
    text = f"{short(low)} (case {low['case']})"
    return text if len(rows) == 1 else f"{text} to {short(high)} (case {high['case']})"


def cases_text(n: int) -> str:
    return f"{n} case{'s' if n != 1 else ''}"


def cases_run(run: Run, versus: answer.Versus, api: str) -> set[int]:
    """The API's cases both arms measured (an ok item each), also those the answer has no pair for
    (counted as not measurable here); an API an arm does not serve has its items excluded."""
    ran = run.summary[(run.summary["api"] == api) & (run.summary["status"] == "ok")]
    return set(ran[ran["framework"] == versus.numerator]["case"]) \
        & set(ran[ran["framework"] == versus.denominator]["case"])


def throughput_part(run: Run, rows: pd.DataFrame, versus: answer.Versus, api: str) -> str:
    """Which way the throughput went in how many cases, and its ratio's range."""
    a, b = run.display_name(versus.numerator), run.display_name(versus.denominator)
    measured = usable(rows)
    n = len(cases_run(run, versus, api) | set(rows["case"]))
    if measured.empty:
        return f"no case of {n} was measurable for both {a} and {b}"
    # A bound that leaves the direction open (≥ 0.8: the true ratio may be above 1) counts for neither.
    settled = measured[(measured["bound"] == "") | ((measured["bound"] == ">=") & (measured["ratio"] > 1))
                       | ((measured["bound"] == "<=") & (measured["ratio"] < 1))]
    sure = settled[settled["judged"].astype(bool) & settled["significant"].astype(bool)]
    directions = {word: (int(side(settled["ratio"]).sum()), int(side(sure["ratio"]).sum()))
                  for word, side in (("more", lambda r: r > 1), ("fewer", lambda r: r < 1))}
    # The majority's direction leads, so the sentence opens with what most cases showed.
    (lead, (k, k_sure)), (other, (m, m_sure)) = sorted(directions.items(), key=lambda d: -d[1][0])
    unmeasured, open_bound = n - measured["case"].nunique(), len(measured) - len(settled)
    return (f"{a} served {lead} requests per second than {b} in {k} of {cases_text(n)} ({significantly(k_sure)})"
            + (f", {other} in {m} ({significantly(m_sure)})" if m else "")
            + (f", {open_bound} open (bound by the load generator, either way)" if open_bound else "")
            + (f", {unmeasured} not measurable here" if unmeasured else "")
            + f": {versus.symbol if versus.study else f'{a} / {b}'} {span(rows)}")


def significantly(n: int) -> str:
    return f"{n or 'none'} significantly"


COSTS = ((("app_cpu_ms_per_req", "app CPU per request"), ("cpu_mean_pct", "mean CPU")),
         ((memory.METRIC, "memory (fresh process)"), ("rss_peak_mb", "peak memory")))


def cost_part(run: Run, rows: pd.DataFrame, versus: answer.Versus) -> str:
    """CPU per request and memory, as times the other framework's: of each pair of COSTS, the first
    the comparison has a ratio for."""
    found = [next(((m, name) for m, name in choices if not usable(rows[rows["metric"] == m]).empty), None)
             for choices in COSTS]
    said = [(name, span(rows[rows["metric"] == metric])) for metric, name in filter(None, found)]
    if not said:
        return ""
    (first, ratios), *more = said
    return (f" {run.display_name(versus.numerator)}'s {first} was {ratios} times "
            f"{run.display_name(versus.denominator)}'s" + "".join(f", its {n} {r} times" for n, r in more) + ".")


def comparison_lines(run: Run, answers: pd.DataFrame, versus: answer.Versus) -> list[str]:
    """Per API the throughput's direction and range, then CPU and memory; then the one-core note."""
    mine = answer.of(answers, versus)
    lines = []
    for api in [a for a in API_NAMES if a in set(mine["api"]) or cases_run(run, versus, a)]:
        rows = mine[mine["api"] == api]
        lines.append(f"{API_NAMES[api]}: {throughput_part(run, rows[rows['metric'] == 'throughput_rps'], versus, api)}."
                     + cost_part(run, rows, versus))
    if not lines:
        lines.append(f"No case has both {run.display_name(versus.numerator)} and "
                     f"{run.display_name(versus.denominator)} measured.")
    note = cores.note(run, [versus.numerator, versus.denominator])
    return lines + ([note] if note else [])


def where_sentence(run: Run, rounds: int | None) -> str:
    m = run.manifest.machine
    about = ", ".join(x for x in (m.cpu_model, f"{m.mem_total_mb / 1024:.0f} GB" if m.mem_total_mb else None,
                                  m.recorded.get("os")) if x)
    where = ("from remote engines" if run.manifest.engines else
             "on a CPU set of its own" if run.manifest.layout and run.manifest.layout.applied else
             "sharing the machine's cores")
    return (f"Measured on {run.cores} cores ({about}) with {machine.loadgen_name(run)} {where}"
            + (f", in {rounds} paired round{'s' if rounds != 1 else ''}" if rounds else "") + ".")


def compared(run: Run, reference: str | None = None) -> list[answer.Versus]:
    """The comparisons the bottom line speaks of: the reference against each other framework, or
    for a run of one framework's variants, each variant against its reference arm."""
    return answer.framework_comparisons(run, reference) or answer.variant_comparisons(run)


def sentences(run: Run, answers: pd.DataFrame, against: list, counted: ItemCounts) -> list[str]:
    """The bottom line: per comparison (`compared`) one line per API and the one-core note, then
    (the last three) the machine and load, the items' validity, and what the intervals cover."""
    if against:
        lines = [line for v in against for line in comparison_lines(run, answers, v)]
    elif answer.framework_arms(run):
        only = run.display_name(answer.framework_arms(run)[0])
        lines = [f"Only {only} ran, so there is no ratio: its own figures per case are in the answer."]
    else:
        lines = []
    if not counted.usable:
        lines = ["No item passed its validity checks, so this run gives no answer."]
    rounds = run.manifest.protocol.rounds if run.manifest.paired else None
    return lines + [where_sentence(run, rounds), counted.sentence(), THIS_RUN_ONLY]


def for_run(run: Run, reference: str | None = None) -> list[str]:
    """The bottom line of a finished run, worked out as the report does (the console's end)."""
    counted = counts(run)
    against = compared(run, reference)
    if not counted.usable or not against:
        return sentences(run, pd.DataFrame(columns=answer.COLUMNS), against, counted)
    sig = verdicts.report_cells(run)
    answers = [answer.answer(run, sig, v) for v in against]
    return sentences(run, pd.concat(answers, ignore_index=True), against, counted)
