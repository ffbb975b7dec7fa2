"""One percentile-bootstrap helper (evalcore/stats/bootstrap.py) behind the system
table, the correlation CIs and the ORANGE/KING CIs. References: scipy.stats.bootstrap,
sacreBLEU recomputed on every resample, and literal loops written here."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
import scipy.stats

from conftest import SAMPLE
from evalcore.metrics.base import Metric
from evalcore.stats.bootstrap import (corpus_score_bootstrap, index_counts, percentile_bootstrap, percentile_ci,
                                      resample_counts, resample_indices)



@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.32])
def test_percentile_bootstrap_equals_scipy(alpha):
    x = np.random.default_rng(1).normal(size=40)
    want = scipy.stats.bootstrap((x,), np.mean, n_resamples=500, method="percentile", confidence_level=1 - alpha,
                                 random_state=np.random.default_rng(7), vectorized=True, axis=-1)
    lo, hi, samples = percentile_bootstrap(lambda i: x[i].mean(), len(x), 500, alpha, seed=7)
    assert (lo, hi) == pytest.approx(tuple(want.confidence_interval), abs=1e-12)
    vlo, vhi, vs = percentile_bootstrap(lambda idx: x[idx].mean(axis=1), len(x), 500, alpha, seed=7, vectorized=True)
    assert (vlo, vhi) == (lo, hi) and np.allclose(vs, samples, atol=1e-12)


def test_percentile_ci_by_hand():
    assert percentile_ci([5, 1, 3, 2, 4], alpha=0.5) == (2.0, 4.0)  # quantiles 0.25, 0.75
    assert percentile_ci([1, np.nan, 3, np.inf], alpha=0.0) == (1.0, 3.0)  # non-finite draws left out
    lo, hi = percentile_ci([np.nan, np.nan])
    assert np.isnan(lo) and np.isnan(hi)


def test_percentile_ci_per_column():
    """``axis=0``: each column's quantiles over its own finite draws (literal per-column loop)."""
    draws = np.random.default_rng(4).normal(size=(101, 3))
    draws[::7, 1] = np.nan
    draws[:, 2] = np.nan
    lo, hi = percentile_ci(draws, 0.1, axis=0)
    for j in range(2):
        col = draws[:, j][np.isfinite(draws[:, j])]
        assert (lo[j], hi[j]) == (np.quantile(col, 0.05), np.quantile(col, 0.95))
    assert np.isnan(lo[2]) and np.isnan(hi[2])


def test_resamples():
    idx = resample_indices(7, 300, seed=3)
    assert idx.shape == (300, 7) and idx.min() >= 0 and idx.max() == 6
    assert np.array_equal(idx, np.random.default_rng(3).integers(0, 7, size=(300, 7)))
    counts = resample_counts(7, 300, seed=3)
    assert counts.shape == (300, 7) and (counts.sum(axis=1) == 7).all()
    # each item is drawn with probability 1/7: mean multiplicity 1 (300×7 draws, loose bound)
    assert abs(counts.mean() - 1) < 0.1 and counts.max() > 1


def test_system_table_cis_are_sacrebleu_on_the_resampled_segments(tmp_path, monkeypatch):
    """The system table's BLEU CI is the percentile interval of corpus BLEU (sacreBLEU)
    recomputed on each resample of the segments; the human CI that of the resampled means."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path))
    from evalcore.views import systems as systems_view
    from evalcore.io import load_dataset

    ds = load_dataset(str(SAMPLE))
    n_boot, alpha, seed = 40, 0.1, 5
    t = systems_view.system_table(ds, ["bleu"], ["adequacy"], n_boot=n_boot, alpha=alpha, seed=seed)
    out = pd.read_csv(SAMPLE / "outputs.tsv", sep="\t", dtype=str, keep_default_na=False)
    refs = pd.read_csv(SAMPLE / "references.tsv", sep="\t", dtype=str, keep_default_na=False)
    seg_ids = ds.seg_ids
    ref_lists = [refs[refs["ref_id"] == r].set_index("seg_id").loc[seg_ids, "text"].tolist() for r in ds.ref_ids]
    system = ds.systems[0]
    hyps = out[out["system"] == system].set_index("seg_id").loc[seg_ids, "text"].tolist()
    idx = np.random.default_rng(seed).integers(0, len(seg_ids), size=(n_boot, len(seg_ids)))
    draws = [sacrebleu.corpus_bleu([hyps[i] for i in row], [[rl[i] for i in row] for rl in ref_lists]).score
             for row in idx]
    row = t[(t["measure"] == "bleu") & (t["system"] == system)].iloc[0]
    assert (row["ci_lo"], row["ci_hi"]) == pytest.approx(tuple(np.quantile(draws, [alpha / 2, 1 - alpha / 2])),
                                                         abs=1e-9)
    h = t[(t["kind"] == "human") & (t["system"] == system)].iloc[0]
    assert np.isfinite(h["ci_lo"]) and h["ci_lo"] <= h["score"] <= h["ci_hi"]


def test_index_counts_are_the_multiplicities_of_each_resample():
    idx = resample_indices(9, 50, seed=11)
    want = np.array([[list(row).count(i) for i in range(9)] for row in idx], dtype=float)
    assert np.array_equal(index_counts(idx, 9), want)


class _Median(Metric):
    """A corpus score that is not a function of summed statistics: must fall back to the loop
    (declared a summing metric, so the shortcut is tried and rejected by its two checks)."""

    stats_mode = "sum"

    def sentence_score(self, cand, refs):
        raise NotImplementedError

    def signature(self, nrefs=None, level=None):
        raise NotImplementedError

    def score_from_stats(self, stats):
        return float(np.median(np.asarray(stats)[:, 0]))


@pytest.fixture(scope="module")
def sample_stats(tmp_path_factory):
    import os

    from evalcore.io import load_dataset
    from evalcore.scoring import defaults as common_view
    from evalcore.scoring import scores

    old = os.environ.get("EVALCORE_CACHE")
    os.environ["EVALCORE_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    try:
        ds = load_dataset(str(SAMPLE))
        metrics = common_view.default_metrics(ds)
        yield scores.system_stats(ds, metrics, include_references=True)
    finally:
        if old is None:
            os.environ.pop("EVALCORE_CACHE")
        else:
            os.environ["EVALCORE_CACHE"] = old


def test_corpus_score_bootstrap_equals_the_literal_loop(sample_stats):
    """Every default metric, every candidate: the counts × statistics shortcut gives the draws
    and the interval of the literal loop (score_from_stats of each resampled statistics matrix,
    the same index draws); NaN rows (no reference) are left out as score_from_stats leaves them out."""
    from evalcore.metrics.base import get_metric

    class Counting(Metric):  # counts the literal evaluations on whole resamples (the shortcut makes 2 checks)
        def __init__(self, metric):
            self.metric, self.stats_mode, self.calls = metric, metric.stats_mode, 0

        def sentence_score(self, cand, refs):
            raise NotImplementedError

        def signature(self, nrefs=None, level=None):
            raise NotImplementedError

        def score_from_stats(self, s):
            self.calls += len(np.atleast_2d(s)) > 1
            return self.metric.score_from_stats(s)

    checked = 0
    for m, per in sample_stats.items():
        metric = get_metric(m)
        for name, (_, st) in per.items():
            for stats in (st, np.vstack([st, np.full((2, st.shape[1]), np.nan)])):
                counting = Counting(metric)
                lo, hi, draws = corpus_score_bootstrap(counting, stats, 60, 0.1, seed=3)
                # the shortcut was taken (2 checks), except where score_from_stats keeps NaN rows
                # (BLEU, chrF: a resample with a NaN row scores NaN, which only the loop reproduces)
                clean = not np.isnan(stats).any()
                assert counting.calls == (2 if clean or m not in ("bleu", "chrf") else 60 + 1), (m, counting.calls)
                llo, lhi, ldraws = percentile_bootstrap(lambda i, s=stats: metric.score_from_stats(s[i]),
                                                        len(stats), 60, 0.1, seed=3)
                np.testing.assert_allclose(draws, ldraws, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{m} {name}")
                assert (lo, hi) == pytest.approx((llo, lhi), rel=1e-9, abs=1e-12, nan_ok=True)
                checked += 1
    assert checked >= 9 * 2


def test_corpus_score_bootstrap_falls_back_for_other_statistics():
    st = np.random.default_rng(2).integers(0, 9, size=(30, 2)).astype(float)
    lo, hi, draws = corpus_score_bootstrap(_Median(), st, 40, seed=8)
    want = [np.median(st[i, 0]) for i in resample_indices(30, 40, seed=8)]
    assert np.array_equal(draws, want) and (lo, hi) == tuple(np.quantile(want, [0.025, 0.975]))


def test_scores_from_sums_equal_score_from_stats_row_by_row(sample_stats):
    """Metric.scores_from_sums (one vectorised call for BLEU, chrF, TER) gives, for every row of
    resampled sums, exactly score_from_stats of that row (the paired tests' corpus scores)."""
    from evalcore.metrics.base import get_metric

    for m, per in sample_stats.items():
        metric = get_metric(m)
        for _, (_, st) in per.items():
            ok = ~np.isnan(st).any(axis=1)
            sums = index_counts(resample_indices(int(ok.sum()), 30, seed=1), int(ok.sum())) @ st[ok]
            want = [metric.score_from_stats(row[None, :]) for row in sums]
            np.testing.assert_array_equal(metric.scores_from_sums(sums), want, err_msg=m)


def test_system_table_cis_and_paired_tests_equal_the_literal_loops(tmp_path, monkeypatch):
    """The Systems table's CIs (counts × statistics) and paired tests (scores_from_sums) equal the
    literal loops: score_from_stats of every resampled statistics matrix, and the paired test
    with a per-row score function."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path))
    from evalcore.io import load_dataset
    from evalcore.metrics.base import get_metric
    from evalcore.stats.significance import paired_approximate_randomization, paired_bootstrap
    from evalcore.scoring import scores
    from evalcore.views import systems as systems_view

    ds = load_dataset(str(SAMPLE))
    mets, base, n_boot, seed = ["bleu", "chrf", "ter", "meteor", "wer"], ds.systems[0], 40, 7
    stats = scores.system_stats(ds, mets)
    for test, m in [(t, m) for t in ("bootstrap", "ar") for m in mets]:
        t = systems_view.system_table(ds, mets, [], baseline=base, n_boot=n_boot, test=test, seed=seed)
        paired = paired_bootstrap if test == "bootstrap" else paired_approximate_randomization
        metric = get_metric(m)
        for name, (segs, st) in stats[m].items():
            row = t[(t["measure"] == m) & (t["system"] == name)].iloc[0]
            lo, hi, _ = percentile_bootstrap(lambda i, st=st: metric.score_from_stats(st[i]), len(segs), n_boot,
                                             0.05, seed)
            assert (row["ci_lo"], row["ci_hi"]) == pytest.approx((lo, hi), rel=1e-9, abs=1e-12)
            if name != base:
                assert segs == stats[m][base][0]
                p = paired(stats[m][base][1], st, lambda s: metric.score_from_stats(np.atleast_2d(s)),
                           n_samples=n_boot, seed=seed).p_value
                assert row["p_value"] == p, (m, name)
