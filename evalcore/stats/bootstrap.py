"""The percentile bootstrap, in one place (Efron & Tibshirani 1993, *An Introduction to the
Bootstrap*, ch. 13; for metric scores Koehn 2004; for correlations Deutsch, Dror & Roth 2021).

Resample the n items with replacement ``n_boot`` times, recompute the statistic on each
resample, and report the α/2 and 1 − α/2 quantiles of the resampled values (linear
interpolation, ``numpy.quantile``'s default) as the (1 − α) confidence interval. Draws whose
statistic is not finite (NaN: a correlation of constant values) are left out of the quantiles;
with none left the interval is (NaN, NaN).

Resamples come from ``numpy.random.default_rng(seed)``: ``rng.integers(0, n, (n_boot, n))``,
the same draws as ``scipy.stats.bootstrap`` with that generator (tests/test_bootstrap.py pins
the interval against it). Used by the system table (:mod:`evalcore.views.systems`), the
correlation CIs (:func:`evalcore.stats.significance.bootstrap_ci`), the ORANGE / KING CIs
(:func:`evalcore.qarla.single.orange_king_arrays`, which resamples segments as counts), the
reading-comprehension scores (:mod:`evalcore.analysis.comprehension`) and reference quality
(:mod:`evalcore.analysis.references`).

Corpus scores recomputed from sufficient statistics (BLEU, chrF, TER…: Koehn 2004) go through
:func:`corpus_score_bootstrap`: the same index draws, turned into multiplicities
(:func:`index_counts`), so every resample's summed statistics come from one matrix product
(counts × per-segment statistics) instead of copying and summing a resampled matrix per draw;
tests/test_bootstrap.py pins it against the literal loop (methods §3.8).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, overload

import numpy as np

if TYPE_CHECKING:
    from ..metrics.base import Metric


def as_rng(seed: int | None | np.random.Generator) -> np.random.Generator:
    """``seed`` itself if it is a generator, else ``numpy.random.default_rng(seed)``."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def resample_indices(n: int, n_boot: int, seed: int | None | np.random.Generator = 0) -> np.ndarray:
    """(n_boot, n) item indices: each row one resample of ``range(n)`` with replacement."""
    return as_rng(seed).integers(0, n, size=(n_boot, n))


def resample_counts(n: int, n_boot: int, seed: int | None | np.random.Generator = 0) -> np.ndarray:
    """(n_boot, n) multiplicities: row b says how often each item occurs in resample b (a
    multinomial draw of n items, equal probabilities): the same resampling as
    :func:`resample_indices`, as weights for statistics that are weighted sums."""
    return as_rng(seed).multinomial(n, np.full(n, 1.0 / n), size=n_boot)


def index_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """(n_boot, n) multiplicities of an (n_boot, n) index matrix: ``counts[b, i]`` = how often
    item i occurs in resample b. The resamples are those of ``idx`` (no new draws)."""
    idx = np.asarray(idx, dtype=np.int64)
    n_boot = len(idx)
    flat = (np.arange(n_boot, dtype=np.int64)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=n_boot * n).reshape(n_boot, n).astype(float)


def _close(a: float, b: float) -> bool:
    return bool((np.isnan(a) and np.isnan(b)) or np.isclose(a, b, rtol=1e-9, atol=1e-12))


def corpus_score_bootstrap(metric: Metric, stats: Any, n_boot: int, alpha: float = 0.05,
                           seed: int | None | np.random.Generator = 0) -> tuple[float, float, np.ndarray]:
    """Percentile bootstrap CI of a corpus score over segments: ``(lo, hi, samples)``, equal to
    ``percentile_bootstrap(lambda i: metric.score_from_stats(stats[i]), len(stats), n_boot,
    alpha, seed)`` (the same draws, the same values up to floating-point summation order).

    ``stats``: (n, k) per-segment sufficient statistics; ``metric.score_from_stats`` turns
    statistics into a corpus score. The metric's declared hooks (:class:`~evalcore.metrics.base.Metric`)
    choose the shortcut: summing metrics (``stats_mode = "sum"``, ``score_from_stats`` of the summed
    rows: BLEU, chrF, TER, NIST, WER…) get each resample's sums as ``counts @ stats`` scored by
    ``metric.scores_from_sums`` in one call; metrics whose corpus score is the mean of the first
    column (``stats_mode = "mean"``, the base class's default) get
    ``counts @ stats[:, 0] / counts.sum(1)``. Rows with a NaN (segments without a usable
    reference) are left out of both, as ``score_from_stats`` leaves them out. Two draws are
    checked against the literal per-draw computation; a metric that is neither (or disagrees)
    falls back to the literal loop, so the result never depends on the shortcut."""
    st = np.asarray(stats, dtype=float)
    if st.ndim == 1:
        st = st[:, None]
    n = len(st)
    idx = resample_indices(n, n_boot, seed)

    def literal(i: np.ndarray) -> float:
        return metric.score_from_stats(st[i])

    samples: np.ndarray | None = None
    if n_boot and n:
        valid = ~np.isnan(st).any(axis=1)
        counts = index_counts(idx, n)
        counts[:, ~valid] = 0.0
        sums = counts @ np.where(valid[:, None], st, 0.0)
        if metric.stats_mode == "mean":
            m = counts.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                samples = np.where(m > 0, sums[:, 0] / np.where(m > 0, m, 1.0), np.nan)
        else:
            # one call (vectorised for BLEU, chrF, TER…; the base class scores row by row)
            samples = np.array(metric.scores_from_sums(sums), dtype=float)
            samples[~counts.any(axis=1)] = np.nan  # a resample of only unusable rows
        for b in {0, n_boot - 1}:
            if not _close(float(samples[b]), float(literal(idx[b]))):
                samples = None
                break
    if samples is None:
        samples = np.array([literal(i) for i in idx], dtype=float)
    lo, hi = percentile_ci(samples, alpha)
    return lo, hi, samples


@overload
def percentile_ci(samples: Any, alpha: float = 0.05, axis: None = None) -> tuple[float, float]: ...
@overload
def percentile_ci(samples: Any, alpha: float = 0.05, *, axis: int) -> tuple[np.ndarray, np.ndarray]: ...
def percentile_ci(samples: Any, alpha: float = 0.05, axis: int | None = None) -> tuple[Any, Any]:
    """The (α/2, 1 − α/2) quantiles of the finite ``samples``; (NaN, NaN) if there are none.

    With ``axis`` (e.g. 0 for an (n_boot, n_systems) matrix of draws) the two quantiles are
    taken along that axis, each column on its own finite draws: two arrays come back."""
    s = np.asarray(samples, dtype=float)
    if axis is not None:
        s = np.where(np.isfinite(s), s, np.nan)
        with warnings.catch_warnings():  # a column without any finite draw: NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanquantile(s, [alpha / 2, 1 - alpha / 2], axis=axis)
        return lo, hi
    s = s.ravel()
    s = s[np.isfinite(s)]
    if not len(s):
        return float("nan"), float("nan")
    lo, hi = np.quantile(s, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def percentile_bootstrap(statistic: Callable[..., Any], n: int, n_boot: int, alpha: float = 0.05,
                         seed: int | None | np.random.Generator = 0,
                         vectorized: bool = False) -> tuple[float, float, np.ndarray]:
    """Percentile bootstrap CI of ``statistic`` over ``n`` items: ``(lo, hi, samples)``.

    ``statistic(idx)`` gets one resample's item indices (an int array of length n) and returns
    a number; with ``vectorized=True`` it gets the whole (n_boot, n) index matrix and returns
    the n_boot values at once."""
    idx = resample_indices(n, n_boot, seed)
    if vectorized:
        samples = np.asarray(statistic(idx), dtype=float)
    else:
        samples = np.array([statistic(i) for i in idx], dtype=float)
    lo, hi = percentile_ci(samples, alpha)
    return lo, hi, samples
