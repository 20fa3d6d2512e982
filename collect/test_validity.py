"""Each check decides both ways, and the item's verdict follows: valid, bound or invalid."""
from collect import validity


def summary(**over):
    """A steady 100-thread window: 1000 req/s at 100 ms is Little's law exactly."""
    base = {"samples": 4000, "errors": 0, "throughput_rps": 1000.0, "mean_ms": 100.0, "window_s": 4.0,
            "completed_threads": 100, "in_flight_start": 100, "in_flight_end": 100, "spanning": 0,
            "bin_rps": [1000.0] * 10}
    return {**base, **over}


STATS = {"cpu_mean_pct": 80.0, "db_cpu_mean_pct": 30.0, "loadgen_cpu_mean_pct": 40.0}


def check(s=None, stats=STATS, ceiling=5000.0, flags=(), local=True):
    return validity.checks(s or summary(), stats, 100, 2, ceiling_rps=ceiling, loadgen_local=local,
                           flags=list(flags))


def test_a_steady_window_below_the_ceiling_is_valid_and_has_its_cpu_per_request():
    c = check()
    assert c["validity"] == "valid" and c["validity_reasons"] == ""
    assert c["littles_ratio"] == 1.0 and c["ceiling_share"] == 0.2
    assert c["machine_cpu_pct"] == 75.0 and c["loadgen_share_pct"] == 20.0
    # 80 % of a core over 4 s is 3.2 s of CPU for 4000 requests.
    assert c["app_cpu_ms_per_req"] == 0.8 and c["db_cpu_ms_per_req"] == 0.3


def test_threads_that_completed_nothing_in_the_window_make_it_invalid():
    c = check(summary(completed_threads=60, spanning=40, mean_ms=60.0))
    assert c["validity"] == "invalid"
    assert "threads: 60 of 100" in c["validity_reasons"] and "littles_law: 0.6" in c["validity_reasons"]


def test_a_trend_or_a_scatter_beyond_counting_noise_is_not_steady_state():
    rising = check(summary(bin_rps=[600.0 + 80 * i for i in range(10)]))
    assert rising["validity"] == "invalid" and rising["trend_pct"] == 75.0 and "changed +" in rising["validity_reasons"]
    scattered = check(summary(bin_rps=[500.0, 1500.0] * 5))
    assert scattered["validity"] == "invalid" and "spread" in scattered["validity_reasons"]
    noisy_but_flat = check(summary(bin_rps=[980.0, 1020.0] * 5))
    assert noisy_but_flat["validity"] == "valid"


def test_near_the_ceiling_the_item_is_bound_and_its_littles_law_shortfall_is_the_load_generator_s():
    c = check(summary(mean_ms=70.0), ceiling=1100.0)
    assert c["validity"] == "bound"
    assert c["validity_reasons"].startswith("loadgen_bound: 0.91") and "in the load generator" in c["validity_reasons"]
    alone = check(summary(mean_ms=70.0))
    assert alone["validity"] == "invalid" and "littles_law: 0.7 (needs" in alone["validity_reasons"]


def test_a_full_machine_with_the_load_generator_holding_a_third_of_it_is_bound():
    busy = {"cpu_mean_pct": 90.0, "db_cpu_mean_pct": 30.0, "loadgen_cpu_mean_pct": 65.0}
    assert check(stats=busy)["validity"] == "bound"
    assert check(stats=busy, local=False)["validity"] == "valid"  # remote engines: not this machine's CPU


def test_errors_or_no_sample_are_invalid_whatever_else():
    assert check(summary(errors=3))["validity_reasons"].startswith("errors: 3 of 4000")
    empty = check({"samples": 0, "errors": 0, "window_s": 4.0, "completed_threads": 0})
    assert empty["validity"] == "invalid" and empty["validity_reasons"].startswith("no_samples")
