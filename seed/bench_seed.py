"""Seeding speed on a throwaway managed server, so the shared data set is never touched.

Usage: /usr/bin/python3 seed/bench_seed.py   (or ./testbed's interpreter)"""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchlib.isolated import IsolatedTestbed  # noqa: E402
from benchlib.net import free_port  # noqa: E402
from benchlib.paths import ROOT  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as home:
        testbed = IsolatedTestbed(Path(home), free_port())
        started = testbed.run("db", "start")
        if started.returncode != 0:
            sys.exit(started.stderr.strip())
        try:
            return subprocess.run(["node", "bench.js"], cwd=ROOT / "seed", env=testbed.seed_env()).returncode
        finally:
            testbed.run("db", "stop")


if __name__ == "__main__":
    sys.exit(main())
