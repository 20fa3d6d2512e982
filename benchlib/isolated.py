"""A second testbed beside the shared one: its own .testbed/ folder and managed server on a free port.

Tests and benchmarks use it when they must reset, reload or stop a database that others rely on."""
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchlib.paths import ROOT

DB_VARIABLES = ("DB_HOST", "DB_PORT", "DB_NAME", "DB_USER", "DB_PASSWORD",
                "DB_SEED_USER", "DB_SEED_PASSWORD")


@dataclass
class IsolatedTestbed:
    home: Path
    port: int

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in DB_VARIABLES}
        return {**env, "TESTBED_HOME": str(self.home), "TESTBED_DB_PORT": str(self.port), **extra}

    def seed_env(self) -> dict:
        return self.env(DB_HOST="127.0.0.1", DB_PORT=str(self.port), DB_NAME="forum",
                        DB_USER="forum_seed", DB_PASSWORD="forum_seed")

    def run(self, *args, **extra_env) -> subprocess.CompletedProcess:
        return subprocess.run([str(ROOT / "testbed"), *args], env=self.env(**extra_env),
                              capture_output=True, text=True, timeout=300)

    def connect(self, user="forum_seed", password=None):
        import pymysql  # only tests need a Python driver
        return pymysql.connect(host="127.0.0.1", port=self.port, user=user,
                               password=password or user, database="forum", autocommit=True)
