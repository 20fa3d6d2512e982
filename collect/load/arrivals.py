"""The latency pass's arrival schedules (collect/passes/latency.py): Poisson arrivals, drawn in Python
from the run's seed and the measurement's (API, case, step, round), so every framework of a round
gets the same arrivals at the same offsets, and a resumed run draws them again identically."""
import random
from pathlib import Path


def seed_of(run_seed: int, api: str, case: int, step: int, round_: int) -> str:
    """A str seed: random.Random hashes it with SHA-512, the same on every machine and run."""
    return f"latency:{run_seed}:{api}:{case}:{step}:{round_}"


def offsets(rate_rps: float, length_ms: int, seed: str) -> list[int]:
    """Intended send times, ms after the measurement's start, of a Poisson process at `rate_rps`
    over `length_ms`: exponential gaps of mean 1000 / rate_rps, accumulated unrounded (rounding
    each gap would bias the rate), each arrival rounded to the ms JMeter's clock keeps."""
    rng, t, out = random.Random(seed), 0.0, []
    while True:
        t += rng.expovariate(rate_rps / 1000)
        if t >= length_ms:
            return out
        out.append(round(t))


def text(times: list[int]) -> str:
    """The schedule file a latency group reads (benchlib/run_plans.open_group): a header, one offset a line."""
    return "offset_ms\n" + "".join(f"{t}\n" for t in times)


def write(path: Path, times: list[int]) -> None:
    path.write_text(text(times))


def shares(times: list[int], pools: list[int]) -> list[list[int]]:
    """The schedule divided among load engines whose pools are `pools`: every k-th arrival to each of
    the k engines that have a thread (an engine without one gets none). A share is not itself
    Poisson (its gaps are sums of k exponential ones), but together the shares are the schedule,
    arrival for arrival, which is what the server sees."""
    active = [i for i, pool in enumerate(pools) if pool]
    out = [[] for _ in pools]
    for j, i in enumerate(active):
        out[i] = times[j::len(active)]
    return out
