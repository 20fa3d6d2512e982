"""Real short JMeter runs: every (API, rows, joins) combination against every implementation, a fake
server that answers right, one that breaks the contract, and a closed port. All of it is one JMeter
run (one thread group per target and combination) because each JVM start costs seconds.

Each thread sends LOOPS requests and ends, so what the tests assert is a count (every request sent,
answered and judged as expected), never what a timed window caught: on a busy 2-core machine a
window of 3 s, then of 5 s, held no completed request of a one-thread group."""
import subprocess

import pandas as pd
import pytest

import generate
from benchlib.apps import frameworks, served_apis
from benchlib.cases import API_STYLES as APIS, cases
from benchlib.jmeter import PROPERTIES
from benchlib.net import free_port
from benchlib.paths import IDS

COMBOS = list(cases().values())[:6]  # cases 1-6: each (rows, joins) combination once
LOOPS = 3  # requests per thread


def counted_group(api, case, threads, port, name):
    """The case's thread group as the plans make it (samplers, assertions, the start barrier), its
    threads sending LOOPS requests each and then ending, with no clock to stop them."""
    group, children = generate.case_group(api, case, threads=threads, port=port, name=name)
    group.find("elementProp/stringProp[@name='LoopController.loops']").text = str(LOOPS)
    return group, children


@pytest.fixture(scope="module")
def outcome(tmp_path_factory, launcher, implementations, fake_servers):
    """Per thread group: the requests its threads were to send, the samples JMeter recorded, how
    many failed, and the failure messages."""
    out = tmp_path_factory.mktemp("runs")
    closed = free_port()
    served = serving()
    targets = [(name, port, 2, served[name]) for name, port in implementations.items()]
    targets += [("fake-right", fake_servers["right"], 1, APIS),
                ("fake-wrong", fake_servers["wrong"], 1, APIS), ("closed", closed, 1, APIS)]
    planned = {f"{target} {api} case {case['case']}": (api, case, threads, port)
               for target, port, threads, apis in targets for api in apis for case in COMBOS}
    groups = [counted_group(api, case, threads, port, name) for name, (api, case, threads, port) in planned.items()]
    (out / "all.jmx").write_text(generate.plan("every combination against every target",
                                               generate.timing(str(IDS)), groups, clock=False))
    run = subprocess.run([launcher, "-n", "-t", str(out / "all.jmx"), "-q", str(PROPERTIES),
                          "-l", str(out / "all.jtl"), "-j", str(out / "jmeter.log"), "-Jrampup=0"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    jtl = pd.read_csv(out / "all.jtl", dtype=str, keep_default_na=False)
    jtl["group"] = jtl["threadName"].str.rsplit(" ", n=1).str[0]
    counts = {}
    for name, (_, _, threads, _) in planned.items():
        rows = jtl[jtl["group"] == name]
        counts[name] = {"requests": threads * LOOPS, "samples": len(rows),
                        "errors": int((rows["success"] != "true").sum()),
                        "messages": set(rows["failureMessage"]) | set(rows["responseMessage"])}
    return counts


def serving() -> dict:
    """{implementation: the API styles its manifest says it serves}."""
    return {m["name"]: served_apis(m) for m in frameworks()}


def group_names(target):
    return [f"{target} {api} case {case['case']}" for api in APIS for case in COMBOS]


def test_implementations_were_found(implementations):
    assert implementations, "no implementation has a framework.json yet"


@pytest.mark.parametrize("combo", [f"{api} case {c['case']}" for api in APIS for c in COMBOS])
def test_each_implementation_answers_every_combination_without_errors(outcome, implementations, combo):
    served = serving()
    for name in implementations:
        if combo.split()[0] not in served[name]:
            continue
        got = outcome[f"{name} {combo}"]
        assert got["samples"] == got["requests"] and got["errors"] == 0, f"{name} {combo}: {got}"


def test_a_server_that_follows_the_contract_passes(outcome):
    for group in group_names("fake-right"):
        got = outcome[group]
        assert got["samples"] == got["requests"] and got["errors"] == 0, (group, got)


# What the assertion must say about each deliberate flaw of the fake server (see conftest.answer).
FLAWS = {
    "rest case 1": "Value in json path '$.id' expected to be", "rest case 2": "expected to be '[1,2,3,",
    "rest case 3": "expected to be '[1,2,3,", "rest case 4": "Missing property in path $['user']",
    "rest case 5": "expected to match regexp", "rest case 6": "expected to match regexp",
    "graphql case 1": "with property ['id'] in path $['data']['commentById'] but found 'null'",
    "graphql case 2": "with property ['data'] in path $", "graphql case 3": "with property ['data'] in path $",
    "graphql case 4": "status is not 200", "graphql case 5": "expected to match regexp",
    "graphql case 6": "expected to match regexp",
}


def test_answers_that_break_the_contract_are_errors(outcome):
    for combo, message in FLAWS.items():
        got = outcome[f"fake-wrong {combo}"]
        assert got["samples"] == got["requests"] and got["errors"] == got["samples"], (combo, got)
        assert any(message in m for m in got["messages"]), (combo, got["messages"])


def test_a_closed_port_gives_errors(outcome):
    for group in group_names("closed"):
        got = outcome[group]
        assert got["samples"] == got["requests"] and got["errors"] == got["samples"], (group, got)
        assert any("Connection refused" in m or "ConnectException" in m for m in got["messages"]), got
