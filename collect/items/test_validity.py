"""Each check decides both ways, metric by metric: the throughput (valid, bound or invalid) and the
response times (valid, bound, unfair or invalid)."""
from collect.items import validity


def summary(**over):
    """A steady 100-connection window: 1000 req/s at 100 ms is Little's law exactly."""
    base = {"samples": 4000, "errors": 0, "throughput_rps": 1000.0, "mean_ms": 100.0, "window_s": 4.0,
            "completed_threads": 100, "in_flight_start": 100, "in_flight_end": 100, "spanning": 0,
            "in_flight_mean": 99.5, "bin_rps": [1000.0] * 10}
    return {**base, **over}


STATS = {"cpu_mean_pct": 80.0, "db_cpu_mean_pct": 30.0, "loadgen_cpu_mean_pct": 20.0, "other_cpu_pct": 2.0,
         "steal_pct": 0.0}


def check(s=None, stats=STATS, ceiling=5000.0, flags=(), local=True, loadgen="wrk", shares_cores=True):
    return validity.checks(s or summary(), stats, 100, 2, ceiling_rps=ceiling, loadgen_local=local,
                           flags=list(flags), loadgen=loadgen, shares_cores=shares_cores)


def test_a_steady_window_below_the_ceiling_is_valid_in_every_metric_with_its_cpu_per_request():
    c = check()
    assert (c["validity"], c["latency_validity"]) == ("valid", "valid")
    assert c["validity_reasons"] == c["latency_reasons"] == ""
    assert c["littles_ratio"] == 1.0 and c["ceiling_share"] == 0.2 and c["unserved"] == 0
    assert c["machine_cpu_pct"] == 65.0 and c["loadgen_share_pct"] == 10.0 and c["loadgen"] == "wrk"
    # 80 % of a core over 4 s is 3.2 s of CPU for 4000 requests; the generator's 20 %, 0.2 ms.
    assert c["app_cpu_ms_per_req"] == 0.8 and c["db_cpu_ms_per_req"] == 0.3 and c["loadgen_cpu_ms_per_req"] == 0.2


def test_connections_left_unserved_keep_the_throughput_and_make_the_response_times_unfair():
    c = check(summary(completed_threads=60, spanning=40, mean_ms=60.0))
    assert (c["validity"], c["latency_validity"]) == ("valid", "unfair")
    assert c["unserved"] == 40 and c["latency_reasons"].startswith("unserved: 40 of 100 connections")


def test_time_in_the_load_generator_is_recorded_and_fails_only_the_response_times():
    # The fastest server's short response times leave the generator's share of each loop largest:
    # 70 ms in the server and 30 ms outside it is Little's ratio 0.7.
    c = check(summary(mean_ms=70.0))
    assert c["validity"] == "valid" and c["loadgen_ms_per_req"] == 30.0
    assert c["latency_validity"] == "invalid" and c["latency_reasons"].startswith("littles_law: 0.7 (needs 0.90-1.10")


def test_a_trend_or_a_scatter_beyond_counting_noise_is_not_steady_state():
    rising = check(summary(bin_rps=[600.0 + 80 * i for i in range(10)]))
    assert rising["validity"] == "invalid" and rising["trend_pct"] == 75.0 and "changed +" in rising["validity_reasons"]
    assert rising["latency_validity"] == "invalid" and rising["latency_reasons"] == "throughput: invalid"
    scattered = check(summary(bin_rps=[500.0, 1500.0] * 5))
    assert scattered["validity"] == "invalid" and "spread" in scattered["validity_reasons"]
    noisy_but_flat = check(summary(bin_rps=[980.0, 1020.0] * 5))
    assert noisy_but_flat["validity"] == "valid"


def test_the_servers_own_wander_is_steady_state_and_a_drift_beyond_it_is_not():
    # A steady server's wander must pass and a real drift must not: two windows of ASP.NET Core's
    # GraphQL items in one default run, case 5 rising 24 % as steady servers wander (independent bins
    # said p 0.008) and case 14 falling 60 % (collect/README.md, "The steady-state check and the
    # servers' own wander").
    wanders = [1166.667, 1203.333, 1256.667, 1110.0, 1180.0, 1143.333, 1243.333, 1410.0, 1416.667, 1503.333]
    drifts = [2370.0, 2443.333, 1973.333, 2330.0, 2013.333, 1840.0, 1526.667, 1650.0, 1390.0, 1343.333]
    steady = check(summary(bin_rps=wanders))
    assert steady["validity"] == "valid" and steady["trend_pct"] == 24.41 and steady["trend_p"] > validity.TREND_ALPHA
    falling = check(summary(bin_rps=drifts))
    assert falling["validity"] == "invalid" and falling["trend_pct"] == -60.13
    assert "changed -60 %" in falling["validity_reasons"]


def test_near_its_ceiling_saturated_or_holding_the_connections_the_load_generator_bounds_every_metric():
    near = check(ceiling=1100.0)
    assert (near["validity"], near["latency_validity"]) == ("bound", "bound")
    assert near["validity_reasons"].startswith("loadgen_bound: 0.91")
    saturated = check(flags=["loadgen_saturated"])
    assert saturated["validity"] == "bound" and saturated["validity_reasons"].startswith("loadgen_saturated")
    held = check(summary(in_flight_mean=30.0, mean_ms=30.0), flags=["underloaded"], loadgen="jmeter")
    assert held["validity"] == "bound" and "30.0 of 100 requests in flight" in held["validity_reasons"]


def test_a_machine_busy_with_other_work_is_invalid_but_its_own_load_is_not():
    other = check(stats={**STATS, "other_cpu_pct": 40.0, "steal_pct": 25.0})
    assert other["validity"] == "invalid"
    assert other["validity_reasons"].startswith("machine: 40 % of a core busy with other work (25 % stolen")
    quiet = check(stats={**STATS, "other_cpu_pct": validity.OTHER_MAX_PCT - 1})
    assert quiet["validity"] == "valid"
    # Every core busy, a third of them the load generator's: the run's own work, not another's.
    full = check(stats={"cpu_mean_pct": 100.0, "db_cpu_mean_pct": 45.0, "loadgen_cpu_mean_pct": 50.0,
                        "other_cpu_pct": 3.0, "steal_pct": 0.0})
    assert full["validity"] == "valid" and full["machine_cpu_pct"] == 97.5


def test_a_load_generator_holding_much_of_a_full_machine_bounds_the_app_it_denied_cpu():
    held = check(stats={"cpu_mean_pct": 80.0, "db_cpu_mean_pct": 20.0, "loadgen_cpu_mean_pct": 90.0,
                        "other_cpu_pct": 0.0, "steal_pct": 0.0}, loadgen="jmeter")
    assert held["validity"] == "bound" \
        and held["validity_reasons"].startswith("loadgen_share: the load generator held 45 %")
    # The same share from a CPU set of its own (`--pin`) took nothing from the app.
    pinned = check(stats={"cpu_mean_pct": 80.0, "db_cpu_mean_pct": 20.0, "loadgen_cpu_mean_pct": 90.0,
                          "other_cpu_pct": 0.0, "steal_pct": 0.0}, loadgen="jmeter", shares_cores=False)
    assert pinned["validity"] == "valid"
    # A machine with room to spare, and a generator far cheaper per request than the server.
    spare = check(stats={"cpu_mean_pct": 90.0, "db_cpu_mean_pct": 30.0, "loadgen_cpu_mean_pct": 40.0,
                         "other_cpu_pct": 0.0, "steal_pct": 0.0}, loadgen="jmeter")
    assert spare["validity"] == "valid"


def test_a_load_generator_costing_near_the_servers_cpu_per_request_bounds_it_even_with_room_on_the_machine():
    # A generator that costs most of the server's CPU per request bounds it even on a machine with
    # room: JMeter's cross-check item of Express.js's GraphQL case 18, with the machine 85 % busy,
    # measured 0.82 of wrk's throughput at 0.70 of the server's CPU per request (collect/README.md,
    # Validity, "the load generator's cost beside the server").
    jmeter = {"cpu_mean_pct": 83.35, "db_cpu_mean_pct": 16.33, "loadgen_cpu_mean_pct": 69.7,
              "other_cpu_pct": 1.0, "steal_pct": 0.0}
    window = summary(samples=2101, throughput_rps=700.3, window_s=3.0)
    costly = check(window, stats=jmeter, loadgen="jmeter")
    assert costly["validity"] == "bound" and costly["machine_cpu_pct"] < validity.MACHINE_BUSY_PCT
    assert costly["validity_reasons"].startswith(
        "loadgen_cost: the load generator spent 1.00 ms of CPU per request on the server's cores, 0.70 of the "
        "server's 1.42 (app and database; bound above 0.45)")
    # The same cost from a CPU set of its own took nothing from the server, nor from remote engines.
    assert check(window, stats=jmeter, shares_cores=False)["validity"] == "valid"
    assert check(window, stats=jmeter, local=False)["validity"] == "valid"
    # Just under the threshold: still the server's throughput.
    edge = {**jmeter, "loadgen_cpu_mean_pct": (validity.LOADGEN_COST - 0.01) * (83.35 + 16.33)}
    assert check(window, stats=edge)["validity"] == "valid"


def test_errors_lost_connections_or_no_sample_are_invalid_whatever_else():
    assert check(summary(errors=3))["validity_reasons"].startswith("errors: 3 of 4000")
    assert check(flags=["socket_errors"])["validity_reasons"].startswith("socket_errors")
    empty = check({"samples": 0, "errors": 0, "window_s": 4.0, "completed_threads": 0})
    assert empty["validity"] == "invalid" and empty["validity_reasons"].startswith("no_samples")
