"""What the report says of the cross-check's load generator, on four of its items in run
20261127-184743-quick (a default run on the 2-core machine, JMeter cross-checking wrk), and what
giving back the rate each generator took does to two generators' ratios (run 20261128-141811)."""
import io
from pathlib import Path

import pandas as pd
import pytest

from analysis.crosscheck import agree, checked, given_back_ratio
from analysis.load import Run
from analysis.paired import paired
from analysis.records import Manifest

# framework, api, case, iteration and the columns checked() reads, as that run's crosscheck.csv has them.
ITEMS = """framework,api,case,iteration,validity,validity_reasons,loadgen_cpu_ms_per_req,app_cpu_ms_per_req,\
db_cpu_ms_per_req,loadgen_share_pct
aspnet,graphql,1,1,bound,underloaded: 19.74 of 100 requests in flight on average: the connections waited in the \
load generator (bound from 50%);loadgen_share: the load generator held 64 % of a machine 97 % busy (bound from 40 % \
with 90 %),2.3533,0.9587,0.2364,64.2
express,graphql,1,1,bound,"loadgen_share: the load generator held 47 % of a machine 98 % busy (bound from 40 % with \
90 %);loadgen_cost: the load generator spent 1.10 ms of CPU per request on the server's cores, 0.94 of the server's \
1.17 (app and database; bound above 0.45)",1.1044,0.9299,0.2405,47.3
express,rest,18,1,invalid,steady_state: throughput's spread 0.30 beyond counting noise (needs ≤ 0.25);loadgen_share: \
the load generator held 46 % of a machine 98 % busy (bound from 40 % with 90 %),1.2376,0.8884,0.4888,46.2
express,rest,1,1,valid,,0.2856,0.2806,0.1441,39.0
"""


def items() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(ITEMS), keep_default_na=False, na_values=[""])


def test_a_load_generator_most_of_whose_items_are_bound_is_shown_with_its_figures():
    text = checked("JMeter", items(), "wrk")
    assert text.startswith("JMeter's items in the cross-check: 1 of 4 valid, 2 bound, 1 invalid by its own checks.")
    assert ("It spent 0.29-2.35 ms of CPU per request (median 1.17) where the servers spent 0.42-1.38 "
            "(median 1.18, app and database), and held 39-64 % of the machine (median 47 %).") in text
    assert ("Of its bound items, 2 held too large a share of a busy machine, 1 spent too large a share of the "
            "servers' CPU per request on their cores, and in 1 the connections waited in it") in text
    assert "its ratio cannot check wrk's here" not in text  # 2 of 4 bound is not most


def test_when_most_are_bound_it_says_the_ratio_cannot_check_the_runs_and_what_would():
    most = pd.concat([items(), items().iloc[:2]])
    text = checked("JMeter", most, "wrk")
    assert text.endswith("With most of its items bound, its ratio cannot check wrk's here: it needs enough cores the "
                         "servers do not share, as remote engines on other machines give it "
                         "(`./testbed run --engines`).")
    assert checked("wrk", most, "JMeter").endswith("it needs enough cores the servers do not share: "
                                                   "a machine with more of them.")


def test_nothing_is_said_when_every_item_was_valid():
    assert checked("JMeter", items().iloc[3:], "wrk") == ""


# GraphQL case 1's valid items in run 20261128-141811-quick, wrk's (summary.csv) and JMeter's
# (crosscheck.csv): ASP.NET Core filled both cores, so each generator's CPU came out of its rate;
# Express.js's one event loop left room.
GRAPHQL_1 = """framework,iteration,loadgen,throughput_rps,window_s,samples,cpu_mean_pct,db_cpu_mean_pct,\
loadgen_cpu_mean_pct,other_cpu_pct,app_cpu_ms_per_req,db_cpu_ms_per_req,loadgen_cpu_ms_per_req
aspnet,1,wrk,5720.333,3.0,17161,114.89,46.17,33.96,1.1,0.2008,0.0807,0.0594
express,1,wrk,2774.0,3.0,8322,102.68,27.99,20.66,0.0,0.3702,0.1009,0.0745
express,2,wrk,3188.0,3.0,9564,102.01,31.69,22.67,0.0,0.32,0.0994,0.0711
aspnet,2,wrk,5924.333,3.0,17773,113.72,45.19,33.2,0.0,0.192,0.0763,0.056
express,3,wrk,3812.333,3.0,11437,103.0,28.67,20.98,0.0,0.2702,0.0752,0.055
aspnet,3,wrk,5557.0,3.0,16671,115.09,45.68,33.71,1.8,0.2071,0.0822,0.0607
aspnet,1,jmeter,4783.478,3.002,14360,102.55,40.29,51.25,0.0,0.2144,0.0842,0.1071
express,1,jmeter,3235.921,3.001,9711,94.23,25.98,33.32,1.6,0.2912,0.0803,0.103
express,2,jmeter,3515.0,3.0,10545,98.62,27.65,30.98,0.0,0.2806,0.0787,0.0881
aspnet,2,jmeter,5144.667,3.0,15434,100.01,42.35,52.66,2.0,0.1944,0.0823,0.1024
"""


def run_on_two_cores(layout: dict) -> Run:
    return Run(Path("."), Manifest.from_dict({"schema_version": 4, "run_id": "20261128-141811-quick",
                                              "machine": {"cores": 2}, "layout": layout}), pd.DataFrame(), 0)


def test_two_generators_that_disagree_agree_once_each_gives_back_the_rate_it_took_on_full_cores():
    found = pd.read_csv(io.StringIO(GRAPHQL_1))
    wrk, jmeter = (found[found["loadgen"] == tool] for tool in ("wrk", "jmeter"))
    raw = {tool: paired(*(items[items["framework"] == arm].set_index("iteration")["throughput_rps"].sort_index()
                          for arm in ("aspnet", "express"))).ratio.value
           for tool, items in (("wrk", wrk), ("jmeter", jmeter))}
    assert raw["wrk"] == pytest.approx(1.77, abs=0.01) and raw["jmeter"] == pytest.approx(1.47, abs=0.01)
    assert not agree(raw["wrk"], raw["jmeter"])
    shared = run_on_two_cores({"requested": "auto", "applied": False})
    back = {tool: given_back_ratio(shared, items, "aspnet", "express")
            for tool, items in (("wrk", wrk), ("jmeter", jmeter))}
    assert back["wrk"] == pytest.approx(2.14, abs=0.01) and back["jmeter"] == pytest.approx(2.00, abs=0.01)
    assert agree(back["wrk"], back["jmeter"])
    # With a CPU set of its own the generator took nothing from the servers: nothing is given back.
    pinned = run_on_two_cores({"requested": "pin", "applied": True})
    assert given_back_ratio(pinned, jmeter, "aspnet", "express") == pytest.approx(raw["jmeter"])
