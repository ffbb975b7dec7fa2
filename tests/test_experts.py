"""Experts vs non-experts (Callison-Burch 2009, §4): brute-force references computed here."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import SAMPLE
from evalcore.core.dataset import Dataset
from evalcore.analysis.experts import (combination_curves, gold_cross_validation, gold_labels, ranking_correlations,
                              rater_vs_gold)
from evalcore.io import load_dataset

SYSTEMS = ["s1", "s2", "s3", "s4"]
TRUE = {"s1": 4, "s2": 3, "s3": 2, "s4": 1}


def _dataset(seed: int = 0, n_seg: int = 30) -> Dataset:
    """Gold raters g1, g2 score the true quality (g2 with a little noise); non-experts: 'good'
    (= truth), 'noisy' (truth + noise) and 'random' (uniform scores, many judgements)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_seg):
        for sys_ in SYSTEMS:
            t = TRUE[sys_]
            rows.append((sys_, str(s), "g1", t))
            rows.append((sys_, str(s), "g2", t + (rng.integers(-1, 2) if s % 3 == 0 else 0)))
            rows.append((sys_, str(s), "good", t))
            rows.append((sys_, str(s), "noisy", t + rng.integers(-2, 3)))
            rows.append((sys_, str(s), "random", int(rng.integers(1, 6))))
    j = pd.DataFrame(rows, columns=["system", "seg_id", "rater", "score"]).assign(judgement="q")
    segs = pd.DataFrame({"seg_id": [str(s) for s in range(n_seg)]})
    return Dataset("t", "xx-en", segs, judgements=j[["system", "seg_id", "rater", "judgement", "score"]])


def _labels_by_hand(ds: Dataset, rater: str) -> dict:
    j = ds.judgements[ds.judgements["rater"] == rater]
    out = {}
    for seg, g in j.groupby("seg_id"):
        sc = dict(zip(g["system"], g["score"]))
        for a, b in itertools.combinations(sorted(sc), 2):
            out[(seg, a, b)] = ">" if sc[a] > sc[b] else "<" if sc[a] < sc[b] else "="
    return out


def test_figure2_agreement_with_gold_brute_force():
    ds = _dataset()
    labels = gold_labels(ds, ["g1", "g2"], "q")
    fig2 = rater_vs_gold(labels).set_index("rater")
    assert set(fig2.index) == {"good", "noisy", "random"}
    gold = [_labels_by_hand(ds, g) for g in ("g1", "g2")]
    for r in fig2.index:
        mine = _labels_by_hand(ds, r)
        agree = [mine[k] == g[k] for k in mine for g in gold]
        assert fig2.loc[r, "p_agree"] == pytest.approx(np.mean(agree))
        assert fig2.loc[r, "n_labels"] == len(mine)
    assert fig2.loc["good", "p_agree"] > fig2.loc["noisy", "p_agree"] > fig2.loc["random", "p_agree"]


def test_figure1_curves_and_top_line():
    ds = _dataset()
    labels = gold_labels(ds, ["g1", "g2"], "q")
    curves = combination_curves(labels, max_judges=5, n_resamples=10)
    assert curves.attrs["k_max"] == 3  # three non-experts
    assert set(curves["method"]) == {"plain", "weighted by gold", "weighted by non-experts"}
    # top line: the two gold raters' agreement, by hand
    g1, g2 = _labels_by_hand(ds, "g1"), _labels_by_hand(ds, "g2")
    assert curves.attrs["gold_agreement"] == pytest.approx(np.mean([g1[k] == g2[k] for k in g1]))
    # k = 3 uses every non-expert once: deterministic, equal to a literal weighted vote
    w = rater_vs_gold(labels).set_index("rater")["p_agree"]
    hands = {r: _labels_by_hand(ds, r) for r in ("good", "noisy", "random")}
    sign = {">": 1, "<": -1, "=": 0}
    agree = []
    for k in g1:
        s = sum(w[r] * sign[hands[r][k]] for r in hands)
        comb = ">" if s > 0 else "<" if s < 0 else "="
        agree += [comb == g1[k], comb == g2[k]]
    row = curves[(curves["method"] == "weighted by gold") & (curves["k"] == 3)].iloc[0]
    assert row["agreement"] == pytest.approx(np.mean(agree)) and row["sd"] == pytest.approx(0)


def test_figure3_rankings_against_scipy_and_cross_validation():
    ds = _dataset()
    labels = gold_labels(ds, ["g1", "g2"], "q")

    def rr(raters):  # share of comparisons judged better than or equal, by hand
        wins = {s: 0 for s in SYSTEMS}
        n = {s: 0 for s in SYSTEMS}
        for r in raters:
            for (_, a, b), lab in _labels_by_hand(ds, r).items():
                n[a] += 1
                n[b] += 1
                wins[a] += lab in (">", "=")
                wins[b] += lab in ("<", "=")
        return pd.Series({s: wins[s] / n[s] for s in SYSTEMS})

    gold = rr(["g1", "g2"])
    bleu_like = pd.Series({"s1": 1.0, "s2": 3.0, "s3": 2.0, "s4": 0.5})
    table = ranking_correlations(labels, bleu_like, "bleu").set_index("ranking")
    ne = rr(["good", "noisy", "random"])
    assert table.loc["non-experts: all comparisons", "rho"] == pytest.approx(
        stats.spearmanr(ne[SYSTEMS], gold[SYSTEMS])[0])
    assert table.loc["bleu", "rho"] == pytest.approx(stats.spearmanr(bleu_like[SYSTEMS], gold[SYSTEMS])[0])
    cv = gold_cross_validation(labels, 5, seed=0)
    assert len(cv) == 5
    cv_row = [i for i in table.index if i.startswith("gold vs gold")][0]
    assert table.loc[cv_row, "rho"] == pytest.approx(cv["rho"].mean())
    # every gold screen lands in exactly one fold: 20 % each (60 screens / 5)
    g = labels[labels["gold"]]
    assert g[["rater", "seg_id", "screen"]].drop_duplicates().shape[0] == 60


def test_gold_errors_are_clear():
    ds = _dataset()
    with pytest.raises(ValueError, match="did not judge"):
        gold_labels(ds, ["nobody"], "q")
    with pytest.raises(ValueError, match="no non-experts"):
        gold_labels(ds, ["g1", "g2", "good", "noisy", "random"], "q")


def test_sample_gold_rater_and_cli(tmp_path, capsys):
    from evalcore.cli import main

    ds = load_dataset(SAMPLE)
    labels = gold_labels(ds, ["expert"], "adequacy")
    fig2 = rater_vs_gold(labels).set_index("rater")
    # the noisy rater3 agrees least with the gold rater
    assert fig2["p_agree"].idxmin() == "rater3"
    assert main(["experts", str(SAMPLE), "--gold", "expert", "--criterion", "adequacy", "--metric", "bleu",
                 "--resamples", "5", "--out-prefix", str(tmp_path / "x_")]) == 0
    rk = pd.read_csv(tmp_path / "x_rankings.tsv", sep="\t").set_index("ranking")
    assert "bleu" in rk.index and rk["signature"].str.contains("gold: expert").all()
    assert main(["experts", str(SAMPLE), "--gold", "nobody"]) == 2
    assert "did not judge" in capsys.readouterr().err


def test_metric_scores_from_the_shared_statistics_equal_sacrebleu(tmp_path, monkeypatch):
    """Figure 3's metric row reads the cached statistics table the other pages share: corpus BLEU
    per system equals sacreBLEU's; an error rate (TER) is negated, equal to sacreBLEU's TER."""
    import sacrebleu

    from evalcore.analysis.experts import metric_system_scores

    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    ds = load_dataset(SAMPLE)
    refs = [ds.ref_texts()[r] for r in ds.ref_ids]
    bleu, ter = metric_system_scores(ds, "bleu"), metric_system_scores(ds, "ter")
    assert set(bleu.index) == set(ds.systems) == set(ter.index)
    for name, texts in ds.sys_texts().items():
        keep = [i for i, t in enumerate(texts) if t is not None]
        hyps = [texts[i] for i in keep]
        ref_sets = [[r[i] for i in keep] for r in refs]
        assert bleu[name] == pytest.approx(sacrebleu.corpus_bleu(hyps, ref_sets).score, abs=1e-9)
        assert -ter[name] == pytest.approx(sacrebleu.corpus_ter(hyps, ref_sets).score, abs=1e-9)
