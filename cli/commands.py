"""The subcommands, in the order `--help` lists them."""
from cli import db, seed, setup, test, run, report

ALL = [setup, db, seed, run, report, test]
