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
