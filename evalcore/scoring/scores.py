"""Scores the pages, analyses and commands share, disk-cached by dataset content hash + metric signature + code
fingerprint (Parquet/npz, never pickle): segment scores and corpus statistics (one statistics
table per metric serves both levels), the QARLA tensors and QUEEN index, human segment scores.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .. import cache_version
from ..core.arrowfiles import read_parquet
from ..core.dataset import Dataset
from ..core.export import atomic_write
from ..core.progress import Progress, stage, sub_range
from ..metrics._caches import bounded_cache
from .defaults import metric_signature


def _cache_dir() -> Path:
    from ..metrics.engine import default_cache_dir

    d = Path(default_cache_dir()) / "analysis"
    d.mkdir(parents=True, exist_ok=True)
    return d


def disk_cached(kind: str, key: Sequence, compute: Callable[[], object]):
    """``compute()``, cached on disk in formats that cannot run code when read (an
    unpickled cache lets anyone who can write to the cache folder run code in the
    app): a DataFrame as Parquet, a statistics dict ``{name: (seg_ids, array)}`` as ``.npz``
    read with ``allow_pickle=False``, a view's result dict (string keys; DataFrames and values
    JSON holds) as one Parquet file per frame plus a JSON file written last. Anything else, or
    a file that does not read back, is simply recomputed; pickle files are never opened."""
    base = _cache_base(kind, key)
    value = _read_cache(base)
    if value is not None:
        return value
    value = compute()
    try:
        _write_cache(base, value)
    except Exception:  # a value these formats cannot hold (or a full disk): not cached
        pass
    return value


def stored(kind: str, key: Sequence):
    """What :func:`disk_cached` keeps for (``kind``, ``key``), computing nothing: the value an
    earlier call (of any process) stored, or None when there is none or it does not read back."""
    return _read_cache(_cache_base(kind, key))


def has(kind: str, key: Sequence) -> bool:
    """Whether :func:`disk_cached` keeps an entry for (``kind``, ``key``), reading none of it: a
    check of its file (a result dict's JSON, written last, says the entry is whole). An entry that
    no longer reads back is computed again by whoever reads it."""
    base = _cache_base(kind, key)
    return any(base.with_suffix(ext).exists() for ext in (".parquet", ".npz", ".json"))


def _cache_base(kind: str, key: Sequence) -> Path:
    text = "\n".join(str(k) for k in (kind, cache_version(), *key))
    return _cache_dir() / f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:32]}"


def _read_cache(base: Path):
    try:
        if base.with_suffix(".parquet").exists():
            return read_parquet(base.with_suffix(".parquet"))
        if base.with_suffix(".npz").exists():
            with np.load(base.with_suffix(".npz"), allow_pickle=False) as z:
                names = z["names"].tolist()
                return {n: (z[f"keep{i}"].tolist(), z[f"stats{i}"]) for i, n in enumerate(names)}
        if base.with_suffix(".json").exists():  # a result dict: its frames beside it
            entry = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
            out = {k: read_parquet(base.with_suffix(f".{k}.parquet")) for k in entry["frames"]}
            out.update(entry["plain"])
            return out
    except Exception:  # unreadable, truncated or tampered cache file: recompute
        return None
    return None


def _stats_dict(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], np.ndarray)
        and v[1].dtype.kind == "f" and all(isinstance(s, str) for s in v[0]) for k, v in value.items())


def _result_dict(value) -> bool:
    return (isinstance(value, dict) and all(isinstance(k, str) for k in value)
            and any(isinstance(v, pd.DataFrame) for v in value.values()))


def _write_cache(base: Path, value) -> None:
    """Through the one atomic writer (a random temporary name, so two sessions of the app —
    threads of one process — writing the same entry never share a temporary file); no fsync: a
    torn cache file fails to load and is recomputed. A result dict: its frames first, the JSON
    last (its presence says the entry is whole); a value JSON cannot give back equal (a tuple, a
    number key) is not kept, and nothing is written."""
    if _result_dict(value):
        frames = [k for k, v in value.items() if isinstance(v, pd.DataFrame)]
        plain = {k: v for k, v in value.items() if k not in frames}
        text = json.dumps({"frames": frames, "plain": plain}, ensure_ascii=False)
        if json.loads(text)["plain"] != plain:  # (a tuple would come back a list): not kept
            return
        for k in frames:
            atomic_write(base.with_suffix(f".{k}.parquet"), lambda fh, k=k: value[k].to_parquet(fh), mode="wb",
                         fsync=False)
        atomic_write(base.with_suffix(".json"), lambda fh: fh.write(text), mode="w", fsync=False)
        return
    if isinstance(value, pd.DataFrame):
        path, write = base.with_suffix(".parquet"), lambda fh: value.to_parquet(fh)
    elif _stats_dict(value):
        arrays: dict[str, Any] = {"names": np.array(list(value), dtype=str)}
        for i, (keep, st) in enumerate(value.values()):
            arrays[f"keep{i}"] = np.array(keep, dtype=str)
            arrays[f"stats{i}"] = st
        path, write = base.with_suffix(".npz"), lambda fh: np.savez(fh, **arrays)
    else:
        return
    atomic_write(path, write, mode="wb", fsync=False)


def segment_scores(dataset: Dataset, metric_ids: Sequence[str], include_references: bool = False,
                   progress: Progress = None, tokenize: str | None = None) -> pd.DataFrame:
    """Multi-reference segment scores x(c, R_s) on each metric's own scale
    (:func:`evalcore.metrics.engine.score_table`, level "segment"), cached on disk per metric.
    ``tokenize``: the word-level metrics' tokenizer (None: the metric's default)."""
    from ..metrics.engine import score_table

    frames = []
    h = dataset.content_hash()
    n = max(len(metric_ids), 1)
    for i, m in enumerate(metric_ids):
        cb = sub_range(progress, i / n, (i + 1) / n, f"segment scores: {m}")
        key = (h, m, metric_signature(m, tokenize=tokenize), include_references)
        if _from_stats(m):  # derived from the one statistics table the Systems page also uses
            sp = stage(progress, i / n, (i + 1) / n)
            # mypy cannot infer a lambda whose defaults bind the loop variables
            frames.append(disk_cached("segscores", key, lambda m=m, sp=sp: _scores_from_stats(  # type: ignore[misc]
                dataset, m, include_references, sp, tokenize)))
            continue
        frames.append(disk_cached("segscores", key, lambda m=m, cb=cb: score_table(  # type: ignore[misc]
            dataset, [m], "segment", include_references=include_references, progress=cb, tokenize=tokenize)))
    if progress:
        progress(1.0, "segment scores ready")
    if not frames:
        return pd.DataFrame(columns=["metric", "system", "seg_id", "score"])
    return pd.concat(frames, ignore_index=True)


def _from_stats(metric_id: str) -> bool:
    """Whether the metric's sentence scores follow from its segment statistics
    (``sentence_scores_of``: BLEU and its variants, chrF/chrF++, TER, NIST and the best-reference
    word metrics WER, PER, ROUGE, GTM, METEOR, character n-grams), so segment and corpus scores
    share one statistics table per (dataset, metric signature, candidates)."""
    from ..metrics.base import get_metric

    try:
        m = get_metric(metric_id)
    except KeyError:
        return False
    return m.meta.needs_text and m.serves_segments


def _scores_from_stats(dataset: Dataset, metric_id: str, include_references: bool,
                       progress: Progress = None, tokenize: str | None = None) -> pd.DataFrame:
    """Segment scores (metric, system, seg_id, score) from the cached statistics table: the same
    values as :func:`~evalcore.metrics.engine.score_table` at segment level."""
    from ..metrics.base import get_metric
    from ..metrics.engine import _candidates, scorable

    metric = get_metric(metric_id, tokenize)
    stats = system_stats(dataset, [metric_id], include_references, progress, tokenize=tokenize)
    ref_lists = {}
    for name, texts, use_refs in _candidates(dataset, include_references):
        keep, _, refs = scorable(dataset, texts, use_refs)
        ref_lists[name] = refs
    rows = []
    for name, (keep, st) in stats[metric_id].items():
        vals = metric.sentence_scores_of(st, ref_lists[name])
        rows.append(pd.DataFrame({"metric": metric_id, "system": name, "seg_id": list(keep),
                                  "score": np.asarray(vals, dtype=float)}))
    if not rows:
        return pd.DataFrame(columns=["metric", "system", "seg_id", "score"]).astype(
            {"metric": str, "system": str, "seg_id": str, "score": float})
    return pd.concat(rows, ignore_index=True).astype({"metric": str, "system": str, "seg_id": str, "score": float})


def _stats_for(dataset: Dataset, metric_id: str, include_references: bool, progress=None,
               ref_ids: Sequence[str] | None = None, segments: dict | None = None,
               tokenize: str | None = None) -> dict:
    """name -> (seg_ids, per-segment sufficient statistics) for every candidate, exactly the
    segments :func:`score_table` uses at system level (output present, ≥ 1 reference; who is
    scored against which references: :func:`evalcore.metrics.engine.candidate_plan`).
    ``segments``: candidate -> the seg_ids to keep (e.g. the judged ones); candidates absent
    from it are left out. Every candidate's items go to the metric in one call, segment by
    segment, so vectorised metrics score each segment's outputs as one block."""
    from ..metrics.base import get_metric
    from ..metrics.engine import _candidates, scorable, segment_stats_by_segment

    metric = get_metric(metric_id, tokenize)
    if not metric.meta.needs_text:
        return {}
    metric.prepare(dataset.with_references(list(ref_ids)) if ref_ids else dataset)
    cands_all = list(_candidates(dataset, include_references, ref_ids))
    if segments is not None:
        seg_ids = dataset.seg_ids
        cands_all = [(n, [t if s in segments[n] else None for s, t in zip(seg_ids, texts)], r)
                     for n, texts, r in cands_all if n in segments]
    pos_of = {s: i for i, s in enumerate(dataset.seg_ids)}
    all_c: list[str]
    parts, all_c, all_r, seg_pos = [], [], [], []
    for name, texts, use_refs in cands_all:
        keep, cands, refs = scorable(dataset, texts, use_refs)
        if cands:
            parts.append((name, keep, len(all_c)))
            all_c += cands
            all_r += refs
            seg_pos += [pos_of[s] for s in keep]
    out: dict = {}
    if not all_c:
        return out
    stats = segment_stats_by_segment(metric, all_c, all_r, seg_pos, progress)
    for name, keep, pos in parts:
        out[name] = (keep, stats[pos:pos + len(keep)])
    return out


def system_stats(dataset: Dataset, metric_ids: Sequence[str], include_references: bool = False,
                 progress: Progress = None, ref_ids: Sequence[str] | None = None,
                 criterion: str | None = None, tokenize: str | None = None) -> dict:
    """metric -> {candidate -> (seg_ids, statistics)}; the corpus score of a candidate is
    ``metric.score_from_stats(statistics)`` (= score_table's system level). ``ref_ids``: the
    reference set every candidate is scored against; ``criterion``: keep only the segments
    judged for each candidate under this human criterion (None: every segment; the judged-only
    choice itself is ``Settings.judged_only``, decided by the caller). ``tokenize``: the tokenizer of the
    word-level metrics (None: the metric's default); it is
    part of the metric signature in the cache key, so a page that scores several language pairs
    with their own tokenizers (the Campaign page) and the Systems page share one entry per
    (dataset, metric, tokenizer, reference set, segments). Cached on disk."""
    h = dataset.content_hash()
    segments = judged_segments(dataset, criterion) if criterion else None
    refs_key = tuple(ref_ids) if ref_ids else None
    out = {}
    n = max(len(metric_ids), 1)
    for i, m in enumerate(metric_ids):
        cb = sub_range(progress, i / n, (i + 1) / n, f"corpus statistics: {m}")
        key: tuple = (h, m, metric_signature(m, tokenize=tokenize), include_references)
        if refs_key:
            key += (refs_key, None)
        if criterion:
            # the judged segments' rows of the every-segment table when it is cached (e.g. by the
            # Systems page): each row is one segment's statistics, whatever else is scored
            full = _read_cache(_cache_base("sysstats", key))
            if _stats_dict(full):
                assert segments is not None  # the criterion gave them
                out[m] = _restrict(full, segments)
                continue
            key = key[:4] + (refs_key, criterion)
        out[m] = disk_cached("sysstats", key,  # mypy cannot infer a lambda binding the loop variables
                             lambda m=m, cb=cb: _stats_for(dataset, m, include_references, cb,  # type: ignore[misc]
                                                           ref_ids, segments, tokenize=tokenize))
    return out


def known_system_stats(dataset: Dataset, metric_id: str, tokenize: str | None = None) -> dict | None:
    """The every-segment statistics table of :func:`system_stats` (every system against every
    reference, no human translation) when it is already on disk, else None: nothing is
    computed (the Compare page takes its two systems' rows from it)."""
    value = _read_cache(_cache_base("sysstats", (dataset.content_hash(), metric_id,
                                                 metric_signature(metric_id, tokenize=tokenize),
                                                 False)))
    return value if _stats_dict(value) else None


def _restrict(stats: dict, segments: dict[str, set[str]]) -> dict:
    """The rows of a statistics dict ``{candidate: (seg_ids, array)}`` on each candidate's
    ``segments`` (candidates absent from it, or left with no row, are left out), as
    :func:`_stats_for` computes them with ``segments``."""
    out = {}
    for name, (keep, st) in stats.items():
        if name not in segments:
            continue
        rows = [i for i, s in enumerate(keep) if s in segments[name]]
        if rows:
            out[name] = ([keep[i] for i in rows], st[rows])
    return out


def judged_segments(dataset: Dataset, criterion: str) -> dict[str, set[str]]:
    """system (or judged reference set) -> the seg_ids judged under ``criterion``."""
    j = dataset.judgements
    j = j[j["judgement"] == criterion]
    return {str(s): set(g["seg_id"].astype(str)) for s, g in j.groupby("system", sort=False)}


def tensors(dataset: Dataset, metric_ids: Sequence[str], progress: Progress = None,
            tokenize: str | None = None) -> dict:
    """metric -> :class:`SimTensors` (the engine caches them on disk); ``tokenize``: the
    word-level metrics' tokenizer (None: the metric's default)."""
    from ..metrics.engine import similarity_tensors_many

    def seg_progress(done: int, total: int) -> None:
        if progress:
            progress(done / max(total, 1), f"similarities: segment {done} of {total}")

    out = similarity_tensors_many(dataset, list(metric_ids), progress=seg_progress, tokenize=tokenize)
    if progress:
        progress(1.0, "similarities ready")
    return out


_INDEX_CACHE = bounded_cache("scores.queen_index", 4)  # the last QUEEN indexes, least recently used first


def queen_index(dataset: Dataset, metric_ids: Sequence[str], mode: str = "auto", ties: str = "geq",
                progress: Progress = None, tokenize: str | None = None):
    """A :class:`~evalcore.qarla.queen.QueenIndex` over ``metric_ids`` (kept in a small
    in-process LRU keyed by content hash, metrics with their signatures and options)."""
    from ..qarla import QueenIndex

    key = (dataset.content_hash(), tuple((m, metric_signature(m, tokenize=tokenize)) for m in metric_ids), mode, ties)
    hit = _INDEX_CACHE.pop(key, None)
    if hit is not None:
        _INDEX_CACHE[key] = hit  # now the most recently used
        return hit
    ts = tensors(dataset, metric_ids, stage(progress, 0.0, 0.8), tokenize)
    idx = QueenIndex({m: ts[m] for m in metric_ids}, mode=mode, ties=ties,
                     progress=sub_range(progress, 0.8, 1.0, "QUEEN comparison bits"))
    _INDEX_CACHE[key] = idx  # a full cache drops its least recently used index first
    return idx


def human_segment_scores(dataset: Dataset, criterion: str, normalisation: str = "raw",
                         include_references: bool = True) -> pd.DataFrame:
    """system, seg_id, score, n_ratings: ratings of ``criterion`` normalised per rater and
    averaged per (system, segment) (methods §0, §5.1-5.2; :func:`evalcore.human.scores.human_scores`)."""
    from ..human.scores import human_scores

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = human_scores(dataset, criterion, normalisation, include_references=include_references)
    out["seg_id"] = out["seg_id"].astype(str)
    return out
