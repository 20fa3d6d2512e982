"""The toolchain check against programs that print what old or odd releases print: stand-ins for
node, dotnet and java in a folder put first on PATH, read by the same code that reads the real
ones; then against this machine's real tools, and through `./testbed run` and `./testbed test`."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from benchlib import apps, toolchains
from benchlib.console import UserError
from benchlib.net import free_port
from benchlib.paths import ROOT
from benchlib.packages import DEBIAN
from benchlib.toolchains import DOTNET, GO, JAVA, NODE, needed, require

# What each prints for its version: node to stdout, dotnet one line per SDK, java to stderr.
OLD = {"node": "echo v18.19.0",  # Debian 12's nodejs
       "dotnet": "echo '8.0.404 [/usr/share/dotnet/sdk]'; echo '10.0.100 [/usr/share/dotnet/sdk]'",
       "java": "echo 'openjdk version \"11.0.2\" 2019-01-15' >&2"}
FINE = {"node": "echo v22.12.0", "dotnet": "echo '10.0.402 [/opt/dotnet/sdk]'",
        "java": "echo 'openjdk version \"21\" 2023-09-19' >&2"}


def fake(folder, scripts: dict):
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        (folder / name).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name).chmod(0o755)
    return folder


@pytest.fixture
def path(monkeypatch, tmp_path):
    """A PATH whose first folder (returned) shadows node, dotnet and java; Java's home unset."""
    for name in ("JAVA_HOME", "JRE_HOME"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


def problem_line(toolchains) -> str:
    with pytest.raises(UserError) as raised:
        require(toolchains)
    message = str(raised.value)
    assert "\n" not in message
    return message


def install_steps(toolchain) -> str:
    return f"install steps: docs/troubleshooting.md#{toolchain.anchor}"


def test_old_releases_are_named_with_what_was_found_what_is_needed_and_the_install_steps(path):
    fake(path, OLD)
    message = problem_line(needed(apps.frameworks()))
    assert f"found Node.js 18.19.0 ({path / 'node'}), but the testbed needs Node.js 20.19 or later " \
           f"({install_steps(NODE)})" in message
    assert f"found .NET SDK 8.0.404, 10.0.100 ({path / 'dotnet'}), but aspnet needs .NET SDK 10.0.401 or a " \
           f"later 10.0 feature band ({install_steps(DOTNET)})" in message
    assert f"found Java 11.0.2 ({path / 'java'}), but JMeter needs Java 17 or later ({install_steps(JAVA)})" \
        in message


def test_a_missing_tool_is_named_the_same_way(monkeypatch, tmp_path, path):
    monkeypatch.setenv("PATH", str(path))  # nothing else: none of the three is found
    message = problem_line(needed(apps.frameworks()))
    assert f"node not found: the testbed needs Node.js 20.19 or later ({install_steps(NODE)})" in message
    assert "dotnet not found: aspnet needs .NET SDK 10.0.401 or a later 10.0 feature band " \
           f"({install_steps(DOTNET)})" in message
    assert f"java not found: JMeter needs Java 17 or later ({install_steps(JAVA)})" in message


def test_later_releases_pass_and_a_later_dotnet_major_does_not(path):
    fake(path, FINE)
    require([NODE, DOTNET, JAVA])
    fake(path, {"dotnet": "echo '11.0.100 [/usr/share/dotnet/sdk]'"})  # global.json takes no .NET 11
    assert problem_line([NODE, DOTNET, JAVA]).startswith("found .NET SDK 11.0.100")


def test_java_8_is_read_from_its_old_version_string(path):
    fake(path, {"java": "echo 'java version \"1.8.0_392\"' >&2"})
    assert problem_line([JAVA]).startswith(f"found Java 8.0 ({path / 'java'})")


def test_java_home_is_where_the_java_jmeter_runs_is_found(monkeypatch, tmp_path, path):
    fake(path, FINE)
    home = tmp_path / "jdk"
    fake(home / "bin", OLD)
    monkeypatch.setenv("JAVA_HOME", str(home))
    assert problem_line([JAVA]).startswith(f"found Java 11.0.2 ({home / 'bin' / 'java'})")


def test_a_tool_that_prints_no_version_is_reported(path):
    fake(path, {"dotnet": "true"})  # dotnet without an SDK lists none
    assert problem_line([DOTNET]).startswith(f"{path / 'dotnet'} did not say its version: ASP.NET Core needs")


def test_the_tools_of_this_machine_pass():
    require(needed(apps.frameworks()))


def test_go_comes_from_debian_with_the_libraries_gin_api_builds_against():
    """So a fresh clone's `./testbed run --frameworks all` installs it before the check, as setup does."""
    assert "golang-go" in DEBIAN[GO.debian]
    require([GO])
    assert all((Path("/usr/share/gocode/src") / library).is_dir()
               for library in ("github.com/gin-gonic/gin", "github.com/graph-gophers/graphql-go"))


def test_only_a_framework_that_runs_dotnet_needs_its_sdk():
    by_name = {f["name"]: f for f in apps.frameworks()}
    assert [t.name for t in needed([by_name["express"], by_name["fastify"]])] == ["Node.js", "Java"]
    assert [t.name for t in needed(apps.select_arms(["aspnet:net8"]))] == ["Node.js", ".NET SDK", "Java"]


def test_the_minimums_are_the_ones_the_projects_declare():
    for project in ("seed", "lint", "contract"):
        engines = json.loads((ROOT / project / "package.json").read_text())["engines"]["node"]
        assert engines == ">=" + ".".join(map(str, NODE.minimum)), project
    sdk = json.loads((ROOT / "aspnet-api" / "global.json").read_text())["sdk"]
    assert (sdk["version"], sdk["rollForward"]) == (".".join(map(str, DOTNET.minimum)), "latestFeature")
    assert DOTNET.same_minor  # latestFeature: a later feature band of the same major.minor only


def test_each_install_steps_link_is_a_heading_of_the_troubleshooting_page():
    headings = re.findall(r"(?m)^#{2,4} (.+)$", (ROOT / toolchains.DOCS).read_text())
    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
    assert {NODE.anchor, DOTNET.anchor, JAVA.anchor} <= slugs


@pytest.mark.parametrize("command", [["run", "--frameworks", "express,aspnet"], ["test"]])
def test_run_and_test_stop_at_the_check_before_any_work(path, tmp_path, command):
    """An unreachable external database: had the check not stopped the command first, it would
    fail there (after its packages, before any build), not at the check."""
    fake(path, OLD)
    done = subprocess.run([str(ROOT / "testbed"), *command], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DB_HOST": "127.0.0.1", "DB_PORT": str(free_port()),
                               "TESTBED_RESULTS": str(tmp_path / "results")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("testbed: found Node.js 18.19.0") and done.stderr.count("\n") == 1, done.stderr
    assert all(install_steps(t) in done.stderr for t in (NODE, DOTNET, JAVA))
