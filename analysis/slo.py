"""The latency objective a latency run is judged against (`--slo pNN:MS`, default p99:100: the
99th percentile at most 100 ms). Kept apart from analysis/latency.py so that the CLI can check the
option before a run starts without loading pandas."""
from dataclasses import dataclass

# The percentiles the latency section computes, as the option names them, and their columns.
PERCENTILES = {"50": "p50", "90": "p90", "95": "p95", "99": "p99", "99.9": "p999"}
DEFAULT = "p99:100"


def label(column: str) -> str:
    """How a percentile column reads in the report: p999 -> p99.9."""
    return next((f"p{name}" for name, c in PERCENTILES.items() if c == column), column)


class BadObjective(ValueError):
    """--slo is not pNN:MS."""


@dataclass(frozen=True)
class Objective:
    percentile: str  # as written: "99", "99.9"
    ms: float

    @property
    def column(self) -> str:
        """Its percentile's column in tables/latency.csv: p99, p999."""
        return PERCENTILES[self.percentile]

    @property
    def quantile(self) -> float:
        return float(self.percentile) / 100

    def __str__(self) -> str:
        return f"p{self.percentile} ≤ {self.ms:g} ms"


def parse(text: str) -> Objective:
    """`p99:100` -> Objective("99", 100.0); anything else raises BadObjective with the fix."""
    name, sep, ms = text.strip().partition(":")
    percentile = name.lower().removeprefix("p")
    try:
        value = float(ms)
    except ValueError:
        value = None
    if not (sep and name.lower().startswith("p") and percentile in PERCENTILES and value is not None
            and 0 < value < float("inf")):
        raise BadObjective(f"--slo {text}: write pNN:MS, NN one of {', '.join(PERCENTILES)} and MS a "
                           f"positive number of milliseconds, e.g. {DEFAULT}")
    return Objective(percentile, value)


DEFAULT_OBJECTIVE = parse(DEFAULT)  # what write_report judges by without --slo
