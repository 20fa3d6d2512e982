"""The import graph points one way (CONTRIBUTING.md, "Where everything is"): cli → stages →
benchlib, analysis reads result files only through benchlib/results.py, and no module outgrows one
job. Read from the sources, so a change that breaks it fails here."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
LIBRARY = "benchlib"
# Python packages and script folders of the project; the app folders hold no Python.
PROJECT = {LIBRARY, "cli", "collect", "analysis", "contract", "bench", "seed", "docker", "db",
           "scaffold", "jmeter-plans", "generate", "compose_files"}
SKIP = {"node_modules", ".testbed", "results", "bin", "obj", ".git"}
# The only function-level imports of project code: a subcommand that needs a heavy or optional
# dependency (pandas and matplotlib; a MySQL driver) imports its stage when it runs, and so does the
# end of a run, which prints the report's bottom line (collect/passes/progress.py).
LAZY = {("cli/report.py", "analysis.report"), ("cli/report.py", "benchlib.results"),
        ("cli/compare.py", "analysis.compare"), ("cli/compare.py", "analysis.compare_report"),
        ("cli/compare.py", "benchlib.results"),
        ("cli/pool.py", "analysis.answer"), ("cli/pool.py", "analysis.pool"), ("cli/pool.py", "analysis.pool_report"),
        ("cli/pool.py", "benchlib.results"),
        ("cli/verify.py", "contract.verify"), ("collect/passes/progress.py", "analysis")}
# Files analysis may read that are not result files: the study's published numbers, the report's
# own figures when they are embedded in its HTML, and the reports the behaviour check compares.
ANALYSIS_INPUTS = {("analysis/study.py", "STUDY_CSV"), ("analysis/render.py", "block[1]"),
                   ("analysis/check_reports_unchanged.py", "path")}
READERS = {"read_csv", "open", "read_text", "read_bytes", "load", "loads"}


def sources():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if not SKIP & set(rel.parts):
            yield rel, ast.parse(path.read_text(), str(rel))


def imports(tree):
    """(module imported, inside a function?) for every import statement."""
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function |= {id(n) for n in ast.walk(node) if n is not node}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, id(node) in in_function) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, id(node) in in_function


def top(module: str) -> str:
    return module.split(".")[0]


ALL = list(sources())


def test_the_sources_are_found():
    folders = {rel.parts[0] for rel, _ in ALL}
    assert {LIBRARY, "cli", "collect", "analysis", "contract"} <= folders


@pytest.mark.parametrize("rel, tree", ALL, ids=[str(r) for r, _ in ALL])
def test_imports_point_one_way(rel, tree):
    folder = rel.parts[0] if len(rel.parts) > 1 else None
    for module, in_function in imports(tree):
        if folder != "cli":
            assert top(module) != "cli", f"{rel} imports {module}: only cli/ may import cli/"
        if folder == LIBRARY and not rel.name.startswith("test_"):
            assert top(module) not in PROJECT - {LIBRARY}, \
                f"{rel} imports {module}: the library imports no stage"
        if in_function and top(module) in PROJECT and not rel.name.startswith(("test_", "conftest")):
            assert (rel.as_posix(), module) in LAZY, \
                f"{rel} imports {module} inside a function, which hides the import graph"


@pytest.mark.parametrize("rel, tree", [(r, t) for r, t in ALL if r.parts[0] == "analysis"
                                       and not r.name.startswith(("test_", "conftest"))],
                         ids=lambda x: str(x) if isinstance(x, Path) else "")
def test_analysis_reads_result_files_only_through_the_results_module(rel, tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in READERS:
            continue
        what = node.args[0] if node.args else getattr(node.func, "value", None)
        argument = ast.unparse(what) if what is not None else ""
        assert (rel.as_posix(), argument) in ANALYSIS_INPUTS, \
            f"{rel}:{node.lineno} reads {argument or 'a file'} itself; use benchlib/results.py"


# A module does one job, which fits in this many lines; past them it has grown a second job, which
# wants a module of its own (CONTRIBUTING.md, "Any other change"). Tests grow with what they check.
MAX_LINES = 450


def test_no_module_outgrows_one_job():
    long = [f"{rel} ({lines} lines)" for rel, lines in
            ((rel, len((ROOT / rel).read_text().splitlines())) for rel, _ in ALL)
            if lines > MAX_LINES and not rel.name.startswith(("test_", "conftest"))]
    assert not long, f"over {MAX_LINES} lines, split along a seam: {', '.join(long)}"


# collect/'s rooms, from the top: a room imports only itself and the rooms below it, so the run's
# loop sits on the passes, the passes on the load, the load on the items (collect/README.md).
ROOMS = ("run", "passes", "load", "items")


@pytest.mark.parametrize("rel, tree", [(r, t) for r, t in ALL if r.parts[0] == "collect" and len(r.parts) > 2
                                       and not r.name.startswith(("test_", "conftest"))],
                         ids=lambda x: str(x) if isinstance(x, Path) else "")
def test_collect_rooms_import_only_the_rooms_below(rel, tree):
    room = rel.parts[1]
    for module, _ in imports(tree):
        parts = module.split(".")
        if parts[0] == "collect" and len(parts) > 1 and parts[1] in ROOMS:
            assert ROOMS.index(parts[1]) >= ROOMS.index(room), \
                f"{rel} imports {module}: the {room} room sits above the {parts[1]} room"


def test_every_collect_module_is_in_a_room():
    loose = [r.as_posix() for r, _ in ALL if r.parts[0] == "collect" and len(r.parts) == 2
             and r.name not in ("__init__.py", "conftest.py")]
    assert not loose, f"put {', '.join(loose)} in one of collect/'s rooms ({', '.join(ROOMS)})"
