"""The torch side of the neural metrics: model loading (once per process, cached by path,
device and precision), length-sorted batches, mixed precision, truncation. Imported only when
a neural metric actually scores, so ``import evalcore`` never needs torch.

Every model is run through its own package: unbabel-comet's ``load_from_checkpoint`` and the
model's ``prepare_for_inference`` / ``predict_step`` for COMET, CometKiwi and xCOMET;
transformers' ``AutoModel`` / ``AutoTokenizer`` for BERTScore-style matching and sentence
cosine; ``AutoModelForSequenceClassification`` for BERT-based BLEURT checkpoints; mT5's
``MT5ForConditionalGeneration`` for MetricX (the regression head of MetricX is the logit of
one vocabulary entry at the first decoder step, Juraska et al. 2023 §3).
"""
from __future__ import annotations

import gc
import logging
import math
import sys
import warnings
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .models import MissingExtra, MissingModel, extra_message

Progress = Callable[[int, int], None] | None

_MODELS: dict[tuple, object] = {}
_LOADS: list[tuple] = []  # every model this process loaded, in order (kind, path, device, precision)
_WORKER_SLOT: int | None = None  # this process's place among its machine's Dask workers (set_worker_slots)


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingExtra(extra_message("torch")) from None
    return torch


def visible_gpus() -> int:
    """How many CUDA GPUs torch sees in this process (0 without CUDA). The one place the device
    choice asks (tests simulate several GPUs by replacing it)."""
    torch = _torch()
    return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0


def set_worker_slots(slots: dict, dask_worker=None) -> None:
    """Run on every Dask worker by the driver (``Client.run``, which passes ``dask_worker``):
    ``slots`` maps each worker's address to its place among the workers of its machine (0, 1,
    …), the GPU it takes (:func:`resolve_device`)."""
    global _WORKER_SLOT
    if dask_worker is not None and dask_worker.address in slots:
        _WORKER_SLOT = int(slots[dask_worker.address])


def worker_slot() -> int | None:
    """This process's place among its machine's Dask workers (:func:`set_worker_slots`; else a
    ``LocalCluster`` worker's number, its name), or None outside a Dask worker task."""
    if _WORKER_SLOT is not None:
        return _WORKER_SLOT
    dist = sys.modules.get("distributed")  # not imported: not a Dask worker (and not imported here)
    if dist is None:
        return None
    try:
        name = dist.get_worker().name
    except ValueError:
        return None
    return name if isinstance(name, int) else 0


def resolve_device(device: str, slot: int | None = None) -> str:
    """``auto`` -> a GPU when one is visible (:func:`visible_gpus`), else ``cpu``; ``cuda``
    needs one; ``cuda:N`` checked. ``slot``: a Dask worker's place on its machine
    (:func:`worker_slot`): with k visible GPUs, ``auto`` and ``cuda`` give worker i
    ``cuda:(i mod k)``, so N workers spread over the GPUs, one model each; in-process (None)
    they give ``cuda``, torch's current GPU. ``cpu`` and ``cuda:N`` are taken as given."""
    d = (device or "auto").strip().lower()
    if d not in ("auto", "cpu", "cuda") and not (d.startswith("cuda:") and d[5:].isdigit()):
        raise ValueError(f"--device {device!r}: use cpu, cuda, cuda:N or auto")
    _torch()  # the extra is installed (a clear message if not)
    if d == "cpu":
        return d
    k = visible_gpus()
    if k == 0:
        if d == "auto":
            return "cpu"
        raise ValueError(f"--device {device}: no CUDA GPU is visible to torch on this machine; use --device cpu")
    if ":" in d:
        if int(d.split(":", 1)[1]) >= k:
            raise ValueError(f"--device {device}: only {k} GPU(s) visible")
        return d
    return "cuda" if slot is None else f"cuda:{int(slot) % k}"


def autocast(device: str, precision: str):
    """fp16 / bf16 through torch.autocast (fp32: no autocast). CPU autocast supports bf16 (and
    fp16 on recent torch); the scores are then computed in float32 from the model's outputs."""
    torch = _torch()
    import contextlib

    if precision == "fp32":
        return contextlib.nullcontext()
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[precision]
    return torch.autocast(device_type=device.split(":")[0], dtype=dtype)


def release(models=None) -> None:
    """Drop the loaded models and free their memory (CPU and GPU): all of them, or those of
    ``models``, ``(kind, path)`` pairs (a Dask worker frees a finished metric's model while the
    next metric's may be running)."""
    if models is None:
        _MODELS.clear()
    else:
        drop = {(str(kind), str(path)) for kind, path in models}
        for key in list(_MODELS):
            if (key[0], key[1]) in drop:
                _MODELS.pop(key, None)
    gc.collect()
    try:
        import sys

        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception:
        pass


def loaded() -> int:
    """How many models this process holds now."""
    return len(_MODELS)


def loads() -> list[tuple]:
    """Every model this process has loaded, in order: (kind, path, device, precision)."""
    return list(_LOADS)


def scorer(kind: str, path: Path, device: str, precision: str, allow_download: bool = False,
           threads: int | None = None):
    """The scorer of ``kind`` for the model at ``path``: loaded once per process.
    ``threads``: torch's CPU threads (more threads than free cores slow it down a lot)."""
    if threads:
        torch = _torch()
        if torch.get_num_threads() != int(threads):
            torch.set_num_threads(int(threads))
    key = (kind, str(path), device, precision)
    if key not in _MODELS:
        cls = {"bertscore": EncoderScorer, "cosine": EncoderScorer, "comet": CometScorer, "cometkiwi": CometScorer,
               "xcomet": CometScorer, "bleurt": BleurtScorer, "metricx": MetricXScorer}[kind]
        try:
            _MODELS[key] = cls(kind, path, device, precision, allow_download)
        except (MissingExtra, MissingModel, ValueError):
            raise
        except Exception as exc:  # a file that is not what it claims to be: a pickle where weights_only
            # refuses it (UnpicklingError), hparams.yaml with a Python tag (yaml's ConstructorError), a broken
            # safetensors or config file (SafetensorError, TypeError)...: the model cannot be loaded, said so
            raise MissingModel(unloadable(kind, path, exc)) from None
        _LOADS.append(key)
    return _MODELS[key]


def unloadable(kind: str, path: Path, exc: BaseException) -> str:
    """The message for a model folder whose files do not load: the kind of failure and the start
    of its first line (a library's message may quote the file: it is cut)."""
    first = (str(exc).strip().splitlines() or [""])[0]
    first = first if len(first) <= 160 else first[:160] + "..."
    return (f"{kind}:{path}: the model files cannot be loaded ({type(exc).__name__}"
            f"{': ' + first if first else ''}); is this a complete {kind} checkpoint from a source you trust?")


def sorted_batches(lengths: Sequence[int], batch_size: int, spread: float | None = None) -> list[np.ndarray]:
    """Indices in batches of ``batch_size``, longest first: little padding, and the first
    batch shows the peak memory at once. ``spread``: a batch also ends before a text shorter
    than its longest by more than this fraction (and at least one token), so that padding stays
    under it (a model's work grows with the padded tokens; a few more, smaller batches cost
    less than padding short texts to a long one)."""
    size = max(1, int(batch_size))
    lens = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(-lens, kind="stable")
    if spread is None or not len(order):
        return [order[i:i + size] for i in range(0, len(order), size)]
    out, start = [], 0
    for k in range(1, len(order) + 1):
        if k == len(order) or k - start >= size or lens[order[k]] < lens[order[start]] - max(1.0, spread * lens[order[start]]):
            out.append(order[start:k])
            start = k
    return out


class EncoderScorer:
    """BERTScore (Zhang et al. 2020 §3, as the ``bert-score`` package computes it) or sentence
    cosine (mean of the last layer's token vectors over the attention mask, normalised: the
    pooling of sentence-transformers' all-MiniLM-L6-v2, Reimers & Gurevych 2019 §3).

    BERTScore: each text stripped and tokenised with its special tokens; its token vectors of
    one hidden layer (``layer``, 1..L; default the last), L2-normalised; each candidate token
    matched to its most similar reference token by cosine and the reverse, the special tokens
    included as candidates to match; P = the weighted mean over candidate tokens of the best
    cosine, R likewise over reference tokens, with weight 0 for [CLS] and [SEP] (the tokenizer's
    cls/sep tokens) and 1 (or the token's idf, §3.3: log((M + 1) / (m_w + 1)) over the M idf
    documents, m_w of them holding w) for every other token; F1 = 2PR/(P + R), 0 when a side has
    no weighted token; with a baseline b (the file's row of the layer, column F), F1 is rescaled
    to (F1 − b)/(1 − b) (§3.4 / the package's ``rescale_with_baseline``).

    How it runs (the values do not depend on it beyond float32 summation order): each distinct
    text is tokenised once (those over ``max_length`` again, with the tokenizer's truncation) and
    encoded once, in length-sorted batches (at most ``batch_size`` texts, within
    :attr:`SPREAD` of each other's length) padded from those ids; the greedy matching of many
    (candidate, reference) pairs is one batched float64 product per block of pairs of similar
    size, padding masked, in torch (its threads, no per-token Python). A hidden layer below the
    last runs the model's first layers only (:meth:`_upto`)."""

    #: elements of one block of pairwise token similarities (float64: 16 MB)
    MATCH_BLOCK = 1 << 21
    #: padding bound of a batch of texts (:func:`sorted_batches`): at 1 thread, all-MiniLM-L6-v2
    #: on 396 WMT texts took 4.45 CPU-s in batches of up to 32 within 5 %, 5.03 s in plain
    #: batches of 32 (15.7k vs 17.7k padded tokens for 15.3k real ones)
    SPREAD = 0.05

    def __init__(self, kind, path: Path, device, precision, allow_download=False):
        torch = _torch()
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError:
            raise MissingExtra(extra_message("transformers")) from None
        self.kind, self.device, self.precision = kind, device, precision
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            self.model = AutoModel.from_pretrained(str(path), local_files_only=True)
        except OSError as exc:
            raise MissingModel(f"{kind}:{path}: not a transformers model folder (config.json, weights and "
                               f"tokenizer files expected): {exc}") from None
        self.model.to(device).eval()
        self.layers = int(self.model.config.num_hidden_layers)
        self.torch = torch
        self._idf: dict = {}
        tok = self.tokenizer
        self._pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        self._left = getattr(tok, "padding_side", "right") == "left"
        self._types = "token_type_ids" in getattr(tok, "model_input_names", ())
        self._cut: dict[int, object] = {}

    def _upto(self, layer: int | None):
        """The model running only its first ``layer`` transformer layers (the same weights, not
        copied), as bert-score cuts its model: a hidden layer below the last needs none of the
        layers above it, and the layers it runs compute what they compute in the whole model.
        The whole model where the layers are not ``encoder.layer`` (then every layer runs)."""
        if layer is None or layer >= self.layers:
            return self.model
        if layer not in self._cut:
            import copy

            enc = getattr(self.model, "encoder", None)
            blocks = getattr(enc, "layer", None)
            if enc is None or not isinstance(blocks, self.torch.nn.ModuleList) or len(blocks) != self.layers:
                self._cut[layer] = self.model
            else:
                cut_enc = copy.copy(enc)
                cut_enc._modules = dict(enc._modules)
                cut_enc.layer = self.torch.nn.ModuleList(list(blocks)[:layer])
                cut = copy.copy(self.model)
                cut._modules = dict(self.model._modules)
                cut.encoder = cut_enc
                self._cut[layer] = cut
        return self._cut[layer]

    def _token_ids(self, texts: list[str], max_length: int) -> tuple[list[list[int]], int]:
        """The token ids of each text with its special tokens, tokenised once; a text longer than
        ``max_length`` tokens is tokenised again with the tokenizer's own truncation (its special
        tokens kept). And how many were truncated."""
        ids = list(self.tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"])
        long = [i for i, x in enumerate(ids) if len(x) > max_length]
        if long:
            cut = self.tokenizer([texts[i] for i in long], add_special_tokens=True, truncation=True,
                                 max_length=max_length)["input_ids"]
            for i, x in zip(long, cut):
                ids[i] = x
        return ids, len(long)

    def _inputs(self, ids: list[list[int]], batch) -> tuple[dict, list[slice]]:
        """The model inputs of the texts ``batch`` (padded as the tokenizer pads: to the longest,
        on its padding side) and where each text's tokens lie in its row."""
        torch = self.torch
        width = max(len(ids[i]) for i in batch)
        input_ids = np.full((len(batch), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        where = []
        for k, i in enumerate(batch):
            n = len(ids[i])
            sl = slice(width - n, width) if self._left else slice(0, n)
            input_ids[k, sl] = ids[i]
            mask[k, sl] = 1
            where.append(sl)
        enc = {"input_ids": torch.from_numpy(input_ids), "attention_mask": torch.from_numpy(mask)}
        if self._types:
            enc["token_type_ids"] = torch.zeros_like(enc["input_ids"])
        return {k: v.to(self.device) for k, v in enc.items()}, where

    def _encode(self, texts: list[str], batch_size: int, max_length: int, progress: Progress = None,
                layer: int | None = None):
        """Cosine: the normalised mean-pooled vector of each text (an array, one row per text).
        BERTScore: each text's normalised token vectors (a float32 tensor, special tokens too) and
        token ids. And how many texts were truncated."""
        torch = self.torch
        ids, truncated = self._token_ids(texts, max_length)
        model = self._upto(layer)
        cosine = self.kind == "cosine"
        out: list = [None] * len(texts)
        pooled_rows = np.empty((len(texts) if cosine else 0, int(self.model.config.hidden_size)), dtype=np.float64)
        done = 0
        with torch.inference_mode():
            for batch in sorted_batches([len(x) for x in ids], batch_size, self.SPREAD):
                enc, where = self._inputs(ids, batch)
                with autocast(self.device, self.precision):
                    result = model(**enc, output_hidden_states=layer is not None)
                hidden = (result.hidden_states[layer] if layer is not None else result.last_hidden_state).float()
                if cosine:
                    mask = enc["attention_mask"].to(hidden.dtype)
                    pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
                    pooled_rows[batch] = torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy()
                else:
                    vecs = torch.nn.functional.normalize(hidden, p=2, dim=2).cpu()
                    for k, i in enumerate(batch):
                        out[i] = vecs[k, where[k]]
                done += len(batch)
                if progress:
                    progress(done, len(texts))
        if cosine:
            return pooled_rows, truncated
        return [(v, np.asarray(x, dtype=np.int64)) for v, x in zip(out, ids)], truncated

    def _weight_table(self, idf: dict | None, default: float) -> np.ndarray:
        """The weight of every token id: 0 for [CLS]/[SEP], else its idf (``default`` for a token
        no idf document holds) or 1."""
        size = max(len(self.tokenizer), int(getattr(self.model.config, "vocab_size", 0) or 0))
        if idf:
            size = max(size, max(idf) + 1)
        table = np.full(size, default if idf is not None else 1.0, dtype=np.float64)
        if idf:
            table[np.fromiter(idf.keys(), np.int64, len(idf))] = np.fromiter(idf.values(), np.float64, len(idf))
        for t in (self.tokenizer.cls_token_id, self.tokenizer.sep_token_id):
            if t is not None:
                table[t] = 0.0
        return table

    def idf_weights(self, docs: Sequence[str], max_length: int) -> tuple[dict, float]:
        """idf of every token id over ``docs`` (each document's set of token ids, stripped texts
        with special tokens), and the idf of a token none holds: log((M + 1) / 1)."""
        key = (hash(tuple(docs)), len(docs), max_length)
        if key not in self._idf:
            counts: dict[int, int] = {}
            for ids in self.tokenizer([d.strip() for d in docs], add_special_tokens=True, truncation=True,
                                      max_length=max_length)["input_ids"]:
                for t in set(ids):
                    counts[t] = counts.get(t, 0) + 1
            m = len(docs)
            self._idf[key] = ({t: math.log((m + 1) / (c + 1)) for t, c in counts.items()}, math.log(m + 1))
        return self._idf[key]

    def _greedy_f1(self, vecs: list, weights: list[np.ndarray], ci: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """BERTScore F1 of each pair (text ``ci[k]`` as candidate, text ``ri[k]`` as reference):
        pairs of similar size in blocks, one float64 ``bmm`` per block; padded tokens get a
        similarity of −2 (below any cosine) and weight 0, so they never match nor count."""
        torch = self.torch
        pad = torch.nn.utils.rnn.pad_sequence
        n = len(ci)
        lc = np.array([len(weights[i]) for i in ci], dtype=np.int64)
        lr = np.array([len(weights[i]) for i in ri], dtype=np.int64)
        p, r = np.zeros(n), np.zeros(n)
        order = np.argsort(-(lc * lr), kind="stable")
        start = 0
        with torch.inference_mode():
            while start < n:
                end, tc, tr = start, 0, 0
                while end < n:
                    j = order[end]
                    c2, r2 = max(tc, lc[j]), max(tr, lr[j])
                    if end > start and (end - start + 1) * c2 * r2 > self.MATCH_BLOCK:
                        break
                    tc, tr, end = c2, r2, end + 1
                block = order[start:end]
                a = pad([vecs[ci[k]] for k in block], batch_first=True).double()
                b = pad([vecs[ri[k]] for k in block], batch_first=True).double()
                wa = np.zeros((len(block), a.shape[1]))
                wb = np.zeros((len(block), b.shape[1]))
                for row, k in enumerate(block):
                    wa[row, :lc[k]] = weights[ci[k]]
                    wb[row, :lr[k]] = weights[ri[k]]
                valid_a = torch.arange(a.shape[1])[None, :] < torch.from_numpy(lc[block])[:, None]
                valid_b = torch.arange(b.shape[1])[None, :] < torch.from_numpy(lr[block])[:, None]
                sim = torch.bmm(a, b.transpose(1, 2))
                sim.masked_fill_(~(valid_a[:, :, None] & valid_b[:, None, :]), -2.0)
                best_a = sim.max(dim=2).values.numpy()
                best_b = sim.max(dim=1).values.numpy()
                p[block] = (best_a * wa).sum(1)
                r[block] = (best_b * wb).sum(1)
                start = end
        sa = np.array([weights[i].sum() for i in ci])
        sb = np.array([weights[i].sum() for i in ri])
        ok = (sa > 0) & (sb > 0)  # nothing to match on a side: bert-score's F1 of an empty side is 0
        p = np.where(ok, p / np.where(ok, sa, 1.0), 0.0)
        r = np.where(ok, r / np.where(ok, sb, 1.0), 0.0)
        den = p + r
        return np.where(ok & (den != 0), 2 * p * r / np.where(den != 0, den, 1.0), 0.0)

    def score(self, srcs, cands, refs, batch_size: int, max_length: int, progress: Progress = None,
              options: dict | None = None):
        options = options or {}
        bert = self.kind == "bertscore"
        prep = (lambda t: t.strip()) if bert else (lambda t: t)
        layer = options.get("layer")
        if layer is not None and not 1 <= int(layer) <= self.layers:
            raise ValueError(f"--bertscore-layer {layer}: this model has layers 1 to {self.layers}")
        uniq = list(dict.fromkeys(prep(t) for t in list(cands) + list(refs)))
        pos = {t: i for i, t in enumerate(uniq)}
        ci = np.array([pos[prep(c)] for c in cands], dtype=np.int64)
        ri = np.array([pos[prep(r)] for r in refs], dtype=np.int64)
        encoded, truncated = self._encode(uniq, batch_size, max_length, progress, layer if bert else None)
        if not bert:
            return np.einsum("ij,ij->i", encoded[ci], encoded[ri]), truncated
        idf, default = (self.idf_weights(options["idf_docs"], max_length) if options.get("idf_docs") is not None
                        else (None, 1.0))
        table = self._weight_table(idf, default)
        vecs = [v for v, _ in encoded]
        weights = [table[ids] for _, ids in encoded]
        scores = self._greedy_f1(vecs, weights, ci, ri) if len(ci) else np.zeros(0)
        base = _baseline_f(options["baseline"], layer or self.layers) if options.get("baseline") else None
        return (scores if base is None else (scores - base) / (1 - base)), truncated


def _baseline_f(path: str, layer: int) -> float:
    """The F baseline of ``layer`` in a bert-score baseline file (CSV: LAYER,P,R,F; one row per
    layer, 0 = the embeddings)."""
    import pandas as pd

    t = pd.read_csv(path)
    cols = {c.strip().upper(): c for c in t.columns}
    if not {"LAYER", "F"} <= set(cols):
        raise ValueError(f"{path}: a bert-score baseline file has the columns LAYER,P,R,F (found "
                         f"{', '.join(map(str, t.columns))})")
    row = t[t[cols["LAYER"]].astype(int) == int(layer)]
    if len(row) != 1:
        raise ValueError(f"{path}: no row for layer {layer} (it has layers "
                         f"{', '.join(map(str, t[cols['LAYER']].tolist()))})")
    return float(row[cols["F"]].iloc[0])


class CometScorer:
    """COMET (Rei et al. 2020, 2022), CometKiwi (Rei et al. 2022) and xCOMET (Guerreiro et al.
    2024) checkpoints through unbabel-comet: ``load_from_checkpoint`` then the model's own
    ``prepare_for_inference`` and ``predict_step`` per length-sorted batch (no Lightning
    trainer: no worker processes, no progress bars of its own)."""

    def __init__(self, kind, path: Path, device, precision, allow_download=False):
        torch = _torch()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from comet import load_from_checkpoint
        except ImportError:
            raise MissingExtra(extra_message("unbabel-comet")) from None
        logging.getLogger("comet").setLevel(logging.WARNING)
        ckpt = path if path.is_file() else path / "checkpoints" / "model.ckpt"
        if not ckpt.is_file():
            raise MissingModel(f"{kind}:{path}: no COMET checkpoint (looked for {ckpt}; a COMET model folder holds "
                               "checkpoints/model.ckpt and hparams.yaml)")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.model = load_from_checkpoint(str(ckpt), local_files_only=not allow_download)
        except OSError as exc:  # the encoder's tokenizer/config (hparams pretrained_model) is missing
            raise MissingModel(f"{kind}:{path}: the checkpoint loads its encoder's tokenizer and configuration "
                               f"by name, and they are not on this machine: {exc}") from None
        self.model.eval().to(device)
        self.kind, self.device, self.precision, self.torch = kind, device, precision, torch
        self.needs_refs = bool(self.model.requires_references())
        if kind == "cometkiwi" and self.needs_refs:
            raise ValueError(f"cometkiwi:{path}: this checkpoint needs references; use comet:{path}")
        if kind == "comet" and not self.needs_refs:
            raise ValueError(f"comet:{path}: this checkpoint is reference-free (quality estimation); use cometkiwi:{path}")
        self.max_positions = int(self.model.encoder.max_positions)

    def score(self, srcs, cands, refs, batch_size: int, max_length: int, progress: Progress = None):
        scores, _, truncated = self.score_spans(srcs, cands, refs, batch_size, max_length, progress)
        return scores, truncated

    def score_spans(self, srcs, cands, refs, batch_size: int, max_length: int, progress: Progress = None):
        """Scores, and for xCOMET the error spans of each row (unbabel-comet's
        ``metadata.error_spans``: per row a list of dicts text, confidence, severity, start, end,
        character offsets into the candidate; None for the other kinds), and -1 (truncation is
        not counted). xCOMET gets the reference whenever the row has one (its [mt, src, ref]
        mode: the three inputs' scores averaged, the tags weighted, Guerreiro et al. 2024 §3),
        else the source alone."""
        torch = self.torch
        n = len(cands)
        lengths = [len(s) + len(c) + len(r) for s, c, r in zip(srcs, cands, refs)]
        out = np.empty(n)
        spans: list | None = [None] * n if self.kind == "xcomet" else None
        # one input layout per batch: xCOMET rows with a reference and rows without go apart
        has_ref = np.array([bool(self.needs_refs or (self.kind == "xcomet" and r)) for r in refs], dtype=bool)
        batches = [group[b] for group in (np.flatnonzero(has_ref), np.flatnonzero(~has_ref)) if len(group)
                   for b in sorted_batches([lengths[i] for i in group], batch_size)]
        done = 0
        for batch in batches:
            with_ref = bool(has_ref[batch[0]])
            samples = [{"src": srcs[i], "mt": cands[i], **({"ref": refs[i]} if with_ref else {})} for i in batch]
            with torch.inference_mode(), autocast(self.device, self.precision):
                inputs = self.model.prepare_for_inference(samples)
                pred = self.model.predict_step(_to_device(inputs, self.device))
            out[batch] = pred.scores.float().cpu().numpy()
            if spans is not None:
                found = pred.metadata["error_spans"] if "metadata" in pred else None
                if found is None or len(found) != len(batch):
                    raise ValueError(f"xcomet: the model returned no error spans for its {len(batch)} rows (a COMET "
                                     "checkpoint without word-level tags? use comet:MODEL for it)")
                for i, row in zip(batch, found):
                    spans[i] = [_span(sp) for sp in row]
            done += len(batch)
            if progress:
                progress(done, n)
        return out, spans, -1  # COMET truncates inside its encoder (max_positions); not counted here


def _to_device(inputs, device):
    """unbabel-comet's model inputs on ``device``: a dict of tensors (COMET), or a tuple of such
    dicts (UnifiedMetric / xCOMET: one per input combination)."""
    if isinstance(inputs, dict):
        return {k: v.to(device) if hasattr(v, "to") else v for k, v in inputs.items()}
    return tuple(_to_device(x, device) for x in inputs)


def _span(sp: dict) -> dict:
    """One of unbabel-comet's error-span dicts with plain Python values (JSON-ready)."""
    return {"text": str(sp["text"]), "confidence": float(sp["confidence"]), "severity": str(sp["severity"]),
            "start": int(sp["start"]), "end": int(sp["end"])}


class BleurtScorer:
    """BLEURT (Sellam et al. 2020 §3): a BERT regression head over ``[CLS] reference [SEP]
    candidate [SEP]``; checkpoints converted to transformers' ``BertForSequenceClassification``
    (one label) load here. BLEURT-20 (RemBERT, its own model class) needs the separate
    ``bleurt_pytorch`` package, which is not on PyPI."""

    def __init__(self, kind, path: Path, device, precision, allow_download=False):
        import json

        torch = _torch()
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        try:
            cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise MissingModel(f"bleurt:{path}: no transformers config.json in the folder (a BLEURT checkpoint "
                               "converted to PyTorch is expected)") from None
        if cfg.get("model_type") == "bleurt" or "Bleurt" in " ".join(cfg.get("architectures") or []):
            raise MissingExtra(f"bleurt:{path}: this is a BLEURT-20 style checkpoint, which needs the package "
                               "'bleurt_pytorch' (not on PyPI; install it from its source repository)")
        labels = len(cfg["id2label"]) if isinstance(cfg.get("id2label"), dict) else 2  # transformers' default
        if labels != 1 or not any(a.endswith("ForSequenceClassification") for a in cfg.get("architectures") or []):
            raise ValueError(f"bleurt:{path}: not a sequence-regression checkpoint ({labels} labels, architectures "
                             f"{cfg.get('architectures')}); BLEURT has one regression output")
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = AutoModelForSequenceClassification.from_pretrained(str(path), local_files_only=True)
        self.model.to(device).eval()
        self.device, self.precision, self.torch = device, precision, torch

    def score(self, srcs, cands, refs, batch_size: int, max_length: int, progress: Progress = None):
        torch = self.torch
        full = self.tokenizer(list(refs), list(cands), truncation=False)["input_ids"]
        lengths = [len(x) for x in full]
        truncated = sum(n > max_length for n in lengths)
        out = np.empty(len(cands))
        done = 0
        for batch in sorted_batches(lengths, batch_size):
            enc = self.tokenizer([refs[i] for i in batch], [cands[i] for i in batch], padding=True,
                                 truncation="longest_first", max_length=max_length, return_tensors="pt")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            with torch.inference_mode(), autocast(self.device, self.precision):
                logits = self.model(**enc).logits
            out[batch] = logits[:, 0].float().cpu().numpy()
            done += len(batch)
            if progress:
                progress(done, len(cands))
        return out, truncated


class MetricXScorer:
    """MetricX-23 / MetricX-24 (Juraska et al. 2023, 2024): an mT5 encoder-decoder whose score
    is the logit of vocabulary entry 250089 at the first decoder step, clipped to [0, 25] (lower
    is better). Inputs: ``candidate: … reference: …`` (MetricX-23, reference-based) or
    ``source: … candidate: … reference: …`` (MetricX-24), without the final end-of-sequence
    token. The folder must hold the checkpoint and the mT5 tokenizer files."""

    TOKEN = 250089

    def __init__(self, kind, path: Path, device, precision, allow_download=False):
        torch = _torch()
        from transformers import AutoTokenizer, MT5ForConditionalGeneration

        if not (path / "config.json").is_file():
            raise MissingModel(f"metricx:{path}: no config.json in the folder (a MetricX checkpoint is expected)")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        except (OSError, ValueError, TypeError) as exc:
            raise MissingModel(f"metricx:{path}: no mT5 tokenizer in the folder (MetricX checkpoints ship without "
                               f"one: copy the files of google/mt5-xl's tokenizer next to config.json): {exc}") from None
        self.model = MT5ForConditionalGeneration.from_pretrained(str(path), local_files_only=True)
        if self.model.config.vocab_size <= self.TOKEN:
            raise ValueError(f"metricx:{path}: vocabulary of {self.model.config.vocab_size} entries; MetricX reads "
                             f"entry {self.TOKEN}")
        self.model.to(device).eval()
        self.version24 = "24" in path.name
        self.device, self.precision, self.torch = device, precision, torch

    def text(self, s, c, r) -> str:
        return f"source: {s} candidate: {c} reference: {r}" if self.version24 else f"candidate: {c} reference: {r}"

    def score(self, srcs, cands, refs, batch_size: int, max_length: int, progress: Progress = None):
        torch = self.torch
        texts = [self.text(s, c, r) for s, c, r in zip(srcs, cands, refs)]
        full = self.tokenizer(texts, add_special_tokens=False, truncation=False)["input_ids"]
        lengths = [len(x) for x in full]
        truncated = sum(n > max_length for n in lengths)
        out = np.empty(len(texts))
        done = 0
        for batch in sorted_batches(lengths, batch_size):
            enc = self.tokenizer([texts[i] for i in batch], add_special_tokens=False, padding=True, truncation=True,
                                 max_length=max_length, return_tensors="pt")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            start = torch.zeros((len(batch), 1), dtype=torch.long, device=self.device)
            with torch.inference_mode(), autocast(self.device, self.precision):
                logits = self.model(**enc, decoder_input_ids=start).logits
            out[batch] = torch.clamp(logits[:, 0, self.TOKEN].float(), 0.0, 25.0).cpu().numpy()
            done += len(batch)
            if progress:
                progress(done, len(texts))
        return out, truncated
