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
reading-comprehension scores (:mod:`evalcore.comprehension`) and reference quality
(:mod:`evalcore.references`).
"""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np


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


def percentile_ci(samples, alpha: float = 0.05, axis: int | None = None):
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


def percentile_bootstrap(statistic: Callable, n: int, n_boot: int, alpha: float = 0.05,
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
