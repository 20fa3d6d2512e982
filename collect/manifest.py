"""manifest.json: everything needed to know what a run measured, and on what (DESIGN §7)."""
import json
import os
import platform
import re
import subprocess
from pathlib import Path

from cli.common import ROOT
from cli.jmeter import jmeter_version

SCHEMA_VERSION = 1


def _out(cmd, cwd=ROOT) -> str | None:
    try:
        result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (result.stdout + result.stderr).strip()
    return text if result.returncode == 0 and text else None


def git() -> dict:
    commit = _out(["git", "rev-parse", "HEAD"])
    status = _out(["git", "status", "--porcelain", "--untracked-files=no"])
    return {"git_commit": commit, "git_dirty": bool(status) if commit else None}


def machine() -> dict:
    cpu_model = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kb = int(next(line for line in f if line.startswith("MemTotal:")).split()[1])
    return {"cpu_model": cpu_model, "cores": os.cpu_count(),
            "cores_available": len(os.sched_getaffinity(0)), "mem_total_mb": mem_kb // 1024,
            "kernel": platform.release(), "os": _os_name()}


def _os_name() -> str | None:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return None
    match = re.search(r'^PRETTY_NAME="?([^"\n]*)', text, re.M)
    return match.group(1) if match else None


def runtime_versions(jmeter: str | None) -> dict:
    java = _out(["java", "-version"])
    versions = {
        "python": platform.python_version(),
        "dotnet": _out(["dotnet", "--version"]),
        "dotnet_runtimes": (_out(["dotnet", "--list-runtimes"]) or "").splitlines() or None,
        "node": _out(["node", "--version"]),
        "java": java.splitlines()[0] if java else None,
        "top": _out(["top", "-V"]),
        "jmeter": None,
    }
    if jmeter:
        versions["jmeter"] = jmeter_version(jmeter)
        versions["jmeter_launcher"] = str(jmeter)
    return versions


def packages(folder: Path) -> dict:
    """The direct dependencies an implementation actually resolved (npm lock, or csproj pins)."""
    found = {}
    lock = folder / "package-lock.json"
    if lock.exists():
        data = json.loads(lock.read_text())
        root = data.get("packages", {}).get("", {})
        for name in root.get("dependencies", {}):
            found[name] = data["packages"].get(f"node_modules/{name}", {}).get("version")
    for csproj in folder.rglob("*.csproj"):
        if any(part in ("bin", "obj") for part in csproj.parts):
            continue
        for name, version in re.findall(
                r'<PackageReference\s+Include="([^"]+)"\s+Version="([^"]+)"', csproj.read_text()):
            found[name] = version.strip("[]")  # an exact pin is written [x.y.z]
    return found


def frameworks(manifests: list[dict]) -> dict:
    out = {}
    for m in manifests:
        entry = {k: v for k, v in m.items() if k != "dir"}
        entry["dir"] = str(Path(m["dir"]).relative_to(ROOT)) if Path(m["dir"]).is_relative_to(ROOT) \
            else str(m["dir"])
        entry["packages"] = packages(Path(m["dir"]))
        entry["variant_run"] = (m.get("variants") or [{"name": "default"}])[0]["name"]
        out[m["name"]] = entry
    return out


LOADED_PREFIX = "testbed-loaded "


def loaded_report(log: Path) -> dict | None:
    """What an app says it loaded (runtime, driver, libraries): its start-up line
    `testbed-loaded {json}` (contract/README.md), read from the process's own log."""
    try:
        with open(log, errors="replace") as f:
            for line in f:
                if line.startswith(LOADED_PREFIX):
                    return json.loads(line[len(LOADED_PREFIX):])
    except (OSError, ValueError):
        return None
    return None


def database_info(db, dataset: dict | None, version: str | None) -> dict:
    return {"host": db.host, "port": db.port, "name": db.name, "managed": db.managed,
            "version": version, "dataset": dataset}


def write(path: Path, manifest: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, path)
