"""The subcommands, in the order `--help` lists them."""
from cli import db, load, report, run, seed, setup, test, up, verify

ALL = [setup, db, seed, up, verify, load, run, report, test]
