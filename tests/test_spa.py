"""Soft pairwise accuracy as an ordinary statistic: `evalcore correlate --level system --method spa`
against mt-metrics-eval (stats.PairwiseConfidenceError and pce.py with the same permutations:
the same number of sign flips, drawn by the same generator with the same seed on matrices in
the same layout, so the values agree to 1e-9, not only within Monte-Carlo error).

Data: wmt24_esa en-cs (ESA, every system judged on the same 297 segments). The metric scores are
bring-your-own (a noisy function of the gold written by the test), so the test checks SPA and
the matrices correlate builds, not a metric.
"""
from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_DATA, shared
from evalcore.cli import main

ORACLE = SHARED_DATA.parent / "oracles" / "mt-metrics-eval"


def _oracle():
    if not ORACLE.exists():
        pytest.skip(f"mt-metrics-eval oracle {ORACLE} is absent")
    if str(ORACLE) not in sys.path:
        sys.path.insert(0, str(ORACLE))
    from mt_metrics_eval import pce, stats  # numpy and scipy only

    return pce, stats


@pytest.fixture(scope="module")
def esa(tmp_path_factory):
    """(gold matrix, {metric: matrix}, systems, seg_ids, scores TSV path), built here with pandas:
    gold = the mean over raters per (system, segment), refA (the reference) left out, systems in
    the order of judgements.tsv, segments in the order of segments.tsv, only those judged."""
    root = shared("wmt24_esa")
    j = pd.read_csv(root / "judgements.tsv", sep="\t", keep_default_na=False, dtype={"seg_id": str})
    j = j[(j["lp"] == "en-cs") & (j["judgement"] == "esa") & (j["system"] != "refA")]
    segs = pd.read_csv(root / "segments.tsv", sep="\t", keep_default_na=False, dtype={"seg_id": str})
    order = [s for s in segs.loc[segs["lp"] == "en-cs", "seg_id"] if s in set(j["seg_id"])]
    systems = list(dict.fromkeys(j["system"]))
    gold = (j.groupby(["system", "seg_id"])["score"].mean().unstack()
            .reindex(index=systems, columns=order).to_numpy(dtype=float))
    assert not np.isnan(gold).any()  # every system judged on the same segments (MTME's reshape needs it)
    rng = np.random.default_rng(3)
    metrics = {"noisy": gold + rng.normal(0, 25, gold.shape),
               "coarse": np.round(gold / 20) + rng.integers(0, 2, gold.shape)}  # ties on the metric side
    rows = [(m, s, seg, float(M[i, k])) for m, M in metrics.items() for i, s in enumerate(systems)
            for k, seg in enumerate(order)]
    path = tmp_path_factory.mktemp("spa") / "scores.tsv"
    pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score"]).to_csv(path, sep="\t", index=False)
    return gold, metrics, systems, order, path


def _correlate(path, *extra):
    err = io.StringIO()
    out = path.with_name(f"out{abs(hash(extra))}.tsv")  # --out: full precision (stdout prints 6 decimals)
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(["correlate", str(shared("wmt24_esa")), "--lp", "en-cs", "--human", "esa", "--scores", str(path),
                   "--level", "system", "--method", "spa", "--out", str(out), *extra])
    assert rc == 0, err.getvalue()
    return pd.read_csv(out, sep="\t").set_index("metric"), err.getvalue()


def test_correlate_spa_default_is_mtme_pairwise_confidence_error(esa):
    pce, stats = _oracle()
    gold, metrics, systems, order, path = esa
    table, err = _correlate(path)
    assert set(table.index) == set(metrics)
    for m, M in metrics.items():
        expected = stats.PairwiseConfidenceError(list(gold.ravel()), list(M.ravel()), len(systems))[0]
        assert table.loc[m, "value"] == pytest.approx(expected, abs=1e-9), m
        assert table.loc[m, "n"] == len(systems) and table.loc[m, "n_segments"] == len(order)
    assert "perms:1000|seed:4" in table.loc["noisy", "settings"]
    assert "1000 sign-flip permutations" in err


def test_correlate_spa_perms_and_seed_are_mtme_pce_with_the_same_draws(esa):
    pce, _ = _oracle()
    gold, metrics, systems, order, path = esa
    table, _ = _correlate(path, "--perms", "200", "--seed", "7")
    ph = pce.compute_pairwise_p_values(gold, num_permutations=200, seed=7)
    for m, M in metrics.items():
        expected = pce.compute_one_minus_pce(ph, pce.compute_pairwise_p_values(M, num_permutations=200, seed=7))
        assert table.loc[m, "value"] == pytest.approx(expected, abs=1e-9), m
    assert "perms:200|seed:7" in table.loc["noisy", "settings"]
    # another seed draws other sign flips: a different (Monte-Carlo) value
    other, _ = _correlate(path, "--perms", "200", "--seed", "8")
    assert other.loc["noisy", "value"] != table.loc["noisy", "value"]


def test_correlate_spa_equals_the_metrics_task_spa(esa, tmp_path):
    """The statistic of correlate and the wmt24 task's SPA sub-task are one computation."""
    _, metrics, _, _, path = esa
    table, _ = _correlate(path)
    out = tmp_path / "task.tsv"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["metatask", str(shared("wmt24_esa")), "--task", "wmt24", "--lp", "en-cs",
                     "--scores", str(path), "--out", str(out)]) == 0
    task = pd.read_csv(out, sep="\t").set_index("metric")
    for m in metrics:
        assert task.loc[m, "en-cs:sys:spa"] == pytest.approx(table.loc[m, "value"], abs=1e-12), m


@pytest.mark.parametrize("extra, message", [
    (["--bootstrap", "10"], "--bootstrap"),
    (["--compare", "perm"], "--compare"),
    (["--perms", "0"], "--perms must be at least 1"),
    (["--level", "segment"], "system level only"),
])
def test_correlate_spa_refuses_what_does_not_apply(esa, extra, message):
    path = esa[4]
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(["correlate", str(shared("wmt24_esa")), "--lp", "en-cs", "--human", "esa", "--scores", str(path),
                   "--level", "system", "--method", "spa", *extra])
    assert rc != 0
    assert message in err.getvalue()


def test_spa_on_system_vectors_is_refused():
    from evalcore.stats.correlation import correlation

    with pytest.raises(ValueError, match="systems × segments"):
        correlation(np.arange(4.0), np.arange(4.0), "spa")
