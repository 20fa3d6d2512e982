"""benchlib/apps.py and builds.py against real processes: a tiny HTTP app described by a
framework.json of its own."""
import json
import os
import socket
import sys
import time

import pytest

from benchlib import apps, builds
from benchlib.cases import API_STYLES
from benchlib.console import UserError
from benchlib.database import database
from benchlib.net import free_port
from benchlib.paths import ROOT
from benchlib.processes import alive, stop_group

# A stand-in implementation: answers 200 on /healthz, and starts a child process so that stopping
# must reach the whole process group. READY=never keeps it answering 503.
APP = """
import http.server, os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open("child.pid", "w").write("started")
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503 if os.environ.get("READY") == "never" else 200)
        self.end_headers()
    def log_message(self, *args):
        pass
print("listening", flush=True)
http.server.HTTPServer(("127.0.0.1", int(os.environ["APP_PORT"])), Handler).serve_forever()
"""


@pytest.fixture
def state(tmp_path, monkeypatch):
    """apps' state folders under tmp_path, so the test never touches .testbed/run of a real `up`."""
    for module, name in ((apps, "PIDS"), (builds, "BUILDS"), (apps, "LOGS")):
        monkeypatch.setattr(module, name, tmp_path / "state" / name.lower())
    return tmp_path / "state"


@pytest.fixture
def framework(tmp_path):
    folder = tmp_path / "toy-api"
    folder.mkdir()
    (folder / "app.py").write_text(APP)
    data = {"schema": 1, "name": "toy", "build": "mkdir -p out && echo built >> ../builds.log",
            "start": [sys.executable, "app.py"], "port_env": "APP_PORT",
            "default_port": free_port(), "readiness_path": "/healthz", "env": {"FIXED": "1"}}
    (folder / "framework.json").write_text(json.dumps(data))
    return {**data, "dir": folder}


def builds_done(framework):
    log = framework["dir"].parent / "builds.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_build_runs_again_only_when_sources_or_outputs_change(state, framework):
    assert builds.build(framework) is True
    assert builds.build(framework) is False
    assert builds_done(framework) == 1
    (framework["dir"] / "app.py").write_text(APP + "\n# changed\n")
    assert builds.build(framework) is True
    (framework["dir"] / "out").rmdir()
    assert builds.build(framework) is True
    assert builds_done(framework) == 3


def test_a_failing_build_is_one_clear_error(state, framework):
    framework["build"] = "echo 'no compiler here' >&2; exit 7"
    with pytest.raises(UserError, match="exited with 7.*no compiler here"):
        builds.build(framework)


def test_start_wait_stop_reaches_the_whole_process_group(state, framework):
    port = free_port()
    proc = apps.start_app(framework, port, state / "toy.log", {"EXTRA": "yes"})
    apps.wait_ready(framework, port, proc, state / "toy.log", 30)
    env = (open(f"/proc/{proc.pid}/environ", "rb").read().split(b"\0"))
    assert b"FIXED=1" in env and b"EXTRA=yes" in env and f"APP_PORT={port}".encode() in env
    assert b"DB_USER=" + database().api_user.encode() in env
    group = [int(p) for p in os.listdir("/proc") if p.isdigit() and alive(int(p))
             and os.getpgid(int(p)) == proc.pid]
    assert len(group) == 2  # the app and its child
    stop_group(proc)
    time.sleep(0.3)
    assert not any(alive(pid) for pid in group)
    assert "listening" in (state / "toy.log").read_text()


def test_a_taken_port_is_refused_before_starting(state, framework):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(UserError, match=f"port {taken.getsockname()[1]} is taken"):
            apps.start_app(framework, taken.getsockname()[1], state / "toy.log")


def test_an_app_that_exits_is_reported_with_its_log(state, framework):
    framework["start"] = [sys.executable, "-c", "print('cannot reach the database'); raise SystemExit(3)"]
    proc = apps.start_app(framework, free_port(), state / "toy.log")
    with pytest.raises(UserError, match="(?s)exited with code 3.*cannot reach the database"):
        apps.wait_ready(framework, free_port(), proc, state / "toy.log", 30)


def test_an_app_never_ready_times_out(state, framework):
    port = free_port()
    proc = apps.start_app(framework, port, state / "toy.log", {"READY": "never"})
    try:
        with pytest.raises(UserError, match="did not answer 200 within 1 s"):
            apps.wait_ready(framework, port, proc, state / "toy.log", 1)
    finally:
        stop_group(proc)


def test_down_stops_what_was_started_and_is_harmless_twice(state, framework, capsys):
    pid = apps.start_detached(framework)
    assert apps.running("toy") == pid
    assert apps.down() == 0
    assert apps.running("toy") is None and not alive(pid)
    assert apps.down() == 0
    assert "nothing was running" in capsys.readouterr().out


def test_a_stale_pid_file_names_nothing(state):
    apps.PIDS.mkdir(parents=True)
    (apps.PIDS / "ghost.pid").write_text(f"{os.getpid()} 1\n")  # our pid, another start time
    assert apps.running("ghost") is None
    apps.down()
    assert not (apps.PIDS / "ghost.pid").exists()


def test_build_inputs_narrow_what_triggers_a_build(state, framework):
    framework["build_inputs"] = ["*.lock"]
    (framework["dir"] / "deps.lock").write_text("a")
    assert builds.build(framework) is True
    (framework["dir"] / "README.md").write_text("docs only")
    assert builds.build(framework) is False
    (framework["dir"] / "deps.lock").write_text("b")
    assert builds.build(framework) is True


def test_concurrent_builds_run_the_build_once(state, framework):
    framework["build"] = "sleep 1; mkdir -p out && echo built >> ../builds.log"
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda _: builds.build(framework), range(3)))
    assert sorted(results) == [False, False, True]
    assert builds_done(framework) == 1


def with_variants(framework):
    return {**framework, "variants": [
        {"name": "default", "env": {}},
        {"name": "tuned", "env": {"TUNED": "1"}},
        {"name": "other-runtime", "build": "echo variant >> ../variant-builds.log", "env": {},
         "start": [sys.executable, "app.py", "--other"], "process_name": "python3"}]}


def test_an_arm_is_the_framework_as_one_variant_runs_it_on_a_port_of_its_own(framework):
    toy = with_variants(framework)
    default, tuned, other = (apps.arm(toy, name) for name in (None, "tuned", "other-runtime"))
    assert [a["name"] for a in (default, tuned, other)] == ["toy", "toy:tuned", "toy:other-runtime"]
    assert [apps.port(a) - apps.port(default) for a in (default, tuned, other)] == [0, 1, 2]
    assert tuned["env"] == {"FIXED": "1", "TUNED": "1"} and tuned["start"] == framework["start"]
    assert other["start"][-1] == "--other" and other["variant"]["name"] == "other-runtime"
    with pytest.raises(UserError, match="toy has no variant 'nope'; known: default, tuned, other-runtime"):
        apps.arm(toy, "nope")


def test_the_aa_arm_is_a_second_process_of_the_default_that_differs_only_in_name_and_port(state, framework):
    toy = with_variants(framework)
    first, second = (apps.arm(toy, name) for name in (None, apps.AA_VARIANT))
    assert second["name"] == "toy:aa" and second["base"] == "toy"
    assert apps.port(second) - apps.port(first) == apps.AA_PORT_SHIFT
    same = ("start", "env", "build", "process_name", "dir")
    assert all(second.get(k) == first.get(k) for k in same)
    assert {k: v for k, v in second["variant"].items() if k not in ("name", "description")} == \
        {k: v for k, v in first["variant"].items() if k not in ("name", "description")}
    procs = [apps.start_app(arm, log_path=state / f"{arm['name']}.log") for arm in (first, second)]
    try:  # two processes at once, each on its own port
        for arm, proc in zip((first, second), procs):
            apps.wait_ready(arm, apps.port(arm), proc)
        assert len({p.pid for p in procs}) == 2
    finally:
        for proc in procs:
            stop_group(proc)


def test_a_variant_s_own_build_runs_after_the_framework_s_with_a_stamp_of_its_own(state, framework):
    toy = with_variants(framework)
    assert builds.build(apps.arm(toy, "other-runtime")) is True
    assert builds.build(apps.arm(toy)) is False  # the framework's build was done on the way
    assert builds.build(apps.arm(toy, "tuned")) is False  # env only: nothing of its own to build
    assert builds.build(apps.arm(toy, "other-runtime")) is False
    assert builds_done(framework) == 1
    assert (framework["dir"].parent / "variant-builds.log").read_text() == "variant\n"


def write_framework(folder, **fields):
    folder.mkdir(exist_ok=True)
    data = {"schema": 1, "name": "toy", "type": "realistic", "maintainers": ["Ada"], "build": "true",
            "start": ["true"], "port_env": "PORT", "default_port": 4000, "readiness_path": "/healthz"}
    (folder / "framework.json").write_text(json.dumps({**data, **fields}))
    return folder / "framework.json"


def test_a_framework_declares_its_type_and_maintainers(tmp_path):
    toy = apps.read_framework(write_framework(tmp_path / "toy-api", variants=[
        {"name": "default", "env": {}}, {"name": "fast", "type": "tuned", "env": {"NO_CHECKS": "1"}}]))
    assert (toy["type"], toy["maintainers"]) == ("realistic", ["Ada"])
    assert apps.arm(toy)["type"] == "realistic" and apps.arm(toy, "fast")["type"] == "tuned"


@pytest.mark.parametrize("fields, message", [
    ({"type": "fast"}, "type must be realistic or tuned, not 'fast'"),
    ({"variants": [{"name": "x", "type": "stripped"}]},
     "variant 'x''s type must be realistic or tuned, not 'stripped'"),
    ({"maintainers": []}, "maintainers must be a non-empty list of names"),
    ({"maintainers": "Ada"}, "maintainers must be a non-empty list of names"),
    ({"maintainers": ["Ada", " "]}, "maintainers must be a non-empty list of names"),
])
def test_a_bad_type_or_maintainers_list_is_one_line(tmp_path, fields, message):
    with pytest.raises(UserError, match=message) as error:
        apps.read_framework(write_framework(tmp_path / "toy-api", **fields))
    assert "\n" not in str(error.value)


def test_a_framework_without_type_or_maintainers_is_refused(tmp_path):
    path = write_framework(tmp_path / "toy-api")
    data = json.loads(path.read_text())
    del data["type"], data["maintainers"]
    path.write_text(json.dumps(data))
    with pytest.raises(UserError, match="lacks type, maintainers; see docs/adding-a-framework.md"):
        apps.read_framework(path)


def test_a_framework_declares_the_deviations_its_libraries_force(tmp_path):
    deviation = {"check": "introspection", "request": "_Service", "why": "its library adds the type",
                 "upstream": "https://github.com/graph-gophers/graphql-go/issues/600"}
    toy = apps.read_framework(write_framework(tmp_path / "toy-api", deviations=[deviation]))
    assert toy["deviations"] == [deviation]


def test_the_repository_s_frameworks_declare_both():
    assert all(f["type"] in apps.TYPES and f["maintainers"] for f in apps.frameworks())


@pytest.mark.parametrize("fields, message", [
    ({"proces_name": "node"}, "toy-api/framework.json has unknown field 'proces_name'; see "
                              "docs/adding-a-framework.md for its fields."),
    ({"default_port": "4000"}, ": default_port must be a port number from 1 to 65535, not '4000'"),
    ({"default_port": 70000}, ": default_port must be a port number from 1 to 65535, not 70000"),
    ({"readiness_path": "healthz"}, ": readiness_path must be a path starting with /, not 'healthz'"),
    ({"start": "node server.js"}, ": start must be a non-empty list of strings"),
    ({"env": {"NODE_ENV": "production", "WORKERS": 2}},
     ": env must be an object of environment variables and their values (strings), not "),
    ({"apis": ["rest", "soap"]}, ": apis must be a non-empty list of rest and graphql, not ['rest', 'soap']"),
    ({"name": "Toy"}, ": name must be lowercase letters and digits"),
    ({"variants": []}, ": variants must be a non-empty list of variants, the default first, not []"),
    ({"variants": [{"env": {}}]}, ": variant 1 lacks name; see docs/adding-a-framework.md"),
    ({"variants": [{"name": "default"}, {"name": "jit", "evn": {}}]},
     ": variant 'jit' has unknown field 'evn'"),
    ({"variants": [{"name": "default", "start": []}]},
     ": variant 'default''s start must be a non-empty list of strings"),
    ({"deviations": {"check": "bad-input"}},
     ": deviations must be a list of deviations, each with check, request, why and upstream"),
    ({"deviations": [{"check": "bad-input", "request": "x", "why": "y"}]}, ": deviations[0] lacks upstream"),
    ({"deviations": [{"check": "agree", "request": "x", "why": "y", "upstream": "none known"}]},
     ": deviations[0].check must be golden, sample, bad-input, headers, framing, statements or "
     "introspection, not 'agree'"),
    ({"deviations": [{"check": "bad-input", "request": "x", "why": "y", "upstream": "soon"}]},
     ": deviations[0].upstream must be a link (https://…) to the library's issue, or \"none known\", not 'soon'"),
])
def test_each_field_is_checked_against_the_schema_in_one_line(tmp_path, fields, message):
    with pytest.raises(UserError) as error:
        apps.read_framework(write_framework(tmp_path / "toy-api", **fields))
    assert message in str(error.value) and "\n" not in str(error.value)
    assert str(error.value).startswith(str(tmp_path / "toy-api" / "framework.json"))


def test_a_framework_json_that_is_not_an_object_is_one_line(tmp_path):
    folder = tmp_path / "toy-api"
    folder.mkdir()
    (folder / "framework.json").write_text("[1, 2]")
    with pytest.raises(UserError, match=r"framework.json must be a JSON object of framework.json's "
                                        r"fields, not \[1, 2\]"):
        apps.read_framework(folder / "framework.json")


def test_the_schema_is_valid_and_states_what_the_code_relies_on():
    import jsonschema
    jsonschema.Draft202012Validator.check_schema(apps.SCHEMA)
    assert apps.SCHEMA["properties"]["apis"]["items"]["enum"] == list(API_STYLES)
    assert apps.TYPES == ("realistic", "tuned")
    # Every field has its rule in words, for the one-line errors and editors alike.
    fields = {**apps.SCHEMA["properties"], **apps.SCHEMA["$defs"]["variant"]["properties"]}
    assert all(apps._resolve(node).get("errorMessage") for node in fields.values())


def test_each_framework_json_names_the_schema_for_editors_and_runs_never_see_it():
    for path in sorted(ROOT.glob("*/framework.json")):
        declared = json.loads(path.read_text())["$schema"]
        assert (path.parent / declared).resolve() == apps.SCHEMA_FILE, path
        assert "$schema" not in apps.read_framework(path), path
