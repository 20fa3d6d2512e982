"""`testbed setup`."""
from benchlib.packages import setup_all


def register(sub):
    p = sub.add_parser("setup", help="install what is missing (idempotent)",
                       description="Install the Debian packages and npm dependencies the testbed "
                                   "needs. Safe to run again; later commands run it themselves.")
    p.set_defaults(func=lambda args: setup_all())
