"""Neural metrics seen through the :class:`~evalcore.metrics.base.Metric` interface (methods §7.10).

Ids: ``comet:MODEL``, ``cometkiwi:MODEL``, ``xcomet:MODEL``, ``metricx:MODEL``,
``bleurt:MODEL``, ``bertscore:MODEL`` and ``cosine:MODEL``; MODEL is a local path, a hub name
found in the local Hugging Face cache, or ``minilm`` (the bundled all-MiniLM-L6-v2, English
targets only). The model is loaded on first score, once per process (:mod:`.backend`).

Several references: each (candidate, reference) pair is scored on its own, and the segment's
score is their mean or max (``aggregation``, stated in the signature); the per-reference scores
are the single-reference similarities QARLA's KING and QUEEN use (:meth:`segment_block`).
The source of a segment (COMET, CometKiwi, xCOMET, MetricX-24) is found from its references
(:meth:`prepare` indexes the dataset's texts).
"""
from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..metrics.base import Metric, MetricMeta, MetricOption
from . import models as _models

if TYPE_CHECKING:
    from ..core.progress import RateProgress
    from .cache import ScoreCache

KINDS = {
    "comet": ("COMET", "Rei et al. 2020, 2022 (COMET; unbabel-comet)", True, True),
    "cometkiwi": ("COMET", "Rei et al. 2022 (CometKiwi, reference-free)", True, True),
    "xcomet": ("COMET", "Guerreiro et al. 2024 (xCOMET)", True, True),
    "metricx": ("MetricX", "Juraska et al. 2023, 2024 (MetricX-23/24; lower is better)", False, True),
    "bleurt": ("BLEURT", "Sellam et al. 2020 (BLEURT)", True, False),
    "bertscore": ("BERTScore", "Zhang et al. 2020 (BERTScore F1, greedy matching, §3)", True, False),
    "cosine": ("sentence-cosine", "Reimers & Gurevych 2019 (sentence embeddings, cosine)", True, False),
}
# kind -> (family, citation, higher_is_better, needs_source); metricx-23 ignores the source
AGGREGATIONS = ("mean", "max")
PRECISIONS = ("fp32", "fp16", "bf16")
PACKAGES = ("torch", "transformers", "unbabel-comet", "sentence-transformers")


@dataclass(frozen=True)
class Settings:
    """How neural metrics run (the ``score`` command's ``--device``, ``--batch-size``,
    ``--precision``, ``--max-length``, ``--ref-aggregation``, ``--allow-download``)."""

    device: str = "auto"
    batch_size: int = 32
    precision: str = "fp32"
    max_length: int | None = None  # None: the model's own limit
    aggregation: str = "mean"
    allow_download: bool = False
    progress: bool = False  # rate and ETA of each model run on stderr (the CLI)
    threads: int | None = None  # torch CPU threads (None: torch's default)
    # BERTScore (bert-score's options, methods §18): the hidden layer (1..L; None: the last), idf
    # weights from the dataset's references, and a baseline file (LAYER,P,R,F) to rescale with
    bertscore_layer: int | None = None
    bertscore_idf: bool = False
    bertscore_baseline: str | None = None


_SETTINGS = Settings()


def configure(reset: bool = False, **changes) -> Settings:
    """Set how metrics made from now on run (``reset``: from the defaults, else from the
    current settings; None leaves a setting as it is); returns the new settings."""
    global _SETTINGS
    s = replace(Settings() if reset else _SETTINGS, **{k: v for k, v in changes.items() if v is not None})
    if s.aggregation not in AGGREGATIONS:
        raise ValueError(f"--ref-aggregation {s.aggregation!r}: use {' or '.join(AGGREGATIONS)}")
    if s.precision not in PRECISIONS:
        raise ValueError(f"--precision {s.precision!r}: use {', '.join(PRECISIONS)}")
    if int(s.batch_size) < 1:
        raise ValueError("--batch-size must be at least 1")
    if s.threads is not None and int(s.threads) < 1:
        raise ValueError("--threads must be at least 1")
    if s.max_length is not None and int(s.max_length) < 8:
        raise ValueError("--max-length must be at least 8 tokens")
    if s.bertscore_layer is not None and int(s.bertscore_layer) < 1:
        raise ValueError("--bertscore-layer must be at least 1 (1 = the first transformer layer)")
    if s.bertscore_baseline is not None and not Path(s.bertscore_baseline).is_file():
        raise ValueError(f"--bertscore-baseline {s.bertscore_baseline}: no such file (bert-score's baseline files "
                         "are CSV with the columns LAYER,P,R,F)")
    _SETTINGS = s
    return s


def settings() -> Settings:
    return _SETTINGS


def versions() -> dict[str, str]:
    out = {}
    for p in PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "none"
    return out


class NeuralMetric(Metric):
    """One neural model as a metric (see the module docstring)."""

    def __init__(self, kind: str, spec: str, metric_id: str, config: Settings | None = None):
        family, cite, hib, needs_source = KINDS[kind]
        self.kind, self.spec = kind, spec.strip()
        self.config = config or _SETTINGS
        self.needs_source = needs_source
        self.meta = MetricMeta(
            id=metric_id, family=family, citation=cite, higher_is_better=hib,
            description=f"{family} with model {self.spec} (neural; {self.config.aggregation} over references)",
            options=(MetricOption("aggregation", "mean", "how several references combine", AGGREGATIONS),
                     MetricOption("precision", "fp32", "inference precision", PRECISIONS)))
        self._sources: list[str] = []
        self._src_of: dict[str, frozenset] = {}
        self._target = ""
        self._path: Path | None = None
        self._cache: ScoreCache | None = None
        self.truncated = 0
        self._progress: RateProgress | None = None  # one stderr progress line per metric, across its chunks
        self._expected = 0  # the progress line's total: rows :meth:`expect` counted (else the full plan)
        self._done = 0
        self._sink = None  # a caller's progress(done, total) for the model's rows (see reporting)
        self._idf_docs: tuple[str, ...] | None = None  # bertscore idf: the dataset's reference texts

    # ---- pickling (Dask): settings and the source index travel, models and caches do not --
    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = None
        state["_progress"] = None
        state["_sink"] = None
        # a Dask worker scores some blocks only: its own stderr line would count them against
        # the whole plan; the driver's line (blocks done of all blocks) stands for the run
        state["config"] = replace(self.config, progress=False)
        return state

    @contextlib.contextmanager
    def reporting(self, progress):
        """Within the block, the model's progress on the rows it scores goes to
        ``progress(done, total)`` (e.g. a page's bar while one call scores many rows) instead of
        the stderr line. The scores do not change: the same rows, the same batches."""
        old, self._sink = self._sink, progress
        try:
            yield
        finally:
            self._sink = old

    # ---- model ----------------------------------------------------------------------------
    def path(self) -> Path:
        if self._path is None:
            self._path = _models.resolve(self.kind, self.spec, self.config.allow_download)
        return self._path

    def check(self) -> None:
        """Fail early, before any data is read: the packages this kind needs are installed, the
        device (``--device``) exists here and the model is on this machine (nothing is loaded)."""
        for module in ("torch", "transformers") + (("comet",) if self.kind in ("comet", "cometkiwi", "xcomet") else ()):
            _models.require(module)
        self.device()
        self.path()

    def unavailable(self, dataset=None) -> str | None:
        """The message of :meth:`check` (a package of the extra, the device or the model missing
        here), or None: the capability tag of the contract (nothing is loaded)."""
        try:
            self.check()
        except (_models.MissingExtra, _models.MissingModel, ValueError, RuntimeError) as exc:
            return str(exc)
        return None

    def device(self) -> str:
        """The device this process runs the model on: ``--device``, where ``auto``/``cuda`` on
        a Dask worker is the GPU of its slot (:func:`.backend.resolve_device`)."""
        from .backend import resolve_device, worker_slot

        return resolve_device(self.config.device, worker_slot())

    def max_length(self) -> int:
        limit = _models.max_positions(self.path()) or 512
        return min(limit, int(self.config.max_length)) if self.config.max_length else limit

    def model_key(self) -> str:
        v = versions()
        return "|".join([self.kind, _models.content_hash(self.path()), self.device().split(":")[0],
                         self.config.precision, f"trunc:{self.max_length()}",
                         *(f"{k}:{v[k]}" for k in sorted(v)),
                         # xCOMET rows: [mt, src, ref], or [mt, src] where the reference is "", with error spans
                         *(["inputs:mt+src+ref", "spans:1"] if self.kind == "xcomet" else []),
                         *(self._bert_key() if self.kind == "bertscore" else [])])

    def bert_options(self) -> dict:
        """What the BERTScore scorer needs beyond the texts: layer (None: last), the idf
        documents (None: no idf) and the baseline file (None: no rescaling)."""
        if self.config.bertscore_idf and self._idf_docs is None:
            raise ValueError(f"{self.id} with idf weights needs the references of a dataset (the idf documents): "
                             "score it through `evalcore score`")
        return {"layer": self.config.bertscore_layer,
                "idf_docs": self._idf_docs if self.config.bertscore_idf else None,
                "baseline": self.config.bertscore_baseline}

    def _bert_key(self) -> list[str]:
        """The cache-key fields of a BERTScore row: the matching (bert-score's: special tokens kept
        as candidates with zero weight), the layer, the idf documents and the baseline file."""
        import hashlib

        o = self.bert_options()
        idf = "no" if o["idf_docs"] is None else hashlib.sha256("\n".join(o["idf_docs"]).encode()).hexdigest()[:16]
        base = "no" if o["baseline"] is None else hashlib.sha256(Path(o["baseline"]).read_bytes()).hexdigest()[:16]
        return ["match:bert-score", f"layer:{o['layer'] or 'last'}", f"idf:{idf}", f"rescale:{base}"]

    def prepare(self, dataset) -> NeuralMetric:
        """Index the dataset's sources by reference text (COMET and MetricX-24 need a segment's
        source and get only its references), and check the target language for MiniLM."""
        from ..metrics.tokenize import target_language

        self._target = target_language(getattr(dataset, "lp", ""))
        if self.kind == "bertscore" and self.config.bertscore_idf:
            refs = dataset.references["text"] if len(dataset.references) else []
            self._idf_docs = tuple(t for t in refs if isinstance(t, str))
        n_refs = max(1, len(dataset.ref_ids))
        self._expected = len(dataset.outputs) * (1 if self.kind == "cometkiwi" else n_refs)
        if self.spec.lower() == _models.MINILM and self._target and self._target != "en":
            raise ValueError(f"{self.id}: all-MiniLM-L6-v2 is an English model and the target language here is "
                             f"{self._target!r} ({dataset.lp}); give a multilingual model instead, e.g. "
                             f"{self.kind}:/path/to/xlm-roberta-base")
        if not self.needs_source:
            return self
        seg = dataset.segments
        self._sources = seg["source"].tolist()
        src_of: dict[str, set] = {}
        pos = {s: i for i, s in enumerate(seg["seg_id"])}
        for r in dataset.references.itertuples(index=False):
            i = pos.get(str(r.seg_id))
            if i is not None and isinstance(r.text, str):
                src_of.setdefault(r.text, set()).add(i)
        self._src_of = {t: frozenset(v) for t, v in src_of.items()}
        return self

    def sources_for(self, refs: Sequence[Sequence[str]]) -> list[str | None]:
        """The source of each item, found from its references (None when they match several
        segments with different sources, or none)."""
        if not self.needs_source:
            return [""] * len(refs)
        if not self._src_of:
            raise ValueError(f"{self.id} needs the source sentences: score a dataset through `evalcore score` "
                             "(the metric is prepared with the dataset's sources)")
        out = []
        for rs in refs:
            cand = None
            for r in rs:
                s = self._src_of.get(r, frozenset())
                cand = s if cand is None else cand & s
            texts = {self._sources[i] for i in cand} if cand else set()
            out.append(texts.pop() if len(texts) == 1 else None)
        return out

    # ---- scores ---------------------------------------------------------------------------
    def pair_scores(self, srcs: Sequence[str | None], cands: Sequence[str], refs: Sequence[str],
                    progress=None) -> np.ndarray:
        """Score of each (source, candidate, reference) row: from the cache, else the model
        (distinct rows only, length-sorted batches); NaN where the source is unknown."""
        return self._pairs(srcs, cands, refs, progress, False)[0]

    def pair_spans(self, srcs: Sequence[str | None], cands: Sequence[str], refs: Sequence[str],
                   progress=None) -> tuple[np.ndarray, list[list | None]]:
        """xCOMET only: the score and the error spans of each row (unbabel-comet's
        ``metadata.error_spans`` dicts: text, confidence, severity, start, end; None where the
        source is unknown), from the cache (scores and spans are stored together) or the model."""
        if self.kind != "xcomet":
            raise ValueError(f"{self.id}: only xcomet:MODEL returns error spans")
        return self._pairs(srcs, cands, refs, progress, True)

    def _pairs(self, srcs, cands, refs, progress, want_spans: bool):
        from . import cache as _cache

        n = len(cands)
        out = np.full(n, np.nan)
        spans_out: list[list | None] = [None] * n
        ok = [i for i in range(n) if srcs[i] is not None]
        if not ok:
            return out, spans_out
        kiwi = self.kind == "cometkiwi"
        keep_spans = self.kind == "xcomet"
        rows = [(srcs[i], cands[i], "" if kiwi else refs[i]) for i in ok]
        uniq = list(dict.fromkeys(rows))
        key = self.model_key()
        use_cache = _cache.enabled()
        if use_cache:
            if self._cache is None or self._cache.model_key != key:
                self._cache = _cache.ScoreCache(key)
            keys = _cache.row_keys(key, *zip(*uniq))
            got = self._cache.get(keys)
            got_spans = self._cache.get_spans(keys) if keep_spans else [None] * len(uniq)
        else:
            got = np.full(len(uniq), np.nan)
            got_spans = [None] * len(uniq)
        missing = np.isnan(got)
        if want_spans:  # a score cached without its spans (an older cache file) is scored again
            missing |= np.array([sp is None for sp in got_spans], dtype=bool)
        todo = np.flatnonzero(missing)
        if len(todo):
            from .backend import scorer

            model = scorer(self.kind, self.path(), self.device(), self.config.precision, self.config.allow_download,
                           self.config.threads)
            s, c, r = (list(x) for x in zip(*(uniq[k] for k in todo)))
            if progress is None and self._sink is not None:
                progress = self._sink
            if progress is None and self.config.progress:
                progress = self._stderr_progress(len(todo))
            if keep_spans:
                values, new_spans, truncated = model.score_spans(s, c, r, self.config.batch_size, self.max_length(),
                                                                 progress)
                for k, sp in zip(todo, new_spans):
                    got_spans[k] = sp
            elif self.kind == "bertscore":
                values, truncated = model.score(s, c, r, self.config.batch_size, self.max_length(), progress,
                                                options=self.bert_options())
                new_spans = None
            else:
                values, truncated = model.score(s, c, r, self.config.batch_size, self.max_length(), progress)
                new_spans = None
            self._done += len(todo)
            values = np.asarray(values, dtype=float)
            got[todo] = values
            self.truncated += max(0, truncated)
            if use_cache and self._cache is not None:
                self._cache.put([keys[k] for k in todo], values, new_spans)
        index = {row: k for k, row in enumerate(uniq)}
        out[ok] = got[[index[row] for row in rows]]
        for i, row in zip(ok, rows):
            spans_out[i] = got_spans[index[row]]
        return out, spans_out

    def _stderr_progress(self, n: int):
        """The metric's progress line: rows scored by the model so far, over every chunk the
        engine hands it, with the rate and the time left (the total: the rows :meth:`expect`
        counted, else the dataset's full plan; it grows if the model runs more rows)."""
        from ..core.progress import RateProgress

        if self._progress is None:
            self._progress = RateProgress(f"{self.id} ({self.device()}, batch {self.config.batch_size})", "rows")
        base, total = self._done, max(self._expected, self._done + n)
        line = self._progress

        def cb(done, of):
            line(base + int(round(n * done / max(of, 1))), total)
        return cb

    def _aggregate(self, values: np.ndarray) -> float:
        values = values[~np.isnan(values)]
        if not len(values):
            return float("nan")
        best = values.max() if self.meta.higher_is_better else values.min()
        return float(values.mean() if self.config.aggregation == "mean" else best)

    def _flat(self, cands: Sequence[str], refs: Sequence[Sequence[str]]):
        """The (source, candidate, reference) rows of the items, one per reference (CometKiwi:
        one per item), and each item's [start, end) among them."""
        srcs = self.sources_for(refs)
        flat_s, flat_c, flat_r, bounds = [], [], [], [0]
        for s, c, rs in zip(srcs, cands, refs):
            for r in (rs if self.kind != "cometkiwi" else rs[:1]):
                flat_s.append(s)
                flat_c.append(c)
                flat_r.append(r)
            bounds.append(len(flat_c))
        return flat_s, flat_c, flat_r, bounds

    def per_reference(self, cands: Sequence[str], refs: Sequence[Sequence[str]], progress=None) -> list[np.ndarray]:
        """Per item, the scores against each of its references."""
        flat_s, flat_c, flat_r, bounds = self._flat(cands, refs)
        flat = self.pair_scores(flat_s, flat_c, flat_r, progress) if flat_c else np.zeros(0)
        return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def expect(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> None:
        """The total of the stderr progress line (:meth:`_stderr_progress`): the rows of these
        items the model will run — distinct (source, candidate, reference) rows with a known
        source, less those already in the score cache — so that the total and the time left are
        those of the items actually scored (the judged segments only under ``--judged-only``,
        the chosen reference sets only), not of the whole dataset."""
        from . import cache as _cache

        if not self.config.progress:
            return
        try:
            flat_s, flat_c, flat_r, _ = self._flat(cands, refs)
        except ValueError:  # no sources indexed: the scoring call says so
            return
        kiwi = self.kind == "cometkiwi"
        uniq = list(dict.fromkeys((s, c, "" if kiwi else r) for s, c, r in zip(flat_s, flat_c, flat_r)
                                  if s is not None))
        n = len(uniq)
        if uniq and _cache.enabled():
            key = self.model_key()
            if self._cache is None or self._cache.model_key != key:
                self._cache = _cache.ScoreCache(key)
            n = int(np.isnan(self._cache.get(_cache.row_keys(key, *zip(*uniq)))).sum())
        self._expected = self._done + n

    def sentence_scores(self, cands, refs) -> np.ndarray:
        return np.array([self._aggregate(v) for v in self.per_reference(cands, refs)], dtype=float)

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        return float(self.sentence_scores([cand], [refs])[0])

    def similarity(self, cand: str, ref: str) -> float:
        return float(self.per_reference([cand], [[ref]])[0][0])

    def segment_stats(self, cands, refs) -> np.ndarray:
        return self.sentence_scores(cands, refs).reshape(-1, 1)

    serves_segments = True  # sentence_scores_of below (the metric contract)

    def sentence_scores_of(self, stats, refs) -> np.ndarray:
        return np.asarray(stats, dtype=float)[:, 0].copy()

    def score_from_stats(self, stats: np.ndarray) -> float:
        v = np.asarray(stats, dtype=float)[:, 0] if len(stats) else np.zeros(0)
        v = v[~np.isnan(v)]
        return float(v.mean()) if len(v) else float("nan")

    def segment_block(self, cands, refs):
        return self.segment_blocks([(cands, refs)])[0]

    def segment_blocks(self, blocks):
        """QARLA's similarities of many segments in one model pass: ``sim[c, j]`` the score of
        candidate c against reference j alone, ``loo[c, j]`` the aggregate over the other
        references (NaN with one reference)."""
        all_c = [c for cands, refs in blocks for c in cands]
        all_r = [list(refs) for cands, refs in blocks for _ in cands]
        per = self.per_reference(all_c, all_r)
        out, k = [], 0
        for cands, refs in blocks:
            m = len(refs)
            sim = np.full((len(cands), m), np.nan)
            loo = np.full((len(cands), m), np.nan)
            for ci in range(len(cands)):
                v = per[k]
                k += 1
                if len(v) == m:
                    sim[ci] = v
                    if m > 1:
                        for j in range(m):
                            loo[ci, j] = self._aggregate(np.delete(v, j))
                elif len(v) == 1:  # reference-free: one score, whatever the reference
                    sim[ci] = v[0]
                    if m > 1:
                        loo[ci] = v[0]
            out.append((sim, loo))
        return out

    def span_rows(self, dataset, outputs=None):
        """The (system, seg_id) keys, sources, candidates and references :meth:`dataset_spans`
        scores: each output against the first reference set that has its segment (xCOMET marks
        spans per (candidate, reference) pair; one pair per output keeps one reading per output),
        or against no reference ("": xCOMET's source-only [mt, src] input) when its segment has
        none. Sources are the dataset's own (None: unknown, the output is left out).
        ``outputs``: only these (system, seg_id) pairs."""
        seg_ids = [str(x) for x in dataset.seg_ids]
        ref_cols = [dataset.ref_texts()[r] for r in dataset.ref_ids]
        sources = dataset.segments["source"].tolist()
        only = None if outputs is None else {(str(a), str(b)) for a, b in outputs}
        keys, srcs, cands, refs = [], [], [], []
        for system, texts in dataset.sys_texts().items():
            for i, cand in enumerate(texts):
                if not isinstance(cand, str) or (only is not None and (str(system), seg_ids[i]) not in only):
                    continue
                ref = next((col[i] for col in ref_cols if isinstance(col[i], str) and col[i]), "")
                keys.append((str(system), seg_ids[i]))
                srcs.append(sources[i] if isinstance(sources[i], str) else None)
                cands.append(cand)
                refs.append(ref)
        return keys, srcs, cands, refs

    def span_nrefs(self, dataset, outputs=None) -> int | str:
        """References behind each output's spans (:meth:`span_rows`): 1 when every output had
        one, 0 when none had, ``var`` when some had (the ``nrefs`` of the span signature)."""
        _, srcs, _, refs = self.span_rows(dataset, outputs)
        used = {bool(r) for s, r in zip(srcs, refs) if s is not None}
        return "var" if len(used) > 1 else (1 if used == {True} else 0 if used else "var")

    def span_signature(self, dataset, outputs=None):
        """The signature of this metric's error spans on ``dataset`` (:meth:`signature` at level
        ``span``, with :meth:`span_nrefs`): whether references were used, and ``agg:first``."""
        return self.signature(self.span_nrefs(dataset, outputs), "span")

    def dataset_spans(self, dataset, progress=None, outputs=None):
        """xCOMET's error spans on every output of ``dataset`` in the metric-spans schema
        (:func:`evalcore.io.spans.xcomet_spans_frame`; the ``metric`` column is this metric's id),
        each output scored as :meth:`span_rows` says (with its first reference, else from the
        source alone); outputs whose source cannot be found are left out. ``outputs``: only
        these (system, seg_id) pairs (a page's one selected output)."""
        from ..io.spans import xcomet_spans_frame

        self.prepare(dataset)
        keys, srcs, cands, refs = self.span_rows(dataset, outputs)
        self._expected = self._done + len(cands)  # one row per output (the progress line's total)
        _, found = self.pair_spans(srcs, cands, refs, progress) if cands else (None, [])
        kept = [(k, sp) for k, sp in zip(keys, found) if sp is not None]
        return xcomet_spans_frame(self.id, [k for k, _ in kept], [sp for _, sp in kept])

    def release(self) -> None:
        from .backend import release

        release()
        self._cache = None

    # ---- signature (sacreCOMET's fields, Zouhar et al. 2024: model, versions, references,
    # precision, truncation, aggregation); computed without loading the model -------------
    def signature(self, nrefs=None, level=None):
        from .. import __version__
        from ..metrics.base import make_signature

        v = versions()
        try:
            path = self.path()
            model = f"{self.spec}@{_models.content_hash(path)[:12]}"
            trunc = str(self.max_length())
        except (_models.MissingModel, _models.MissingExtra):
            model, trunc = f"{self.spec}@missing", "?"
        fields = [("model", model), ("kind", self.kind)]
        if self.kind == "xcomet":  # xCOMET reads [mt, src, ref] or, without a reference, [mt, src]
            fields.append(("ref", _reference_use(nrefs, level)))
        # several references: the mean or max of the per-reference scores; the spans of an
        # output come from one (candidate, reference) pair: the first reference set's
        fields += [("agg", "first" if level == "span" else self.config.aggregation),
                   ("precision", self.config.precision), ("trunc", trunc)]
        if self.kind == "bertscore":
            c = self.config
            fields += [("layer", str(c.bertscore_layer or "last")), ("idf", "yes" if c.bertscore_idf else "no"),
                       ("rescale", "yes" if c.bertscore_baseline else "no")]
        if self.kind in ("comet", "cometkiwi", "xcomet"):
            fields.append(("comet", v["unbabel-comet"]))
        fields += [("torch", v["torch"]), ("transformers", v["transformers"]),
                   ("python", f"{sys.version_info[0]}.{sys.version_info[1]}")]
        # the metric contract's Signature: nrefs first, version last (sacreBLEU's order)
        return make_signature(fields, nrefs=nrefs, version=f"evalcore-{__version__}")


def _reference_use(nrefs, level) -> str:
    """The ``ref`` field of an xCOMET signature: ``yes`` (every row read a reference), ``no``
    (none did: the source-only input) or ``where-given`` (each output with its segment's
    reference where it has one). Scores are always reference-based here (the references are
    how a segment's source is found; segments without one get no score); spans (level
    ``span``) follow :meth:`NeuralMetric.span_nrefs`."""
    if str(nrefs) == "0":
        return "no"
    if level == "span" and (nrefs is None or str(nrefs) == "var"):
        return "where-given"
    return "yes"
