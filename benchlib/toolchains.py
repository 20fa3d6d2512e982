"""The toolchains a command needs from the machine (Node.js, the .NET SDK, Java), checked before it
does any work: a fresh Debian or Ubuntu lacks some of them or ships one too old (Debian 12's
Node.js is 18), which otherwise surfaced minutes later as a failed npm ci, build or JMeter start.
A toolchain Debian packages (Go, with the libraries gin-api builds against) is installed first, as
`./testbed setup` would; then one line names every tool still missing or too old, the version found,
the one needed and the heading of docs/troubleshooting.md that gives its install steps."""
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, replace

from benchlib.console import fail
from benchlib.packages import ensure_debian

DOCS = "docs/troubleshooting.md"


@dataclass(frozen=True)
class Toolchain:
    name: str             # as its makers call it
    command: str          # the program that reports its version
    version_args: tuple[str, ...]
    pattern: str          # finds each version in what the command prints (stdout and stderr)
    minimum: tuple[int, ...]
    wanted: str           # the requirement, as a person reads it
    user: str             # what in the testbed needs it
    anchor: str           # the heading of DOCS with its install steps
    same_minor: bool = False  # a later major.minor does not do either
    debian: str | None = None  # the part of benchlib/packages.py's DEBIAN that installs it, if Debian's will do

    def program(self) -> str | None:
        return shutil.which(self.command)

    def versions(self, program: str) -> list[str]:
        try:
            done = subprocess.run([program, *self.version_args], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return []
        return re.findall(self.pattern, done.stdout + done.stderr)

    def accepts(self, version: str) -> bool:
        numbers = tuple(int(n) for n in re.findall(r"\d+", version))
        return numbers >= self.minimum and (not self.same_minor or numbers[:2] == self.minimum[:2])

    def problem(self) -> str | None:
        """What is wrong with this toolchain here, in a few words; None when it will do."""
        program = self.program()
        where = f"install steps: {DOCS}#{self.anchor}"
        if not program:
            return f"{self.command} not found: {self.user} needs {self.name} {self.wanted} ({where})"
        found = self.versions(program)
        if any(self.accepts(v) for v in found):
            return None
        if not found:
            return f"{program} did not say its version: {self.user} needs {self.name} {self.wanted} ({where})"
        return f"found {self.name} {', '.join(found)} ({program}), but {self.user} needs {self.name} {self.wanted} " \
               f"({where})"


class Java(Toolchain):
    """The java JMeter's own launcher runs: $JAVA_HOME's, else $JRE_HOME's, else the one on PATH."""

    def program(self) -> str | None:
        for home in (os.environ.get("JAVA_HOME"), os.environ.get("JRE_HOME")):
            if home:
                return shutil.which(os.path.join(home, "bin", "java"))
        return super().program()


# The engines field of seed/, lint/ and contract/'s package.json: the seeder and ESLint use
# require(esm), unflagged from 20.19. The apps run on Node.js binaries of their own from npm.
NODE = Toolchain("Node.js", "node", ("--version",), r"(?m)^v(\d+\.\d+\.\d+)", (20, 19), "20.19 or later",
                 "the testbed", "nodejs-2019-or-later")
# aspnet-api/global.json's sdk: 10.0.401 with rollForward latestFeature, which takes a later 10.0
# feature band but neither an earlier one (Microsoft's Debian and Ubuntu packages are 10.0.1xx) nor 11.
DOTNET = Toolchain(".NET SDK", "dotnet", ("--list-sdks",), r"(?m)^(\d+\.\d+\.\d+\S*) \[", (10, 0, 401),
                   "10.0.401 or a later 10.0 feature band", "ASP.NET Core", "the-net-sdk-10", same_minor=True)
# gin-api builds in GOPATH mode against Debian's Go library packages (gin-api/build.sh); Debian 12's
# golang-go is 1.19, installed with them (benchlib/packages.py, DEBIAN["go"]).
GO = Toolchain("Go", "go", ("version",), r"go version go(\d+\.\d+(?:\.\d+)?)", (1, 19), "1.19 or later",
               "gin", "go-119-or-later", debian="go")
# JMeter 5.6.3 itself starts on Java 8; 17 is what the testbed is tested on (Debian 12's default,
# the Docker runner's). A "1.8.0_392" is Java 8.
JAVA = Java("Java", "java", ("-version",), r'version "(?:1\.(?=\d\.))?(\d+(?:\.\d+)*)', (17,), "17 or later",
            "JMeter", "java-17-or-later")


def runs_dotnet(framework: dict) -> bool:
    """Whether building, starting or testing the framework (or one of its variants) runs dotnet."""
    commands = [framework.get("build"), framework.get("test"), framework.get("start"),
                *(v.get(key) for v in framework.get("variants", []) for key in ("build", "start"))]
    return any("dotnet" in (shlex.split(c) if isinstance(c, str) else c) for c in commands if c)


def runs_go(framework: dict) -> bool:
    """Whether the framework is written in Go: its build runs the go command, through a script."""
    return framework.get("language") == "Go"


def needed(frameworks) -> list[Toolchain]:
    """What a run or the suite of these frameworks needs. Node.js always: the seeder and npm.
    Java always: every profile of a run uses JMeter (the closed-model profiles measure or cross-check
    with it, the latency profiles drive their arrivals with it) and the suite runs it. The .NET
    SDK when a framework builds, starts or tests with dotnet, and Go when one is written in Go, each
    named as the one that needs it (a run without it can leave that framework out)."""
    dotnet = [f["name"] for f in frameworks if runs_dotnet(f)]
    go = [f["name"] for f in frameworks if runs_go(f)]
    return [NODE, *([replace(DOTNET, user=" and ".join(dotnet))] if dotnet else []),
            *([replace(GO, user=" and ".join(go))] if go else []), JAVA]


def require(toolchains) -> None:
    """Installs the Debian parts of these toolchains where missing (a fresh clone's `./testbed run
    --frameworks all` needs Go and its libraries), then fails with one line naming every toolchain
    that is missing or too old."""
    parts = list(dict.fromkeys(t.debian for t in toolchains if t.debian))
    if parts:
        ensure_debian(*parts)
    problems = [p for p in (t.problem() for t in toolchains) if p]
    if problems:
        fail("; ".join(problems) + ".")
