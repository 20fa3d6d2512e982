"""How the report writes a number: whole from 1,000 up, one decimal from 10, two from 1, three
significant figures below that, and – for none; a mean with its 95 % interval, flags and bound;
a recorded value, ? for none."""
import pandas as pd


def fmt(value) -> str:
    if value is None or pd.isna(value):
        return "–"
    size = abs(value)
    return f"{value:.0f}" if size >= 1000 else f"{value:.1f}" if size >= 10 else \
        f"{value:.2f}" if size >= 1 else f"{value:.3g}"


def known(value) -> str:
    """A value the manifest records, as written; `?` where the run did not record it."""
    return "?" if value is None else str(value)


def fmt_ci(mean, low, high, n, flagged, bound=False) -> str:
    """`12.3 [11.0, 13.6] †1`; a mean that takes a bound item's value: `≥ 12.3 (bound)`."""
    if pd.isna(n) or n == 0:
        return "–"
    text = f"≥ {fmt(mean)} (bound)" if pd.notna(bound) and bool(bound) \
        else fmt(mean) + (f" [{fmt(low)}, {fmt(high)}]" if n >= 2 else " (n=1)")
    return text + (f" †{int(flagged)}" if flagged else "")
