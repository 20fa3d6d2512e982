"""The forum data set: load it with the seeder (seed/, Node) into the database in use."""
import os
import subprocess

from benchlib.console import fail
from benchlib.database import ensure_schema, start
from benchlib.packages import ensure_npm, need_tool
from benchlib.paths import IDS, ROOT


def seed(scale: int = 1, force: bool = False) -> str:
    """Load the data set if needed (the seeder skips one already loaded); return its checksum."""
    db = start()
    ensure_schema(db)
    ensure_npm(ROOT / "seed")
    cmd = [need_tool("node", "Install Node.js 20.19 or later."), "seed.js", f"--scale={scale}",
           f"--ids-dir={IDS}"] + (["--force"] if force else [])
    result = subprocess.run(cmd, cwd=ROOT / "seed", env={**os.environ, **db.seed_env()},
                            stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail("the seeder failed (see the line above).")
    print(result.stdout, end="")
    return result.stdout.split("checksum: ")[-1].strip()
