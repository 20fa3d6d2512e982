"""The controller's side of remote engines that needs no engine: the names a run is given and how a
case's threads are divided."""
import re

import pytest

from benchlib.console import UserError
from benchlib.engines import Endpoint, parse_endpoints, split_threads


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
