"""The subcommands, in the order `--help` lists them."""
from cli import apps, db, seed, setup, test, run, report, load

ALL = [setup, db, seed, apps, load, run, report, test]
