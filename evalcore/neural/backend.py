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


def sorted_batches(lengths: Sequence[int], batch_size: int) -> list[np.ndarray]:
    """Indices in batches of ``batch_size``, longest first: little padding, and the first
    batch shows the peak memory at once."""
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    return [order[i:i + batch_size] for i in range(0, len(order), max(1, int(batch_size)))]


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
    to (F1 − b)/(1 − b) (§3.4 / the package's ``rescale_with_baseline``)."""

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

    def _encode(self, texts: list[str], batch_size: int, max_length: int, progress: Progress = None,
                layer: int | None = None):
        """Per text: (token vectors, token ids) of every token (bertscore: special tokens too;
        normalised) or its normalised mean-pooled vector (cosine); and how many texts were
        truncated."""
        torch = self.torch
        full = self.tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]
        lengths = [len(x) for x in full]
        truncated = sum(n > max_length for n in lengths)
        out: list = [None] * len(texts)
        done = 0
        for batch in sorted_batches(lengths, batch_size):
            enc = self.tokenizer([texts[i] for i in batch], padding=True, truncation=True, max_length=max_length,
                                 return_tensors="pt")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            with torch.inference_mode(), autocast(self.device, self.precision):
                result = self.model(**enc, output_hidden_states=layer is not None)
            hidden = (result.hidden_states[layer] if layer is not None else result.last_hidden_state).float()
            mask = enc["attention_mask"].float()
            if self.kind == "cosine":
                pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1e-9)
                vecs = torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy().astype(np.float64)
                for k, i in enumerate(batch):
                    out[i] = vecs[k]
            else:
                keep = enc["attention_mask"].cpu().numpy() > 0
                ids = enc["input_ids"].cpu().numpy()
                vecs = torch.nn.functional.normalize(hidden, p=2, dim=2).cpu().numpy().astype(np.float64)
                for k, i in enumerate(batch):
                    out[i] = (vecs[k][keep[k]], ids[k][keep[k]])
            done += len(batch)
            if progress:
                progress(done, len(texts))
        return out, truncated

    def _weights(self, ids: np.ndarray, idf: dict | None, default: float) -> np.ndarray:
        """The weight of each token: 0 for [CLS]/[SEP], else its idf (``default`` for a token no
        idf document holds) or 1."""
        zero = {self.tokenizer.cls_token_id, self.tokenizer.sep_token_id}
        return np.array([0.0 if t in zero else (idf.get(int(t), default) if idf is not None else 1.0)
                         for t in ids], dtype=np.float64)

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
        vecs, truncated = self._encode(uniq, batch_size, max_length, progress, layer if bert else None)
        idf, default = (self.idf_weights(options["idf_docs"], max_length) if bert and options.get("idf_docs") is not None
                        else (None, 1.0))
        base = _baseline_f(options["baseline"], layer or self.layers) if bert and options.get("baseline") else None
        scores = np.empty(len(cands))
        for k, (c, r) in enumerate(zip(cands, refs)):
            a, b = vecs[pos[prep(c)]], vecs[pos[prep(r)]]
            if not bert:
                scores[k] = float(np.dot(a, b))
                continue
            (va, ia), (vb, ib) = a, b
            wa, wb = self._weights(ia, idf, default), self._weights(ib, idf, default)
            if wa.sum() <= 0 or wb.sum() <= 0:
                f = 0.0  # nothing to match: bert-score's F1 of an empty side is 0
            else:
                sim = va @ vb.T
                p = float((sim.max(axis=1) * wa).sum() / wa.sum())
                r_ = float((sim.max(axis=0) * wb).sum() / wb.sum())
                f = 2 * p * r_ / (p + r_) if p + r_ != 0 else 0.0
            scores[k] = f if base is None else (f - base) / (1 - base)
        return scores, truncated


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
