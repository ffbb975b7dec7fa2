"""The Wilcoxon signed-rank test and Stouffer's combination without importing scipy.stats.

The ranking's pairwise test (methods §3.12; Kocmi et al. 2024, *Findings of WMT24*, §3) runs one
Wilcoxon signed-rank test per pair of systems and domain; through ``scipy.stats.wilcoxon`` that
was half the CPU of a cold Systems page: about a second importing scipy.stats (and
scipy.special), then ~2 ms of input checks per call for a few hundred calls. Here the same test
in a few numpy operations per call, with **scipy's semantics** (``scipy.stats.wilcoxon(x, y)``
defaults, scipy 1.13 onwards; pinned against scipy in tests/test_signed_rank.py):

* d = x − y over the n pairs; zero differences are dropped (``zero_method="wilcox"``); the
  n' non-zero |d| get average ranks (ties share the mean rank); R⁺ = the sum of the ranks of
  the positive differences (Wilcoxon 1945, "Individual comparisons by ranking methods").
* method ``auto``: n > 50 → the normal approximation; else, with no tie among the |d| and no
  zero difference → the exact null distribution; else n ≤ 13 → the exact permutation
  distribution (every one of the 2ⁿ sign flips of d, scipy's ``permutation_test`` with its
  relative tolerance 100·ε on the comparisons); else the normal approximation.
* normal approximation, no continuity correction: μ = n'(n'+1)/4,
  σ² = (n'(n'+1)(2n'+1) − Σ(t³ − t)/2)/24 over the tie groups t of the |d|, z = (R⁺ − μ)/σ;
  p = 2·Φ(−|z|) two-sided, Φ(−z) for "greater", Φ(z) for "less".
* exact: the distribution of R⁺ over the 2ⁿ equally likely sign assignments (the recursion
  c_k(r) = ½c_{k−1}(r) + ½c_{k−1}(r − k)); two-sided p = min(1, 2·min(P(R⁺ ≥ ⌊R⁺⌋), P(R⁺ ≤ ⌈R⁺⌉))),
  each tail summed on the side of the mean as scipy sums it.

Φ is ``0.5·erfc(−x/√2)`` (:func:`math.erfc`) and Φ⁻¹ :meth:`statistics.NormalDist.inv_cdf`
(Wichura's AS241), equal to scipy's ``ndtr``/``ndtri`` to rounding.

:func:`stouffer` combines one-sided p-values (Stouffer et al. 1949, *The American Soldier*):
z_d = Φ⁻¹(1 − p_d), Z = Σ z_d / √D, p = 1 − Φ(Z) — ``scipy.stats.norm`` semantics, p_d = 0 or 1
giving ±∞.
"""
from __future__ import annotations

import math
from typing import Sequence
from statistics import NormalDist

import numpy as np

from ..metrics._caches import lru_memo

ALTERNATIVES = ("two-sided", "greater", "less")
_SQRT1_2 = math.sqrt(0.5)
_STD = NormalDist()


def norm_cdf(x: float) -> float:
    """Φ(x), the standard normal distribution function."""
    return 0.5 * math.erfc(-x * _SQRT1_2)


def norm_ppf(q: float) -> float:
    """Φ⁻¹(q); −∞ at 0, +∞ at 1, NaN outside [0, 1] (scipy.stats.norm.ppf)."""
    if not 0.0 < q < 1.0:
        return -math.inf if q == 0.0 else math.inf if q == 1.0 else math.nan
    return _STD.inv_cdf(q)


def stouffer(pds: Sequence[float] | np.ndarray) -> float:
    """Stouffer's combined one-sided p of the per-domain p-values ``pds`` (module docstring);
    NaN for none."""
    if not len(pds):
        return float("nan")
    zs = np.array([norm_ppf(1.0 - float(p)) for p in pds])
    with np.errstate(invalid="ignore"):
        big = float(np.sum(zs) / math.sqrt(len(pds)))
    return norm_cdf(-big) if not math.isnan(big) else float("nan")


@lru_memo("signed_rank.exact_pmf", 64)
def _exact_pmf(n: int) -> np.ndarray:
    """P(R⁺ = r), r = 0 … n(n+1)/2, with no ties and no zeros (module docstring)."""
    c = np.ones(1)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1)
        m = len(prev)
        c[:m] = prev * 0.5
        c[-m:] += prev * 0.5
    c.setflags(write=False)
    return c


def _exact_p(r_plus: float, n: int, alternative: str) -> float:
    pmf = _exact_pmf(n)
    mean = n * (n + 1) / 4

    def sf(k: int) -> float:  # P(R⁺ ≥ k), summed as scipy sums it on each side of the mean
        return float(pmf[k:].sum()) if k <= mean else float(1 - pmf[:k].sum())

    def cdf(k: int) -> float:  # P(R⁺ ≤ k)
        return float(pmf[:k + 1].sum()) if k <= mean else float(1 - pmf[k + 1:].sum())

    if alternative == "less":
        return cdf(int(math.ceil(r_plus)))
    if alternative == "greater":
        return sf(int(math.floor(r_plus)))
    return min(1.0, max(0.0, 2 * min(sf(int(math.floor(r_plus))), cdf(int(math.ceil(r_plus))))))


def _permutation_p(d: np.ndarray, ranks: np.ndarray, r_plus: float, alternative: str) -> float:
    """Exact sign-flip permutation p of R⁺ (n ≤ 13: all 2ⁿ flips, scipy's permutation_test)."""
    n = len(d)
    flips = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)  # 1: sign flipped
    positive = np.where(flips, d < 0, d > 0)  # a zero stays zero under a flip
    null = (positive * ranks).sum(axis=1)
    gamma = abs(np.finfo(float).eps * 100 * r_plus)
    less = np.count_nonzero(null <= r_plus + gamma) / len(null)
    greater = np.count_nonzero(null >= r_plus - gamma) / len(null)
    p = {"less": less, "greater": greater}.get(alternative, 2 * min(less, greater))
    return float(min(1.0, max(0.0, p)))


def wilcoxon_p(d: Sequence[float] | np.ndarray, alternative: str = "two-sided") -> float:
    """The p-value of ``scipy.stats.wilcoxon(d, alternative=alternative)`` (the differences
    x − y; module docstring); NaN for no difference at all (an empty ``d``)."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, not {alternative!r}")
    d = np.asarray(d, dtype=float).ravel()
    n = len(d)
    if n == 0 or np.isnan(d).any():
        return float("nan")
    nonzero = d != 0
    n_zero = n - int(nonzero.sum())
    a = np.abs(d[nonzero])
    count = len(a)
    if count == 0 and n > 13:  # every difference 0: scipy's 0/0 (its permutation test gives 1)
        return float("nan")
    order = np.argsort(a, kind="stable")
    s = a[order]
    first = np.concatenate(([True], s[1:] != s[:-1]))
    starts = np.flatnonzero(first)
    sizes = np.diff(np.append(starts, count))
    avg = starts + (sizes + 1) / 2.0  # average rank of each tie group (ranks 1-based)
    r_sorted = np.repeat(avg, sizes)
    ranks_nz = np.empty(count)
    ranks_nz[order] = r_sorted
    r_plus = float(np.sum(ranks_nz[d[nonzero] > 0]))
    has_ties = bool((sizes > 1).any())
    # scipy decides by n, the differences before dropping the zeros
    if n <= 50:
        if not has_ties and n_zero == 0:
            return _exact_p(r_plus, count, alternative)
        if n <= 13:
            if n < 2:  # as scipy's permutation_test
                raise ValueError("a signed-rank test of one zero difference needs two or more observations")
            ranks = np.zeros(n)
            ranks[nonzero] = ranks_nz
            return _permutation_p(d, ranks, r_plus, alternative)
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    tie = float(np.sum(sizes.astype(float) ** 3 - sizes))
    se = math.sqrt((se - tie / 2) / 24)
    z = (r_plus - mn) / se
    if alternative == "greater":
        return norm_cdf(-z)
    if alternative == "less":
        return norm_cdf(z)
    return 2 * norm_cdf(-abs(z))
