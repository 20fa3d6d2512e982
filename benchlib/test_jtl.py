"""Samples count by completion inside the clock's window; the edges are counted apart."""
import pytest

from benchlib.jtl import BINS, summarize, write_measured

HEADER = "timeStamp,elapsed,label,responseCode,success,threadName\n"


def jtl_of(tmp_path, rows):
    path = tmp_path / "results.jtl"
    path.write_text(HEADER + "".join(f"{start},{elapsed},{label}GET /rest/comment/{{id}},200,{ok},t-{thread}\n"
                                     for start, elapsed, label, ok, thread in rows))
    return path


def test_a_request_started_in_the_warm_up_counts_where_it_completes(tmp_path):
    path = jtl_of(tmp_path, [
        (500, 1000, "warmup ", "true", 1),   # completes at 1500: inside, counted (in flight at the start)
        (900, 50, "warmup ", "true", 2),     # completes at 950: before the window, left out
        (1200, 300, "", "true", 2),          # inside
        (1800, 400, "", "true", 2),          # completes at 2200: after the window, in flight at the end
        (200, 2500, "warmup ", "true", 3),   # spans the whole window
    ])
    s = summarize(path, (1000, 2000))
    assert s["samples"] == 2 and s["throughput_rps"] == 2.0 and s["mean_ms"] == 650
    assert (s["in_flight_start"], s["in_flight_end"], s["spanning"]) == (1, 2, 1)
    assert s["completed_threads"] == 2 and s["window_s"] == 1.0
    # Requests in flight, averaged over the window: 0.5 + 0.3 + 0.2 + 1 s of requests in 1 s.
    assert s["in_flight_mean"] == pytest.approx(2.0)


def test_the_samples_that_count_are_written_apart_for_jmeter_s_dashboard_without_their_warm_up_label(tmp_path):
    path = jtl_of(tmp_path, [(500, 1000, "warmup ", "true", 1), (900, 50, "warmup ", "true", 2),
                             (1200, 300, "", "false", 2)])
    assert write_measured(path, tmp_path / "drawn.jtl", (1000, 2000)) == 2
    assert (tmp_path / "drawn.jtl").read_text() == HEADER + ("500,1000,GET /rest/comment/{id},200,true,t-1\n"
                                                             "1200,300,GET /rest/comment/{id},200,false,t-2\n")
    assert summarize(tmp_path / "drawn.jtl")["samples"] == summarize(path, (1000, 2000))["samples"]


def test_the_window_s_bins_carry_its_throughput_over_time(tmp_path):
    rows = [(1000 + 100 * i, 10, "", "true", i % 4) for i in range(100)]  # one completion per 100 ms
    s = summarize(jtl_of(tmp_path, rows), (1000, 11000))
    assert len(s["bin_rps"]) == BINS and s["bin_rps"] == [10.0] * BINS


def test_failed_requests_count_as_errors_and_an_empty_window_has_no_statistics(tmp_path):
    path = jtl_of(tmp_path, [(1100, 10, "", "false", 1), (1200, 10, "", "true", 1)])
    assert summarize(path, (1000, 2000))["errors"] == 1
    empty = summarize(path, (5000, 6000))
    assert empty["samples"] == 0 and empty["mean_ms"] is None and empty["completed_threads"] == 0


def test_analysis_reads_an_item_s_jtl_through_the_window_its_run_json_records(tmp_path):
    from benchlib.results import load_jtl
    path = jtl_of(tmp_path, [(500, 1000, "warmup ", "true", 1), (1200, 300, "", "true", 2), (1800, 400, "", "true", 2)])
    assert list(load_jtl(path)["elapsed"]) == [300, 400]  # no run.json: by label, as before schema 3
    (tmp_path / "run.json").write_text('{"window": {"measured_ms": [1000, 2000]}}')
    assert list(load_jtl(path)["elapsed"]) == [1000, 300]
