"""The WMT22 metrics-task recipe (evalcore.analysis.metatask_tasks "wmt22") against mt-metrics-eval.

The recipe comes from mt-metrics-eval's wmt22_metrics.ipynb (not in the oracle snapshot, whose
tasks.py has no WMT22 task set): global system-level accuracy (more than one pair, no human
translations), then per pair, on all segments and on each domain, system-level Pearson and
Kendall, segment-level Pearson and Kendall with average_by none/sys/item, each without and (more
than one reference) with human translations; nested weights; the weighted average rank.

No WMT22 data is in ../shared/data: the recipe runs on wmt21_news_mqm (MQM; en-de has three
references, so the human-translation variants appear; no domains) and on wmt24_esa en-cs (ESA
instead of MQM, one reference, four domains). Every sub-task value and rank is compared with the
oracle's CompareMetrics (scipy's pearsonr / kendalltau, its AverageCorrelation) on the same
arrays, the pooled accuracy with its Agreement summed over pairs, and the average rank with
TaskSetResults.AverageRanks under the weights worked out by hand below.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.stats

from conftest import shared
from test_metatask import _corr, _oracle, _task_result

METRICS = ["chrf", "bleu"]
FN = {"pearson": scipy.stats.pearsonr, "kendall": scipy.stats.kendalltau}


def _run(name, task, lps=None):
    from evalcore.io import load_collection
    from evalcore.analysis.metatask import run_metatask

    coll = load_collection(str(shared(name)))
    res, notes, _ = run_metatask(coll, task, lps=lps, metrics=METRICS)
    return res, coll


def _rows_cols(p, st):
    rows = np.array([s not in set(p.humans) for s in p.systems]) if st.human is False else np.ones(len(p.systems), bool)
    cols = p.domains[st.domain] if st.domain else np.arange(len(p.seg_ids))
    return rows, cols


def _oracle_results(res):
    data, stats, tasks = _oracle()
    results = []
    for st in res.subtasks:
        if st.lp == "*":
            acc = {}
            for m in METRICS:
                agree = n = 0
                for p in res.pairs.values():
                    rows, _ = _rows_cols(p, st)
                    g = np.nanmean(p.gold[rows], axis=1)
                    a, k = stats.Agreement(list(g), list(p.sys[m][rows]))
                    agree, n = agree + a, n + k
                acc[m] = agree / n
            order = sorted(METRICS, key=lambda m: (-acc[m], m))
            out = ({m: [acc[m], i + 1] for i, m in enumerate(order)}, np.zeros((2, 2)), np.zeros((2, 2)), np.array([]))
            results.append(_task_result(tasks, out, "accuracy"))
            continue
        p = res.pairs[st.lp]
        rows, cols = _rows_cols(p, st)
        gold = p.gold[rows][:, cols]
        if st.level == "sys":
            g = np.nanmean(gold, axis=1)
            metric = {m: (p.dom_sys[st.domain][m] if st.domain else p.sys[m])[rows] for m in METRICS}
            corrs = {m: stats.Correlation(len(g), list(g), list(metric[m])) for m in METRICS}
        else:
            corrs = {m: _corr(stats, gold, p.seg[m][rows][:, cols]) for m in METRICS}
        results.append(_task_result(tasks, data.CompareMetrics(corrs, FN[st.statistic], st.grouping, 0), st.statistic))
    return results


def _check(res, weights):
    _, _, tasks = _oracle()
    results = _oracle_results(res)
    assert [s.weight for s in res.subtasks] == pytest.approx(weights, abs=1e-15)
    for st, tr in zip(res.subtasks, results):
        for m in METRICS:
            assert res.values.loc[m, st.name] == pytest.approx(tr.Corr(m), abs=1e-9), (st.name, m)
            assert res.ranks.loc[m, st.name] == tr.Rank(m), (st.name, m)
    ranks = tasks.TaskSetResults(results).AverageRanks(weights)
    for m in METRICS:
        assert res.average_rank[m] == pytest.approx(ranks[m], abs=1e-9), m


def test_wmt22_recipe_on_wmt21_news_mqm_matches_mtme():
    from evalcore.analysis.metatask_tasks import TASKS

    # wmt21's reference is named ref-A (WMT22's refA); no outlier system of WMT22 in this data
    task = dataclasses.replace(TASKS["wmt22"], std_ref="ref-A")
    res, _ = _run("wmt21_news_mqm", task)
    assert sorted(res.pairs) == ["en-de", "zh-en"]
    assert set(res.pairs["en-de"].humans) == {"ref-C", "ref-D"}  # scored against ref-A as systems
    names = [s.name for s in res.subtasks]
    assert names[0] == "*:sys:accuracy-human"
    assert "en-de:seg:kendall/item+human" in names and "zh-en:seg:kendall/item+human" not in names
    # the weights, by hand (distribute_mass): three "languages" (the pooled accuracy, en-de, zh-en)
    # 1/3 each; per pair the levels 1/2; en-de: with/without humans 1/2; groupings (sys level: none;
    # seg level: none, sys, item) equal; the two statistics 1/2
    w = []
    for st in res.subtasks:
        if st.lp == "*":
            w.append(1 / 3)
            continue
        share = 1 / 3 / 2 / (2 if st.lp == "en-de" else 1) / (1 if st.level == "sys" else 3) / 2
        w.append(share)
    assert sum(w) == pytest.approx(1.0)
    assert len(res.subtasks) == 1 + 2 * 8 + 8
    _check(res, w)


@pytest.fixture(scope="module")
def esa22():
    from evalcore.analysis.metatask_tasks import TASKS

    return _run("wmt24_esa", TASKS["wmt22"], lps=["en-cs"])


def test_wmt22_recipe_on_wmt24_esa_domains_matches_mtme(esa22):
    res, coll = esa22
    p = res.pairs["en-cs"]
    domains = sorted(p.domains)
    assert domains == ["literary", "news", "social", "speech"]
    # one pair: no pooled accuracy (the notebook adds it "iff more than one language is given");
    # one reference: no human variants; all segments plus four domains
    assert all(s.lp == "en-cs" and s.human is False for s in res.subtasks)
    assert len(res.subtasks) == 5 * 8
    # the weights by hand: 5 domain values 1/5, levels 1/2, groupings (1 | 3), statistics 1/2
    w = [1 / 5 / 2 / (1 if s.level == "sys" else 3) / 2 for s in res.subtasks]
    _check(res, w)


def test_wmt22_domain_corpus_scores_are_sacrebleu_on_the_domain(esa22):
    """A domain's system-level chrF is sacreBLEU's corpus chrF over that domain's segments."""
    import sacrebleu

    res, coll = esa22
    p, ds = res.pairs["en-cs"], coll["en-cs"]
    refs = ds.references[ds.references["ref_id"] == "refA"].set_index("seg_id")["text"]
    for dom in ("news", "speech"):
        ids = [p.seg_ids[c] for c in p.domains[dom]]
        for i, system in enumerate(p.systems[:3]):
            out = ds.outputs[ds.outputs["system"] == system].set_index("seg_id")["text"]
            use = [s for s in ids if s in out.index and s in refs.index]
            expected = sacrebleu.corpus_chrf([out[s] for s in use], [[refs[s] for s in use]]).score
            assert p.dom_sys[dom]["chrf"][i] == pytest.approx(expected, abs=1e-9), (dom, system)
