"""The stopping rule on constructed rounds: a tight cell settles, a noisy one asks for more, one that
mostly failed its checks is left alone, and the cap ends any cell."""
import math

from benchlib.stopping import CAPPED, MORE, SETTLED, UNMEASURABLE, cell_states, next_round, relative_half_width


def rows(case: int, ratios: list[float], validity: list[str] | None = None, api: str = "rest") -> list[dict]:
    """One round per ratio: aspnet serves 1000 req/s, express 1000 × ratio."""
    out = []
    for i, ratio in enumerate(ratios, start=1):
        state = validity[i - 1] if validity else "valid"
        out += [{"framework": "aspnet", "api": api, "case": str(case), "iteration": str(i), "status": "ok",
                 "validity": "valid", "throughput_rps": "1000"},
                {"framework": "express", "api": api, "case": str(case), "iteration": str(i), "status": "ok",
                 "validity": state, "throughput_rps": str(1000 * ratio)}]
    return out


def state_of(found, case):
    return next(s for s in found if s.case == case)


def test_the_half_width_is_that_of_the_paired_t_interval():
    d = [math.log(0.5), math.log(0.52), math.log(0.48)]
    mean = sum(d) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 2)
    assert math.isclose(relative_half_width(d), math.exp(4.302653 * sd / math.sqrt(3)) - 1, rel_tol=1e-5)
    assert relative_half_width(d[:1]) is None


def test_a_tight_cell_settles_and_a_noisy_one_needs_another_round():
    found = cell_states(rows(1, [0.50, 0.51, 0.50]) + rows(2, [0.4, 0.6, 0.5]), ["aspnet", "express"])
    assert state_of(found, 1).state == SETTLED and state_of(found, 1).half_width < 0.10
    assert state_of(found, 2).state == MORE and state_of(found, 2).half_width > 0.10


def test_a_cell_that_mostly_failed_its_checks_gets_no_more_rounds_and_one_that_mostly_passed_does():
    mostly_invalid = rows(3, [0.5, 0.5, 0.5], ["valid", "invalid", "bound"])
    mostly_valid = rows(4, [0.5, 0.5, 0.5], ["valid", "valid", "invalid"])
    found = cell_states(mostly_invalid + mostly_valid, ["aspnet", "express"])
    assert state_of(found, 3).state == UNMEASURABLE and state_of(found, 3).usable == 1
    assert state_of(found, 4).usable == 2


def test_the_cap_ends_a_cell_however_wide_its_interval():
    found = cell_states(rows(5, [0.4, 0.6] * 5), ["aspnet", "express"], max_rounds=10)
    assert state_of(found, 5).rounds == 10 and state_of(found, 5).state == CAPPED


def test_every_arm_is_compared_with_the_first_and_the_widest_pair_decides():
    third = [{**r, "framework": "fastify", "throughput_rps": str(float(r["throughput_rps"]) * f)}
             for r, f in zip([r for r in rows(6, [0.5, 0.5, 0.5]) if r["framework"] == "express"], [1, 1.5, 0.7])]
    found = cell_states(rows(6, [0.5, 0.505, 0.5]) + third, ["aspnet", "express", "fastify"])
    assert state_of(found, 6).state == MORE


def test_the_next_round_takes_the_widest_cells_that_fit():
    found = cell_states(rows(1, [0.4, 0.6, 0.5]) + rows(2, [0.45, 0.55, 0.5]) + rows(7, [0.5, 0.5, 0.5]),
                        ["aspnet", "express"])
    assert [s.case for s in next_round(found, 1)] == [1]
    assert [s.case for s in next_round(found, 5)] == [1, 2]
    assert next_round(found, 0) == []
