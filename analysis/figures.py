"""The report's figures as PNGs. Each one carries its own title, units, legend and case labels,
so it can be read without the report around it."""
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on servers and CI
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from analysis.load import Run, load_jtl, load_proc  # noqa: E402
from analysis.metrics import METRICS, StudyFigure, case_tick, ordered_frameworks  # noqa: E402
from analysis.tables import CASE_COLUMNS, ok_rows  # noqa: E402
from benchlib.cases import STUDY_PAIR  # noqa: E402

# For arms whose framework.json declares no `colour`, or one an earlier arm of the run took (a
# variant inherits its framework's): the first two are ASP.NET Core's and Express.js's own, so runs
# recorded before `colour` existed keep their look.
PALETTE = ("#512bd4", "#3c873a", "#e0712c", "#1f77b4", "#c0392b", "#8e44ad", "#7f6a00", "#17becf", "#e377c2",
           "#555555")
API_TITLE = {"rest": "REST", "graphql": "GraphQL"}
CASE_AXIS = "Case (concurrent users / rows per request, /J = with join)"
DPI = 110


def colours(run: Run) -> dict[str, str]:
    """arm -> its colour: framework.json's `colour` (recorded in the manifest) where it is a colour
    no earlier arm took, else the next free one of PALETTE; the same in every figure of a report."""
    out, taken = {}, set()
    for arm in run.arms:
        declared = run.entry(arm).colour
        if isinstance(declared, str) and matplotlib.colors.is_color_like(declared) and declared.lower() not in taken:
            out[arm] = declared
            taken.add(declared.lower())
    for i, arm in enumerate(a for a in run.arms if a not in out):
        out[arm] = next((c for c in PALETTE if c not in taken), f"C{i % 10}")
        taken.add(out[arm])
    return out


def colour(run: Run, arm: str) -> str:
    return colours(run).get(arm, PALETTE[-1])


def save(fig, path: Path, bottom: float = 0.0) -> Path:
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def log_scale(ax) -> None:
    """Log y axis labelled in plain numbers (1, 2, 5, 10, 20, 50 …), not just powers of ten."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def footnote(fig, text: str) -> float:
    """Small print under the axes; returns the fraction of the figure height it needs."""
    lines = textwrap.wrap(text, width=int(fig.get_figwidth() * 15))
    fig.text(0.01, 0.01, "\n".join(lines), fontsize=8, color="#444", ha="left", va="bottom")
    return 0.02 + 0.03 * len(lines)


def study_figure(run: Run, agg: pd.DataFrame, sig: pd.DataFrame, spec: StudyFigure, path: Path) -> Path:
    """Grouped bars per case, frameworks side by side, 95 % intervals, * where significant."""
    metric = METRICS[spec.column]
    part = agg[(agg["api"] == spec.api) & (agg["metric"] == spec.column)]
    cases = part[CASE_COLUMNS].drop_duplicates().sort_values("case")
    frameworks = ordered_frameworks(part["framework"])
    x = np.arange(len(cases))
    width = 0.8 / max(len(frameworks), 1)
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(cases) + 2), 5.2))
    tops = np.zeros(len(cases))
    for i, framework in enumerate(frameworks):
        mine = part[part["framework"] == framework].set_index("case").reindex(cases["case"])
        means = mine["mean"].to_numpy(dtype=float)
        err = np.vstack([means - mine["ci_low"].to_numpy(dtype=float),
                         mine["ci_high"].to_numpy(dtype=float) - means])
        at = x + (i - (len(frameworks) - 1) / 2) * width
        # n=1 has no interval: no error bars rather than all-NaN ones matplotlib warns about.
        ax.bar(at, means, width, yerr=err if np.isfinite(err).any() else None, capsize=3,
               label=run.display_name(framework),
               color=colour(run, framework), error_kw={"elinewidth": 1})
        for j in np.flatnonzero(mine["n"].to_numpy() == 1):
            ax.text(at[j], means[j], "n=1", ha="center", va="bottom", fontsize=7)
        tops = np.fmax(tops, np.nan_to_num(mine["ci_high"].to_numpy(dtype=float), nan=0))
        tops = np.fmax(tops, np.nan_to_num(means))
    tests = sig[(sig["api"] == spec.api) & (sig["metric"] == spec.column)].set_index("case")
    for j, case in enumerate(cases["case"]):
        if case in tests.index and tests.loc[case, "significant"]:
            ax.text(x[j], tops[j] * 1.02, "*", ha="center", va="bottom", fontsize=14)
    ax.set_xticks(x, [case_tick(*c) for c in cases.itertuples(index=False)], fontsize=8)
    ax.set_xlabel(CASE_AXIS)
    ax.set_ylabel(f"{metric.label} ({metric.unit})")
    ax.set_ylim(0, max(tops.max() * 1.15, 1) if len(tops) else 1)
    ax.set_title(f"Figure {spec.number} recomputed: {API_TITLE[spec.api]}, {metric.label} per case")
    ax.legend(loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    n = f"{part['n'].min()}" + (f"-{part['n'].max()}" if part["n"].max() != part["n"].min() else "")
    bottom = footnote(fig, f"Bars: mean over ok iterations (n = {n} per bar); error bars: 95 % "
                           f"t-interval (none when n = 1); * = {'/'.join(run.display_name(f) for f in STUDY_PAIR)} "
                           "difference significant at p < 0.05.")
    return save(fig, path, bottom)


def percentiles_by_case(run: Run, agg: pd.DataFrame, api: str, path: Path) -> Path:
    """p50/p90/p95/p99 response time per case, one colour per framework, one dash per percentile."""
    part = agg[(agg["api"] == api)]
    cases = part[CASE_COLUMNS].drop_duplicates().sort_values("case")
    x = np.arange(len(cases))
    styles = {"p50_ms": "-", "p90_ms": "-.", "p95_ms": "--", "p99_ms": ":"}
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(cases) + 3), 5.2))
    for framework in ordered_frameworks(part["framework"]):
        for metric, style in styles.items():
            mine = part[(part["framework"] == framework) & (part["metric"] == metric)] \
                .set_index("case").reindex(cases["case"])
            ax.plot(x, mine["mean"], style, marker="o", markersize=4, color=colour(run, framework),
                    label=f"{run.display_name(framework)} {metric[:3]}")
    log_scale(ax)
    ax.set_xticks(x, [case_tick(*c) for c in cases.itertuples(index=False)], fontsize=8)
    ax.set_xlabel(CASE_AXIS)
    ax.set_ylabel("Response time, mean over iterations (ms, log scale)")
    ax.set_title(f"{API_TITLE[api]} response-time percentiles per case")
    ax.legend(ncol=2, fontsize=8)
    ax.grid(alpha=0.3, which="both")
    return save(fig, path)


def rounds_of(run: Run, api: str, case: int) -> dict:
    """framework -> the rounds of that case's ok items."""
    rows = ok_rows(run)
    rows = rows[(rows["api"] == api) & (rows["case"] == case)]
    return {f: sorted(rows[rows["framework"] == f]["round"]) for f in ordered_frameworks(rows["framework"])}


def latency_curve(run: Run, api: str, case: int, label: str, path: Path) -> Path:
    """Percentiles 0-100 of every sample's response time, all ok iterations pooled."""
    fig, ax = plt.subplots(figsize=(8, 5.2))
    q = np.linspace(0, 100, 201)
    for framework, rounds in rounds_of(run, api, case).items():
        elapsed = np.concatenate([
            load_jtl(run.cell_dir(framework, api, case, round_) / "results.jtl")["elapsed"].to_numpy()
            for round_ in rounds])
        ax.plot(q, np.percentile(elapsed, q), color=colour(run, framework),
                label=f"{run.display_name(framework)} ({len(elapsed)} samples, {len(rounds)} iter.)")
    log_scale(ax)
    ax.set_xlabel("Percentile of requests (%)")
    ax.set_ylabel("Response time (ms, log scale)")
    ax.set_title(f"{API_TITLE[api]} response-time distribution, {label}")
    ax.legend()
    ax.grid(alpha=0.3, which="both")
    return save(fig, path)


def timeline(run: Run, api: str, case: int, label: str, path: Path) -> Path:
    """App CPU and RSS, and the load generator's CPU, over the measured window of one item."""
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    shown = []
    for framework, rounds in rounds_of(run, api, case).items():
        round_ = rounds[0]
        proc = load_proc(run.cell_dir(framework, api, case, round_) / "proc.csv")
        # The load generator's role: `loadgen` from schema 4, `jmeter` before.
        app, loadgen = proc[proc["role"] == "app"], proc[proc["role"].isin(("loadgen", "jmeter"))]
        name, c = run.display_name(framework), colour(run, framework)
        axes[0].plot(app["t_s"], app["cpu_pct"], color=c, label=name)
        axes[1].plot(app["t_s"], app["rss_kb"] / 1024, color=c, label=name)
        axes[2].plot(loadgen["t_s"], loadgen["cpu_pct"], color=c, label=f"load generator, {name} run")
        shown.append(f"{name}: iteration {round_}")
    axes[0].set_ylabel("App CPU\n(% of one core)")
    axes[1].set_ylabel("App memory\n(RSS, MB)")
    axes[2].set_ylabel("Load-generator CPU\n(% of one core)")
    axes[2].set_xlabel("Time since the measured window started (s)")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        ax.set_ylim(bottom=0)
    axes[0].set_title(f"{API_TITLE[api]} resources over time, {label}\n"
                      f"(/proc sampler at 10 Hz; {'; '.join(shown)}; {run.cores} cores = "
                      f"{100 * run.cores} % max)", fontsize=10)
    return save(fig, path)


VALIDITY_MARKERS = {"valid": "o", "bound": "^", "invalid": "x"}


def ceiling(run: Run, items: pd.DataFrame, ceilings: pd.DataFrame, share: float, api: str, path: Path) -> Path:
    """Each item's throughput against the load generator's ceiling at the same connections
    (ceiling.csv: what it drives against an app's 404), per case: near the ceiling the load
    generator, not the app, set the rate.
    `items`: the ok items of the API with their validity (analysis.validity.judged)."""
    cases = items[[*CASE_COLUMNS, "threads"]].drop_duplicates(CASE_COLUMNS).sort_values("case")
    by_threads = ceilings.groupby("threads")["throughput_rps"].mean()
    x = np.arange(len(cases))
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(cases) + 3), 5.2))
    for j, threads in enumerate(cases["threads"]):
        if threads in by_threads.index:
            top = by_threads[threads]
            ax.plot([j - 0.4, j + 0.4], [top, top], color="#333", linewidth=2,
                    label="the load generator's ceiling (its 404 rate at these connections)" if j == 0 else None)
            ax.plot([j - 0.4, j + 0.4], [share * top] * 2, color="#333", linestyle="--", linewidth=1,
                    label=f"{share:.0%} of it: bound from here" if j == 0 else None)
    seen = set()
    arms = ordered_frameworks(items["framework"])
    for i, framework in enumerate(arms):
        offset = (i - (len(arms) - 1) / 2) * 0.25
        for _, row in items[items["framework"] == framework].iterrows():
            j = int(np.flatnonzero(cases["case"].to_numpy() == row["case"])[0])
            state = row["validity"] or "valid"
            label = f"{run.display_name(framework)}, {state}"
            ax.plot(j + offset, row["throughput_rps"], VALIDITY_MARKERS.get(state, "o"), color=colour(run, framework),
                    markersize=7, markerfacecolor="none" if state == "invalid" else colour(run, framework),
                    label=None if label in seen else label)
            seen.add(label)
    log_scale(ax)
    ax.set_xticks(x, [case_tick(*c[:4]) for c in cases.itertuples(index=False)], fontsize=8)
    ax.set_xlabel(CASE_AXIS)
    ax.set_ylabel("Throughput (requests/s, log scale)")
    ax.set_title(f"{API_TITLE[api]}: throughput per item against the load generator's ceiling")
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3, which="both", axis="y")
    bottom = footnote(fig, "One marker per item (round); ● valid, ▲ bound (the load generator set the rate: a "
                           "lower bound of the app's), × invalid. The ceiling is measured once per run, before "
                           "the first round, at each thread count the run uses.")
    return save(fig, path, bottom)


def cpu_per_request(run: Run, agg: pd.DataFrame, api: str, path: Path) -> Path:
    """App and database CPU per request per case, arms side by side, with 95 % intervals."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=False)
    part = agg[agg["api"] == api]
    cases = part[CASE_COLUMNS].drop_duplicates().sort_values("case")
    x = np.arange(len(cases))
    frameworks = ordered_frameworks(part["framework"])
    width = 0.8 / max(len(frameworks), 1)
    for ax, column in zip(axes, ("app_cpu_ms_per_req", "db_cpu_ms_per_req")):
        for i, framework in enumerate(frameworks):
            mine = part[(part["framework"] == framework) & (part["metric"] == column)] \
                .set_index("case").reindex(cases["case"])
            means = mine["mean"].to_numpy(dtype=float)
            err = np.vstack([means - mine["ci_low"].to_numpy(dtype=float),
                             mine["ci_high"].to_numpy(dtype=float) - means])
            ax.bar(x + (i - (len(frameworks) - 1) / 2) * width, means, width, color=colour(run, framework),
                   yerr=err if np.isfinite(err).any() else None, capsize=3, label=run.display_name(framework))
        ax.set_xticks(x, [case_tick(*c) for c in cases.itertuples(index=False)], fontsize=8)
        ax.set_xlabel(CASE_AXIS)
        ax.set_ylabel(f"{METRICS[column].label} (ms of CPU)")
        ax.set_title(METRICS[column].label)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"{API_TITLE[api]}: CPU time per request, usable items only")
    bottom = footnote(fig, "The process's mean CPU over the measured window times its length, over the "
                           "requests completed in it; bars: mean over usable items, error bars: 95 % t-interval "
                           "(none with one item). It stays comparable when the load generator sets the rate.")
    return save(fig, path, bottom)


# p50 dashed under p99 solid; the objective's own percentile, when it is another, dotted.
LATENCY_STYLES = {"p50": "--", "p99": "-"}


def latency_vs_rate(run: Run, latency: pd.DataFrame, api: str, case: int, label: str, objective, path: Path) -> Path:
    """Latency (log axis) against the arrival rate, one colour per framework: p50 and p99 of the
    pooled rounds with their bootstrap intervals, the objective as a line; a hollow marker where
    the server could not keep up (saturated), no point where no round was usable.
    `latency`: analysis.latency.table's rows; `objective`: an analysis.slo.Objective."""
    part = latency[(latency["api"] == api) & (latency["case"] == case)]
    styles = dict(LATENCY_STYLES)
    styles.setdefault(objective.column, ":")
    fig, ax = plt.subplots(figsize=(11, 5.4))
    arms = list(dict.fromkeys(part["framework"]))
    for i, arm in enumerate(arms):
        # Every rate, unmeasured ones as gaps (their percentiles are empty), so no line bridges a rate
        # that was not measured.
        mine = part[part["framework"] == arm].sort_values("target_rps")
        # Frameworks side by side around each rate, so overlapping intervals stay readable.
        x = mine["target_rps"].to_numpy(dtype=float) * (1 + 0.012 * (i - (len(arms) - 1) / 2))
        saturated = mine["saturated"].to_numpy() > 0
        for p, style in styles.items():
            y = mine[f"{p}_ms"].to_numpy(dtype=float)
            err = np.vstack([y - mine[f"{p}_low"].to_numpy(dtype=float), mine[f"{p}_high"].to_numpy(dtype=float) - y])
            measured = np.isfinite(y)
            ax.plot(x, y, color=colour(run, arm), linestyle=style, linewidth=1.5, label=f"{run.display_name(arm)} {p}")
            ax.errorbar(x[measured], y[measured], yerr=np.clip(err[:, measured], 0, None), fmt="none",
                        ecolor=colour(run, arm), capsize=3)
            ax.plot(x[~saturated], y[~saturated], "o", color=colour(run, arm), markersize=5)
            ax.plot(x[saturated], y[saturated], "o", color=colour(run, arm), markersize=7, markerfacecolor="white",
                    markeredgewidth=1.8)
            # Where every round was bound, the bound rounds' upper end: the server's latency was at most that.
            upper = np.where(measured, np.nan, mine[f"{p}_upper"].to_numpy(dtype=float)) \
                if f"{p}_upper" in mine else np.full_like(y, np.nan)
            ax.plot(x, upper, "v", color=colour(run, arm), markersize=7, markerfacecolor="white", alpha=0.8)
    ax.axhline(objective.ms, color="#c0392b", linewidth=1.2, linestyle="-.", label=f"objective: {objective}")
    capacity = part["capacity_rps"].dropna()
    if not capacity.empty:
        ax.axvline(float(capacity.iloc[0]), color="#777", linewidth=1, linestyle=":",
                   label="slowest framework's capacity")
    log_scale(ax)
    # JMeter times whole milliseconds, so a percentile or an interval's end can be 0, which a log
    # axis cannot show: the axis stops just below the smallest positive value, and such a bar runs
    # off its bottom.
    shown = part[[c for p in styles for c in (f"{p}_ms", f"{p}_low", f"{p}_upper") if c in part]].to_numpy(dtype=float)
    shown = shown[np.isfinite(shown) & (shown > 0)]
    if shown.size:
        ax.set_ylim(bottom=shown.min() / 1.6)
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel("Arrival rate (requests/s, Poisson, the same schedule for every framework)")
    ax.set_ylabel("Latency from the intended send time (ms, log scale)")
    ax.set_title(f"{API_TITLE[api]}, {label}: latency against the arrival rate")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the axes: curves fill them
    bottom = footnote(fig, "Percentiles of the usable rounds' samples pooled, with 95 % bootstrap intervals "
                           "(samples resampled within each round); ○ hollow: saturated, the server could not keep "
                           "up with the rate in at least one round; ▽ where every round was bound (JMeter's lag in its "
                           "latencies), the upper end of their interval: the server's latency was at most that; a "
                           "rate with no usable round has no point; a bar running off the bottom reaches 0 ms.")
    return save(fig, path, bottom)
