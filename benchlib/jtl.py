"""What a JMeter CSV JTL says about its measured window: the one warm-up filter, the summary
statistics, the window's bounds and the commonest failures.

The plans label every sample started in the warm-up `warmup …`; everything here leaves those out.
"""
from pathlib import Path

WARMUP_PREFIX = "warmup "
# The summary.csv columns a JTL gives, in summary.csv's order.
JTL_FIELDS = ("samples", "errors", "error_pct", "throughput_rps", "mean_ms", "min_ms", "max_ms",
              "p50_ms", "p90_ms", "p95_ms", "p99_ms", "in_flight_mean")


def measured(jtl):
    """The rows of a JTL DataFrame that belong to the measured window."""
    return jtl[~jtl["label"].astype(str).str.startswith(WARMUP_PREFIX)]


def _empty() -> dict:
    return {"samples": 0, "errors": 0, **{k: None for k in JTL_FIELDS[2:]}}


def summarize(path) -> dict:
    """Statistics of the measured window, keyed like summary.csv.

    throughput_rps = samples / (last end - first start), as JMeter computes it; percentiles use
    the (n+1)p rank with interpolation, as JMeter's dashboard does (commons-math's default).
    in_flight_mean is the mean number of requests in flight over that window (the sum of the
    response times over its length: Little's law), the concurrency the server really saw."""
    import numpy as np
    import pandas as pd

    try:
        jtl = pd.read_csv(path, usecols=["timeStamp", "elapsed", "label", "success"],
                          dtype={"timeStamp": "int64", "elapsed": "int64", "label": str, "success": str},
                          keep_default_na=False, engine="c")
    except (FileNotFoundError, pd.errors.EmptyDataError):
        return _empty()
    window = measured(jtl)
    n = len(window)
    if n == 0:
        return _empty()
    errors = int((window["success"] != "true").sum())
    elapsed = window["elapsed"].to_numpy()
    window_ms = int((window["timeStamp"] + window["elapsed"]).max() - window["timeStamp"].min())
    p50, p90, p95, p99 = np.percentile(elapsed, [50, 90, 95, 99], method="weibull")
    return {"samples": n, "errors": errors, "error_pct": round(100 * errors / n, 3),
            "throughput_rps": round(n * 1000 / window_ms, 3) if window_ms > 0 else None,
            "mean_ms": round(float(elapsed.mean()), 3), "min_ms": int(elapsed.min()),
            "max_ms": int(elapsed.max()), "p50_ms": round(float(p50), 3), "p90_ms": round(float(p90), 3),
            "p95_ms": round(float(p95), 3), "p99_ms": round(float(p99), 3),
            "in_flight_mean": round(float(elapsed.sum()) / window_ms, 2) if window_ms > 0 else None}


def failures(path, limit=3) -> list[str]:
    """The most common failure messages of the measured window, for error reports."""
    import pandas as pd
    jtl = pd.read_csv(path, usecols=["label", "responseCode", "success", "failureMessage"],
                      dtype=str, keep_default_na=False)
    bad = measured(jtl)
    bad = bad[bad["success"] != "true"]
    reasons = (bad["responseCode"] + " " + bad["failureMessage"]).str.strip()
    return [f"{count}x {reason}" for reason, count in reasons.value_counts().head(limit).items()]


def window_bounds(path: Path) -> tuple[float, float] | None:
    """Epoch seconds of the first measured sample's start and the last one's end (None: no
    measured sample)."""
    import pandas as pd
    jtl = pd.read_csv(path, usecols=["timeStamp", "elapsed", "label"],
                      dtype={"timeStamp": "int64", "elapsed": "int64", "label": str}, keep_default_na=False)
    window = measured(jtl)
    if window.empty:
        return None
    return window["timeStamp"].min() / 1000, (window["timeStamp"] + window["elapsed"]).max() / 1000
