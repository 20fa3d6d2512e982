"""`testbed engine start|stop|status`: a JMeter remote engine on this machine (benchlib/engines.py)."""
from benchlib import engines
from benchlib.jmeter import find_jmeter


def add_load_options(p, default_host: str) -> None:
    """--engines and --no-ssl, for the commands that send load (run, load)."""
    p.add_argument("--engines", metavar="HOST[:PORT],…",
                   help="send the load from JMeter remote engines on other machines (./testbed engine "
                        "start there), the threads divided across them (default: JMeter runs here); "
                        f"the apps are reached on {default_host}")
    p.add_argument("--no-ssl", dest="ssl", action="store_false",
                   help="talk to engines started with --no-ssl (RMI without SSL: a closed lab network only)")


def register(sub):
    p = sub.add_parser("engine", help="a JMeter remote engine on this machine, for run --engines",
                       description="Run JMeter's remote engine (jmeter -s) on this machine, so that "
                                   "./testbed run --engines on the machine under test sends its load "
                                   "from here (docs/your-hardware.md: Running on several machines).")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start the engine in the background",
                               description="Start the engine in the background; it listens on --port "
                                           "and the port after it, on --bind.")
    start.add_argument("--bind", metavar="ADDR",
                       help="the address of this machine the controller reaches (default: the "
                            "default route's)")
    start.add_argument("--no-ssl", dest="ssl", action="store_false",
                       help="RMI without SSL: anyone who reaches the port can make this machine "
                            "run code; a closed lab network only")
    start.set_defaults(func=lambda a: engines.start(find_jmeter(), a.port, a.bind, a.ssl))
    stop = actions.add_parser("stop", help="stop the engine (by its pid file)",
                              description="Stop the engine started here for --port.")
    stop.set_defaults(func=lambda a: engines.stop(a.port))
    status = actions.add_parser("status", help="say whether the engine runs, and whether it runs a test",
                                description="Say whether the engine for --port runs (exit 0) or not "
                                            "(exit 3), and whether it runs a test.")
    status.set_defaults(func=lambda a: engines.status(a.port))
    for action in (start, stop, status):
        action.add_argument("--port", type=int, default=engines.DEFAULT_PORT,
                            help="the engine's RMI registry port (default %(default)s)")
