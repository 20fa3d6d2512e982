"""`./testbed seed`: the same data and checksum every time, and bad input that changes nothing."""
import re
import subprocess

import pytest

from benchlib.paths import IDS, ROOT

CHECKSUM = re.compile(r"^checksum: ([0-9a-f]{64})$", re.M)


def checksum_of(result):
    assert result.returncode == 0, result.stderr
    return CHECKSUM.search(result.stdout).group(1)


def counts(testbed):
    with testbed.connect() as conn, conn.cursor() as cur:
        found = {}
        for table in ("user", "category", "thread", "comment"):
            cur.execute(f"SELECT COUNT(*) FROM `{table}`")
            found[table] = cur.fetchone()[0]
        cur.execute("SELECT seed, scale, checksum FROM seed_meta")
        return found, cur.fetchall()


@pytest.fixture(scope="module")
def seeded(isolated_testbed):
    first = checksum_of(isolated_testbed.run("seed"))
    return isolated_testbed, first


def test_the_data_set_matches_the_shared_database(seeded, forum):
    testbed, checksum = seeded
    with forum.cursor() as cur:
        cur.execute("SELECT checksum FROM seed_meta WHERE id = 1")
        assert cur.fetchone()[0] == checksum
    assert counts(testbed)[0] == {"user": 1000, "category": 1000, "thread": 1000, "comment": 200000}


def test_reseeding_the_same_set_does_nothing(seeded):
    testbed, checksum = seeded
    again = testbed.run("seed")
    assert checksum_of(again) == checksum
    assert "already loaded" in again.stderr


def test_two_fresh_loads_give_the_same_checksum(seeded):
    testbed, checksum = seeded
    assert testbed.run("db", "reset").returncode == 0
    assert counts(testbed)[1] == ()
    assert checksum_of(testbed.run("seed")) == checksum


def test_id_files_are_fixed_permutations(seeded, forum):
    """The same permutation as the shared testbed's (seeded, like the `forum` database, before
    the suites run), byte for byte."""
    testbed, _ = seeded
    for name, header, count in (("user_ids.csv", "user_id", 1000), ("comment_ids.csv", "comment_id", 200000)):
        lines = (testbed.home / "ids" / name).read_text().splitlines()
        assert lines[0] == header
        ids = [int(x) for x in lines[1:]]
        assert sorted(ids) == list(range(1, count + 1)) and ids != sorted(ids)
        shared = IDS / name
        assert shared.is_file(), f"{shared} is missing: seed the shared testbed (./testbed seed)"
        assert lines == shared.read_text().splitlines()


@pytest.mark.parametrize("args, env", [
    (["--scale", "0"], {}),
    (["--scale", "abc"], {}),
    (["--scale", "-3"], {}),
    ([], {"DB_HOST": "127.0.0.2", "DB_PORT": "1", "DB_USER": "forum_seed"}),
])
def test_bad_input_is_one_clear_line_and_changes_nothing(seeded, args, env):
    testbed, checksum = seeded
    before = counts(testbed)
    result = testbed.run("seed", *args, **env)
    assert result.returncode != 0
    assert 1 <= len(result.stderr.strip().splitlines()) <= 2, result.stderr
    assert "Traceback" not in result.stderr and "checksum" not in result.stdout
    assert counts(testbed) == before


def test_the_seeder_itself_rejects_a_bad_scale():
    result = subprocess.run(["node", "seed.js", "--scale", "1.5"], cwd=ROOT / "seed",
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip() == "seed: --scale must be a whole number from 1 to 999, not '1.5'."


def test_another_scale_reloads(seeded):
    testbed, checksum = seeded
    bigger = checksum_of(testbed.run("seed", "--scale", "2"))
    assert bigger != checksum
    found, meta = counts(testbed)
    assert found == {"user": 2000, "category": 1000, "thread": 1000, "comment": 400000}
    assert meta == ((1, 2, bigger),)
    assert checksum_of(testbed.run("seed", "--scale", "1")) == checksum
