"""What the testbed needs from the machine: Debian packages, npm dependencies, tools on PATH.
Installing is idempotent; every command that needs something calls these first."""
import os
import shutil
import subprocess

from benchlib.console import fail, say
from benchlib.paths import ROOT

# What each part of the testbed needs from Debian. Python libraries come from Debian because
# PyPI is not reachable on the project's machines.
DEBIAN = {
    "db": ["mariadb-server", "mariadb-client"],
    "python": ["python3-pytest", "python3-pymysql", "python3-pandas", "python3-scipy",
               "python3-matplotlib", "python3-yaml"],
    "samplers": ["procps"],
    "load": ["wrk"],
    # framework.json's checks: benchlib/framework.schema.json (benchlib/apps.py).
    "schema": ["python3-jsonschema"],
    # ./testbed test (benchlib/suites.py): the Python linter, and pytest's runner that spreads the
    # tests over the cores.
    "suite": ["python3-flake8", "python3-pytest-xdist"],
    # The report's browser test (analysis/test_report_browser.py) opens index.html in the system's
    # Chromium; playwright-core drives it and never downloads a browser of its own.
    "report": ["chromium"],
    # gin-api's toolchain and libraries: Debian's Go packages build offline in GOPATH mode (the Go
    # module proxy is out of reach from the project's machines). golang-go is Go 1.19 on Debian 12.
    # gcc and libc6-dev: only recommended by golang-go, but Go before 1.20 rebuilds the standard
    # library's cgo parts under -trimpath (gin-api/build.sh) and stops without a C compiler.
    "go": ["golang-go", "gcc", "libc6-dev", "golang-github-gin-gonic-gin-dev",
           "golang-github-graph-gophers-graphql-go-dev", "golang-github-go-sql-driver-mysql-dev",
           "golang-github-vektah-gqlparser-dev"],
}
# npm projects of the testbed itself (not an implementation's): the seeder, lint/, the ESLint that
# each Node app's npm test runs, and analysis/browser/, the report's browser test's driver.
NODE_PROJECTS = ["seed", "lint", "analysis/browser"]


def setup_all():
    ensure_debian(*DEBIAN)
    for project in NODE_PROJECTS:
        ensure_npm(ROOT / project)
    say("setup: everything is installed.")


def _missing(packages):
    if not shutil.which("dpkg-query"):
        return []
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\n", *packages],
                         capture_output=True, text=True).stdout
    installed = {line.split()[0] for line in out.splitlines() if line.endswith(" installed")}
    return [p for p in packages if p not in installed]


def ensure_debian(*parts):
    packages = [p for part in parts for p in DEBIAN[part]]
    missing = _missing(packages)
    if not missing:
        return
    command = ["apt-get", "install", "-y", "--no-install-recommends", *missing]
    if os.geteuid() != 0:
        fail(f"missing Debian packages: {' '.join(missing)}. "
             f"Run: sudo apt-get update && sudo {' '.join(command)}")
    say(f"setup: installing {' '.join(missing)} ...")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:  # a stale package list is the usual cause on a fresh machine
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()[-1:]
        fail(f"apt-get could not install {' '.join(missing)}: {' '.join(last)}")


def ensure_npm(project):
    """`npm ci` when node_modules is absent or older than the lock file."""
    lock = project / "package-lock.json"
    marker = project / "node_modules" / ".package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    if not shutil.which("npm"):
        fail("npm not found. Install Node.js 20 or later (with npm) and try again.")
    say(f"setup: npm ci in {project.relative_to(ROOT)} ...")
    result = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                            cwd=project, capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"npm ci failed in {project.relative_to(ROOT)}: "
             f"{result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.returncode}")


def need_tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if not path:
        fail(f"{name} not found. {hint}")
    return path
