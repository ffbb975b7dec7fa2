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
