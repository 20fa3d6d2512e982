"""`testbed report [RUN_ID]`."""
from pathlib import Path

from benchlib.console import fail, say
from benchlib.paths import DEFAULT_RESULTS


def register(sub):
    p = sub.add_parser("report", help="write the report of a run (latest by default)",
                       description="Write results/<run-id>/report/ (index.html, report.md, "
                                   "figures/, tables/) from the run's result files. An existing "
                                   "report of that run is replaced; the results are only read.")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID",
                   help="a folder name under the results directory (default: the latest run)")
    p.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS,
                   help="where runs live (default: results/ at the repository root)")
    p.add_argument("--timeline-case", type=int, metavar="N",
                   help="case (1-18) for the latency-curve and over-time figures "
                        "(default: the heaviest case in the run)")
    add_reference_option(p)
    p.set_defaults(func=lambda args: report(args.run_id, args.results_dir, args.timeline_case, args.reference))


def add_reference_option(p) -> None:
    p.add_argument("--reference", metavar="F",
                   help="the framework every other is compared with in the answer (default: the first of "
                        "the study's pair, aspnet and express, in the run, else the run's first framework)")


def report(run_id, results_dir: Path, timeline_case, reference: str | None = None) -> None:
    # Imported here so the other subcommands do not pay for pandas and matplotlib.
    from analysis.report import UnknownReference, write_report
    from benchlib.results import ResultFileError, find_run

    try:
        out = write_report(find_run(results_dir, run_id), timeline_case, reference)
    except (ResultFileError, UnknownReference) as e:
        fail(f"cannot write the report: {e}")
    say(f"report: {out / 'index.html'}")
