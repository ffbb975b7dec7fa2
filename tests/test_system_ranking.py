"""System rankings with clusters (evalcore.stats.system_ranking, `evalcore rank`).

The reference is written from the WMT24 description with scipy directly on the raw
judgements.tsv of ../shared/data/wmt24_esa (brute force: dictionaries and loops, no evalcore code).
"""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import shared
from evalcore.cli import main
from evalcore.stats.system_ranking import clusters_from_significance, rank_systems


def _reference(root, lp):
    j = pd.read_csv(root / "judgements.tsv", sep="\t", dtype={"seg_id": str})
    j = j[(j["lp"] == lp) & (j["judgement"] == "esa")]
    seg = pd.read_csv(root / "segments.tsv", sep="\t", dtype={"seg_id": str})
    seg = seg[seg["lp"] == lp]
    domain = dict(zip(seg["seg_id"], seg["domain"]))
    ratings = defaultdict(list)  # (system, seg, rater) -> ratings
    for r in j.itertuples():
        ratings[(r.system, r.seg_id, r.rater)].append(r.score)
    per_item = defaultdict(list)
    for (s, g, _), v in ratings.items():
        per_item[(s, g)].append(sum(v) / len(v))
    item = {k: sum(v) / len(v) for k, v in per_item.items()}
    systems = sorted({s for s, _ in item})
    doms = sorted(set(domain.values()))
    score = {}
    for s in systems:
        means = []
        for d in doms:
            v = [x for (s2, g), x in item.items() if s2 == s and domain[g] == d]
            if v:
                means.append(sum(v) / len(v))
        score[s] = sum(means) / len(means)
    p = {}
    for a in systems:
        for b in systems:
            if a >= b:
                continue
            zs = []
            for d in doms:
                common = sorted(g for (s2, g) in item if s2 == a and domain[g] == d and (b, g) in item)
                if not common:
                    continue
                xa = [item[(a, g)] for g in common]
                xb = [item[(b, g)] for g in common]
                if all(x == y for x, y in zip(xa, xb)):
                    pd_ = 1.0
                else:
                    pd_ = scipy.stats.wilcoxon(xa, xb, alternative="two-sided").pvalue
                zs.append(scipy.stats.norm.ppf(1 - pd_))
            z = sum(zs) / math.sqrt(len(zs))
            p[(a, b)] = p[(b, a)] = 1 - scipy.stats.norm.cdf(z)
    return score, p


@pytest.mark.parametrize("lp", ["en-cs"])
def test_wilcoxon_ranking_matches_scipy_reference(lp):
    root = shared("wmt24_esa")
    ref_score, ref_p = _reference(root, lp)
    from evalcore.io import load_dataset
    from evalcore.stats.system_ranking import item_scores
    from evalcore.human.scores import criterion_judgements

    ds = load_dataset(str(root), lp=lp)
    dom = ds.extras["segment_domains"]
    r = rank_systems(item_scores(criterion_judgements(ds, "esa")), dict(zip(dom["seg_id"], dom["domain"])))
    assert sorted(r.systems) == sorted(ref_score)
    for s, v in zip(r.systems, r.scores):
        assert v == pytest.approx(ref_score[s], abs=1e-9)
    assert list(r.scores) == sorted(r.scores, reverse=True)
    n = len(r.systems)
    for i in range(n):
        for k in range(n):
            if i != k:
                assert r.pvalues[i, k] == pytest.approx(ref_p[(r.systems[i], r.systems[k])], abs=1e-9)
    # rank ranges by counting, written out
    for i, s in enumerate(r.systems):
        sig_better = sum(1 for t in r.systems if t != s and ref_p[(s, t)] < 0.05 and ref_score[t] > ref_score[s])
        sig_worse = sum(1 for t in r.systems if t != s and ref_p[(s, t)] < 0.05 and ref_score[t] < ref_score[s])
        assert r.rank_best[i] == 1 + sig_better
        assert r.rank_worst[i] == n - sig_worse
    # clusters: a cluster is closed exactly where no system above the cut is indistinguishable
    # from a system below it
    order = sorted(ref_score, key=lambda s: -ref_score[s])
    cuts = [c for c in range(1, n) if all(ref_p[(order[a], order[b])] < 0.05 for a in range(c) for b in range(c, n))]
    expect = np.ones(n, dtype=int)
    for c in cuts:
        expect[c:] += 1
    assert list(r.clusters) == list(expect)


def test_clusters_worked_example():
    # 0 ~ 2 (not significant) keeps the first cluster open to 2; 3 differs from all above;
    # 3 ~ 4; 5 differs from everything
    n = 6
    sig = np.ones((n, n), dtype=bool)
    np.fill_diagonal(sig, False)
    for a, b in [(0, 2), (3, 4)]:
        sig[a, b] = sig[b, a] = False
    assert list(clusters_from_significance(sig)) == [1, 1, 1, 2, 2, 3]
    # a chain: 0~1, 1~3 -> one cluster 0..3
    sig = np.ones((n, n), dtype=bool)
    np.fill_diagonal(sig, False)
    for a, b in [(0, 1), (1, 3)]:
        sig[a, b] = sig[b, a] = False
    assert list(clusters_from_significance(sig)) == [1, 1, 1, 1, 2, 3]


def test_bootstrap_and_ar_use_sacrebleu_semantics_on_one_domain():
    # one domain: the macro average is the plain mean, so the p-values are those of
    # paired_bootstrap / paired_approximate_randomization on the raw vectors (sacreBLEU semantics)
    from evalcore.stats.significance import paired_approximate_randomization, paired_bootstrap

    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 40))
    x[1] += 0.6
    frame = pd.DataFrame([(f"s{k}", str(i), x[k, i]) for k in range(3) for i in range(40)],
                         columns=["system", "seg_id", "score"])
    for test, fn in [("bootstrap", paired_bootstrap), ("ar", paired_approximate_randomization)]:
        r = rank_systems(frame, test=test, n_samples=500, seed=7)
        assert r.systems[0] == "s1"
        for i in range(3):
            for k in range(i + 1, 3):
                a, b = int(r.systems[i][1]), int(r.systems[k][1])
                assert r.pvalues[i, k] == pytest.approx(fn(x[a], x[b], n_samples=500, seed=7).p_value, abs=1e-12)


def test_rank_command_writes_table(tmp_path):
    root = shared("wmt24_esa")
    out = tmp_path / "rank.tsv"
    assert main(["rank", str(root), "--lp", "en-cs", "--human", "esa", "--out", str(out)]) == 0
    t = pd.read_csv(out, sep="\t")
    assert list(t.columns[:4]) == ["lp", "signal", "system", "score"]
    assert len(t) == 16 and set(t["signal"]) == {"human:esa"}
    assert (t["rank_best"] <= t["rank_worst"]).all()


def test_rank_command_metric_signal_is_the_mean_segment_score(tmp_path):
    # no domains in the sample: the score of a metric signal is the mean of its segment scores
    # (error rates negated), over the segments both systems share for the tests
    from conftest import SAMPLE
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_table

    out = tmp_path / "r.tsv"
    assert main(["rank", str(SAMPLE), "--metrics", "chrf,ter", "--test", "bootstrap", "--samples", "200",
                 "--out", str(out)]) == 0
    t = pd.read_csv(out, sep="\t")
    assert set(t["signal"]) == {"chrf", "ter"}
    seg = score_table(load_dataset(SAMPLE), ["chrf", "ter"], level="segment")
    for m, sign in (("chrf", 1), ("ter", -1)):
        want = (sign * seg[seg["metric"] == m].groupby("system")["score"].mean()).sort_values(ascending=False)
        got = t[t["signal"] == m]
        assert got["system"].tolist() == want.index.tolist()
        assert got["score"].to_numpy() == pytest.approx(want.to_numpy(), abs=1e-12)
        assert (got["rank_best"] <= got["rank_worst"]).all()
