"""`./testbed verify` for real: every implementation in the repository must pass, and a broken
one (a real implementation behind contract/fault_proxy.py) must fail, on the right check."""
import json
import subprocess
import sys

import pytest

from benchlib.apps import frameworks, served_apis
from benchlib.builds import build
from benchlib.net import free_port
from benchlib.paths import ROOT

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
