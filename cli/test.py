"""`testbed test`."""
from benchlib.suites import run_all


def register(sub):
    p = sub.add_parser("test", help="run all tests (sets everything up first)",
                       description="Set up, start and seed the database, build every implementation, "
                                   "then lint the Python code (flake8), run the Python tests (pytest) "
                                   "and each implementation's own test command.")
    p.add_argument("pytest_args", nargs="*", help="extra arguments for pytest, after --: ./testbed test -- -k seed")
    p.set_defaults(func=lambda args: run_all(args.pytest_args))
