"""A run's manifest.json: everything needed to know what a run measured, and on what (docs/results-format.md).
(A framework's own description is its framework.json, never called a manifest here.)"""
import json
import os
import platform
import re
import subprocess
from pathlib import Path

from benchlib import apps, database
from benchlib.engines import Endpoint
from benchlib.jmeter import jmeter_version
from benchlib.paths import ROOT, shown
from benchlib.results import SCHEMA_VERSION, now_iso
from collect.items import validity
from collect.load import remote
from collect.passes import rounds
from collect.passes.order import order
from collect.run.runs import RunSpec


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
        # The machine's node runs the seeder and express:node20 only; each app's own runtime (Node 24
        # for express) is what its process reports, under frameworks.<name>.loaded.
        "node_on_path": _out(["node", "--version"]),
        # The go that built gin-api (its build.sh uses the one on PATH); the process reports the same
        # version under frameworks.gin.loaded.
        "go": _out(["go", "version"]),
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


def frameworks(chosen: list[dict]) -> dict:
    """Each framework.json as its chosen variant runs it (benchlib/apps.py arm), with the packages
    it resolved and the variant run."""
    out = {}
    for framework in chosen:
        entry = {k: v for k, v in framework.items() if k != "dir"}
        entry["dir"] = shown(framework["dir"])
        entry["packages"] = packages(Path(framework["dir"]))
        entry["variant_run"] = framework["variant"]["name"]
        out[framework["name"]] = entry
    return out


def database_info(db) -> dict:
    info = {"host": db.host, "port": db.port, "name": db.name, "managed": db.managed,
            "version": database.version(db), "dataset": database.loaded(db)}
    if not db.managed:
        info["sampled"] = False
    return info


SAMPLERS = {"proc": "/proc/<pid>/stat every 0.1 s: CPU % of one core from utime+stime, RSS",
            "top": "top -b -d 0.1 -p PIDS | grep --line-buffered (study Appendix B, by pid)",
            "summary_source": "proc.csv, trimmed to the measured window"}


def load_protocol(engines: tuple[Endpoint, ...]) -> dict:
    """Where the load comes from, and how remote engines keep in step."""
    if not engines:
        return {"from": "this machine: one load generator process per batch",
                "wrk": "collect/load/wrk_batch.py: one wrk per measurement, a thread per connection "
                       "(benchlib/wrk_measure.lua), every request kept as a JTL row and checked",
                "jmeter": "one JMeter process per batch, a thread group per measurement"}
    return {"from": f"{len(engines)} JMeter remote engine(s), one controller each on this machine",
            "threads": "each measurement's threads divided across the engines, the remainder one each "
                       "to the first",
            "schedule": f"every measurement starts at a wall-clock time shared by the engines: the first "
                        f"{remote.LEAD_S} s after the batch starts, then one every warm-up + window + "
                        f"{remote.GAP_S} s",
            "engine_cpu": "each engine's JVM from its own /proc/self/stat every 0.1 s over the window",
            "lead_s": remote.LEAD_S, "gap_s": remote.GAP_S}


def loadgen_record(spec: RunSpec) -> dict:
    """Which load generator measures the run, and why; `tool` stays None until the reference work
    has measured the candidates (requested "auto")."""
    if spec.engines:
        return {"requested": "jmeter", "tool": "jmeter", "why": "remote engines are JMeter's (--engines)"}
    if spec.loadgen == "auto":
        return {"requested": "auto", "tool": None, "why": None}
    profiles_own = spec.loadgen == "jmeter" and spec.profile.measured_by_jmeter
    return {"requested": spec.loadgen, "tool": spec.loadgen,
            "why": f"the {spec.profile.name} profile's instrument, the study's own tool" if profiles_own
            else f"--loadgen {spec.loadgen}"}


def common(spec: RunSpec, jmeter: str, run_id: str) -> dict:
    """What a new run's manifest holds however its apps run (`./testbed run`'s own, or the Docker
    runner's containers): its id, settings, protocol, order, what it runs on and its checks."""
    return {
        "schema_version": SCHEMA_VERSION, "run_id": run_id, **git(),
        "created_at": now_iso(), "profile": spec.profile.name, "settings": spec.recorded(),
        "seed": spec.seed,
        "protocol": {**spec.profile.protocol(), "seed": spec.seed, "load": load_protocol(spec.engines)},
        "order": order(spec.frameworks, spec.apis, spec.cases, spec.profile.rounds,
                       spec.profile.restart, spec.seed),
        "versions": runtime_versions(jmeter),
        "machine": machine(),
        "validity": validity.protocol(spec.profile, bool(spec.engines)),
        "sequential": rounds.protocol(spec.profile),
    }


def build(spec: RunSpec, run_id: str, chosen: dict[str, dict], jmeter: str, db, layout: dict,
          engines: remote.Engines | None) -> dict:
    """The manifest of a new run of the testbed's own apps: common()'s, and the apps, the load
    generator, the layout, the database and the samplers; `engines`: the remote engines, connected."""
    return {
        **common(spec, jmeter, run_id),
        "frameworks": frameworks(list(chosen.values())),
        "loadgen": loadgen_record(spec),
        "layout": layout,
        "ports": {name: apps.port(framework) for name, framework in chosen.items()},
        "database": database_info(db),
        "samplers": SAMPLERS,
        **({"engines": engines.facts} if engines else {}),
    }


def external(spec: RunSpec, targets: dict, launcher: str, run_id: str, runner: dict, *, variant: str | None,
             loadgen_why: str, layout_note: str, sampled: str, db=None, engines: remote.Engines | None = None) -> dict:
    """The manifest of a new run on apps something else runs (collect/load/app_pool.py ExternalApps: the
    Docker runner's containers, the app `./testbed load` is pointed at): common()'s, where each app
    is reached, and what the samplers watch besides the load generator (`sampled`, with why).
    `runner`: who ran the run, and what it measures; `variant`: the variant the apps run, None when
    it cannot be known here; `db`: the database, when it is sampled here; `engines`: the remote
    engines, connected."""
    shared = common(spec, launcher, run_id)
    del shared["settings"]["bind_address"]  # not this run's to choose: the apps listen where they run
    shared["protocol"]["apps"] = "run by something else: never started or restarted here"
    return {
        **shared,
        "frameworks": {f: {"name": f, "host": targets[f].host, "port": targets[f].port,
                           "apis": list(targets[f].apis), "readiness_path": targets[f].readiness_path,
                           "variant": {"name": variant}} for f in spec.frameworks},
        "loadgen": {"requested": "jmeter", "tool": "jmeter", "why": loadgen_why},
        "layout": {"requested": "no-pin", "applied": False, "note": layout_note},
        "ports": {f: targets[f].port for f in spec.frameworks},
        "runner": runner,
        "database": {**database_info(db), "sampled": True} if db else {"managed": False, "sampled": False},
        "samplers": {"proc": f"/proc/<pid>/stat every 0.1 s: the load generator; {sampled}",
                     "summary_source": "proc.csv, trimmed to the measured window"},
        **({"engines": engines.facts} if engines else {}),
    }
