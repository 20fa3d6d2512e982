"""Cells that borrow each other's spread: the moderated (empirical Bayes) variance of paired cells.

A cell's paired t interval (analysis.paired) reads its spread off its own few rounds: 2 or 3 pairs
give 1 or 2 degrees of freedom, t(0.975) is 12.7 or 4.3, and the interval is too wide to decide
anything but a large difference. Yet the cells of one API and metric are measured by the same
machine, rounds and load generator, and their spreads differ mostly by chance: over three default
runs the per-case spreads of the throughput and CPU ratios, pooled over the runs, did not differ
beyond chance (Bartlett's test; the runs and figures: benchlib/README.md, `moderated.py`).

So each cell's variance is moderated as Smyth's limma does for thousands of genes measured a few
times each ("Linear models and empirical Bayes methods for assessing differential expression in
microarray experiments", Stat. Appl. Genet. Mol. Biol. 3(1), 2004, section 6): the cells' sample
variances s_g² (d_g = n_g - 1 degrees of freedom) are taken as drawn from a scaled inverse chi-square
prior (d0 degrees of freedom, scale s0²), fitted by the method of moments on log s_g²; each cell's
variance is then the posterior s̃_g² = (d0 s0² + d_g s_g²) / (d0 + d_g) on d0 + d_g degrees of
freedom, capped at the family's pooled degrees of freedom Σ d_g (limma caps it there too: the prior
holds no more information than the cells it came from). When the cells' spreads differ more than
chance would make them (Bartlett's test at 5 %, spreads_differ), d0 comes out small and each cell
keeps mostly its own spread; when they do not, d0 is infinite and every cell's interval is drawn
from the family's pooled variance on its degrees of freedom. (limma reads d0 off the excess alone;
with 1-2 degrees of freedom per cell that excess is mostly chance: fit_prior.) A cell's ratio is
still its own (the mean of its log ratios); only its standard error and degrees of freedom change.

What a cell still needs: 2 pairs (no ratio is judged on one round). What a family needs: at least
MIN_CELLS cells with a spread, so that the prior's spread is not read off a handful of cells; a
smaller family (`--cases 1,13`) keeps every cell's own spread.

The stopping rule behind extra rounds (benchlib.stopping) reads this moderated interval, the one
the report will show, and after extra rounds (analysis.paired) the standard error of a cell the
rule extended is widened by se_factor on the moderated degrees of freedom: the rule picks cells
whose spread looked small, and a moderated variance weighs a cell's own spread d_g / (d0 + d_g).
Simulated (analysis/test_moderated.py, families of 18 cells, 1,500 families each): where the cells
share one spread the moderated 95 % intervals cover the true ratio 0.952-0.955 of the time on 3
rounds, and 0.954-0.986 after the stopping rule (sd 0.03-0.3); where their spreads differ threefold
(beyond what the three runs above show) 0.936-0.942 on 3 rounds and 0.940-0.983 after the rule
(the lowest at sd 0.03, where most cells settle on 3 rounds): the noisiest cells pay for borrowing a spread
smaller than their own, which is the price of the method. (With the rule reading each cell's own
spread, as it did before it read this one, 0.96-0.97 and 0.955-0.97.)
"""
import math
from dataclasses import dataclass

MIN_CELLS = 6
SPREADS_DIFFER_AT = 0.05


@dataclass(frozen=True)
class Prior:
    df: float        # d0: how many degrees of freedom the family's spread is worth to each cell
    variance: float  # s0²
    pooled_df: float  # Σ d_g: the cap on a cell's degrees of freedom


def fit_prior(variances, dfs) -> Prior | None:
    """The scaled inverse chi-square prior behind the cells' sample variances (limma's fitFDist,
    without covariates); None when fewer than MIN_CELLS cells have a positive variance."""
    import numpy as np  # here, not at the top: a run imports this module, and only one with a budget calls it
    from scipy import special
    s2, d = np.asarray(variances, dtype=float), np.asarray(dfs, dtype=float)
    keep = np.isfinite(s2) & (s2 > 0) & (d > 0)
    s2, d = s2[keep], d[keep]
    if len(s2) < MIN_CELLS:
        return None
    # log s² has mean log s0² + digamma(d/2) - log(d/2) and variance trigamma(d/2) + trigamma(d0/2).
    e = np.log(s2) - special.digamma(d / 2) + np.log(d / 2)
    excess = e.var(ddof=1) - float(np.mean(special.polygamma(1, d / 2)))
    # The excess is read off the cells' scatter, which at 1-2 df each is mostly chance: of families
    # of 18 one-df cells with one true spread, 40 % showed an excess (median d0 1.9, each cell then
    # keeping most of its own one-df spread). So a family keeps the excess only when its spreads
    # differ beyond chance (spreads_differ), and otherwise has the pooled spread on its real df.
    if excess <= 0 or not spreads_differ(s2, d):
        return Prior(math.inf, float((d * s2).sum() / d.sum()), float(d.sum()))
    d0 = 2 * trigamma_inverse(excess)
    return Prior(d0, float(math.exp(e.mean() + special.digamma(d0 / 2) - math.log(d0 / 2))), float(d.sum()))


def spreads_differ(variances, dfs) -> bool:
    """Bartlett's test, from the cells' sample variances and degrees of freedom: whether their true
    variances differ at the 5 % level."""
    import numpy as np
    from scipy import stats
    s2, d = np.asarray(variances, dtype=float), np.asarray(dfs, dtype=float)
    total, k = d.sum(), len(d)
    pooled = (d * s2).sum() / total
    correction = 1 + ((1 / d).sum() - 1 / total) / (3 * (k - 1))
    statistic = (total * math.log(pooled) - (d * np.log(s2)).sum()) / correction
    return bool(stats.chi2.sf(statistic, k - 1) < SPREADS_DIFFER_AT)


def prior_of(log_ratios) -> Prior | None:
    """The prior of a family from its cells' per-round log ratios; a cell counts with at least 2."""
    import numpy as np
    found = [(float(np.var(d, ddof=1)), len(d) - 1) for d in log_ratios if len(d) >= 2]
    return fit_prior(*zip(*found)) if found else None


def trigamma_inverse(y: float) -> float:
    """x with trigamma(x) = y, by Smyth's Newton iteration on 1 / trigamma (limma's trigammaInverse)."""
    from scipy import special
    if y > 1e7:
        return 1 / math.sqrt(y)
    if y < 1e-6:
        return 1 / y
    x = 0.5 + 1 / y
    for _ in range(50):
        tri = float(special.polygamma(1, x))
        step = tri * (1 - tri / y) / float(special.polygamma(2, x))
        x += step
        if -step / x < 1e-8:
            break
    return x


def posterior(prior: Prior | None, variance: float, df: int) -> tuple[float, float]:
    """A cell's moderated variance and its degrees of freedom (its own without a prior)."""
    if prior is None:
        return variance, df
    total = min(prior.df + df, prior.pooled_df)
    if math.isinf(prior.df):
        return prior.variance, total
    return (prior.df * prior.variance + df * variance) / (prior.df + df), total
