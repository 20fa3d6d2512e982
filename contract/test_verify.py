"""`./testbed verify` for real: every implementation in the repository must pass, and a broken
one (a real implementation behind contract/fault_proxy.py) must fail, on the right check. Below the
table, each failing check's failures are counted per route of the contract, from the requests the
checks really send. A deviation a framework.json declares is neither a pass nor a failure, and fails
once it no longer deviates."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib.apps import SCHEMA, arm, frameworks, served_apis, variants
from benchlib.builds import build
from benchlib.net import free_port
from benchlib.paths import ROOT
from contract import checks, golden, statements
from contract.calls import Request, sample_calls
from contract.checks import Failure
from contract.framing import HEAD_PARITY
from contract.verify import (COLUMNS, PATHS, REQUEST, ROUTE_PATTERNS, ROUTES, by_route, declared_lines,
                             details, route)

TESTBED = str(ROOT / "testbed")


def verify(*args) -> subprocess.CompletedProcess:
    return subprocess.run([TESTBED, "verify", "--fresh", *args], capture_output=True, text=True,
                          timeout=900)


def table(output: str) -> dict[str, dict[str, str]]:
    """The result table as {implementation: {check: cell}}."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("implementation"))
    columns = lines[start].split()[1:]
    rows = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        name, rest = line.split(None, 1)
        cells = [c.strip() for c in rest.split("  ") if c.strip()]
        rows[name] = dict(zip(columns, cells))
    return rows


def test_every_implementation_keeps_the_contract():
    served = {m["name"]: "+".join(served_apis(m)) for m in frameworks()}
    assert served, "no framework.json in the repository"
    result = verify()
    assert result.returncode == 0, result.stdout + result.stderr
    rows = table(result.stdout)
    assert sorted(rows) == sorted(served)
    for name, cells in rows.items():
        assert cells.pop("apis") == served[name]
        assert all(cell.startswith("pass") or (cell == "-" and len(served) == 1)
                   for cell in cells.values()), (name, cells)


def fault_manifest(folder, name, fault, upstream) -> str:
    folder.mkdir()
    manifest = {
        "schema": 1, "name": name, "display_name": f"{upstream['name']} with {fault}",
        "type": "realistic", "maintainers": ["contract/test_verify.py"],
        "build": "true", "start": [sys.executable, "-m", "contract.fault_proxy"],
        "port_env": "PORT", "default_port": free_port(),
        "readiness_path": "/healthz", "process_name": "python3",
        "env": {"PYTHONPATH": str(ROOT), "FAULT": fault,
                "UPSTREAM": str(upstream["dir"] / "framework.json")},
    }
    (folder / "framework.json").write_text(json.dumps(manifest))
    return str(folder / "framework.json")


@pytest.fixture(scope="module")
def upstream():
    chosen = [m for m in frameworks() if m["name"] == "express"] or frameworks()
    if not chosen:
        pytest.skip("no implementation to break")
    build(chosen[0])
    return chosen[0]


def test_verify_names_the_broken_check(tmp_path, upstream):
    swapped = fault_manifest(tmp_path / "swapped", "swapped-keys", "swap-keys", upstream)
    extra = fault_manifest(tmp_path / "extra", "extra-query", "extra-query", upstream)
    # The sample would fail like the goldens; leaving it out keeps the suite short.
    result = verify("--manifest", swapped, "--manifest", extra, "--checks",
                    "golden,bad-input,headers,statements",
                    "--framework", "swapped-keys", "--framework", "extra-query")
    assert result.returncode == 1, result.stdout + result.stderr
    rows = table(result.stdout)
    swapped_row, extra_row = rows["swapped-keys"], rows["extra-query"]
    # Reordered keys: every comment body differs, while the work done is still right.
    assert swapped_row["golden"].startswith("FAIL"), swapped_row
    assert swapped_row["statements"].startswith("pass"), swapped_row
    # One query too many per request: only the statement count shows it.
    assert extra_row["statements"] == "FAIL 17/17", extra_row
    assert extra_row["golden"].startswith("pass"), extra_row
    assert extra_row["headers"].startswith("pass"), extra_row
    assert "extra-query / statements: REST comment by id" in result.stdout
    assert "relay: 100 SELECT" in result.stdout


def test_verify_checks_a_framework_json_against_the_schema_as_discovery_does(tmp_path):
    folder = tmp_path / "typo-api"
    folder.mkdir()
    (folder / "framework.json").write_text(json.dumps({
        "name": "typo", "type": "realistic", "maintainers": ["contract/test_verify.py"],
        "build": "true", "start": ["true"], "port_env": "PORT", "default_port": free_port(),
        "readiness_path": "/healthz", "proces_name": "python3"}))
    result = verify("--manifest", str(folder / "framework.json"), "--framework", "typo")
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr == (f"testbed: {folder / 'framework.json'} has unknown field 'proces_name'; "
                             "see docs/adding-a-framework.md for its fields.\n")


def failing(whats) -> list[Failure]:
    return [Failure(what, "expected", "got") for what in whats]


def test_failures_are_counted_per_route_of_the_contract():
    # The goldens, as the golden check names them: every route, the contract's order.
    entries = golden.load()["responses"]
    assert by_route(failing(Request.from_json(e["request"]).describe() for e in entries)) == (
        f"{len(entries)} failed: GET /rest/comment/{{id}} 6, GET /rest/comments/{{limit}} 5, "
        "GET /rest/user/{id}/comment 6, GET /rest/user/{id}/comments/{limit} 6, POST /graphql 43, "
        "GET /healthz 1")
    # The sample: an eighth of the calls per REST endpoint, half of them GraphQL.
    assert by_route(failing(c.describe() for c in sample_calls())) == (
        "1000 failed: GET /rest/comment/{id} 125, GET /rest/comments/{limit} 125, "
        "GET /rest/user/{id}/comment 125, GET /rest/user/{id}/comments/{limit} 125, POST /graphql 500")
    # statements names a kind and one request of its batch; framing a HEAD.
    kinds = statements.kinds(random.Random(7))
    assert by_route(failing(statements.described(n, make()) for n, _, make in kinds)) == (
        "17 failed: GET /rest/comment/{id} 3, GET /rest/comments/{limit} 1, "
        "GET /rest/user/{id}/comment 1, GET /rest/user/{id}/comments/{limit} 1, POST /graphql 10, "
        "GET /healthz 1")
    assert by_route(failing(f"HEAD {path}" for path in HEAD_PARITY)) == (
        "9 failed: HEAD /rest/comment/{id} 3, HEAD /rest/comments/{limit} 1, "
        "HEAD /rest/user/{id}/comment 1, HEAD /rest/user/{id}/comments/{limit} 1, HEAD /graphql 1, "
        "HEAD /healthz 1, HEAD /nothing 1")
    assert route("HEAD /rest/user/1/comments/5") == (3, "HEAD /rest/user/{id}/comments/{limit}")
    # Every bad-input row under its own method and path (a row's name may read like a request),
    # a bad id or limit under its route, a path the contract lacks as sent, query string dropped.
    for case in checks.load_bad_input():
        found = REQUEST.search(checks.described(case))
        assert found and found.groups() == (case["method"], case["path"]), case["name"]
        path = case["path"].split("?")[0]
        known = [i for i, pattern in enumerate(ROUTE_PATTERNS) if pattern.fullmatch(path)]
        assert route(checks.described(case)) == \
            ((known[0], f"{case['method']} {PATHS[known[0]]}") if known
             else (len(ROUTES), f"{case['method']} {path}")), case["name"]
    # Grouped, each path's own method first, then the others it was sent with, as first met.
    rows = {c["name"]: c for c in checks.load_bad_input()}
    picked = ["HEAD /graphql", "PUT /rest/comment/1", "GET /graphql [json]", "graphql depth 6 [json]",
              "rest comment id abc", "PUT /graphql [json]", "graphql depth 7 [json]"]
    assert by_route(failing(checks.described(rows[name]) for name in picked)) == (
        "7 failed: GET /rest/comment/{id} 1, PUT /rest/comment/{id} 1, POST /graphql 2, "
        "HEAD /graphql 1, GET /graphql 1, PUT /graphql 1")
    assert route("GET /rest/comment/abc")[1] == "GET /rest/comment/{id}"
    assert route("GET /rest/comments/%2B5 [Accept: text/html]")[1] == "GET /rest/comments/{limit}"
    assert route("bad row: GET /rest/comment/1/extra?x=1")[1] == "GET /rest/comment/1/extra"
    # A failure that names no request is shown as it is, after the routes.
    assert by_route(failing(["POST /graphql {}", "a batch", "GET /nothing", "GET /healthz"])) == \
        "4 failed: POST /graphql 1, GET /healthz 1, a batch 1, GET /nothing 1"


def test_settings_still_todo_fail_in_one_line():
    # The scaffold's placeholder, wherever it is left: a setting, inside one, a variant's own.
    scaffolded = {"settings": {"pool_size": "TODO", "processes": 1,
                               "libraries": {"mysql2": "3.24.6", "graphql": "TODO"}},
                  "variant": {"name": "jit", "settings": {"graphql_jit": "TODO", "cache": None}}}
    result = checks.settings(scaffolded)
    assert result.cell() == "FAIL 3/5"
    passing = {c: checks.Result(c, total=1) for c in COLUMNS}
    assert details({"koa": {**passing, "settings": result}}) == [
        "koa / settings: still TODO in framework.json: pool_size, libraries, variant jit: graphql_jit"]
    # Every implementation in the repository, each variant, has declared all of them.
    for framework in frameworks():
        for variant in variants(framework):
            declared = checks.settings(arm(framework, variant["name"]))
            assert declared.passed and declared.total, (framework["name"], variant["name"])


def declaring(name, deviations, upstream, tmp_path) -> str:
    """A fault_proxy manifest that passes every request on (a delay of 0 ms) and declares these."""
    path = fault_manifest(tmp_path / name, name, "delay", upstream)
    manifest = json.loads(Path(path).read_text())
    manifest["env"]["DELAY_MS"] = "0"
    manifest["deviations"] = deviations
    Path(path).write_text(json.dumps(manifest))
    return path


ID_LITERAL = "graphql commentById id literal 2147483648 [json]"
DEVIATION = {"check": "bad-input", "request": ID_LITERAL, "why": "its library refuses it",
             "upstream": "none known"}


def test_a_declared_deviation_is_neither_a_pass_nor_a_failure():
    rows = {c["name"]: c for c in checks.load_bad_input()}
    result = checks.Result("bad-input", total=3, failures=failing(
        [checks.described(rows[ID_LITERAL]), checks.described(rows["rest comment id abc"])]))
    checks.declare(result, [("gin", DEVIATION)])
    assert result.cell() == "FAIL 1/2, 1 declared"
    assert [f.what for f in result.failures] == [checks.described(rows["rest comment id abc"])]
    passing = {c: checks.Result(c, total=1) for c in COLUMNS}
    assert declared_lines({"gin": {**passing, "bad-input": result}}) == [
        "gin / bad-input: 1 declared, neither passes nor failures",
        f"gin / bad-input: declared by gin: {checks.described(rows[ID_LITERAL])}",
        "    why: its library refuses it", "    upstream: none known"]
    # Where the request is answered as the contract says, the declaration must go.
    fixed = checks.declare(checks.Result("bad-input", total=343), [("gin", DEVIATION)])
    assert fixed.cell() == "FAIL 1/343"
    assert (fixed.failures[0].what, fixed.failures[0].note) == (ID_LITERAL, checks.NOT_SEEN)
    # agree holds the other implementation's declarations too, and leaves staleness to the check.
    assert checks.declare(checks.Result("agree", total=9), [("gin", DEVIATION)], must_be_seen=False).passed
    # The checks a deviation may name: verify's columns that judge requests, and introspection.
    assert SCHEMA["$defs"]["deviation"]["properties"]["check"]["enum"] == \
        [c for c in COLUMNS if c not in ("agree", "settings")] + ["introspection"]


def test_a_declared_deviation_that_no_longer_deviates_fails_verify(tmp_path, upstream):
    path = declaring("declared-fixed", [DEVIATION], upstream, tmp_path)
    result = verify("--manifest", path, "--framework", "declared-fixed", "--checks", "bad-input")
    assert result.returncode == 1, result.stdout + result.stderr
    assert table(result.stdout)["declared-fixed"]["bad-input"] == f"FAIL 1/{len(checks.load_bad_input())}"
    assert f"declared-fixed / bad-input: {ID_LITERAL}" in result.stdout.splitlines()
    assert f"    {checks.NOT_SEEN}" in result.stdout.splitlines()


def test_gin_keeps_the_contract_but_for_its_declared_deviations():
    """Go's net/http answers a malformed request-target itself (the bad-input rows that assert only
    the 400 and the connection), and graphql-go refuses an ID literal past 2^31 (declared)."""
    names = {m["name"] for m in frameworks()}
    if not {"gin", "fastify"} <= names:
        pytest.skip("needs gin and fastify")
    result = verify("--framework", "gin", "--framework", "fastify", "--checks", "bad-input,framing,agree")
    assert result.returncode == 0, result.stdout + result.stderr
    rows, total = table(result.stdout), len(checks.load_bad_input())
    assert rows["gin"]["bad-input"] == f"pass {total - 2}, 2 declared", rows
    assert rows["fastify"]["bad-input"] == f"pass {total}", rows
    assert rows["gin"]["framing"].startswith("pass") and rows["fastify"]["framing"].startswith("pass"), rows
    assert rows["gin"]["agree"] == rows["fastify"]["agree"] == f"pass {total - 2}, 2 declared", rows
    assert f"gin / bad-input: declared by gin: {ID_LITERAL}: POST /graphql" in result.stdout
    assert "    upstream: https://github.com/graph-gophers/graphql-go/issues/333" in result.stdout.splitlines()
    assert result.stdout.rstrip().endswith("all checks pass, 6 declared (above).")


def test_a_connection_that_no_longer_serves_after_a_malformed_target_fails_bad_input(tmp_path, upstream):
    path = fault_manifest(tmp_path / "poisoned", "poisoned", "poison-after-malformed", upstream)
    result = verify("--manifest", path, "--framework", "poisoned", "--checks", "bad-input")
    assert result.returncode == 1, result.stdout + result.stderr
    malformed = [c for c in checks.load_bad_input() if c.get("malformed_target")]
    assert table(result.stdout)["poisoned"]["bad-input"] == \
        f"FAIL {len(malformed)}/{len(checks.load_bad_input())}"
    assert "    a GET /healthz sent behind it got 500" in result.stdout.splitlines()
