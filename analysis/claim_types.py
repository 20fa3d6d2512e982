"""What a claim of the study is made of, as types: its source (the study's words at their lines),
its scope (APIs, cases, metrics), its share of that scope and the test it makes on the ratio A/E =
ASP.NET Core / Express.js. The claims themselves are analysis.claims.CLAIMS.

Claim types, each a band on A/E (open at both ends, so a value on the bound is outside it):
- Direction: one framework has the lower values; judged by the significance of the difference.
- Equivalence: "similar"; A/E between 1/(1+margin) and 1+margin.
- NonInferiority: "similar or better"; the better framework's values at most `margin` above the
  other's.
- Magnitude: "more than 2x", "roughly 2.8x", "almost 2x", "up to 3.6x", "much higher": A/E within a
  band.
- Interaction: "rises more with rows", "amplified": A/E of one cell over A/E of another (e.g. 100
  rows over 1 row at the same users and join) is above 1: the difference grows.
- Unjudgeable: a claim this testbed cannot test (it needs a machine or a protocol it lacks); it is
  listed with what it needs, never judged.
Shares: "all" (every cell), "most" (more than half of the cells), "peak" (the largest ratio of
the cells, for "up to ..."), "where Express.js peaks" (the cell where Express.js's own value is
highest).
"""
import math
from dataclasses import dataclass

from benchlib.cases import STUDY_PAIR

ASPNET, EXPRESS = STUDY_PAIR
NAMES = {ASPNET: "ASP.NET Core", EXPRESS: "Express.js"}


@dataclass(frozen=True)
class Direction:
    lower: str               # the framework the study says has the lower values

    def band(self) -> tuple[float, float]:
        return (0.0, 1.0) if self.lower == ASPNET else (1.0, math.inf)

    def describe(self) -> str:
        return f"direction: {NAMES[self.lower]} lower"


@dataclass(frozen=True)
class Equivalence:
    margin: float

    def band(self) -> tuple[float, float]:
        return (1 / (1 + self.margin), 1 + self.margin)

    def describe(self) -> str:
        low, high = self.band()
        return f"equivalence, margin {self.margin * 100:.0f} %: {low:.3f} < A/E < {high:.3f}"


@dataclass(frozen=True)
class NonInferiority:
    better: str              # the framework the study says is similar or better (lower)
    margin: float

    def band(self) -> tuple[float, float]:
        return (1 / (1 + self.margin), math.inf) if self.better == EXPRESS else (0.0, 1 + self.margin)

    def describe(self) -> str:
        low, high = self.band()
        bound = f"A/E > {low:.3f}" if self.better == EXPRESS else f"A/E < {high:.3f}"
        return f"non-inferiority, margin {self.margin * 100:.0f} %: {bound}"


@dataclass(frozen=True)
class Magnitude:
    low: float
    high: float
    words: str               # the study's phrase, e.g. "more than double"

    def band(self) -> tuple[float, float]:
        return (self.low, self.high)

    def describe(self) -> str:
        high = "" if math.isinf(self.high) else f" < {self.high:.3g}"
        return f"magnitude ({self.words}): {self.low:.3g} < A/E{high}"


@dataclass(frozen=True)
class Interaction:
    """A/E in one cell over A/E in another is above 1: ASP.NET Core's values grow more than
    Express.js's from the second cell to the first. pairs: ((api, case), (api, case)) each, the
    cell expected higher first."""
    pairs: tuple
    words: str

    def band(self) -> tuple[float, float]:
        return (1.0, math.inf)

    def describe(self) -> str:
        return f"interaction ({self.words}): (A/E in the first cell) / (A/E in the second) > 1"


@dataclass(frozen=True)
class Unjudgeable:
    """A claim this testbed cannot test: `needs` says what it would take."""
    needs: str

    def band(self):
        return None

    def describe(self) -> str:
        return f"cannot be judged here: {self.needs}"


@dataclass(frozen=True)
class Source:
    lines: tuple[int, int]   # first and last line in the thesis's text
    section: str
    words: str               # verbatim, as the extracted text has it

    def cite(self) -> str:
        first, last = self.lines
        return f"{self.section} L{first}" + (f"-{last}" if last != first else "")


ALL, MOST, PEAK, AT_EXPRESS_PEAK = "all", "most", "peak", "where Express.js peaks"


@dataclass(frozen=True)
class Claim:
    id: str
    summary: str             # the claim as we test it, in one line
    sources: tuple[Source, ...]
    apis: tuple[str, ...]
    cases: tuple[int, ...]
    scope: str               # the cases in words
    metrics: tuple[str, ...]  # our summary.csv columns
    test: Direction | Equivalence | NonInferiority | Magnitude | Interaction | Unjudgeable
    share: str = ALL
    reading: str = ""        # how an ambiguous phrase is read here, and why
    alternative_of: str = ""  # the claim this one reads another way, shown beside it
    min_cores: int = 0       # fewer cores on the machine: cannot be judged here

    @property
    def words(self) -> str:
        return " … ".join(f"“{s.words}”" for s in self.sources)

    @property
    def cited(self) -> str:
        return "; ".join(s.cite() for s in self.sources)
