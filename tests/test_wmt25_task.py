"""WMT25 metrics-task parity against mt-metrics-eval (../shared/oracles): pairwise difference
Pearson (``Pearson(pdp=True)``) through ``correlate --method pdp``, the recipe's metric sets
(``metatask --metric-set``) and the task table of ``tasks.WMT25`` on a root the test writes in
the 2025 layout (tests/mtme_build.py), read by both sides.
"""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from mtme_build import write_testset
from test_metatask import _oracle

LPS = ("en-cs_CZ", "en-ko_KR")
GOLD = {"en-cs_CZ": "esa-human1", "en-ko_KR": "mqm"}
# primaries and baselines of meta_info.WMT25 (reference-based and reference-free), and one
# metric in neither set
METRICS = {"MetricX-25": "ref", "GEMBA-v2": "src", "chrF": "ref", "COMETKiwi22": "src", "BLEU": "ref",
           "MyMetric": "ref"}


def _run(argv):
    from evalcore.cli import main

    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue()


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("wmt25")
    for k, lp in enumerate(LPS):
        write_testset(root, "wmt25", lp, n_seg=7, systems=["sysA", "sysB", "sysC", "sysD"], gold=GOLD[lp],
                      metrics=METRICS, seed=10 + k, missing=[("sysB", 3), ("sysD", 0)])
    return root


def _evs(root, lp):
    data, _, _ = _oracle()
    return data.EvalSet("wmt25", lp, read_stored_metric_scores=True, path=str(root))


def _oracle_corr(evs, metric, gold):
    _, stats, _ = _oracle()
    g = evs.Scores("seg", gold)
    m = evs.Scores("seg", metric)
    systems = sorted(g)
    return stats.Correlation(len(systems), [x for s in systems for x in g[s]], [x for s in systems for x in m[s]])


@pytest.mark.parametrize("group", ["none", "item", "sys"])
def test_correlate_pdp_equals_mtme(root, tmp_path, group):
    lp = "en-cs_CZ"
    out = tmp_path / "pdp.tsv"
    rc, err = _run(["correlate", str(root / "wmt25"), "--lp", lp, "--human", GOLD[lp], "--level", "segment",
                    "--metrics", "stored:MetricX-25-refA,stored:COMETKiwi22-src", "--method", "pdp",
                    "--group", group, "--out", str(out)])
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t").set_index("metric")
    evs = _evs(root, lp)
    for name in ("MetricX-25-refA", "COMETKiwi22-src"):
        expected = _oracle_corr(evs, name, GOLD[lp]).Pearson(group, pdp=True)[0]
        assert t.loc[f"stored:{name}", "value"] == pytest.approx(expected, abs=1e-9), name


def test_pdp_hand_worked():
    """Two segments × three systems, worked by hand: the within-segment differences
    (h: 10, 20, 10 | 5, 5, 0; m: 1, 3, 2 | 2, 1, -1) give Σ ΔhΔm = 10+60+20+10+5+0 = 105,
    Σ Δh² = 100+400+100+25+25+0 = 650, Σ Δm² = 1+9+4+4+1+1 = 20; r = 105 / √13000."""
    from evalcore.stats.correlation import correlation

    gold = np.array([[0.0, 0.0], [10.0, 5.0], [20.0, 5.0]])   # systems × segments
    metric = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 1.0]])
    # pairs (0,1), (0,2), (1,2) per segment: Δh = 10, 20, 10 and 5, 5, 0; Δm = 1, 3, 2 and 2, 1, -1
    assert correlation(gold, metric, "pdp", "item").value == pytest.approx(105 / np.sqrt(650 * 20), abs=1e-12)
    # a constant human difference list (all zero) has no Pearson
    assert np.isnan(correlation(np.ones((3, 2)), metric, "pdp", "item").value)


@pytest.fixture(scope="module")
def block_root(tmp_path_factory):
    """Two WMT25 pairs; one segment unjudged for every system (SPA's complete block design)."""
    root = tmp_path_factory.mktemp("wmt25b")
    systems = ["sysA", "sysB", "sysC", "sysD"]
    for k, lp in enumerate(LPS):
        write_testset(root, "wmt25", lp, n_seg=7, systems=systems, gold=GOLD[lp], metrics=METRICS, seed=20 + k,
                      missing=[(s, 3) for s in systems])
    return root


def _oracle_wmt25(root, primary):
    _, _, tasks = _oracle()
    task_set, weights = tasks.WMT25(list(LPS), primary=primary, k=0)
    evs = {("wmt25", lp): _evs(root, lp) for lp in LPS}
    res = task_set.Run(eval_set_dict=evs)
    return task_set, weights, res


@pytest.mark.parametrize("metric_set,primary", [("all", False), ("primary", True)])
def test_wmt25_table_equals_mtme_tasks_wmt25(block_root, tmp_path, metric_set, primary):
    task_set, weights, res = _oracle_wmt25(block_root, primary)
    out = tmp_path / "t.tsv"
    rc, err = _run(["metatask", str(block_root), "--task", "wmt25", "--metrics", "stored:all",
                    "--metric-set", metric_set, "--out", str(out)])
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t").set_index("metric")
    expected = {m.lstrip("*"): v for m, v in res.AverageCorrs(weights).items()}  # "*": not primary
    ranks = {m.lstrip("*"): v for m, v in res.AverageRanks(weights).items()}
    got = t["average"].dropna()
    assert sorted(got.index) == sorted(expected)
    for m, v in expected.items():
        assert got[m] == pytest.approx(v, abs=1e-9), m
        assert t.loc[m, "average_rank"] == pytest.approx(ranks[m], abs=1e-9), m
    # each sub-task column against the oracle's task result (same order: lp, then sys/seg)
    cols = [c for c in t.columns if ":" in c]
    assert len(cols) == len(res.results)
    for col, tr in zip(cols, res.results):
        for m in tr.metrics:
            assert t.loc[m.lstrip("*"), col] == pytest.approx(tr.Corr(m), abs=1e-9), (col, m)
    if primary:  # only the recipe's primary submissions, reference-based and reference-free
        assert set(got.index) == {"MetricX-25", "GEMBA-v2[noref]"}
    else:
        assert {"chrF", "COMETKiwi22[noref]", "MyMetric"} <= set(got.index)


def test_baseline_set_keeps_only_baselines(block_root, tmp_path):
    out = tmp_path / "b.tsv"
    rc, err = _run(["metatask", str(block_root), "--task", "wmt25", "--metrics", "stored:all",
                    "--metric-set", "baseline", "--out", str(out)])
    assert rc == 0, err
    assert set(pd.read_csv(out, sep="\t")["metric"]) == {"chrF", "BLEU", "COMETKiwi22[noref]"}
    assert "metric set baseline of wmt25: 3 metric(s) kept, 3 left out" in err


def test_pair_without_reference_keeps_reference_free_metrics_side_by_side(block_root, tmp_path):
    """The coverage rule: on a pair without the primary reference only the reference-free
    metrics have values; the reference-based ones keep their values on the other pair but get
    no average (mt-metrics-eval averages a metric only over tasks it appears in all of)."""
    import shutil

    root = tmp_path / "noref"
    shutil.copytree(block_root, root)
    lp = "en-ko_KR"
    (root / "wmt25" / "references" / f"{lp}.refA.jsonl").unlink()
    for f in (root / "wmt25" / "metric-scores" / lp).glob("*-refA.*"):
        f.unlink()
    out = tmp_path / "c.tsv"
    rc, err = _run(["metatask", str(root), "--task", "wmt25", "--metrics", "stored:all", "--out", str(out)])
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t").set_index("metric")
    noref = [m for m in t.index if m.endswith("[noref]")]
    ref_based = [m for m in t.index if not m.endswith("[noref]")]
    assert sorted(noref) == ["COMETKiwi22[noref]", "GEMBA-v2[noref]"]
    assert t.loc[noref, "average"].notna().all() and t.loc[ref_based, "average"].isna().all()
    ko = [c for c in t.columns if c.startswith(lp)]
    assert t.loc[ref_based, ko].isna().all().all() and t.loc[noref, ko].notna().all().all()
    cs = [c for c in t.columns if c.startswith("en-cs_CZ")]
    assert t.loc[ref_based, cs].notna().all().all()
    assert "without a value in every sub-task" in err


def test_pairs_permutation_equals_mtme_pairwise_permutation():
    """acc23 grouped by item, each metric at its calibrated ε, compared by swapping pairwise
    comparisons: the p-value equals MTME's PairwisePermutationSigDiff on the same random stream,
    its draws compared with δ as evalcore decides a tie with δ (on the mathematical values: a
    draw equal to δ counts, where MTME's float comparison depends on the rounding)."""
    _, stats, _ = _oracle()
    from evalcore.stats.significance import at_least, perm_pairs

    rng = np.random.default_rng(5)
    G = rng.integers(0, 8, size=(5, 9)).astype(float)        # systems × items, ties in gold
    M1 = G + rng.normal(0, 2.0, G.shape)
    M2 = np.round(G + rng.normal(0, 1.5, G.shape), 1)
    G[1, 2] = G[3, 7] = np.nan
    gold = [None if np.isnan(x) else float(x) for x in G.ravel()]
    c1 = stats.Correlation(len(G), gold, list(M1.ravel()))
    c2 = stats.Correlation(len(G), gold, list(M2.ravel()))
    for seed in (3, 11):
        np.random.seed(seed)
        p, delta, k_used, draws = stats.PairwisePermutationSigDiff(c1, c2, "acc23", "item", k=200,
                                                                    sample_rate=1.0)
        got = perm_pairs(G, M1, M2, "acc23", "item", k=200, seed=seed)
        assert got.draws == k_used == 200
        assert got.delta == pytest.approx(delta, abs=1e-12)
        assert got.p_value == sum(at_least(c2_ - c1_, delta) for c2_, c1_ in draws) / k_used
        assert abs(got.p_value - p) <= 0.05  # the rounding of a few draws equal to δ, no more


def test_correlate_compare_pairs(root, tmp_path):
    lp = "en-cs_CZ"
    out, pairs = tmp_path / "c.tsv", tmp_path / "p.tsv"
    rc, err = _run(["correlate", str(root / "wmt25"), "--lp", lp, "--human", GOLD[lp], "--level", "segment",
                    "--metrics", "stored:MetricX-25-refA,stored:BLEU-refA,stored:COMETKiwi22-src",
                    "--method", "acc23", "--group", "item", "--tie-calibration", "--compare", "pairs",
                    "--draws", "50", "--out", str(out), "--compare-out", str(pairs)])
    assert rc == 0, err
    p = pd.read_csv(pairs, sep="\t")
    assert len(p) == 3 and set(p["test"]) == {"pairs"} and p["p_value"].between(0, 1).all()
    rc, err = _run(["correlate", str(root / "wmt25"), "--lp", lp, "--human", GOLD[lp], "--level", "system",
                    "--metrics", "stored:MetricX-25-refA,stored:BLEU-refA", "--method", "pearson",
                    "--compare", "pairs"])
    assert rc == 2 and "acc23" in err


def test_reference_rows_follow_the_metrics_unranked():
    """The place for the human ceiling: rows after the metrics, without average or rank."""
    from evalcore.analysis.metatask import run_task, PairData
    from evalcore.analysis.metatask_tasks import TASKS

    rng = np.random.default_rng(1)
    gold = rng.normal(size=(4, 6))
    p = PairData("en-cs_CZ", list("abcd"), [str(i) for i in range(6)], gold,
                 seg={"m1": gold + rng.normal(size=gold.shape), "m2": rng.normal(size=gold.shape)},
                 sys={"m1": gold.mean(1), "m2": rng.normal(size=4)})
    res = run_task(TASKS["wmt25"], {"en-cs_CZ": p}, num_permutations=10)
    col = res.subtasks[1].name
    res.reference_rows = pd.DataFrame({"metric": ["human:esa-human2"], col: [0.9]})
    t = res.table()
    assert list(t["metric"][:2]) == sorted(["m1", "m2"], key=lambda m: -res.average[m])
    last = t.iloc[-1]
    assert last["metric"] == "human:esa-human2" and last[col] == 0.9 and pd.isna(last["average"])


def test_metric_set_without_any_member_is_refused(block_root):
    rc, err = _run(["metatask", str(block_root), "--task", "wmt25", "--metrics", "stored:MyMetric",
                    "--metric-set", "primary"])
    assert rc == 2 and "none of the metrics (stored:MyMetric) is among the primary metrics of wmt25" in err
    rc, err = _run(["metatask", str(block_root), "--task", "wmt22", "--metrics", "stored:all",
                    "--metric-set", "baseline", "--lp", "en-cs_CZ"])
    assert rc == 2 and "names no baseline metrics" in err


@pytest.mark.parametrize("task,info", [("wmt23", "WMT23"), ("wmt24", "WMT24"), ("wmt24", "WMT24_ESA"),
                                       ("wmt25", "WMT25"), ("wmt25", "WMT25_ESA")])
def test_metric_sets_are_mtme_meta_info(task, info):
    _oracle()
    from mt_metrics_eval import meta_info

    from evalcore.analysis.metatask_tasks import TASKS

    mi = getattr(meta_info, info)
    assert TASKS[task].metric_set("primary") == mi.primary_metrics
    assert TASKS[task].metric_set("baseline") == mi.baseline_metrics


def test_pairs_permutation_refuses_a_group_too_large_to_hold():
    from evalcore.stats import significance

    g = np.arange(2 * 40, dtype=float).reshape(2, 40)
    old = significance.MAX_PAIR_GROUP
    significance.MAX_PAIR_GROUP = 50
    try:
        with pytest.raises(ValueError, match="a group here has 80 cells"):
            significance.perm_pairs(g, g, g[::-1], "acc23", "none", k=2)
        assert significance.perm_pairs(g, g, g[::-1], "acc23", "item", k=2).draws == 2
    finally:
        significance.MAX_PAIR_GROUP = old
