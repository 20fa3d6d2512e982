"""The subcommands, in the order `--help` lists them."""
from cli import db, seed, setup, test, run, report, load

ALL = [setup, db, seed, load, run, report, test]
