"""`testbed report [RUN_ID]`: tables, figures and study verdicts for one run (DESIGN §7)."""
from pathlib import Path

from cli.common import ROOT, fail, say


def register(sub):
    p = sub.add_parser("report", help="write the report of a run (latest by default)",
                       description="Write results/<run-id>/report/ (index.html, report.md, "
                                   "figures/, tables/) from the run's result files. An existing "
                                   "report of that run is replaced; the results are only read.")
    p.add_argument("run_id", nargs="?", metavar="RUN_ID",
                   help="a folder name under the results directory (default: the latest run)")
    p.add_argument("--results-dir", type=Path, default=ROOT / "results",
                   help="where runs live (default: results/ at the repository root)")
    p.add_argument("--timeline-case", type=int, metavar="N",
                   help="case (1-18) for the latency-curve and over-time figures "
                        "(default: the heaviest case in the run)")
    p.set_defaults(func=lambda args: report(args.run_id, args.results_dir, args.timeline_case))


def report(run_id, results_dir: Path, timeline_case) -> None:
    # Imported here so the other subcommands do not pay for pandas and matplotlib.
    from analysis.load import ResultFileError, latest_run
    from analysis.report import write_report

    try:
        run_dir = results_dir / run_id if run_id else latest_run(results_dir)
        if run_id and (Path(run_id).name != run_id or not run_dir.is_dir()):
            fail(f"no run {run_id!r} in {results_dir}; `ls {results_dir}` lists the runs.")
        out = write_report(run_dir, timeline_case)
    except ResultFileError as e:
        fail(f"cannot write the report: {e}")
    say(f"report: {out / 'index.html'}")
