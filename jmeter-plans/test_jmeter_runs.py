"""Real short JMeter runs: every (API, rows, joins) combination against every implementation, a fake
server that answers right, one that breaks the contract, and a closed port. All of it is one JMeter
run (one thread group per target and combination) because each JVM start costs seconds."""
import subprocess

import pandas as pd
import pytest

import generate
from benchlib.apps import frameworks, served_apis
from benchlib.cases import API_STYLES as APIS, cases
from benchlib.jmeter import PROPERTIES
from benchlib.jtl import measured
from benchlib.net import free_port
from benchlib.paths import IDS

COMBOS = list(cases().values())[:6]  # cases 1-6: each (rows, joins) combination once


@pytest.fixture(scope="module")
def outcome(tmp_path_factory, launcher, implementations, fake_servers):
    """Per thread group: measured samples, errors, failure messages."""
    out = tmp_path_factory.mktemp("runs")
    closed = free_port()
    served = serving()
    targets = [(name, port, 2, served[name]) for name, port in implementations.items()]
    targets += [("fake-right", fake_servers["right"], 1, APIS),
                ("fake-wrong", fake_servers["wrong"], 1, APIS), ("closed", closed, 1, APIS)]
    groups = [generate.case_group(api, case, threads=threads, port=port, name=f"{target} {api} case {case['case']}")
              for target, port, threads, apis in targets for api in apis for case in COMBOS]
    (out / "all.jmx").write_text(generate.plan("every combination against every target",
                                               generate.timing(str(IDS)), groups))
    run = subprocess.run([launcher, "-n", "-t", str(out / "all.jmx"), "-q", str(PROPERTIES),
                          "-l", str(out / "all.jtl"), "-j", str(out / "jmeter.log"),
                          # A 5 s window: a group has one thread or two, and on a busy 2-core machine a
                          # 3 s window once held no sample of one (its request in flight throughout).
                          "-Jrampup=0", "-Jwarmup=2", "-Jduration=5"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    jtl = pd.read_csv(out / "all.jtl", dtype=str, keep_default_na=False)
    jtl = measured(jtl)
    jtl["group"] = jtl["threadName"].str.rsplit(" ", n=1).str[0]
    return {group: {"samples": len(rows), "errors": int((rows["success"] != "true").sum()),
                    "messages": set(rows["failureMessage"]) | set(rows["responseMessage"])}
            for group, rows in jtl.groupby("group")}


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
        got = outcome.get(f"{name} {combo}")
        assert got and got["samples"] > 0, f"{name} {combo}: no measured samples"
        assert got["errors"] == 0, f"{name} {combo}: {got}"


def test_a_server_that_follows_the_contract_passes(outcome):
    for group in group_names("fake-right"):
        got = outcome.get(group)
        assert got and got["samples"] > 0 and got["errors"] == 0, (group, got)


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
        got = outcome.get(f"fake-wrong {combo}")
        assert got and got["samples"] > 0 and got["errors"] == got["samples"], (combo, got)
        assert any(message in m for m in got["messages"]), (combo, got["messages"])


def test_a_closed_port_gives_errors(outcome):
    for group in group_names("closed"):
        got = outcome.get(group)
        assert got and got["samples"] > 0 and got["errors"] == got["samples"], (group, got)
        assert any("Connection refused" in m or "ConnectException" in m for m in got["messages"]), got
