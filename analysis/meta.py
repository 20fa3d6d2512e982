"""A random-effects model across runs (`./testbed pool`, `./testbed compare`): how far one cell's log
ratio moves from run to run beyond what each run's own interval allows.

Model. In a family of cells (one comparison, API and metric; its cells are the cases), run r's log
ratio of cell c is y_rc = mu_c + u_rc + e_rc: mu_c the cell's true log ratio, u_rc ~ N(0, tau^2) the
run's own departure (what the process served before, how long it ran, the hour: issue 53 measured
tau ~ 0.067 on one cell over four runs, four times that run's standard error), e_rc ~ N(0, s_rc^2)
the run's sampling error, s_rc its log standard error (analysis.paired, analysis.stats; taken as
known, as meta-analysis does). tau is one number per family: with two or three runs a single cell
gives it one or two degrees of freedom, which says almost nothing (a chi-square on 1 df puts its
95 % interval over a factor of 30 in tau^2); the family's cells together give sum(R_c - 1), 18 for
18 cases in two runs. One tau per family assumes the run-to-run spread of a metric does not depend
on the case much; the report shows each run's ratio beside the pooled one (the forest plots), so a
case that moves more than the others is seen.

Estimator: Paule-Mandel, tau^2 such that the generalised Q, sum_rc w_rc (y_rc - mu_c)^2 with
w_rc = 1 / (s_rc^2 + tau^2) and mu_c the weighted mean of cell c, equals its degrees of freedom
sum_c (R_c - 1); 0 when Q at tau^2 = 0 is already below them. Not DerSimonian-Laird: DL's moment
equation weights each run by 1 / s^2 whatever tau is, so a run whose s is small by chance (s comes
from 2-3 rounds here) dominates it, and DL underestimates tau^2 when the s differ and there are
few runs (Veroniki et al. 2016, Res Synth Methods 7:55; Langan et al. 2019, ibid. 10:83, who
recommend PM or REML). PM needs no normality beyond the moment equation, unlike REML, and is the
estimator whose Hartung-Knapp factor is exactly 1 (below). Both estimators are here (`dl_tau2`
serves as PM's first guess and as the cross-check column of the pool's families table), and
coincide when every s in a cell is equal.

Pooled interval (Hartung-Knapp-Sidik-Jonkman). mu_c's standard error is sqrt(phi / sum_r w_rc) and
its interval uses t on the family's degrees of freedom, not the normal: with R runs the normal
interval around an estimated tau covers far less than 95 % (IntHout et al. 2014, BMC Med Res
Methodol 14:25). phi, the Hartung-Knapp factor, is Q(tau^2) / df, which PM sets to 1 whenever
tau^2 > 0; when tau^2 = 0 it would be below 1 and narrow the interval under the one that
assumes no spread, so it is taken as max(1, phi) (Roever et al. 2015, BMC Med Res Methodol 15:99):
phi = 1 always, and what remains of the adjustment is t on sum_c (R_c - 1) degrees of freedom,
R - 1 for a family of one cell. Those count the uncertainty in tau^2 but take each run's s as
known, while here s rests on 2-3 rounds (a few more where the family moderates it): when tau is
small, the pooled variance is mostly the runs' own, and its degrees of freedom are theirs. So
the t takes the smaller of the family's degrees of freedom and the Welch-Satterthwaite degrees of
freedom of the pooled variance sum_r w_r^2 (s_r^2 + tau^2) / (sum_r w_r)^2, each s_r^2 part on
its run's df and the tau^2 part on the family's: Hartung-Knapp's df where tau dominates, fewer
where the runs' own noise does. A cell one run alone has an interval there still has a pooled
interval: its ratio with s^2 + tau^2, tau from the family's other cells.

Simulated (400 pools of 18 cases each, true ratios anywhere), the 95 % pooled interval held the true
ratio 0.95 of the time with 2 or 3 runs at tau = 0.067 and s = 0.02 on 2 df (the spread between
runs dominating, as measured), 0.94-0.95 with tau 0-0.03 and s 0.03-0.05 on 6-10 df (a moderated
family's), and 0.92 with tau = 0 and s on 2 df alone: weights 1 / s^2 of standard errors from 3
rounds favour the runs whose s came out small by chance, which no df quite repays; the family's
moderation (benchlib/moderated.py) gives the cells more. test_meta.py keeps the first case.

I^2 = (Q - df) / Q with Cochran's Q at tau^2 = 0 (Higgins and Thompson 2002): the share of the
spread between runs that their own intervals do not explain; 0 when Q <= df. Q's p is the
chi-square test of "no spread between runs".
"""
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats


@dataclass(frozen=True)
class Fit:
    """One family's random-effects model: `tau2` its between-run variance (log scale), `q` Cochran's
    Q at tau^2 = 0 on `df` degrees of freedom (sum over cells of runs - 1) with its p, `i2`, and per
    cell (by its label) the pooled log ratio, its standard error and the degrees of freedom of its t
    interval (module docstring)."""
    tau2: float
    dl_tau2: float
    q: float
    df: int
    q_p: float | None
    i2: float | None
    means: dict
    ses: dict
    dfs: dict

    @property
    def tau(self) -> float:
        return math.sqrt(self.tau2)

    @property
    def known(self) -> bool:
        """Whether the family had a cell measured by two runs or more: otherwise tau is unknown."""
        return self.df > 0


def by_cell(y, v, cells) -> list[tuple[np.ndarray, np.ndarray]]:
    """(log ratios, variances) of each cell, in the order the cells first appear."""
    y, v, cells = np.asarray(y, dtype=float), np.asarray(v, dtype=float), np.asarray(cells, dtype=object)
    return [(y[cells == c], v[cells == c]) for c in dict.fromkeys(cells.tolist())]


def generalised_q(groups: list[tuple[np.ndarray, np.ndarray]], tau2: float) -> float:
    """sum over cells and runs of w (y - mu_c)^2, w = 1 / (v + tau2), mu_c each cell's weighted mean."""
    total = 0.0
    for y, v in groups:
        w = 1 / (v + tau2)
        total += float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2))
    return total


def dl_tau2(groups: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """DerSimonian-Laird with one tau^2 for several cells (the method of moments of a meta-regression
    on the cells as factors): (Q - df) / sum_c (S1_c - S2_c / S1_c), S1 = sum w, S2 = sum w^2, w = 1 / v."""
    df = sum(len(y) - 1 for y, _ in groups)
    scale = sum(float(np.sum(1 / v) - np.sum(1 / v ** 2) / np.sum(1 / v)) for _, v in groups)
    return max(0.0, (generalised_q(groups, 0.0) - df) / scale) if df > 0 and scale > 0 else 0.0


def pm_tau2(groups: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """Paule-Mandel: the tau^2 >= 0 at which the generalised Q equals its degrees of freedom."""
    df = sum(len(y) - 1 for y, _ in groups)
    if df == 0 or generalised_q(groups, 0.0) <= df:
        return 0.0
    # Q falls from above df towards 0 as tau^2 grows, so one root lies in [0, high].
    high = max(dl_tau2(groups), 1e-12)
    while generalised_q(groups, high) > df:
        high *= 4
    return float(optimize.brentq(lambda t: generalised_q(groups, t) - df, 0.0, high, xtol=1e-14, rtol=1e-12))


def fit(y, se, cells, dfs=None) -> Fit:
    """The model of one family: `y` each run's log ratio of a cell, `se` its log standard error,
    `dfs` the degrees of freedom that standard error rests on (None: known exactly), `cells` the
    cell each belongs to (any hashable label), all of one length."""
    variances = np.asarray(se, dtype=float) ** 2
    groups = by_cell(y, variances, cells)
    own_dfs = [d for d, _ in by_cell(np.full(len(variances), math.inf) if dfs is None else dfs, variances, cells)]
    labels = list(dict.fromkeys(np.asarray(cells, dtype=object).tolist()))
    df = sum(len(g) - 1 for g, _ in groups)
    tau2 = pm_tau2(groups)
    q = generalised_q(groups, 0.0)
    means, ses, cell_dfs = {}, {}, {}
    for label, (g, v), d in zip(labels, groups, own_dfs):
        w = 1 / (v + tau2)
        means[label] = float(np.sum(w * g) / np.sum(w))
        ses[label] = float(math.sqrt(1 / np.sum(w)))
        # The pooled variance's parts: each run's own (estimated on its df) and tau^2's (on the family's).
        parts = [(float(wi ** 2 * vi / np.sum(w) ** 2), float(di)) for wi, vi, di in zip(w, v, d)]
        parts.append((float(np.sum(w ** 2) * tau2 / np.sum(w) ** 2), float(df)))
        cell_dfs[label] = min(float(df), satterthwaite(parts)) if df > 0 else satterthwaite(parts)
    return Fit(tau2=tau2, dl_tau2=dl_tau2(groups), q=q, df=df,
               q_p=float(stats.chi2.sf(q, df)) if df > 0 else None,
               i2=max(0.0, (q - df) / q) if df > 0 and q > 0 else (0.0 if df > 0 else None),
               means=means, ses=ses, dfs=cell_dfs)


def interval(mean: float, se: float, df: int, confidence: float = 0.95) -> tuple[float, float]:
    """The pooled interval of a log ratio, as a ratio: exp(mean -/+ t(df) se)."""
    half = float(stats.t.ppf((1 + confidence) / 2, df)) * se
    return math.exp(mean - half), math.exp(mean + half)


def p_value(mean: float, se: float, df: int) -> float:
    """Two-sided t test of a pooled log ratio against 0."""
    return float(2 * stats.t.sf(abs(mean) / se, df))


def satterthwaite(parts: list[tuple[float, float]]) -> float:
    """The degrees of freedom of a sum of variances, each (variance, its df): Welch-Satterthwaite."""
    total = sum(v for v, _ in parts)
    spread = sum(v ** 2 / df for v, df in parts if v > 0)
    return total ** 2 / spread if spread > 0 else math.inf
