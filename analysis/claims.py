"""Every comparative claim of the study, as data: what it says (its own words and lines in
shared/reference/002_05e988e8871ce58e.txt), where (api, cases, metrics), how much of that scope it
covers (share), and which test it makes on the ratio A/E = ASP.NET Core / Express.js.

Claim types, each a band on A/E (open at both ends, so a value on the bound is outside it):
- Direction: one framework has the lower values; judged by the significance of the difference.
- Equivalence: "similar"; A/E between 1/(1+margin) and 1+margin.
- NonInferiority: "similar or better"; the better framework's values at most `margin` above the
  other's.
- Magnitude: "more than 2x", "roughly 2.8x", "almost 2x", "up to 3.6x": A/E within a band.
Shares: "all" (every cell), "most" (more than half of the cells), "peak" (the largest ratio of
the cells, for "up to ...").
"""
import math
from dataclasses import dataclass

from analysis.metrics import PAIR

ASPNET, EXPRESS = PAIR
NAMES = {ASPNET: "ASP.NET Core", EXPRESS: "Express.js"}

# The study names no margin. 10 % is fixed here, before any of our runs is judged, and is just under
# the smallest difference in mean response time that the study itself calls a win: REST case 5,
# ASP.NET Core 134.9 ms against Express.js 121.1 ms (11 %), "the opposite can be seen" (L1252).
# So a difference the study would call "faster" is never called "similar" here. The same margin,
# symmetric on the log scale, sets how loosely "roughly" and "almost" are read.
MARGIN = 0.10


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


def more_than(x: float, words: str) -> Magnitude:
    return Magnitude(x, math.inf, words)


def roughly(x: float, words: str) -> Magnitude:
    return Magnitude(x / (1 + MARGIN), x * (1 + MARGIN), words)


def almost(x: float, words: str) -> Magnitude:
    return Magnitude(x / (1 + MARGIN), x, words)


@dataclass(frozen=True)
class Source:
    lines: tuple[int, int]   # first and last line in the thesis's text
    section: str
    words: str               # verbatim, as the extracted text has it

    def cite(self) -> str:
        first, last = self.lines
        return f"{self.section} L{first}" + (f"-{last}" if last != first else "")


ALL, MOST, PEAK = "all", "most", "peak"


@dataclass(frozen=True)
class Claim:
    id: str
    summary: str             # the claim as we test it, in one line
    sources: tuple[Source, ...]
    apis: tuple[str, ...]
    cases: tuple[int, ...]
    scope: str               # the cases in words
    metrics: tuple[str, ...]  # our summary.csv columns
    test: Direction | Equivalence | NonInferiority | Magnitude
    share: str = ALL
    reading: str = ""        # how an ambiguous phrase is read here, and why

    @property
    def words(self) -> str:
        return " … ".join(f"“{s.words}”" for s in self.sources)

    @property
    def cited(self) -> str:
        return "; ".join(s.cite() for s in self.sources)


USERS, ROWS = (100, 250, 500), (1, 50, 100)


def cases(users=USERS, rows=ROWS, joins=(0, 1)) -> tuple[int, ...]:
    """Case numbers in the study's nesting order: users, then join, then rows (case 4 = 100/1/join)."""
    return tuple(sorted(1 + 6 * USERS.index(u) + 3 * j + ROWS.index(r)
                        for u in users for j in joins for r in rows))


ALL_CASES = cases()
ONE_ROW = cases(rows=(1,))
MANY_ROWS = cases(rows=(50, 100))
LOWEST_CONCURRENCY = cases(users=(100,))
HIGHEST_CONCURRENCY = cases(users=(500,))
PEAK_LOAD = cases(users=(500,), rows=(50, 100))         # 14, 15, 17, 18, as the study names them
HIGHER_CONCURRENCY_MANY_ROWS = cases(users=(250, 500), rows=(50, 100))
LOWEST_LOAD = cases(users=(100,), rows=(1,))            # 1 and 4
REST_CPU_SIMILAR = (1, 4, 10, 13, 16)                   # as listed in L1214-1215 (case 7 is not)

TIME, MIN, MAX, CPU, MEMORY = "mean_ms", "min_ms", "max_ms", "cpu_peak_pct", "rss_peak_mb"

CLAIMS = [
    # REST, response time
    Claim("rest-one-row-aspnet-faster",
          "REST, single-row cases: ASP.NET Core has the lower mean response time",
          (Source((1247, 1248), "§5.1.3", "In all test cases where a single row was requested, ASP.NET "
                  "Core was shown to be consistently faster than Express.js"),
           Source((1300, 1302), "§6.1", "ASP.NET Core is shown to be able to serve requests faster than "
                  "Express.js as seen during cases 1, 4, 7, 10, 13 and 16")),
          ("rest",), ONE_ROW, "1 row (cases 1, 4, 7, 10, 13, 16)", (TIME,), Direction(ASPNET)),
    Claim("rest-one-row-aspnet-lower-min-max",
          "REST, single-row cases: ASP.NET Core's minimum and maximum response times are lower",
          (Source((1248, 1250), "§5.1.3", "This is also true for its minimum and maximum response "
                  "times, ASP.NET Core was able to serve all requests faster than Express.js."),),
          ("rest",), ONE_ROW, "1 row (cases 1, 4, 7, 10, 13, 16)", (MIN, MAX), Direction(ASPNET)),
    Claim("rest-many-rows-express-faster",
          "REST, 50- and 100-row cases: Express.js has the lower mean response time",
          (Source((1252, 1252), "§5.1.3", "The opposite can be seen in cases where 50 & 100 rows were "
                  "requested."),),
          ("rest",), MANY_ROWS, "50 and 100 rows (12 cases)", (TIME,), Direction(EXPRESS)),
    Claim("rest-many-rows-aspnet-higher-min-max",
          "REST, 50- and 100-row cases: ASP.NET Core's minimum and maximum response times are higher",
          (Source((1243, 1245), "§5.1.3", "All cases where ASP.NET Core had a higher average response "
                  "time, it also has a much higher maximum response time"),
           Source((1252, 1254), "§5.1.3", "ASP.NET Core displays both higher minimum and higher "
                  "maximum")),
          ("rest",), MANY_ROWS, "50 and 100 rows (12 cases)", (MIN, MAX), Direction(EXPRESS)),
    Claim("rest-peak-load-almost-2x",
          "REST, 500 users with 50 and 100 rows: ASP.NET Core's mean response time reaches almost "
          "twice Express.js's",
          (Source((1254, 1255), "§5.1.3", "up to almost 2x during cases 14, 15, 17 and 18"),),
          ("rest",), PEAK_LOAD, "500 users, 50 and 100 rows (cases 14, 15, 17, 18)", (TIME,),
          almost(2.0, "up to almost 2x"), PEAK,
          reading="Read as the mean response time, the subject of the paragraph and of Figure 16. "
                  "The sentence can also be read as about the minimum and maximum; the study's own "
                  "largest ratios there are 1.89 (minimum, case 18) and 1.65 (maximum, case 17)."),
    Claim("rest-lower-load-aspnet-faster",
          "REST, lowest concurrency (100 users): ASP.NET Core has the lower mean response time",
          (Source((17, 18), "Abstract", "in a RESTful API, ASP.NET Core is faster at serving requests "
                  "during lower loads"),
           Source((1381, 1382), "§6.4", "ASP.NET Core is able to produce much faster responses during a "
                  "lower load")),
          ("rest",), LOWEST_CONCURRENCY, "100 users (cases 1-6)", (TIME,), Direction(ASPNET),
          reading="Load read as concurrency: the abstract sets it against \"a higher amount of "
                  "concurrent requests\". Read as rows, it is rest-one-row-aspnet-faster."),
    Claim("rest-higher-load-express-faster",
          "REST, 250 and 500 users with 50 and 100 rows: Express.js has the lower mean response time",
          (Source((18, 20), "Abstract", "Express.js outperforms ASP.NET Core when faced with a higher "
                  "amount of concurrent requests that fetch a lot of data"),
           Source((1382, 1383), "§6.4", "as the load increased Express.js was able to achieve faster "
                  "response times")),
          ("rest",), HIGHER_CONCURRENCY_MANY_ROWS, "250 and 500 users, 50 and 100 rows (8 cases)",
          (TIME,), Direction(EXPRESS),
          reading="\"A higher amount of concurrent requests\": above the lowest, 100; \"a lot of "
                  "data\": 50 and 100 rows."),
    # REST, resources
    Claim("rest-cpu-one-row-similar",
          "REST, single-row cases the study lists: the two frameworks' peak CPU is similar",
          (Source((1214, 1215), "§5.1.1", "the CPU usage is very similar for both frameworks in cases 1, "
                  "4, 10, 13, 16"),),
          ("rest",), REST_CPU_SIMILAR, "cases 1, 4, 10, 13, 16, as listed (case 7 is not)", (CPU,),
          Equivalence(MARGIN)),
    Claim("rest-cpu-aspnet-higher",
          "REST: ASP.NET Core's peak CPU is higher",
          (Source((1292, 1292), "§6.1", "ASP.NET Core sees a much higher CPU usage compared to "
                  "Express.js."),),
          ("rest",), ALL_CASES, "all 18 cases", (CPU,), Direction(EXPRESS)),
    Claim("rest-memory-aspnet-higher",
          "REST: ASP.NET Core's peak memory is higher in every case",
          (Source((1306, 1307), "§6.1", "ASP.NET Core also sees a higher memory usage throughout all "
                  "test cases"),),
          ("rest",), ALL_CASES, "all 18 cases", (MEMORY,), Direction(EXPRESS)),
    # GraphQL, response time
    Claim("graphql-time-express-similar-or-better",
          "GraphQL: Express.js's mean response time is similar to ASP.NET Core's or lower, in every "
          "case",
          (Source((20, 22), "Abstract", "In a GraphQL API Express.js was able to perform similarly or "
                  "better in all cases in terms of response times and resource usage compared to "
                  "ASP.NET Core."),
           Source((1324, 1326), "§6.1", "there are no cases where ASP.NET Core is able to serve requests "
                  "noticeably faster than Express.js."),
           Source((1386, 1388), "§6.4", "Express.js performed much more efficiently during all test "
                  "cases.")),
          ("graphql",), ALL_CASES, "all 18 cases", (TIME,), NonInferiority(EXPRESS, MARGIN),
          reading="Response time read as the mean, the only one §5.2.3 and Figure 19 discuss."),
    Claim("graphql-lower-load-similar-time",
          "GraphQL, lowest concurrency (100 users): the two frameworks' mean response times are similar",
          (Source((1324, 1324), "§6.1", "Both frameworks show a similar speed in response times during "
                  "lower loads"),),
          ("graphql",), LOWEST_CONCURRENCY, "100 users (cases 1-6)", (TIME,), Equivalence(MARGIN),
          reading="Load read as concurrency, as in rest-lower-load-aspnet-faster."),
    Claim("graphql-peak-load-express-faster",
          "GraphQL, 500 users with 50 and 100 rows: Express.js has the lower mean response time",
          (Source((1326, 1327), "§6.1", "ASP.NET Core sees a large increase in response times as it "
                  "reaches the higher loads such as cases 14, 15, 17 and 18."),
           Source((1385, 1387), "§6.4", "made ASP.NET Core perform even worse during higher load")),
          ("graphql",), PEAK_LOAD, "500 users, 50 and 100 rows (cases 14, 15, 17, 18)", (TIME,),
          Direction(EXPRESS)),
    # GraphQL, resources
    Claim("graphql-resources-express-similar-or-better",
          "GraphQL: Express.js's peak CPU and memory are similar to ASP.NET Core's or lower, in every "
          "case",
          (Source((20, 22), "Abstract", "In a GraphQL API Express.js was able to perform similarly or "
                  "better in all cases in terms of response times and resource usage compared to "
                  "ASP.NET Core."),),
          ("graphql",), ALL_CASES, "all 18 cases", (CPU, MEMORY), NonInferiority(EXPRESS, MARGIN)),
    Claim("graphql-cpu-aspnet-higher",
          "GraphQL: ASP.NET Core's peak CPU is higher, from the lowest loads up",
          (Source((1327, 1328), "§6.1", "ASP.NET Core sees a much higher CPU usage for even the lowest "
                  "loads"),),
          ("graphql",), ALL_CASES, "all 18 cases", (CPU,), Direction(EXPRESS)),
    Claim("graphql-cpu-more-than-double",
          "GraphQL: ASP.NET Core's peak CPU is more than twice Express.js's in most cases",
          (Source((1263, 1264), "§5.2.1", "For most test cases ASP.NET Core uses more than double the "
                  "amount that Express.js uses."),),
          ("graphql",), ALL_CASES, "all 18 cases", (CPU,), more_than(2.0, "more than double"), MOST),
    Claim("graphql-memory-aspnet-higher",
          "GraphQL: ASP.NET Core's peak memory is higher in every case",
          (Source((1270, 1271), "§5.2.2", "For all cases ASP.NET Core uses significantly more memory than "
                  "Express.js"),
           Source((1329, 1330), "§6.1", "Express.js sees a significantly lower usage in memory")),
          ("graphql",), ALL_CASES, "all 18 cases", (MEMORY,), Direction(EXPRESS)),
    Claim("graphql-memory-2.8x-lowest-load",
          "GraphQL, lowest loads: ASP.NET Core's peak memory is roughly 2.8 times Express.js's",
          (Source((1272, 1273), "§5.2.2", "During the lowest loads ASP.NET Core uses roughly 2,8x the "
                  "amount of Express.js"),),
          ("graphql",), LOWEST_LOAD, "100 users, 1 row (cases 1, 4)", (MEMORY,),
          roughly(2.8, "roughly 2,8x"),
          reading="\"The lowest loads\": the fewest users and rows, cases 1 and 4."),
    Claim("graphql-memory-up-to-3.6x-high-load",
          "GraphQL, 500 users: ASP.NET Core's peak memory reaches about 3.6 times Express.js's",
          (Source((1273, 1274), "§5.2.2", "and up to 3,6x as much under high load."),),
          ("graphql",), HIGHEST_CONCURRENCY, "500 users (cases 13-18)", (MEMORY,),
          roughly(3.6, "up to 3,6x"), PEAK,
          reading="\"Up to\": the largest ratio of the high-load cases is roughly 3.6."),
    # both APIs
    Claim("overall-express-better-in-most-cases",
          "Both APIs: Express.js has the lower mean response time, CPU and memory in most cells",
          (Source((1391, 1392), "§6.4", "While the results do show that Express.js will perform better "
                  "in most cases, it is not certain that it always will."),),
          ("rest", "graphql"), ALL_CASES, "all 18 cases of both APIs", (TIME, CPU, MEMORY),
          Direction(EXPRESS), MOST,
          reading="\"Perform\" read as the three things the study measured."),
]
