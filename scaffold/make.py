"""`./testbed new NAME --from SOURCE`: a new implementation's folder, NAME-api/, made from the
`scaffold/` template of SOURCE (any discovered implementation that has one). A name that cannot
be a framework's is refused in one line before anything is written; the folder appears whole or
not at all."""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchlib import apps
from benchlib.builds import OUTPUT_DIRS
from benchlib.console import fail, say
from benchlib.paths import ROOT, shown

TEMPLATE = "scaffold"
# framework.json's rule for a name (benchlib/framework.schema.json), checked here first to say it
# in the scaffold's words.
NAME = re.compile(apps.SCHEMA["properties"]["name"]["pattern"])
MAX_NAME = apps.SCHEMA["properties"]["name"]["maxLength"]
# Words the command line already gives a meaning; a framework so named could not be chosen.
RESERVED = {"all": "--framework all means every framework",
            "default": "it is the name of every framework's first variant"}
# A new framework's port: the first multiple of PORT_STEP from FIRST_PORT whose block no
# framework's ports (its default port plus one per variant) reach into.
FIRST_PORT, PORT_STEP = 3000, 100
TODO = apps.TODO
SHOWN_VALUE = 90


def sources() -> dict[str, dict]:
    """The implementations a new one can start from: every one found with a scaffold/ template."""
    return {f["name"]: f for f in apps.frameworks() if (f["dir"] / TEMPLATE).is_dir()}


def check_name(name: str, known: dict[str, dict]) -> Path:
    """NAME-api/, if NAME can name a new framework; otherwise one line saying why not."""
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        fail(f"{name!r} cannot name a framework: lowercase letters and digits, single hyphens "
             f"between them, starting with a letter, at most {MAX_NAME} characters (e.g. koa).")
    if name in RESERVED:
        fail(f"{name!r} is reserved ({RESERVED[name]}); choose another name.")
    if name in known:
        fail(f"a framework named {name!r} exists already ({shown(known[name]['dir'])}/); "
             "choose another name.")
    folder = ROOT / f"{name}-api"
    if folder.exists():
        fail(f"{shown(folder)}/ exists already; choose another name, or move that folder away.")
    return folder


def pick_source(wanted: str | None, found: dict[str, dict]) -> dict:
    if not found:
        fail("no implementation has a scaffold/ template to start from.")
    if wanted is None:
        return found[sorted(found)[0]]
    if wanted not in found:
        fail(f"--from {wanted!r}: no implementation of that name has a scaffold/ template; "
             f"choose from {', '.join(sorted(found))}.")
    return found[wanted]


def free_port(known: dict[str, dict]) -> int:
    taken = [(f["default_port"], f["default_port"] + len(apps.variants(f))) for f in known.values()]
    port = FIRST_PORT
    while any(start < port + PORT_STEP and port < end for start, end in taken):
        port += PORT_STEP
    return port


def default_maintainer() -> list[str]:
    name = subprocess.run(["git", "config", "user.name"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip() if shutil.which("git") else ""
    if not name:
        fail("say who maintains the new implementation: --maintainer NAME (git has no user.name).")
    return [name]


def shown_value(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= SHOWN_VALUE else text[:SHOWN_VALUE - 1] + "…"


def manifest(template: dict, name: str, display_name: str, maintainers: list[str], port: int,
             source: dict, folder: Path) -> dict:
    """framework.json: its schema, who and where first, the template's build and start, then one
    TODO per setting the source declares (a new implementation declares at least as much)."""
    ordered = {"$schema": os.path.relpath(apps.SCHEMA_FILE, folder),
               "schema": template.get("schema", 1), "name": name, "display_name": display_name,
               "type": "realistic", "maintainers": maintainers}
    for key, value in template.items():
        if key not in ("$schema", "schema", "variants"):
            ordered[key] = value
        if key == "port_env":
            ordered["default_port"] = port
    return {**ordered, "default_port": port,
            "settings": {key: TODO for key in source.get("settings", {})},
            "variants": template.get("variants") or [{"name": "default", "env": {}}]}


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def copy_template(template_dir: Path, into: Path, values: dict[str, str]) -> None:
    for path in sorted(template_dir.rglob("*")):
        relative = path.relative_to(template_dir)
        if OUTPUT_DIRS & set(relative.parts) or path.is_dir() or relative == Path("framework.json"):
            continue
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        try:
            target.write_text(fill(data.decode(), values))
        except UnicodeDecodeError:
            target.write_bytes(data)
        shutil.copymode(path, target)


def new(name: str, source_name: str | None, maintainers: list[str] | None,
        display_name: str | None) -> int:
    known = {f["name"]: f for f in apps.frameworks()}
    folder = check_name(name, known)
    source = pick_source(source_name, sources())
    template_dir = source["dir"] / TEMPLATE
    try:
        template = json.loads((template_dir / "framework.json").read_text())
    except (OSError, ValueError) as e:
        fail(f"{shown(template_dir)}/framework.json cannot be read ({e}); fix the template.")
    port = free_port(known)
    data = manifest(template, name, display_name or name.replace("-", " ").title(),
                    maintainers or default_maintainer(), port, source, folder)
    # What discovery, verify and runs will check, before anything is written.
    apps.check_framework(data, f"the framework.json made from {shown(template_dir)}/framework.json")
    settings = "\n".join(f"| `{key}` | {TODO} | {source['name']}: {shown_value(value)} |"
                         for key, value in source.get("settings", {}).items())
    values = {"NAME": name, "DISPLAY_NAME": data["display_name"], "SOURCE": source["name"],
              "PORT": str(port), "SETTINGS": settings}
    # Built beside its final place and renamed into it: an error on the way leaves nothing.
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-api.", dir=ROOT))
    try:
        copy_template(template_dir, staging, values)
        (staging / "framework.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    say(f"new: made {shown(folder)}/ from {source['name']}'s template (framework.json, README.md, "
        f"the routes' skeleton, a test), on port {port}.")
    say(f"next: its README lists what is still to do; `./testbed verify --framework {name}` lists "
        f"what is still missing, check by check; docs/adding-a-framework.md is the guide.")
    return 0
