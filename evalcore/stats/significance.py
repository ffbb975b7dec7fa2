"""Confidence intervals and significance tests (methods §3.4-3.7, §3.9, §4.2; sacreBLEU significance).

* :func:`bootstrap_ci`        BOOT-ITEMS / BOOT-SYSTEMS / BOOT-BOTH percentile CIs (methods §3.8).
* :func:`fisher_ci`, :func:`fisher_compare`   Fisher z CIs and independent-correlation tests (§4.2).
* :func:`williams_test`       Williams' t for two dependent correlations sharing the gold (§3.6).
* :func:`perm_both`           PERM-BOTH permutation test of corr(m2) > corr(m1) (§3.5).
* :func:`perm_pairs`          the same test for acc23 / τ_23 swapping pairwise comparisons (§22.2).
* :func:`significance_clusters`, :func:`compare_metrics`   greedy significance clusters (§3.7).
* :func:`paired_bootstrap`, :func:`paired_approximate_randomization`   paired tests between two
  systems with sacreBLEU 2.x semantics (``sacrebleu/significance.py``).
* :func:`pairwise_permutation_pvalues`, :func:`one_minus_pce`   1−PCE (§3.4, MTME ``pce.py``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .bootstrap import index_counts, percentile_ci
from .correlation import _PAIR_TENSOR_MAX, average_groups, correlation, group_values, grouped, system_level

if TYPE_CHECKING:
    import pandas as pd


# ---------------------------------------------------------------------------------------------
# Fisher z (methods §4.2)
# ---------------------------------------------------------------------------------------------
def fisher_ci(r: float, n: int, alpha: float = 0.05, se: float | None = None) -> tuple[float, float]:
    """Fisher z confidence interval of a correlation (methods §4.2).

    z = atanh(r), SE = 1/sqrt(n−3) (or ``se`` if given, e.g. sqrt(0.437/(n−4)) for Kendall τ,
    Fieller et al.), CI = tanh(z ± z_{1−α/2}·SE). NaN when n ≤ 3.
    """
    if n <= 3 or r is None or np.isnan(r):
        return float("nan"), float("nan")
    if abs(r) >= 1:
        return float(r), float(r)
    z = math.atanh(r)
    s = 1.0 / math.sqrt(n - 3) if se is None else se
    import scipy.stats  # here, not at import (about a second)

    q = scipy.stats.norm.ppf(1 - alpha / 2)
    return math.tanh(z - q * s), math.tanh(z + q * s)


def kendall_se(n: int) -> float:
    """Approximate SE of Fisher-z(τ) for Kendall τ: sqrt(0.437/(n−4)) (Fieller et al.; methods §4.2 [R])."""
    return math.sqrt(0.437 / (n - 4)) if n > 4 else float("nan")


def fisher_compare(r1: float, n1: int, r2: float, n2: int) -> tuple[float, float]:
    """Two **independent** correlations (methods §4.2): Z = (z1−z2)/sqrt(1/(n1−3)+1/(n2−3)).

    Returns (Z, two-sided p). Not valid for two metrics on the same items: use
    :func:`williams_test` or :func:`perm_both`.
    """
    z = (math.atanh(r1) - math.atanh(r2)) / math.sqrt(1 / (n1 - 3) + 1 / (n2 - 3))
    import scipy.stats

    return z, float(2 * scipy.stats.norm.sf(abs(z)))


_BATCH_KW = {"epsilon", "thresh", "thresh_inclusive", "macro", "replace_nans_with_zeros"}


def _batchable(method: str, corr_kwargs: dict[str, Any]) -> bool:
    """Whether :func:`bootstrap_ci` may compute its draws at once: a per-group statistic (registry
    ``rows``) without tie calibration or p-values."""
    from .registry import get

    stat = get(method)
    return stat.rows is not None and not stat.segment_matrices and set(corr_kwargs) <= _BATCH_KW


def _systems_draws(G: np.ndarray, M: np.ndarray, draws: np.ndarray, method: str, *, epsilon: float = 0.0,
                   thresh: float = 25.0, thresh_inclusive: bool = True, macro: bool | None = None,
                   replace_nans_with_zeros: bool = False) -> np.ndarray:
    """``correlation(G[si], M[si], method, "none").value`` for every row ``si`` of ``draws`` in
    one call of the statistic's ``rows`` (each draw one group, as ``grouped`` makes it; the same
    per-row arithmetic as :func:`~evalcore.stats.correlation.group_values` and
    :func:`~evalcore.stats.correlation.average_groups` on one group)."""
    from .registry import get

    stat = get(method)
    k = len(draws)
    g = G[draws].reshape(k, -1)
    m = M[draws].reshape(k, -1)
    ok = ~np.isnan(g)
    m = np.where(ok, m, np.nan)
    counts = ok.sum(1)
    rows = stat.rows
    assert rows is not None  # _batchable checked it
    vals, weights = rows(g, m, epsilon=epsilon, thresh=thresh, thresh_inclusive=thresh_inclusive)
    if weights is None:
        weights = counts.astype(float)
    skip = counts < 2
    vals = np.where(skip, np.nan, np.asarray(vals, dtype=float))
    weights = np.where(skip, 0.0, np.asarray(weights, dtype=float))
    if macro is None:
        macro = not stat.pooled
    w = np.ones(k) if macro else weights
    v = np.nan_to_num(vals, nan=0.0) if replace_nans_with_zeros else vals
    use = (weights > 0) & ~np.isnan(v) & (w != 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(use, (v * w) / np.where(use, w, 1.0), np.nan)


# ---------------------------------------------------------------------------------------------
# Williams test (methods §3.5)
# ---------------------------------------------------------------------------------------------
def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> tuple[float, float]:
    """Williams' test for corr(human, m1) = r12 vs corr(human, m2) = r13 (methods §3.5).

    K = 1 − r12² − r13² − r23² + 2·r12·r13·r23;
    t = (r12 − r13)·sqrt((n−1)(1+r23)) / sqrt(2K(n−1)/(n−3) + ((r12+r13)/2)²(1−r23)³);
    p = 1 − F_{t, n−3}(|t|) one-sided (in the observed direction), doubled if two-sided.
    ``n`` should be the number of valid (non-missing) items (methods §3.5 fixes MTME's quirk).
    Returns (t, p).
    """
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    den2 = 2 * k * (n - 1) / (n - 3) + rbar ** 2 * (1 - r23) ** 3 if n > 3 else float("nan")
    if not den2 > 0:  # two metrics that correlate perfectly (r23 = 1, K = 0), or n <= 3: the statistic is
        # undefined (0/0), NaN as in mt-metrics-eval's stats.WilliamsTest (numpy's 0/0), never a crash
        return float("nan"), float("nan")
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den2)
    # Student's t upper tail, P(T > |t|) = stdtr(df, −|t|): what scipy.stats.t.sf computes, read
    # from scipy.special (0.25 CPU-s to import instead of 0.65 for scipy.stats on a cold page)
    from scipy.special import stdtr

    p = float(stdtr(n - 3, -abs(t)))
    return t, (p if one_sided else min(1.0, 2 * p))


def williams_from_scores(gold: Any, m1: Any, m2: Any, method: str = "pearson",
                         one_sided: bool = True) -> tuple[float, float, float, float]:
    """Williams test on score vectors: r12 = corr(gold, m1), r13 = corr(gold, m2), r23 = corr(m1, m2),
    n = number of cells with gold (methods §3.5). Returns (t, p, r12, r13)."""
    g = np.asarray(gold, dtype=float).ravel()
    a = np.asarray(m1, dtype=float).ravel()
    b = np.asarray(m2, dtype=float).ravel()
    ok = ~np.isnan(g)
    r12 = correlation(g[ok], a[ok], method).value
    r13 = correlation(g[ok], b[ok], method).value
    r23 = correlation(a[ok], b[ok], method).value
    t, p = williams_test(r12, r13, r23, int(ok.sum()), one_sided)
    return t, p, r12, r13


# ---------------------------------------------------------------------------------------------
# Bootstrap CIs (methods §3.8, Deutsch et al. 2021)
# ---------------------------------------------------------------------------------------------
@dataclass
class BootstrapResult:
    value: float
    ci_low: float
    ci_high: float
    samples: np.ndarray
    resample: str
    level: str


def bootstrap_ci(gold: Any, metric: Any, method: str = "pearson", grouping: str = "none", *,
                 level: str = "segment", resample: str = "both", k: int = 1000,
                 alpha: float = 0.05, seed: int | None = 0, metric_system_fn: Callable[[np.ndarray], Any] | None = None,
                 **corr_kwargs: Any) -> BootstrapResult:
    """Percentile bootstrap CI of a correlation (methods §3.8; Deutsch, Dror & Roth 2021).

    ``gold``, ``metric``: (n_sys, n_items) matrices (gold NaN = missing).
    ``resample``: "items" (BOOT-INPUTS), "systems" (BOOT-SYSTEMS) or "both" (BOOT-BOTH: both
    independently, with replacement). The statistic is recomputed on the resampled submatrix;
    at ``level="system"`` each resampled system is first averaged over the resampled items
    (gold: mean over its non-missing cells; metric: mean of its cells, or
    ``metric_system_fn(item_indices) -> vector of n_sys system scores`` for corpus metrics such
    as BLEU recomputed from sufficient statistics), then ``method`` is computed with grouping
    "none". CI = [q_{α/2}, q_{1−α/2}] of the k draws (NaN draws ignored). Seedable
    (``numpy.random.default_rng(seed)``).
    """
    if resample not in ("items", "systems", "both"):
        raise ValueError("resample must be items, systems or both")
    if level not in ("segment", "system"):
        raise ValueError("level must be segment or system")
    G = np.asarray(gold, dtype=float)
    M = np.asarray(metric, dtype=float)
    if G.ndim == 1:
        G, M = G[:, None], M[:, None]
    n_sys, n_items = G.shape
    rng = np.random.default_rng(seed)

    def stat(si: Any, ii: Any) -> float:  # index arrays (rng.integers or aranges)
        g, m = G[np.ix_(si, ii)], M[np.ix_(si, ii)]
        if level == "system":
            if metric_system_fn is not None:
                ms = np.asarray(metric_system_fn(ii), dtype=float)[si]
                gs, _ = system_level(g, None, metric_system=ms)
            else:
                gs, ms = system_level(g, m)
            ok = ~np.isnan(gs)
            return correlation(gs[ok], ms[ok], method, "none", **corr_kwargs).value
        return correlation(g, m, method, grouping, **corr_kwargs).value

    all_s, all_i = np.arange(n_sys), np.arange(n_items)
    value = stat(all_s, all_i)
    if resample == "systems" and level == "segment" and grouping == "none" and _batchable(method, corr_kwargs):
        # every draw at once (the same draws, the same per-draw arithmetic: :func:`_systems_draws`)
        draws = np.stack([rng.integers(0, n_sys, n_sys) for _ in range(k)]) if k else np.zeros((0, n_sys), int)
        samples = _systems_draws(G, M, draws, method, **corr_kwargs)
        lo, hi = percentile_ci(samples, alpha)
        return BootstrapResult(float(value), float(lo), float(hi), samples, resample, level)
    samples = np.empty(k)
    for b in range(k):
        si = rng.integers(0, n_sys, n_sys) if resample in ("systems", "both") else all_s
        ii = rng.integers(0, n_items, n_items) if resample in ("items", "both") else all_i
        samples[b] = stat(si, ii)
    lo, hi = percentile_ci(samples, alpha)  # NaN draws left out
    return BootstrapResult(float(value), float(lo), float(hi), samples, resample, level)


# ---------------------------------------------------------------------------------------------
# PERM-BOTH (methods §3.4)
# ---------------------------------------------------------------------------------------------
@dataclass
class PermResult:
    p_value: float
    delta: float
    draws: int


#: Relative tolerance of "a resampled difference reaches the observed one". Rank statistics take
#: few distinct values, so with few systems many draws give exactly the observed δ; computed
#: as differences of floating-point ratios they land 1 ulp above or below it, and counting them
#: or not moved p-values by up to 0.12. Mathematically equal values are equal here; distinct
#: values of these statistics differ by far more than 1e-12.
TIE_TOLERANCE = 1e-12


def at_least(x: float, threshold: float) -> bool:
    """x ≥ threshold, with x within :data:`TIE_TOLERANCE` (relative) of it counting as equal."""
    return x >= threshold - TIE_TOLERANCE * max(1.0, abs(threshold))


def _zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std()
    z: np.ndarray = (x - x.mean()) / sd if sd > 0 else x - x.mean()
    return z


#: :func:`perm_both` evaluates this many cells (or cell pairs, for the Kendall family) of hybrid
#: draws at once: the draws of one batch cost one call of the row statistic instead of one each
_PERM_BATCH_CELLS = 1_000_000


def _one_group_means(vals: np.ndarray, weights: np.ndarray, macro: bool, replace_nans_with_zeros: bool) -> list[float]:
    """:func:`~evalcore.stats.correlation.average_groups` of many draws of ONE group at once:
    ``vals``, ``weights`` of shape (n, 1). With one group the mean is (v·w)/w (w = 1 when macro),
    the same floating-point operations as average_groups; NaN when the group is skipped."""
    v, w = vals[:, 0], weights[:, 0]
    use = w > 0
    if replace_nans_with_zeros:
        v = np.nan_to_num(v, nan=0.0)
    ww = np.ones_like(w) if macro else w
    ok = use & ~np.isnan(v) & (ww != 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(ok, (v * ww) / np.where(ok, ww, 1.0), np.nan)
    return [float(x) for x in out]


def perm_both(gold: Any, metric1: Any, metric2: Any, method: str = "pearson", grouping: str = "none", *,
              k: int = 1000, block_size: int = 1000, early_min: float = 0.02, early_max: float = 0.5,
              seed: int | None = 0, replace_nans_with_zeros: bool = False, **corr_kwargs: Any) -> PermResult:
    """PERM-BOTH test that corr(metric2) > corr(metric1) (methods §3.4; MTME ``PermutationSigDiff``).

    1. Cells with missing gold are dropped. 2. Each metric's remaining scores are z-scored over
    all cells (population SD, as scipy.stats.zscore). 3. δ = corr(m2) − corr(m1) with the chosen
    grouping (macro mean over groups; NaN groups dropped, or zero with
    ``replace_nans_with_zeros``). 4. Per draw, the two metrics' z-scores are swapped
    independently in every cell with probability ½, giving hybrid metrics; count
    corr(h2) − corr(h1) ≥ δ. 5. p = count/draws (one-sided). 6. At each ``block_size`` boundary
    stop early if p < ``early_min`` or p > ``early_max``.
    A draw within :data:`TIE_TOLERANCE` of δ counts as reaching it (:func:`at_least`): the ≥ is
    decided on the mathematical values, not on floating-point rounding (MTME compares the
    rounded floats, so its p can differ on such draws).
    """
    g, a = grouped(gold, metric1, grouping)
    _, b = grouped(gold, metric2, grouping)
    ok = ~np.isnan(g)
    za = np.full(a.shape, np.nan)
    zb = np.full(b.shape, np.nan)
    za[ok] = _zscore(a[ok])
    zb[ok] = _zscore(b[ok])
    rng = np.random.default_rng(seed)
    macro = corr_kwargs.pop("macro", None)
    if macro is None:
        from .registry import get

        macro = not get(method).pooled

    def corr(m: np.ndarray) -> float:
        vals, w = group_values(g, m, method, **corr_kwargs)
        v, _ = average_groups(vals, w, macro=macro, replace_nans_with_zeros=replace_nans_with_zeros)
        return 0.0 if np.isnan(v) else v

    delta = corr(zb) - corr(za)
    # The draws go in batches: ``rng.random((n, G, L))`` is the stream of n successive
    # ``rng.random((G, L))``, and the row statistics are per group, so the n hybrids stacked as
    # n·G groups give every draw's group values at once (the same values: each group's reduction
    # is unchanged); the mean over groups stays one call per draw. A batch never crosses a
    # ``block_size`` boundary, so the early stop sees the same counts.
    G, L = g.shape
    per_draw = g.size * max(L - 1, 1) // 2 + g.size if L <= _PAIR_TENSOR_MAX else g.size
    batch = max(1, min(block_size, _PERM_BATCH_CELLS // max(per_draw, 1)))
    count = 0
    i = 0
    stop = False
    while i < k and not stop:
        n = min(batch, k - i, block_size - i % block_size)
        swap = rng.random((n,) + g.shape) < 0.5
        h1 = np.where(swap, zb, za).reshape(n * G, L)
        h2 = np.where(swap, za, zb).reshape(n * G, L)
        gn = np.broadcast_to(g, (n, G, L)).reshape(n * G, L)
        v1, w1 = group_values(gn, h1, method, **corr_kwargs)
        v2, w2 = group_values(gn, h2, method, **corr_kwargs)
        v1, w1, v2, w2 = (x.reshape(n, G) for x in (v1, w1, v2, w2))
        if G == 1:  # one group (grouping none, system level): its mean, draw by draw, at once
            c1s, c2s = (_one_group_means(v, w, macro, replace_nans_with_zeros) for v, w in ((v1, w1), (v2, w2)))
        else:
            c1s = [average_groups(v1[d], w1[d], macro=macro, replace_nans_with_zeros=replace_nans_with_zeros)[0]
                   for d in range(n)]
            c2s = [average_groups(v2[d], w2[d], macro=macro, replace_nans_with_zeros=replace_nans_with_zeros)[0]
                   for d in range(n)]
        for d in range(n):
            c1, c2 = c1s[d], c2s[d]
            i += 1
            if at_least((0.0 if np.isnan(c2) else c2) - (0.0 if np.isnan(c1) else c1), delta):
                count += 1
            if i % block_size == 0:
                p = count / i
                if p < early_min or p > early_max:
                    stop = True
                    break
    return PermResult(count / i if i else float("nan"), float(delta), i)


#: :func:`perm_pairs` keeps an n × n matrix per group and metric: the largest group it accepts
MAX_PAIR_GROUP = 3000


def _pair_signs(x: np.ndarray, epsilon: float) -> np.ndarray:
    """(n, n) signs of x[j] − x[i], 0 where |x[j] − x[i]| ≤ ``epsilon`` (a tie)."""
    d = x[None, :] - x[:, None]
    return np.where(np.abs(d) <= epsilon, 0.0, np.sign(d))


def _acc_from_signs(sg: np.ndarray, sm: np.ndarray, variant: str) -> float:
    """acc23 or τ_23 of one group from the gold and metric sign matrices (pairs i < j)."""
    from .correlation import _triu, _variant_from_counts

    iu = _triu(len(sg))
    a, b = sg[iu], sm[iu]
    cnt = np.array([[np.sum(a * b > 0), np.sum(a * b < 0), np.sum((a == 0) & (b != 0)),
                     np.sum((a != 0) & (b == 0)), np.sum((a == 0) & (b == 0))]], dtype=float)
    return float(_variant_from_counts(cnt, "acc23" if variant == "acc23" else "23")[0])


def perm_pairs(gold: Any, metric1: Any, metric2: Any, method: str = "acc23", grouping: str = "item", *,
               epsilon1: float | None = None, epsilon2: float | None = None, k: int = 1000,
               block_size: int = 1000, early_min: float = 0.02, early_max: float = 0.5,
               seed: int | None = 0, sample_rate: float = 1.0, replace_nans_with_zeros: bool = False) -> PermResult:
    """Permutation test that acc23 (or τ_23) of metric2 > that of metric1, swapping pairwise
    comparisons instead of scores (methods §22.2; Deutsch, Foster & Freitag 2023, §5; MTME
    ``PairwisePermutationSigDiff``, the ``perm_test='pairs'`` of the WMT24/WMT25 recipes).

    Each metric keeps its own tie threshold ε (``None``: its calibrated one, as
    :func:`~evalcore.stats.correlation.calibrate_ties`), so no draw needs a recalibration. Within
    each group of ``grouping`` (cells with a gold value, in system order) every pair (i, j) has a
    gold sign and a sign per metric (0 when |Δ| ≤ its ε). δ = value(m2) − value(m1), the value the
    mean over groups (NaN groups dropped, or zero with ``replace_nans_with_zeros``; an empty
    mean is 0). Per draw and group, a symmetric 0/1 matrix (its upper triangle drawn as
    ``RandomState(seed).binomial(1, ½, (n, n))``, group after group, MTME's stream when MTME is
    seeded with ``np.random.seed(seed)``) says which pairs take the other metric's comparison;
    p = share of draws with value(h2) − value(h1) ≥ δ (:func:`at_least`). Early stop at each
    ``block_size`` boundary when p < ``early_min`` or p > ``early_max`` (MTME checks the boundary
    only on draws that reach δ; with k ≤ block_size both agree).
    """
    from .correlation import calibrate_ties

    variant = "acc23" if method == "acc23" else "23"
    if method not in ("acc23", "tau_23"):
        raise ValueError(f"the pairs permutation test compares acc23 or tau_23, not {method!r}")
    g, a = grouped(gold, metric1, grouping)
    _, b = grouped(gold, metric2, grouping)
    if epsilon1 is None:
        epsilon1 = calibrate_ties(g, a, variant, sample_rate=sample_rate).best_epsilon
    if epsilon2 is None:
        epsilon2 = calibrate_ties(g, b, variant, sample_rate=sample_rate).best_epsilon
    biggest = int((~np.isnan(g)).sum(1).max()) if g.size else 0
    if biggest > MAX_PAIR_GROUP:
        raise ValueError(f"the pairs permutation test holds every pair of a group in memory; a group here has "
                         f"{biggest} cells (more than {MAX_PAIR_GROUP}): use --group item (the WMT recipes' grouping)")
    groups = []
    for row in range(len(g)):
        ok = ~np.isnan(g[row])
        groups.append((_pair_signs(g[row][ok], 0.0), _pair_signs(a[row][ok], float(epsilon1)),
                       _pair_signs(b[row][ok], float(epsilon2))))

    def value(pairs: Sequence[np.ndarray]) -> float:
        vals = np.array([_acc_from_signs(sg, sm, variant) for (sg, _, _), sm in zip(groups, pairs)])
        vals = np.nan_to_num(vals) if replace_nans_with_zeros else vals[~np.isnan(vals)]
        return float(np.mean(vals)) if len(vals) else 0.0

    delta = value([x[2] for x in groups]) - value([x[1] for x in groups])
    rng = np.random.RandomState(seed)
    count = i = 0
    for i in range(1, k + 1):
        h1, h2 = [], []
        for _, s1, s2 in groups:
            w = np.triu(rng.binomial(1, 0.5, (len(s1), len(s1))))
            w = (w + w.T) == 1  # symmetric; the diagonal (no pair) does not matter
            h1.append(np.where(w, s1, s2))
            h2.append(np.where(w, s2, s1))
        if at_least(value(h2) - value(h1), delta):
            count += 1
        if i % block_size == 0:
            p = count / i
            if p < early_min or p > early_max:
                break
    return PermResult(count / i if i else float("nan"), float(delta), i)


# ---------------------------------------------------------------------------------------------
# Significance clusters (methods §3.6)
# ---------------------------------------------------------------------------------------------
def significance_clusters(names: Sequence[str], values: Sequence[float], sig: np.ndarray,
                          alpha: float = 0.05) -> list[int]:
    """Greedy contiguous clusters (MTME ``AssignRanks``, methods §3.6).

    ``names``/``values`` must already be sorted by value descending (ties by name) and
    ``sig[i, j]`` (i < j) is the p-value for H0: corr(j) ≥ corr(i). Walking down the list, metric
    j opens a new rank if **any** metric from the current cluster start up to j−1 has
    ``sig[·, j] ≤ alpha``; otherwise it joins the current rank. Returns 1-based ranks.
    """
    ranks = []
    rank, start = 1, 0
    for j in range(len(names)):
        if j > 0 and any(sig[i, j] <= alpha for i in range(start, j)):
            rank += 1
            start = j
        ranks.append(rank)
    return ranks


def compare_metrics(gold: Any, metrics: dict[str, Any], method: str = "pearson", grouping: str = "none", *,
                    test: str = "perm", alpha: float = 0.05, k: int = 1000, seed: int | None = 0,
                    **corr_kwargs: Any) -> tuple[pd.DataFrame, np.ndarray]:
    """Rank metrics by correlation with gold and cluster them by significance (methods §3.4-3.7).

    ``metrics``: name -> matrix/vector aligned with ``gold``. ``test``: "perm" (PERM-BOTH) or
    "williams" (one-sided, Pearson, grouping "none"). Returns (table, sig) where table has
    columns metric, value, rank, and ``sig[i, j]`` is the p-value for H0: corr(j) ≥ corr(i) in
    the sorted order (upper triangle; NaN elsewhere).
    """
    import pandas as pd

    vals = {name: correlation(gold, m, method, grouping, **corr_kwargs).value for name, m in metrics.items()}
    order = sorted(vals, key=lambda n: (-(vals[n] if not np.isnan(vals[n]) else -np.inf), n))
    sig = np.full((len(order), len(order)), np.nan)
    for i in range(len(order)):
        for j in range(i + 1, len(order)):
            a, b = metrics[order[i]], metrics[order[j]]
            if test == "perm":
                # H1: metric i better than metric j  -> perm_both(gold, m_j, m_i)
                sig[i, j] = perm_both(gold, b, a, method, grouping, k=k, seed=seed, **corr_kwargs).p_value
            elif test == "pairs":
                # each metric at its calibrated ε with tie calibration, else at ε (default 0)
                eps = None if corr_kwargs.get("tie_calibration") else corr_kwargs.get("epsilon", 0.0)
                sig[i, j] = perm_pairs(gold, b, a, method, grouping, epsilon1=eps, epsilon2=eps, k=k, seed=seed,
                                       sample_rate=corr_kwargs.get("sample_rate", 1.0)).p_value
            elif test == "williams":
                sig[i, j] = williams_from_scores(gold, a, b, method)[1]
            else:
                raise ValueError("test must be perm, pairs or williams")
    ranks = significance_clusters(order, [vals[n] for n in order], sig, alpha)
    table = pd.DataFrame({"metric": order, "value": [vals[n] for n in order], "rank": ranks})
    return table, sig


# ---------------------------------------------------------------------------------------------
# Paired tests between two systems (sacreBLEU semantics)
# ---------------------------------------------------------------------------------------------
def _as_stats(x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    return a[:, None] if a.ndim == 1 else a


def _scores_of(summed: np.ndarray, score_fn: Callable[[np.ndarray], Any] | None, n: int, vectorized: bool) -> np.ndarray:
    if score_fn is None:
        return summed[:, 0] / n
    if vectorized:
        return np.asarray(score_fn(summed), dtype=float)
    return np.array([score_fn(row) for row in summed], dtype=float)


@dataclass
class PairedResult:
    """``score_a``/``score_b``: full-data scores (a = baseline); ``p_value``; for the bootstrap
    also the mean and 95 % half-width CI of b's resampled scores (sacreBLEU's ``estimate_ci``)."""

    score_a: float
    score_b: float
    p_value: float
    mean_b: float = float("nan")
    ci_b: float = float("nan")
    n_samples: int = 0


def estimate_ci(scores: np.ndarray) -> tuple[float, float]:
    """sacreBLEU ``estimate_ci``: mean and half-width of the 95 % interval of sorted resample
    scores, bounds at indices n//40 and n − n//40 − 1."""
    s = np.sort(np.asarray(scores, dtype=float))
    lo = len(s) // 40
    return float(s.mean()), float(0.5 * (s[len(s) - lo - 1] - s[lo]))


def _p_value(stats: np.ndarray, real: float) -> float:
    """sacreBLEU / multeval p-value: (#(stats > real) + 1) / (len(stats) + 1)."""
    return (int(np.sum(stats > real)) + 1) / (len(stats) + 1)


def _no_difference(score_a: float, score_b: float) -> bool:
    """Whether two full-data scores are equal up to floating-point rounding (relative 1e-12).
    A zero difference is never significant: sacreBLEU's strict ">" makes p = 1/(n+1) there
    (e.g. 0.005 with 200 resamples), which would mark two identical systems as different."""
    return abs(score_a - score_b) <= 1e-12 * max(1.0, abs(score_a), abs(score_b))


def paired_bootstrap(stats_a: Any, stats_b: Any, score_fn: Callable[[np.ndarray], Any] | None = None, *, n_samples: int = 1000,
                     seed: int | None = 12345, vectorized: bool = False) -> PairedResult:
    """Paired bootstrap resampling test between baseline a and system b (sacreBLEU ``_paired_bs_test``,
    i.e. Koehn 2004 / Moses ``bootstrap-hypothesis-difference-significance.pl``).

    ``stats_a``, ``stats_b``: per-segment scores (n,) or sufficient statistics (n, k).
    ``score_fn(summed_stats) -> score`` turns summed statistics into a corpus score (e.g. BLEU
    from its n-gram counts); the default is the mean of the per-segment scores. With
    ``vectorized=True`` it receives an (n_samples, k) array and returns n_samples scores.
    Semantics: ``rng = numpy.random.default_rng(seed)``; indices
    ``rng.choice(n, size=(n_samples, n), replace=True)`` (full-size resamples, the same
    indices for both systems); observed diff = |score_a − score_b|; per resample
    d_i = |score_b,i − score_a,i|; centred d_i − mean(d); p = (#(centred > observed) + 1)/(n_samples + 1).
    Divergence from sacreBLEU: equal full-data scores give p = 1 (a zero difference is never
    significant; sacreBLEU gives 1/(n_samples + 1)).
    """
    a, b = _as_stats(stats_a), _as_stats(stats_b)
    n = len(a)
    if len(b) != n:
        raise ValueError("the two systems must have the same number of segments")
    rng = np.random.default_rng(seed)
    idxs = rng.choice(n, size=(n_samples, n), replace=True)
    counts = index_counts(idxs, n)  # multiplicities of each resample: one matrix product per system
    full_a = _scores_of(a.sum(0, keepdims=True), score_fn, n, vectorized)[0]
    full_b = _scores_of(b.sum(0, keepdims=True), score_fn, n, vectorized)[0]
    sa = _scores_of(counts @ a, score_fn, n, vectorized)
    sb = _scores_of(counts @ b, score_fn, n, vectorized)
    diff = abs(full_a - full_b)
    d = np.abs(sb - sa)
    p = 1.0 if _no_difference(full_a, full_b) else _p_value(d - d.mean(), diff)
    mean_b, ci_b = estimate_ci(sb)
    return PairedResult(float(full_a), float(full_b), p, mean_b, ci_b, n_samples)


def paired_approximate_randomization(stats_a: Any, stats_b: Any,
                                     score_fn: Callable[[np.ndarray], Any] | None = None, *,
                                     n_samples: int = 10000, seed: int | None = 12345,
                                     vectorized: bool = False) -> PairedResult:
    """Paired approximate randomisation test (sacreBLEU ``_paired_ar_test``; Riezler & Maxwell 2005,
    multeval's stratified AR).

    ``rng = numpy.random.default_rng(seed)``; mask ``rng.integers(2, size=(n_samples, n),
    dtype=bool)``; per trial pseudo-system A takes a's statistics where the mask is set and b's
    elsewhere, pseudo-system B the rest (whole-segment swaps, full size); observed diff =
    |score_a − score_b|; p = (#(|A_i − B_i| > diff) + 1)/(n_samples + 1). Two-sided.
    Equal full-data scores give p = 1 (as :func:`paired_bootstrap`).
    """
    a, b = _as_stats(stats_a), _as_stats(stats_b)
    n = len(a)
    if len(b) != n:
        raise ValueError("the two systems must have the same number of segments")
    rng = np.random.default_rng(seed)
    pos = rng.integers(2, size=(n_samples, n), dtype=bool)
    neg = ~pos
    shuf_a = pos.astype(float) @ a + neg.astype(float) @ b
    shuf_b = neg.astype(float) @ a + pos.astype(float) @ b
    full_a = _scores_of(a.sum(0, keepdims=True), score_fn, n, vectorized)[0]
    full_b = _scores_of(b.sum(0, keepdims=True), score_fn, n, vectorized)[0]
    sa = _scores_of(shuf_a, score_fn, n, vectorized)
    sb = _scores_of(shuf_b, score_fn, n, vectorized)
    diff = abs(full_a - full_b)
    p = 1.0 if _no_difference(full_a, full_b) else _p_value(np.abs(sa - sb), diff)
    return PairedResult(float(full_a), float(full_b), p, n_samples=n_samples)


# ---------------------------------------------------------------------------------------------
# 1 − PCE (methods §3.3; MTME pce.py, Thompson 2024)
# ---------------------------------------------------------------------------------------------
def pairwise_permutation_pvalues(seg_scores: Any, num_permutations: int = 1000, seed: int = 4) -> np.ndarray:
    """One-sided paired permutation p-values for "system i > system j" (methods §3.3, 1−PCE).

    ``seg_scores``: (n_sys, n_seg). The statistic is the difference of summed scores; null draws
    multiply each segment by a random ±1 shared by both systems (masks from
    ``default_rng(seed).random(float32)`` rounded to 0/1, then 2m−1, as MTME; float32 sums).
    ``p[i, j]`` (i < j) = fraction of null deltas ≥ the observed delta; NaN elsewhere.
    """
    x = np.ascontiguousarray(seg_scores, dtype=np.float32)  # one memory layout: float32 sums depend on it
    ns, nseg = x.shape
    rng = np.random.default_rng(seed)
    mask = rng.random(size=(num_permutations, nseg), dtype=np.float32)
    np.rint(mask, out=mask)
    mask = mask * np.float32(2.0) - np.float32(1.0)
    sys = x.sum(1)
    partial = mask @ x.T
    p = np.full((ns, ns), np.nan)
    for i in range(ns):
        for j in range(i + 1, ns):
            p[i, j] = np.sum(partial[:, i] - partial[:, j] >= sys[i] - sys[j]) / num_permutations
    return p


def one_minus_pce(gold: Any, metric: Any, num_permutations: int = 1000, seed: int = 4) -> float:
    """1 − PCE = 1 − mean over i<j of |p_human(i>j) − p_metric(i>j)| (methods §3.3)."""
    ph = pairwise_permutation_pvalues(gold, num_permutations, seed)
    pm = pairwise_permutation_pvalues(metric, num_permutations, seed)
    iu = np.triu_indices(ph.shape[0], 1)
    return float(1 - np.mean(np.abs(ph - pm)[iu]))
