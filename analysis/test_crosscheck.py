"""What the report says of the cross-check's load generator, on four of its items in run
20261127-184743-quick (a default run on the 2-core machine, JMeter cross-checking wrk)."""
import io

import pandas as pd

from analysis.crosscheck import checked

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
