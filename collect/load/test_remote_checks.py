"""The checks collect/load/remote.py makes of an engine before any load, on the facts it reports: which
releases may not differ and how far off its clock is."""
from collect.load.remote import clock_off, mismatch

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
