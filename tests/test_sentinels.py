"""Sentinel baselines (evalcore.analysis.sentinels; `correlate` / `metatask --sentinels`).

References: hand-worked values of each sentinel; scipy.stats.pearsonr for a sentinel's
correlation; the PERM-BOTH p-value of evalcore.stats.perm_both (itself tested against
mt-metrics-eval) for the margin test; mt-metrics-eval's SPA and acc23 for a sentinel's
metrics-task values.
"""
from __future__ import annotations

import math
import sys
import types

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import SHARED_DATA
from evalcore.cli import main

ORACLE = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"


def _ds(rows, sources):
    from evalcore.core.dataset import Dataset

    segs = pd.DataFrame({"seg_id": list(sources), "source": list(sources.values())})
    out = pd.DataFrame(rows, columns=["system", "seg_id", "text"])
    return Dataset("t", "aa-bb", segs, outputs=out)


def test_text_sentinels_hand_worked():
    from evalcore.analysis.sentinels import text_sentinels

    ds = _ds([("A", "1", "a b c"), ("A", "2", "Das Haus"), ("B", "1", "")], {"1": "a x", "2": "das haus ist"})
    t = text_sentinels(ds).set_index(["metric", "system", "seg_id"])["score"]
    assert t[("sentinel:cand-length", "A", "1")] == 5           # "a b c"
    assert t[("sentinel:src-length", "A", "1")] == -3           # "a x"
    assert t[("sentinel:length-ratio", "A", "1")] == pytest.approx(-abs(math.log(5 / 3)), abs=1e-15)
    assert t[("sentinel:src-overlap", "A", "1")] == pytest.approx(-1 / 3, abs=1e-15)   # a of a, b, c
    assert t[("sentinel:src-overlap", "A", "2")] == -1.0        # both tokens, case-folded
    assert t[("sentinel:length-ratio", "A", "2")] == pytest.approx(-abs(math.log(8 / 12)), abs=1e-15)
    # an empty candidate: length 0, no overlap, the worst ratio of the other cells (not dropped)
    assert t[("sentinel:cand-length", "B", "1")] == 0 and t[("sentinel:src-overlap", "B", "1")] == 0
    assert t[("sentinel:length-ratio", "B", "1")] == pytest.approx(-abs(math.log(5 / 3)), abs=1e-15)


def test_system_prior_hand_worked():
    from evalcore.analysis.sentinels import system_prior

    items = pd.DataFrame({"system": ["A"] * 4 + ["B"], "seg_id": ["3", "1", "4", "2", "1"],
                          "score": [30.0, 10.0, 50.0, 20.0, 7.0]})
    t = system_prior(items, ["1", "2", "3", "4"]).set_index(["system", "seg_id"])["score"]
    # A's judged segments in order 1, 2, 3, 4 -> halves {1, 3} (mean 20) and {2, 4} (mean 35)
    assert t[("A", "1")] == 35 and t[("A", "3")] == 35 and t[("A", "2")] == 20 and t[("A", "4")] == 20
    assert ("B", "1") not in t.index                            # one judged segment: no prior


def _data(tmp_path, n_sys=5, n_seg=30, seed=2):
    rng = np.random.default_rng(seed)
    lp = "aa-bb"
    segs, outs, judg, scores = [], [], [], []
    for i in range(n_seg):
        segs.append((lp, str(i + 1), " ".join(["s"] * int(rng.integers(3, 12)))))
    for k in range(n_sys):
        for i in range(n_seg):
            q = 40 + 6 * k + rng.normal(0, 12)
            words = ["w"] * int(rng.integers(2, 14)) + (["s"] if rng.random() < 0.3 else [])
            outs.append((lp, f"S{k}", str(i + 1), " ".join(words)))
            judg.append((lp, f"S{k}", str(i + 1), "r1", "esa", round(q, 1)))
            scores.append(("m1", f"S{k}", str(i + 1), q + rng.normal(0, 6)))
    d = tmp_path / "data"
    d.mkdir()
    pd.DataFrame(segs, columns=["lp", "seg_id", "source"]).to_csv(d / "segments.tsv", sep="\t", index=False)
    pd.DataFrame(outs, columns=["lp", "system", "seg_id", "text"]).to_csv(d / "outputs.tsv", sep="\t", index=False)
    pd.DataFrame(judg, columns=["lp", "system", "seg_id", "rater", "judgement", "score"]).to_csv(
        d / "judgements.tsv", sep="\t", index=False)
    sc = tmp_path / "scores.tsv"
    pd.DataFrame(scores, columns=["metric", "system", "seg_id", "score"]).to_csv(sc, sep="\t", index=False)
    return d, sc


def _table(path):
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])


def test_correlate_sentinels_margin_and_p(tmp_path):
    from evalcore.analysis.sentinels import SENTINELS, system_prior, text_sentinels
    from evalcore.io import load_dataset
    from evalcore.stats import perm_both

    data, scores = _data(tmp_path)
    out = tmp_path / "c.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--level", "segment",
                 "--sentinels", "--draws", "200", "--seed", "4", "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    assert set(SENTINELS) <= set(t.index)
    j = _table(data / "judgements.tsv").assign(seg_id=lambda d: d["seg_id"].astype(str))
    key = ["system", "seg_id"]
    ds = load_dataset(str(data))
    vec = {m: g.drop(columns="metric") for m, g in pd.concat(
        [text_sentinels(ds), system_prior(j, ds.seg_ids),
         _table(scores).assign(seg_id=lambda d: d["seg_id"].astype(str))]).groupby("metric")}
    cells = {m: j[key + ["score"]].merge(v, on=key, suffixes=("_h", "_m")) for m, v in vec.items()}
    for m, c in cells.items():
        assert t.loc[m, "value"] == pytest.approx(scipy.stats.pearsonr(c["score_h"], c["score_m"])[0], abs=1e-12), m
    best = max(SENTINELS, key=lambda m: t.loc[m, "value"])
    assert t.loc["m1", "best_sentinel"] == best
    margin = t.loc["m1", "value"] - t.loc[best, "value"]
    assert t.loc["m1", "sentinel_margin"] == pytest.approx(margin, abs=1e-12)
    c = cells["m1"].merge(cells[best], on=key)
    if margin > 0:
        ref = perm_both(c["score_h_x"].to_numpy(), c["score_m_y"].to_numpy(), c["score_m_x"].to_numpy(), "pearson",
                        k=200, seed=4)
        assert t.loc["m1", "sentinel_p"] == pytest.approx(ref.p_value, abs=1e-12)
        assert bool(t.loc["m1", "beats_sentinel"]) == (ref.p_value < 0.05)
    else:
        assert np.isnan(t.loc["m1", "sentinel_p"]) and not bool(t.loc["m1", "beats_sentinel"])
    assert np.isnan(t.loc[best, "sentinel_margin"])
    # at system level the system prior (the human score itself there) is left out
    out2 = tmp_path / "s.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--sentinels",
                 "--out", str(out2)]) == 0
    assert "sentinel:system-prior" not in set(_table(out2)["metric"])


def test_metatask_sentinel_values_match_mtme(tmp_path):
    if not ORACLE.exists():
        pytest.skip(f"mt-metrics-eval oracle {ORACLE} is absent")
    sys.modules.setdefault("apache_beam", types.ModuleType("apache_beam"))
    try:
        import dacite  # noqa: F401
    except ImportError:
        sys.modules["dacite"] = types.ModuleType("dacite")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    from mt_metrics_eval import data as mdata, stats

    data, scores = _data(tmp_path, n_seg=16)
    out = tmp_path / "mt.tsv"
    assert main(["metatask", str(data), "--task", "wmt24", "--scores", str(scores), "--sentinels",
                 "--sentinel-draws", "20", "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    j = _table(data / "judgements.tsv")
    outs = _table(data / "outputs.tsv")
    gold = j.pivot(index="system", columns="seg_id", values="score")
    length = outs.assign(n=outs["text"].str.strip().str.len()).pivot(index="system", columns="seg_id", values="n")
    length = length.reindex(index=gold.index, columns=gold.columns)
    corr = {"len": stats.Correlation(len(gold), [float(x) for x in gold.to_numpy().ravel()],
                                     [float(x) for x in length.to_numpy().ravel()])}
    spa = mdata.CompareMetricsWithPairwiseConfidenceError(corr, k=0)[0]["len"][0]
    acc = mdata.CompareMetrics(corr, stats.KendallWithTiesOpt, "item", 0, perm_test="pairs", sample_rate=1.0)[0]["len"][0]
    assert t.loc["sentinel:cand-length", "aa-bb:sys:spa"] == pytest.approx(spa, abs=1e-9)
    assert t.loc["sentinel:cand-length", "aa-bb:seg:acc23/item+tie"] == pytest.approx(acc, abs=1e-9)
    best = max((m for m in t.index if m.startswith("sentinel:")), key=lambda m: t.loc[m, "average"])
    assert "sentinel:system-prior" not in t.index
    assert t.loc["m1", "sentinel_margin"] == pytest.approx(t.loc["m1", "average"] - t.loc[best, "average"], abs=1e-12)
    assert t.loc["m1", "best_sentinel"] == best and 0 <= t.loc["m1", "sentinel_p"] <= 1


def test_pooled_accuracy_row_has_no_per_pair_margins(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, sa = _data(tmp_path / "a")
    b, _ = _data(tmp_path / "b", seed=5)
    both = tmp_path / "both"
    both.mkdir()
    for name in ("segments", "outputs", "judgements"):
        t = pd.concat([_table(a / f"{name}.tsv"), _table(b / f"{name}.tsv").assign(lp="cc-dd")])
        t.to_csv(both / f"{name}.tsv", sep="\t", index=False)
    out = tmp_path / "acc.tsv"
    assert main(["correlate", str(both), "--lp", "all", "--human", "esa", "--scores", str(sa), "--method", "accuracy",
                 "--sentinels", "--draws", "50", "--out", str(out)]) == 0
    t = _table(out)
    pooled = t[t["lp"] == "(all)"].set_index("metric")
    assert len(pooled) and pooled["sentinel_margin"].isna().all() and pooled["best_sentinel"].isna().all()
    per = t[t["lp"] == "aa-bb"].set_index("metric")
    assert per.loc["m1", "best_sentinel"].startswith("sentinel:")


def test_spa_sentinels_without_prior_or_perm_test(tmp_path):
    data, scores = _data(tmp_path, n_seg=12)
    out = tmp_path / "spa.tsv"
    assert main(["correlate", str(data), "--human", "esa", "--scores", str(scores), "--method", "spa", "--perms", "50",
                 "--sentinels", "--out", str(out)]) == 0
    t = _table(out).set_index("metric")
    assert "sentinel:system-prior" not in t.index     # SPA reads segment scores: the prior would be circular
    best = max((m for m in t.index if m.startswith("sentinel:")), key=lambda m: t.loc[m, "value"])
    assert t.loc["m1", "sentinel_margin"] == pytest.approx(t.loc["m1", "value"] - t.loc[best, "value"], abs=1e-12)
    assert np.isnan(t.loc["m1", "sentinel_p"])        # SPA is itself a permutation test: no PERM-BOTH of two values
