"""`testbed run`: the whole matrix. Until every part exists it says which are missing."""
from cli.common import ROOT, fail

PARTS = {
    "express-api": ROOT / "express-api" / "framework.json",
    "aspnet-api": ROOT / "aspnet-api" / "framework.json",
    "jmeter-plans": ROOT / "jmeter-plans" / "cases.csv",
    "collect (the orchestrator)": ROOT / "collect" / "orchestrator.py",
}


def register(sub):
    p = sub.add_parser("run", help="run the benchmark matrix",
                       description="Run every framework x API x case x iteration and write "
                                   "results/<run-id>/.")
    p.set_defaults(func=lambda args: run())


def run():
    missing = [name for name, marker in PARTS.items() if not marker.exists()]
    fail(f"the benchmark matrix cannot run yet: not built: {', '.join(missing)}.")
