"""The latency pass's arrival schedules (collect/latency.py): Poisson arrivals, drawn in Python
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


def write(path: Path, times: list[int]) -> None:
    """The schedule file a latency group reads (benchlib/plans.open_group): a header, one offset a line."""
    path.write_text("offset_ms\n" + "".join(f"{t}\n" for t in times))
