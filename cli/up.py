"""`testbed up` and `testbed down`."""
import os

from benchlib import apps
from benchlib.engines import check_bind


def register(sub):
    p = sub.add_parser("up", help="start the database and the APIs in the background",
                       description="Start the managed database (seeded), build each "
                                   "implementation if its sources changed, start it on its "
                                   "default port, wait until it is ready and print its URL.")
    p.add_argument("--framework", default="all", metavar="F",
                   help="a framework name from a framework.json (e.g. express, aspnet) or all; "
                        "F:V for one of its variants (served on its own port)")
    p.add_argument("--variant", metavar="V", help="the variant of --framework to serve (default: its default)")
    p.add_argument("--bind", metavar="ADDR",
                   help="listen on this address of this machine, for ./testbed load --engines "
                        "(default: loopback only)")
    p.set_defaults(func=up)
    p = sub.add_parser("down", help="stop what `up` started",
                       description="Stop the APIs that `up` started (by their pid files), and the "
                                   "managed database if `up` was what started it. Harmless if "
                                   "nothing runs.")
    p.set_defaults(func=lambda args: apps.down())


def up(args) -> None:
    if args.bind:
        check_bind(args.bind)
        os.environ["TESTBED_BIND_ADDRESS"] = args.bind
    apps.up([args.framework], args.variant)
