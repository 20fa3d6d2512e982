"""The contract passes its ecosystem's own checkers, and every GraphQL implementation serves it:
Redocly CLI lints openapi.yaml with its recommended rules, graphql-js builds schema.graphql, and
each implementation whose framework.json declares graphql, started here, passes graphql-http's
MUST and SHOULD audits and serves exactly the contract's schema by introspection, in any order,
but for the types its framework.json declares as deviations.

The tools are pinned in contract/package.json and installed as the seeder's are (`npm ci` when
node_modules is older than the lock file)."""
import json
import re
import shutil
import subprocess
from dataclasses import dataclass

import pytest

from benchlib.apps import frameworks, served_apis
from benchlib.net import free_port
from benchlib.packages import ensure_npm
from benchlib.paths import ROOT
from contract.checks import deviations
from contract.targets import launch

CONTRACT = ROOT / "contract"
REDOCLY = CONTRACT / "node_modules" / ".bin" / "redocly"
# graphql-js's standard introspection query nests 15 levels and selects 220 fields, over the
# limits the benchmark runs with; both stacks read these at start-up.
INTROSPECTION_LIMITS = {"GRAPHQL_MAX_DEPTH": "15", "GRAPHQL_MAX_FIELDS": "5000",
                        "GRAPHQL_MAX_COMMENTS": "1000"}
GRAPHQL_IMPLEMENTATIONS = [m for m in frameworks() if "graphql" in served_apis(m)]


@pytest.fixture(scope="module", autouse=True)
def tools():
    ensure_npm(CONTRACT)


def run(*argv, cwd=CONTRACT) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)


def lint(folder) -> dict:
    """Redocly's findings on folder/openapi.yaml under folder/redocly.yaml."""
    result = run(str(REDOCLY), "lint", "openapi.yaml", "--format=json", cwd=folder)
    try:
        return json.loads(result.stdout)
    except ValueError:
        pytest.fail(f"redocly lint printed no report (exit {result.returncode}): {result.stderr[-2000:]}")


def test_openapi_passes_redocly_recommended_without_errors_or_warnings():
    report = lint(CONTRACT)
    findings = [f"{p['severity']} {p['ruleId']}: {p['message']} at {p['location'][0]['pointer']}"
                for p in report["problems"]]
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, "\n".join(findings)


def test_lint_counts_warnings_too(tmp_path):
    """The lint exits 0 on warnings; the test above reads its report, which must show them."""
    shutil.copy(CONTRACT / "redocly.yaml", tmp_path)
    text = (CONTRACT / "openapi.yaml").read_text()
    (tmp_path / "openapi.yaml").write_text(text.replace("      operationId: healthz\n", "", 1))
    report = lint(tmp_path)
    assert report["totals"]["warnings"] == 1
    assert report["problems"][0]["ruleId"] == "operation-operationId"


def test_sdl_builds_with_graphql_js():
    result = run("node", "sdl.mjs")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "schema.graphql builds with graphql-js" in result.stdout


@dataclass(frozen=True)
class Served:
    url: str            # its /graphql
    declared: tuple     # the types its framework.json declares as introspection deviations

    @property
    def args(self) -> tuple:
        return tuple(arg for name in self.declared for arg in ("--declared", name))


@pytest.fixture(scope="module", params=GRAPHQL_IMPLEMENTATIONS, ids=lambda m: m["name"])
def graphql(request):
    target = launch(request.param, free_port(), INTROSPECTION_LIMITS, purpose="ecosystem")
    yield Served(target.url + "/graphql",
                 tuple(d["request"] for d in deviations(request.param, "introspection")))
    target.release()


def test_graphql_http_audits_pass(graphql):
    result = run("node", "audit.mjs", graphql.url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 MUST/SHOULD failed" in result.stdout


def test_audit_fails_an_endpoint_that_is_not_graphql(graphql):
    rest = graphql.url.removesuffix("/graphql") + "/rest/comments/1"
    result = run("node", "audit.mjs", rest)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED: 4655 MUST accept application/json" in result.stdout


def test_served_schema_is_the_contract_sdl(graphql):
    result = run("node", "introspect.mjs", graphql.url, *graphql.args)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in graphql.declared:
        assert f"declared: type {name} (only the server has it)" in result.stdout.splitlines()


def test_the_order_of_types_carries_no_meaning(graphql, tmp_path):
    sdl = tmp_path / "schema.graphql"
    types = re.split(r"\n(?=type )", (CONTRACT / "schema.graphql").read_text().strip())
    sdl.write_text("\n".join(reversed(types)) + "\n")
    result = run("node", "introspect.mjs", graphql.url, str(sdl), *graphql.args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_introspection_shows_a_difference(graphql, tmp_path):
    sdl = tmp_path / "schema.graphql"
    sdl.write_text((CONTRACT / "schema.graphql").read_text().replace(" phone: String!", ""))
    result = run("node", "introspect.mjs", graphql.url, str(sdl), *graphql.args)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "+   phone: String!" in result.stdout.splitlines()


def test_a_declared_type_that_does_not_differ_fails(graphql):
    result = run("node", "introspect.mjs", graphql.url, *graphql.args, "--declared", "Comment")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "declared but not seen: type Comment is the same on both sides; remove it from " \
           "framework.json's deviations" in result.stdout.splitlines()
