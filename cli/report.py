"""`testbed report [RUN_ID]`."""
from pathlib import Path

from analysis import slo
from benchlib.console import fail, say
from benchlib.paths import results_root


def register(sub):
    p = sub.add_parser("report", help="write the report of a run (latest by default)",
                       description="Write results/<run-id>/report/ (index.html, report.md, "
                                   "figures/, tables/) from the run's result files. An existing "
                                   "report of that run is replaced; the results are only read.")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID",
                   help="a folder name under the results directory (default: the latest run)")
    p.add_argument("--results-dir", type=Path, default=None,
                   help="where runs live (default: $TESTBED_RESULTS, else results/ at the repository root)")
    p.add_argument("--timeline-case", type=int, metavar="N",
                   help="case (1-18) for the latency-curve and over-time figures "
                        "(default: the heaviest case in the run)")
    add_reference_option(p)
    add_slo_option(p)
    p.set_defaults(func=lambda args: report(args.run_id, args.results_dir or results_root(), args.timeline_case,
                                            args.reference, parse_slo(args.slo)))


def add_reference_option(p) -> None:
    p.add_argument("--reference", metavar="F",
                   help="the framework every other is compared with in the answer (default: the first of "
                        "the study's pair, aspnet and express, in the run, else the run's first framework)")


def add_slo_option(p) -> None:
    # Read as text and checked by parse_slo, so a bad value is one line, not argparse's usage.
    p.add_argument("--slo", metavar="pNN:MS", default=slo.DEFAULT,
                   help="the latency objective of a latency run's report: percentile NN (50, 90, 95, 99 or "
                        f"99.9) at most MS milliseconds (default: {slo.DEFAULT})")


def parse_slo(text: str) -> slo.Objective:
    try:
        return slo.parse(text)
    except slo.BadObjective as e:
        fail(str(e))


def report(run_id, results_dir: Path, timeline_case, reference: str | None = None,
           objective: slo.Objective | None = None) -> None:
    # Imported here so the other subcommands do not pay for pandas and matplotlib.
    from analysis.report import UnknownReference, write_report
    from benchlib.results import ResultFileError, find_run

    try:
        out = write_report(find_run(results_dir, run_id), timeline_case, reference, objective)
    except (ResultFileError, UnknownReference) as e:
        fail(f"cannot write the report: {e}")
    say(f"report: {out / 'index.html'}")
