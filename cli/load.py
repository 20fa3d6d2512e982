"""`testbed load`."""
from benchlib.engines import parse_endpoints
from benchlib.jmeter import DEFAULTS
from cli.engine import add_load_options
from collect.run.single_load import LoadRequest, load


def register(sub):
    p = sub.add_parser("load", help="measure one case against a running implementation",
                       description="Load one running implementation with one case of the matrix, "
                                   "measured and checked as ./testbed run measures its items, print "
                                   "one summary line and keep the run of that one item under "
                                   "results/load/. Exits with 1 when the measurement or any measured "
                                   "request failed.")
    p.add_argument("--framework", required=True, help="implementation name (its framework.json)")
    p.add_argument("--api", required=True, help="rest or graphql")
    p.add_argument("--case", required=True, type=int, help="case number, 1-18 (jmeter-plans/cases.csv)")
    p.add_argument("--threads", type=int, help="concurrent requests (default: the case's)")
    p.add_argument("--duration", type=int, default=DEFAULTS["duration_s"],
                   help="measured seconds (default %(default)s)")
    p.add_argument("--warmup", type=int, default=DEFAULTS["warmup_s"],
                   help="warm-up seconds, left out of the statistics (default %(default)s)")
    p.add_argument("--rampup", type=int, help="seconds to start all threads, within the warm-up "
                                              f"(default: the lesser of {DEFAULTS['rampup_s']} and --warmup)")
    p.add_argument("--port", type=int, help="where it listens (default: where ./testbed up serves it, "
                                            "its default_port plus TESTBED_PORT_OFFSET)")
    p.add_argument("--host", help="where it runs (default 127.0.0.1; with --engines, this machine's "
                                  "address on the route to them: start it with ./testbed up --bind ADDR)")
    add_load_options(p, "--host")
    p.add_argument("--dashboard", action="store_true", help="also write JMeter's HTML dashboard")
    p.set_defaults(func=lambda args: load(LoadRequest(
        framework=args.framework, api=args.api, case=args.case, threads=args.threads, duration=args.duration,
        warmup=args.warmup, rampup=args.rampup, port=args.port, host=args.host, dashboard=args.dashboard,
        engines=parse_endpoints(args.engines) if args.engines is not None else None, ssl=args.ssl)))
