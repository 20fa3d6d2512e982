"""`testbed seed`."""
from benchlib.console import fail
from benchlib.dataset import seed


def scale(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 999:
        fail(f"--scale must be a whole number from 1 to 999, not {text!r}.")
    return int(text)


def register(sub):
    p = sub.add_parser("seed", help="load the forum data set (skips if already loaded)",
                       description="Load 1,000 users, 1,000 categories, 1,000 threads and 200 "
                                   "comments per user (Faker seed 1), times --scale users. "
                                   "Prints the content checksum.")
    p.add_argument("--scale", default="1", help="multiply users (and so comments); default 1")
    p.add_argument("--force", action="store_true", help="reload even if this data set is loaded")
    p.set_defaults(func=lambda args: seed(scale(args.scale), args.force))
