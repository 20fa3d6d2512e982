"""`testbed compare RUN_A RUN_B`."""
from pathlib import Path

from benchlib.console import fail, say
from benchlib.paths import results_root


def register(sub):
    p = sub.add_parser("compare", help="compare two runs of the same data set: run B over run A",
                       description="Write results/compare-<a>-<b>/ (index.html, report.md, compare.csv, "
                                   "ratios.csv): per framework, API and case, B/A for throughput, p95 and CPU per "
                                   "request with a 95 % interval from each run's rounds plus the spread between "
                                   "runs where a pool knows it, and run B's framework ratios over run A's; bound "
                                   "and invalid sides shown as such. Two runs of one data set only: two machines, "
                                   "two versions of a framework, --pin against not. The runs are only read.")
    p.add_argument("run_a", metavar="RUN_A", help="the baseline run: a folder name under the results directory")
    p.add_argument("run_b", metavar="RUN_B", help="the run compared with it")
    p.add_argument("--results-dir", type=Path, default=None,
                   help="where runs live, and where the comparison is written (default: $TESTBED_RESULTS, "
                        "else results/ at the repository root)")
    p.add_argument("--pool", metavar="POOL",
                   help="the pool (./testbed pool) whose spread between runs, tau, each interval adds: a folder "
                        "under the results directory or a path; 'none' for within-run intervals only (default: the "
                        "last pool there of runs like these two, if any)")
    p.set_defaults(func=lambda args: compare(args.run_a, args.run_b, args.results_dir or results_root(), args.pool))


def compare(run_a: str, run_b: str, results_dir: Path, pool: str | None = None) -> None:
    # Imported here so the other subcommands do not pay for pandas and scipy.
    from analysis.compare import NotComparable
    from analysis.compare_report import write_comparison
    from benchlib.results import ResultFileError, find_run

    try:
        out = write_comparison(find_run(results_dir, run_a), find_run(results_dir, run_b), results_dir, pool)
    except (NotComparable, ResultFileError) as e:
        fail(f"cannot compare: {e}")
    say(f"comparison: {out / 'index.html'}")
