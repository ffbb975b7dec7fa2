"""Detection tasks (evalcore.analysis.detect, ``evalcore detect``): WMT26 error-free detection and
WMT25 criticality, against scikit-learn (roc_auc_score, average_precision_score, f1_score,
matthews_corrcoef), a brute-force threshold search, and hand-worked labels from the published
rules (error-free: human score >= 85 and no error span; critical: human score < 10)."""
from __future__ import annotations

import importlib.util
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

if importlib.util.find_spec("sklearn") is None:
    pytest.skip("could not import 'sklearn.metrics' (scikit-learn, the reference)", allow_module_level=True)


class _SklearnMetrics:
    """``sklearn.metrics``, imported at its first use: importing it when this module is collected
    cost every pytest worker ~1.2 CPU-s, whether it ran these tests or not."""

    def __getattr__(self, name):
        if name.startswith("__"):  # pytest's collector probes every module attribute (__test__, ...)
            raise AttributeError(name)
        import sklearn.metrics

        return getattr(sklearn.metrics, name)


sk = _SklearnMetrics()


def _brute(y, s):
    """The best F1 threshold by trying every distinct score with sklearn (highest t on ties)."""
    best = None
    for t in sorted(set(s), reverse=True):
        f = sk.f1_score(y, s >= t, zero_division=0)
        if best is None or f > best[1] + 1e-15:
            best = (t, f)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_statistics_equal_sklearn(seed):
    from evalcore.analysis.detect import auprc, auroc, best_threshold, detection_row

    rng = np.random.default_rng(seed)
    y = rng.random(60) < 0.3
    s = np.round(y * 0.8 + rng.normal(0, 1, 60), 1)  # rounded: ties between scores
    assert auroc(y, s) == pytest.approx(sk.roc_auc_score(y, s), abs=1e-12)
    assert auprc(y, s) == pytest.approx(sk.average_precision_score(y, s), abs=1e-12)
    t, f = _brute(y, s)
    assert best_threshold(y, s) == t
    row = detection_row(y, s)
    assert row["f1"] == pytest.approx(f, abs=1e-12)
    assert row["mcc"] == pytest.approx(sk.matthews_corrcoef(y, s >= t), abs=1e-12)
    assert row["precision"] == pytest.approx(sk.precision_score(y, s >= t, zero_division=0), abs=1e-12)
    assert row["recall"] == pytest.approx(sk.recall_score(y, s >= t), abs=1e-12)


def test_degenerate_labels():
    from evalcore.analysis.detect import auroc, confusion_scores

    assert np.isnan(auroc([True, True], [0.1, 0.2]))
    assert confusion_scores([False, False], [False, False])["mcc"] == 0.0  # sklearn's convention


# -- a small tidy dataset: two pairs, ESA scores and spans, two waves -------------------------
SYSTEMS = ["A", "B", "C"]


def _write(root, lp, rng, n_seg=12):
    rows_seg, rows_out, rows_j = [], [], []
    for k in range(1, n_seg + 1):
        rows_seg.append([lp, str(k), "d1", f"source {k}"])
        for s in SYSTEMS:
            text = f"{s} output {k} with words"
            rows_out.append([lp, s, str(k), text])
            base = rng.choice([3.0, 40.0, 70.0, 90.0, 100.0])
            for wave in ("esa-human1", "esa-human2"):
                score = float(np.clip(base + rng.normal(0, 6), 0, 100).round())
                spans = [] if (score >= 85 and rng.random() < 0.7) or rng.random() < 0.2 else \
                    [{"start_i": 0, "end_i": 2, "severity": "minor" if score > 50 else "major"}]
                rows_j.append([lp, s, str(k), "r1" if wave == "esa-human1" else "r2", wave, score, json.dumps(spans)])
    return rows_seg, rows_out, rows_j


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("detect")
    rng = np.random.default_rng(7)
    seg, out, jud = [], [], []
    for lp in ("en-cs", "en-de"):
        a, b, c = _write(root, lp, rng)
        seg += a
        out += b
        jud += c
    pd.DataFrame(seg, columns=["lp", "seg_id", "doc_id", "source"]).to_csv(root / "segments.tsv", sep="\t", index=False)
    pd.DataFrame(out, columns=["lp", "system", "seg_id", "text"]).to_csv(root / "outputs.tsv", sep="\t", index=False)
    j = pd.DataFrame(jud, columns=["lp", "system", "seg_id", "rater", "judgement", "score", "esa_spans_json"])
    j.to_csv(root / "judgements.tsv", sep="\t", index=False)
    # a metric that knows the human score, noisily (bring-your-own scores)
    scores = j[j["judgement"] == "esa-human1"][["lp", "system", "seg_id", "score"]].copy()
    scores["score"] = (scores["score"] / 100 + np.random.default_rng(3).normal(0, 0.25, len(scores))).round(3)
    scores.insert(0, "metric", "noisy")
    scores.to_csv(root / "scores.tsv", sep="\t", index=False)
    return root, j, scores


def _run(argv):
    from evalcore.cli import main

    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(argv)
    return rc, err.getvalue()


def _expected_labels(j, lp, task, wave="esa-human1"):
    """The published rules, written out on the raw rows."""
    w = j[(j["lp"] == lp) & (j["judgement"] == wave)].copy()
    w["seg_id"] = w["seg_id"].astype(str)
    if task == "critical":
        w["label"] = w["score"] < 10
    else:
        w["label"] = (w["score"] >= 85) & (w["esa_spans_json"] == "[]")
    return w.set_index(["system", "seg_id"])


@pytest.mark.parametrize("task", ["error-free", "critical"])
def test_detect_command_equals_sklearn_on_the_published_rules(data, tmp_path, task):
    root, j, scores = data
    out = tmp_path / "d.tsv"
    rc, err = _run(["detect", str(root), "--task", task, "--human", "esa-human1", "--human2", "esa-human2",
                    "--scores", str(root / "scores.tsv"), "--threshold-from", "en-cs", "--out", str(out)])
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t")
    sign = 1 if task == "error-free" else -1
    thresholds = {}
    for lp in ("en-cs", "en-de"):
        gold = _expected_labels(j, lp, task)
        sc = scores[scores["lp"] == lp].assign(seg_id=lambda d: d["seg_id"].astype(str)).set_index(["system", "seg_id"])
        y = gold["label"].to_numpy()
        x = sign * sc["score"].reindex(gold.index).to_numpy()
        row = t[(t["lp"] == lp) & (t["metric"] == "noisy")].iloc[0]
        assert row["n"] == len(y) and row["positives"] == y.sum() > 0
        assert row["auroc"] == pytest.approx(sk.roc_auc_score(y, x), abs=1e-12)
        assert row["auprc"] == pytest.approx(sk.average_precision_score(y, x), abs=1e-12)
        tb, fb = _brute(y, x)
        assert row["threshold"] == pytest.approx(sign * tb, abs=1e-12)  # on the metric's own scale
        assert row["f1"] == pytest.approx(fb, abs=1e-12)
        assert row["mcc"] == pytest.approx(sk.matthews_corrcoef(y, x >= tb), abs=1e-12)
        thresholds[lp] = tb
        # the threshold chosen on en-cs applied to this pair
        tt = thresholds["en-cs"]
        assert row["threshold_from"] == "en-cs"
        assert row["transfer_f1"] == pytest.approx(sk.f1_score(y, x >= tt, zero_division=0), abs=1e-12)
        assert row["transfer_mcc"] == pytest.approx(sk.matthews_corrcoef(y, x >= tt), abs=1e-12)
        # the human row: wave 2's own rule against wave 1's labels (criticality: both by score)
        hum = t[(t["lp"] == lp) & (t["kind"] == "human")].iloc[0]
        g2 = _expected_labels(j, lp, task, "esa-human2")["label"].reindex(gold.index).to_numpy()
        assert hum["f1"] == pytest.approx(sk.f1_score(y, g2, zero_division=0), abs=1e-12)
        assert hum["mcc"] == pytest.approx(sk.matthews_corrcoef(y, g2), abs=1e-12)
    assert "en-cs" in thresholds


def test_error_free_needs_spans(tmp_path):
    root = tmp_path / "nospans"
    root.mkdir()
    pd.DataFrame([["en-cs", "1", "d", "s"]], columns=["lp", "seg_id", "doc_id", "source"]).to_csv(
        root / "segments.tsv", sep="\t", index=False)
    pd.DataFrame([["en-cs", "A", "1", "t"]], columns=["lp", "system", "seg_id", "text"]).to_csv(
        root / "outputs.tsv", sep="\t", index=False)
    pd.DataFrame([["en-cs", "A", "1", "r", "esa", 90]], columns=["lp", "system", "seg_id", "rater", "judgement",
                                                                "score"]).to_csv(root / "judgements.tsv", sep="\t",
                                                                                 index=False)
    rc, err = _run(["detect", str(root), "--task", "error-free", "--metrics", "chrf"])
    assert rc == 2 and "needs error spans" in err


def test_error_free_from_mtme_ratings(tmp_path):
    """mt-metrics-eval .seg.rating error spans give the error-free labels (2025 layout): an output
    is labelled when its rating is not None, error-free when it has no error and scores >= 85."""
    from mtme_build import write_testset

    lp = "en-cs_CZ"
    w = write_testset(tmp_path, "wmt25", lp, n_seg=12, systems=["A", "B", "C"], gold="esa-human1",
                      metrics={"chrF": "ref"}, seed=5, ratings=True, human_mean=85.0)
    out = tmp_path / "d.tsv"
    rc, err = _run(["detect", str(tmp_path / "wmt25"), "--task", "error-free", "--human", "esa-human1",
                    "--metrics", "stored:chrF-refA", "--out", str(out)])
    assert rc == 0, err
    row = pd.read_csv(out, sep="\t").iloc[0]
    cells = sorted(w["rated"])
    y = np.array([w["human"][s][k] >= 85 and (s, k) not in w["spans"] for s, k in cells])
    x = np.array([w["metrics"]["chrF-refA"][s][k] for s, k in cells])
    assert row["n"] == len(cells) and row["positives"] == y.sum() > 0
    assert row["auroc"] == pytest.approx(sk.roc_auc_score(y, x), abs=1e-12)
    assert row["f1"] == pytest.approx(_brute(y, x)[1], abs=1e-12)
    assert "without span annotation left out" in err


def test_error_free_on_wmt24_esa_en_cs(tmp_path):
    """Real ESA data (several raters on some outputs, repeats, omission spans): the labels are
    the mean score over the rows >= 85 with no error span in any row (n_error_spans), refA
    (the reference judged as a system) left out; the statistics equal scikit-learn on them."""
    from conftest import shared
    from evalcore.io import load_collection
    from evalcore.scoring.scores import segment_scores

    path = shared("wmt24_esa")
    out = tmp_path / "d.tsv"
    rc, err = _run(["detect", str(path), "--task", "error-free", "--lp", "en-cs", "--human", "esa",
                    "--metrics", "chrf", "--out", str(out)])
    assert rc == 0, err
    row = pd.read_csv(out, sep="\t").iloc[0]
    j = pd.read_csv(path / "judgements.tsv", sep="\t", dtype={"seg_id": str})
    j = j[(j["lp"] == "en-cs") & (j["judgement"] == "esa") & (j["system"] != "refA")]
    cell = j.groupby(["system", "seg_id"]).agg(score=("score", "mean"), spans=("n_error_spans", "sum"))
    cell["label"] = (cell["score"] >= 85) & (cell["spans"] == 0)
    ds = load_collection(path)["en-cs"]
    sc = segment_scores(ds, ["chrf"]).assign(seg_id=lambda d: d["seg_id"].astype(str))
    m = cell.reset_index().merge(sc[["system", "seg_id", "score"]].rename(columns={"score": "x"}),
                                 on=["system", "seg_id"])
    y, x = m["label"].to_numpy(), m["x"].to_numpy()
    assert row["n"] == len(m) and row["positives"] == y.sum()
    assert row["auroc"] == pytest.approx(sk.roc_auc_score(y, x), abs=1e-12)
    assert row["auprc"] == pytest.approx(sk.average_precision_score(y, x), abs=1e-12)
    assert row["mcc"] == pytest.approx(sk.matthews_corrcoef(y, x >= row["threshold"]), abs=1e-12)
