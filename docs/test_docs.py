"""The documentation stays true to the repository, and stands alone:
- every relative link in the user documents (README.md, CONTRIBUTING.md, CHANGELOG.md,
  contract/brief.md, docs/*.md) resolves to a file or folder inside the repository, and a link's
  #anchor to a heading of the Markdown file it points to;
- every repository path those documents quote in code (`collect/README.md`) exists;
- every `./testbed SUBCOMMAND … --flag` they quote names a subcommand, an action (db, engine) and
  flags that `./testbed SUBCOMMAND --help` lists;
- no Markdown file of the repository points outside it (the design brief, a sibling folder) or
  names issue numbers outside the changelog;
- CITATION.cff is valid YAML with the fields the Citation File Format requires.
Only `--help` is run, a few at a time, so the whole file takes seconds."""
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
USER_DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", ROOT / "contract" / "brief.md",
             *sorted((ROOT / "docs").glob("*.md"))]
# The changelog names what was, so its commands and paths may be gone; its links must still resolve.
CURRENT_DOCS = [d for d in USER_DOCS if d.name != "CHANGELOG.md"]
SKIP_DIRS = {".git", ".testbed", "results", "node_modules", "bin", "obj", ".pytest_cache", "__pycache__"}
# Subcommands whose first word is an action with flags of its own.
NESTED = {"db", "engine"}


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


@pytest.mark.parametrize("doc", USER_DOCS, ids=rel)
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


@pytest.mark.parametrize("doc", CURRENT_DOCS, ids=rel)
def test_every_quoted_repository_path_exists(doc):
    """`collect/README.md`, `db/`, `fastify-api/runtimes/node24/`: a quoted path under one of the
    repository's folders must be there. Paths with placeholders (NN, NAME, <run-id>) are not paths."""
    folders, missing = top_level_folders(), []
    for number, line in enumerate(without_fences(doc.read_text()).splitlines(), 1):
        for quoted in re.findall(r"`([^`\s]+)`", line):
            if not re.fullmatch(r"[\w.-]+(/[\w.-]+)*/?", quoted) or "/" not in quoted:
                continue
            if quoted.split("/")[0] not in folders or re.search(r"\b(N+|NAME)\b|-NN|NN\b", quoted):
                continue
            if not (ROOT / quoted).exists():
                missing.append(f"{rel(doc)}:{number}: `{quoted}` does not exist")
    assert not missing, "\n".join(missing)


def quoted_commands() -> list[tuple[str, int, str]]:
    """(document, line, the command line) for every `./testbed …` the current documents quote, cut
    at the end of its code span, a shell comment or an HTML comment."""
    found = []
    for doc in CURRENT_DOCS:
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            # A command ends at its code span's end, or where another command starts on the line.
            for match in re.finditer(r"\./testbed(?=[\s`])((?:(?!\./testbed)[^`\n])*)", line):
                rest = re.split(r"\s#\s|<!--|\s#$", match.group(1))[0].replace("\\|", "|")
                if rest.strip():
                    found.append((rel(doc), number, "./testbed" + rest.rstrip()))
    return found


def parsed(command: str) -> tuple[str, list[str], list[str]]:
    """(subcommand, its actions, its flags) from a quoted command line. Flags stop at a lone `--`
    (what follows is another program's, e.g. pytest's)."""
    tokens = command.split()[1:]
    sub = re.match(r"[a-z]*", tokens[0].lstrip("[")).group(0) if tokens else ""
    actions, flags = [], []
    rest = tokens[1:]
    if sub in NESTED and rest and re.match(r"[a-z]", rest[0]):
        actions = [a for a in re.findall(r"[a-z]+", rest[0])]
        rest = rest[1:]
    for token in rest:
        if token == "--":
            break
        flags += re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", token)
    return sub, actions, flags


def help_text(*words: str) -> tuple[int, str]:
    out = subprocess.run([str(ROOT / "testbed"), *words, "--help"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "COLUMNS": "200"})
    return out.returncode, out.stdout + out.stderr


COMMANDS = quoted_commands()
_HELP: dict[tuple[str, ...], tuple[int, str]] = {}


def needed(command: str) -> set[tuple[str, ...]]:
    """The --help pages that can check a command: `./testbed --help` lists the subcommands, a nested
    subcommand's page its actions, and the page of what takes the flags its flags."""
    sub, actions, flags = parsed(command)
    pages = {()}
    if actions:
        pages.add((sub,))
    if flags:
        pages.update({(sub, a) for a in actions} or {(sub,)})
    return pages


def helps() -> dict[tuple[str, ...], tuple[int, str]]:
    """Every --help the quoted commands need, run once each, a few at a time."""
    if not _HELP:
        wanted = sorted(set().union(*(needed(c) for _, _, c in COMMANDS)))
        with ThreadPoolExecutor(max_workers=4) as pool:
            _HELP.update(zip(wanted, pool.map(lambda w: help_text(*w), wanted)))
    return _HELP


def listed(page: str) -> set[str]:
    """The subcommands or actions a --help page lists under its positional arguments."""
    return set(re.findall(r"(?m)^ {4}(\w+)(?: {2,}|$)", page))


def test_the_documents_quote_commands():
    """The scan itself works: the quick start's two commands are found."""
    quoted = {c.split()[1] for _, _, c in COMMANDS if len(c.split()) > 1}
    assert {"run", "test", "report", "compare", "verify", "new", "engine"} <= quoted


@pytest.mark.parametrize("doc, line, command", COMMANDS, ids=[f"{d}:{n}" for d, n, _ in COMMANDS])
def test_every_quoted_command_and_flag_exists(doc, line, command):
    sub, actions, flags = parsed(command)
    known = helps()
    assert sub in listed(known[()][1]), f"{doc}:{line}: `{command}`: ./testbed has no subcommand {sub!r}"
    for action in actions:
        assert action in listed(known[(sub,)][1]), \
            f"{doc}:{line}: `{command}`: ./testbed {sub} has no action {action!r}"
    if not flags:
        return
    texts = [known[(sub, a)][1] for a in actions] or [known[(sub,)][1]]
    missing = [f for f in flags if not any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", t) for t in texts)]
    assert not missing, f"{doc}:{line}: `{command}`: ./testbed {' '.join([sub, *actions])} has no {', '.join(missing)}"


def markdown_files() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md") if not SKIP_DIRS & set(p.relative_to(ROOT).parts))


def test_no_markdown_file_points_outside_the_repository():
    """A clone has no design brief and no sibling folders: nothing a reader opens may send them there."""
    found = []
    for path in markdown_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"DESIGN(\.md| §)|\.\./shared/|shared/reference", line):
                found.append(f"{rel(path)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_issue_numbers_stay_in_the_changelog():
    """How the project got here is history: the changelog's, not the documents'."""
    found = []
    for path in markdown_files():
        if path.name == "CHANGELOG.md":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bissues? \d+", line, re.I):
                found.append(f"{rel(path)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_citation_file_is_valid():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"] and cff["title"] and cff["authors"]
    for reference in cff.get("references", []):
        assert reference["type"] and reference["title"] and reference["authors"], reference
