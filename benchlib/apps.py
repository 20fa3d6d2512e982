"""The implementations, from their framework.json (docs/adding-a-framework.md): finding and
checking them, starting one, waiting for it and stopping it, and the background apps of
`./testbed up|down`.

Nothing here knows a framework by name. In this code base "framework" is the dict read from a
framework.json (plus `dir`, its folder); "manifest" means a run's manifest.json only.
"""
import functools
import importlib
import json
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

from benchlib import database as managed_db
from benchlib.builds import build
from benchlib.cases import API_STYLES
from benchlib.console import fail, say
from benchlib.dataset import seed
from benchlib.net import free_port, port_free, wait_for_200
from benchlib.packages import ensure_debian
from benchlib.paths import LOGS, PIDS, ROOT, bind_address, port_offset, shown
from benchlib.processes import start_time, stop_group, wait_for_named

READY_TIMEOUT_S = 120
# Every field of framework.json and its rule, in one JSON Schema (draft 2020-12) that each
# framework.json names as its "$schema", so that editors check it as the testbed does.
SCHEMA_FILE = Path(__file__).resolve().with_name("framework.schema.json")
SCHEMA = json.loads(SCHEMA_FILE.read_text())
# What kind of entry it is, as the largest benchmark collections separate them: `realistic` is
# the framework as its documentation teaches and production runs it; `tuned` departs from that to
# go faster (docs/adding-a-framework.md, "Realistic or tuned").
TYPES = tuple(SCHEMA["$defs"]["type"]["enum"])
GUIDE = "docs/adding-a-framework.md"
SHOWN_VALUE = 80
DB_MARKER = "database.started"
# The value `./testbed new` writes for every setting still to declare (scaffold/make.py); verify
# fails an implementation while any is left, since an undeclared setting could tilt a comparison.
TODO = "TODO"


# --- finding and checking ------------------------------------------------------------------------

def read_framework(path: Path) -> dict:
    """One framework.json, checked: readable JSON that keeps framework.schema.json."""
    path = Path(path)
    try:
        framework = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        fail(f"cannot read {shown(path)} ({e}); fix it or remove the folder.")
    check_framework(framework, shown(path))
    # "$schema" is for editors: the framework, and so each run's manifest, is the rest.
    framework.pop("$schema", None)
    framework["dir"] = path.resolve().parent
    return framework


def check_framework(framework, file: str) -> None:
    """framework.json's content against framework.schema.json; its first problem is one line
    naming `file` and the field, with the field's rule (the schema's errorMessage)."""
    error = next(_validator().iter_errors(framework), None)
    if error is None:
        return
    path = list(error.absolute_path)
    where = _where(framework, path)
    subject = f"{file}: {where}" if where else file
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        fail(f"{subject} lacks {', '.join(missing)}; see {GUIDE} for its fields.")
    if error.validator == "additionalProperties":
        known = _schema_at(path).get("properties", {})
        unknown = [repr(key) for key in error.instance if key not in known]
        fail(f"{subject} has unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
             f"see {GUIDE} for its fields.")
    depth, rule = _rule(path)
    value = framework
    for key in path[:depth]:
        value = value[key]
    shown_value = repr(value) if len(repr(value)) <= SHOWN_VALUE else repr(value)[:SHOWN_VALUE - 1] + "…"
    where = _where(framework, path[:depth])
    fail(f"{f'{file}: {where}' if where else file} {rule}, not {shown_value}; see {GUIDE}.")


@functools.cache
def _validator():
    """The schema's validator; python3-jsonschema is installed on first need, as every other
    Debian package the testbed uses."""
    try:
        import jsonschema
    except ImportError:
        ensure_debian("schema")
        importlib.invalidate_caches()
        import jsonschema
    return jsonschema.Draft202012Validator(SCHEMA)


def _resolve(node: dict) -> dict:
    """A schema node with its local "$ref" followed (its own keywords win)."""
    while "$ref" in node:
        target = SCHEMA
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _schema_at(path: list) -> dict:
    """The schema node that applies to the value at `path` in a framework.json ({} if none)."""
    node = _resolve(SCHEMA)
    for key in path:
        node = node.get("items") if isinstance(key, int) else \
            node.get("properties", {}).get(key, node.get("additionalProperties"))
        if not isinstance(node, dict):
            return {}
        node = _resolve(node)
    return node


def _rule(path: list) -> tuple[int, str]:
    """(depth, rule): the innermost field along `path` whose schema states its rule in words."""
    for depth in range(len(path), -1, -1):
        rule = _schema_at(path[:depth]).get("errorMessage")
        if rule:
            return depth, rule
    return 0, SCHEMA["errorMessage"]


def _where(framework: dict, path: list) -> str:
    """A field as the guide names it: `type`, `env.NODE_ENV`, `variant 'jit''s start`."""
    words, node = [], framework
    for i, key in enumerate(path):
        if i == 1 and path[0] == "variants":
            name = node[key].get("name") if isinstance(node[key], dict) else None
            words = [f"variant {name!r}" if isinstance(name, str) else f"variant {key + 1}"]
        elif i == 2 and path[0] == "variants":
            words[0] += f"'s {key}"
        elif isinstance(key, int):
            words[-1] += f"[{key}]"
        else:
            words.append(key)
        node = node[key]
    return ".".join(words)


def frameworks() -> list[dict]:
    """Every implementation: a folder at the root holding a framework.json."""
    return [read_framework(path) for path in sorted(ROOT.glob("*/framework.json"))]


def find_framework(name: str, extra: list[Path] = ()) -> dict:
    """The framework called `name`, among the repository's and the `extra` framework.json files."""
    found = {f["name"]: f for f in frameworks() + [read_framework(p) for p in extra]}
    if name not in found:
        fail(unknown_framework(name, found, "folders with a framework.json"))
    return found[name]


def unknown_framework(name: str, known, source: str) -> str:
    """The error for a framework named `name` among `known` ones, which `source` lists."""
    return f"no framework named {name!r}; known: {', '.join(sorted(known)) or 'none'} ({source})."


def select(names: list[str] | None, extra: list[Path] = ()) -> list[dict]:
    """The frameworks named (all of them for None, [] or ["all"]), in the order given."""
    found = frameworks() + [read_framework(p) for p in extra]
    if not found:
        fail("no implementation found (no */framework.json).")
    if not names or list(names) == ["all"]:
        return found
    return [find_framework(n, extra) for n in names]


def served_apis(framework: dict) -> tuple:
    """The API styles an implementation serves: its framework.json's optional `apis` (which the
    schema holds to API_STYLES), else both."""
    return tuple(framework.get("apis", API_STYLES))


def settings(framework: dict) -> list[tuple[str, object]]:
    """(name, value) of every setting it declares: its framework.json `settings`, then, for an arm
    of a variant (see `arm`), the variant's own `settings`, named `variant NAME: key`."""
    declared = list((framework.get("settings") or {}).items())
    variant = framework.get("variant") or {}
    return declared + [(f"variant {variant['name']}: {key}", value)
                       for key, value in (variant.get("settings") or {}).items()]


def still_todo(value) -> bool:
    """Whether a setting's value is, or anywhere inside holds, the scaffold's "TODO"."""
    if isinstance(value, dict):
        return any(still_todo(v) for v in value.values())
    if isinstance(value, list):
        return any(still_todo(v) for v in value)
    return value == TODO


def variants(framework: dict) -> list[dict]:
    """Its framework.json variants; the first is its default."""
    return framework.get("variants") or [{"name": "default", "env": {}}]


# The arm `F:aa` is a second, independent process of F's default variant: the same build, start
# command, settings and environment on a port of its own, so that `./testbed run --aa F` measures
# the pipeline's false-positive rate with two arms that differ in nothing but the process.
AA_VARIANT = "aa"
AA_PORT_SHIFT = 50


def second_process(framework: dict) -> dict:
    """F's default arm as a second, independent process (`F:aa`)."""
    first = arm(framework)
    variant = {**first["variant"], "name": AA_VARIANT,
               "description": f"a second process of {first['name']}'s default variant (A/A): the same "
                              f"build, settings and environment; only the process differs"}
    return {**first, "name": f"{framework['name']}:{AA_VARIANT}", "variant": variant,
            "display_name": f"{first['display_name']} (second process)",
            "default_port": framework["default_port"] + AA_PORT_SHIFT}


def arm(framework: dict, variant_name: str | None = None) -> dict:
    """The framework as one of its variants runs it (docs/glossary.md, "Arm"), named `framework` for
    the default variant and `framework:variant` for the others; one clear line for an unknown
    variant.

    A variant may replace `start`, `process_name` and `type` (a tuned variant of a realistic
    framework), adds its `env` to the framework's, and may
    have a `build` of its own, run after the framework's (benchlib/builds.py). Each variant gets
    its own port (the framework's plus the variant's index), so a run can serve several at once."""
    known = variants(framework)
    if variant_name == AA_VARIANT and all(v["name"] != AA_VARIANT for v in known):
        return second_process(framework)
    index = next((i for i, v in enumerate(known) if v["name"] == (variant_name or known[0]["name"])), None)
    if index is None:
        fail(f"{framework['name']} has no variant {variant_name!r}; known: "
             f"{', '.join(v['name'] for v in known)} (its framework.json variants).")
    variant = known[index]
    return {**framework, **{k: variant[k] for k in ("start", "process_name", "type") if k in variant},
            "name": framework["name"] if index == 0 else f"{framework['name']}:{variant['name']}",
            "base": framework["name"], "variant": variant,
            "display_name": framework.get("display_name", framework["name"])
            + ("" if index == 0 else f" ({variant['name']})"),
            "env": {**framework.get("env", {}), **variant.get("env", {})},
            "default_port": framework["default_port"] + index}


def select_arms(specs: list[str] | None, extra: list[Path] = (), variant: str | None = None) -> list[dict]:
    """The arms named `framework` or `framework:variant` (every framework when None or ["all"]),
    among the repository's and the `extra` framework.json files. `variant` (a name, or "all" for
    every one) applies to each framework named without a variant of its own."""
    chosen = []
    for spec in specs if specs and list(specs) != ["all"] else [None]:
        name, _, own = (spec or "").partition(":")
        for framework in select([name] if name else None, extra):
            wanted = own or variant
            chosen += [arm(framework, v["name"]) for v in variants(framework)] if wanted == "all" \
                else [arm(framework, wanted or None)]
    names = [a["name"] for a in chosen]
    if len(set(names)) != len(names):
        fail(f"a variant is named twice in {', '.join(specs)}; name each once.")
    return chosen


# --- starting, waiting, stopping ---------------------------------------------------------------

def port(framework: dict) -> int:
    """Its default port, shifted by TESTBED_PORT_OFFSET to run beside another testbed."""
    return framework["default_port"] + port_offset()


def url(framework: dict, at_port: int | None = None, path: str = "") -> str:
    return f"http://{host()}:{at_port or port(framework)}{path}"


def host() -> str:
    """Where the apps listen and are reached (an IPv6 address in brackets)."""
    address = bind_address()
    return f"[{address}]" if ":" in address else address


def app_env(framework: dict, at_port: int, extra_env: dict | None = None) -> dict:
    """The app's environment: ours, the framework's fixed env, the DB_* of the read-only
    account, extra_env (e.g. a variant's env), the port under the framework's port_env, and the
    address to listen on (BIND_ADDRESS)."""
    return {**os.environ, **framework.get("env", {}), **managed_db.database().api_env(),
            **(extra_env or {}), framework["port_env"]: str(at_port), "BIND_ADDRESS": bind_address()}


def start_app(framework: dict, at_port: int | None = None, log_path: Path | None = None,
              extra_env: dict | None = None) -> subprocess.Popen:
    """Start the framework's `start` argv in its folder, detached in a new session (so its whole
    process group can be stopped), stdout and stderr appended to log_path (default
    .testbed/logs/<name>.log). Fails with one line if the port is taken. Does not wait."""
    at_port = at_port or port(framework)
    if not port_free(at_port):
        fail(f"port {at_port} is taken by another process; stop it (or `./testbed down`) "
             f"before starting {framework['name']}.")
    log_path = Path(log_path or LOGS / f"{framework['name']}.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(framework["start"], cwd=framework["dir"],
                                env=app_env(framework, at_port, extra_env), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def wait_ready(framework: dict, at_port: int, proc: subprocess.Popen | None = None,
               log_path: Path | None = None, timeout: float = READY_TIMEOUT_S) -> None:
    """Until its readiness path answers 200; fails if `proc` exits first or time runs out."""
    wait_for_200(url(framework, at_port, framework["readiness_path"]), timeout, proc, log_path)


def sampled_pid(framework: dict, proc: subprocess.Popen) -> int:
    """The app's own process: a start command may be a launcher that forks it."""
    name = framework.get("process_name")
    return wait_for_named(proc.pid, name) if name else proc.pid


@contextmanager
def started(framework: dict, log_path: Path | None = None, extra_env: dict | None = None):
    """(proc, port): the framework built, started on a free port and ready; stopped on leaving."""
    build(framework)
    at_port = free_port()
    proc = start_app(framework, at_port, log_path, extra_env)
    try:
        wait_ready(framework, at_port, proc, log_path)
        yield proc, at_port
    finally:
        stop_group(proc)


# --- up and down -------------------------------------------------------------------------------

def _pid_file(name: str) -> Path:
    return PIDS / f"{name}.pid"


def running(name: str) -> int | None:
    """The pid `up` recorded for `name`, if that very process is still alive."""
    try:
        pid, started = _pid_file(name).read_text().split()
        pid = int(pid)
    except (OSError, ValueError):
        return None
    return pid if start_time(pid) == started else None


def up(names: list[str] | None = None, variant: str | None = None) -> int:
    """Database (seeded) and the named apps (all by default; framework:variant for a variant) in
    the background, each ready."""
    if variant and (not names or names == ["all"] or len(names) != 1 or ":" in names[0]):
        fail("--variant picks a variant of one --framework; name it, e.g. --framework aspnet --variant net8.")
    chosen = select_arms(names, variant=variant)
    PIDS.mkdir(parents=True, exist_ok=True)
    database_was_up = managed_db.sql("SELECT 1", as_root=True, check=False).returncode == 0
    db = managed_db.start()
    if db.managed and not database_was_up:
        (PIDS / DB_MARKER).write_text("started by ./testbed up\n")
    seed()
    for framework in chosen:
        pid = running(framework["name"])
        if pid:
            say(f"{framework['name']}: already running at {url(framework)} (pid {pid}).")
        else:
            start_detached(framework)
    return 0


def start_detached(framework: dict) -> int:
    """Build if needed, start on its port, record the pid file, wait for readiness;
    on failure stop it again. Returns the pid."""
    build(framework)
    log_path = LOGS / f"{framework['name']}.log"
    proc = start_app(framework, log_path=log_path)
    pid_file = _pid_file(framework["name"])
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(f"{proc.pid} {start_time(proc.pid)}\n")
    try:
        wait_ready(framework, port(framework), proc, log_path)
    except BaseException:
        stop_group(proc)
        pid_file.unlink(missing_ok=True)
        raise
    say(f"{framework['name']}: {url(framework)} (pid {proc.pid}, log {shown(log_path)}).")
    return proc.pid


def down() -> int:
    stopped = 0
    for pid_file in sorted(PIDS.glob("*.pid")) if PIDS.exists() else []:
        name = pid_file.stem
        pid = running(name)
        if pid:
            stop_group(pid)
            say(f"{name}: stopped (pid {pid}).")
            stopped += 1
        pid_file.unlink(missing_ok=True)
    if (PIDS / DB_MARKER).exists():
        managed_db.stop()
        (PIDS / DB_MARKER).unlink()
    elif not stopped:
        say("down: nothing was running.")
    return 0
