"""`./testbed`: one command line for the whole testbed (DESIGN §6)."""
import argparse
import sys

from cli import commands
from cli.common import main_guard


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


if __name__ == "__main__":
    sys.exit(main())
