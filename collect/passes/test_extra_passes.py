"""Whether a run measures the cross-check at all, from its reference work's figures: the other load
generator's CPU per request against the servers' at the fastest arm's REST case 1."""
from collect.passes.extra_passes import hopeless


def reference(jmeter_ms: float | None) -> dict:
    """reference.json's figures of a default run on the 2-core machine (every core shared; collect/README.md,
    "After the rounds"), with JMeter's CPU per request set to `jmeter_ms` (None: JMeter not measured)."""
    loadgens = {"wrk": {"at": "aspnet REST case 1, 100 connections", "loadgen_cpu_ms_per_req": 0.1172}}
    if jmeter_ms is not None:
        loadgens["jmeter"] = {"at": "aspnet REST case 1, 100 connections", "loadgen_cpu_ms_per_req": jmeter_ms}
    return {"apps": {"aspnet": {"rest_case_1": {"throughput_rps": 2816.0, "app_cpu_ms_per_req": 0.4225,
                                                "db_cpu_ms_per_req": 0.1562}},
                     "express": {"rest_case_1": {"throughput_rps": 2452.5, "app_cpu_ms_per_req": 0.3893,
                                                 "db_cpu_ms_per_req": 0.1452}}},
            "loadgens": loadgens}


def test_a_generator_dearer_than_the_servers_is_not_run_and_the_run_says_why():
    why = hopeless(reference(1.2839), "jmeter")
    assert why.startswith("jmeter spent 1.28 ms of CPU per request in the reference work "
                          "(aspnet REST case 1, 100 connections), 2.2 times the servers' 0.58 ms")


def test_a_cheap_generator_or_one_never_measured_is_run():
    assert hopeless(reference(0.3), "jmeter") == ""
    assert hopeless(reference(None), "jmeter") == ""
    assert hopeless(None, "jmeter") == ""
    assert hopeless(reference(1.2839), "wrk") == ""
