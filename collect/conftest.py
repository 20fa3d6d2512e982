"""What the run tests share: a private seeded database and free ports for the apps (benchlib/jmeter.py
finds JMeter); for the remote-engine tests (test_remote*.py), a client machine in a network
namespace."""
import json
import os
import random
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

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


# --- remote engines ------------------------------------------------------------------------------
# A network namespace stands in for a client machine, joined to this one by a veth pair, with
# `./testbed engine start` running inside it. Each test sends traffic only to the two addresses its
# lab made, and the lab removes the namespace and the link, pass or fail.
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="network namespaces need root (CI runs as root)")
# The smoke runs through engines measure cases outside 1, 13 and 18, so that no wrk cross-check and
# no memory pass follows their rounds: collect/run/test_smoke.py checks both passes. One framework: what
# they check is per item and per engine, and each arm costs its app's start and reference work.
SMOKE = ("run", "--profile", "smoke", "--frameworks", "express", "--apis", "rest")


def ip(*args) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)


@dataclass
class Lab:
    """A client machine in a namespace: its address, this machine's address on the link, and
    `./testbed` as it runs over there."""
    namespace: str
    link: str
    here: str
    there: str
    env: dict

    def engine(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", self.namespace, TESTBED, "engine", *args],
                              env=self.env, capture_output=True, text=True, timeout=300)

    def endpoint(self, port: int) -> str:
        return f"{self.there}:{port}"


def unused_subnet() -> int:
    taken = ip("-4", "-o", "addr").stdout + ip("-4", "route").stdout
    return random.choice([n for n in range(10, 250) if f"10.231.{n}." not in taken])


@pytest.fixture
def lab(run_env):
    tag = uuid.uuid4().hex[:6]
    n = unused_subnet()
    lab = Lab(f"tb-{tag}", f"tbh{tag}", f"10.231.{n}.1", f"10.231.{n}.2", run_env)
    try:
        for step in (["netns", "add", lab.namespace],
                     ["link", "add", lab.link, "type", "veth", "peer", "name", f"tbe{tag}"],
                     ["link", "set", f"tbe{tag}", "netns", lab.namespace],
                     ["addr", "add", f"{lab.here}/24", "dev", lab.link],
                     ["link", "set", lab.link, "up"],
                     ["-n", lab.namespace, "addr", "add", f"{lab.there}/24", "dev", f"tbe{tag}"],
                     ["-n", lab.namespace, "link", "set", f"tbe{tag}", "up"],
                     ["-n", lab.namespace, "link", "set", "lo", "up"]):
            made = ip(*step)
            assert made.returncode == 0, (step, made.stderr)
        yield lab
    finally:
        pids = ip("netns", "pids", lab.namespace).stdout.split()
        for pid in pids:  # the engines, whatever state the test left them in
            subprocess.run(["kill", "-9", pid], capture_output=True)
        ip("netns", "del", lab.namespace)
        ip("link", "del", lab.link)


def start_engine(lab: Lab, port: int, *extra) -> None:
    started = lab.engine("start", "--bind", lab.there, "--port", str(port), *extra)
    assert started.returncode == 0, started.stdout + started.stderr


def the_run(results: Path) -> Path:
    [run] = [p for p in results.iterdir() if p.is_dir()]
    return run


def records(run: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(run.glob("*/*/case-*/iter-*/run.json"))]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
