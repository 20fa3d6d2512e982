"""The pool's forest plots: per comparison and API, one panel per metric, and per case each run's
ratio with its own 95 % interval (a colour per run) above the pooled ratio with the interval that
carries the spread between runs (black diamond), on a log axis as the single-run answer draws it
(analysis.ratio_figures.forest), so a case whose runs disagree more than their intervals is seen."""
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.answer import HEADINGS, Versus, better_side
from analysis.claims import MARGIN
from analysis.figures import API_TITLE, DPI, PALETTE, footnote, plt
from analysis.ratio_figures import BOUND_MARKER, ratio_ticks
from analysis.load import Run
from analysis.tables import CASE_COLUMNS

POOLED_COLOUR = "#111111"


def forest(run: Run, runs: list[str], units: pd.DataFrame, pooled: pd.DataFrame, metrics: list[str], api: str,
           versus: Versus, path: Path) -> Path:
    """`units`: every run's cells of this comparison and API (analysis.pool.UNIT_COLUMNS); `pooled`
    the pooled ones; `run` names the arms."""
    cases = pooled[CASE_COLUMNS].drop_duplicates().sort_values("case")
    rows = len(runs) + 1
    y = np.arange(len(cases))[::-1] * (rows + 1)  # each case a block of its runs and the pool
    fig, axes = plt.subplots(1, len(metrics), figsize=(max(13, 3.4 * len(metrics)), 2.6 + 0.18 * rows * len(cases)),
                             sharey=True)
    axes = np.atleast_1d(axes)
    shown = pd.concat([units[units["metric"].isin(metrics)][["ratio", "ratio_low", "ratio_high"]],
                       pooled[pooled["metric"].isin(metrics)][["ratio", "ratio_low", "ratio_high"]]])
    values = shown.to_numpy(dtype=float).ravel()
    values = values[np.isfinite(values) & (values > 0)]
    points = shown["ratio"].to_numpy(dtype=float)
    points = points[np.isfinite(points) & (points > 0)]
    # As the answer's forest: the axis follows the ratios, at most 8x beyond them.
    low = max(min([*values, 1 / (1 + MARGIN)]), points.min() / 8 if len(points) else 0.5) / 1.15
    high = min(max([*values, 1 + MARGIN]), points.max() * 8 if len(points) else 2) * 1.15
    for ax, metric in zip(axes, metrics):
        ax.axvspan(1 / (1 + MARGIN), 1 + MARGIN, color="#eeeeee", zorder=0)
        ax.axvline(1, color="#333", linewidth=1, zorder=1)
        mine = units[units["metric"] == metric]
        pool = pooled[pooled["metric"] == metric].set_index("case")
        for base, case in zip(y, cases["case"]):
            for i, run_id in enumerate(runs):
                cell = mine[(mine["case"] == case) & (mine["run"] == run_id)]
                if not cell.empty:
                    draw(ax, cell.iloc[0], base + rows - 1 - i, PALETTE[i % len(PALETTE)], "o", 5)
            if case in pool.index:
                draw(ax, pool.loc[case], base - 0.3, POOLED_COLOUR, "D", 7)
        ax.set_xscale("log")
        ax.set_xlim(low, high)
        ax.set_xticks(ratio_ticks(low, high), [f"{v:g}" for v in ratio_ticks(low, high)])
        ax.xaxis.set_minor_locator(plt.NullLocator())
        left, right = (run.display_name(f) for f in better_side(metric, versus))
        ax.set_xlabel(f"{versus.symbol}, {HEADINGS[metric]}\n← {left} better | {right} better →", fontsize=9)
        ax.set_title(HEADINGS[metric], fontsize=10)
        ax.grid(axis="x", alpha=0.3, which="major")
    axes[0].set_yticks(y + rows / 2 - 1, [f"{c.case}: {c.requests}/{c.rows}{'/J' if c.joins else ''}"
                                          for c in cases.itertuples(index=False)], fontsize=9)
    axes[0].set_ylabel("Case")
    axes[0].set_ylim(-1.5, y.max() + rows + 0.5 if len(y) else 1)
    handles = [plt.Line2D([], [], color=PALETTE[i % len(PALETTE)], marker="o", linewidth=1.5, label=run_id)
               for i, run_id in enumerate(runs)]
    handles.append(plt.Line2D([], [], color=POOLED_COLOUR, marker="D", linewidth=2.5, label="pooled (τ counted)"))
    bottom = footnote(fig, "Cases as number: users/rows, /J = with a join. Each run's ratio with its own 95 % "
                           "interval, then the pooled ratio (◆) whose interval counts the spread between runs "
                           "(τ, one per API and metric); ▶/◀: a load-generator-bound ratio, not pooled.")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    height = fig.get_figheight()
    fig.subplots_adjust(top=1 - 0.95 / height)
    names = f"{run.display_name(versus.numerator)} / {run.display_name(versus.denominator)}"
    fig.suptitle(f"{API_TITLE[api]}: {names} per case, each run and pooled, with 95 % intervals",
                 y=1 - 0.05 / height, fontsize=11)
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 5), fontsize=9, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.3 / height))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def draw(ax, cell: pd.Series, at: float, colour: str, marker: str, size: float) -> None:
    if pd.isna(cell["ratio"]) or cell["ratio"] <= 0 or cell.get("bound") == "both":
        return
    if pd.notna(cell["ratio_low"]) and pd.notna(cell["ratio_high"]):
        ax.plot([cell["ratio_low"], cell["ratio_high"]], [at, at], color=colour, linewidth=2 if marker == "D" else 1.3,
                zorder=2)
    ax.plot(cell["ratio"], at, BOUND_MARKER.get(cell.get("bound"), marker), markersize=size, color=colour, zorder=3)
