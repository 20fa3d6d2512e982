"""What each summary.csv metric means, and how the study's tables and figures map onto them."""
from dataclasses import dataclass

from benchlib.cases import STUDY_PAIR


@dataclass(frozen=True)
class Metric:
    column: str   # summary.csv column
    label: str
    unit: str


LITTLES_MEAN = "littles_mean_ms"

METRICS = {m.column: m for m in [
    Metric("cpu_peak_pct", "Peak CPU", "% of one core"),
    Metric("mem_peak_pct", "Peak memory", "% of RAM"),
    Metric("mean_ms", "Mean response time", "ms"),
    # Derived on loading (analysis.load.littles_mean_ms), never recorded: connections / throughput.
    Metric(LITTLES_MEAN, "Mean response time by Little's law (connections / throughput)", "ms"),
    Metric("min_ms", "Minimum response time", "ms"),
    Metric("max_ms", "Maximum response time", "ms"),
    Metric("p50_ms", "p50 response time", "ms"),
    Metric("p90_ms", "p90 response time", "ms"),
    Metric("p95_ms", "p95 response time", "ms"),
    Metric("p99_ms", "p99 response time", "ms"),
    Metric("throughput_rps", "Throughput", "requests/s"),
    Metric("samples", "Samples", "requests"),
    Metric("errors", "Errors", "requests"),
    Metric("error_pct", "Errors", "% of requests"),
    Metric("rss_peak_mb", "Peak memory (RSS)", "MB"),
    Metric("cpu_mean_pct", "Mean CPU", "% of one core"),
    Metric("db_cpu_mean_pct", "Database mean CPU", "% of one core"),
    Metric("loadgen_cpu_peak_pct", "Load-generator peak CPU", "% of one core"),
    Metric("loadgen_cpu_mean_pct", "Load-generator mean CPU", "% of one core"),
    # Schema 3: CPU time per request, which a shared machine distorts least (empty in older runs).
    Metric("app_cpu_ms_per_req", "App CPU per request", "ms of CPU"),
    Metric("db_cpu_ms_per_req", "Database CPU per request", "ms of CPU"),
]}


@dataclass(frozen=True)
class StudyTable:
    number: int
    api: str
    study_metric: str  # metric name in study-2021-tables.csv
    column: str        # our summary.csv column
    title: str


# The study's Tables 1-5 are REST and 6-10 GraphQL, each: CPU, memory, mean, min, max time.
STUDY_TABLES = [
    StudyTable(offset + i + 1, api, study_metric, column, f"{api_title} {what}")
    for offset, api, api_title in ((0, "rest", "REST"), (5, "graphql", "GraphQL"))
    for i, (study_metric, column, what) in enumerate([
        ("cpu_peak_pct", "cpu_peak_pct", "peak CPU usage (% of one core)"),
        ("mem_peak_pct", "mem_peak_pct", "peak memory usage (% of RAM)"),
        ("rt_mean_ms", "mean_ms", "mean response time (ms)"),
        ("rt_min_ms", "min_ms", "minimum response time (ms)"),
        ("rt_max_ms", "max_ms", "maximum response time (ms)"),
    ])]


@dataclass(frozen=True)
class StudyFigure:
    number: int
    api: str
    column: str


# Figures 14-19: CPU, memory, mean response time; REST then GraphQL. Memory is drawn as RSS in MB
# because % of RAM depends on the machine's RAM (the study's was 8 GiB).
STUDY_FIGURES = [StudyFigure(14 + offset + i, api, column)
                 for offset, api in ((0, "rest"), (3, "graphql"))
                 for i, column in enumerate(["cpu_peak_pct", "rss_peak_mb", "mean_ms"])]

# What the study did not report, shown in extra tables, grouped so each table stays readable.
EXTRA_GROUPS = {
    "latency percentiles": ["p50_ms", "p95_ms", "p99_ms"],
    "throughput and errors": ["throughput_rps", "samples", "error_pct"],
    "server resources": ["rss_peak_mb", "cpu_mean_pct", "db_cpu_mean_pct"],
    "CPU per request": ["app_cpu_ms_per_req", "db_cpu_ms_per_req"],
    "load generator": ["loadgen_cpu_peak_pct", "loadgen_cpu_mean_pct"],
}

# The study's column order: ASP.NET Core first, then Express.js; other frameworks follow by name.
PREFERRED_ORDER = list(STUDY_PAIR)


def ordered_frameworks(names) -> list[str]:
    names = set(names)
    return [n for n in PREFERRED_ORDER if n in names] + sorted(names - set(PREFERRED_ORDER))


def case_label(case: int, requests: int, rows: int, joins: int) -> str:
    join = "join" if joins else "no join"
    return f"case {case}: {requests} users, {rows} row{'s' if rows != 1 else ''}, {join}"


def case_tick(case: int, requests: int, rows: int, joins: int) -> str:
    """Short two-line axis label; figures explain the notation in their x-axis title."""
    return f"{case}\n{requests}/{rows}{'/J' if joins else ''}"
