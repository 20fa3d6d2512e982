"""Latency at a given rate, on the latency fixture: a real `./testbed run --profile latency` cut as
analysis/README.md ("Fixtures") says. Every number is recomputed here from the run's own files:
latency.csv and the JTL of each measurement."""
import csv
import math
import re
import shutil

import pandas as pd
import pytest
from scipy import stats

from analysis import latency, slo
from analysis.conftest import FIXTURE_RESULTS, HAND_RUN
from analysis.load import ResultFileError, load_run
from analysis.report import write_report

LATENCY_RUN = "20261125-110616-latency"


@pytest.fixture(scope="module")
def report(fixture_report):
    return fixture_report(LATENCY_RUN)


def rows_of(run: str) -> list[dict]:
    with open(FIXTURE_RESULTS / run / "latency.csv", newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, rows[0].keys(), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def latencies_by_hand(run: str, row: dict) -> list[int]:
    """completion - intended send time, ms, of every sample of one measurement's JTL."""
    path = (FIXTURE_RESULTS / run / "latency" / row["framework"] / row["api"] / f"case-{int(row['case']):02d}"
            / f"step-{row['step']}" / f"round-{int(row['round']):02d}" / "results.jtl")
    with open(path, newline="") as f:
        return [float(s["timeStamp"]) + float(s["elapsed"]) - float(s["intended_ms"]) for s in csv.DictReader(f)]


def percentile_by_hand(values: list[float], q: float) -> float:
    """The (n+1)q rank, clipped to the samples, interpolated between its two neighbours."""
    ordered = sorted(values)
    rank = min(max((len(ordered) + 1) * q, 1), len(ordered))
    below = math.floor(rank)
    upper = ordered[min(below, len(ordered) - 1)]
    return ordered[below - 1] + (rank - below) * (upper - ordered[below - 1])


def table(report) -> pd.DataFrame:
    return pd.read_csv(report / "tables" / "latency.csv")


def cells(run: str) -> dict:
    """(api, case, step, framework) -> the rows of latency.csv of that cell, every round."""
    out = {}
    for row in rows_of(run):
        out.setdefault((row["api"], int(row["case"]), int(row["step"]), row["framework"]), []).append(row)
    return out


def test_percentiles_are_of_the_usable_rounds_pooled(report):
    found = table(report).set_index(["api", "case", "step", "framework"])
    checked = 0
    for key, rows in cells(LATENCY_RUN).items():
        usable = [r for r in rows if r["validity"] == "valid"]
        assert found.loc[key, "rounds"] == len(usable)
        assert found.loc[key, "left_out"] == len(rows) - len(usable)
        pooled = [v for r in usable for v in latencies_by_hand(LATENCY_RUN, r)]
        assert found.loc[key, "samples"] == len(pooled)
        if not pooled:
            assert pd.isna(found.loc[key, "p99_ms"]) and found.loc[key, "rounds"] == 0
            continue
        for column, q in (("p50_ms", .5), ("p90_ms", .9), ("p95_ms", .95), ("p99_ms", .99), ("p999_ms", .999)):
            assert found.loc[key, column] == pytest.approx(percentile_by_hand(pooled, q)), (key, column)
        # What the table sums (and averages) over the usable rounds.
        for column in ("scheduled", "late", "dropped"):
            assert found.loc[key, column] == sum(int(r[column]) for r in usable), (key, column)
        assert found.loc[key, "achieved_rps"] == pytest.approx(sum(float(r["achieved_rps"]) for r in usable)
                                                               / len(usable))
        checked += 1
    assert checked == sum(any(r["validity"] == "valid" for r in rows) for rows in cells(LATENCY_RUN).values()) > 0


def test_every_interval_holds_its_estimate(report):
    found = table(report)
    measured = found[found["samples"] > 0]
    for p in ("p50", "p99"):
        assert (measured[f"{p}_low"] <= measured[f"{p}_ms"]).all() \
            and (measured[f"{p}_ms"] <= measured[f"{p}_high"]).all()
    ratios = found[found["ratio_p99"].notna()]
    assert not ratios.empty
    for p in ("p50", "p99"):
        assert (ratios[f"ratio_{p}_low"] <= ratios[f"ratio_{p}"]).all(), p
        assert (ratios[f"ratio_{p}"] <= ratios[f"ratio_{p}_high"]).all(), p


def test_the_ratio_is_the_reference_over_the_other(report):
    found = table(report)
    run = load_run(FIXTURE_RESULTS / LATENCY_RUN)
    assert set(found["reference"]) == {"aspnet"} == {latency.reference_of(run)}
    by = found.set_index(["api", "case", "step", "framework"])
    row = found[found["ratio_p99"].notna()].iloc[0]
    key = (row["api"], row["case"], row["step"])
    assert row["ratio_p99"] == pytest.approx(by.loc[(*key, "aspnet"), "p99_ms"]
                                             / by.loc[(*key, row["framework"]), "p99_ms"])


def test_the_bootstrap_is_seeded(module_results, report):
    again = latency.table(load_run(module_results / LATENCY_RUN))
    assert again.to_csv(index=False) == (report / "tables" / "latency.csv").read_text()


def slo_by_hand(found: pd.DataFrame, column: str, ms: float, q: float) -> dict:
    """(api, case, framework) -> (held up to, first not held): walk the rates upwards."""
    out = {}
    for (api, case, framework), group in found.groupby(["api", "case", "framework"]):
        held, failed = None, None
        for row in group.sort_values("step").itertuples():
            bound, upper = getattr(row, f"{column}_bound"), getattr(row, f"{column}_upper")
            # The valid rounds' bound decides; without one, the valid and bound rounds' upper bound
            # may hold; either only if its rounds sent all but 1 - q of their arrivals.
            if bound <= ms and row.dropped <= (1 - q) * row.scheduled or \
                    pd.isna(bound) and upper <= ms and row.upper_dropped <= (1 - q) * row.upper_scheduled:
                held = row.target_rps
            else:
                failed = row.target_rps
                break
        out[(api, case, framework)] = (held, failed)
    return out


@pytest.mark.parametrize("objective", [slo.DEFAULT, "p50:5", "p99.9:300"])
def test_the_objective_held_up_to_the_first_rate_it_did_not(tmp_path, fixture_report, objective):
    goal = slo.parse(objective)
    if goal == slo.DEFAULT_OBJECTIVE:  # the report written without --slo
        report = fixture_report(LATENCY_RUN)
    else:
        shutil.copytree(FIXTURE_RESULTS / LATENCY_RUN, tmp_path / LATENCY_RUN)
        report = write_report(tmp_path / LATENCY_RUN, objective=goal)
    found, held = table(report), pd.read_csv(report / "tables" / "latency_slo.csv")
    expected = slo_by_hand(found, goal.column, goal.ms, goal.quantile)
    assert len(held) == len(expected)
    for row in held.itertuples():
        want = expected[(row.api, row.case, row.framework)]
        got = tuple(None if pd.isna(v) else v for v in (row.held_up_to_rps, row.first_not_held_rps))
        assert got == want, (row.api, row.case, row.framework)
        assert row.objective == str(goal)


def test_the_objective_walk_on_crafted_rates():
    """Held while the interval's top is at or below the objective; why the walk stopped."""
    def rates(*highs, uppers=None):
        """Each rate's upper bound over its valid rounds (the interval's top) and, `uppers`, over its
        valid and bound ones, from 1,000 samples (enough for p99)."""
        return pd.DataFrame([{"api": "rest", "case": 1, "requests": 50, "rows": 1, "joins": 0, "framework": "f",
                              "step": i + 1, "target_rps": 100.0 * (i + 1), "p99_ms": h and h - 5,
                              "p99_low": h and h - 10, "p99_high": h, "p99_bound": h, "p99_upper": (uppers or highs)[i],
                              "samples": 1000 if h else 0, "scheduled": 1000, "dropped": 0,
                              "upper_samples": 1000 if (uppers or highs)[i] else 0, "upper_scheduled": 1000,
                              "upper_dropped": 0}
                             for i, h in enumerate(highs)])
    goal = slo.parse("p99:100")
    first = latency.slo(rates(50, 100, 150), goal).iloc[0]
    assert (first.held_up_to_rps, first.first_not_held_rps, first.first_not_held) == (200, 300, latency.EXCEEDED)
    across = latency.slo(rates(50, 105, 20), goal).iloc[0]  # the third rate cannot undo the second
    assert (across.held_up_to_rps, across.first_not_held_rps, across.first_not_held) == (100, 200, latency.UNDECIDED)
    gap = latency.slo(rates(50, None, 20), goal).iloc[0]
    assert (gap.first_not_held_rps, gap.first_not_held) == (200, latency.UNMEASURED)
    never = latency.slo(rates(120), goal).iloc[0]
    assert pd.isna(never.held_up_to_rps) and never.first_not_held_rps == 100
    always = latency.slo(rates(10, 20), goal).iloc[0]
    assert always.held_up_to_rps == 200 and pd.isna(always.first_not_held_rps) and not always.held_as_upper_bound
    # No valid round at 200 req/s: its bound rounds, JMeter's lag and all, held under 100 ms.
    bounded = latency.slo(rates(50, None, 20, uppers=[50, 90, 20]), goal).iloc[0]
    assert bounded.held_up_to_rps == 300 and bounded.held_as_upper_bound
    # ... or did not, and then nothing says whether the server or JMeter kept it over.
    lagged = latency.slo(rates(50, None, 20, uppers=[50, 130, 20]), goal).iloc[0]
    assert (lagged.held_up_to_rps, lagged.first_not_held_rps, lagged.first_not_held) == (100, 200, latency.LOADGEN)
    # Under the objective, but 2 % of the second rate's arrivals were never sent: its p99 may be one of them.
    sent_short = rates(50, 90, 20).assign(dropped=[0, 20, 0])
    dropped = latency.slo(sent_short, goal).iloc[0]
    assert (dropped.held_up_to_rps, dropped.first_not_held_rps, dropped.first_not_held) == (100, 200, latency.DROPPED)
    assert latency.slo(sent_short.assign(dropped=[0, 10, 0]), goal).iloc[0].held_up_to_rps == 300  # 1 %: not more
    # Only bound rounds at 200 req/s, under the objective, but they never sent 4 % of their arrivals.
    unsent = rates(50, None, 20, uppers=[50, 90, 20]).assign(upper_dropped=[0, 40, 0])
    assert tuple(latency.slo(unsent, goal).iloc[0][["held_up_to_rps", "first_not_held"]]) == (100, latency.DROPPED)


def test_a_tail_percentile_is_judged_only_where_the_sample_can_bound_it():
    # 375 samples cannot bound p99.9 from above: their largest lies under the true p99.9 with
    # probability 0.999^375 = 0.69. From 3,688 on it does so at most 2.5 % of the time.
    assert 0.999 ** 3687 > 0.025 >= 0.999 ** 3688 and latency.needed(0.999) == 3688
    assert 0.99 ** 367 > 0.025 >= 0.99 ** 368 and latency.needed(0.99) == 368
    few = pd.DataFrame([{"api": "rest", "case": 1, "requests": 50, "rows": 1, "joins": 0, "framework": "f",
                         "step": 1, "target_rps": 100.0, "p999_ms": 60, "p999_low": 40, "p999_high": 61,
                         "p999_bound": None, "p999_upper": None, "samples": 375, "scheduled": 375, "dropped": 0,
                         "upper_samples": 375, "upper_scheduled": 375, "upper_dropped": 0}])
    found = latency.slo(few, slo.parse("p99.9:100")).iloc[0]
    assert pd.isna(found.held_up_to_rps) and found.first_not_held == "too few samples for p99.9: needs 3,688 arrivals"


def test_a_bound_round_is_left_out_and_counted(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(FIXTURE_RESULTS / LATENCY_RUN, results / LATENCY_RUN)
    path = results / LATENCY_RUN / "latency.csv"
    rows = rows_of(LATENCY_RUN)
    target = next(r for r in rows if r["validity"] == "valid"
                  and sum(o["validity"] == "valid" for o in cells(LATENCY_RUN)[
                      (r["api"], int(r["case"]), int(r["step"]), r["framework"])]) >= 2)
    target["validity"], target["validity_reasons"] = "bound", "late_loadgen: 5 % vs 1 %"
    write_rows(path, rows)
    key = (target["api"], int(target["case"]), int(target["step"]), target["framework"])
    found = latency.table(load_run(results / LATENCY_RUN)).set_index(["api", "case", "step", "framework"]).loc[key]
    kept = [r for r in cells(LATENCY_RUN)[key] if r["validity"] == "valid" and r["round"] != target["round"]]
    assert (found["rounds"], found["left_out"]) == (len(kept), 1 + sum(
        r["validity"] != "valid" for r in cells(LATENCY_RUN)[key]))
    assert f"round {target['round']}: bound (late_loadgen: 5 % vs 1 %)" in found["left_out_reasons"]
    pooled = [v for r in kept for v in latencies_by_hand(LATENCY_RUN, r)]
    assert found["p99_ms"] == pytest.approx(percentile_by_hand(pooled, .99))


def test_the_flags_name_each_failed_check_once():
    """A reason's own text may hold ';' (runs recorded before collect kept it out); only what opens
    a reason is a check's name."""
    row = pd.Series({"validity_reasons": "loadgen_lag: JMeter held arrivals 69 ms at its p99 (bound above 10 ms "
                                         "and 10% of it; 550 arrivals over 10 ms);machine: 96 % of all cores busy;"
                                         "loadgen_lag: again"})
    assert latency.checks(row) == ["loadgen_lag", "machine"]
    assert latency.checks(pd.Series({"validity_reasons": ""})) == []


def test_the_report_of_a_latency_run(report):
    text = (report / "report.md").read_text()
    assert text.index("## The bottom line") < text.index("## Latency at a given rate") \
        < text.index("## The answer: every framework, per case") < text.index("## Can you trust this run?")
    section = text[text.index("## Latency at a given rate"):text.index("## The answer")]
    for words in ("open model", "intended send time", "same arrival schedule", "pooled", "bootstrap"):
        assert words in section.lower() or words in section, words
    found = table(report)
    for api, case in found[["api", "case"]].drop_duplicates().itertuples(index=False):
        figure = report / "figures" / f"latency_rate_{api}_case{case:02d}.png"
        assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"](figures/{figure.name})" in section
    # One sentence per case at one rate every framework measured (where there is one), and one
    # verdict on the objective per framework and case.
    # (this fixture's JTLs are thinned to every 10th sample: too few for p99's upper end, which says so)
    interval = r"(?:\[[\d.,]+, [\d.,]+\]|\(too few samples for an upper end\))"
    sentences = re.findall(rf"At [\d,]+ req/s ASP\.NET Core's p99 was [\d.,]+ ms {interval}"
                           rf" and Express\.js's [\d.,]+ ms {interval}\.", section)
    both = found[found["samples"] > 0].groupby(["api", "case", "step"])["framework"].nunique()
    assert len(sentences) == both[both == 2].reset_index()[["api", "case"]].drop_duplicates().shape[0] > 0
    assert section.count("No rate has a usable measurement of every framework.") == \
        len(found[["api", "case"]].drop_duplicates()) - len(sentences)
    assert len(re.findall(r"(ASP\.NET Core|Express\.js) "
                          r"(held|did not hold|was not shown to hold|was not judged against) p99 ≤ 100 ms",
                          section)) == len(found[["api", "case", "framework"]].drop_duplicates())
    # The rest of the report is there, from the run's one closed-model round.
    for heading in ("## The answer: every framework, per case", "## Does it reproduce the study?",
                    "## Appendix: every check of every item"):
        assert heading in text
    assert "rests on 1 round, too few for intervals or tests" in text


def test_a_run_without_latency_csv_has_no_latency_section(fixture_report):
    assert not (FIXTURE_RESULTS / HAND_RUN / "latency.csv").exists()
    report = fixture_report(HAND_RUN)
    assert "Latency at a given rate" not in (report / "report.md").read_text()
    assert not (report / "tables" / "latency.csv").exists()
    assert not list((report / "figures").glob("latency_rate_*"))


def test_a_malformed_latency_csv_is_named_in_one_line(tmp_path):
    shutil.copytree(FIXTURE_RESULTS / LATENCY_RUN, tmp_path / LATENCY_RUN)
    rows = rows_of(LATENCY_RUN)
    rows[0]["target_rps"] = "fast"
    write_rows(tmp_path / LATENCY_RUN / "latency.csv", rows)
    with pytest.raises(ResultFileError, match=r"latency.csv: line 2: target_rps must be a number"):
        write_report(tmp_path / LATENCY_RUN)


def test_another_reference_turns_the_ratio_over(tmp_path, report):
    shutil.copytree(FIXTURE_RESULTS / LATENCY_RUN, tmp_path / LATENCY_RUN)
    turned = table(write_report(tmp_path / LATENCY_RUN, reference="express"))
    assert set(turned["reference"]) == {"express"}
    before = table(report).set_index(["api", "case", "step", "framework"])
    after = turned.set_index(["api", "case", "step", "framework"])
    pairs = [(key, before.loc[(*key[:3], "express"), "ratio_p99"]) for key in after.index
             if key[3] == "aspnet" and pd.notna(after.loc[key, "ratio_p99"])]
    assert pairs
    for key, ratio in pairs:
        assert after.loc[key, "ratio_p99"] * ratio == pytest.approx(1)


def order_statistic_by_hand(values: list[float], q: float) -> float | None:
    """The smallest order statistic that lies at or above the q-quantile with probability 0.975:
    count up r until P(at most r - 1 of the samples fall below the quantile) reaches 0.975."""
    n = len(values)
    for r in range(1, n + 1):
        if stats.binom.cdf(r - 1, n, q) >= 0.975:
            return sorted(values)[r - 1]
    return None


def test_the_objective_reads_the_order_statistic_bound_where_the_sample_has_one(report):
    found = table(report).set_index(["api", "case", "step", "framework"])
    seen = {"bounded": 0, "too few": 0}
    for key, rows in cells(LATENCY_RUN).items():
        pooled = [v for r in rows if r["validity"] == "valid" for v in latencies_by_hand(LATENCY_RUN, r)]
        if not pooled:
            continue
        row = found.loc[key]
        for column, q in latency.QUANTILES.items():
            by_hand = order_statistic_by_hand(pooled, q)
            if by_hand is None:
                assert pd.isna(row[f"{column}_bound"]), key
                seen["too few"] += 1
            else:
                assert row[f"{column}_bound"] == pytest.approx(max(row[f"{column}_high"], by_hand)), key
                seen["bounded"] += 1
    assert seen["bounded"] and seen["too few"]


def test_bound_rounds_bound_the_latency_from_above(report):
    """A bound round's latencies carry JMeter's lag, so they are upper bounds of the server's: the
    pooled valid and bound rounds' percentile, by hand, sits inside its upper end, and the objective
    may hold on it, as the report says."""
    found = table(report).set_index(["api", "case", "step", "framework"])
    checked = 0
    for key, rows in cells(LATENCY_RUN).items():
        # A bound round that did not send its schedule spared the server traffic: it bounds nothing.
        usable = sorted((r for r in rows if r["validity"] == "valid" or r["validity"] == "bound"
                         and int(r["sent"]) >= latency.SENT_FOR_BOUND * int(r["scheduled"])),
                        key=lambda r: int(r["round"]))
        if not any(r["validity"] == "bound" for r in usable):
            continue
        pooled = [v for r in usable for v in latencies_by_hand(LATENCY_RUN, r)]
        row = found.loc[key]
        assert row["upper_rounds"] == len(usable) and row["upper_samples"] == len(pooled)
        assert row["upper_dropped"] == sum(int(r["dropped"]) for r in usable)
        if order_statistic_by_hand(pooled, .99) is None:
            assert pd.isna(row["p99_upper"])
            continue
        assert percentile_by_hand(pooled, .99) <= row["p99_upper"] + 1e-9, key
        checked += 1
    assert checked > 0
    # The thinned JTLs hold too few samples to bound a p99 (test_a_tail_percentile_…), a median they can.
    assert latency.slo(table(report), slo.parse("p50:1000"))["held_as_upper_bound"].any()
    assert re.search(r"≤ [\d,.]+ ms \(bound\)", (report / "report.md").read_text())
