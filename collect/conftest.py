"""What the run tests share: a private seeded database and free ports for the apps (benchlib/jmeter.py finds JMeter)."""
import os
import subprocess

import pytest

from benchlib.net import port_free
from benchlib.paths import ROOT

TESTBED = str(ROOT / "testbed")


def free_offset() -> str:
    """A port offset at which every app's port is free, each pytest-xdist worker taking its own
    offsets (two would otherwise both take the first free one before either app listens)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    for offset in range(21000 + 137 * worker, 30000, 137 * workers):
        if all(port_free(port + offset) for port in (3000, 5000)):
            return str(offset)
    raise RuntimeError("no free port offset")


def run_testbed(*args, env, **kwargs):
    return subprocess.run([TESTBED, *args], env=env, capture_output=True, text=True, timeout=900,
                          **kwargs)


@pytest.fixture
def run_env(isolated_testbed):
    """Runs use a private database server (stopping it disturbs no one, and no one else's stop
    disturbs them) and the apps' default ports shifted by TESTBED_PORT_OFFSET (so they never meet
    an app someone else started)."""
    env = isolated_testbed.env(TESTBED_PORT_OFFSET=free_offset())
    assert run_testbed("db", "start", env=env).returncode == 0
    seeded = run_testbed("seed", env=env)
    assert seeded.returncode == 0, seeded.stderr
    return env
