"""Correlation and significance statistics against spec §8.5 vectors, scipy, sacreBLEU and
brute-force implementations written literally here."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import example, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from evalcore.stats import (bootstrap_ci, correlation, fisher_ci, fisher_compare, kendall_counts,
                            kendall_like, kendall_variant, one_minus_pce, paired_approximate_randomization,
                            paired_bootstrap, pairwise_accuracy, perm_both, significance_clusters, williams_test,
                            compare_metrics)


# ---------------------------------------------------------------------------------------------
# brute-force references
# ---------------------------------------------------------------------------------------------
def brute_counts(g, m, eps=0.0):
    c = d = th = tm = thm = 0
    for i, j in itertools.combinations(range(len(g)), 2):
        gt = g[i] == g[j]
        mt = abs(m[i] - m[j]) <= eps
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
    return c, d, th, tm, thm


def brute_variant(g, m, variant, eps=0.0):
    c, d, th, tm, thm = brute_counts(g, m, eps)
    n = c + d + th + tm + thm
    if variant == "b":
        a, b = n - tm - thm, n - th - thm
        return (c - d) / math.sqrt(a * b) if a and b else float("nan")
    if variant == "23":
        return (c + thm - d - th - tm) / n
    if variant == "acc23":
        return (c + thm) / n
    raise AssertionError


def brute_kendall_like(g, m, thresh):
    c = d = 0
    for i, j in itertools.combinations(range(len(g)), 2):
        if g[i] is None or g[j] is None or np.isnan(g[i]) or np.isnan(g[j]):
            continue
        if abs(g[i] - g[j]) >= thresh:
            if (g[i] > g[j] and m[i] > m[j]) or (g[i] < g[j] and m[i] < m[j]):
                c += 1
            else:
                d += 1
    return c, d


small_ints = arrays(np.float64, st.integers(3, 12), elements=st.integers(0, 4).map(float))


# ---------------------------------------------------------------------------------------------
# spec §8.5 vectors (mt-metrics-eval stats_test values)
# ---------------------------------------------------------------------------------------------
G23 = np.array([[1, 2, 3], [4, 5, 6]], dtype=float)
M23 = np.array([[2, 1, 4], [3, 3, 7]], dtype=float)


@pytest.mark.parametrize("method,grouping,expected", [
    ("pearson", "none", 0.776324), ("pearson", "sys", 0.760340), ("pearson", "item", 1.0),
    ("kendall", "none", 0.552052), ("kendall", "sys", 0.574915), ("kendall", "item", 1.0),
    ("tau_c", "none", 0.5556),
])
def test_mtme_matrix_vectors(method, grouping, expected):
    assert correlation(G23, M23, method, grouping).value == pytest.approx(expected, abs=5e-5)


def test_mtme_one_group_vector():
    g, m = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert kendall_counts(g, m) == (6, 3, 1, 0, 0)
    assert kendall_variant(g, m, "b") == pytest.approx(3 / math.sqrt(90))
    assert kendall_variant(g, m, "b") == pytest.approx(0.316228, abs=1e-6)
    assert kendall_variant(g, m, "c") == pytest.approx(0.32)
    assert kendall_variant(g, m, "23") == pytest.approx(0.2)
    assert kendall_variant(g, m, "acc23") == pytest.approx(0.6)
    assert kendall_variant(g, m, "acc23", epsilon=2) == pytest.approx(0.4)
    res = correlation(g, m, "acc23", tie_calibration=True)
    assert res.value == pytest.approx(0.7)
    assert res.epsilon == pytest.approx(0.5)
    with pytest.raises(ValueError):
        kendall_variant(g, m, "c", epsilon=0.1)


def test_kendall_like_thresh_1():
    g, m = [10, np.nan, 100, 150], [2, 1, 4, 3]
    assert kendall_like(g, m, thresh=1)[0] == pytest.approx(1 / 3)
    assert correlation(g, m, "kendall_like", thresh=1).value == pytest.approx(1 / 3)


def test_one_minus_pce():
    gold = np.array([[1, 2, 3], [2, 3, 4]], dtype=float)
    metric = np.array([[2, 2, 4], [1, 3, 5]], dtype=float)
    assert one_minus_pce(gold, metric, 1000, seed=4) == pytest.approx(0.872, abs=1e-9)


def test_williams_and_fisher():
    t, p = williams_test(0.6, 0.5, 0.8, 100)
    assert t == pytest.approx(1.943241, abs=1e-6)
    assert p == pytest.approx(0.027443, abs=1e-6)
    assert williams_test(0.6, 0.5, 0.8, 100, one_sided=False)[1] == pytest.approx(2 * 0.027443, abs=2e-6)
    lo, hi = fisher_ci(0.6, 100)
    assert lo == pytest.approx(0.457498, abs=1e-6)
    assert hi == pytest.approx(0.712455, abs=1e-6)
    # independent comparison: Z by the textbook formula
    z, p2 = fisher_compare(0.6, 100, 0.4, 120)
    zz = (math.atanh(0.6) - math.atanh(0.4)) / math.sqrt(1 / 97 + 1 / 117)
    assert z == pytest.approx(zz)
    assert p2 == pytest.approx(2 * (1 - scipy.stats.norm.cdf(abs(zz))))


# ---------------------------------------------------------------------------------------------
# scipy for the plain correlations, brute force for the Kendall variants
# ---------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.integers(3, 30), st.integers(0, 10_000))
def test_plain_correlations_match_scipy(n, seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 5, n).astype(float)
    m = rng.normal(size=n).round(1)
    for method, fn in [("pearson", scipy.stats.pearsonr), ("spearman", scipy.stats.spearmanr),
                       ("kendall", scipy.stats.kendalltau)]:
        ours = correlation(g, m, method).value
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = float(fn(g, m)[0])
        if np.isnan(ref):
            assert np.isnan(ours)
        else:
            assert ours == pytest.approx(ref, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(2, 8), st.integers(0, 10_000),
       st.sampled_from(["pearson", "spearman", "kendall"]), st.sampled_from(["item", "sys"]))
def test_grouped_average_matches_loop_over_scipy(n_sys, n_items, seed, method, grouping):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 4, (n_sys, n_items)).astype(float)
    g[rng.random(g.shape) < 0.2] = np.nan
    m = rng.integers(0, 6, (n_sys, n_items)).astype(float)
    fn = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}[method]
    rows_g = g.T if grouping == "item" else g
    rows_m = m.T if grouping == "item" else m
    vals = []
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rg, rm in zip(rows_g, rows_m):
            ok = ~np.isnan(rg)
            if ok.sum() < 2:
                continue
            v = float(fn(rg[ok], rm[ok])[0])
            if not np.isnan(v):
                vals.append(v)
    expected = np.mean(vals) if vals else float("nan")
    ours = correlation(g, m, method, grouping).value
    if np.isnan(expected):
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(small_ints, st.data(), st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_kendall_counts_brute_force(g, data, eps):
    m = np.array(data.draw(st.lists(st.integers(0, 5), min_size=len(g), max_size=len(g))), dtype=float) / 2
    assert kendall_counts(g, m, eps) == brute_counts(g, m, eps)
    for variant in ("b", "23", "acc23"):
        ours, ref = kendall_variant(g, m, variant, eps), brute_variant(g, m, variant, eps)
        assert (np.isnan(ours) and np.isnan(ref)) or ours == pytest.approx(ref)


def test_kendall_counts_long_vector_route():
    rng = np.random.default_rng(1)
    n = 3000  # above the brute-force size: tie counts + scipy tau_b route
    g = rng.integers(0, 7, n).astype(float)
    m = rng.integers(0, 9, n).astype(float)
    c, d, th, tm, thm = kendall_counts(g, m)
    # literal vectorised pair classification (no shortcut)
    iu, ju = np.triu_indices(n, 1)
    dg, dm = g[iu] - g[ju], m[iu] - m[ju]
    assert thm == int(((dg == 0) & (dm == 0)).sum())
    assert th == int(((dg == 0) & (dm != 0)).sum())
    assert tm == int(((dg != 0) & (dm == 0)).sum())
    assert c == int((dg * dm > 0).sum())
    assert d == int((dg * dm < 0).sum())


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(2, 6), st.integers(0, 10_000))
@example(5, 3, 7690)  # float cumulative sums once broke an exact tie here (first maximum lost)
def test_tie_calibration_brute_force(n_sys, n_items, seed):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, (n_sys, n_items)).astype(float)
    gold[rng.random(gold.shape) < 0.15] = np.nan
    metric = rng.integers(0, 8, (n_sys, n_items)).astype(float) / 4
    for variant, method in (("acc23", "acc23"), ("23", "tau_23")):
        best, best_eps = -np.inf, None
        cands = sorted({0.0} | {abs(a - b) for a in metric.ravel() for b in metric.ravel()})
        for eps in cands:
            vals = []
            for k in range(n_items):
                ok = ~np.isnan(gold[:, k])
                if ok.sum() >= 2:
                    vals.append(brute_variant(gold[ok, k], metric[ok, k], variant, eps))
            v = np.mean(vals) if vals else np.nan
            if v > best + 1e-12:
                best, best_eps = v, eps
        res = correlation(gold, metric, method, "item", tie_calibration=True)
        if best_eps is None:
            assert np.isnan(res.value)
            continue
        assert res.value == pytest.approx(best)
        # the chosen ε attains the maximum (first maximum = smallest such ε)
        assert res.epsilon == pytest.approx(best_eps)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6), st.integers(1, 6), st.integers(0, 10_000), st.sampled_from([1.0, 25.0]))
def test_darr_pools_pairs_over_items(n_sys, n_items, seed, thresh):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 100, (n_sys, n_items)).astype(float)
    gold[rng.random(gold.shape) < 0.2] = np.nan
    metric = rng.integers(0, 5, (n_sys, n_items)).astype(float)
    C = D = 0
    for k in range(n_items):
        c, d = brute_kendall_like(list(gold[:, k]), list(metric[:, k]), thresh)
        C, D = C + c, D + d
    res = correlation(gold, metric, "kendall_like", "item", thresh=thresh)
    if C + D == 0:
        assert np.isnan(res.value) or res.value == 0
    else:
        assert res.value == pytest.approx((C - D) / (C + D))
    if thresh == 25.0 and C + D:
        assert correlation(gold, metric, "darr", "item").value == pytest.approx((C - D) / (C + D))


def test_darr_threshold_inclusive_vs_strict():
    g, m = [0, 25, 60], [1, 0, 2]
    # >= 25: pairs (0,25) disc, (0,60) conc, (25,60) conc -> 1/3 ; > 25 drops (0,25) -> 1
    assert kendall_like(g, m, 25)[0] == pytest.approx(1 / 3)
    assert kendall_like(g, m, 25, inclusive=False)[0] == pytest.approx(1.0)
    # metric ties are discordant
    assert kendall_like([0, 50], [1, 1], 25)[0] == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        correlation(np.ones((2, 2)), np.ones((2, 2)), "darr", "none")


def test_missing_gold_dropped_missing_metric_rejected():
    g = np.array([[1, np.nan, 3], [2, 5, np.nan]])
    m = np.array([[1, 99, 2], [4, 3, -7]])
    ok = ~np.isnan(g)
    assert correlation(g, m, "pearson").value == pytest.approx(scipy.stats.pearsonr(g[ok], m[ok])[0])
    assert correlation(g, m, "pearson").n == 4
    m2 = m.astype(float).copy()
    m2[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        correlation(g, m2)


def test_macro_and_nan_replacement():
    # item 0 constant metric -> NaN; item 1 perfect; item 2 has one gold value -> skipped
    g = np.array([[1, 1, 1], [2, 2, np.nan], [3, 3, np.nan]])
    m = np.array([[5, 1, 0], [5, 2, 0], [5, 3, 0]])
    assert correlation(g, m, "pearson", "item").value == pytest.approx(1.0)
    assert correlation(g, m, "pearson", "item", replace_nans_with_zeros=True).value == pytest.approx(0.5)


def test_pairwise_accuracy():
    g = [1, 2, 3, 3]
    m = [1, 3, 2, 5]
    # pairs: (1,2)+,(1,3)+,(1,4)+,(2,3) gold+ metric- ,(2,4)+,(3,4) gold tie metric + -> 4/6
    assert pairwise_accuracy(g, m) == (pytest.approx(4 / 6), 6)


# ---------------------------------------------------------------------------------------------
# bootstrap, permutation, clusters
# ---------------------------------------------------------------------------------------------
def test_bootstrap_ci_properties():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(8, 40))
    m = g + rng.normal(scale=0.5, size=g.shape)
    a = bootstrap_ci(g, m, "pearson", "none", k=200, seed=3)
    b = bootstrap_ci(g, m, "pearson", "none", k=200, seed=3)
    assert a.ci_low == b.ci_low and a.ci_high == b.ci_high
    assert a.ci_low <= a.value <= a.ci_high
    assert np.quantile(a.samples, 0.025) == pytest.approx(a.ci_low)
    for mode in ("items", "systems", "both"):
        s = bootstrap_ci(g, m, "kendall", "item", resample=mode, k=50, seed=1)
        assert s.ci_low <= s.ci_high
        sy = bootstrap_ci(g, m, "pearson", level="system", resample=mode, k=50, seed=1)
        assert sy.value == pytest.approx(scipy.stats.pearsonr(g.mean(1), m.mean(1))[0])
    # a perfectly correlated metric has a degenerate CI at 1
    p = bootstrap_ci(g, 2 * g + 1, "pearson", "none", k=30, seed=0)
    assert p.ci_low == pytest.approx(1.0) and p.ci_high == pytest.approx(1.0)


def test_bootstrap_items_literal():
    """BOOT-INPUTS on a single system row equals a literal loop with the same generator."""
    rng = np.random.default_rng(5)
    g = rng.normal(size=(1, 30))
    m = g + rng.normal(size=g.shape)
    res = bootstrap_ci(g, m, "spearman", "none", resample="items", k=100, seed=11)
    r2 = np.random.default_rng(11)
    vals = []
    for _ in range(100):
        idx = r2.integers(0, 30, 30)
        vals.append(scipy.stats.spearmanr(g[0, idx], m[0, idx])[0])
    assert res.ci_low == pytest.approx(np.quantile(vals, 0.025))
    assert res.ci_high == pytest.approx(np.quantile(vals, 0.975))


def test_perm_both():
    rng = np.random.default_rng(0)
    g = rng.normal(size=(5, 60))
    good = g + rng.normal(scale=0.3, size=g.shape)
    bad = rng.normal(size=g.shape)
    same = perm_both(g, good, good, "pearson", k=50, seed=0)
    assert same.delta == 0 and same.p_value == 1.0
    r = perm_both(g, bad, good, "pearson", "item", k=300, block_size=100, seed=0)
    assert r.delta > 0 and r.p_value < 0.02 and r.draws == 100  # early stop at the first block
    r2 = perm_both(g, good, bad, "kendall", k=200, block_size=100, seed=0)
    assert r2.delta < 0 and r2.p_value > 0.5 and r2.draws == 100


def test_significance_clusters_hand_example():
    names = ["a", "b", "c", "d"]
    sig = np.full((4, 4), np.nan)
    # a vs b not significant, a vs c significant -> c opens rank 2; c vs d not, b vs d n/a
    sig[0, 1], sig[0, 2], sig[1, 2], sig[0, 3], sig[1, 3], sig[2, 3] = 0.3, 0.01, 0.2, 0.001, 0.01, 0.4
    assert significance_clusters(names, [0.9, 0.8, 0.7, 0.6], sig) == [1, 1, 2, 2]
    sig[2, 3] = 0.04
    assert significance_clusters(names, [0.9, 0.8, 0.7, 0.6], sig) == [1, 1, 2, 3]


def test_compare_metrics_orders_and_clusters():
    rng = np.random.default_rng(2)
    g = rng.normal(size=(1, 200))
    mets = {"good": g + rng.normal(scale=0.2, size=g.shape), "good2": g + rng.normal(scale=0.2, size=g.shape),
            "noise": rng.normal(size=g.shape)}
    table, sig = compare_metrics(g, mets, "pearson", test="williams")
    assert table["metric"].iloc[-1] == "noise"
    assert table["rank"].tolist()[0] == 1 and table["rank"].iloc[-1] == 2
    assert sig[0, 2] < 0.05


# ---------------------------------------------------------------------------------------------
# paired system tests vs sacreBLEU
# ---------------------------------------------------------------------------------------------
REFS = ["the cat sat on the mat", "a dog ran in the park today", "he walked the dog", "it is raining again",
        "we like green tea a lot", "the house is big and old", "she reads a long book", "they went home early"]
SYS_A = ["the cat sat on a mat", "a dog runs in the park", "he walk the dog", "it rains again",
         "we like green tea", "the house is big", "she read a book", "they go home early"]
SYS_B = ["cat on the mat", "the dog ran in a park today", "he walked the dog", "it is raining",
         "we like tea a lot", "a big old house", "she reads long books", "they went home"]


@pytest.mark.parametrize("test_type,n", [("bs", 300), ("ar", 400)])
def test_paired_tests_match_sacrebleu(test_type, n):
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    bleu = BLEU()
    _, res = PairedTest([("A", SYS_A), ("B", SYS_B)], {"BLEU": bleu}, [REFS], test_type=test_type,
                        n_samples=n)()
    ref_a, ref_b = res["BLEU"]
    b2 = BLEU()
    sa = np.array(b2._extract_corpus_statistics(SYS_A, [REFS]))
    sb = np.array(b2._extract_corpus_statistics(SYS_B, [REFS]))
    fn = lambda s: b2._compute_score_from_stats(list(s)).score  # noqa: E731
    if test_type == "bs":
        ours = paired_bootstrap(sa, sb, fn, n_samples=n, seed=12345)
        assert ours.mean_b == pytest.approx(ref_b.mean, abs=1e-4)
        assert ours.ci_b == pytest.approx(ref_b.ci, abs=1e-4)
    else:
        ours = paired_approximate_randomization(sa, sb, fn, n_samples=n, seed=12345)
    assert ours.score_a == pytest.approx(ref_a.score)
    assert ours.score_b == pytest.approx(ref_b.score)
    assert ours.p_value == pytest.approx(ref_b.p_value, abs=1e-12)


def test_paired_tests_on_segment_scores():
    rng = np.random.default_rng(0)
    a = rng.normal(size=50)
    b = a + 1.0  # b uniformly better by 1
    bs = paired_bootstrap(a, b, n_samples=200, seed=1)
    assert bs.score_b - bs.score_a == pytest.approx(1.0)
    assert bs.p_value == pytest.approx(1 / 201)  # centred |diff| never exceeds the observed 1
    ar = paired_approximate_randomization(a, b, n_samples=200, seed=1)
    assert ar.p_value < 0.05
    # a zero difference is never significant (sacreBLEU's strict ">" would give 1/101 and 1/201)
    same = paired_approximate_randomization(a, a, n_samples=100, seed=1)
    assert same.p_value == 1.0
    assert paired_bootstrap(a, a.copy(), n_samples=200, seed=1).p_value == 1.0


def test_identical_systems_are_never_significantly_different(tmp_path):
    """Two systems with identical outputs: p = 1 for both paired tests, and the Systems table marks
    the copy "≈ n.s." against its original (it was "▼ worse" with p = 1/201 = 0.005)."""
    import shutil

    import pandas as pd

    from evalcore.io import load_dataset
    from evalcore.views import systems as systems_view

    from conftest import ROOT

    src = ROOT / "sample_data" / "teaching_es_en"
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)
    out = pd.read_csv(src / "outputs.tsv", sep="\t", keep_default_na=False, dtype=str)
    base = out["system"].iloc[0]
    copy = out[out["system"] == base].assign(system="copy-of-base")
    pd.concat([out, copy]).to_csv(tmp_path / "outputs.tsv", sep="\t", index=False)
    ds = load_dataset(tmp_path)
    for test in ("bootstrap", "ar"):
        t = systems_view.system_table(ds, ["bleu"], [], baseline=base, n_boot=200, test=test)
        row = t[(t["measure"] == "bleu") & (t["system"] == "copy-of-base")].iloc[0]
        assert row["score"] == t[(t["measure"] == "bleu") & (t["system"] == base)]["score"].iloc[0]
        assert row["p_value"] == 1.0 and row["mark"] == "≈ n.s.", test


# ---------------------------------------------------------------------------------------------
# PERM-BOTH on boundary draws: an exact-count reference
# ---------------------------------------------------------------------------------------------
def _exact_group_value(g, m, method):
    """The statistic of one group from brute-force integer pair counts, in 60-digit decimals."""
    from decimal import Decimal, getcontext

    getcontext().prec = 60
    ok = ~np.isnan(g)
    g, m = g[ok], m[ok]
    if len(g) < 2:
        return None
    if method == "kendall_like":
        c, d = brute_kendall_like(g, m, 1.0)
        return Decimal(c - d) / Decimal(c + d) if c + d else None
    c, d, th, tm, thm = brute_counts(g, m)
    n = c + d + th + tm + thm
    if method == "kendall":
        a, b = n - tm - thm, n - th - thm
        return Decimal(c - d) / (Decimal(a) * Decimal(b)).sqrt() if a and b else None
    if method == "tau_23":
        return Decimal(c + thm - d - th - tm) / Decimal(n)
    return Decimal(c + thm) / Decimal(n)  # acc23


def _exact_perm_p(gold, m1, m2, method, k, seed):
    """PERM-BOTH p (item grouping, macro or pooled mean) with every draw compared exactly."""
    from decimal import Decimal

    from evalcore.stats.registry import get

    def zs(x):
        ok = ~np.isnan(gold)
        z = np.full(x.shape, np.nan)
        v = x[ok]
        sd = v.std()
        z[ok] = (v - v.mean()) / sd if sd > 0 else v - v.mean()
        return z

    za, zb = zs(m1), zs(m2)
    pooled = get(method).pooled

    def corr(m):
        vals, wts = [], []
        for k_ in range(gold.shape[1]):
            v = _exact_group_value(gold[:, k_], m[:, k_], method)
            if v is not None:
                vals.append(v)
                if pooled:
                    c, d = brute_kendall_like(gold[:, k_], m[:, k_], 1.0)
                    wts.append(Decimal(c + d))
        if not vals:
            return Decimal(0)
        if pooled:
            return sum(v * w for v, w in zip(vals, wts)) / sum(wts) if sum(wts) else Decimal(0)
        return sum(vals) / Decimal(len(vals))

    delta = corr(zb) - corr(za)
    rng = np.random.default_rng(seed)
    count = 0
    for _ in range(k):
        swap = (rng.random(gold.T.shape) < 0.5).T  # drawn in the item-grouped (items × systems) layout
        diff = corr(np.where(swap, za, zb)) - corr(np.where(swap, zb, za))
        if diff - delta >= Decimal("-1e-40"):
            count += 1
    return count / k


@pytest.mark.parametrize("method", ["kendall", "tau_23", "acc23", "kendall_like"])
def test_perm_both_counts_boundary_draws_exactly(method):
    """Three systems with integer scores: most draws give exactly the observed δ, which the
    floating-point difference reaches or misses by an ulp. The p-value equals an exact-count
    reference (brute-force pair counts, 60-digit arithmetic) for every statistic."""
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 4, size=(3, 40)).astype(float)
    m1 = gold + rng.integers(-2, 3, size=gold.shape)
    m2 = gold + rng.integers(-2, 3, size=gold.shape)
    kw = {"thresh": 1.0} if method == "kendall_like" else {}
    k = 300
    ours = perm_both(gold, m1, m2, method, "item", k=k, block_size=k, seed=3, **kw)
    assert ours.draws == k
    assert ours.p_value == _exact_perm_p(gold, m1, m2, method, k, 3)
