"""Static checks of docker-compose.yml, its Dockerfiles and files: no Docker engine is needed (the
project's machines have none), so nothing here builds or starts a container."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import pytest

from benchlib import apps, jmeter
from benchlib.apps import frameworks, served_apis
from benchlib.builds import build
from benchlib.cases import STUDY_PAIR, find_case
from benchlib.jtl import summarize
from benchlib.net import free_port
from benchlib.packages import DEBIAN
from benchlib.paths import IDS, ROOT
from benchlib.processes import stop_group
from benchlib.results import SCHEMA_VERSION, SUMMARY_COLUMNS, summary_rows
from collect.load.app_pool import READINESS_PATH
from collect.load.batch import jmeter_command
from collect.items.profiles import PROFILES
from compose_files import (COMPOSE, VARIABLE, build_args, build_context, cnf_options,
                           context_files, copy_arguments, dockerfile_of, dockerfiles, dockerignore,
                           env_example, grants, instructions, named_contexts, raw_compose, services,
                           stages, targets)

RUNNER = ROOT / "docker" / "jmeter" / "run-matrix.sh"
# Every implementation (*/framework.json) is an API service named after its folder, on its
# framework.json's default_port in the containers too; MySQL on its own default inside its network.
API_SERVICES = {f["name"]: f["dir"].name for f in frameworks()}
DEFAULT_PORTS = {f["name"]: f["default_port"] for f in frameworks()}
# The image recipe of every Node app (built from the app's folder with --file).
NODE_DOCKERFILE = ROOT / "node-common" / "Dockerfile"
MYSQL_PORT = 3306
# Options of db/my.cnf that docker/mysql/my.cnf leaves out on purpose (explained in its header).
MYSQL_LEFT_OUT = {"bind_address", "port", "query_cache_type", "query_cache_size"}
MYSQL_ADDED = {"mysql_native_password", "tls_version"}
SECRET_NAME = re.compile(r"PASS|PWD|SECRET|TOKEN|CREDENTIAL|PRIVATE", re.I)


def by_manifest() -> dict:
    """framework name -> (manifest, service name, service), matched by build context."""
    found = {}
    for manifest in frameworks():
        for name, service in services().items():
            if build_context(service) == manifest["dir"].resolve():
                found[manifest["name"]] = (manifest, name, service)
    return found


def node_frameworks() -> list[str]:
    """The frameworks whose service is built with the Node apps' recipe."""
    return sorted(name for name, (_, _, service) in by_manifest().items() if dockerfile_of(service) == NODE_DOCKERFILE)


def go_frameworks() -> list[str]:
    return sorted(f["name"] for f in frameworks() if f.get("language") == "Go")


def default_frameworks() -> list[str]:
    """The jmeter service's FRAMEWORKS as compose sets it from .env.example."""
    return services()["jmeter"]["environment"]["FRAMEWORKS"].split(",")


def runner_env(tmp_path, path=None, **env) -> dict:
    """The environment of docker/jmeter/run-matrix.sh outside Docker: the jmeter service's, this
    interpreter over this checkout (as the image mounts it at /testbed), the id files, `env` on top."""
    service = services()["jmeter"]["environment"]
    return {"PATH": path or os.environ["PATH"], "PYTHON": sys.executable, "PYTHONPATH": str(ROOT),
            "IDS": str(IDS), "RESULTS": str(tmp_path), **{k: str(v) for k, v in service.items()}, **env}


def run_runner(tmp_path, path=None, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", str(RUNNER)], env=runner_env(tmp_path, path, **env), capture_output=True,
                          text=True, timeout=300)


# A measurement as a dry run prints it.
MEASUREMENT = re.compile(r"  measurement \d+: (\S+) (\S+) case (\d+) at (\S+):(\d+), (\d+) threads, ramp-up (\S+) s, "
                         r"warm-up (\S+) s(?: \(up to (\S+) s\))?, window (\S+) s$")


# ---------------------------------------------------------------- the compose file

def test_compose_file_parses_and_defines_the_whole_testbed():
    assert set(services()) == {"mysql", "seed", "jmeter", *API_SERVICES.values()}
    assert services()["mysql"]["image"].startswith("mysql:8.4."), "the study's database is MySQL"
    assert services()["jmeter"]["profiles"] == ["bench"], "the runner must not start on `up`"


def test_every_api_manifest_exists_and_has_a_service():
    found = by_manifest()
    missing = set(API_SERVICES) - set(found)
    assert not missing, f"no framework.json (or no compose service built from it) for {missing}"
    assert {name: service for name, (_, service, _) in found.items()} == API_SERVICES


@pytest.mark.parametrize("framework", sorted(API_SERVICES))
def test_api_ports_environment_and_start_agree_with_manifest_and_design(framework):
    manifest, name, service = by_manifest()[framework]
    port = DEFAULT_PORTS[framework]
    env = service["environment"]
    assert env[manifest["port_env"]] == str(port)
    assert any(str(p).endswith(f":{port}:{port}") for p in service["ports"]), service["ports"]
    for key, value in manifest["env"].items():
        assert env.get(key) == value, f"{name} must run with the manifest's {key}={value}"
    assert {k: env[k] for k in ("DB_HOST", "DB_PORT", "DB_NAME", "DB_USER")} == {
        "DB_HOST": "mysql", "DB_PORT": str(MYSQL_PORT), "DB_NAME": "forum", "DB_USER": "forum_api"}
    assert env["DB_PASSWORD"] == env_example()["DB_API_PASSWORD"]
    probe = " ".join(service["healthcheck"]["test"])
    assert f"/dev/tcp/127.0.0.1/{port}" in probe and f"GET {manifest['readiness_path']} " in probe

    final = stages(dockerfile_of(service), build_args(service))[-1]["steps"]
    exposed = [rest for keyword, rest in final if keyword == "EXPOSE"]
    assert exposed == [str(port)]
    # The apps listen on loopback unless told otherwise, which a container's outside cannot reach.
    image_env = dict(pair.split("=", 1) for keyword, rest in final if keyword == "ENV"
                     for pair in shlex.split(rest))
    assert env["BIND_ADDRESS"] == image_env["BIND_ADDRESS"] == "0.0.0.0", name
    command = [json.loads(rest) for keyword, rest in final if keyword in ("CMD", "ENTRYPOINT")][-1]
    start = manifest["start"]
    # The same program by name: express's default starts its Node from runtimes/, the image its own.
    assert [PurePosixPath(command[i]).name for i in (0, -1)] == [PurePosixPath(start[i]).name for i in (0, -1)]


def test_jmeter_targets_are_the_api_services_and_manifests():
    expected = {framework: (service, manifest["default_port"],
                            list(served_apis(manifest)))
                for framework, (manifest, service, _) in by_manifest().items()}
    assert targets() == expected
    assert set(targets()) == set(API_SERVICES)


def test_the_runner_defaults_to_the_study_pair_and_waits_for_its_apis():
    """FRAMEWORKS defaults to the study's pair (.env.example agrees); the runner waits until their
    services are healthy and probes them. Another framework (FRAMEWORKS=aspnet,express,fastify)
    is started by `docker compose up`, not by the runner's dependencies."""
    # the runner measures the study's pair unless FRAMEWORKS says otherwise
    assert default_frameworks() == list(STUDY_PAIR)
    assert env_example()["FRAMEWORKS"] == ",".join(STUDY_PAIR)
    jmeter_service = services()["jmeter"]
    depends = jmeter_service["depends_on"]
    assert all(depends[API_SERVICES[f]]["condition"] == "service_healthy" for f in STUDY_PAIR)
    probe = " ".join(jmeter_service["healthcheck"]["test"])
    for framework in STUDY_PAIR:
        host, port, _ = targets()[framework]
        assert f"/dev/tcp/{host}/{port}" in probe, framework
    others = {API_SERVICES[f] for f in API_SERVICES if f not in STUDY_PAIR}
    assert others and not others & set(depends), "only the default frameworks' APIs are awaited"
    assert all("profiles" not in services()[s] for s in others), "`docker compose up` starts them"


def test_every_api_gets_the_same_limits_from_one_place():
    limited = [services()[s] for s in API_SERVICES.values()]
    keys = ("cpus", "mem_limit", "memswap_limit")
    assert all(s.get(k) not in (None, "") for s in limited for k in keys)
    assert [{k: s[k] for k in keys} for s in limited] == [{k: limited[0][k] for k in keys}] * len(limited)
    text = COMPOSE.read_text()
    assert len(re.findall(r"^\s+cpus:", text, re.M)) == 1, "set cpus only in x-api-limits"
    assert len(re.findall(r"^\s+mem_limit:", text, re.M)) == 1, "set mem_limit only in x-api-limits"
    assert text.count("<<: *api-limits") == len(API_SERVICES)


def test_every_service_has_a_healthcheck():
    for name, service in services().items():
        check = service.get("healthcheck") or {}
        assert not check.get("disable") and check.get("test") not in (None, [], ["NONE"]), name


def test_seed_is_one_shot_and_what_needs_its_data_waits_for_it():
    seed = services()["seed"]
    assert seed["restart"] == "no"
    assert seed["depends_on"]["mysql"]["condition"] == "service_healthy"
    assert seed["environment"]["DB_USER"] == "forum_seed"
    assert services()["jmeter"]["depends_on"]["seed"]["condition"] == "service_completed_successfully"
    assert "ids:/ids" in seed["volumes"] and "ids:/ids:ro" in services()["jmeter"]["volumes"]


def test_env_example_covers_every_variable_and_passwords_only_come_from_it():
    used = {m.group(1) for m in VARIABLE.finditer(COMPOSE.read_text())}
    assert used - set(env_example()) == set()
    for name, service in raw_compose()["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if SECRET_NAME.search(key):
                assert VARIABLE.fullmatch(str(value)), f"{name}: {key} must come from .env"


def test_read_only_mounts_exist():
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source, target, *mode = volume.split(":")
            if source.startswith(".") and mode == ["ro"]:
                assert (ROOT / source).exists(), f"{name} mounts {source}, which does not exist"


# ---------------------------------------------------------------- MySQL

def test_mysql_settings_are_the_managed_servers_for_mysql_8():
    managed = cnf_options(ROOT / "db" / "my.cnf")
    container = cnf_options(ROOT / "docker" / "mysql" / "my.cnf")
    assert {k: v for k, v in managed.items() if k not in MYSQL_LEFT_OUT} == {
        k: v for k, v in container.items() if k not in MYSQL_ADDED}
    assert not any(k.startswith("query_cache") for k in container), "MySQL 8 has no query cache"
    assert container["mysql_native_password"] == "ON" and container["tls_version"] == "''"
    mounts = services()["mysql"]["volumes"]
    assert "./docker/mysql/my.cnf:/etc/mysql/conf.d/testbed.cnf:ro" in mounts


def test_mysql_accounts_match_db_accounts_for_any_host():
    script = ROOT / "docker" / "mysql" / "accounts.sh"
    managed = {user: p for (user, _), p in grants((ROOT / "db" / "accounts.sql").read_text()).items()}
    container = grants(script.read_text())
    assert container == {(user, "%"): p for user, p in managed.items()}
    assert not os.access(script, os.X_OK), "the entrypoint must source it (docker_process_sql)"
    init = sorted(v.split(":")[1] for v in services()["mysql"]["volumes"] if "initdb.d" in v)
    assert init == ["/docker-entrypoint-initdb.d/10-schema.sql", "/docker-entrypoint-initdb.d/20-accounts.sh"]
    assert "./db/schema.sql:/docker-entrypoint-initdb.d/10-schema.sql:ro" in services()["mysql"]["volumes"]


# ---------------------------------------------------------------- Dockerfiles

def built() -> dict:
    """The services compose builds, by name."""
    return {name: service for name, service in services().items() if service.get("build")}


def test_every_image_is_pinned_and_never_latest():
    images = [s["image"] for s in services().values() if "image" in s]
    for service in built().values():
        names = set()
        for stage in stages(dockerfile_of(service), build_args(service)):
            if stage["image"] not in names:
                images.append(stage["image"])
            names.add(stage["name"])
    assert images
    for image in images:
        repository, _, tag = image.split("@")[0].rsplit("/", 1)[-1].partition(":")
        # Debian's own images have no x.y.z: their exact tag is a dated build (bookworm-20260202[-slim]).
        dated = repository == "debian" and re.fullmatch(r"[a-z]+-\d{8}(?:-slim)?", tag)
        assert "@sha256:" in image or re.match(r"\d+\.\d+\.\d+", tag) or dated, f"{image}: pin an exact version"
        assert "latest" not in tag, image


@pytest.mark.parametrize("name", sorted(built()))
def test_every_file_a_dockerfile_copies_is_in_its_context(name):
    """Each COPY source of a service's build is sent by the context it names: the build's own,
    or a named context of its additional_contexts (COPY --from=NAME, where NAME is no earlier
    stage; Docker would otherwise pull an image of that name)."""
    service = built()[name]
    named = named_contexts(service)
    copied, earlier = 0, set()
    for stage in stages(dockerfile_of(service), build_args(service)):
        assert stage["name"] not in named, f"stage {stage['name']} hides the named context"
        for keyword, rest in stage["steps"]:
            if keyword not in ("COPY", "ADD"):
                continue
            flags, paths = copy_arguments(rest)
            if flags.get("from") in earlier:
                continue
            assert "from" not in flags or flags["from"] in named, \
                f"{keyword} --from={flags['from']}: neither an earlier stage nor a named context"
            context = named[flags["from"]] if "from" in flags else build_context(service)
            sent = context_files(context)
            for source in paths[:-1]:
                if re.match(r"https?://", source):
                    continue
                pattern = re.escape(str(PurePosixPath(source))).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
                matched = {f for f in sent if f == "." or re.match(rf"(?:{pattern})(?:/|\Z)", f)
                           or pattern == r"\."}
                assert matched, f"{keyword} {source}: nothing in {context.relative_to(ROOT)}/ sends it"
                copied += 1
        earlier.add(stage["name"])
    assert copied, "a Dockerfile that copies nothing from its context"


@pytest.mark.parametrize("framework", node_frameworks())
def test_node_api_images_run_the_node_version_of_the_default_variant(framework):
    [manifest] = [f for f in frameworks() if f["name"] == framework]
    # The default variant's runtime, or the manifest's where the variant does not restate it.
    settings = {**manifest["settings"], **manifest["variants"][0].get("settings", {})}
    pinned = settings["runtime"].removeprefix("Node.js ")
    [service] = [s for s in built().values() if build_context(s) == manifest["dir"].resolve()]
    images = {stage["image"] for stage in stages(dockerfile_of(service), build_args(service))}
    assert images == {f"node:{pinned}-bookworm-slim"}


def local_packages(context: Path) -> dict[str, Path]:
    """The app's dependencies that npm installs from a folder here (`file:../node-common`)."""
    dependencies = json.loads((context / "package.json").read_text()).get("dependencies", {})
    return {name: (context / spec.removeprefix("file:")).resolve()
            for name, spec in dependencies.items() if spec.startswith("file:")}


def packed(package: Path, relative: str) -> bool:
    """Is this file of a local package in what npm installs of it (package.json's `files`, a `*`
    within one path segment)?"""
    patterns = json.loads((package / "package.json").read_text()).get("files", ["**"])
    return relative == "package.json" or any(
        re.fullmatch(re.escape(p).replace(r"\*\*", ".*").replace(r"\*", "[^/]*"), relative) for p in patterns)


def copies(stage: dict) -> list[tuple[dict, list[str]]]:
    return [copy_arguments(rest) for keyword, rest in stage["steps"] if keyword == "COPY"]


def workdir(stage: dict) -> PurePosixPath:
    return PurePosixPath([rest for keyword, rest in stage["steps"] if keyword == "WORKDIR"][-1])


@pytest.mark.parametrize("folder", [*(API_SERVICES[f] for f in node_frameworks()), "seed"])
def test_node_images_receive_every_module_they_import(folder):
    """From CMD's entry point, every module the app imports (relative imports, a local package's
    modules by name) and every file it reads beside a module (new URL) is in the final image where
    Node looks for it: the app's own files by `COPY . .`; a file outside its folder
    (../contract/schema.graphql) copied from a named context to the same place beside the app; a
    local package (file:../node-common) within its `files`, installed by the first stage's npm ci
    from a copy of its whole folder where the file: path points, and node_modules taken over."""
    context = ROOT / folder
    service = next(s for s in services().values() if build_context(s) == context.resolve())
    named = named_contexts(service)
    sent = context_files(context)
    found = stages(dockerfile_of(service), build_args(service))
    deps, final = found[0], found[-1]
    assert ("COPY", ". .") in final["steps"]
    assert {"package.json", "package-lock.json"} <= sent
    app = workdir(final)
    packages = local_packages(context)
    for name, package in packages.items():
        # npm ci in the first stage finds the package where package.json's path points, whole.
        at = PurePosixPath(os.path.normpath(workdir(deps) / os.path.relpath(package, context)))
        assert any(named.get(flags.get("from")) == package and paths == [".", str(at)]
                   for flags, paths in copies(deps)), f"{folder}: no copy of {package.name}/ at {at} for npm ci"
        assert ({"from": deps["name"]}, [str(workdir(deps) / "node_modules"), "./node_modules"]) in copies(final)

    def in_image(path: Path) -> bool:
        for package in packages.values():
            if path.is_relative_to(package):
                return packed(package, path.relative_to(package).as_posix())
        if path.is_relative_to(context.resolve()):
            return path.relative_to(context.resolve()).as_posix() in sent
        # Beside the app, as in the repository: copied there from a named context.
        target = PurePosixPath(os.path.normpath(app / os.path.relpath(path, context)))
        return any(flags.get("from") in named and (named[flags["from"]] / paths[0]).resolve() == path
                   and PurePosixPath(paths[-1]) == target for flags, paths in copies(final))

    entry = [json.loads(rest) for keyword, rest in final["steps"] if keyword == "CMD"][-1][1]
    todo, seen = [(context / entry).resolve()], set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        assert in_image(module), \
            f"{os.path.relpath(module, context)} is imported or read by {folder} but not in its image"
        source = module.read_text()
        specs = re.findall(r"""(?:from|import)\s*\(?\s*['"](\.{1,2}/[^'"]+)['"]""", source)
        # Files read beside the module (e.g. ../../contract/schema.graphql) ship as well.
        specs += re.findall(r"""new URL\(\s*['"](\.{1,2}/[^'"]+)['"]\s*,\s*import\.meta\.url""", source)
        todo += [(module.parent / spec).resolve() for spec in specs]
        for name, subpath in re.findall(r"""(?:from|import)\s*\(?\s*['"]([^./'"][^/'"]*)/([^'"]+)['"]""", source):
            if name in packages:
                todo.append(packages[name] / subpath)
    assert len(seen) > 1
    # Each named context is there for a file the app reaches.
    for name, folder_path in named.items():
        assert any(module.is_relative_to(folder_path) for module in seen), f"{folder} reaches nothing of {name}"


def recorded_packages(manifest: dict) -> dict[str, str]:
    """The Debian packages framework.json's settings name with their versions: each library's
    `(golang-…-dev 1.8.1-1)` and the runtime's `golang-1.19-go 1.19.8-2`."""
    settings = manifest["settings"]
    texts = [*settings["libraries"].values(), settings["runtime"]]
    return dict(pair for text in texts for pair in re.findall(r"\b(golang-[a-z0-9.-]+) (\d[\w.:~+-]*\d)", text))


def apt_installs(stage: dict) -> dict[str, str | None]:
    """package -> pinned version (None when unpinned) of every `apt-get install` in the stage."""
    found = {}
    for keyword, rest in stage["steps"]:
        if keyword != "RUN":
            continue
        words = shlex.split(rest)
        for start in (i + 1 for i, w in enumerate(words) if w == "install" and words[i - 1] == "apt-get"):
            for word in words[start:]:
                if word in ("&&", "||", ";"):
                    break
                if not word.startswith("-"):
                    name, _, version = word.partition("=")
                    found[name] = version or None
    return found


@pytest.mark.parametrize("framework", go_frameworks())
def test_go_api_images_build_as_the_native_build_does(framework):
    """A Go API's image is built as on the development machines: a Debian 12 build stage installs
    what `./testbed setup` installs (DEBIAN["go"]), each Go package pinned, at the version framework.json
    records, and runs the manifest's build (whose dpkg-query stamps need Debian); the native
    build's output stays out of the context; the final stage, the same Debian build, holds the
    binary where `start` names it and every file of contract/ the Go code reads (a relative
    path from the working directory) where that path points from WORKDIR."""
    manifest, _, service = by_manifest()[framework]
    found = stages(dockerfile_of(service), build_args(service))
    build_stage, final = found[0], found[-1]
    assert re.fullmatch(r"debian:bookworm-\d{8}", build_stage["image"]), "Debian 12: framework.json names its packages"
    assert final["image"] == f"{build_stage['image']}-slim", "the glibc the binary was linked against"

    installed = apt_installs(build_stage)
    recorded = recorded_packages(manifest)
    assert len(recorded) == len(manifest["settings"]["libraries"]) + 1, recorded
    assert {p: installed.get(p) for p in recorded} == recorded
    assert set(DEBIAN["go"]) <= set(installed), f"install every package of DEBIAN['go']: {installed}"
    # the C toolchain follows the image's libc6, which security updates move; every Go package is pinned
    assert all(installed[p] for p in DEBIAN["go"] if p.startswith("golang")), f"pin the Go packages: {installed}"
    assert ("RUN", manifest["build"]) in build_stage["steps"]
    assert dockerignore(manifest["dir"])(manifest["start"][0]), "the native build's binary must not enter the context"

    built = str(workdir(build_stage) / manifest["start"][0])
    assert ({"from": build_stage["name"]}, [built, f"./{manifest['start'][0]}"]) in copies(final)
    binary = str(workdir(final) / manifest["start"][0])
    assert [json.loads(rest) for keyword, rest in final["steps"] if keyword == "CMD"][-1] == [binary]

    sources = [p for p in manifest["dir"].rglob("*.go") if not p.name.endswith("_test.go")
               and not dockerignore(manifest["dir"])(p.relative_to(manifest["dir"]).as_posix())]
    read = {path for source in sources for path in re.findall(r'"((?:\.\./)+contract/[^"]+)"', source.read_text())}
    assert read, "the SDL the app reads"
    assert named_contexts(service)["contract"] == (ROOT / "contract").resolve()
    for path in read:
        target = os.path.normpath(workdir(final) / path)
        assert ({"from": "contract"}, [path.split("contract/", 1)[1], target]) in copies(final), path


@pytest.mark.parametrize("dockerfile", dockerfiles(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_images_run_as_a_non_root_user_and_hold_no_secrets(dockerfile):
    final = stages(dockerfile)[-1]["steps"]
    users = [rest.split(":")[0] for keyword, rest in final if keyword == "USER"]
    assert users and users[-1] not in ("root", "0"), "the final stage must switch to a non-root user"
    for stage in stages(dockerfile):
        for keyword, rest in stage["steps"]:
            if keyword in ("ENV", "ARG"):
                names = re.findall(r"(\w+)=", rest) or [rest.split()[0]]
                assert not any(SECRET_NAME.search(n) for n in names), f"{keyword} {rest}"


def test_compose_runs_the_runner_as_a_non_root_user():
    user = services()["jmeter"]["user"]
    assert user.split(":")[0] not in ("", "0", "root")


# ---------------------------------------------------------------- the runner script

def test_runner_passes_jmeter_what_testbed_run_passes(tmp_path):
    """As ./testbed run: one JMeter per round on its batch plan (collect/load/batch.py jmeter_command),
    each case's frameworks back to back, the profile's threads and timings, each measurement against
    its own framework's service and port."""
    result = run_runner(tmp_path, DRY_RUN="1", CASES="1,18")
    assert result.returncode == 0, result.stderr
    profile = PROFILES[services()["jmeter"]["environment"]["PROFILE"]]
    commands = [shlex.split(line) for line in result.stdout.splitlines() if line.startswith("jmeter ")]
    assert len(commands) == profile.rounds, result.stdout
    for n, command in enumerate(commands, start=1):
        batch = tmp_path / "RUN_ID" / "batches" / f"{n:03d}"
        assert command == jmeter_command("jmeter", batch / "plan.jmx", batch / "jmeter.log")
    measured = [MEASUREMENT.match(line).groups() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert len(measured) == 2 * profile.rounds * sum(
        len(apis) for f, (_, _, apis) in targets().items() if f in default_frameworks()), result.stdout
    for framework, api, case, host, port, threads, rampup, warmup, cap, window in measured:
        assert (host, int(port)) == targets()[framework][:2], framework
        assert int(threads) == profile.threads(find_case(int(case))["requests"])
        assert (float(rampup), float(warmup), float(cap or warmup), float(window)) == (
            profile.rampup_s, profile.warmup_s, profile.warmup_cap_s or profile.warmup_s, profile.duration_s)
    for first, second in zip(measured[::2], measured[1::2]):  # a slot: the pair back to back
        assert first[1:3] == second[1:3] and {first[0], second[0]} == set(default_frameworks())
    assert {int(m[2]) for m in measured} == {1, 18}
    assert list(tmp_path.iterdir()) == [], "a dry run writes nothing"


def test_runner_measures_every_target_when_frameworks_names_them(tmp_path):
    """FRAMEWORKS=aspnet,express,fastify: each framework's measurements against its own service and port."""
    result = run_runner(tmp_path, DRY_RUN="1", CASES="1", FRAMEWORKS=",".join(API_SERVICES))
    assert result.returncode == 0, result.stderr
    reached = {MEASUREMENT.match(line).group(1, 4, 5) for line in result.stdout.splitlines()
               if line.startswith("  ")}
    assert reached == {(f, service, str(DEFAULT_PORTS[f])) for f, service in API_SERVICES.items()}
    assert list(tmp_path.iterdir()) == []


def test_the_runner_probes_the_readiness_path_of_every_framework_json():
    """The containers hold no framework.json: the runner's pool knows the path they all agree on."""
    assert {f["readiness_path"] for f in frameworks()} == {READINESS_PATH}


@pytest.fixture(scope="module")
def private_database(isolated_testbed):
    """A seeded database of these tests' own, with the seeder's id files beside it (as the compose
    file's mysql and seed services give the containers): nothing done to the shared one disturbs
    them."""
    seeded = isolated_testbed.run("seed")
    assert seeded.returncode == 0, seeded.stderr
    return isolated_testbed


@contextmanager
def express_app(tmp_path, testbed):
    """The express app from its framework.json on a free port, on `testbed`'s database, as its
    container would run it."""
    framework = by_manifest()["express"][0]
    build(framework)
    port = free_port()
    database = {"DB_HOST": "127.0.0.1", "DB_PORT": str(testbed.port), "DB_NAME": "forum",
                "DB_USER": "forum_api", "DB_PASSWORD": "forum_api"}
    app = apps.start_app(framework, port, tmp_path / "app.log", database)
    try:
        apps.wait_ready(framework, port, app, tmp_path / "app.log")
        yield port
    finally:
        stop_group(app)


def jmeter_path() -> str:
    return f"{Path(jmeter.find_jmeter()).parent}:{os.environ['PATH']}"


def test_runner_writes_a_standard_run_that_the_report_reads(tmp_path, private_database):
    """Real JMeter, the real plan and the express app from its framework.json, the runner outside
    Docker, then ./testbed report on what it wrote: one results format everywhere."""
    with express_app(tmp_path, private_database) as port:
        result = run_runner(tmp_path / "results", path=jmeter_path(), IDS=str(private_database.home / "ids"),
                            TARGETS=f"express=127.0.0.1:{port}:rest", FRAMEWORKS="express",
                            APIS="rest,graphql", CASES="1,4", PROFILE="smoke", RUN_ID="20990101-000000-check")
    assert result.returncode == 0, result.stdout + result.stderr
    run = tmp_path / "results" / "20990101-000000-check"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION and manifest["profile"] == "smoke"
    assert manifest["settings"]["profile"] == PROFILES["smoke"].settings()
    # ./testbed run's manifest where the fields are the same, the runner's own where they differ
    assert {"protocol", "seed", "order", "validity", "sequential", "versions", "machine"} <= set(manifest)
    assert manifest["database"] == {"managed": False, "sampled": False}
    assert manifest["runner"]["restart"].startswith("never") and manifest["layout"]["applied"] is False
    assert manifest["frameworks"]["express"]["port"] == port
    assert json.loads((run / "state.json").read_text())["status"] == "complete"
    rows = summary_rows(run / "summary.csv")
    assert list(rows[0]) == SUMMARY_COLUMNS
    assert sorted((r["api"], r["case"], r["status"]) for r in rows) == [
        ("graphql", "1", "excluded"), ("graphql", "4", "excluded"), ("rest", "1", "ok"), ("rest", "4", "ok")]
    for case in ("01", "04"):
        item = run / "express" / "rest" / f"case-{case}" / "iter-01"
        record = json.loads((item / "run.json").read_text())
        stats = summarize(item / "results.jtl", tuple(record["window"]["measured_ms"]))  # as the run counts
        assert record["status"] == "ok" and record["results"]["samples"] == stats["samples"] > 0
        assert stats["errors"] == 0 and record["load"]["threads"] == 10
        roles = {line.split(",")[1] for line in (item / "proc.csv").read_text().splitlines()[1:]}
        assert "loadgen" in roles and not roles & {"app", "db"}, roles  # the apps and database run elsewhere
    report = subprocess.run([str(ROOT / "testbed"), "report", run.name, "--results-dir", str(run.parent)],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stdout + report.stderr
    assert (run / "report" / "index.html").is_file()


def test_runner_image_verifies_the_same_jmeter_archive_as_the_cli():
    args = dict(rest.split("=", 1) for keyword, rest in instructions(RUNNER.parent / "Dockerfile")
                if keyword == "ARG")
    assert args["JMETER_SHA512"] == jmeter.ARCHIVE_SHA512
    assert args["JMETER_VERSION"] in str(jmeter.DOWNLOADED)


@pytest.mark.parametrize("env, message", [
    # ./testbed run's words for the same mistakes (collect/run/preflight.py), naming the variable
    ({"CASES": "19"}, "no case 19; cases are 1-18."),
    ({"CASES": "1,x"}, "CASES: numbers and ranges such as 1,4,7-9, not 'x'."),
    ({"FRAMEWORKS": "spring"}, f"no framework named 'spring'; known: {', '.join(sorted(API_SERVICES))} (TARGETS)."),
    ({"APIS": "soap"}, "unknown API soap; choose from rest, graphql."),
    ({"PROFILE": "long"}, f"PROFILE: invalid choice: 'long' (choose from {', '.join(map(repr, PROFILES))})."),
    ({"ITERATIONS": "0"}, "ITERATIONS must be 1 or more."),
    ({"ITERATIONS": "two"}, "ITERATIONS: invalid int value: 'two'."),
    ({"DRY_RUN": "", "IDS": "/nonexistent"}, "the seed service has not completed"),
    ({"DRY_RUN": "", "RESUME": "20990101-000000-none"}, "no run 20990101-000000-none under"),
])
def test_runner_rejects_bad_settings_clearly(tmp_path, env, message):
    """DRY_RUN stops before the id files are looked at, so clearing it shows that check."""
    result = run_runner(tmp_path, **{"DRY_RUN": "1", **env})
    assert result.returncode == 2 and message in result.stderr, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_runner_stopped_by_ctrl_c_leaves_an_interrupted_run_that_resume_finishes(tmp_path, private_database):
    """The run loop's Ctrl-C and resume, in the runner: the cut item set aside under interrupted/,
    state.json `interrupted` with the RESUME to give, then RESUME=<run id> measures what is left
    on the targets the run recorded, every item once."""
    results, run_id = tmp_path / "results", "20990101-000000-resume"
    settings = {"FRAMEWORKS": "express", "APIS": "rest", "CASES": "1,4", "ITERATIONS": "2", "PROFILE": "smoke",
                "IDS": str(private_database.home / "ids")}
    run = results / run_id
    with express_app(tmp_path, private_database) as port:
        env = runner_env(results, jmeter_path(), TARGETS=f"express=127.0.0.1:{port}:rest", RUN_ID=run_id, **settings)
        runner = subprocess.Popen(["sh", str(RUNNER)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        deadline = time.monotonic() + 120
        while not list(run.glob("express/rest/case-*/iter-01/run.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        runner.send_signal(signal.SIGINT)
        out, err = runner.communicate(timeout=120)
        assert runner.returncode == 130, out + err
        state = json.loads((run / "state.json").read_text())
        assert state["status"] == "interrupted" and state["done"] < 4, state
        assert f"resume with RESUME={run_id}" in out
        assert (run / "interrupted").is_dir()
        resumed = run_runner(results, jmeter_path(), TARGETS="elsewhere=nowhere:1:rest", RESUME=run_id, **settings)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads((run / "state.json").read_text())["status"] == "complete"
    rows = summary_rows(run / "summary.csv")
    assert sorted((r["case"], r["round"]) for r in rows) == [("1", "1"), ("1", "2"), ("4", "1"), ("4", "2")]
    for r in rows:
        item = run / "express" / "rest" / f"case-{int(r['case']):02d}" / f"iter-{int(r['round']):02d}"
        assert json.loads((item / "run.json").read_text())["status"] == r["status"]
