"""Every figure the documents quote from a run comes from one showcase run, committed in docs/showcase/
(its README says what is there and how to take a new one), and matches it:
- README.md's console excerpt is the showcase's console, line for line, and ends with its end (the
  bottom line); the summary figure is the showcase's; the wall time and counts beside it are the run's;
- docs/reproducing-the-study.md's verdict table is the showcase's verdicts.csv, claim by claim;
- docs/reading-the-report.md's excerpt is the showcase's report: its opening paragraph and its answer's
  ratios (answer.csv); so are its figures of JMeter's skipped cross-check and of the load generator's
  share of the rate (report-excerpt.md), of Little's ratio (validity.csv) and of the requests per window;
- docs/your-hardware.md's counts of items and cells (validity.csv) and load generators' costs (the
  console) are the showcase's;
- the console and the report open with the same bottom line, as the documents say they do.
Each document that quotes the showcase names its run id. Only committed files are read."""
import csv
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOWCASE = ROOT / "docs" / "showcase"
RUN = json.loads((SHOWCASE / "run.json").read_text())
RUN_ID = RUN["run_id"]
README = ROOT / "README.md"
REPRODUCING = ROOT / "docs" / "reproducing-the-study.md"
READING = ROOT / "docs" / "reading-the-report.md"
HARDWARE = ROOT / "docs" / "your-hardware.md"
ELIDED = "…"
# The study's pair, whose cells the documents count.
PAIR = ("aspnet", "express")


def table(name: str) -> list[dict]:
    with open(SHOWCASE / "tables" / name, newline="") as f:
        return list(csv.DictReader(f))


def console() -> list[str]:
    return (SHOWCASE / "console.txt").read_text().splitlines()


def console_end() -> list[str]:
    """The console from the run's last count of its measurements to the end: the bottom line."""
    lines = console()
    start = max(i for i, line in enumerate(lines) if line.startswith(f"run {RUN_ID}: "))
    return lines[start:]


def report_excerpt() -> str:
    return (SHOWCASE / "report-excerpt.md").read_text()


def section(text: str, heading: str) -> str:
    """A Markdown section: from its heading to the next heading of the same level or higher."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(f"\n{heading}\n") + 1
    following = re.search(rf"(?m)^#{{1,{level}}} ", text[start + len(heading):])
    return text[start:start + len(heading) + following.start()] if following else text[start:]


def fenced(text: str, containing: str) -> list[str]:
    """The lines of the first fenced block holding `containing`."""
    for block in re.findall(r"(?ms)^```[a-z]*\n(.*?)^```", text):
        if containing in block:
            return block.splitlines()
    raise AssertionError(f"no fenced block holds {containing!r}")


def cells(line: str) -> list[str]:
    """A Markdown table row's cells (a `\\|` inside a cell is text)."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def markdown_table(text: str) -> list[dict]:
    """The first table in `text`, as one dict per row keyed by its header."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = cells(lines[0])
    return [dict(zip(header, cells(line))) for line in lines[2:]]


def minutes(seconds: int) -> str:
    return f"{seconds // 60} min {seconds % 60} s"


def in_order(quoted: list[str], lines: list[str]) -> list[str]:
    """The quoted lines (elisions aside) that are not lines of `lines`, in their order."""
    missing, at = [], 0
    for line in (q for q in quoted if q.strip() != ELIDED):
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            missing.append(line)
    return missing


def test_the_showcase_s_readme_links_resolve():
    """The folder's README is not among the documents docs/test_docs.py checks; its links are checked here."""
    from test_docs import anchors, links

    for _, target in links(SHOWCASE / "README.md"):
        file_part, _, anchor = target.partition("#")
        where = (SHOWCASE / file_part).resolve()
        assert where.is_relative_to(ROOT) and where.exists(), target
        assert not anchor or anchor in anchors(where), target


def test_the_showcase_is_one_run():
    assert report_excerpt().startswith(f"# Testbed report: run {RUN_ID}\n")
    assert console_end()[0].startswith(f"run {RUN_ID}: ")
    assert RUN["command"] == "./testbed run" and RUN["profile"] == "quick" and not RUN["git_dirty"]


# README.md


def readme_console() -> list[str]:
    return fenced(README.read_text(), "The bottom line (the report opens with it):")


def test_the_readme_console_excerpt_ends_with_the_showcase_console_end():
    quoted, end = readme_console(), console_end()
    assert quoted[-len(end):] == end


def test_every_line_of_the_readme_console_excerpt_is_the_showcase_console_s():
    assert not in_order(readme_console(), console())


def test_the_readme_shows_the_showcase_summary_figure_and_the_run_s_wall_time():
    text = " ".join(README.read_text().split())
    assert "](docs/showcase/figures/summary.png)" in text
    assert f"{minutes(RUN['wall_s'])} (run {RUN_ID}" in text


def bottom_line(report: str) -> str:
    """The report's bottom line: its bullets, then the paragraph under the figure and its caption."""
    part = section(report, "## The bottom line")
    bullets = [line[2:] for line in part.splitlines() if line.startswith("- ")]
    figure, caption, context, *_ = part[part.index("\n![") + 1:].split("\n\n")
    return " ".join([*bullets, context.strip()])


def test_the_console_ends_with_the_bottom_line_the_report_opens_with():
    """As the documents say: the console's end and the report's first lines are the same sentences."""
    end = console_end()
    start = end.index("The bottom line (the report opens with it):") + 1
    said = [line.strip() for line in end[start:] if line.startswith("  ")]
    assert " ".join(said) == bottom_line(report_excerpt())


# docs/reproducing-the-study.md

VERDICT_COLUMNS = {"Claim": "claim", "What the study said": "claim_tested", "The study's own tables": "study_own_data",
                   "This run": "verdict"}


def verdict_mismatches(text: str) -> list[str]:
    """Where the verdict table of `text` differs from the showcase's verdicts.csv."""
    quoted = markdown_table(section(text, "## What one default run found"))
    expected = table("verdicts.csv")
    found = [f"{len(quoted)} rows quoted, {len(expected)} claims"] if len(quoted) != len(expected) else []
    for row, claim in zip(quoted, expected):
        for column, field in VERDICT_COLUMNS.items():
            if row.get(column, "").strip("`") != claim[field]:
                found.append(f"{claim['claim']}: {column} {row.get(column)!r}, the showcase {claim[field]!r}")
        judged = f"{claim['judged_cells']} of {claim['scope_cells']}"
        if row.get("Judged") != judged:
            found.append(f"{claim['claim']}: Judged {row.get('Judged')!r}, the showcase {judged!r}")
    return found


def test_the_verdict_table_is_the_showcase_s_claim_by_claim():
    text = REPRODUCING.read_text()
    assert RUN_ID in section(text, "## What one default run found")
    assert not verdict_mismatches(text)


def tally() -> str:
    verdicts = [v["verdict"] for v in table("verdicts.csv")]
    counted = ", ".join(f"{verdicts.count(v)} {v}" for v in ("reproduced", "not reproduced", "inconclusive",
                                                             "cannot be judged here"))
    return f"Of its {len(verdicts)} claims: {counted}."


def test_the_verdicts_are_summed_up_as_the_showcase_s():
    assert tally() in " ".join(section(REPRODUCING.read_text(), "## What one default run found").split())


WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def test_the_claims_the_study_s_own_tables_do_not_support_are_counted_as_the_showcase_s():
    """The study's side does not depend on the run, but its count is quoted from the same table."""
    against = [v for v in table("verdicts.csv") if v["study_own_data"] == "not supported"]
    alternatives = sum(bool(v["alternative_of"]) for v in against)
    said = f"do not support {WORDS[len(against) - alternatives]} of its claims and {WORDS[alternatives]} " \
           f"alternative readings"
    assert said in " ".join(REPRODUCING.read_text().split())


def test_a_verdict_that_differs_from_the_showcase_fails():
    """The check can fail: one verdict changed is found."""
    text = REPRODUCING.read_text()
    claim = table("verdicts.csv")[0]
    row = next(line for line in text.splitlines() if line.startswith(f"| `{claim['claim']}` |"))
    other = "reproduced" if claim["verdict"] != "reproduced" else "not reproduced"
    changed = row.replace(f"| {claim['verdict']} |", f"| {other} |")
    assert len(verdict_mismatches(text.replace(row, changed))) == 1


# docs/reading-the-report.md

ANSWER_METRICS = {"Throughput": "throughput_rps", "App CPU per request": "app_cpu_ms_per_req",
                  "DB CPU per request": "db_cpu_ms_per_req", "p95 response time": "p95_ms",
                  "CPU (mean)": "cpu_mean_pct", "Memory (fresh process)": "memory_hwm_mb"}
RATIO = re.compile(r"(?P<bound>[≥≤] )?(?P<ratio>\d+\.\d\d)(?: \[(?P<low>\d+\.\d\d), (?P<high>\d+\.\d\d)\])?"
                   r"(?P<bound_note> \(bound\))?(?P<star> \*)?")


def shown(value: str) -> str:
    return f"{float(value):.2f}" if value else ""


def ratio_mismatch(cell: str, row: dict) -> str | None:
    """None when a quoted ratio (`1.53 [1.36, 1.73] *`, `≥ 2.70 (bound)`, `–`) is answer.csv's row."""
    if cell == "–":
        return None if not row["ratio"] else f"{cell!r}, the showcase {shown(row['ratio'])}"
    found = RATIO.fullmatch(cell)
    if not found:
        return f"{cell!r} is not a ratio"
    interval = ("", "") if row["bound"] else (shown(row["ratio_low"]), shown(row["ratio_high"]))
    expected = (shown(row["ratio"]), *interval, row["significant"] == "True")
    quoted = (found["ratio"], found["low"] or "", found["high"] or "", bool(found["star"]))
    return None if quoted == expected else f"{cell!r}, the showcase {expected}"


def answer_mismatches(text: str, api: str) -> list[str]:
    """Where the answer rows quoted in `text` differ from the showcase's answer.csv for `api`."""
    rows = {(int(r["case"]), r["metric"]): r for r in table("answer.csv")
            if r["api"] == api and (r["numerator"], r["denominator"]) == PAIR}
    found = []
    for quoted in markdown_table(text):
        case = int(re.match(r"case (\d+):", quoted["Case"])[1])
        for column, metric in ANSWER_METRICS.items():
            wrong = ratio_mismatch(quoted[column], rows[(case, metric)])
            if wrong:
                found.append(f"case {case}, {column}: {wrong}")
        pairs = rows[(case, "throughput_rps")]["pairs"]
        if quoted["n"] != f"{pairs} pairs":
            found.append(f"case {case}, n: {quoted['n']!r}, the showcase {pairs} pairs")
    return found


def reading_excerpt() -> str:
    text = READING.read_text()
    return text[text.index("An excerpt of"):text.index("Contents:")]


def test_the_report_excerpt_names_the_showcase_run():
    assert f"run {RUN_ID}" in reading_excerpt()


def test_the_report_excerpt_s_opening_is_the_showcase_report_s():
    quoted = re.search(r"(?m)^> (.*?) …$", reading_excerpt())[1]
    assert quoted in report_excerpt()


def test_the_report_excerpt_s_answer_is_the_showcase_answer():
    assert not answer_mismatches(reading_excerpt(), "rest")


def test_a_ratio_that_differs_from_the_showcase_fails():
    """The check can fail: a throughput ratio's last digit changed is found."""
    excerpt = reading_excerpt()
    row = next(line for line in excerpt.splitlines() if line.startswith("| case "))
    ratio = cells(row)[1].split()[0]
    changed = row.replace(f"| {ratio} ", f"| {float(ratio) + 0.01:.2f} ", 1)
    assert answer_mismatches(excerpt.replace(row, changed), "rest")


# docs/your-hardware.md and README.md's counts


def failed_checks(reasons: str) -> list[str]:
    """The checks named in a `validity_reasons` value (`steady_state: …; machine: …`)."""
    return re.findall(r"(?:^|; )(\w+):", reasons)


def counts() -> dict[str, int]:
    """What the documents count in the showcase: items by verdict, invalid ones by failed check, and
    the (API, case) cells where the study's pair was valid in the same round at least twice."""
    items = [r for r in table("validity.csv") if r["status"] == "ok"]
    out = {"items": len(table("validity.csv")), "failed": sum(r["status"] == "failed" for r in table("validity.csv"))}
    for verdict in ("valid", "bound", "invalid"):
        out[verdict] = sum(r["validity"] == verdict for r in items)
    for verdict in ("valid", "unfair", "invalid", "bound"):
        out[f"latency {verdict}"] = sum(r["latency_validity"] == verdict for r in items)
    for r in items:
        if r["validity"] == "invalid":
            for check in set(failed_checks(r["validity_reasons"])):
                out[f"check {check}"] = out.get(f"check {check}", 0) + 1
    valid = {(r["framework"], r["api"], r["case"], r["iteration"]) for r in items if r["validity"] == "valid"}
    cells = {(r["api"], r["case"]) for r in items}
    rounds = {r["iteration"] for r in items}
    out["cells"] = len(cells)
    out["cells paired"] = sum(sum(all((f, *cell, i) in valid for f in PAIR) for i in rounds) >= 2 for cell in cells)
    return out


def paragraph_naming_the_run(path: Path, holding: str) -> str:
    """The paragraph of a document that names the showcase run and holds `holding`, on one line."""
    paragraphs = (" ".join(p.split()) for p in path.read_text().split("\n\n"))
    return next(p for p in paragraphs if f"run {RUN_ID}" in p and holding in p)


def test_your_hardware_counts_the_showcase_run_s_items_and_cells():
    said, c = paragraph_naming_the_run(HARDWARE, " items: "), counts()
    failed = f", {c['failed']} failed" if c["failed"] else ""
    expected = [f"measured {c['items']} items: {c['valid']} valid, {c['bound']} bound, {c['invalid']} invalid{failed}",
                f"{c['cells paired']} of the {c['cells']} (API, case) cells",
                f"the response times were valid in {c['latency valid']} items, unfair in {c['latency unfair']}",
                f"invalid in {c['latency invalid']}", minutes(RUN["wall_s"])]
    expected += [f"`{name[6:]}` {n}" for name, n in c.items() if name.startswith("check ")]
    assert not [e for e in expected if e not in said]


def test_the_readme_counts_the_showcase_run_s_items_and_cells():
    c, text = counts(), " ".join(README.read_text().split())
    assert f"{c['valid']} of {c['items']} measurements passed their checks" in text
    assert f"{c['cells paired']} of the {c['cells']} (API, case) cells" in text


def test_your_hardware_quotes_the_showcase_s_load_generator_costs():
    """The reference work's CPU per request of each load generator, as the console's choice gives them."""
    chosen = next(line for line in console() if line.startswith("load generator: "))
    wrk, jmeter = re.search(r"wrk: it spent (\d+) µs .* against jmeter (\d+) µs", chosen).groups()
    said = " ".join(HARDWARE.read_text().split())
    assert f"run {RUN_ID}" in said and f"JMeter {int(jmeter):,} µs and wrk {wrk} µs" in said


# docs/reading-the-report.md: how the mean response time is read


def median(values: list[float]) -> float:
    ordered, half = sorted(values), len(values) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def rounds_to(quoted: str, low: float, high: float) -> bool:
    """A figure the report rounds to two places, of a value known to lie in [low, high]: validity.csv
    rounds each ratio to three places, so the value is known only that closely (more loosely once
    inverted), and the quote may be any rounding of it."""
    return low - 0.005 <= float(quoted) <= high + 0.005


def test_the_mean_response_time_figures_are_the_showcase_s():
    """Connections / throughput over the sample mean on unfair items (1 / Little's ratio), and Little's
    ratio where every connection was served, over the items whose throughput is usable."""
    usable = [r for r in table("validity.csv") if r["validity"] in ("valid", "bound") and r["littles_ratio"]]
    # each ratio as the interval its three places allow; median, min and max are monotone in every item
    fair = [float(r["littles_ratio"]) for r in usable if r["latency_validity"] == "valid"]
    ratios = [float(r["littles_ratio"]) for r in usable if r["latency_validity"] == "unfair"]
    unfair_low, unfair_high = [1 / (x + 0.0005) for x in ratios], [1 / (x - 0.0005) for x in ratios]
    fair_low, fair_high = [x - 0.0005 for x in fair], [x + 0.0005 for x in fair]
    text = " ".join(READING.read_text().split())
    said = re.search(rf"on run {RUN_ID}'s (\d+) unfair items connections / throughput was (\S+) times the sample "
                     r"mean at the median \((\S+)-(\S+)\), while on its (\d+) items with every connection served "
                     r"the two agreed \(Little's ratio (\S+)-(\S+), median ([\d.]+)\)", text)
    assert said, "the sentence is not there"
    assert (int(said[1]), int(said[5])) == (len(ratios), len(fair))
    for quoted, stat in ((said[2], median), (said[3], min), (said[4], max)):
        assert rounds_to(quoted, stat(unfair_low), stat(unfair_high)), quoted
    for quoted, stat in ((said[6], min), (said[7], max), (said[8], median)):
        assert rounds_to(quoted, stat(fair_low), stat(fair_high)), quoted


def quoted_paragraph(words: str) -> str:
    return next(p for p in report_excerpt().split("\n\n") if p.startswith(words))


def test_the_skipped_cross_check_s_figures_are_the_showcase_report_s():
    said = quoted_paragraph("No second load generator's ratio:")
    jmeter, times, servers = re.search(r"jmeter spent (\S+) ms of CPU per request in the reference work \(.*?\), "
                                       r"(\S+) times the servers' (\S+) ms", said).groups()
    text = " ".join(READING.read_text().split())
    assert f"(run {RUN_ID}: JMeter {jmeter} ms against the servers' {servers} ms, {times} times;" in text


def test_the_load_generator_s_share_of_the_rate_is_the_showcase_report_s():
    said = quoted_paragraph("Where the cores were full,")
    factor = re.search(r"would then change by a factor of (\S+) in the median cell", said)[1]
    text = " ".join(READING.read_text().split())
    assert f"about {factor} in the median cell of run {RUN_ID}" in text


def test_the_requests_per_window_are_the_showcase_s():
    """GraphQL case 1's requests per window, each framework's mean over its usable rounds."""
    case1 = next(r for r in table("extra_graphql_samples.csv") if r["case"] == "1")
    quoted = f"GraphQL case 1 of run {RUN_ID}: {float(case1['aspnet_mean']):,.0f} against " \
             f"{float(case1['express_mean']):,.0f} requests per window"
    assert quoted in " ".join(READING.read_text().split())


def test_the_bottom_line_s_example_is_the_showcase_s():
    text = " ".join(READING.read_text().split())
    example = re.search(rf"\(`(A/E [^`]+)`, REST in run {RUN_ID}\)", text)
    said = " ".join(line.strip() for line in console_end())
    # the range must be REST's: GraphQL's line follows it in the same bottom line
    rest = said[said.index("REST: "):said.index("GraphQL: ")]
    assert example and example[1] in rest
