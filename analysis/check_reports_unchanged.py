"""Whether a change kept the reports as they were: renders the report of every fixture run the tests
use (each default report, the options the tests ask for, a comparison and a pool of the runs
test_pool.py pools) with this working tree's code and with another revision's, and lists the files
that differ. Only the time the report was written is ignored, since it is the one part of a report
that is not a function of the result files and the code (analysis/README.md, "Behaviour unchanged").

    /usr/bin/python3 -m analysis.check_reports_unchanged --base main

from the root; exit 0 when every file is the same, 1 otherwise. Both sides render from the same
inputs, this tree's fixtures, so only the code differs."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from analysis.conftest import FIXTURE_RESULTS, HAND_RUN
from analysis.test_pool import FACTORS, copy_run

ROOT = Path(__file__).resolve().parent.parent
THREE, LATENCY = "20261125-082957-smoke", "20261125-110616-latency"
POOLED = list(FACTORS)
# (folder, kind, runs, reference, options): every fixture's default report, then the options the
# tests render with (test_frameworks, test_latency, test_report), a comparison and a pool.
JOBS = ([(run, "report", [run], None, {}) for run in sorted(p.name for p in FIXTURE_RESULTS.iterdir())]
        + [("reference-fastify", "report", [THREE], "fastify", {}),
           ("reference-express", "report", [LATENCY], "express", {}),
           ("slo-p50", "report", [LATENCY], None, {"slo": "p50:1000"}),
           ("timeline-1", "report", [HAND_RUN], None, {"timeline_case": 1}),
           ("compare", "compare", POOLED[:2], None, {}),
           ("pool", "pool", POOLED, None, {})])
# Run inside the tree under test, so that each side renders with its own code.
RENDER = """
import json, shutil, sys
from pathlib import Path
from analysis import compare_report, pool_report, report, slo
inputs, out = Path(sys.argv[1]), Path(sys.argv[2])
for name, kind, runs, reference, options in json.loads(sys.argv[3]):
    dirs = [shutil.copytree(inputs / run, out / name / run) for run in runs]
    if kind == "report":
        objective = slo.parse(options["slo"]) if "slo" in options else None
        report.write_report(dirs[0], options.get("timeline_case"), reference, objective)
    elif kind == "compare":
        compare_report.write_comparison(dirs[0], dirs[1], out / name)
    else:
        pool_report.write_pool(dirs, out / name, reference)
"""
# The one line that changes from one rendering to the next: "report written 2026-12-02 11:40 UTC".
STAMP = re.compile(rb"report written \d{4}-\d\d-\d\d \d\d:\d\d UTC")


def inputs(folder: Path) -> Path:
    """The fixtures, and the runs test_pool.py pools beside them."""
    shutil.copytree(FIXTURE_RESULTS, folder)
    for name, factor in FACTORS.items():
        copy_run(folder, name, factor)
    return folder


def revision(base: str, folder: Path) -> Path:
    """The tree of `base` as files, without touching this repository's worktrees."""
    archive = folder.with_suffix(".tar")
    subprocess.run(["git", "-C", str(ROOT), "archive", "--output", str(archive), base], check=True)
    folder.mkdir()
    subprocess.run(["tar", "-xf", str(archive), "-C", str(folder)], check=True)
    return folder


def render(tree: Path, given: Path, out: Path) -> Path:
    """Every job rendered by `tree`'s code. The commit a report names is read from git, which
    cannot tell an extracted revision's; no side is given one, so both name the same."""
    subprocess.run([sys.executable, "-c", RENDER, str(given), str(out), json.dumps(JOBS)], cwd=tree, check=True,
                   env={**os.environ, "GIT_DIR": "/nonexistent"})
    return out


def files(folder: Path) -> dict[str, Path]:
    return {path.relative_to(folder).as_posix(): path for path in sorted(folder.rglob("*")) if path.is_file()}


def differences(before: Path, after: Path) -> list[str]:
    """The files that differ between two renderings, the write time aside: each named with what
    differs."""
    old, new = files(before), files(after)
    found = [f"only before: {name}" for name in old if name not in new]
    found += [f"only after: {name}" for name in new if name not in old]
    found += [f"differs: {name}" for name in old if name in new and content(old[name]) != content(new[name])]
    return found


def content(path: Path) -> bytes:
    """A rendered file without the time it was written."""
    return STAMP.sub(b"", path.read_bytes())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="the revision to compare with (default: main)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reports-unchanged-") as temp:
        temp = Path(temp)
        given = inputs(temp / "inputs")
        base = revision(args.base, temp / "base")
        with ThreadPoolExecutor(2) as pool:  # the two sides at once, one core each
            before, after = pool.map(render, [base, ROOT], [given, given], [temp / "before", temp / "after"])
        found = differences(before, after)
        same = f"{len(files(after))} files, every one the same as {args.base}'s but for the time it was written"
        print("\n".join(found) or same)
        return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
