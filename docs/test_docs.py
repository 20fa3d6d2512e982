"""The documentation stays true to the repository, and stands alone:
- every relative link in the documents (README.md, CONTRIBUTING.md, CHANGELOG.md, contract/brief.md,
  docs/*.md and every folder's README) resolves to a file or folder inside the repository, and a
  link's #anchor to a heading of the Markdown file it points to;
- every repository path those documents quote in code (`collect/README.md`) exists, and every
  module name they quote (`benchlib/results.SUMMARY_COLUMNS`) is defined there;
- every `./testbed SUBCOMMAND … --flag VALUE` they quote (and the scaffold templates' READMEs; a
  synopsis continued on the next lines counts as one line) names a subcommand, an action (db,
  engine) and flags that `./testbed SUBCOMMAND --help` lists, and a value its choices allow;
- docs/results-format.md lists every column the code writes to summary.csv, answer.csv and the
  run-level files, and no other;
- no Markdown file, code comment or help text points outside the repository (the design brief, a
  sibling folder), and no Markdown file but the changelog holds history (issue numbers, commit
  ids, the date something was checked);
- CITATION.cff is valid YAML with the fields the Citation File Format requires.
Only the command line's parser is run (with --help, every page in one process), so the whole file
takes seconds."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", ".testbed", "results", "node_modules", "bin", "obj", ".pytest_cache", "__pycache__"}
USER_DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", ROOT / "contract" / "brief.md",
             *sorted((ROOT / "docs").glob("*.md"))]
# Every folder's README, for its contributors. A scaffold template's README becomes NAME-api/README.md
# (scaffold/), so its relative links are written for that place, not this one.
TEMPLATES = sorted(p for p in ROOT.glob("*/scaffold/README.md"))
FOLDER_READMES = sorted(p for p in ROOT.glob("*/README.md") if not SKIP_DIRS & {p.parent.name})
LINKED_DOCS = [*USER_DOCS, *FOLDER_READMES]
# The changelog names what was, so its commands and paths may be gone; its links must still resolve.
CURRENT_DOCS = [d for d in LINKED_DOCS if d.name != "CHANGELOG.md"]
COMMAND_DOCS = [*CURRENT_DOCS, *TEMPLATES]
# Subcommands whose first word is an action with flags of its own.
NESTED = {"db", "engine"}
# What may not appear where a reader looks: the design brief and the sibling folders a clone lacks.
OUTSIDE = re.compile(r"DESIGN(\.md|\s*§)|\.\./shared/|shared/reference|shared/tools/README")


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def without_fences(text: str) -> str:
    """The text with fenced code blocks blanked (line count kept, so line numbers still match)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


def prose(text: str) -> str:
    """Outside fenced blocks and inline code, where Markdown links live."""
    return re.sub(r"`[^`\n]*`", "", without_fences(text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, seen = set(), {}
    for line in without_fences(path.read_text()).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every inline Markdown link that is not a URL."""
    out = []
    for number, line in enumerate(prose(path.read_text()).splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                out.append((number, target))
    return out


@pytest.mark.parametrize("doc", LINKED_DOCS, ids=rel)
def test_every_relative_link_resolves_inside_the_repository(doc):
    broken = []
    for number, target in links(doc):
        file_part, _, anchor = target.partition("#")
        where = (doc.parent / file_part).resolve() if file_part else doc
        if not where.is_relative_to(ROOT):
            broken.append(f"{rel(doc)}:{number}: {target} points outside the repository")
        elif not where.exists():
            broken.append(f"{rel(doc)}:{number}: {target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{rel(doc)}:{number}: {target}: {rel(where)} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def top_level_folders() -> set[str]:
    return {p.name for p in ROOT.iterdir() if p.is_dir() and p.name not in SKIP_DIRS}


def exists(quoted: str) -> bool:
    """A file or folder, or `folder/module.name`: a name that folder/module.py defines."""
    if (ROOT / quoted).exists():
        return True
    found = re.fullmatch(r"(.*/)?(\w+)\.(\w+)", quoted)
    module = found and ROOT / f"{found.group(1) or ''}{found.group(2)}.py"
    return bool(module and module.is_file() and re.search(
        rf"(?m)^\s*(?:def|class)\s+{found.group(3)}\b|^{found.group(3)}\s*(?::[^=]*)?=", module.read_text()))


@pytest.mark.parametrize("doc", CURRENT_DOCS, ids=rel)
def test_every_quoted_repository_path_exists(doc):
    """`collect/README.md`, `db/`, `fastify-api/runtimes/node24/`, `benchlib/results.SUMMARY_COLUMNS`:
    a quoted path under one of the repository's folders must be there, and a module's name defined
    in it. Paths with placeholders (NN, NAME, <run-id>) are not paths."""
    folders, missing = top_level_folders(), []
    for number, line in enumerate(without_fences(doc.read_text()).splitlines(), 1):
        for quoted in re.findall(r"`([^`\s]+)`", line):
            if not re.fullmatch(r"[\w.-]+(/[\w.-]+)*/?", quoted) or "/" not in quoted:
                continue
            if quoted.split("/")[0] not in folders or re.search(r"\b(N+|NAME)\b|-NN|NN\b", quoted):
                continue
            if not exists(quoted):
                missing.append(f"{rel(doc)}:{number}: `{quoted}` does not exist")
    assert not missing, "\n".join(missing)


# The Python packages whose README maps their modules, so a newcomer finds where each part lives.
MAPPED = ("collect", "analysis", "benchlib", "bench", "cli")


@pytest.mark.parametrize("package", MAPPED)
def test_every_module_is_on_its_packages_map(package):
    """Each module of a package is named in its README, in backticks, alone (`batch.py`) or with
    the folders above it (`sections/trust.py`, `collect/load/batch.py`)."""
    folder = ROOT / package
    text = (folder / "README.md").read_text()
    missing = [path.relative_to(ROOT).as_posix() for path in sorted(folder.rglob("*.py"))
               if not path.name.startswith(("test_", "conftest")) and path.name != "__init__.py"
               and not SKIP_DIRS & set(path.relative_to(ROOT).parts)
               and not re.search(rf"`(?:[\w.-]+/)*{re.escape(path.name)}[`\s]", text)]
    assert not missing, f"{package}/README.md does not name {', '.join(missing)}"


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) with a fenced block's continued lines joined to the line they
    continue: one ending in a backslash, or an indented `[--option …]` line under a synopsis."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced and out and (out[-1][1].endswith("\\") or re.match(r"\s+\[?--", line)) \
                and "./testbed" in out[-1][1]:
            out[-1] = (out[-1][0], out[-1][1].rstrip("\\") + " " + line.strip())
            continue
        out.append((number, line))
    return out


def quoted_commands() -> list[tuple[str, int, str]]:
    """(document, line, the command line) for every `./testbed …` the current documents and the
    scaffold templates quote, cut at the end of its code span, a shell comment or an HTML comment.
    `./testbed <command> …` (a placeholder for any subcommand) is not a command line."""
    found = []
    for doc in COMMAND_DOCS:
        for number, line in logical_lines(doc.read_text()):
            # A command ends at its code span's end, or where another command starts on the line.
            for match in re.finditer(r"\./testbed(?=[\s`])((?:(?!\./testbed)[^`\n])*)", line):
                rest = re.split(r"\s#\s|<!--|\s#$", match.group(1))[0].replace("\\|", "|")
                if rest.strip() and not rest.split()[0].startswith("<"):
                    found.append((rel(doc), number, "./testbed" + rest.rstrip()))
    return found


def parsed(command: str) -> tuple[str, list[str], list[str], list[tuple[str, str]]]:
    """(subcommand, its actions, its flags, (flag, value) pairs) from a quoted command line; no
    subcommand for `./testbed --help`. Flags stop at a lone `--` (what follows is another program's,
    e.g. pytest's)."""
    tokens = command.split()[1:]
    if tokens and tokens[0].startswith("-"):
        sub, rest = "", tokens
    else:
        sub = re.match(r"[a-z]*", tokens[0].lstrip("[")).group(0) if tokens else ""
        rest = tokens[1:]
    actions, flags, values = [], [], []
    if sub in NESTED and rest and re.match(r"[a-z]", rest[0]):
        actions = [a for a in re.findall(r"[a-z]+", rest[0])]
        rest = rest[1:]
    for i, token in enumerate(rest):
        if token == "--":
            break
        named = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", token)
        flags += named
        if len(named) == 1 and token.strip("[]").startswith("--"):
            value = token.split("=", 1)[1] if "=" in token else \
                rest[i + 1] if i + 1 < len(rest) and not rest[i + 1].lstrip("[").startswith("-") else ""
            if value:
                values.append((named[0], value.strip("[]")))
    return sub, actions, flags, values


def page(sub: str, action: str = "") -> tuple[str, ...]:
    """The words before `--help` of a subcommand's (or an action's) page; () for `./testbed --help`."""
    return tuple(w for w in (sub, action) if w)


# Prints what `./testbed WORDS --help` prints for each WORDS in argv[1] (JSON), from the command
# line's own parser, in one process: a `./testbed` per page cost a second each on a busy machine.
HELP_PAGES = """
import io, json, sys
from contextlib import redirect_stderr, redirect_stdout
from cli.__main__ import parse_args
pages = []
for words in json.loads(sys.argv[1]):
    out = io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(out):
            parse_args([*words, "--help"])
        code = 0
    except SystemExit as e:
        code = e.code or 0
    pages.append([code, out.getvalue()])
print(json.dumps(pages))
"""


def help_pages(wanted: list[tuple[str, ...]]) -> dict[tuple[str, ...], tuple[int, str]]:
    """{words: (exit status, text)} of `./testbed WORDS --help` for each, with the interpreter
    `./testbed` runs."""
    python = next(p for p in (ROOT / ".testbed" / "venv" / "bin" / "python", Path("/usr/bin/python3"),
                              Path(sys.executable)) if p.exists())
    out = subprocess.run([str(python), "-c", HELP_PAGES, json.dumps(wanted)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert out.returncode == 0, out.stderr
    return {tuple(w): tuple(page) for w, page in zip(wanted, json.loads(out.stdout))}


COMMANDS = quoted_commands()
_HELP: dict[tuple[str, ...], tuple[int, str]] = {}


def needed(command: str) -> set[tuple[str, ...]]:
    """The --help pages that can check a command: `./testbed --help` lists the subcommands, a nested
    subcommand's page its actions, and the page of what takes the flags its flags."""
    sub, actions, flags, _ = parsed(command)
    pages = {()}
    if actions:
        pages.add(page(sub))
    if flags:
        pages.update({page(sub, a) for a in actions} or {page(sub)})
    return pages


def helps() -> dict[tuple[str, ...], tuple[int, str]]:
    """Every --help the quoted commands need, run once each."""
    if not _HELP:
        _HELP.update(help_pages(sorted(set().union(*(needed(c) for _, _, c in COMMANDS)))))
    return _HELP


def listed(page: str) -> set[str]:
    """The subcommands or actions a --help page lists under its positional arguments."""
    return set(re.findall(r"(?m)^ {4}(\w+)(?: {2,}|$)", page))


def test_the_documents_quote_commands():
    """The scan itself works: the quick start's two commands are found."""
    quoted = {c.split()[1] for _, _, c in COMMANDS if len(c.split()) > 1}
    assert {"run", "test", "report", "compare", "verify", "new", "engine"} <= quoted


def choices(text: str, flag: str) -> set[str] | None:
    """The values a --help page allows for a flag (`--profile {smoke,quick,…}`), or None: any."""
    found = re.search(rf"(?<![\w-]){re.escape(flag)} \{{([^}}]+)\}}", text)
    return set(found.group(1).split(",")) if found else None


@pytest.mark.parametrize("doc, line, command", COMMANDS, ids=[f"{d}:{n}" for d, n, _ in COMMANDS])
def test_every_quoted_command_and_flag_exists(doc, line, command):
    """The subcommand, its action, every flag, and a value where --help lists the choices
    (`--profile study`, `--loadgen wrk|jmeter`); placeholders (`F`, `RUN_ID`, `pNN:MS`) are left alone."""
    sub, actions, flags, values = parsed(command)
    known = helps()
    if sub:
        assert sub in listed(known[()][1]), f"{doc}:{line}: `{command}`: ./testbed has no subcommand {sub!r}"
    for action in actions:
        assert action in listed(known[(sub,)][1]), \
            f"{doc}:{line}: `{command}`: ./testbed {sub} has no action {action!r}"
    if not flags:
        return
    texts = [known[page(sub, a)][1] for a in actions] or [known[page(sub)][1]]
    missing = [f for f in flags if not any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", t) for t in texts)]
    assert not missing, f"{doc}:{line}: `{command}`: ./testbed {' '.join([sub, *actions])} has no {', '.join(missing)}"
    for flag, value in values:
        allowed = set().union(*(choices(t, flag) or set() for t in texts))
        words = [w for w in re.split(r"[|,]", value) if re.fullmatch(r"[a-z][a-z0-9-]*", w)]
        wrong = [w for w in words if allowed and w not in allowed]
        assert not wrong, \
            f"{doc}:{line}: `{command}`: {flag} takes {', '.join(sorted(allowed))}, not {', '.join(wrong)}"


def markdown_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md") if not SKIP_DIRS & set(p.relative_to(ROOT).parts))


def test_no_markdown_file_points_outside_the_repository():
    """A clone has no design brief and no sibling folders: nothing a reader opens may send them there."""
    found = []
    for path in markdown_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{rel(path)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".cjs", ".cs", ".csproj", ".props", ".json", ".yml", ".yaml", ".sh",
                   ".lua", ".jmx", ".sql", ".cnf", ".cff", ".graphql", ".properties"}
SOURCE_NAMES = {"testbed", "Dockerfile", ".env.example"}
# Not the project's to point: CI's own set-up (it runs beside the project's shared tools), recorded
# results (their manifests name the machine's paths), and this file's patterns.
NOT_SCANNED = {".ci", "fixtures"}


def source_files() -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS | NOT_SCANNED]
        found += [Path(folder) / f for f in files if Path(f).suffix in SOURCE_SUFFIXES or f in SOURCE_NAMES]
    return sorted(p for p in found if p != Path(__file__).resolve())


def test_no_code_comment_or_help_text_points_outside_the_repository():
    """Code comments, docstrings and the help texts `./testbed` prints name pages of this repository,
    never the design brief or a sibling folder."""
    found = [f"{rel(path)}:{number}: {line.strip()[:100]}" for path in source_files()
             for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1) if OUTSIDE.search(line)]
    known = helps()
    subcommands = sorted(listed(known[()][1]) - {w[0] for w in known if w})
    pages = [*known.values(), *help_pages([(s,) for s in subcommands]).values()]
    found += [f"./testbed --help: {line.strip()}" for _, text in pages for line in text.splitlines()
              if OUTSIDE.search(line)]
    assert not found, "\n".join(found)


def documented_lists(text: str) -> list[list[str]]:
    """Every column list a page quotes as one code span: `a, b, c` (a span may wrap a line)."""
    return [re.split(r",\s+", m) for m in re.findall(r"`([a-z_0-9]+(?:,\s+[a-z_0-9]+)+)`", text)]


def first_column(text: str, start: str, end: str) -> list[str]:
    """The names quoted in the first column of the table between two markers, in order."""
    part = text[text.index(start):text.index(end, text.index(start))]
    return [name for line in part.splitlines() if line.startswith("| `")
            for name in re.findall(r"`([^`]+)`", line.split("|")[1])]


def test_the_results_format_documents_every_column_the_code_writes_and_no_other():
    """docs/results-format.md against the code that writes each file: summary.csv's table in the
    code's order, answer.csv's table, and every column list it quotes (ceiling.csv, crosscheck.csv,
    memory.csv, latency.csv, proc.csv, top.csv, compare.csv) equal to one the code writes."""
    from analysis.answer import COLUMNS as ANSWER_COLUMNS
    from analysis.compare import COLUMNS as COMPARE_COLUMNS, RATIO_COLUMNS
    from analysis.pool import POOLED_COLUMNS, UNIT_COLUMNS
    from analysis.pool_files import FAMILY_COLUMNS
    from benchlib import results
    from collect.load.samplers import TOP_HEADER

    text = (ROOT / "docs" / "results-format.md").read_text()
    assert first_column(text, "## summary.csv", "\n## ") == results.SUMMARY_COLUMNS
    assert sorted(first_column(text, "**`answer.csv`**", "\n**")) == sorted(ANSWER_COLUMNS)
    written = {"ceiling.csv": results.CEILING_COLUMNS, "ceiling.csv, schema 3": results.CEILING_V3_COLUMNS,
               "crosscheck.csv, schema 3": results.CROSSCHECK_V3_COLUMNS, "memory.csv": results.MEMORY_COLUMNS,
               "latency.csv": results.LATENCY_COLUMNS, "proc.csv": results.PROC_COLUMNS,
               "top.csv": TOP_HEADER.strip().split(","), "compare.csv": COMPARE_COLUMNS,
               "ratios.csv": RATIO_COLUMNS, "pooled.csv": POOLED_COLUMNS, "runs.csv": UNIT_COLUMNS,
               "families.csv": FAMILY_COLUMNS}
    quoted = documented_lists(text)
    assert not [name for name, columns in written.items() if list(columns) not in quoted], "not documented"
    invented = [columns for columns in quoted if columns not in map(list, written.values())]
    assert not invented, f"lists no code writes: {invented}"


# History: an issue number, a commit id, the date something was checked.
HISTORY = re.compile(r"\bissues? #?\d+|\bcommits? [0-9a-f]{7,40}\b"
                     r"|\b(?:checked|verified|re-?checked|tested|confirmed)\b[^.\n]{0,40}\bon \d{4}-\d{2}-\d{2}", re.I)


def test_history_stays_in_the_changelog():
    """How the project got here (issue numbers, commit ids, when something was checked) is the
    changelog's, not the documents'."""
    found = []
    for path in markdown_files():
        if path.name == "CHANGELOG.md":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{rel(path)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_citation_file_is_valid():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"] and cff["title"] and cff["authors"]
    for reference in cff.get("references", []):
        assert reference["type"] and reference["title"] and reference["authors"], reference
