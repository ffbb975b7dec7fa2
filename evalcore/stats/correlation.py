"""Correlation statistics with google-research/mt-metrics-eval (MTME) semantics.

Reference: docs/methods.md §3.2-3.4 (MTME ``stats.py`` / ``tau_optimization.py``),
§4.1 (WMT DARR Kendall-like) and §3.9 / §4.2 (confidence intervals, in
:mod:`evalcore.stats.significance`).

Data layout (methods §3.1). Scores are a matrix of shape ``(n_sys, n_items)``: one row per system,
one column per item (segment). ``NaN`` in the *gold* (human) matrix marks a missing judgement;
such cells are dropped together with the matching metric cells (methods §3.2). Metric scores must
be complete wherever gold exists (a :class:`ValueError` says how many cells are missing).
A 1-D pair of vectors is one group (system level, or a flat vector).

Grouping (``grouping``, MTME's ``average_by``):

* ``"none"`` – one correlation over the flattened cells (the only sensible choice at system level);
* ``"sys"``  – one correlation per system row, across items, then averaged;
* ``"item"`` – one correlation per item column, across systems, then averaged ("item-wise").

Averaging (MTME ``AverageCorrelation``, methods §3.1): groups with fewer than 2 non-missing gold
values are skipped; NaN group values (constant vectors) are dropped from the mean unless
``replace_nans_with_zeros``; the mean is a macro mean unless ``macro=False``, in which case each
group is weighted by its number of cells (or, for the Kendall-like statistic, by its number of
pairs, which pools the pairs: Σ(C−D)/Σ(C+D)). Divergence from MTME: when no group contributes,
the value is NaN (MTME returns 0).

Methods:

``pearson``, ``spearman``  scipy semantics (NaN on a constant vector);
``kendall`` / ``tau_b``    Kendall τ_b (scipy's definition, via pair counts so an ε applies);
``tau_c``                  Stuart's τ_c = 2(C−D)/(n²(m−1)/m), m = min #distinct values (ε must be 0);
``tau_23``                 (C + T_hm − D − T_h − T_m)/N   (Deutsch et al. 2023);
``acc23``                  (C + T_hm)/N, pairwise accuracy with ties; ``tie_calibration=True``
                           picks the global ε that maximises it (methods §3.3);
``kendall_like``           WMT "Kendall-like": pairs with |Δgold| ≥ ``thresh``; metric ties are
                           discordant; τ = (C−D)/(C+D), 0 without pairs;
``darr``                   WMT17-20 DARR: ``kendall_like`` with thresh 25 over same-item pairs,
                           pooled over items (grouping "item", ``macro=False``), methods §4.1.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .registry import REGISTRY, Statistic, get, names

from ..metrics._caches import lru_memo

# scipy.stats is imported where it is used: importing it costs about a second, which the
# pages that show a figure before any correlation should not pay first

GROUPINGS = ("none", "item", "sys")
#: per-group values and weights (None: weight groups by their cell counts) of a row statistic
Rows = tuple[np.ndarray, "np.ndarray | None"]


def __getattr__(name: str) -> Any:
    # METHODS: the statistics of evalcore.stats.registry, listed when asked (registry plugins
    # may add statistics until then)
    if name == "METHODS":
        return names()
    raise AttributeError(name)

# beyond this many items per group the O(L²) pair tensor is built row by row
_PAIR_TENSOR_MAX = 64
# beyond this vector length, ε = 0 pair counts use the O(n log n) scipy route
_BRUTE_MAX = 2500


# tie calibration lays the pairs of this many cells' groups side by side at once
_CALIBRATION_CELLS = 4_000_000
# groups up to this size keep their pair indices cached (all sizes together ≤ 45 MB)
_TRIU_CACHE_MAX = 256


@lru_memo("stats.triu_indices", _TRIU_CACHE_MAX)
def _triu_cached(n: int) -> tuple[np.ndarray, np.ndarray]:
    iu, ju = np.triu_indices(n, 1)
    iu.flags.writeable = False
    ju.flags.writeable = False
    return iu, ju


def _triu(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n, 1)``; for n ≤ :data:`_TRIU_CACHE_MAX` computed once per size and
    shared read-only: tie calibration, the row statistics and every permutation draw ask for the
    same few sizes again and again."""
    if n <= _TRIU_CACHE_MAX:
        return _triu_cached(n)
    iu, ju = np.triu_indices(n, 1)
    return iu, ju


@dataclass
class CorrResult:
    """One correlation: ``value``; ``n`` = cells used; ``groups`` = groups that contributed;
    ``epsilon`` = metric tie threshold used (tie calibration); ``p_value`` = mean of the per-group
    p-values (MTME heuristic; only for pearson/spearman/kendall, else NaN); ``per_group`` = the
    group values (NaN for skipped groups)."""

    value: float
    n: int
    groups: int
    epsilon: float = 0.0
    p_value: float = float("nan")
    per_group: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)


# ---------------------------------------------------------------------------------------------
# Layout helpers
# ---------------------------------------------------------------------------------------------
def pivot_scores(frame: pd.DataFrame, systems: Sequence[Any] | None = None, seg_ids: Sequence[Any] | None = None,
                 value: str = "score") -> tuple[np.ndarray, list[Any], list[Any]]:
    """Long frame (system, seg_id, score) -> (matrix n_sys × n_items, systems, seg_ids).

    Missing cells are NaN. ``systems`` / ``seg_ids`` fix the order (and subset); by default the
    order of first appearance. Duplicated (system, seg_id) rows raise ValueError.
    """
    if frame.duplicated(["system", "seg_id"]).any():
        raise ValueError("duplicated (system, seg_id) rows: aggregate them first")
    systems = list(dict.fromkeys(frame["system"])) if systems is None else list(systems)
    seg_ids = list(dict.fromkeys(frame["seg_id"])) if seg_ids is None else list(seg_ids)
    wide = frame.pivot(index="system", columns="seg_id", values=value)
    wide = wide.reindex(index=systems, columns=seg_ids)
    return wide.to_numpy(dtype=float), systems, seg_ids


def _as_matrix(x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError("scores must be a vector or a (n_sys, n_items) matrix")
    return a


def grouped(gold: Any, metric: Any, grouping: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """Reshape per methods §3.1 into (G, L) group matrices with NaN where gold is missing.

    Returns ``(g, m)``; ``g[k]`` / ``m[k]`` are the gold / metric values of group k. A 1-D
    input is one system row (``grouping="none"`` or ``"sys"`` give one group).
    Raises ValueError when the metric is missing where gold exists.
    """
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping must be one of {GROUPINGS}, not {grouping!r}")
    g, m = _as_matrix(gold), _as_matrix(metric)
    if g.shape != m.shape:
        raise ValueError(f"gold shape {g.shape} != metric shape {m.shape}")
    ok = ~np.isnan(g)
    bad = int((ok & np.isnan(m)).sum())
    if bad:
        raise ValueError(f"metric scores are missing for {bad} cell(s) that have gold scores "
                         "(MTME requires complete metric scores, methods §3.2)")
    m = np.where(ok, m, np.nan)
    if grouping == "none":
        return g.reshape(1, -1), m.reshape(1, -1)
    if grouping == "item":
        return g.T.copy(), m.T.copy()
    return g.copy(), m.copy()


# ---------------------------------------------------------------------------------------------
# Kendall sufficient statistics (methods §3.3)
# ---------------------------------------------------------------------------------------------
def _tie_pairs(*cols: np.ndarray) -> int:
    if len(cols[0]) < 2:
        return 0
    arr = np.column_stack(cols)
    _, counts = np.unique(arr, axis=0, return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def kendall_counts(gold: Any, metric: Any, epsilon: float = 0.0) -> tuple[int, int, int, int, int]:
    """Pair counts (C, D, T_h, T_m, T_hm) of methods §3.3 for two complete vectors.

    C concordant, D discordant, T_h tied in gold only, T_m tied in metric only, T_hm tied in
    both. A metric pair is a tie when |Δmetric| ≤ ``epsilon``. ε = 0 on long vectors uses the
    O(n log n) route: tie counts from value groups, C − D from scipy's τ_b (exact after rounding
    to the integer it must be).
    """
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    if epsilon < 0:
        raise ValueError("epsilon must be >= 0")
    n = len(g)
    total = n * (n - 1) // 2
    if n < 2:
        return 0, 0, 0, 0, 0
    if epsilon == 0 and n > _BRUTE_MAX:
        tg, tm, thm = _tie_pairs(g), _tie_pairs(m), _tie_pairs(g, m)
        th, tmo = tg - thm, tm - thm
        cd_total = total - th - tmo - thm
        if cd_total == 0:
            return 0, 0, th, tmo, thm
        import scipy.stats

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tau = scipy.stats.kendalltau(g, m, variant="b").statistic
        diff = 0 if np.isnan(tau) else int(round(tau * np.sqrt(float(total - tm)) * np.sqrt(float(total - tg))))
        c = (cd_total + diff) // 2
        return int(c), int(cd_total - c), int(th), int(tmo), int(thm)
    c = d = th = tm = thm = 0
    block = max(1, 4_000_000 // max(n, 1))
    cols = np.arange(n)
    for a in range(0, n, block):
        b = min(n, a + block)
        rows = np.arange(a, b)
        mask = cols[None, :] > rows[:, None]
        dg = g[None, :] - g[a:b, None]
        dm = m[None, :] - m[a:b, None]
        gt = dg == 0
        mt = np.abs(dm) <= epsilon
        sg, sm = np.sign(dg), np.sign(dm)
        c += int((mask & ~gt & ~mt & (sg == sm)).sum())
        d += int((mask & ~gt & ~mt & (sg != sm)).sum())
        th += int((mask & gt & ~mt).sum())
        tm += int((mask & ~gt & mt).sum())
        thm += int((mask & gt & mt).sum())
    return c, d, th, tm, thm


def _counts_rows(g: np.ndarray, m: np.ndarray, epsilon: float = 0.0) -> np.ndarray:
    """Vectorised (C, D, T_h, T_m, T_hm) per row of (G, L) matrices with NaN = missing."""
    G, L = g.shape
    if L <= _PAIR_TENSOR_MAX:
        iu, ju = _triu(L)
        dg = g[:, ju] - g[:, iu]
        dm = m[:, ju] - m[:, iu]
        valid = ~np.isnan(dg)
        gt = dg == 0
        mt = np.abs(dm) <= epsilon
        sg, sm = np.sign(dg), np.sign(dm)
        c = (valid & ~gt & ~mt & (sg == sm)).sum(1)
        d = (valid & ~gt & ~mt & (sg != sm)).sum(1)
        th = (valid & gt & ~mt).sum(1)
        tm = (valid & ~gt & mt).sum(1)
        thm = (valid & gt & mt).sum(1)
        return np.stack([c, d, th, tm, thm], axis=1).astype(float)
    out = np.zeros((G, 5))
    for k in range(G):
        ok = ~np.isnan(g[k])
        out[k] = kendall_counts(g[k][ok], m[k][ok], epsilon)
    return out


def _variant_from_counts(cnt: np.ndarray, variant: str, sizes: Any = None, minclasses: Any = None) -> np.ndarray:
    c, d, th, tm, thm = cnt.T
    tot = c + d + th + tm + thm
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            den = np.sqrt(tot - tm - thm) * np.sqrt(tot - th - thm)
            out = np.where(den > 0, (c - d) / np.where(den > 0, den, 1), np.nan)
        elif variant == "c":
            n = np.asarray(sizes, dtype=float)
            mc = np.asarray(minclasses, dtype=float)
            den = n ** 2 * (mc - 1) / mc
            bad = (tot - tm - thm == 0) | (tot - th - thm == 0) | (den <= 0)
            out = np.where(bad, np.nan, 2 * (c - d) / np.where(den > 0, den, 1))
        elif variant == "23":
            out = np.where(tot > 0, (c + thm - d - th - tm) / np.where(tot > 0, tot, 1), np.nan)
        elif variant == "acc23":
            out = np.where(tot > 0, (c + thm) / np.where(tot > 0, tot, 1), np.nan)
        else:
            raise ValueError(f"unknown Kendall variant {variant!r}")
    return out


def kendall_variant(gold: Any, metric: Any, variant: str = "b", epsilon: float = 0.0) -> float:
    """Kendall τ_b / τ_c / τ_23 / acc23 of two complete vectors (methods §3.3, MTME ``KendallVariants``).

    τ_b = (C−D)/sqrt((N−T_m−T_hm)(N−T_h−T_hm)), NaN if a factor is 0;
    τ_c = 2(C−D)/(n²(m−1)/m), m = min(#distinct metric, #distinct gold), ε must be 0;
    τ_23 = (C+T_hm−D−T_h−T_m)/N; acc23 = (C+T_hm)/N.
    """
    if variant == "c" and epsilon > 0:
        raise ValueError("tau_c is not defined with epsilon > 0 (methods §3.3)")
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    cnt = np.array([kendall_counts(g, m, epsilon)], dtype=float)
    mc = min(len(np.unique(m)), len(np.unique(g))) if len(g) else 0
    return float(_variant_from_counts(cnt, variant, [len(g)], [mc])[0])


def kendall_like(gold: Any, metric: Any, thresh: float = 25.0, inclusive: bool = True) -> tuple[float, int, int, int]:
    """WMT "Kendall-like" τ of one vector (methods §3.3 KendallLike, §4.1 DARR).

    Pairs: both gold values present (NaN = missing) and |Δgold| ≥ ``thresh`` (``inclusive``,
    MTME's choice) or > ``thresh`` (the WMT papers' wording). Concordant if the metric orders
    the pair like gold, otherwise discordant: **metric ties are discordant**.
    Returns ``(tau, n_pairs, C, D)`` with tau = (C−D)/(C+D), or 0 without pairs.
    """
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    ok = ~np.isnan(g)
    g, m = g[ok], m[ok]
    c = d = 0
    n = len(g)
    block = max(1, 4_000_000 // max(n, 1))
    cols = np.arange(n)
    for a in range(0, n, block):
        b = min(n, a + block)
        mask = cols[None, :] > np.arange(a, b)[:, None]
        dg = g[a:b, None] - g[None, :]
        dm = m[a:b, None] - m[None, :]
        sel = mask & ((np.abs(dg) >= thresh) if inclusive else (np.abs(dg) > thresh))
        conc = sel & (((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0)))
        c += int(conc.sum())
        d += int((sel & ~conc).sum())
    npairs = c + d
    return ((c - d) / npairs if npairs else 0.0), npairs, c, d


def _kendall_like_rows(g: np.ndarray, m: np.ndarray, thresh: float, inclusive: bool) -> Rows:
    G, L = g.shape
    if L <= _PAIR_TENSOR_MAX:
        iu, ju = _triu(L)
        dg = g[:, iu] - g[:, ju]
        dm = m[:, iu] - m[:, ju]
        valid = ~np.isnan(dg)
        with np.errstate(invalid="ignore"):
            sel = valid & ((np.abs(dg) >= thresh) if inclusive else (np.abs(dg) > thresh))
            conc = sel & (((dg > 0) & (dm > 0)) | ((dg < 0) & (dm < 0)))
        c = conc.sum(1).astype(float)
        d = (sel & ~conc).sum(1).astype(float)
    else:
        res = np.array([kendall_like(g[k], m[k], thresh, inclusive)[2:] for k in range(G)], dtype=float)
        c, d = res[:, 0], res[:, 1]
    npairs = c + d
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(npairs > 0, (c - d) / np.where(npairs > 0, npairs, 1), 0.0)
    return tau, npairs


# ---------------------------------------------------------------------------------------------
# Row-wise Pearson / Spearman
# ---------------------------------------------------------------------------------------------
def _pearson_rows(g: np.ndarray, m: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(g)
    n = ok.sum(1)
    gz = np.where(ok, g, 0.0)
    mz = np.where(ok, m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        gm = gz.sum(1) / n
        mm = mz.sum(1) / n
        gc = np.where(ok, g - gm[:, None], 0.0)
        mc = np.where(ok, m - mm[:, None], 0.0)
        sxy = (gc * mc).sum(1)
        sxx = (gc * gc).sum(1)
        syy = (mc * mc).sum(1)
        # scipy returns NaN for a constant input (all values equal)
        gmax, gmin = np.where(ok, g, -np.inf).max(1), np.where(ok, g, np.inf).min(1)
        mmax, mmin = np.where(ok, m, -np.inf).max(1), np.where(ok, m, np.inf).min(1)
        const = (gmax == gmin) | (mmax == mmin)
        r = sxy / np.sqrt(sxx * syy)
    r = np.clip(r, -1.0, 1.0)
    return np.where(const | (n < 2), np.nan, r)


def _rank_rows(x: np.ndarray) -> np.ndarray:
    import scipy.stats

    if not np.isnan(x).any():
        return scipy.stats.rankdata(x, axis=1)
    return scipy.stats.rankdata(x, axis=1, nan_policy="omit")


def _p_values(method: str, g: np.ndarray, m: np.ndarray, keep: np.ndarray) -> np.ndarray:
    out = np.full(len(g), np.nan)
    fn = get(method).p_value
    assert fn is not None, f"{method} has no p-value"  # the caller checks stat.p_value first
    for k in np.flatnonzero(keep):
        ok = ~np.isnan(g[k])
        if ok.sum() > 2:
            out[k] = fn(g[k][ok], m[k][ok])
    return out


# ---------------------------------------------------------------------------------------------
# Tie calibration (methods §3.3, Deutsch et al. 2023; MTME tau_optimization)
# ---------------------------------------------------------------------------------------------
def _group_flips(g: np.ndarray, m: np.ndarray, step: float, ntot: float, ngroups: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """|Δm| and the curve step of every pair of one group that becomes a metric tie at some ε > 0,
    in ``np.triu_indices`` order (:func:`calibrate_ties`); the pairs built row by row, without
    the index arrays and padded rows of the general path."""
    n = len(g)
    dg = np.concatenate([g[i + 1:] - g[i] for i in range(n - 1)])
    dm = np.concatenate([m[i + 1:] - m[i] for i in range(n - 1)])
    adm = np.abs(dm)
    flip = adm > 0
    adm, dg, dm = adm[flip], dg[flip], dm[flip]
    conc = np.sign(dg) * np.sign(dm) > 0
    gtie = dg == 0
    return adm, (-step * conc + step * gtie) / np.float64(ntot) / ngroups


@dataclass
class TieCalibration:
    """Result of :func:`calibrate_ties`: best value, its ε, and the whole curve."""

    best_value: float
    best_epsilon: float
    thresholds: np.ndarray
    values: np.ndarray


def calibrate_ties(g: np.ndarray, m: np.ndarray, variant: str = "acc23", sample_rate: float = 1.0,
                    seed: int | None = None, max_pairs: int = 50_000_000) -> TieCalibration:
    """Find the single global ε maximising the mean over groups of acc23 or τ_23 (methods §3.3).

    ``g``, ``m``: (G, L) group matrices (see :func:`grouped`), NaN = missing. Within-group pairs
    non-missing on both sides are sorted by |Δm|; from ε = 0 they turn into metric ties in that
    order (equal |Δm| flip together). For these two variants the denominator N of each group is
    fixed, so flipping a pair changes the group numerator by: acc23 C→T_m −1, T_h→T_hm +1;
    τ_23 C→T_m −2, T_h→T_hm +2 (D→T_m changes nothing). The curve is the mean over groups with
    ≥ 2 items; the first maximum wins (values within 1e-12 of the maximum are ties: the
    curve is a float cumulative sum). ``sample_rate < 1`` subsamples pairs.
    """
    if variant not in ("acc23", "23", "tau_23"):
        raise ValueError("tie calibration is defined for acc23 and tau_23 only")
    step = 1.0 if variant == "acc23" else 2.0
    G, L = g.shape
    counts = (~np.isnan(g)).sum(1)
    keep = counts >= 2
    if not keep.any():
        return TieCalibration(float("nan"), 0.0, np.zeros(1), np.full(1, np.nan))
    npairs_total = int((counts * (counts - 1) // 2).sum())
    if npairs_total * sample_rate > max_pairs:
        raise ValueError(f"{npairs_total} pairs are too many for tie calibration; use sample_rate < 1 "
                         "or an item/sys grouping")
    rng = np.random.default_rng(seed)
    cnt = _counts_rows(g, m, 0.0)
    base = _variant_from_counts(cnt, "acc23" if variant == "acc23" else "23")
    ngroups = int(keep.sum())
    start = float(np.nanmean(base[keep])) if ngroups else float("nan")
    # Every kept group at once: each row's cells with a gold value moved to its front (order kept),
    # its pairs (triu of its size) laid out on a padded row; reading the padded rows in row-major
    # order gives the pairs group after group, in each group's pair order (the order, and so the
    # cumulative sum, of a loop over groups).
    # Chunks of rows bound the padded arrays (a huge group is a chunk of its own).
    kept = np.flatnonzero(keep)
    pmax = int((counts[kept] * (counts[kept] - 1) // 2).max())
    chunk = max(1, _CALIBRATION_CELLS // max(pmax, 1))
    dms, deltas = [], []
    for a in range(0, len(kept), chunk):
        rows = kept[a:a + chunk]
        front = np.argsort(np.isnan(g[rows]), axis=1, kind="stable")
        gk = np.take_along_axis(g[rows], front, axis=1)
        mk = np.take_along_axis(m[rows], front, axis=1)
        sizes = counts[rows]
        if len(rows) == 1 and sample_rate >= 1 and sizes[0] > _TRIU_CACHE_MAX:
            # one large group (e.g. no grouping): its pairs row by row, the non-flipping ones
            # dropped before the arithmetic (the same pairs, order and floats as below)
            adm, delta = _group_flips(gk[0, :sizes[0]], mk[0, :sizes[0]], step, sizes[0] * (sizes[0] - 1) / 2,
                                      ngroups)
            dms.append(adm)
            deltas.append(delta)
            continue
        npairs = sizes * (sizes - 1) // 2
        width = int(npairs.max())
        dg = np.zeros((len(rows), width))
        dm = np.zeros((len(rows), width))
        # each size lays out its own pairs (the triu order of a size is not a prefix of a larger one's)
        for n in np.unique(sizes):
            at = np.flatnonzero(sizes == n)
            iu, ju = _triu(int(n))
            dg[at, :len(iu)] = gk[at][:, ju] - gk[at][:, iu]
            dm[at, :len(iu)] = mk[at][:, ju] - mk[at][:, iu]
        pv = np.arange(width)[None, :] < npairs[:, None]
        if sample_rate < 1:
            r = np.ones(pv.shape)
            r[pv] = rng.random(int(npairs.sum()))
            pv &= r < sample_rate
        adm = np.abs(dm)
        flip = (adm > 0) & pv
        conc = (np.sign(dg) * np.sign(dm) > 0) & flip
        gtie = (dg == 0) & flip
        ntot = (sizes * (sizes - 1) / 2)[:, None]
        delta = (-step * conc + step * gtie) / ntot / ngroups
        dms.append(adm[flip])
        deltas.append(delta[flip])
    dm_all = np.concatenate(dms)
    de_all = np.concatenate(deltas)
    order = np.argsort(dm_all, kind="stable")
    dm_sorted, cum = dm_all[order], np.cumsum(de_all[order])
    if len(dm_sorted):
        last = np.r_[dm_sorted[1:] != dm_sorted[:-1], True]
        thresholds = np.r_[0.0, dm_sorted[last]]
        values = np.r_[start, start + cum[last]]
    else:
        thresholds, values = np.zeros(1), np.array([start])
    if np.all(np.isnan(values)):
        best = 0
    else:
        # The first maximum wins. The curve is a float cumulative sum, so mathematically equal
        # values can differ in the last bits; values within 1e-12 of the maximum count as ties.
        top = np.nanmax(values)
        best = int(np.flatnonzero(values >= top - 1e-12 * max(1.0, abs(top)))[0])
    return TieCalibration(float(values[best]), float(thresholds[best]), thresholds, values)


# ---------------------------------------------------------------------------------------------
# The main entry point
# ---------------------------------------------------------------------------------------------
def rows_pearson(g: np.ndarray, m: np.ndarray, **_: Any) -> Rows:
    """Pearson r per group (scipy semantics: NaN on a constant vector)."""
    return _pearson_rows(g, m), None


def rows_spearman(g: np.ndarray, m: np.ndarray, **_: Any) -> Rows:
    """Spearman ρ per group: Pearson of the mid-ranks."""
    return _pearson_rows(_rank_rows(g), _rank_rows(np.where(np.isnan(g), np.nan, m))), None


def _rows_kendall(g: np.ndarray, m: np.ndarray, variant: str, epsilon: float) -> Rows:
    if variant == "c" and epsilon > 0:
        raise ValueError("tau_c is not defined with epsilon > 0 (methods §3.3)")
    cnt = _counts_rows(g, m, epsilon)
    counts = (~np.isnan(g)).sum(1)
    mc: list[int] | None = None
    if variant == "c":
        mc = []
        for k in range(len(g)):
            ok = ~np.isnan(g[k])
            mc.append(min(len(np.unique(g[k][ok])), len(np.unique(m[k][ok]))))
    return _variant_from_counts(cnt, variant, counts, mc), None


def rows_tau_b(g: np.ndarray, m: np.ndarray, *, epsilon: float = 0.0, **_: Any) -> Rows:
    """Kendall τ_b per group from pair counts (methods §3.3)."""
    return _rows_kendall(g, m, "b", epsilon)


def rows_tau_c(g: np.ndarray, m: np.ndarray, *, epsilon: float = 0.0, **_: Any) -> Rows:
    """Stuart's τ_c per group (ε must be 0)."""
    return _rows_kendall(g, m, "c", epsilon)


def rows_tau_23(g: np.ndarray, m: np.ndarray, *, epsilon: float = 0.0, **_: Any) -> Rows:
    """τ_23 per group (Deutsch et al. 2023)."""
    return _rows_kendall(g, m, "23", epsilon)


def rows_acc23(g: np.ndarray, m: np.ndarray, *, epsilon: float = 0.0, **_: Any) -> Rows:
    """acc23 per group (Deutsch et al. 2023)."""
    return _rows_kendall(g, m, "acc23", epsilon)


def rows_kendall_like(g: np.ndarray, m: np.ndarray, *, thresh: float = 25.0, thresh_inclusive: bool = True,
                      **_: Any) -> Rows:
    """WMT Kendall-like τ per group, weighted by its qualifying pairs (methods §3.3, §4.1)."""
    return _kendall_like_rows(g, m, thresh, thresh_inclusive)


def rows_accuracy(g: np.ndarray, m: np.ndarray, **_: Any) -> Rows:
    """Pairwise accuracy per group (Kocmi et al. 2021): agreeing pairs / pairs, where a pair agrees
    when sign(Δgold) = sign(Δmetric) (a tie on both sides agrees); weighted by its pairs, so pooling
    gives Σ agree / Σ pairs. Exact integer counts: this is acc23 with ε = 0."""
    cnt = _counts_rows(g, m, 0.0)
    tot = cnt.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = np.where(tot > 0, (cnt[:, 0] + cnt[:, 4]) / np.where(tot > 0, tot, 1), np.nan)
    return vals, tot


def group_values(g: np.ndarray, m: np.ndarray, method: str, *, epsilon: float = 0.0,
                 thresh: float = 25.0, thresh_inclusive: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per-group statistic for (G, L) group matrices (NaN = missing gold), dispatched through
    :mod:`evalcore.stats.registry`.

    Returns ``(values, weights)``: weights are the cell counts (pairs for kendall_like, darr and
    accuracy), used when averaging with ``macro=False``. Groups with < 2 cells get NaN and weight 0.
    """
    stat = get(method)
    if stat.rows is None:
        raise ValueError(f"{method} needs the segment-level matrices, not per-group rows")
    counts = (~np.isnan(g)).sum(1)
    skip = counts < 2
    vals, weights = stat.rows(g, m, epsilon=epsilon, thresh=thresh, thresh_inclusive=thresh_inclusive)
    if weights is None:
        weights = counts.astype(float)
    vals = np.where(skip, np.nan, vals)
    return vals, np.where(skip, 0.0, np.asarray(weights, dtype=float))


def average_groups(vals: np.ndarray, weights: np.ndarray, *, macro: bool = True,
                   replace_nans_with_zeros: bool = False) -> tuple[float, int]:
    """MTME ``AverageCorrelation`` averaging (methods §3.1); returns (value, groups used)."""
    use = weights > 0
    v = vals[use]
    w = weights[use] if not macro else np.ones(use.sum())
    if replace_nans_with_zeros:
        v = np.nan_to_num(v, nan=0.0)
    ok = ~np.isnan(v)
    if not ok.any() or w[ok].sum() == 0:
        return float("nan"), 0
    return float(np.sum(v[ok] * w[ok]) / np.sum(w[ok])), int(ok.sum())


def correlation(gold: Any, metric: Any, method: str = "pearson", grouping: str = "none", *,
                epsilon: float = 0.0, tie_calibration: bool = False, sample_rate: float = 1.0,
                thresh: float = 25.0, thresh_inclusive: bool = True, macro: bool | None = None,
                replace_nans_with_zeros: bool = False, p_values: bool = False,
                seed: int | None = None, num_permutations: int = 1000) -> CorrResult:
    """Correlation of metric with gold scores, MTME semantics (methods §3.1-3.4, §4.1).

    ``gold``, ``metric``: vectors or (n_sys, n_items) matrices; gold NaN = missing.
    ``method``: one of :data:`METHODS`. ``grouping``: "none" | "item" | "sys".
    ``epsilon``: metric tie threshold for the Kendall variants. ``tie_calibration``: choose ε
    maximising acc23/τ_23 (methods §3.3); the chosen ε is returned. ``thresh`` /
    ``thresh_inclusive``: Kendall-like threshold (≥ 25 by default, > 25 with inclusive=False).
    ``macro``: the statistic's pooling default (:mod:`evalcore.stats.registry`): True, except for
    kendall_like/darr/accuracy where groups are pooled (False).
    ``darr`` requires grouping "item" (same-segment pairs, methods §4.1); ``accuracy`` is one group.
    A statistic computed from segment matrices (``spa``) takes the (n_sys, n_items) matrices,
    ``num_permutations`` and ``seed`` (None: its own default); ``n`` = systems, ``groups`` = the
    segments it used.
    """
    stat = get(method)
    if stat.segment_matrices:
        return _matrix_statistic(stat, gold, metric, grouping, num_permutations=num_permutations, seed=seed)
    if grouping not in stat.groupings:
        if stat.groupings == ("item",):  # e.g. darr: the statistic of another entry, on same-segment pairs
            wider = [s.name for s in REGISTRY.values() if s.rows is not None and stat.rows is not None
                     and s.rows.__name__ == stat.rows.__name__ and grouping in s.groupings]
            raise ValueError(f"{method} compares outputs of the same segment: use grouping='item'"
                             + (f" (or method='{wider[0]}' for other groupings)" if wider else ""))
        raise ValueError(f"{method} allows grouping {', '.join(stat.groupings)}, not {grouping!r}")
    if macro is None:
        macro = not stat.pooled
    g, m = grouped(gold, metric, grouping)
    n = int((~np.isnan(g)).sum())
    if tie_calibration:
        if not stat.tie_calibration:
            raise ValueError("tie_calibration applies to acc23 and tau_23")
        tc = calibrate_ties(g, m, method,
                            sample_rate=sample_rate, seed=seed)
        vals, _ = group_values(g, m, method, epsilon=tc.best_epsilon)
        groups = int((~np.isnan(vals)).sum())
        return CorrResult(tc.best_value, n, groups, tc.best_epsilon, float("nan"), vals)
    vals, weights = group_values(g, m, method, epsilon=epsilon, thresh=thresh,
                                 thresh_inclusive=thresh_inclusive)
    value, groups = average_groups(vals, weights, macro=macro, replace_nans_with_zeros=replace_nans_with_zeros)
    p = float("nan")
    if p_values and stat.p_value is not None and epsilon == 0:
        pv = _p_values(method, g, m, weights > 0)
        ok = ~np.isnan(vals) & ~np.isnan(pv)
        if ok.any():
            w = np.ones(ok.sum()) if macro else weights[ok]
            p = float(np.sum(pv[ok] * w) / np.sum(w))
    return CorrResult(value, n, groups, epsilon, p, vals)


def _matrix_statistic(stat: Statistic, gold: Any, metric: Any, grouping: str, **options: Any) -> CorrResult:
    """A statistic of the (systems × segments) matrices (registry ``segment_matrices``) on the
    segments judged for every system and scored by the metric for every system."""
    g, m = np.asarray(gold, dtype=float), np.asarray(metric, dtype=float)
    if g.ndim != 2 or g.shape != m.shape:
        raise ValueError(f"{stat.name} ({stat.label}) needs the (systems × segments) matrices of gold and metric "
                         f"scores, not {'vectors' if g.ndim == 1 else f'shapes {g.shape} and {m.shape}'}")
    if grouping not in stat.groupings:
        raise ValueError(f"{stat.name} allows grouping {', '.join(stat.groupings)}, not {grouping!r}")
    cols = ~(np.isnan(g).any(axis=0) | np.isnan(m).any(axis=0))
    n_sys, n_seg = g.shape[0], int(cols.sum())
    kw = {k: v for k, v in options.items() if k in stat.options and v is not None}
    if n_sys < 2 or n_seg < 1:
        return CorrResult(float("nan"), n_sys, n_seg)
    assert stat.matrix is not None  # segment_matrices statistics declare it
    value = stat.matrix(np.ascontiguousarray(g[:, cols]), np.ascontiguousarray(m[:, cols]), **kw)
    return CorrResult(float(value), n_sys, n_seg)


def system_level(gold: Any, metric: Any = None, *, metric_system: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """System-level vectors from (n_sys, n_items) matrices (methods §3.1-3.3).

    Gold system score = mean over the system's non-missing gold cells; systems without any gold
    are dropped (MTME ``GetCorrelations``) — the returned vectors keep NaN there so callers can
    see them; :func:`correlation` drops them as missing gold. The metric system score is
    ``metric_system`` when given (e.g. corpus BLEU), else the mean of the metric row over the
    cells that have gold.
    """
    g = _as_matrix(gold)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gs = np.nanmean(g, axis=1)
        if metric_system is not None:
            ms = np.asarray(metric_system, dtype=float)
        else:
            m = _as_matrix(metric)
            ms = np.nanmean(np.where(np.isnan(g), np.nan, m), axis=1)
    return gs, ms


def pairwise_accuracy(gold: Any, metric: Any) -> tuple[float, int]:
    """Global system-level pairwise accuracy (Kocmi et al. 2021; methods §3.3).

    Over all pairs with both gold values present: agreement when sign(Δgold) = sign(Δmetric)
    (a tie on both sides agrees). Returns (accuracy, n_pairs).
    """
    g = np.asarray(gold, dtype=float)
    m = np.asarray(metric, dtype=float)
    ok = ~np.isnan(g)
    g, m = g[ok], m[ok]
    iu, ju = _triu(len(g))
    if not len(iu):
        return float("nan"), 0
    agree = np.sign(g[iu] - g[ju]) == np.sign(m[iu] - m[ju])
    return float(agree.mean()), int(len(iu))
