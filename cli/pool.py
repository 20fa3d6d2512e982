"""`testbed pool RUN_A RUN_B …`."""
from pathlib import Path

from benchlib.console import fail, say
from benchlib.paths import results_root
from cli.report import add_reference_option


def register(sub):
    p = sub.add_parser("pool", help="pool runs of one commit and settings: ratios with the spread between runs",
                       description="Write results/pool-<first>-<last>/ (index.html, report.md, manifest.json, "
                                   "pooled.csv, runs.csv, families.csv, verdicts.csv, claim_cells.csv, figures/): "
                                   "per comparison, API and metric the spread between runs (tau, I²) and each "
                                   "case's pooled ratio with an interval that counts it, the study's claims judged "
                                   "on the pooled cells, and a forest plot of every run. Only runs of one commit, "
                                   "data set, load generator, layout, machine and settings. The runs are only read.")
    p.add_argument("runs", nargs="*", metavar="RUN", help="two runs or more: folder names under the results directory")
    p.add_argument("--results-dir", type=Path, default=None,
                   help="where runs live, and where the pool is written (default: $TESTBED_RESULTS, else results/ "
                        "at the repository root)")
    add_reference_option(p)
    p.set_defaults(func=lambda args: pool(args.runs, args.results_dir or results_root(), args.reference))


def pool(run_ids: list[str], results_dir: Path, reference: str | None) -> None:
    # Imported here so the other subcommands do not pay for pandas and scipy.
    from analysis.answer import UnknownReference
    from analysis.pool import NotPoolable
    from analysis.pool_report import write_pool
    from benchlib.results import ResultFileError, find_run

    try:
        out = write_pool([find_run(results_dir, run_id) for run_id in run_ids], results_dir, reference)
    except (NotPoolable, ResultFileError, UnknownReference) as e:
        fail(f"cannot pool: {e}")
    say(f"pool: {out / 'index.html'}")
