"""The controller's side of remote engines that needs no engine: the names a run is given, how a
case's threads are divided, and which versions may not differ."""
import re

import pytest

from benchlib.console import UserError
from benchlib.engines import Endpoint, parse_endpoints, split_threads
from collect.remote import clock_off, mismatch


def test_engines_are_host_and_port_with_jmeters_default_port():
    assert parse_endpoints("10.0.0.2, lab-b:1199") == [Endpoint("10.0.0.2", 1099), Endpoint("lab-b", 1199)]


@pytest.mark.parametrize("text, says", [
    ("10.0.0.2:http", "--engines takes HOST[:PORT]"),
    ("10.0.0.2:70000", "--engines takes HOST[:PORT]"),
    (":1099", "--engines takes HOST[:PORT]"),
    (" , ", "--engines names no engine"),
    ("a:1099,a", "an engine is named twice"),
])
def test_a_bad_engine_list_is_one_line(text, says):
    with pytest.raises(UserError, match=re.escape(says)):
        parse_endpoints(text)


@pytest.mark.parametrize("threads, engines, shares", [
    (500, 3, [167, 167, 166]), (100, 2, [50, 50]), (10, 4, [3, 3, 2, 2]), (1, 2, [1, 0])])
def test_threads_are_divided_with_the_remainder_spread_and_the_total_exact(threads, engines, shares):
    assert split_threads(threads, engines) == shares and sum(shares) == threads


FACTS = {"endpoint": "10.0.0.2:1099", "jmeter": "5.6.3", "java": "17.0.15", "controller_java": "17.0.13"}


def test_the_same_jmeter_and_java_release_pass():
    assert mismatch(FACTS, "5.6.3") is None


def test_another_jmeter_or_java_release_is_refused_with_what_to_install():
    assert mismatch({**FACTS, "jmeter": "5.5"}, "5.6.3") == (
        "engine 10.0.0.2:1099 runs JMeter 5.5, this machine 5.6.3; install JMeter 5.6.3 there "
        "(JMETER_HOME) and restart the engine")
    assert "runs Java 21.0.4, this machine 17.0.13" in mismatch({**FACTS, "java": "21.0.4"}, "5.6.3")


def test_an_engine_clock_that_put_the_probe_outside_its_run_is_off_by_at_least_that_much():
    assert clock_off(at=105.0, before=100.0, after=110.0) is None
    assert clock_off(at=110.4, before=100.0, after=110.0) is None  # within the tolerance
    assert clock_off(at=112.0, before=100.0, after=110.0) == 2.0
    assert clock_off(at=97.0, before=100.0, after=110.0) == 3.0
