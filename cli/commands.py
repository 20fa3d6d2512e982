"""The subcommands, in the order `--help` lists them."""
from cli import apps, db, seed, setup, test, run, report, load, verify

ALL = [setup, db, seed, apps, verify, load, run, report, test]
