"""The metrics-task table (evalcore.analysis.metatask, `evalcore metatask`) against mt-metrics-eval.

The oracle (../shared/oracles/mt-metrics-eval) gets the same arrays evalcore uses (gold with None
where not judged, system-major, as MTME's Correlation objects) and computes the sub-task values
with its own CompareMetrics* functions, then the weighted average and average rank with
TaskSetResults, exactly as tasks.WMT24 / tasks.WMT23 with k = 0 (their default).
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import SHARED_DATA, shared
from evalcore.cli import main

ORACLE = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"
METRICS = ["chrf", "bleu", "rouge-1"]


def _oracle():
    if not ORACLE.exists():
        pytest.skip(f"mt-metrics-eval oracle {ORACLE} is absent")
    sys.modules.setdefault("apache_beam", types.ModuleType("apache_beam"))  # data.py imports it at the top
    try:
        import dacite  # noqa: F401  (ratings.py, imported by data.py, needs it only to read rating files)
    except ImportError:
        sys.modules["dacite"] = types.ModuleType("dacite")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    from mt_metrics_eval import data, stats, tasks

    return data, stats, tasks


def _pairs(coll, task):
    from evalcore.analysis.metatask import pair_data
    from evalcore.metrics.engine import score_table

    pairs = {}
    for lp, ds in coll.items():
        human = ds.criteria[0]
        seg = score_table(ds, METRICS, level="segment")
        sysf = score_table(ds, METRICS, level="system")
        p, _ = pair_data(ds, task, seg, sysf, human=human, include_human=False,
                         exclude=task.outliers_by_lp.get(lp, ()))
        pairs[lp] = p
    return pairs


def _corr(stats, gold, metric):
    g = [None if np.isnan(x) else float(x) for x in np.asarray(gold, dtype=float).ravel()]
    return stats.Correlation(len(gold), g, [float(x) for x in np.asarray(metric, dtype=float).ravel()])


def _task_result(tasks, res, corr_fcn, args="{}"):
    tr = tasks.TaskResults(None, res)
    tr.name = f"corr_fcn={corr_fcn} corr_fcn_args={args}"
    return tr


@pytest.fixture(scope="module")
def wmt24_collection():
    """../shared/data/wmt24_esa read once for the module (each test only reads it)."""
    from evalcore.io import load_collection

    return load_collection(str(shared("wmt24_esa")))


@pytest.fixture(scope="module")
def wmt24_pairs(wmt24_collection):
    from evalcore.analysis.metatask_tasks import TASKS

    return _pairs(wmt24_collection, TASKS["wmt24"])


@pytest.fixture(scope="module")
def wmt21_pairs():
    from evalcore.analysis.metatask_tasks import TASKS
    from evalcore.io import load_collection

    return _pairs(load_collection(str(shared("wmt21_news_mqm"))), TASKS["wmt23"])


def _check(res, results, weights, metrics):
    data, stats, tasks = _oracle()
    for st, tr in zip(res.subtasks, results):
        for m in metrics:
            assert res.values.loc[m, st.name] == pytest.approx(tr.Corr(m), abs=1e-9), (st.name, m)
            assert res.ranks.loc[m, st.name] == tr.Rank(m), (st.name, m)
    tsr = tasks.TaskSetResults(results)
    avg = tsr.AverageCorrs(weights)
    ranks = tsr.AverageRanks(weights)
    assert [s.weight for s in res.subtasks] == pytest.approx(weights, abs=1e-15)
    for m in metrics:
        assert res.average[m] == pytest.approx(avg[m], abs=1e-9)
        assert res.average_rank[m] == pytest.approx(ranks[m], abs=1e-9)


@pytest.mark.parametrize("which", ["wmt24_esa", "wmt21_news_mqm"])
def test_wmt24_recipe_matches_mtme(which, request):
    data, stats, tasks = _oracle()
    from evalcore.analysis.metatask import run_task
    from evalcore.analysis.metatask_tasks import TASKS

    pairs = request.getfixturevalue("wmt24_pairs" if which == "wmt24_esa" else "wmt21_pairs")
    task = TASKS["wmt24"]
    res = run_task(task, pairs, METRICS)
    results = []
    for lp in sorted(pairs):
        p = pairs[lp]
        corrs = {m: _corr(stats, p.gold, p.seg[m]) for m in METRICS}
        results.append(_task_result(tasks, data.CompareMetricsWithPairwiseConfidenceError(corrs, k=0), "pce"))
        results.append(_task_result(tasks, data.CompareMetrics(
            corrs, stats.KendallWithTiesOpt, "item", 0, perm_test="pairs", sample_rate=1.0),
            "KendallWithTiesOpt", "{'sample_rate':1.0}"))
    weights = [1 / len(results)] * len(results)  # tasks.WMT24: equal weights
    _check(res, results, weights, METRICS)


def test_wmt23_recipe_matches_mtme(wmt21_pairs):
    data, stats, tasks = _oracle()
    from evalcore.analysis.metatask import run_task
    from evalcore.analysis.metatask_tasks import TASKS

    task = TASKS["wmt23"]
    pairs = wmt21_pairs
    res = run_task(task, pairs, METRICS)
    lps = sorted(pairs)
    # pooled system-level pairwise accuracy, as CompareMetricsWithGlobalAccuracy (stats.Agreement per pair)
    acc = {}
    for m in METRICS:
        agree = n = 0
        for lp in lps:
            a, k = stats.Agreement(list(pairs[lp].gold_sys), list(pairs[lp].sys[m]))
            agree, n = agree + a, n + k
        acc[m] = agree / n
    order = sorted(METRICS, key=lambda m: (-acc[m], m))
    acc_res = ({m: [acc[m], i + 1] for i, m in enumerate(order)}, np.zeros((3, 3)), np.zeros((3, 3)), np.array([]))
    results = [_task_result(tasks, acc_res, "accuracy")]
    for lp in lps:
        p = pairs[lp]
        sysc = {m: stats.Correlation(len(p.systems), list(p.gold_sys), list(p.sys[m])) for m in METRICS}
        segc = {m: _corr(stats, p.gold, p.seg[m]) for m in METRICS}
        results.append(_task_result(tasks, data.CompareMetrics(sysc, scipy.stats.pearsonr, "none", 0), "pearson"))
        results.append(_task_result(tasks, data.CompareMetrics(segc, scipy.stats.pearsonr, "none", 0), "pearson"))
        results.append(_task_result(tasks, data.CompareMetrics(
            segc, stats.KendallWithTiesOpt, "item", 0, perm_test="pairs", sample_rate=1.0),
            "KendallWithTiesOpt", "{'sample_rate':1.0}"))
    weights = [len(lps)] + [1] * (len(results) - 1)
    weights = [w / sum(weights) for w in weights]
    _check(res, results, weights, METRICS)


def test_spa_matches_mtme_pce_with_same_seed(wmt24_pairs):
    _, stats, _ = _oracle()
    from evalcore.stats.significance import one_minus_pce

    p = wmt24_pairs["en-cs"]
    for m in METRICS:
        corr = _corr(stats, p.gold, p.seg[m])
        expect = stats.PairwiseConfidenceError(corr.gold_scores, corr.metric_scores, corr.num_sys,
                                               num_permutations=1000, filter_nones=True)[0]
        cols = ~np.isnan(p.gold).any(axis=0)
        assert one_minus_pce(p.gold[:, cols], p.seg[m][:, cols], 1000, seed=4) == pytest.approx(expect, abs=1e-12)


def test_metatask_command(tmp_path):
    root = shared("wmt24_esa")
    out = tmp_path / "t.tsv"
    assert main(["metatask", str(root), "--task", "wmt24", "--lp", "en-cs", "--metrics", "chrf",
                 "--out", str(out)]) == 0
    t = pd.read_csv(out, sep="\t")
    assert list(t.columns[:4]) == ["metric", "average", "average_rank", "cluster"]
    assert t["metric"].tolist() == ["chrf"]
    assert {"en-cs:sys:spa", "en-cs:seg:acc23/item+tie"} <= set(t.columns)
    tex = tmp_path / "t.tex"
    assert main(["metatask", str(root), "--task", "wmt24", "--lp", "en-cs", "--metrics", "chrf",
                 "--out", str(tex)]) == 0
    text = tex.read_text()
    assert "\\begin{tabular}" in text and "% chrf: nrefs:1|" in text and "% settings: task=wmt24" in text
    assert main(["metatask", str(root), "--task", "wmt24", "--lp", "xx-yy", "--metrics", "chrf"]) == 2


def test_metric_clusters_separate_a_good_metric_from_noise():
    # synthetic pair: a metric equal to gold plus small noise, a copy of it, and pure noise;
    # the copy shares the first metric's cluster (identical scores: every swap changes nothing,
    # p = 1), the noise metric is significantly worse (its own cluster)
    from evalcore.analysis.metatask import PairData, run_task
    from evalcore.analysis.metatask_tasks import TaskDef

    rng = np.random.default_rng(3)
    gold = rng.normal(size=(6, 40)) + np.arange(6)[:, None] * 0.5
    good = gold + rng.normal(scale=0.1, size=gold.shape)
    noise = rng.normal(size=gold.shape)
    p = PairData("xx-yy", [f"s{i}" for i in range(6)], [str(i) for i in range(40)], gold,
                 seg={"good": good, "copy": good.copy(), "noise": noise})
    p.sys = {k: v.mean(1) for k, v in p.seg.items()}
    task = TaskDef("t", "synthetic", ("xx-yy",), "x", per_lp=(("seg", "pearson", "none", False, 1.0),))
    res = run_task(task, {"xx-yy": p}, ["good", "copy", "noise"], k=50)
    assert res.cluster["good"] == res.cluster["copy"] == 1
    assert res.cluster["noise"] == 2
    # the values the clusters rest on: scipy's Pearson over the flattened cells
    assert res.values.loc["good", "xx-yy:seg:pearson"] == pytest.approx(
        scipy.stats.pearsonr(gold.ravel(), good.ravel())[0], abs=1e-12)


def test_error_rates_are_negated_like_wmt(wmt24_pairs, wmt24_collection):
    """TER is lower-is-better: the task negates it (as WMT's tables do), so its SPA is MTME's PCE of
    the negated scores (without the negation the ordering is inverted: 0.35 on en-cs)."""
    _, stats, _ = _oracle()
    from evalcore.analysis.metatask import run_metatask
    from evalcore.metrics.engine import score_table

    coll = wmt24_collection
    res, notes, _ = run_metatask(coll, "wmt24", lps=["en-cs"], metrics=["ter"])
    assert any("error rates negated" in n for n in notes)
    p = wmt24_pairs["en-cs"]
    ds = coll["en-cs"]
    t = score_table(ds, ["ter"], level="segment", ref_ids=["refA"])
    M = (t.pivot(index="system", columns="seg_id", values="score")
         .reindex(index=p.systems, columns=p.seg_ids).to_numpy(dtype=float))
    corr = _corr(stats, p.gold, -M)
    expect = stats.PairwiseConfidenceError(corr.gold_scores, corr.metric_scores, corr.num_sys, filter_nones=True)[0]
    assert res.values.loc["ter", "en-cs:sys:spa"] == pytest.approx(expect, abs=1e-12)
    assert expect > 0.5


def test_cluster_pvalue_agrees_with_mtme_permutation_within_monte_carlo_error(wmt24_pairs):
    """One SPA sub-task, two metrics: our joint permutation is MTME's PERM-BOTH
    (PermutationSigDiff on z-scored judged cells, as CompareMetricsWithPairwiseConfidenceError
    runs it) with another random stream, so the p-values agree within Monte-Carlo error:
    |p1 − p2| ≤ 4·sqrt(2·p(1−p)/k) (k = 300 draws each, early stopping off)."""
    data, stats, tasks = _oracle()
    import functools

    from evalcore.analysis.metatask import PairData, run_task
    from evalcore.analysis.metatask_tasks import TaskDef

    p = wmt24_pairs["en-cs"]
    a, b = "chrf", "rouge-1"  # a mid-range p-value (about 0.14 on en-cs)
    task = TaskDef("one", "test", ("en-cs",), "esa", per_lp=(("sys", "spa", "none", False, 1.0),))
    k = 300
    res = run_task(task, {"en-cs": PairData("en-cs", p.systems, p.seg_ids, p.gold, seg={m: p.seg[m] for m in (a, b)})},
                   [a, b], k=k)
    hi, lo = res.sig.index[0], res.sig.index[1]
    ours = res.sig.loc[hi, lo]
    np.random.seed(0)  # MTME draws from numpy's global generator
    c_hi, c_lo = _corr(stats, p.gold, p.seg[hi]), _corr(stats, p.gold, p.seg[lo])
    pce = functools.partial(stats.PairwiseConfidenceError, num_sys=len(p.systems), filter_nones=True)
    theirs = stats.PermutationSigDiff(c_lo, c_hi, pce, "none", k, stats.PermutationSigDiffParams(block_size=k + 1))[0]
    pbar = (ours + theirs) / 2
    assert abs(ours - theirs) <= 4 * np.sqrt(2 * max(pbar * (1 - pbar), 1 / k) / k), (ours, theirs)


@pytest.mark.parametrize("task", ["wmt24", "wmt23"])
def test_segment_scores_of_the_judged_cells_only_change_no_value(task, wmt24_collection):
    """run_metatask scores segments only where the gold has a judgement (every segment-level
    statistic, SPA included, uses only those cells); the table equals the one from scores of
    every segment, and fewer segment scores were computed."""
    from evalcore.analysis.metatask import run_metatask
    from evalcore.metrics.engine import score_table

    coll = {"en-cs": wmt24_collection["en-cs"]}
    rows = {}

    def scorer(every):
        def score(ds, metrics, *, level, segments=None, label="", **kw):
            if level == "segment" and every:
                segments = None
            t = score_table(ds, metrics, level=level, segments=segments, **kw)
            rows[(every, level)] = len(t)
            return t
        return score

    judged, _, _ = run_metatask(coll, task, metrics=["chrf"], scorer=scorer(False))
    full, _, _ = run_metatask(coll, task, metrics=["chrf"], scorer=scorer(True))
    pd.testing.assert_frame_equal(judged.table(), full.table(), check_exact=True)
    assert rows[(False, "segment")] < rows[(True, "segment")] / 3  # 297 of 997 segments judged
