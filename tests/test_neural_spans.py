"""xCOMET's error spans through evalcore: a tiny XCOMET checkpoint built here by unbabel-comet
itself (random weights over the 2-layer XLM-R encoder of test_neural's ``tiny_comet``); the
spans evalcore returns are checked against the same loaded model's own ``predict``, across batch
sizes, from the neural cache (no second model run), and through the span analyses. No network."""
from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pytest

from test_neural import HAS_COMET, WORDS, _cache_home, tiny_xlmr_encoder  # noqa: F401  (autouse fixture: cache and registry)

needs_comet = pytest.mark.skipif(not HAS_COMET, reason="torch/transformers/unbabel-comet not installed (the optional "
                                                       "'neural' extra)")

SEGMENTS = [("1", "the cat sleeps", "the cat sleeps by the window"),
            ("2", "it will rain", "it will rain on the coast tomorrow"),
            ("3", "the library opens at nine", "the library opens at nine o'clock"),
            ("4", "where is the train station ?", "where is the train station ?")]
OUTPUTS = {"sysA": ["a dog is by the window", "rain tomorrow on coast", "the bookshop opens at nine",
                    "where train station"],
           "sysB": ["the cat is sleeping near the window", "it will rain tomorrow", "library at nine o'clock",
                    "where is the station ?"]}


@pytest.fixture(scope="module")
def tiny_xcomet(tmp_path_factory):
    """A tiny XCOMETMetric (word-level tagging on; hidden sizes tiny; random weights, the tag
    head's bias set so that some subwords are tagged) saved as a COMET model folder."""
    if not HAS_COMET:
        pytest.skip("unbabel-comet not installed")
    import pytorch_lightning as pl
    import torch
    import yaml

    root = tmp_path_factory.mktemp("tiny_xcomet")
    # [mt, src, ref] in one sequence: longer positions than the regression fixture's
    enc = tiny_xlmr_encoder(root / "encoder", max_positions=130)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from comet.models import XCOMETMetric

        model = XCOMETMetric(encoder_model="XLM-RoBERTa", pretrained_model=str(enc), load_pretrained_weights=False,
                             hidden_sizes=[8], word_layer=2, local_files_only=True)
    with torch.no_grad():  # labels O, minor, major, critical: some tokens tagged, of every severity
        model.hidden2tag.bias.copy_(torch.tensor([0.0, 0.3, 0.2, 0.1]))
    (root / "checkpoints").mkdir()
    hp = dict(model.hparams)
    torch.save({"state_dict": model.state_dict(), "hyper_parameters": hp, "pytorch-lightning_version": pl.__version__},
               root / "checkpoints" / "model.ckpt")
    (root / "hparams.yaml").write_text(yaml.safe_dump({**hp, "class_identifier": "xcomet_metric"}))
    return root


def _write(path: Path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def _dataset(folder: Path, judgements=(), refs_of=None) -> Path:
    """The SEGMENTS with OUTPUTS; ``refs_of``: the seg_ids that get their reference (default
    all; an empty set: no references.tsv at all)."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "segments.tsv", ["seg_id", "source"], [[g, s] for g, s, _ in SEGMENTS])
    if refs_of is None or refs_of:
        _write(folder / "references.tsv", ["seg_id", "ref_id", "text"],
               [[g, "refA", r] for g, _, r in SEGMENTS if refs_of is None or g in refs_of])
    _write(folder / "outputs.tsv", ["system", "seg_id", "text"],
           [[s, g, t] for s, texts in OUTPUTS.items() for (g, _, _), t in zip(SEGMENTS, texts)])
    _write(folder / "judgements.tsv", ["system", "seg_id", "rater", "judgement", "score", "esa_spans_json"],
           list(judgements) or [["sysA", "1", "r1", "esa", "50", "[]"]])
    return folder


def _oracle(path: Path, batch_size: int):
    """The package itself: the loaded model's ``predict`` on the [src, mt, ref] samples."""
    from evalcore.neural.backend import scorer

    model = scorer("xcomet", path, "cpu", "fp32").model
    samples = [{"src": s, "mt": t, "ref": r} for name, texts in OUTPUTS.items()
               for (_, s, r), t in zip(SEGMENTS, texts)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = model.predict(samples, batch_size=batch_size, gpus=0, progress_bar=False)
    keys = [(name, g) for name, texts in OUTPUTS.items() for (g, _, _), _t in zip(SEGMENTS, texts)]
    return keys, [list(x) for x in pred.metadata.error_spans], list(pred.scores)


def _spans(ds, path, batch_size=32):
    from evalcore.neural import configure, metric_spans

    configure(device="cpu", batch_size=batch_size)
    return metric_spans(ds, f"xcomet:{path}")


def _same_spans(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert [(s["start"], s["end"], s["severity"], s["text"]) for s in x] == \
               [(s["start"], s["end"], s["severity"], s["text"]) for s in y]
        assert [s["confidence"] for s in x] == pytest.approx([s["confidence"] for s in y], abs=1e-6)


@needs_comet
def test_xcomet_spans_equal_the_packages_predict(tmp_path, tiny_xcomet):
    from evalcore.io import load_dataset
    from evalcore.io.spans import xcomet_spans_frame

    ds = load_dataset(_dataset(tmp_path / "d"))
    got = _spans(ds, tiny_xcomet, batch_size=3)
    keys, want, _ = _oracle(tiny_xcomet, batch_size=8)
    assert sum(len(x) for x in want) > 0, "the tiny model must tag something for this test to mean anything"
    expected = xcomet_spans_frame(f"xcomet:{tiny_xcomet}".lower(), keys, want)
    assert list(got.columns) == list(expected.columns)
    assert got.drop(columns=["confidence"]).equals(expected.drop(columns=["confidence"]))
    assert got["confidence"].replace("", "nan").astype(float).tolist() == pytest.approx(
        expected["confidence"].replace("", "nan").astype(float).tolist(), abs=1e-6, nan_ok=True)


@needs_comet
def test_xcomet_scores_use_the_reference_and_equal_predict(tmp_path, tiny_xcomet):
    """The score of ``xcomet:`` is the package's [mt, src, ref] score (not its source-only mode)."""
    from evalcore.metrics.base import get_metric
    from evalcore.io import load_dataset
    from evalcore.neural import configure

    ds = load_dataset(_dataset(tmp_path / "d"))
    configure(device="cpu")
    m = get_metric(f"xcomet:{tiny_xcomet}")
    m.prepare(ds)
    srcs = [s for _ in OUTPUTS for _, s, _ in SEGMENTS]
    refs = [r for _ in OUTPUTS for _, _, r in SEGMENTS]
    cands = [t for texts in OUTPUTS.values() for t in texts]
    scores, spans = m.pair_spans(srcs, cands, refs)
    _, want, want_scores = _oracle(tiny_xcomet, batch_size=8)
    assert list(scores) == pytest.approx(want_scores, abs=1e-6)
    _same_spans(spans, want)


@needs_comet
def test_xcomet_spans_deterministic_batch_invariant_and_cached(tmp_path, tiny_xcomet, monkeypatch):
    from evalcore.io import load_dataset
    from evalcore.neural import backend

    ds = load_dataset(_dataset(tmp_path / "d"))
    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")
    one = _spans(ds, tiny_xcomet, batch_size=1)
    again = _spans(ds, tiny_xcomet, batch_size=1)
    assert one.equals(again)  # deterministic
    many = _spans(ds, tiny_xcomet, batch_size=8)
    assert one.drop(columns=["confidence"]).equals(many.drop(columns=["confidence"]))
    assert one["confidence"].replace("", "nan").astype(float).tolist() == pytest.approx(
        many["confidence"].replace("", "nan").astype(float).tolist(), abs=1e-6, nan_ok=True)

    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "1")
    first = _spans(ds, tiny_xcomet, batch_size=3)
    model = backend.scorer("xcomet", tiny_xcomet, "cpu", "fp32").model
    calls = []
    real = model.predict_step
    monkeypatch.setattr(model, "predict_step", lambda *a, **k: calls.append(1) or real(*a, **k))
    backend.release()  # a fresh process would load the model again: the cache must answer alone
    from evalcore.metrics.base import _REGISTRY, unregister

    for mid in [m for m in _REGISTRY if m.startswith("xcomet:")]:
        unregister(mid)
    loads = []
    real_scorer = backend.scorer
    monkeypatch.setattr(backend, "scorer", lambda *a, **k: loads.append(a) or real_scorer(*a, **k))
    cached = _spans(ds, tiny_xcomet, batch_size=3)
    assert not calls and not loads, "the cached run ran the model again"
    assert cached.equals(first)  # spans stored as JSON: the same values, bit for bit
    stored = list((tmp_path / "cache" / "neural").rglob("*.parquet"))
    assert stored
    import pyarrow.parquet as pq

    t = pq.read_table(stored[0])
    assert t.column_names == ["key", "score", "spans"]
    assert all(isinstance(json.loads(v), list) for v in t.column("spans").to_pylist())


@pytest.mark.parametrize("compact", [False, True])
def test_cached_spans_round_trip_and_a_scores_only_file_has_none(tmp_path, monkeypatch, compact):
    """The cache alone, no model: spans stored beside scores come back equal (also after the
    parts are merged into one); a file without the spans column (written before spans were
    kept) gives scores but no spans."""
    pytest.importorskip("pyarrow")
    from evalcore.neural import cache

    if compact:
        monkeypatch.setattr(cache, "COMPACT_AT", 1)
    c = cache.ScoreCache("k", root=tmp_path / "c")
    sp = [[{"text": "cat", "confidence": 0.1234567890123, "severity": "major", "start": 4, "end": 7}], []]
    c.put([b"a" * 16, b"b" * 16], [0.5, 0.25], sp)
    c.put([b"c" * 16], [0.75])
    assert len(list((tmp_path / "c").rglob("*.parquet"))) == (1 if compact else 2)
    fresh = cache.ScoreCache("k", root=tmp_path / "c")
    assert fresh.get([b"a" * 16, b"b" * 16, b"c" * 16]).tolist() == [0.5, 0.25, 0.75]
    assert fresh.get_spans([b"a" * 16, b"b" * 16, b"c" * 16, b"d" * 16]) == [sp[0], [], None, None]


@needs_comet
def test_rows_cached_without_spans_are_scored_again_for_spans(tmp_path, tiny_xcomet, monkeypatch):
    """A cache file with scores only (as written before spans were kept) does not answer a
    request for spans: those rows go through the model, and their spans equal predict's."""
    from evalcore.io import load_dataset
    from evalcore.metrics.base import get_metric
    from evalcore.neural import backend, cache, configure

    ds = load_dataset(_dataset(tmp_path / "d"))
    configure(device="cpu")
    m = get_metric(f"xcomet:{tiny_xcomet}")
    keys, want, want_scores = _oracle(tiny_xcomet, batch_size=8)
    srcs = [s for _ in OUTPUTS for _, s, _ in SEGMENTS]
    refs = [r for _ in OUTPUTS for _, _, r in SEGMENTS]
    cands = [t for texts in OUTPUTS.values() for t in texts]
    mk = m.model_key()
    cache.ScoreCache(mk).put(cache.row_keys(mk, srcs, cands, refs), want_scores)  # no spans column
    model = backend.scorer("xcomet", tiny_xcomet, "cpu", "fp32").model
    calls = []
    real = model.predict_step
    monkeypatch.setattr(model, "predict_step", lambda *a, **k: calls.append(1) or real(*a, **k))
    m.prepare(ds)
    assert list(m.pair_scores(srcs, cands, refs)) == list(want_scores) and not calls  # scores: from the cache
    _, spans = m.pair_spans(srcs, cands, refs)
    assert calls
    _same_spans(spans, want)


@needs_comet
def test_metric_span_counts_on_xcomet_spans_hand_counted(tmp_path, tiny_xcomet):
    """P/R of xCOMET's characters against a human span, counted by hand from the spans the
    package predicts (the non-space characters of its spans on sysA segment 1 vs the rater's
    major span over "dog")."""
    from evalcore.analysis.spans import metric_span_counts
    from evalcore.io import load_dataset

    keys, want, _ = _oracle(tiny_xcomet, batch_size=8)
    system, seg = _tagged(keys, want)
    cand = OUTPUTS[system][[g for g, _, _ in SEGMENTS].index(seg)]
    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    ds = load_dataset(_dataset(tmp_path / "d", [[system, seg, "r1", "esa", "50", json.dumps(human)]]))
    mine = want[keys.index((system, seg))]
    marked = {i for s in mine for i in range(s["start"], min(s["end"], len(cand))) if not cand[i].isspace()}
    truth = {i for i in range(2, 5) if not cand[i].isspace()}
    got = metric_span_counts(ds, ["major"], metric_table=_table(ds, tiny_xcomet))
    assert len(got) == 1  # only the one annotated output counts
    row = got.iloc[0]
    assert (row.system, row.seg_id) == (system, seg)
    assert (row.tp, row.marked, row.errors) == (len(marked & truth), len(marked), len(truth))
    assert len(marked) > 0


def _tagged(keys, spans):
    """The first output the tiny model tags (a hand count over nothing would prove little)."""
    return next(k for k, sp in zip(keys, spans) if sp and sp[0]["start"] < sp[0]["end"])


def _table(ds, path):
    from evalcore.io.spans import metric_span_table

    return metric_span_table(ds, _spans(ds, path, batch_size=4))


@needs_comet
def test_cli_spans_with_an_xcomet_marker(tmp_path, tiny_xcomet, capsys):
    from evalcore.cli import main

    keys, want, _ = _oracle(tiny_xcomet, batch_size=8)
    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    folder = _dataset(tmp_path / "d", [[*_tagged(keys, want), "r1", "esa", "50", json.dumps(human)]])
    out = tmp_path / "s.tsv"
    counts = tmp_path / "c.tsv"
    rc = main(["spans", str(folder), "--metrics", f"bleu,xcomet:{tiny_xcomet}", "--severity", "major",
               "--bootstrap", "0", "--out", str(out), "--counts-out", str(counts)])
    _, err = capsys.readouterr()
    assert rc == 0, err
    rows = list(csv.DictReader(open(counts, encoding="utf-8"), delimiter="\t"))
    mid = f"xcomet:{tiny_xcomet}".lower()
    x = [r for r in rows if r["marker"] == mid]
    from evalcore.io import load_dataset

    ds = load_dataset(folder)
    from evalcore.analysis.spans import metric_span_counts

    want = metric_span_counts(ds, ["major"], metric_table=_table(ds, tiny_xcomet))
    assert len(x) == 1 and int(x[0]["marked"]) > 0
    assert [(int(r["tp"]), int(r["marked"]), int(r["errors"])) for r in x] == \
           [(int(r.tp), int(r.marked), int(r.errors)) for r in want.itertuples()]


@needs_comet
def test_xcomet_rows_without_a_reference_use_the_source_only_mode(tiny_xcomet):
    """A call mixing rows with and without a reference scores each in its own input layout:
    the without-reference rows equal the package's [mt, src] prediction, the others [mt, src, ref]."""
    from evalcore.neural.backend import scorer

    sc = scorer("xcomet", tiny_xcomet, "cpu", "fp32")
    srcs = [s for _, s, _ in SEGMENTS]
    cands = OUTPUTS["sysA"]
    refs = [r if k % 2 else "" for k, (_, _, r) in enumerate(SEGMENTS)]
    scores, spans, _ = sc.score_spans(srcs, cands, refs, 2, 512)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qe = sc.model.predict([{"src": s, "mt": t} for s, t, r in zip(srcs, cands, refs) if not r],
                              batch_size=8, gpus=0, progress_bar=False)
        full = sc.model.predict([{"src": s, "mt": t, "ref": r} for s, t, r in zip(srcs, cands, refs) if r],
                                batch_size=8, gpus=0, progress_bar=False)
    assert [scores[k] for k in (0, 2)] == pytest.approx(list(qe.scores), abs=1e-6)
    assert [scores[k] for k in (1, 3)] == pytest.approx(list(full.scores), abs=1e-6)
    _same_spans([spans[0], spans[2]], list(qe.metadata.error_spans))
    _same_spans([spans[1], spans[3]], list(full.metadata.error_spans))


@needs_comet
def test_divergence_layer_of_one_output_holds_the_predicted_spans(tmp_path, tiny_xcomet):
    """The Divergence page's metric-span layer of the selected output (views.spans.output_layers
    with span_metrics): exactly the spans the package predicts on that output, and its P/R/F1
    row against the rater equals the hand count."""
    from evalcore.io import load_dataset
    from evalcore.neural import configure
    from evalcore.views import spans as V

    keys, want, _ = _oracle(tiny_xcomet, batch_size=8)
    tagged = _tagged(keys, want)
    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    ds = load_dataset(_dataset(tmp_path / "d", [[*tagged, "r1", "esa", "50", json.dumps(human)]]))
    configure(device="cpu")
    mid = f"xcomet:{tiny_xcomet}"
    for system, seg in keys:
        layers = V.output_layers(ds, system, seg, markers=(), span_metrics=[mid])
        layer = layers["metric_spans"][mid.lower()]
        mine = want[keys.index((system, seg))]
        assert [(a, b, sev) for a, b, sev, _ in layer["spans"]] == [(s["start"], s["end"], s["severity"]) for s in mine]
        if (system, seg) == tagged:
            cand = OUTPUTS[system][[g for g, _, _ in SEGMENTS].index(seg)]
            marked = {i for s in mine for i in range(s["start"], min(s["end"], len(cand))) if not cand[i].isspace()}
            truth = {i for i in range(2, 5) if not cand[i].isspace()}
            row = layers["scores"].iloc[0]
            assert (row.marked_chars, row.error_chars) == (len(marked), len(truth))
            assert row.precision == pytest.approx(len(marked & truth) / len(marked))
            assert row.recall == pytest.approx(len(marked & truth) / len(truth))


@needs_comet
def test_cli_spans_refuses_a_missing_xcomet_model_before_reading_data(tmp_path, capsys):
    from evalcore.cli import main

    rc = main(["spans", str(tmp_path / "no-such-dataset"), "--metrics", f"xcomet:{tmp_path / 'nowhere'}"])
    _, err = capsys.readouterr()
    assert rc == 2
    assert f"xcomet:{tmp_path / 'nowhere'}: no such file or folder" in err


@needs_comet
def test_xcomet_signature_says_whether_references_were_used_and_round_trips(tmp_path, tiny_xcomet):
    """Spans with the reference, without any reference (xCOMET's source-only input) and with
    it on some segments only: three signatures (ref:yes/no/where-given, agg:first, nrefs), each
    read back equal by Signature.parse; the score signature states the reference aggregation.
    The reference-free spans are the package's own [src, mt] prediction."""
    from evalcore.io import load_dataset
    from evalcore.metrics.base import Signature, get_metric
    from evalcore.neural import configure, metric_spans

    configure(device="cpu")
    mid = f"xcomet:{tiny_xcomet}"
    m = get_metric(mid)
    full = load_dataset(_dataset(tmp_path / "full"))
    free = load_dataset(_dataset(tmp_path / "free", refs_of=set()))
    some = load_dataset(_dataset(tmp_path / "some", refs_of={"1", "3"}))
    sigs = {name: m.span_signature(ds) for name, ds in (("full", full), ("free", free), ("some", some))}
    assert {k: (v.get("nrefs"), v.get("ref"), v.get("agg")) for k, v in sigs.items()} == {
        "full": ("1", "yes", "first"), "free": ("0", "no", "first"), "some": ("var", "where-given", "first")}
    assert len(set(map(str, sigs.values()))) == 3
    for sig in sigs.values():
        back = Signature.parse(sig.format())
        assert back == sig and back.fields == sig.fields
    # one output's own signature: the output of segment 2 has no reference in "some"
    assert m.span_signature(some, [("sysA", "2")]).get("ref") == "no"
    assert m.span_signature(some, [("sysA", "1")]).get("ref") == "yes"
    # scores: reference-based, and the aggregation over several references is stated
    assert (m.signature(2, "segment").get("ref"), m.signature(2, "segment").get("agg")) == ("yes", "mean")
    configure(aggregation="max")
    assert get_metric(mid).signature(2, "segment").get("agg") == "max"
    configure(aggregation="mean")

    # without references the spans come from the source alone: the package's [src, mt] prediction
    got = metric_spans(free, mid)
    from evalcore.neural.backend import scorer
    from evalcore.io.spans import xcomet_spans_frame

    samples = [{"src": s, "mt": t} for texts in OUTPUTS.values() for (_, s, _), t in zip(SEGMENTS, texts)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = scorer("xcomet", tiny_xcomet, "cpu", "fp32").model.predict(samples, batch_size=8, gpus=0,
                                                                         progress_bar=False)
    keys = [(name, g) for name, texts in OUTPUTS.items() for (g, _, _), _t in zip(SEGMENTS, texts)]
    want = xcomet_spans_frame(mid.lower(), keys, [list(x) for x in pred.metadata.error_spans])
    assert len(got) == len(want) and got.drop(columns=["confidence"]).equals(want.drop(columns=["confidence"]))


@needs_comet
def test_cli_spans_tsv_carries_the_xcomet_span_signature(tmp_path, tiny_xcomet, capsys):
    """The spans TSV's xcomet rows carry the model's span signature after the analysis'
    settings (ref:no on data without references, with a note on stderr); BLEU's rows do not."""
    from evalcore.cli import main
    from evalcore.metrics.base import Signature

    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    js = [[s, g, "r1", "esa", "50", json.dumps(human)] for s in OUTPUTS for g, _, _ in SEGMENTS]
    for name, refs_of, want in (("free", set(), "no"), ("full", None, "yes")):
        folder = _dataset(tmp_path / name, js, refs_of=refs_of)
        out = tmp_path / f"{name}.tsv"
        markers = f"xcomet:{tiny_xcomet}" if not refs_of and refs_of is not None else f"bleu,xcomet:{tiny_xcomet}"
        rc = main(["spans", str(folder), "--metrics", markers, "--severity", "major", "--bootstrap", "0",
                   "--no-ceiling", "--device", "cpu", "--out", str(out)])
        _, err = capsys.readouterr()
        assert rc == 0, err
        assert ("without a reference" in err) == (want == "no")
        rows = list(csv.DictReader(open(out, encoding="utf-8"), delimiter="\t"))
        mid = f"xcomet:{tiny_xcomet}".lower()
        sig = Signature.parse(next(r["signature"] for r in rows if r["marker"] == mid))
        assert sig.metric == "spans" and sig.get("boot") == "0"
        assert (sig.get("ref"), sig.get("agg"), sig.get("kind")) == (want, "first", "xcomet")
        assert all("ref:" not in r["signature"] for r in rows if r["marker"] == "bleu")


def _spy_spans(monkeypatch):
    """Records the frames evalcore.neural.metric_spans returns and the rows per model batch."""
    from evalcore import neural
    from evalcore.neural import backend

    frames, batches = [], []
    real = neural.metric_spans

    def spans(*a, **k):
        frames.append(real(*a, **k))
        return frames[-1]

    monkeypatch.setattr(neural, "metric_spans", spans)
    real_scorer = backend.scorer

    def scorer(*a, **k):
        sc = real_scorer(*a, **k)
        step = type(sc.model).predict_step
        monkeypatch.setattr(sc.model, "predict_step",
                            lambda batch, *x, **y: batches.append(_rows(batch)) or step(sc.model, batch, *x, **y))
        return sc

    monkeypatch.setattr(backend, "scorer", scorer)
    return frames, batches


def _rows(inputs) -> int:
    first = inputs[0] if isinstance(inputs, tuple) else inputs
    return int(first["input_ids"].shape[0])


@needs_comet
def test_cli_spans_batch_size_and_device(tmp_path, tiny_xcomet, capsys, monkeypatch):
    """``spans --batch-size 1`` and ``--batch-size 4`` run the model in batches of that size
    (no cache answers) and give identical spans and counts; a bad device or batch size is
    refused with score's messages, before any data is read."""
    from evalcore.cli import main
    from evalcore.neural import backend

    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")
    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    js = [[s, g, "r1", "esa", "50", json.dumps(human)] for s in OUTPUTS for g, _, _ in SEGMENTS]
    folder = _dataset(tmp_path / "d", js)
    frames, batches = _spy_spans(monkeypatch)
    got = {}
    for bs in (1, 4):
        backend.release()
        batches.clear()
        counts = tmp_path / f"c{bs}.tsv"
        rc = main(["spans", str(folder), "--metrics", f"xcomet:{tiny_xcomet}", "--severity", "major",
                   "--bootstrap", "0", "--device", "cpu", "--batch-size", str(bs), "--counts-out", str(counts)])
        _, err = capsys.readouterr()
        assert rc == 0, err
        assert sum(batches) == 8 and max(batches) == bs, batches  # 8 outputs, in batches of bs rows
        got[bs] = (frames[-1], counts.read_text(encoding="utf-8"))
    one, four = got[1][0], got[4][0]
    assert (one["start"] != "").any(), "the tiny model must tag something for this test to mean anything"
    assert one.drop(columns=["confidence"]).equals(four.drop(columns=["confidence"]))
    assert one["confidence"].replace("", "nan").astype(float).tolist() == pytest.approx(
        four["confidence"].replace("", "nan").astype(float).tolist(), abs=1e-6, nan_ok=True)
    assert got[1][1] == got[4][1]

    for extra, message in ((["--device", "gpu"], "--device 'gpu': use cpu, cuda, cuda:N or auto"),
                           (["--batch-size", "0"], "--batch-size must be at least 1")):
        for command in ("spans", "score"):  # the same words from both commands
            rc = main([command, str(tmp_path / "not-read"), "--metrics", f"xcomet:{tiny_xcomet}", *extra])
            _, err = capsys.readouterr()
            assert rc == 2 and message in err, (command, err)
    import torch

    if not torch.cuda.is_available():
        rc = main(["spans", str(folder), "--metrics", f"xcomet:{tiny_xcomet}", "--device", "cuda:0"])
        assert rc == 2 and "no CUDA GPU is visible to torch" in capsys.readouterr().err


def _page_with_xcomet(tmp_path, tiny_xcomet, monkeypatch, page: str, state: dict):
    """``page`` (AppTest) on the SEGMENTS dataset, every output annotated (a major span over
    characters 2-5), with ``xcomet:MODEL`` registered; records every progress-bar call, when
    the metric's rows are scored ("model start"/"model end") and the rows of each model batch."""
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT
    from evalcore.io import load_collection, workspace
    from evalcore.neural import backend, ensure_registered
    from evalcore.neural.metric import NeuralMetric

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    human = [{"start_i": 2, "end_i": 5, "severity": "major", "error_type": None}]
    js = [[s, g, "r1", "esa", str(40 + 10 * k), json.dumps(human)] for k, s in enumerate(OUTPUTS)
          for g, _, _ in SEGMENTS]
    workspace.save(load_collection(_dataset(tmp_path / "d", js)), "xcomet-pages")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    mid = f"xcomet:{tiny_xcomet}".lower()
    assert ensure_registered(mid)

    calls: list[tuple[float, str]] = []
    original = DeltaGenerator.progress
    monkeypatch.setattr(DeltaGenerator, "progress",
                        lambda self, value, text=None, **kw: calls.append((float(value), str(text)))
                        or original(self, value, text=text, **kw))
    pairs = NeuralMetric._pairs

    def model_run(self, srcs, cands, refs, progress, want_spans):
        calls.append((-1.0, "model start"))
        try:
            return pairs(self, srcs, cands, refs, progress, want_spans)
        finally:
            calls.append((-1.0, "model end"))
    monkeypatch.setattr(NeuralMetric, "_pairs", model_run)
    rows: list[int] = []
    real_scorer = backend.scorer

    def scorer(*a, **k):
        sc = real_scorer(*a, **k)
        step = type(sc.model).predict_step
        monkeypatch.setattr(sc.model, "predict_step",
                            lambda batch, *x, **y: rows.append(_rows(batch)) or step(sc.model, batch, *x, **y))
        return sc
    monkeypatch.setattr(backend, "scorer", scorer)

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for k, v in {"dataset_label": label, "dataset_select": label, **state(mid)}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at, mid, calls, rows


def _bar_moved_while_scoring(calls) -> bool:
    marks = [i for i, (f, t) in enumerate(calls) if t in ("model start", "model end")]
    return bool(marks) and any(0.0 < f < 1.0 for f, t in calls[marks[0]:marks[-1]])


@needs_comet
def test_compare_page_draws_the_spans_of_a_chosen_xcomet_metric(tmp_path, tiny_xcomet, monkeypatch):
    """Compare two systems with ``xcomet:MODEL`` chosen (AppTest): the progress bar moves while
    the model scores both systems; the side-by-side view then draws, for A and for B, the
    metric's span layer (its spans read from the neural cache that scoring filled: the model
    scores no further row) with the span signature, beside the human spans."""
    from evalcore.present.highlight import escape

    at, mid, calls, rows = _page_with_xcomet(
        tmp_path, tiny_xcomet, monkeypatch, "compare",
        lambda mid: {"cmp_a": "sysA", "cmp_b": "sysB", "cmp_metrics": ["bleu", mid], "cmp_boot": 100, "cmp_ar": 100})
    assert mid in at.multiselect(key="cmp_metrics").options
    assert _bar_moved_while_scoring(calls), calls
    assert sum(rows) == 8, rows  # both systems' 4 outputs scored once; the spans came from the cache
    boxes = [m.value for m in at.markdown if "error spans &#40;red solid major" in m.value]
    layer = escape(f"{mid}: error spans the metric returned")
    assert len(boxes) == 2 and all(layer in b for b in boxes), boxes
    assert "A &#61; sysA" in boxes[0] and "B &#61; sysB" in boxes[1]
    caps = [c.value for c in at.caption if c.value.startswith("Spans of ")]
    assert len(caps) == 2 and all(escape("|ref:yes|agg:first|") in c for c in caps), caps


@needs_comet
def test_divergence_page_draws_the_spans_of_a_chosen_xcomet_metric(tmp_path, tiny_xcomet, monkeypatch):
    """The same code path on the Divergence page: the metric scored under the bar, then the
    selected output's layer from the cache (no further model row) and its span signature."""
    from evalcore.present.highlight import escape

    at, mid, calls, rows = _page_with_xcomet(tmp_path, tiny_xcomet, monkeypatch, "divergence",
                                             lambda mid: {"div_metrics": [mid]})
    assert _bar_moved_while_scoring(calls), calls
    at.selectbox(key="div_pick").set_value(("sysB", "3")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert sum(rows) == 8, rows
    boxes = [m.value for m in at.markdown if "r1 &#40;ESA&#41;" in m.value]
    assert len(boxes) == 1 and escape(f"{mid}: error spans the metric returned") in boxes[0]
    caps = [c.value for c in at.caption if c.value.startswith("Spans of ")]
    assert len(caps) == 1 and escape("|ref:yes|agg:first|") in caps[0], caps
