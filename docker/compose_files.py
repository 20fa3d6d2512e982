"""Reading the container setup as Docker would: docker-compose.yml with .env interpolated,
Dockerfiles as stages and instructions, build contexts through .dockerignore, MySQL option files
and GRANTs. Used by test_compose.py; no Docker engine needed."""
import json
import re
import shlex
from pathlib import Path, PurePosixPath

import yaml

from benchlib.paths import ROOT

COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
VARIABLE = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")


def raw_compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def env_example() -> dict:
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def interpolate(value, env: dict):
    """Compose's ${VAR}, ${VAR:-default}, ${VAR:?error} and $$, over a whole parsed file."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match):
        name, op, arg = match.groups()
        current = env.get(name)
        if op in (":-", "-"):
            return current if current or (op == "-" and current is not None) else arg
        if op in (":?", "?") and not current:
            raise AssertionError(f"${{{name}}} is required: {arg}")
        return current or ""
    return VARIABLE.sub(one, value).replace("$$", "$")


def compose() -> dict:
    """docker-compose.yml as compose sees it with .env copied from .env.example."""
    return interpolate(raw_compose(), env_example())


def services() -> dict:
    return compose()["services"]


def build_context(service: dict) -> Path | None:
    build = service.get("build")
    if build is None:
        return None
    context = build if isinstance(build, str) else build.get("context", ".")
    return (ROOT / context).resolve()


def named_contexts(service: dict) -> dict[str, Path]:
    """The build's additional_contexts that are folders here, by name (COPY --from=NAME reads them)."""
    build = service.get("build")
    extra = build.get("additional_contexts") or {} if isinstance(build, dict) else {}
    if isinstance(extra, list):
        extra = dict(item.split("=", 1) for item in extra)
    return {name: (ROOT / path).resolve() for name, path in extra.items() if "://" not in path}


def dockerfile_of(service: dict) -> Path:
    build = service["build"]
    name = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    return (build_context(service) / name).resolve()


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) with continuation lines joined and comments dropped."""
    result, pending = [], ""
    for line in dockerfile.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        keyword, _, args = whole.partition(" ")
        result.append((keyword.upper(), args.strip()))
    return result


def build_args(service: dict) -> dict:
    """The build's args (Dockerfile ARG values) as compose passes them."""
    build = service.get("build")
    args = build.get("args") or {} if isinstance(build, dict) else {}
    if isinstance(args, list):
        args = dict(item.split("=", 1) for item in args)
    return {name: str(value) for name, value in args.items()}


def stages(dockerfile: Path, given: dict | None = None) -> list[dict]:
    """Each FROM with its image, name and instructions, ARGs substituted as Docker does: a value
    from `given` (a service's build_args) or else the ARG's default; those declared before the
    first FROM in FROM lines, a stage's own (a bare `ARG NAME` takes the earlier one's value) in
    its instructions after them."""
    given = given or {}
    before, found, scope = {}, [], {}

    def substitute(text, values):
        return re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), m.group(0)), text)

    for keyword, rest in instructions(dockerfile):
        if keyword == "ARG":
            name, has_default, default = rest.partition("=")
            value = given.get(name, default if has_default else before.get(name))
            if value is not None:
                (scope if found else before)[name] = value
            if found:
                found[-1]["steps"].append((keyword, rest))
        elif keyword == "FROM":
            words = [w for w in rest.split() if not w.startswith("--")]
            name = words[2] if len(words) > 2 and words[1].upper() == "AS" else None
            found.append({"image": substitute(words[0], before), "name": name, "steps": []})
            scope = {}
        else:
            found[-1]["steps"].append((keyword, substitute(rest, scope)))
    return found


def copy_arguments(rest: str) -> tuple[dict, list[str]]:
    """--flags and paths of a COPY/ADD, in shell or JSON form; the last path is the destination."""
    flags, words = {}, shlex.split(rest) if not rest.lstrip().startswith("[") else None
    if words is None:
        return flags, json.loads(rest)
    while words and words[0].startswith("--"):
        key, _, value = words.pop(0)[2:].partition("=")
        flags[key] = value
    return flags, words


def dockerfiles() -> list[Path]:
    return sorted({dockerfile_of(s) for s in services().values() if s.get("build")})


def dockerignore(context: Path):
    """A predicate: is this context-relative path left out of the build context?"""
    rules = []
    ignore = context / ".dockerignore"
    for line in (ignore.read_text().splitlines() if ignore.exists() else []):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = str(PurePosixPath(line.lstrip("!").strip().lstrip("/")))
        regex = ""
        i = 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                regex, i = regex + ".*", i + 2
            else:
                c = pattern[i]
                regex += "[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c)
                i += 1
        rules.append((re.compile(regex + r"\Z"), negate))

    def ignored(rel: str) -> bool:
        parts = PurePosixPath(rel).parts
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        verdict = False
        for regex, negate in rules:
            if any(regex.match(p) for p in prefixes):
                verdict = not negate
        return verdict
    return ignored


def context_files(context: Path) -> set[str]:
    """Every file the build context sends, as context-relative POSIX paths."""
    ignored = dockerignore(context)
    return {p.relative_to(context).as_posix() for p in context.rglob("*")
            if p.is_file() and not ignored(p.relative_to(context).as_posix())}


def cnf_options(path: Path) -> dict:
    options = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("["):
            key, _, value = line.partition("=")
            options[key.strip().replace("-", "_")] = value.strip()
    return options


def grants(sql: str) -> dict:
    """{(user, host): privileges on `forum`.*} from GRANT statements."""
    return {(user, host): privileges.upper() for privileges, user, host in re.findall(
        r"GRANT\s+(.+?)\s+ON\s+\\?`forum\\?`\.\*\s+TO\s+'(\w+)'@'([^']+)'", sql)}


def targets() -> dict:
    """framework -> (host, port, [apis]) of the runner's TARGETS."""
    found = {}
    for entry in services()["jmeter"]["environment"]["TARGETS"].split():
        framework, _, rest = entry.partition("=")
        host, port, apis = rest.split(":")
        found[framework] = (host, int(port), apis.split(","))
    return found
