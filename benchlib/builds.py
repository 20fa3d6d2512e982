"""Building an implementation with its framework.json `build`, only when its sources changed."""
import fcntl
import hashlib
import json
import os
import subprocess
from pathlib import Path

from benchlib.console import fail, say
from benchlib.files import write_json
from benchlib.paths import BUILDS

# Folders a build writes (or a package manager fills): not sources, so not part of the stamp.
OUTPUT_DIRS = {"node_modules", "bin", "obj", "out", "dist", "publish", "TestResults", ".testbed"}


def _source_files(framework: dict):
    """The files a build depends on: the framework's optional `build_inputs` globs (e.g. a lock
    file, when the build only installs packages), else every file outside the output folders."""
    base = Path(framework["dir"])
    if framework.get("build_inputs"):
        yield from sorted({p for pattern in framework["build_inputs"] for p in base.glob(pattern)
                           if p.is_file()})
        return
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in OUTPUT_DIRS and not d.startswith(".git"))
        yield from (Path(folder) / name for name in sorted(files))


def _source_hash(framework: dict) -> str:
    """Build command plus each input file's path and content."""
    digest = hashlib.sha256(framework["build"].encode())
    base = Path(framework["dir"])
    for path in _source_files(framework):
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _outputs(framework: dict) -> list[str]:
    return sorted(d for d in OUTPUT_DIRS if (Path(framework["dir"]) / d).exists())


def build(framework: dict, force: bool = False) -> bool:
    """Build a framework (or one of its variants: benchlib/apps.py arm) unless nothing changed.
    A variant's own `build` runs after the framework's, with a stamp of its own."""
    built = _build(framework if "base" not in framework else {**framework, "name": framework["base"]}, force)
    extra = framework.get("variant", {}).get("build")
    if extra:
        built |= _build({"name": framework["name"], "dir": framework["dir"], "build": extra,
                         "build_inputs": framework["variant"].get("build_inputs", [])}, force)
    return built


def _build(framework: dict, force: bool = False) -> bool:
    """Run the framework's `build` in its folder unless nothing changed since the last build.

    "Nothing changed" means the same build command and input files (a stamp under
    .testbed/build/; see _source_files) and the output folders that build left are still there.
    Returns True if it built. A needless rebuild is not harmless: `npm ci` empties node_modules
    under any app still running from it.
    """
    BUILDS.mkdir(parents=True, exist_ok=True)
    # Suites and the run engine may build the same app at once; the second waits, then skips.
    with open(BUILDS / f"{framework['name']}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(framework, force)


def _build_locked(framework: dict, force: bool) -> bool:
    stamp = BUILDS / f"{framework['name']}.json"
    source = _source_hash(framework)
    if not force and stamp.exists():
        last = json.loads(stamp.read_text())
        if last.get("source") == source and all(
                (Path(framework["dir"]) / d).exists() for d in last.get("outputs", [])):
            return False
    say(f"{framework['name']}: building ({framework['build']}) ...")
    result = subprocess.run(framework["build"], shell=True, cwd=framework["dir"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        stamp.unlink(missing_ok=True)
        last_lines = (result.stderr or result.stdout).strip().splitlines()[-2:]
        fail(f"building {framework['name']} failed (`{framework['build']}` exited with "
             f"{result.returncode}): {' '.join(last_lines)}")
    write_json(stamp, {"source": source, "outputs": _outputs(framework)})
    return True
