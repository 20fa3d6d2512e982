"""The subcommands, in the order `--help` lists them."""
from cli import compare, db, engine, load, new, pool, report, run, seed, setup, test, up, verify

ALL = [setup, db, seed, new, up, verify, load, run, report, compare, pool, engine, test]
