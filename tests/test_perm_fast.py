"""The batched PERM-BOTH draws and the cached pair indices give exactly what plain loops give.

References written here: PERM-BOTH one draw at a time (methods §3.4, MTME ``PermutationSigDiff``
as documented in evalcore.stats.significance.perm_both), Kendall pair counts by a double loop
over pairs, tie calibration's curve by recounting acc23 / τ_23 at every threshold.
"""
from __future__ import annotations

import numpy as np
import pytest

from evalcore.stats.correlation import (_counts_rows, _kendall_like_rows, _triu, average_groups,
                                        calibrate_ties, group_values, grouped, pairwise_accuracy)
from evalcore.stats.registry import get
from evalcore.stats.significance import TIE_TOLERANCE, perm_both


def _tied(rng, shape, levels):
    """Scores on a coarse grid, so ties are common."""
    return rng.integers(0, levels, size=shape).astype(float) / 2


def _perm_both_loop(gold, m1, m2, method, grouping, k, block_size, seed, early_min=0.02, early_max=0.5,
                    replace_nans_with_zeros=False):
    """PERM-BOTH one draw at a time, each group's statistic on its own."""
    g, a = grouped(gold, m1, grouping)
    _, b = grouped(gold, m2, grouping)
    ok = ~np.isnan(g)

    def z(x):
        sd = x.std()
        return (x - x.mean()) / sd if sd > 0 else x - x.mean()

    za = np.full(a.shape, np.nan)
    zb = np.full(b.shape, np.nan)
    za[ok], zb[ok] = z(a[ok]), z(b[ok])
    macro = not get(method).pooled

    def corr(m):
        vals = np.empty(len(g))
        ws = np.empty(len(g))
        for r in range(len(g)):  # one group at a time
            v, w = group_values(g[r:r + 1], m[r:r + 1], method)
            vals[r], ws[r] = v[0], w[0]
        v, _ = average_groups(vals, ws, macro=macro, replace_nans_with_zeros=replace_nans_with_zeros)
        return 0.0 if np.isnan(v) else v

    delta = corr(zb) - corr(za)
    rng = np.random.default_rng(seed)
    count = i = 0
    for i in range(1, k + 1):
        swap = rng.random(g.shape) < 0.5
        x = corr(np.where(swap, za, zb)) - corr(np.where(swap, zb, za))
        if x >= delta - TIE_TOLERANCE * max(1.0, abs(delta)):
            count += 1
        if i % block_size == 0 and not early_min <= count / i <= early_max:
            break
    return count / i, delta, i


@pytest.mark.parametrize("method,grouping", [("pearson", "none"), ("pearson", "item"), ("spearman", "sys"),
                                             ("kendall", "item"), ("acc23", "item"), ("tau_23", "sys"),
                                             ("tau_c", "item"), ("kendall_like", "item")])
def test_perm_both_batched_equals_one_draw_at_a_time(method, grouping):
    rng = np.random.default_rng(11)
    n_sys, n_items = 6, 30
    gold = _tied(rng, (n_sys, n_items), 5) * (20 if method == "kendall_like" else 1)
    gold[rng.random(gold.shape) < 0.15] = np.nan
    m1 = gold + _tied(rng, gold.shape, 4)
    m2 = gold + _tied(rng, gold.shape, 3)
    m1, m2 = np.nan_to_num(m1, nan=1.0), np.nan_to_num(m2, nan=2.0)
    # block_size 7: several batches, early stops on block boundaries; k not a multiple of it
    want = _perm_both_loop(gold, m1, m2, method, grouping, k=40, block_size=7, seed=3, early_min=0.0)
    got = perm_both(gold, m1, m2, method, grouping, k=40, block_size=7, seed=3, early_min=0.0)
    assert (got.p_value, got.delta, got.draws) == want
    # the early stop: a block with p beyond early_max ends the test on that boundary
    want = _perm_both_loop(gold, m2, m1, method, grouping, k=40, block_size=7, seed=3, early_max=0.3)
    got = perm_both(gold, m2, m1, method, grouping, k=40, block_size=7, seed=3, early_max=0.3)
    assert (got.p_value, got.delta, got.draws) == want


def test_perm_both_small_batches_equal_large(monkeypatch):
    """Batches cut by the memory bound (one draw per batch) give the same p as whole blocks."""
    import evalcore.stats.significance as sig

    rng = np.random.default_rng(5)
    gold = _tied(rng, (5, 20), 4)
    m1, m2 = gold + _tied(rng, gold.shape, 3), gold + _tied(rng, gold.shape, 5)
    big = perm_both(gold, m1, m2, "acc23", "item", k=30, seed=1)
    monkeypatch.setattr(sig, "_PERM_BATCH_CELLS", 1)
    small = perm_both(gold, m1, m2, "acc23", "item", k=30, seed=1)
    assert (big.p_value, big.delta, big.draws) == (small.p_value, small.delta, small.draws) \
        == _perm_both_loop(gold, m1, m2, "acc23", "item", k=30, block_size=1000, seed=1)


def _counts_loop(g, m, eps):
    ok = ~np.isnan(g)
    g, m = g[ok], m[ok]
    c = d = th = tm = thm = 0
    for i in range(len(g)):
        for j in range(i + 1, len(g)):
            gt, mt = g[i] == g[j], abs(m[i] - m[j]) <= eps
            if gt and mt:
                thm += 1
            elif gt:
                th += 1
            elif mt:
                tm += 1
            elif (g[i] - g[j]) * (m[i] - m[j]) > 0:
                c += 1
            else:
                d += 1
    return [c, d, th, tm, thm]


@pytest.mark.parametrize("L", [2, 5, 17, 64])
def test_pair_counts_with_cached_indices_equal_loops(L):
    rng = np.random.default_rng(L)
    g = _tied(rng, (9, L), 4)
    g[rng.random(g.shape) < 0.2] = np.nan
    m = _tied(rng, g.shape, 5)
    for eps in (0.0, 0.5):
        got = _counts_rows(g, m, eps)
        assert got.tolist() == [_counts_loop(g[r], m[r], eps) for r in range(len(g))]
        assert _counts_rows(g, m, eps).tolist() == got.tolist()  # the second call reads the cache
    tau, npairs = _kendall_like_rows(g * 20, m, 25.0, True)
    for r in range(len(g)):
        ok = ~np.isnan(g[r])
        gr, mr = g[r][ok] * 20, m[r][ok]
        c = d = 0
        for i in range(len(gr)):
            for j in range(i + 1, len(gr)):
                if abs(gr[i] - gr[j]) >= 25:
                    if (gr[i] - gr[j]) * (mr[i] - mr[j]) > 0:
                        c += 1
                    else:
                        d += 1
        assert npairs[r] == c + d
        assert tau[r] == ((c - d) / (c + d) if c + d else 0.0)
    iu, ju = _triu(L)
    assert not iu.flags.writeable and [(int(a), int(b)) for a, b in zip(iu, ju)] == \
        [(a, b) for a in range(L) for b in range(a + 1, L)]
    x, y = rng.random(L), _tied(rng, L, 3)
    acc, n = pairwise_accuracy(x, y)
    agree = [np.sign(x[i] - x[j]) == np.sign(y[i] - y[j]) for i in range(L) for j in range(i + 1, L)]
    assert (acc, n) == (float(np.mean(agree)), len(agree))


@pytest.mark.parametrize("variant", ["acc23", "tau_23"])
def test_tie_calibration_curve_equals_recount(variant):
    """Each point of the curve is acc23 / τ_23 recounted by loops with that ε (mean over groups)."""
    rng = np.random.default_rng(7)
    g = _tied(rng, (12, 7), 4)
    g[rng.random(g.shape) < 0.2] = np.nan
    m = _tied(rng, g.shape, 6)
    cal = calibrate_ties(g, m, variant)
    for eps, val in zip(cal.thresholds, cal.values):
        vals = []
        for r in range(len(g)):
            if (~np.isnan(g[r])).sum() < 2:
                continue
            c, d, th, tm, thm = _counts_loop(g[r], m[r], eps)
            tot = c + d + th + tm + thm
            vals.append((c + thm) / tot if variant == "acc23" else (c + thm - d - th - tm) / tot)
        assert val == pytest.approx(np.mean(vals), abs=1e-12)
    assert cal.best_epsilon == cal.thresholds[int(np.argmax(cal.values >= cal.values.max() - 1e-12))]


@pytest.mark.parametrize("method", ["kendall", "acc23", "pearson", "kendall_like"])
@pytest.mark.parametrize("zeros", [False, True])
def test_perm_both_one_group_equals_one_draw_at_a_time(method, zeros):
    """System level (one group of 7 systems, as the Systems page): the means over one group."""
    rng = np.random.default_rng(2)
    gold = _tied(rng, 7, 4) * (40 if method == "kendall_like" else 1)
    m1, m2 = gold + _tied(rng, 7, 3), _tied(rng, 7, 2)  # m2 often constant on a draw: NaN groups
    for a, b in ((m1, m2), (m2, m1)):
        want = _perm_both_loop(gold, a, b, method, "none", k=50, block_size=1000, seed=4,
                               replace_nans_with_zeros=zeros)
        got = perm_both(gold, a, b, method, "none", k=50, seed=4, replace_nans_with_zeros=zeros)
        assert (got.p_value, got.delta, got.draws) == want


@pytest.mark.parametrize("grouping,rate", [("item", 1.0), ("sys", 1.0), ("none", 1.0), ("item", 0.5), ("sys", 0.3)])
@pytest.mark.parametrize("chunk_cells", [None, 1, 200])
def test_tie_calibration_equals_group_by_group_loop(grouping, rate, chunk_cells, monkeypatch):
    """The whole curve, bit for bit, against the pairs collected group after group (methods §3.3),
    with the sampled pairs drawn group after group from the same generator; in one chunk of
    groups, one group per chunk, or a few."""
    if chunk_cells:
        import sys

        # the package's attribute ``correlation`` is the function: the module by its name
        monkeypatch.setattr(sys.modules["evalcore.stats.correlation"], "_CALIBRATION_CELLS", chunk_cells)
    rng = np.random.default_rng(9)
    gold = _tied(rng, (6, 25), 5)
    gold[rng.random(gold.shape) < 0.3] = np.nan
    g, m = grouped(gold, gold + _tied(rng, gold.shape, 4), grouping)
    counts = (~np.isnan(g)).sum(1)
    keep = counts >= 2
    draw = np.random.default_rng(1)
    dms, des = [], []
    for k in np.flatnonzero(keep):
        ok = ~np.isnan(g[k])
        gk, mk = g[k][ok], m[k][ok]
        pairs = [(i, j) for i in range(len(gk)) for j in range(i + 1, len(gk))]
        if rate < 1:
            pairs = [p for p, r in zip(pairs, draw.random(len(pairs))) if r < rate]
        ntot = len(gk) * (len(gk) - 1) / 2
        for i, j in pairs:
            dg, dm = gk[j] - gk[i], mk[j] - mk[i]
            if abs(dm) > 0:
                dms.append(abs(dm))
                des.append((-1.0 * (np.sign(dg) * np.sign(dm) > 0) + 1.0 * (dg == 0)) / ntot / keep.sum())
    order = np.argsort(dms, kind="stable")
    cum = np.cumsum(np.array(des)[order])
    dsort = np.array(dms)[order]
    last = np.r_[dsort[1:] != dsort[:-1], True]
    cal = calibrate_ties(g, m, "acc23", sample_rate=rate, seed=1)
    assert cal.thresholds.tolist() == [0.0] + dsort[last].tolist()
    assert cal.values[1:].tolist() == (cal.values[0] + cum[last]).tolist()
