"""The report's ratio figures: the answer's forest plots, one per comparison and API, and the
bottom line's summary of every comparison. Each ratio is on a log axis, so 0.5 and 2 sit equally
far from 1, with the band within which the report calls two values similar shaded."""
from pathlib import Path

from matplotlib import ticker
from matplotlib.patches import Patch
import numpy as np
import pandas as pd

from analysis.answer import FLAGGED, STUDY, HEADINGS, LOAD_FLAGS, Versus, better_side, shown
from analysis.claims import MARGIN
from analysis.cores import tag as cores_tag
from analysis.figures import API_TITLE, DPI, footnote, plt
from analysis.load import Run
from analysis.tables import CASE_COLUMNS

BOUND_MARKER = {">=": ">", "<=": "<"}

# Ratios a reader knows (1.25 = 25 % more, 0.8 its inverse), sparse enough for a narrow panel.
TICK_SETS = ((0.5, 0.8, 1, 1.25, 2), (0.1, 0.2, 0.5, 1, 2, 5, 10), (0.01, 0.1, 1, 10, 100))


def ratio_ticks(low: float, high: float) -> list[float]:
    """The densest tick set whose span covers the axis."""
    fits = [ticks for ticks in TICK_SETS if ticks[0] / 1.5 <= low and high <= ticks[-1] * 1.5]
    return [v for v in (fits[0] if fits else TICK_SETS[-1]) if low <= v <= high]


def forest(run: Run, answers: pd.DataFrame, api: str, path: Path, versus: Versus = STUDY) -> Path:
    """The answer as a forest plot: one panel per metric, one row per case, the ratio ASP.NET Core /
    Express.js (or versus's numerator / denominator) on a log axis (so 0.5 and 2 sit equally far
    from 1) with its 95 % interval. `answers` holds that comparison's rows only."""
    part = answers[answers["api"] == api]
    cases = part[CASE_COLUMNS].drop_duplicates().sort_values("case")
    flagged = part.groupby("case")["load_flags"].first()
    y = np.arange(len(cases))[::-1]  # the first case on top, as in the table
    metrics = shown(part)
    # A panel needs about 3.4 inches for its "← … better | … better →" label.
    fig, axes = plt.subplots(1, len(metrics), figsize=(max(13, 3.4 * len(metrics)), 2.6 + 0.45 * len(cases)),
                             sharey=True)
    drawn = part[part["metric"].isin(metrics)]
    limits = [v for v in drawn[["ratio", "ratio_low", "ratio_high"]].to_numpy(dtype=float).ravel()
              if np.isfinite(v) and v > 0]
    # An interval from two pairs can span two orders of magnitude; the axis follows the ratios
    # themselves, at most 8x beyond them, so one wide interval cannot squash every other case.
    points = drawn["ratio"].to_numpy(dtype=float)
    points = points[np.isfinite(points) & (points > 0)]
    low = max(min(limits + [1 / (1 + MARGIN)]), points.min() / 8 if len(points) else 0.5) / 1.15
    high = min(max(limits + [1 + MARGIN]), points.max() * 8 if len(points) else 2) * 1.15
    for ax, metric in zip(np.atleast_1d(axes), metrics):
        mine = part[part["metric"] == metric].set_index("case").reindex(cases["case"])
        ax.axvspan(1 / (1 + MARGIN), 1 + MARGIN, color="#eeeeee", zorder=0)
        ax.axvline(1, color="#333", linewidth=1, zorder=1)
        for yi, (case, cell) in zip(y, mine.iterrows()):
            if pd.isna(cell["ratio"]) or cell.get("bound") == "both":
                continue
            significant = bool(cell["judged"] and cell["significant"])
            c = "#1f4e9c" if significant else "#7f8c8d"
            if not pd.isna(cell["ratio_low"]):
                ax.plot([cell["ratio_low"], cell["ratio_high"]], [yi, yi], color=c, linewidth=2, zorder=2)
            # A bound points the way the ratio can only move.
            ax.plot(cell["ratio"], yi, BOUND_MARKER.get(cell.get("bound"), "o"), markersize=7, color=c, zorder=3,
                    markerfacecolor="white" if flagged.get(case) else c, markeredgewidth=1.8)
        ax.set_xscale("log")
        ax.set_xlim(low, high)
        ax.set_xticks(ratio_ticks(low, high), [f"{v:g}" for v in ratio_ticks(low, high)])
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        # Two variants' display names are too long for a panel: the variants' own names stand in.
        left, right = (run.display_name(f) if versus.frameworks else run.variant_name(f)
                       for f in better_side(metric, versus))
        ax.set_xlabel(f"{versus.symbol}, {HEADINGS[metric]}\n← {left} better | {right} better →", fontsize=9)
        ax.set_title(HEADINGS[metric], fontsize=10)
        ax.grid(axis="x", alpha=0.3, which="major")
    axes[0].set_yticks(y, [f"{c.case}: {c.requests}/{c.rows}{'/J' if c.joins else ''}"
                           + (f" {FLAGGED}" if flagged.get(c.case) else "")
                           for c in cases.itertuples(index=False)], fontsize=9)
    axes[0].set_ylabel("Case")
    axes[0].set_ylim(-0.7, len(cases) - 0.3)
    handles = [
        plt.Line2D([], [], color="#1f4e9c", marker="o", linewidth=2, label="significant (p < 0.05)"),
        plt.Line2D([], [], color="#7f8c8d", marker="o", linewidth=2, label="not significant"),
        plt.Line2D([], [], color="#333", marker="o", markerfacecolor="white", linestyle="none",
                   label=f"{FLAGGED} load-flagged case"),
        Patch(color="#eeeeee", label=f"within {MARGIN * 100:.0f} % of 1"),
    ]
    if (drawn.get("bound", pd.Series(dtype=str)).isin(list(BOUND_MARKER))).any():
        handles.append(plt.Line2D([], [], color="#7f8c8d", marker=">", linestyle="none",
                                  label="load-generator bound: ≥ (▶) or ≤ (◀)"))
    used = sorted({f for flags in flagged for f in str(flags).split(";") if f})
    bottom = footnote(fig, " ".join(["Cases as number: users/rows, /J = with a join; ratios from "
                                     f"{part['comparison'].iloc[0]}."]
                                    + [f"{FLAGGED} {f}: {LOAD_FLAGS[f]}." for f in used]))
    # Laid out before the title and legend exist, then lowered by their fixed height: tight_layout
    # would otherwise leave a gap under them that grows with the figure.
    fig.tight_layout(rect=(0, bottom, 1, 1))
    height = fig.get_figheight()
    fig.subplots_adjust(top=1 - 0.85 / height)
    names = f"{run.display_name(versus.numerator)} / {run.display_name(versus.denominator)}"
    fig.suptitle(f"{API_TITLE[api]}: {names}" + (f" ({versus.symbol})" if versus.study else "")
                 + " per case, with 95 % intervals",
                 y=1 - 0.05 / height, fontsize=11)
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=9, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.3 / height))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


# The summary figure's two metrics: what a team pays for (CPU per request; mean CPU in runs before
# schema 3) beside what it gets (throughput).
SUMMARY_METRICS = (("throughput_rps", "throughput", "#1f4e9c", "o", 0.17),
                   ("app_cpu_ms_per_req", "app CPU per request", "#d35400", "s", -0.17),
                   ("cpu_mean_pct", "mean CPU", "#d35400", "s", -0.17))


def summary(run: Run, answers: pd.DataFrame, against: list[Versus], apis: list[str], path: Path) -> Path:
    """The report's one picture: per comparison (a row of panels) and API (a panel), every case's
    throughput and CPU-per-request ratio on one log axis with their 95 % intervals; hollow where a
    ratio is a bound (the marker then points the way it can only move)."""
    present = set(answers["metric"])
    metrics = [m for m in SUMMARY_METRICS if m[0] in present]
    if "app_cpu_ms_per_req" in present:
        metrics = [m for m in metrics if m[0] != "cpu_mean_pct"]
    cases = sorted(set(answers["case"]))
    fig, axes = plt.subplots(len(against), len(apis), figsize=(11, 0.9 + len(against) * (0.9 + 0.2 * len(cases))),
                             sharey=True, squeeze=False)
    drawn = answers[answers["metric"].isin([m[0] for m in metrics]) & answers["ratio"].gt(0)]
    values = drawn[["ratio", "ratio_low", "ratio_high"]].to_numpy(dtype=float).ravel()
    values = values[np.isfinite(values) & (values > 0)]
    low = min([1 / (1 + MARGIN), *values]) / 1.15
    high = max([1 + MARGIN, *values]) * 1.15
    y = {case: i for i, case in enumerate(reversed(cases))}
    for row, versus in zip(axes, against):
        a, b = run.display_name(versus.numerator), run.display_name(versus.denominator)
        for ax, api in zip(row, apis):
            ax.axvspan(1 / (1 + MARGIN), 1 + MARGIN, color="#eeeeee", zorder=0)
            ax.axvline(1, color="#333", linewidth=1, zorder=1)
            mine = answers[(answers["numerator"] == versus.numerator) & (answers["denominator"] == versus.denominator)
                           & (answers["api"] == api)]
            if mine.empty:
                ax.text(0.5, 0.5, "no case measured for both", transform=ax.transAxes, ha="center", va="center",
                        fontsize=8, color="#555")
            for metric, _, c, marker, offset in metrics:
                for cell in mine[mine["metric"] == metric].itertuples():
                    if pd.isna(cell.ratio) or cell.bound == "both":
                        continue
                    at = y[cell.case] + offset
                    if pd.notna(cell.ratio_low):
                        ax.plot([cell.ratio_low, cell.ratio_high], [at, at], color=c, linewidth=1.8, zorder=2)
                    ax.plot(cell.ratio, at, BOUND_MARKER.get(cell.bound, marker), color=c, markersize=5.5, zorder=3,
                            markerfacecolor="white" if cell.bound else c, markeredgewidth=1.4)
            ax.set_xscale("log")
            ax.set_xlim(low, high)
            ax.set_xticks(ratio_ticks(low, high), [f"{v:g}" for v in ratio_ticks(low, high)])
            ax.xaxis.set_minor_locator(ticker.NullLocator())
            ax.set_title(f"{API_TITLE[api]}: {a} / {b}{cores_tag(run, versus.denominator)}", fontsize=9.5)
            ax.grid(axis="x", alpha=0.3)
            ax.tick_params(labelsize=8)
        row[0].set_yticks(list(y.values()), [f"case {c}" for c in y], fontsize=8)
        row[0].set_ylim(-0.6, len(cases) - 0.4)
    fig.supxlabel("ratio per case, log axis: throughput above 1 and CPU below 1 favour the first framework named; "
                  "grey: within 10 % of 1", fontsize=8)
    handles = [plt.Line2D([], [], color=c, marker=marker, linewidth=1.8, label=f"{label} (95 % interval)")
               for _, label, c, marker, _ in metrics]
    if drawn["bound"].isin(list(BOUND_MARKER)).any():
        handles.append(plt.Line2D([], [], color="#555", marker=">", markerfacecolor="white", linestyle="none",
                                  label="bound by the load generator (▶ ≥, ◀ ≤)"))
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_figheight()))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path
