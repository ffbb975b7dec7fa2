"""evalcore.stats.signed_rank: the Wilcoxon signed-rank p and Stouffer's combination equal
scipy.stats.wilcoxon / scipy.stats.norm on every branch scipy takes (exact, permutation,
normal approximation; ties, zeros), plus hand-worked values."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats

from evalcore.stats.signed_rank import norm_ppf, stouffer, wilcoxon_p

ALTS = ("two-sided", "greater", "less")


def _scipy_p(d, alt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.stats.wilcoxon(d, alternative=alt).pvalue)


def _same(got, ref):
    return (math.isnan(got) and math.isnan(ref)) or abs(got - ref) <= 1e-12


# n = 13 is the largest n scipy's permutation branch takes, and there scipy's reference costs
# ~0.2 ms for each of the 2^13 sign flips (a Python call each, for each alternative). The four
# draws per n are those of the seeded stream as before; at n = 13 only the first with ties or
# zeros (the permutation branch) is checked, the others only drawn to keep the stream, so every
# other n checks the same inputs. The test proves each kind still reaches its branches.
_SIZES = [2, 3, 5, 8, 13, 14, 20, 50, 51, 80]
_KINDS = ["continuous", "small ints", "mixed", "rounded"]


def _draws(kind):
    rng = np.random.default_rng(_KINDS.index(kind))
    for n in _SIZES:
        at_13 = []
        for _ in range(4):
            if kind == "continuous":  # no ties: exact up to 50
                d = rng.normal(size=n)
            elif kind == "small ints":  # ties and zeros: permutation up to 13, else normal
                d = rng.integers(-3, 4, size=n).astype(float)
            elif kind == "mixed":
                d = rng.integers(-20, 21, size=n) + rng.normal(size=n) * (rng.random(n) < 0.5)
            else:
                d = np.round(rng.normal(0.3, 1, size=n), 1)
            if n == 13:
                at_13.append(d)
            else:
                yield n, d
        if at_13:
            yield 13, next((d for d in at_13 if _ties_or_zeros(d)), at_13[0])


def _ties_or_zeros(d):
    a = np.abs(d)
    return bool((a == 0).any() or len(np.unique(a)) < len(a))


@pytest.mark.parametrize("kind", _KINDS)
def test_equals_scipy_on_every_branch(kind):
    draws = list(_draws(kind))
    for n, d in draws:
        for alt in ALTS:
            got, ref = wilcoxon_p(d, alt), _scipy_p(d, alt)
            assert _same(got, ref), (kind, n, alt, list(d), got, ref)
    # the branches each kind reaches: exact without ties (n <= 50), the permutation test with
    # ties or zeros up to n = 13 (its boundary included), the normal approximation above
    tied = {n for n, d in draws if _ties_or_zeros(d)}
    if kind == "continuous":
        assert not tied
    else:
        assert {13, 14} <= tied and any(n <= 8 for n in tied)


def test_two_samples_are_their_differences():
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 100, 60).astype(float), rng.integers(0, 100, 60).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = float(scipy.stats.wilcoxon(x, y).pvalue)
    assert abs(wilcoxon_p(x - y) - ref) <= 1e-12


def test_hand_worked_exact_and_normal():
    # d = 1, 2, 3: R+ = 6 is the largest of the 2^3 equally likely sums, P(R+ >= 6) = 1/8
    assert wilcoxon_p([1.0, 2.0, 3.0], "greater") == pytest.approx(1 / 8, abs=1e-15)
    assert wilcoxon_p([1.0, 2.0, 3.0]) == pytest.approx(2 / 8, abs=1e-15)
    # 60 differences 1 … 60, all positive: R+ = 1830, mu = 915, sigma^2 = 60·61·121/24
    z = (1830 - 915) / math.sqrt(60 * 61 * 121 / 24)
    assert wilcoxon_p(np.arange(1.0, 61.0)) == pytest.approx(math.erfc(z / math.sqrt(2)), abs=1e-15)


def test_all_zero_and_tiny_inputs_as_scipy():
    assert wilcoxon_p(np.zeros(5)) == _scipy_p(np.zeros(5), "two-sided") == 1.0  # permutation: p = 1
    assert math.isnan(wilcoxon_p(np.zeros(20))) and math.isnan(_scipy_p(np.zeros(20), "two-sided"))
    with pytest.raises(ValueError):
        _scipy_p(np.zeros(1), "two-sided")
    with pytest.raises(ValueError):
        wilcoxon_p(np.zeros(1))
    assert math.isnan(wilcoxon_p([]))
    with pytest.raises(ValueError, match="alternative"):
        wilcoxon_p([1.0, 2.0], "bigger")


def test_stouffer_equals_scipy_norm_including_certain_domains():
    rng = np.random.default_rng(3)
    for _ in range(300):
        p = rng.random(int(rng.integers(1, 6)))
        p[rng.random(len(p)) < 0.15] = rng.choice([0.0, 1.0])
        with np.errstate(divide="ignore", invalid="ignore"):
            big = np.sum(scipy.stats.norm.ppf(1 - p)) / np.sqrt(len(p))
        ref = float(scipy.stats.norm.sf(big)) if not np.isnan(big) else float("nan")
        assert _same(stouffer(list(p)), ref), (list(p), ref)
    assert math.isnan(stouffer([]))
    for q in [1e-12, 0.01, 0.3, 0.5, 0.97, 1 - 1e-12, 0.0, 1.0]:
        assert norm_ppf(q) == pytest.approx(float(scipy.stats.norm.ppf(q)), rel=1e-12, abs=0)
