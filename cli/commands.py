"""The subcommands, in the order `--help` lists them."""
from cli import db, seed, setup, test, run

ALL = [setup, db, seed, run, test]
