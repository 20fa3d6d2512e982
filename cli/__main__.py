"""`./testbed`: one command line for the whole testbed (docs/commands.md)."""
import argparse
import signal
import sys

from benchlib import interrupts
from benchlib.console import UserError
from cli import commands


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="testbed", description="Compare web frameworks fairly and reproducibly.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in commands.ALL:
        module.register(sub)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return main_guard(args.func, args)


def main_guard(func, args) -> int:
    """A UserError is one or two lines and exit 2; Ctrl-C is one line and 130; never a traceback."""
    # A command started as a script's background job inherits SIGINT ignored (POSIX shells do
    # that), and Python then leaves it ignored: Ctrl-C or kill -INT must still stop it, from the
    # first line on (a run checking its engines, too).
    interrupts.catch(signal.SIGINT)
    try:
        code = func(args)
        return code if isinstance(code, int) else 0
    except UserError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 2
    except BaseException as e:
        if not interrupts.caused(e):
            raise
        print("testbed: interrupted.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
