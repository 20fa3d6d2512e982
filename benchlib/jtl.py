"""What a JMeter CSV JTL says about its measured window: which samples it counts, the summary
statistics, the window's edges and the commonest failures.

A sample belongs to the window the plan's clock set (`window_ms`, epoch ms) when it **completed**
inside it: a request started in the warm-up that ends in the window counts (it is part of what the
server did then, and dropping it would drop exactly the slowest requests), and one still in flight
when the window closes does not, but is counted apart (`in_flight_end`). A JTL without that window
(runs before schema 3, the standalone plans of `./testbed load` and the Docker runner) is read as
JMeter's own dashboard reads it: the plans label every sample started in the warm-up `warmup …`,
the others count, and the window runs from the first one's start to the last one's end.
"""
from pathlib import Path

WARMUP_PREFIX = "warmup "
# The summary.csv columns a JTL gives, in summary.csv's order.
JTL_FIELDS = ("samples", "errors", "error_pct", "throughput_rps", "mean_ms", "min_ms", "max_ms",
              "p50_ms", "p90_ms", "p95_ms", "p99_ms", "in_flight_mean")
# What the window's edges did, for the validity checks (collect/items/validity.py).
EDGE_FIELDS = ("window_s", "completed_threads", "in_flight_start", "in_flight_end", "spanning")
# The window is cut into this many bins for the steady-state check.
BINS = 10


def counted(jtl, window_ms: tuple[int, int] | None = None):
    """Which rows of a JTL DataFrame count (a boolean Series): completed inside `window_ms`, or,
    without it, not labelled as warm-up."""
    if window_ms is None:
        return ~jtl["label"].astype(str).str.startswith(WARMUP_PREFIX)
    end = jtl["timeStamp"] + jtl["elapsed"]
    return (end >= window_ms[0]) & (end <= window_ms[1])


def measured(jtl, window_ms: tuple[int, int] | None = None):
    """The rows of a JTL DataFrame that count (see `counted`)."""
    return jtl[counted(jtl, window_ms)]


def labelled_window(jtl) -> tuple[int, int] | None:
    """The window as the labels show it: the first unlabelled sample's start to the last one's end."""
    window = measured(jtl)
    if window.empty:
        return None
    return int(window["timeStamp"].min()), int((window["timeStamp"] + window["elapsed"]).max())


def _read(path):
    import pandas as pd
    try:
        return pd.read_csv(path, usecols=lambda c: c in {"timeStamp", "elapsed", "label", "success", "threadName"},
                           dtype={"timeStamp": "int64", "elapsed": "int64", "label": str, "success": str,
                                  "threadName": str}, keep_default_na=False, engine="c")
    except (FileNotFoundError, pd.errors.EmptyDataError):
        return None


def _empty() -> dict:
    return {"samples": 0, "errors": 0, **{k: None for k in JTL_FIELDS[2:]},
            **{k: None for k in EDGE_FIELDS}, "bin_rps": []}


def summarize(path, window_ms: tuple[int, int] | None = None) -> dict:
    """Statistics of the samples completed in the window (JTL_FIELDS, keyed like summary.csv),
    what its edges did (EDGE_FIELDS) and the throughput in each of its BINS (`bin_rps`).

    throughput_rps = completed samples / the window's length; percentiles use the (n+1)p rank
    with interpolation, as JMeter's dashboard does (commons-math's default). in_flight_mean is
    the mean number of requests in flight over the window (each request's time inside it, summed,
    over its length), the concurrency the server really saw; completed_threads counts the threads
    that completed at least one request in it."""
    import numpy as np

    jtl = _read(path)
    if jtl is None or jtl.empty:
        return _empty()
    inside = counted(jtl, window_ms)
    window_ms = window_ms or labelled_window(jtl)
    if window_ms is None or window_ms[1] <= window_ms[0]:
        return _empty()
    w0, w1 = window_ms
    length = w1 - w0
    start, end = jtl["timeStamp"], jtl["timeStamp"] + jtl["elapsed"]
    window = jtl[inside]
    n = len(window)
    edges = {"window_s": round(length / 1000, 3),
             "completed_threads": int(window["threadName"].nunique()) if "threadName" in window else None,
             "in_flight_start": int((inside & (start < w0)).sum()),
             "in_flight_end": int(((start <= w1) & (end > w1)).sum()),
             "spanning": int(((start < w0) & (end > w1)).sum())}
    if n == 0:
        return {**_empty(), **edges, "completed_threads": 0}
    errors = int((window["success"] != "true").sum())
    elapsed = window["elapsed"].to_numpy()
    overlap = (np.minimum(end, w1) - np.maximum(start, w0)).clip(lower=0).sum()
    counts, _ = np.histogram(end[inside].to_numpy(), bins=BINS, range=(w0, w1))
    p50, p90, p95, p99 = np.percentile(elapsed, [50, 90, 95, 99], method="weibull")
    return {"samples": n, "errors": errors, "error_pct": round(100 * errors / n, 3),
            "throughput_rps": round(n * 1000 / length, 3),
            "mean_ms": round(float(elapsed.mean()), 3), "min_ms": int(elapsed.min()),
            "max_ms": int(elapsed.max()), "p50_ms": round(float(p50), 3), "p90_ms": round(float(p90), 3),
            "p95_ms": round(float(p95), 3), "p99_ms": round(float(p99), 3),
            "in_flight_mean": round(float(overlap) / length, 2), **edges,
            "bin_rps": [round(float(c) * 1000 * BINS / length, 3) for c in counts]}


def failures(path, limit=3, window_ms: tuple[int, int] | None = None) -> list[str]:
    """The most common failure messages of the measured window, for error reports."""
    import pandas as pd
    jtl = pd.read_csv(path, usecols=["timeStamp", "elapsed", "label", "responseCode", "success", "failureMessage"],
                      dtype={"timeStamp": "int64", "elapsed": "int64", "label": str, "responseCode": str,
                             "success": str, "failureMessage": str}, keep_default_na=False)
    bad = measured(jtl, window_ms)
    bad = bad[bad["success"] != "true"]
    reasons = (bad["responseCode"] + " " + bad["failureMessage"]).str.strip()
    return [f"{count}x {reason}" for reason, count in reasons.value_counts().head(limit).items()]


def write_measured(path, out, window_ms: tuple[int, int] | None = None) -> int:
    """Writes the samples `summarize` counts (see `counted`) to the JTL `out`, every column as it
    was and the warm-up label dropped, so that JMeter's dashboard draws the requests the summary
    counts; returns how many it wrote."""
    import pandas as pd
    jtl = pd.read_csv(path, dtype=str, keep_default_na=False).astype({"timeStamp": "int64", "elapsed": "int64"})
    rows = measured(jtl, window_ms).assign(label=lambda r: r["label"].str.removeprefix(WARMUP_PREFIX))
    rows.to_csv(out, index=False)
    return len(rows)


def window_bounds(path: Path, window_ms: tuple[int, int] | None = None) -> tuple[float, float] | None:
    """Epoch seconds of the window's start and end (None: no window): `window_ms` as given, or as
    the labels show it."""
    if window_ms is None:
        jtl = _read(path)
        window_ms = None if jtl is None or jtl.empty else labelled_window(jtl)
    return None if window_ms is None else (window_ms[0] / 1000, window_ms[1] / 1000)
