"""bootstrap_ci's batched BOOT-SYSTEMS draws (evalcore.stats.significance._systems_draws): the
same draws and bit-identical values as the one-draw-at-a-time loop for every per-group statistic
of the registry, and Pearson draws equal to scipy.stats.pearsonr on the same resampled systems."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import evalcore.stats.correlation  # noqa: F401  (registers the statistics)
from evalcore.stats import significance as S
from evalcore.stats.registry import REGISTRY

ROWS = sorted(n for n, s in list(REGISTRY.items()) if s.rows is not None and not s.segment_matrices)


def _loop(monkeypatch, *a, **k):
    with monkeypatch.context() as mp:
        mp.setattr(S, "_batchable", lambda *_: False)
        return S.bootstrap_ci(*a, **k)


@pytest.mark.parametrize("method", ROWS)
def test_batched_draws_are_the_loops_bit_for_bit(method, monkeypatch):
    rng = np.random.default_rng(5)
    for trial, kw in enumerate(({}, {"macro": False}, {"epsilon": 0.5})):
        n = 6 + 3 * trial
        g = rng.normal(size=(n, 1))
        m = g + rng.normal(size=(n, 1))
        if trial:
            g, m = np.round(g), np.round(m)  # ties
        if trial == 2:
            g[0] = np.nan
        try:
            slow = _loop(monkeypatch, g, m, method, "none", level="segment", resample="systems", k=150, seed=3, **kw)
        except ValueError:  # a statistic that needs another grouping: the batched path raises the same
            with pytest.raises(ValueError):
                S.bootstrap_ci(g, m, method, "none", level="segment", resample="systems", k=150, seed=3, **kw)
            continue
        assert S._batchable(method, kw)
        fast = S.bootstrap_ci(g, m, method, "none", level="segment", resample="systems", k=150, seed=3, **kw)
        np.testing.assert_array_equal(fast.samples, slow.samples)
        assert (fast.value, fast.ci_low, fast.ci_high) == pytest.approx((slow.value, slow.ci_low, slow.ci_high),
                                                                          abs=0, nan_ok=True)


def test_pearson_draws_are_scipys_on_the_same_systems():
    rng = np.random.default_rng(9)
    g = rng.normal(size=(12, 1))
    m = g + rng.normal(size=(12, 1))
    res = S.bootstrap_ci(g, m, "pearson", "none", level="segment", resample="systems", k=200, seed=4)
    draw = np.random.default_rng(4)
    for b in range(200):
        si = draw.integers(0, 12, 12)
        x, y = g[si, 0], m[si, 0]
        ref = float("nan") if np.ptp(x) == 0 or np.ptp(y) == 0 else scipy.stats.pearsonr(x, y).statistic
        assert res.samples[b] == pytest.approx(ref, abs=1e-12, nan_ok=True)


def test_tie_calibration_keeps_the_loop():
    assert not S._batchable("acc23", {"tie_calibration": True})
    assert S._batchable("pearson", {}) and not S._batchable("pearson", {"p_values": True})
