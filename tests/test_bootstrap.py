"""Issue 15: one percentile-bootstrap helper (evalcore/stats/bootstrap.py) behind the system
table, the correlation CIs and the ORANGE/KING CIs. References: scipy.stats.bootstrap,
sacreBLEU recomputed on every resample, and literal loops written here."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
import scipy.stats

from conftest import SAMPLE
from evalcore.stats.bootstrap import percentile_bootstrap, percentile_ci, resample_counts, resample_indices



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
