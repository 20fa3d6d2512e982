"""Fixtures shared by the Python tests: the shared seeded database, and an isolated testbed."""
import pymysql
import pytest

from benchlib.database import database
from benchlib.isolated import IsolatedTestbed
from benchlib.net import free_port


@pytest.fixture(scope="session")
def forum():
    """A connection to the seeded database the suites share, as the seeder's account."""
    db = database()
    conn = pymysql.connect(host=db.host, port=db.port, user=db.seed_user,
                           password=db.seed_password, database=db.name, autocommit=True)
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def isolated_testbed(tmp_path_factory):
    testbed = IsolatedTestbed(tmp_path_factory.mktemp("testbed-home"), free_port())
    started = testbed.run("db", "start")
    assert started.returncode == 0, started.stderr
    yield testbed
    testbed.run("db", "stop")


# The test files that take minutes (end-to-end runs), longest first (each 1-6 minutes on the 2-core
# machine; a file's time is its tests' durations, which the suite prints). pytest-xdist hands out whole
# files in the order it collects them (`--dist loadfile`, benchlib/suites.py); begun last, one of
# these leaves a worker running it for minutes after the other has finished. Begun first, the short
# files fill in around them. Only the order changes: a file missing from this list, or a list out
# of date, costs time, never a result.
LONGEST_FIRST = (
    "collect/run/test_faults.py", "collect/run/test_smoke.py", "collect/load/test_remote.py",
    "collect/load/test_remote_faults.py", "collect/load/test_remote_latency.py", "cli/test_new.py",
    "analysis/test_answer.py", "analysis/test_latency.py", "analysis/test_report.py", "analysis/test_variants.py",
    "collect/run/test_smoke_variants.py", "contract/test_verify.py", "docker/test_compose.py")


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent without it
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(LoadFileScheduling):
        def _assign_work_unit(self, node):
            if not any(self.assigned_work.values()):  # the first hand-out: the queue is whole
                rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
                for scope in sorted(self.workqueue, key=lambda s: rank.get(s, len(rank))):
                    self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return LongestFirst(config, log)
