"""Makes a finished run the documents' showcase: copies into this folder the few files the documents
quote from it (docs/showcase/README.md lists them), so the documents and docs/test_showcase.py read
committed files and never results/, which is not committed.

    /usr/bin/python3 docs/showcase/take.py results/RUN_ID CONSOLE_LOG

CONSOLE_LOG is what `./testbed run` printed; a last line `rc=0 wall=2350s`, which the wrapper that
timed the run appended, gives the wall time and is not copied. Then bring the documents' quotes in
line with the new files until docs/test_showcase.py passes; it prints the verdict table
docs/reproducing-the-study.md quotes, to paste there."""
import csv
import json
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The report's tables the documents quote: the verdicts (reproducing-the-study.md), the answer's
# ratios and the requests per window (reading-the-report.md) and every item's checks (the counts in
# your-hardware.md and reading-the-report.md).
TABLES = ("verdicts.csv", "answer.csv", "validity.csv", "extra_graphql_samples.csv")
# The report's first screen ends where the answer begins.
FIRST_SCREEN_END = "\n## The answer"
# Paragraphs of later sections that reading-the-report.md quotes figures from: (section, first words).
QUOTED = (("## Can you trust this run?", "No second load generator's ratio:"),
          ("## The machine and the load", "Where the cores were full,"))


def excerpt(report_md: str) -> str:
    """report.md's first screen (the bottom line, the summary figure, the trust line, the opening),
    then each quoted paragraph under its section's heading, all verbatim."""
    parts = [report_md[:report_md.index(FIRST_SCREEN_END)].rstrip()]
    for heading, words in QUOTED:
        section = report_md[report_md.index(f"\n{heading}\n"):]
        paragraph = next(p for p in section.split("\n\n") if p.startswith(words))
        parts += [heading, paragraph]
    return "\n\n".join(parts) + "\n"


def console_and_wall(log: str) -> tuple[str, int | None]:
    """The console's text without the timing wrapper's last line, and the wall time that line gives."""
    lines = log.rstrip("\n").splitlines()
    timed = re.fullmatch(r"rc=(\d+) wall=(\d+)s", lines[-1].strip()) if lines else None
    if timed:
        assert timed.group(1) == "0", f"the run ended with {lines[-1]}: not a showcase"
        lines = lines[:-1]
    return "\n".join(lines) + "\n", int(timed.group(2)) if timed else None


def take(run_dir: Path, console_log: Path, into: Path = HERE) -> dict:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    report = run_dir / "report"
    console, wall_s = console_and_wall(console_log.read_text())
    (into / "figures").mkdir(parents=True, exist_ok=True)
    (into / "tables").mkdir(exist_ok=True)
    shutil.copyfile(report / "figures" / "summary.png", into / "figures" / "summary.png")
    for name in TABLES:
        shutil.copyfile(report / "tables" / name, into / "tables" / name)
    (into / "report-excerpt.md").write_text(excerpt((report / "report.md").read_text()))
    (into / "console.txt").write_text(console)
    run = {"run_id": manifest["run_id"], "command": "./testbed run", "git_commit": manifest["git_commit"],
           "git_dirty": manifest["git_dirty"], "profile": manifest["profile"], "wall_s": wall_s}
    (into / "run.json").write_text(json.dumps(run, indent=2) + "\n")
    return run


def verdict_table(verdicts_csv: Path = HERE / "tables" / "verdicts.csv") -> str:
    """The showcase's verdicts as docs/reproducing-the-study.md shows them: the claim, what the study
    said and whether its own tables support it, this run's verdict and on how many cells."""
    lines = ["| Claim | What the study said | The study's own tables | This run | Judged |",
             "| --- | --- | --- | --- | --- |"]
    with open(verdicts_csv, newline="") as f:
        for v in csv.DictReader(f):
            lines.append(f"| `{v['claim']}` | {v['claim_tested']} | {v['study_own_data']} | {v['verdict']} | "
                         f"{v['judged_cells']} of {v['scope_cells']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(json.dumps(take(Path(sys.argv[1]), Path(sys.argv[2]))))
    print(verdict_table())
