"""`./testbed new` for real, in a copy of the repository sharing this testbed's database: a
scaffold builds, starts, passes its own test, and `./testbed verify` then fails it check by check,
counting the failures per route still missing and naming the settings still to declare; a name
that cannot be a framework's changes nothing."""
import json
import os
import shutil
import subprocess
from collections import Counter

import pytest

from benchlib import apps
from benchlib.database import database
from benchlib.paths import ROOT, TESTBED_HOME
from scaffold.make import TEMPLATE, manifest, sources
from contract.test_verify import table
from contract.verify import ROUTES


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The repository's files as they stand (committed or not, ignored ones left out)."""
    root = tmp_path_factory.mktemp("repository")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    return root


def run_testbed(root, *args) -> subprocess.CompletedProcess:
    # The copy's commands use this testbed's state: its database, data set and id files. Run
    # from the copy: `python -m cli` puts the working directory first on the import path.
    return subprocess.run([str(root / "testbed"), *args], cwd=root, capture_output=True,
                          text=True, timeout=900, env={**os.environ, "TESTBED_HOME": str(TESTBED_HOME)})


def entries(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def failures_per_route(row: dict, lines: list[str], name: str, column: str) -> Counter:
    """A failing check's one line, `NAME / column: N failed: ROUTE n, …`, adding up to the table's N."""
    failed = int(row[column].split()[1].split("/")[0])
    summary = [line for line in lines if line.startswith(f"{name} / {column}: {failed} failed: ")]
    assert len(summary) == 1, (column, lines)
    parts = summary[0].split(" failed: ", 1)[1].split(", ")
    counts = Counter({where: int(n) for where, n in (part.rsplit(" ", 1) for part in parts)})
    assert sum(counts.values()) == failed, summary
    return counts


@pytest.mark.parametrize("name, says", [
    ("Koa", "'Koa' cannot name a framework: lowercase letters and digits"),
    ("koa_js", "'koa_js' cannot name a framework"),
    ("koa--js", "'koa--js' cannot name a framework"),
    ("9koa", "'9koa' cannot name a framework"),
    ("k" * 31, "cannot name a framework"),
    ("all", "'all' is reserved (--framework all means every framework)"),
    ("default", "'default' is reserved"),
    ("express", "a framework named 'express' exists already (express-api/)"),
    ("taken", "taken-api/ exists already"),
])
def test_a_bad_name_is_one_line_and_changes_nothing(copy, name, says):
    (copy / "taken-api").mkdir(exist_ok=True)
    before = entries(copy)
    result = run_testbed(copy, "new", name, "--maintainer", "Ada")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("testbed: ") and says in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert entries(copy) == before


def test_an_unknown_source_lists_the_templates_found(copy):
    result = run_testbed(copy, "new", "koa", "--from", "nope")
    assert result.returncode == 2
    assert result.stderr == (f"testbed: --from 'nope': no implementation of that name has a "
                             f"scaffold/ template; choose from {', '.join(sorted(sources()))}.\n")
    assert not (copy / "koa-api").exists()


@pytest.mark.parametrize("source", sorted(sources()))
def test_a_new_framework_json_names_the_schema_and_keeps_it(source):
    found = sources()[source]
    template = json.loads((found["dir"] / TEMPLATE / "framework.json").read_text())
    data = manifest(template, "koa", "Koa", ["Ada"], 3900, found, ROOT / "koa-api")
    assert list(data)[0] == "$schema" and data["$schema"] == "../benchlib/framework.schema.json"
    apps.check_framework(data, "koa-api/framework.json")  # a problem would raise UserError


def test_a_template_that_would_break_the_schema_writes_nothing(copy):
    template = copy / "express-api" / TEMPLATE / "framework.json"
    kept = template.read_text()
    template.write_text(kept.replace('"readiness_path": "/healthz"', '"readiness_path": "healthz"'))
    try:
        before = entries(copy)
        result = run_testbed(copy, "new", "koa", "--from", "express", "--maintainer", "Ada")
    finally:
        template.write_text(kept)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == ("testbed: the framework.json made from express-api/scaffold/framework.json: "
                             "readiness_path must be a path starting with /, not 'healthz'; "
                             "see docs/adding-a-framework.md.\n")
    assert entries(copy) == before


@pytest.mark.parametrize("source", sorted(sources()))
def test_a_scaffold_builds_starts_and_verify_lists_what_is_missing(copy, source):
    name = f"from-{source}"
    made = run_testbed(copy, "new", name, "--from", source, "--maintainer", "Ada Lovelace")
    assert made.returncode == 0, made.stdout + made.stderr
    folder = copy / f"{name}-api"
    framework = json.loads((folder / "framework.json").read_text())
    original = json.loads((ROOT / f"{source}-api" / "framework.json").read_text())
    assert (framework["name"], framework["type"], framework["maintainers"]) == \
        (name, "realistic", ["Ada Lovelace"])
    schema = (folder / framework["$schema"]).resolve()
    assert schema == (copy / "benchlib" / "framework.schema.json").resolve()
    # One TODO per setting the source declares, and a README row for each.
    assert framework["settings"] == {key: "TODO" for key in original["settings"]}
    readme = (folder / "README.md").read_text()
    assert "{{" not in readme
    assert all(f"| `{key}` | TODO | {source}: " in readme for key in original["settings"])

    verified = run_testbed(copy, "verify", "--framework", name, "--fresh")
    # 1: it built, started and was checked (2 would be an app that would not start).
    assert verified.returncode == 1, verified.stdout + verified.stderr
    row = table(verified.stdout)[name]
    lines = verified.stdout.splitlines()
    assert row["agree"] == "-"  # nothing else verified beside it
    # Each failing check: one line counting its failures per route, every route still to write
    # among them (the contract's REST routes and POST /graphql), adding up to the table's count.
    for column in ("golden", "sample", "bad-input", "statements"):
        assert row[column].startswith("FAIL"), row
        counts = failures_per_route(row, lines, name, column)
        assert set(ROUTES) - {"GET /healthz"} <= set(counts), counts
    # Then its first failures: the request, what the contract expects, and the skeleton's 501
    # naming the route still to write.
    assert f"{name} / golden: GET /rest/comment/1\n    expected: 200 application/json" in verified.stdout
    # Every setting still "TODO" in framework.json, in one line, and a failing cell of its own.
    assert f"{name} / settings: still TODO in framework.json: {', '.join(original['settings'])}" \
        in lines
    assert row["settings"] == f"FAIL {len(original['settings'])}/{len(original['settings'])}", row
    assert '"status":501,"detail":"not implemented yet: GET /rest/comment/{id}"' in verified.stdout
    # What the skeleton already does right: headers and framing on every response, /healthz.
    assert row["headers"].startswith("pass") and row["framing"].startswith("pass"), row

    # Its own test passes against the real database, as ./testbed test runs it.
    own = subprocess.run(framework["test"], shell=True, cwd=folder, capture_output=True, text=True,
                         timeout=600, env={**os.environ, **database().api_env()})
    assert own.returncode == 0, own.stdout + own.stderr
