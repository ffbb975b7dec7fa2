"""Reproduce published WMT20 numbers from ../shared/data/wmt20_mqm_scores (see its README).

* Mathur et al. 2020 (WMT20 metrics task) Tables 5-7: Pearson of official metric system scores vs
  official WMT DA z system scores, to 3 decimals.
* Freitag et al. 2021: the folder's system-level MQM means.
* Including human translations as "systems" flips BLEU's system-level correlation with MQM on
  en-de (about +0.83 without, -0.54 with).
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from evalcore.stats import correlation, correlation_table

from conftest import SHARED_DATA, shared  # noqa: E402

PATH = str(SHARED_DATA / "wmt20_mqm_scores")


@pytest.fixture(autouse=True, scope="module")
def _shared_data_present():
    """Skips (fails under CI) when ../shared/data/wmt20_mqm_scores is absent."""
    shared("wmt20_mqm_scores")

OUTLIERS = {"en-de": {"Online-G.1556", "WMTBiomedBaseline.388", "zlabs-nlp.179"},
            "zh-en": {"WMTBiomedBaseline.183"}}


def read(name):
    return pd.read_csv(os.path.join(PATH, name), sep="\t", keep_default_na=False)


@pytest.fixture(scope="module")
def official():
    return read("official_metric_sys_scores.tsv"), read("wmt_da_sys_scores.tsv")


def byo_frame(off, lp, refset):
    """The official system scores as bring-your-own rows (metric, system, seg_id='', score)."""
    s = off[(off["lp"] == lp) & (off["refset"] == refset)]
    return pd.DataFrame({"metric": s["metric"], "system": s["system"], "seg_id": "", "score": s["score"].astype(float)})


@pytest.mark.parametrize("lp,metric,refset,drop_outliers,add_humans,n_sys,published", [
    ("en-de", "sentBLEU", "newstest2020", False, (), 14, 0.934),   # Table 5
    ("zh-en", "sentBLEU", "newstest2020", False, (), 16, 0.948),   # Table 5
    ("en-de", "BLEU", "newstest2020", True, (), 11, 0.825),        # Table 6
    ("en-de", "sentBLEU", "newstest2020", True, (), 11, 0.823),    # Table 6
    ("zh-en", "sentBLEU", "newstest2020", True, (), 15, 0.950),    # Table 6
    ("en-de", "BLEU", "newstestB2020", True, ("Human-A.0",), 12, 0.672),      # Table 7
    ("en-de", "sentBLEU", "newstestB2020", True, ("Human-A.0",), 12, 0.639),  # Table 7
])
def test_mathur2020_tables(official, lp, metric, refset, drop_outliers, add_humans, n_sys, published):
    off, da = official
    da = da[da["lp"] == lp]
    human = pd.DataFrame({"system": da["mqm_system_name"], "seg_id": "sys", "score": da["da_z_mean"].astype(float)})
    humans = [s for s in human["system"] if s.startswith("Human") and s not in add_humans]
    exclude = humans + (sorted(OUTLIERS[lp]) if drop_outliers else [])
    scores = byo_frame(off, lp, refset)
    table = correlation_table(human, scores[scores["metric"] == metric], level="system", method="pearson",
                              exclude_systems=exclude)
    row = table.iloc[0]
    assert row["n"] == n_sys
    assert round(row["value"], 3) == pytest.approx(published, abs=1e-9)


def test_mqm_system_means_match_published_table():
    j = read("judgements.tsv")
    mqm = j[(j["lp"] == "en-de") & (j["judgement"] == "mqm")]
    penalty = -mqm.groupby("system")["score"].mean()
    published = {"Human-B.0": 0.746, "Human-A.0": 0.911, "Human-P.0": 1.410, "Tohoku-AIP-NTT.890": 2.018,
                 "OPPO.1535": 2.248, "eTranslation.737": 2.332, "Tencent_Translation.1520": 2.353,
                 "Huoshan_Translate.832": 2.445, "Online-B.1590": 2.475, "Online-A.1574": 2.987}
    assert set(penalty.index) == set(published)
    for sys_, v in published.items():
        assert round(penalty[sys_], 3) == pytest.approx(v, abs=1e-9), sys_
    # mt-metrics-eval's unit test value
    assert -penalty["OPPO.1535"] == pytest.approx(-2.24805, abs=5e-6)


def test_human_systems_flip_bleu_vs_mqm(official):
    off, _ = official
    from evalcore.io import load_dataset
    from evalcore.human.scores import human_scores
    from evalcore.stats import human_systems

    ds = load_dataset(PATH, lp="en-de")
    human = human_scores(ds, "mqm")
    humans = human_systems(ds, list(dict.fromkeys(human["system"])))
    assert set(humans) == {"Human-A.0", "Human-B.0", "Human-P.0"}
    scores = byo_frame(off, "en-de", "newstest2020")
    bleu = scores[scores["metric"] == "BLEU"]
    without = correlation_table(human, bleu, exclude_systems=humans).iloc[0]
    with_h = correlation_table(human, bleu).iloc[0]
    assert without["n"] == 7 and with_h["n"] == 9  # Human-A.0 is the reference itself: no BLEU score
    assert without["value"] == pytest.approx(0.8307, abs=5e-4)
    assert with_h["value"] == pytest.approx(-0.5405, abs=5e-4)
    # independent check of the same numbers with plain numpy
    mqm = human.groupby("system")["score"].mean()
    b = bleu.set_index("system")["score"]
    common = [s for s in mqm.index if s in b.index]
    mt = [s for s in common if s not in humans]
    assert without["value"] == pytest.approx(np.corrcoef(mqm[mt], b[mt])[0, 1])
    assert with_h["value"] == pytest.approx(np.corrcoef(mqm[common], b[common])[0, 1])


def test_cli_flip(official, tmp_path, capsys):
    off, _ = official
    from evalcore.cli import main

    s = off[off["lp"] == "en-de"].rename(columns={"refset": "ref_id"}).assign(seg_id="")
    f = tmp_path / "scores.tsv"
    s[["lp", "metric", "ref_id", "system", "seg_id", "score"]].to_csv(f, sep="\t", index=False)
    out = {}
    for flag in ([], ["--include-human-systems"]):
        rc = main(["correlate", PATH, "--lp", "en-de", "--human", "mqm", "--scores", str(f), "--refs", "newstest2020",
                   "--metrics", "BLEU", "--out", str(tmp_path / "o.tsv")] + flag)
        assert rc == 0
        t = pd.read_csv(tmp_path / "o.tsv", sep="\t")
        assert list(t.columns)[:8] == ["lp", "metric", "level", "method", "value", "ci_low", "ci_high", "n"]
        assert (t["lp"] == "en-de").all()
        out[bool(flag)] = t.iloc[0]
    assert out[False]["value"] == pytest.approx(0.8307, abs=5e-4) and out[False]["n"] == 7
    assert out[True]["value"] == pytest.approx(-0.5405, abs=5e-4) and out[True]["n"] == 9


def test_segment_level_chrf_vs_mqm_and_darr():
    """Segment-level official chrF vs MQM: our item-grouped Kendall equals a per-item scipy loop."""
    import scipy.stats

    from evalcore.stats import pivot_scores

    j = read("judgements.tsv")
    mqm = j[(j["lp"] == "en-de") & (j["judgement"] == "mqm")][["system", "seg_id", "score"]].astype({"seg_id": str})
    seg = read("official_metric_seg_scores.tsv")
    seg = seg[(seg["lp"] == "en-de") & (seg["refset"] == "newstest2020")].astype({"seg_id": str})
    systems = sorted(set(seg["system"]) & set(mqm["system"]))
    G, _, ids = pivot_scores(mqm[mqm["system"].isin(systems)].astype({"score": float}), systems)
    M, _, _ = pivot_scores(seg[["system", "seg_id", "score"]].astype({"score": float}), systems, ids)
    G = np.where(np.isnan(M), np.nan, G)
    ours = correlation(G, M, "kendall", "item").value
    vals = []
    for k in range(G.shape[1]):
        ok = ~np.isnan(G[:, k])
        if ok.sum() >= 2:
            with np.errstate(all="ignore"):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v = scipy.stats.kendalltau(G[ok, k], M[ok, k])[0]
            if not np.isnan(v):
                vals.append(v)
    assert ours == pytest.approx(np.mean(vals), abs=1e-9)
    assert 0 < ours < 1
