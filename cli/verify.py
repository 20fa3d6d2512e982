"""`testbed verify`: does every implementation keep the contract in contract/?"""
from pathlib import Path

from benchlib.packages import ensure_debian


def register(sub):
    p = sub.add_parser("verify", help="check every implementation against the API contract",
                       description="Start (or use the running) implementations found by their "
                                   "framework.json and check golden responses, a 1,000-request "
                                   "sample against the SQL rendering and each other, the bad-input "
                                   "table, headers, framing, database statements per request, and "
                                   "that framework.json declares every setting (none left TODO). "
                                   "Under the table, each failing check's failures per route.")
    p.add_argument("--framework", action="append", metavar="F",
                   help="verify only this framework (repeatable); default: all")
    p.add_argument("--variant", metavar="V",
                   help="verify this variant of the --framework given (framework.json variants), "
                        "or all of them; default: the default variant. --framework F:V also works")
    p.add_argument("--manifest", action="append", type=Path, default=[], metavar="PATH",
                   help="also verify the implementation this framework.json describes "
                        "(one outside the repository, e.g. in a test)")
    p.add_argument("--fresh", action="store_true",
                   help="start every implementation here (on a free port if its default is "
                        "taken) rather than use one already running")
    p.add_argument("--checks", default=None, metavar="LIST",
                   help="comma-separated subset of golden,sample,agree,bad-input,headers,"
                        "framing,statements,settings (agree compares the sample's and bad-input's "
                        "answers, so it needs one of them); default: all")
    p.add_argument("--regenerate-golden", action="store_true",
                   help="re-record contract/golden.json from the one --framework, after checking "
                        "each response against the SQL rendering")
    p.set_defaults(func=verify)


def verify(args) -> int:
    ensure_debian("db", "python")
    # Imported only now: the checker needs a MySQL driver, which ensure_debian installs and
    # which other commands must not require.
    from contract.verify import main
    return main(args.framework, args.manifest, args.fresh, args.checks, args.regenerate_golden,
                args.variant)
