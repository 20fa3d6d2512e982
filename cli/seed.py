"""`testbed seed`: load the deterministic forum data set (the seeder lives in seed/)."""
import subprocess

from cli.common import IDS, ROOT, UserError, fail, need_tool, os_env
from cli.db import ensure_schema, start
from cli.setup import ensure_npm


def positive_scale(text):
    if not text.isdigit() or not 1 <= int(text) <= 999:
        raise UserError(f"--scale must be a whole number from 1 to 999, not {text!r}.")
    return int(text)


def register(sub):
    p = sub.add_parser("seed", help="load the forum data set (skips if already loaded)",
                       description="Load 1,000 users, 1,000 categories, 1,000 threads and 200 "
                                   "comments per user (Faker seed 1), times --scale users. "
                                   "Prints the content checksum.")
    p.add_argument("--scale", default="1", help="multiply users (and so comments); default 1")
    p.add_argument("--force", action="store_true", help="reload even if this data set is loaded")
    p.set_defaults(func=lambda args: seed(positive_scale(args.scale), args.force))


def seed(scale=1, force=False) -> str:
    """Load the data set if needed; return its checksum."""
    db = start()
    ensure_schema(db)
    ensure_npm(ROOT / "seed")
    cmd = [need_tool("node", "Install Node.js 20.19 or later."), "seed.js", f"--scale={scale}",
           f"--ids-dir={IDS}"] + (["--force"] if force else [])
    result = subprocess.run(cmd, cwd=ROOT / "seed", env=os_env(db.seed_env()),
                            stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail("the seeder failed (see the line above).")
    print(result.stdout, end="")
    return result.stdout.split("checksum: ")[-1].strip()
