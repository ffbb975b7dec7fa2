"""How the encoder metrics (``bertscore:``, ``cosine:``) run their model: length batches whose
padding is bounded, every distinct text tokenised and encoded once, BERTScore's greedy matching
batched over pairs. Checked against a brute force (batches), a plain per-pair BERTScore written
here from Zhang et al. 2020 §3 (one text per forward pass, numpy matching) and spies on the
tokenizer and the model. The package oracles (bert-score, sentence-transformers) are in
test_bertscore_package.py and test_neural.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from test_neural import HAS_TORCH, WORDS, _cache_home, needs_torch  # noqa: F401  (autouse fixture: cache and registry)

CANDS = ["the cat sleeps by the window .", "a dog is near the coast", "the cat sleeps by the window .",
         "the library opens at nine", "", "  it will rain tomorrow  ", "where is the train station ?",
         "a dog is near the coast"]
REFS = ["the cat is sleeping next to the window .", "the dog sleeps near the coast",
        "the cat is sleeping next to the window .", "the bookshop opens at nine o'clock",
        "it will rain on the coast", "it will rain tomorrow", "the cat is sleeping next to the window .",
        "the dog sleeps near the coast"]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    """A randomly initialised 2-layer BERT with a WordPiece tokenizer written here (3 heads of
    16: another shape than test_neural's)."""
    if not HAS_TORCH:
        pytest.skip("torch not installed")
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    d = tmp_path_factory.mktemp("bert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(WORDS) + [chr(c) for c in range(97, 123)]
    (d / "vocab.txt").write_text("\n".join(dict.fromkeys(vocab)) + "\n")
    BertTokenizerFast(vocab_file=str(d / "vocab.txt"), do_lower_case=True).save_pretrained(d)
    torch.manual_seed(1)
    cfg = BertConfig(vocab_size=len(dict.fromkeys(vocab)), hidden_size=48, num_hidden_layers=2, num_attention_heads=3,
                     intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).save_pretrained(d)
    return d


def test_sorted_batches_hand_worked():
    from evalcore.neural.backend import sorted_batches

    lengths = [10, 3, 9, 10, 2, 20]
    plain = [b.tolist() for b in sorted_batches(lengths, 3)]
    assert plain == [[5, 0, 3], [2, 1, 4]]
    # 5 %, at least one token: 9 is within one token of 10, 2 within one of 3; 10 is not near 20
    assert [b.tolist() for b in sorted_batches(lengths, 3, 0.05)] == [[5], [0, 3, 2], [1, 4]]
    assert [b.tolist() for b in sorted_batches(lengths, 2, 0.05)] == [[5], [0, 3], [2], [1, 4]]
    assert sorted_batches([], 4, 0.05) == []


def test_sorted_batches_brute_force():
    """Every index once, longest first, at most ``batch_size`` per batch, padding within the
    spread; and a batch ends only where it had to (full, or the next text too short)."""
    from evalcore.neural.backend import sorted_batches

    rng = np.random.default_rng(3)
    for trial in range(200):
        n = int(rng.integers(1, 60))
        lengths = rng.integers(2, 80, n).tolist()
        size = int(rng.integers(1, 9))
        spread = float(rng.choice([0.0, 0.05, 0.2]))
        batches = sorted_batches(lengths, size, spread)
        flat = [int(i) for b in batches for i in b]
        assert sorted(flat) == list(range(n))
        seq = [lengths[i] for i in flat]
        assert seq == sorted(lengths, reverse=True)
        for b, nxt in zip(batches, batches[1:] + [None]):
            top = lengths[b[0]]
            assert 1 <= len(b) <= size
            assert all(top - lengths[i] <= max(1.0, spread * top) for i in b)
            if nxt is not None and len(b) < size:  # ended early: the next text was too far below
                assert top - lengths[nxt[0]] > max(1.0, spread * top)


class _Spy:
    """Forwards to the tokenizer and records every text it was asked to tokenise."""

    def __init__(self, tok):
        self.tok, self.texts = tok, []

    def __call__(self, texts, *a, **k):
        self.texts += list(texts)
        return self.tok(texts, *a, **k)

    def __getattr__(self, name):
        return getattr(self.tok, name)

    def __len__(self):
        return len(self.tok)


@needs_torch
@pytest.mark.parametrize("kind", ["cosine", "bertscore"])
def test_each_distinct_text_tokenised_and_encoded_once(bert, kind, monkeypatch):
    """Candidates repeat and references are shared by many rows: each distinct text (stripped
    for BERTScore) goes through the tokenizer once and through the model once; a text over the
    length limit is tokenised once more, with truncation."""
    from evalcore.neural import NeuralMetric, backend, configure

    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")
    cfg = configure(reset=True, device="cpu", batch_size=3)
    m = NeuralMetric(kind, str(bert), f"{kind}:{bert}", cfg)
    s = backend.scorer(kind, m.path(), "cpu", "fp32")
    spy, rows = _Spy(s.tokenizer), []
    hook = s.model.register_forward_hook(lambda mod, args, kw, out: rows.append(kw["input_ids"].shape[0]),
                                         with_kwargs=True)
    s.tokenizer = spy
    try:
        m.sentence_scores(CANDS, [[r] for r in REFS])
        prep = (lambda t: t.strip()) if kind == "bertscore" else (lambda t: t)
        distinct = set(map(prep, CANDS + REFS))
        assert sorted(spy.texts) == sorted(distinct) and sum(rows) == len(distinct)
        # a limit of 8 tokens: the long texts are tokenised a second time, and counted
        spy.texts.clear()
        rows.clear()
        short = NeuralMetric(kind, str(bert), f"{kind}:{bert}", configure(reset=True, device="cpu",
                                                                                   max_length=8))
        short.sentence_scores(CANDS, [[r] for r in REFS])
        n_long = sum(len(s.tokenizer.tok(t)["input_ids"]) > 8 for t in distinct)
        assert n_long > 0 and short.truncated == n_long
        assert len(spy.texts) == len(distinct) + n_long and sum(rows) == len(distinct)
    finally:
        s.tokenizer = spy.tok
        hook.remove()
        backend.release()


def _reference_bertscore(path, cands, refs, idf_docs=None, layer=None):
    """BERTScore F1 of each pair, written from Zhang et al. 2020 §3 (as bert-score computes it):
    each stripped text alone through the whole model (no padding), the hidden states of
    ``layer`` (None: the last), token vectors
    normalised; greedy matching by cosine with [CLS]/[SEP] as match candidates of weight 0,
    other tokens weight 1 or idf log((M + 1) / (m_w + 1)); F1 = 2PR/(P + R), 0 for an empty side."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(path))
    model = AutoModel.from_pretrained(str(path)).eval()
    idf = None
    if idf_docs is not None:
        m = len(idf_docs)
        df: dict[int, int] = {}
        for d in idf_docs:
            for t in set(tok(d.strip())["input_ids"]):
                df[t] = df.get(t, 0) + 1
        idf = (lambda t: math.log((m + 1) / (df.get(t, 0) + 1)))

    def embed(text):
        enc = tok(text.strip(), return_tensors="pt")
        with torch.no_grad():
            h = model(**enc, output_hidden_states=True).hidden_states[-1 if layer is None else layer][0]
        v = torch.nn.functional.normalize(h, p=2, dim=1).numpy().astype(np.float64)
        ids = enc["input_ids"][0].tolist()
        w = np.array([0.0 if t in (tok.cls_token_id, tok.sep_token_id) else (idf(t) if idf else 1.0) for t in ids])
        return v, w

    out = []
    for c, r in zip(cands, refs):
        (vc, wc), (vr, wr) = embed(c), embed(r)
        if wc.sum() == 0 or wr.sum() == 0:
            out.append(0.0)
            continue
        sim = vc @ vr.T
        p = (sim.max(1) * wc).sum() / wc.sum()
        rr = (sim.max(0) * wr).sum() / wr.sum()
        out.append(2 * p * rr / (p + rr))
    return np.array(out)


@needs_torch
@pytest.mark.parametrize("idf,layer", [(False, None), (True, None), (False, 1)])
def test_batched_matching_equals_a_per_pair_bertscore(bert, idf, layer, monkeypatch):
    """One text per batch: the same network inputs as the reference, so only the matching
    differs (≤ 1e-12); tight similarity blocks (many bmm calls) give the same; the default
    batches differ by float32 order only (≤ 1e-6). Layer 1 of 2: the second layer never runs
    (the model is cut as bert-score cuts it) and the values are those of the whole model's
    hidden state 1."""
    from evalcore.neural import NeuralMetric, backend, configure

    expected = _reference_bertscore(bert, CANDS, REFS, REFS if idf else None, layer)
    assert expected[4] == 0.0 and len(set(np.round(expected, 6))) > 4
    top_runs = []

    def ours(**kw):
        m = NeuralMetric("bertscore", str(bert), f"bertscore:{bert}",
                         configure(reset=True, device="cpu", bertscore_idf=idf, bertscore_layer=layer, **kw))
        model = backend.scorer("bertscore", m.path(), "cpu", "fp32").model
        if not top_runs:
            model.encoder.layer[1].register_forward_hook(lambda *a: top_runs.append(1))
            top_runs.append(0)
        if idf:
            m._idf_docs = tuple(REFS)  # what prepare() takes from a dataset's references
        return m.sentence_scores(CANDS, [[r] for r in REFS])

    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")  # every call runs the model (batch size is not in the key)
    block = backend.EncoderScorer.MATCH_BLOCK
    try:
        np.testing.assert_allclose(ours(batch_size=1), expected, rtol=0, atol=1e-12)
        backend.EncoderScorer.MATCH_BLOCK = 60  # a block or two pairs each
        np.testing.assert_allclose(ours(batch_size=1), expected, rtol=0, atol=1e-12)
        backend.EncoderScorer.MATCH_BLOCK = block
        np.testing.assert_allclose(ours(), expected, rtol=0, atol=1e-6)
        assert (sum(top_runs) > 0) == (layer is None)
    finally:
        backend.EncoderScorer.MATCH_BLOCK = block
        backend.release()
