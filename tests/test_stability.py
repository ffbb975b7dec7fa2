"""`evalcore stability` (evalcore.analysis.stability): rankings under perturbations.

References: the unperturbed ranking is the `metatask` / `rank` command's own output (run through
the CLI); a perturbation is checked against the same command run on data changed the same way
(a pair, a system or a rater removed from the files, another criterion as the gold); Kendall's τ
against scipy.stats.kendalltau; the per-item summary against a brute-force count over the
per-perturbation table.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from evalcore.cli import main

LPS = ("aa-bb", "cc-dd")
SYSTEMS = ("S1", "S2", "S3", "S4", "S5")
METRICS = ("m1", "m2", "m3")


def _data(tmp_path, lps=LPS, systems=SYSTEMS, n_seg=24, seed=1):
    """A tidy folder: per pair, systems of rising quality, two domains, three raters of `esa`
    (r3 on every other segment), a second wave `esa2`; a bring-your-own scores file of three
    metrics of falling quality."""
    rng = np.random.default_rng(seed)
    segs, outs, refs, judg, scores = [], [], [], [], []
    for lp in lps:
        for i in range(n_seg):
            segs.append((lp, str(i + 1), f"doc{i // 6}", f"src {i}", "d1" if i % 2 else "d2"))
            refs.append((lp, str(i + 1), "refA", f"ref {i}"))
        for k, s in enumerate(systems):
            for i in range(n_seg):
                sid = str(i + 1)
                q = 50 + 4 * k + rng.normal(0, 10)
                outs.append((lp, s, sid, f"out {s} {i}"))
                for r in ("r1", "r2") + (("r3",) if i % 2 == 0 else ()):
                    judg.append((lp, s, sid, r, "esa", round(q + rng.normal(0, 8), 1)))
                judg.append((lp, s, sid, "w2", "esa2", round(q + rng.normal(0, 12), 1)))
                for j, m in enumerate(METRICS):
                    scores.append((m, s, sid, q + rng.normal(0, 5 + 10 * j), lp))
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    pd.DataFrame(segs, columns=["lp", "seg_id", "doc_id", "source", "domain"]).to_csv(d / "segments.tsv", sep="\t", index=False)
    pd.DataFrame(refs, columns=["lp", "seg_id", "ref_id", "text"]).to_csv(d / "references.tsv", sep="\t", index=False)
    pd.DataFrame(outs, columns=["lp", "system", "seg_id", "text"]).to_csv(d / "outputs.tsv", sep="\t", index=False)
    pd.DataFrame(judg, columns=["lp", "system", "seg_id", "rater", "judgement", "score"]).to_csv(
        d / "judgements.tsv", sep="\t", index=False)
    sc = tmp_path / "scores.tsv"
    pd.DataFrame(scores, columns=["metric", "system", "seg_id", "score", "lp"]).to_csv(sc, sep="\t", index=False)
    return d, sc


def _read(path):
    return pd.read_csv(path, sep="\t", keep_default_na=False)


def _metatask_order(tmp_path, data, scores, *extra):
    out = tmp_path / "mt.tsv"
    assert main(["metatask", str(data), "--task", "wmt24", "--scores", str(scores), "--human", "esa",
                 "--out", str(out), *extra]) == 0
    return _read(out)["metric"].tolist()


def _drop_rows(src, dst, table, keep):
    import shutil

    shutil.copytree(src, dst)
    t = _read(src / table)
    keep(t).to_csv(dst / table, sep="\t", index=False)
    return dst


def test_kendall_tau_matches_scipy():
    from evalcore.analysis.stability import kendall_tau

    rng = np.random.default_rng(0)
    items = [f"x{i}" for i in range(9)]
    for _ in range(20):
        other = list(rng.permutation(items))[: rng.integers(2, 10)]
        common = [x for x in items if x in other]
        ref = scipy.stats.kendalltau([items.index(x) for x in common], [other.index(x) for x in common]).statistic
        assert kendall_tau(items, other) == pytest.approx(ref, abs=1e-12)
    assert np.isnan(kendall_tau(items, ["x1"]))


def test_task_stability_base_and_perturbations_match_metatask(tmp_path):
    data, scores = _data(tmp_path)
    out, per = tmp_path / "st.tsv", tmp_path / "per.tsv"
    assert main(["stability", str(data), "--task", "wmt24", "--scores", str(scores), "--gold", "esa",
                 "--out", str(out), "--perturbations-out", str(per)]) == 0
    t, p = _read(out), _read(per)
    assert list(t.columns[:7]) == ["lp", "metric", "base_rank", "p_rank1", "rank_lo", "rank_hi", "perturbations"]
    base = _metatask_order(tmp_path, data, scores)
    assert t.sort_values("base_rank")["metric"].tolist() == base      # unperturbed = metatask exactly
    assert len(p) >= 50 and t["p_rank1"].sum() == pytest.approx(1.0, abs=1e-12)
    kinds = p["kind"].value_counts().to_dict()
    assert kinds == {"bootstrap": 50, "system": 5, "rater": 3, "domain": 2, "lp": 2, "gold": 1, "tie": 1,
                     "grouping": 1}
    order = {r.perturbation: r.ranking.split(", ") for r in p.itertuples()}
    # drop a language pair = metatask on the other pair only
    for lp in LPS:
        other = [x for x in LPS if x != lp][0]
        assert order[f"drop lp {lp}"] == _metatask_order(tmp_path, data, scores, "--lp", other)
    # drop a system = metatask on data without that system's outputs and judgements
    d2 = _drop_rows(data, tmp_path / "nosys", "judgements.tsv", lambda j: j[j["system"] != "S3"])
    assert order["drop system S3"] == _metatask_order(tmp_path, d2, scores)
    # drop a rater = metatask on data without that rater's judgements
    d3 = _drop_rows(data, tmp_path / "norater", "judgements.tsv", lambda j: j[j["rater"] != "r1"])
    assert order["drop rater r1"] == _metatask_order(tmp_path, d3, scores)
    # the second wave as the gold = metatask with --human esa2 (it judges the same cells)
    out2 = tmp_path / "mt2.tsv"
    assert main(["metatask", str(data), "--task", "wmt24", "--scores", str(scores), "--human", "esa2",
                 "--out", str(out2)]) == 0
    assert order["gold esa2"] == _read(out2)["metric"].tolist()
    # the summary is a count over the per-perturbation table
    n = len(p)
    for r in t.itertuples():
        ranks = [o.index(r.metric) + 1 for o in order.values() if r.metric in o]
        assert r.p_rank1 == pytest.approx(sum(o[0] == r.metric for o in order.values()) / n, abs=1e-12)
        assert (r.rank_lo, r.rank_hi, r.perturbations) == (min(ranks), max(ranks), len(ranks))
    for r in p.itertuples():
        common = [m for m in base if m in order[r.perturbation]]
        ref = scipy.stats.kendalltau(range(len(common)), [order[r.perturbation].index(m) for m in common]).statistic
        assert r.kendall_tau == pytest.approx(ref, abs=1e-12)
        assert r.changes_winner == (order[r.perturbation][0] != base[0])


def test_task_stability_deterministic(tmp_path):
    from evalcore.analysis.stability import task_stability
    from evalcore.io import load_collection
    from evalcore.metrics.byo import read_scores
    from evalcore.scoring.settings import DEFAULTS

    data, scores = _data(tmp_path, lps=LPS[:1], n_seg=12)
    coll = load_collection(str(data))
    byo = read_scores(str(scores))
    runs = [task_stability(coll, "wmt24", DEFAULTS.with_(judged_only=False), scores=byo, human="esa", seed=7,
                           n_boot=10, num_permutations=50) for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].perturbations, runs[1].perturbations)
    assert "drop language pair: one language pair" in runs[0].skipped


def test_human_stability_matches_rank(tmp_path):
    from evalcore.analysis.stability import human_stability
    from evalcore.human.scores import criterion_judgements
    from evalcore.io import load_dataset
    from evalcore.scoring.settings import DEFAULTS
    from evalcore.stats.system_ranking import item_scores, rank_systems

    data, _ = _data(tmp_path, lps=LPS[:1])
    out, per = tmp_path / "st.tsv", tmp_path / "per.tsv"
    assert main(["stability", str(data), "--human", "esa", "--out", str(out), "--perturbations-out", str(per)]) == 0
    t, p = _read(out), _read(per)
    assert list(t.columns[:7]) == ["lp", "system", "base_rank", "p_rank1", "rank_lo", "rank_hi", "perturbations"]
    rk = tmp_path / "rank.tsv"
    assert main(["rank", str(data), "--human", "esa", "--out", str(rk)]) == 0
    ranked = _read(rk)
    assert t.sort_values("base_rank")["system"].tolist() == ranked["system"].tolist()  # = rank exactly
    assert len(p) >= 50 and t["p_rank1"].sum() == pytest.approx(1.0, abs=1e-12)
    assert set(p["kind"]) == {"system", "domain", "rater", "gold", "bootstrap"}
    # every perturbation's order = rank_systems on the perturbed item scores (brute force)
    ds = load_dataset(str(data))
    j = criterion_judgements(ds, "esa")
    items = item_scores(j)
    dom = dict(zip(ds.extras["segment_domains"]["seg_id"].astype(str), ds.extras["segment_domains"]["domain"]))
    order = {r.perturbation: r.ranking.split(", ") for r in p.itertuples()}
    assert order["drop rater r2"] == rank_systems(item_scores(j[j["rater"] != "r2"]), dom).systems
    assert order["drop system S1"] == rank_systems(items[items["system"] != "S1"], dom).systems
    keep = [s for s, d in dom.items() if d != "d1"]
    assert order["drop domain d1"] == rank_systems(items[items["seg_id"].isin(keep)], dom).systems
    assert order["gold esa2"] == rank_systems(item_scores(criterion_judgements(ds, "esa2")), dom).systems
    res = human_stability(ds, "esa", DEFAULTS, n_boot=3, seed=5)
    rng = np.random.default_rng(5)
    seg_ids = list(dict.fromkeys(items["seg_id"]))
    draw = rng.integers(0, len(seg_ids), len(seg_ids))
    boot = pd.concat([items[items["seg_id"] == seg_ids[c]].assign(seg_id=f"{seg_ids[c]}#{k}")
                      for k, c in enumerate(draw)])
    bdom = {f"{seg_ids[c]}#{k}": dom[seg_ids[c]] for k, c in enumerate(draw)}
    got = res.perturbations.set_index("perturbation").loc["bootstrap 1", "ranking"].split(", ")
    assert got == rank_systems(boot, bdom).systems


def test_too_few_systems_or_metrics_is_a_clear_error(tmp_path, capsys):
    data, scores = _data(tmp_path, lps=LPS[:1], systems=("S1", "S2"), n_seg=6)
    assert main(["stability", str(data), "--human", "esa"]) == 2
    err = capsys.readouterr().err
    assert "at least 3 judged systems" in err and "has 2" in err
    assert main(["stability", str(data), "--task", "wmt24", "--scores", str(scores), "--gold", "esa"]) == 2
    assert "at least 3 systems per language pair" in capsys.readouterr().err
    (tmp_path / "b").mkdir()
    d2, scores2 = _data(tmp_path / "b", lps=LPS[:1])
    one = tmp_path / "one.tsv"
    _read(scores2).query("metric == 'm1'").to_csv(one, sep="\t", index=False)
    assert main(["stability", str(d2), "--task", "wmt24", "--scores", str(one), "--gold", "esa"]) == 2
    assert "at least 2 metrics" in capsys.readouterr().err


def test_segment_resamples_keep_the_corpus_statistic(tmp_path):
    """An identity resample leaves the task table unchanged (wmt23: system-level Pearson and pooled
    accuracy on the corpus scores); a resample shifts each corpus score by the change of the mean
    segment score over the judged cells."""
    from evalcore.analysis.metatask import run_metatask, run_task
    from evalcore.analysis.stability import _cols
    from evalcore.io import load_collection
    from evalcore.metrics.byo import read_scores

    data, scores = _data(tmp_path, n_seg=12)
    coll = load_collection(str(data))
    byo = read_scores(str(scores))
    sysrows = byo.groupby(["metric", "system", "lp"], as_index=False)["score"].median().assign(seg_id="")
    res, _, _ = run_metatask(coll, "wmt23", scores=pd.concat([byo, sysrows]), human="esa")
    p = res.pairs[LPS[0]]
    assert not np.allclose(p.sys["m1"], np.nanmean(p.seg["m1"], axis=1))   # corpus score != mean of segments
    same = run_task(res.task, {lp: _cols(q, np.arange(len(q.seg_ids))) for lp, q in res.pairs.items()})
    pd.testing.assert_frame_equal(same.table(), res.table())
    draw = np.random.default_rng(0).integers(0, len(p.seg_ids), len(p.seg_ids))
    q = _cols(p, draw)
    want = p.sys["m1"] + p.seg["m1"][:, draw].mean(axis=1) - p.seg["m1"].mean(axis=1)
    assert q.sys["m1"] == pytest.approx(want, abs=1e-12)


def test_one_large_group_tie_calibration_is_mt_metrics_evals():
    """The `item grouping switched` perturbation calibrates ties over one group of every judged
    cell (its own, faster path in calibrate_ties beyond 256 cells): equal to mt-metrics-eval's
    KendallWithTiesOpt without grouping (sample_rate 1), acc23 and tau_23, ties and gaps in both."""
    from test_ceiling import _oracle

    from evalcore.stats.correlation import calibrate_ties

    _, stats = _oracle()
    rng = np.random.default_rng(11)
    n = 420
    gold = np.round(rng.normal(60, 20, n) / 5) * 5  # many gold ties
    metric = np.round(gold / 20 + rng.normal(0, 1, n), 1)  # many metric ties
    gold[rng.random(n) < 0.2] = np.nan  # unjudged cells
    ok = ~np.isnan(gold)
    for variant, ours_name in (("acc23", "acc23"), ("23", "tau_23")):
        ref_tau, ref_eps, _ = stats.KendallWithTiesOpt(gold[ok], metric[ok], variant=variant, sample_rate=1.0)
        got = calibrate_ties(gold[None, :], metric[None, :], ours_name)
        assert got.best_value == pytest.approx(ref_tau, abs=1e-9)
        assert got.best_epsilon == pytest.approx(ref_eps, abs=1e-9)
        assert int(ok.sum()) > 256  # the large-group path
