"""The pairwise engine: similarity tensors, score tables and the n-gram match breakdown.

* :func:`similarity_tensors` – for one metric, every candidate of every segment (each system
  output **and each reference**) against every reference, single-reference (x(c, r)) and
  leave-one-reference-out (x(c, R − {r})), oriented so that higher = more similar
  (methods §0-0.3; :class:`~evalcore.metrics.base.SimTensors`). One call of
  ``metric.segment_block`` per segment; BLEU/chrF/TER override it with vectorised versions.
  Results are cached on disk (``.npz``) keyed by sha256 of (dataset content hash, metric
  signature, evalcore version).
* :func:`score_table` – tidy (metric, system, seg_id, score) at segment or system level.
  System level is the **corpus** score from summed sufficient statistics (sacreBLEU's
  corpus_score), not a mean of sentence scores.
* :func:`ngram_breakdown` – matched/total n-grams per order, matched token spans per
  reference, brevity penalty and the average precision P of Ananthakrishnan et al. 2007 §5.8.

Metrics that need corpus-wide information (e.g. NIST information weights) override
``prepare(dataset)`` (declared on :class:`~evalcore.metrics.base.Metric`, like every hook the
engine calls); both :func:`similarity_tensors` and :func:`score_table` call it first.
External ("bring your own") metrics (``meta.needs_text`` False) are served from their
``lookup(system, seg_id, ref_id, lp)`` method, see :mod:`evalcore.metrics.byo`.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from .. import cache_version
from ..core.dataset import Dataset
from ..core.export import atomic_write
from ..core.results import Result
from ..core import paths
from .base import Metric, SimTensors, get_metric

Progress = Callable[[int, int], None] | None


# ---- cache location ----------------------------------------------------------------------
def default_cache_dir() -> Path:
    """The cache folder, :func:`evalcore.core.paths.cache_dir` (``$EVALCORE_CACHE`` if set, else
    ``<home>/cache``), created."""
    return paths.cache_dir()


def _resolve_metric(metric, tokenize: str | None = None) -> Metric:
    """A metric object from an id or object; with ``tokenize`` the word-level metrics use that
    sacreBLEU tokenizer (:meth:`Metric.with_tokenize`)."""
    if isinstance(metric, Metric):
        return metric.with_tokenize(tokenize) if tokenize else metric
    return get_metric(metric, tokenize=tokenize)


def _prepare(metric: Metric, dataset: Dataset) -> None:
    metric.prepare(dataset)


def tensors_cache_key(dataset: Dataset, metric: Metric) -> str:
    text = f"{dataset.content_hash()}\n{metric.id}\n{metric.signature()}\nevalcore-{cache_version()}\n"
    return hashlib.sha256(text.encode()).hexdigest()


def _save_npz(path: Path, t: SimTensors) -> None:
    """Cache ``t`` at ``path`` through the one atomic writer (complete or absent). No fsync: a
    cache file torn by a power cut fails to load and is recomputed (:func:`_load_npz`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda fh: np.savez(
        fh, sys_ref=t.sys_ref, ref_ref=t.ref_ref, loo_sys=t.loo_sys, loo_ref=t.loo_ref,
        seg_ids=np.array(t.seg_ids, dtype=str), systems=np.array(t.systems, dtype=str),
        ref_ids=np.array(t.ref_ids, dtype=str), metric_id=np.array(t.metric_id),
        signature=np.array(t.signature)), mode="wb", fsync=False)


def _load_npz(path: Path) -> SimTensors | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            return SimTensors(metric_id=str(z["metric_id"]), seg_ids=[str(s) for s in z["seg_ids"]],
                              systems=[str(s) for s in z["systems"]], ref_ids=[str(s) for s in z["ref_ids"]],
                              sys_ref=z["sys_ref"], ref_ref=z["ref_ref"], loo_sys=z["loo_sys"],
                              loo_ref=z["loo_ref"], signature=str(z["signature"]), meta={"cached": True})
    except Exception:  # unreadable / partial cache file: recompute
        return None


# ---- similarity tensors ------------------------------------------------------------------
def _axes(dataset: Dataset) -> dict:
    """seg_ids / systems / ref_ids and the per-segment layout (present references P, present
    systems Q, candidate and reference texts), computed once per dataset object (Dataset
    recomputes ``systems`` / ``ref_ids`` from its frames on every access)."""
    store = getattr(dataset, "_cache", None)
    key = ("evalcore.engine.axes", dataset.content_hash())
    if isinstance(store, dict) and key in store:
        return store[key]
    seg_ids, systems, ref_ids = dataset.seg_ids, dataset.systems, dataset.ref_ids
    ax = {"seg_ids": seg_ids, "systems": systems, "ref_ids": ref_ids, "layout": None}
    if isinstance(store, dict):
        store[key] = ax
    return ax


def _layout(dataset: Dataset, ax: dict) -> list:
    """Per segment ``(P, Q, cands, refs)``: indices of the present references and systems, the
    candidate texts (system outputs then references) and the reference texts."""
    if ax["layout"] is None:
        sys_t, ref_t = dataset.sys_texts(), dataset.ref_texts()
        systems, ref_ids = ax["systems"], ax["ref_ids"]
        out = []
        for s in range(len(ax["seg_ids"])):
            P = [j for j, r in enumerate(ref_ids) if ref_t[r][s] is not None]
            Q = [a for a, name in enumerate(systems) if sys_t[name][s] is not None]
            refs = [ref_t[ref_ids[j]][s] for j in P]
            cands = [sys_t[systems[a]][s] for a in Q] + refs
            out.append((P, Q, cands, refs))
        ax["layout"] = out
    return ax["layout"]


def _cache_path(dataset: Dataset, metric: Metric, cache_dir) -> Path | None:
    if cache_dir is False or not metric.meta.needs_text:
        return None
    root = Path(cache_dir) if cache_dir not in (None, True) else default_cache_dir()
    return root / "simtensors" / f"{tensors_cache_key(dataset, metric)}.npz"


def _cached(path: Path | None, ax: dict) -> SimTensors | None:
    if path is None or not path.exists():
        return None
    hit = _load_npz(path)
    if hit is not None and hit.seg_ids == ax["seg_ids"] and hit.systems == ax["systems"] \
            and hit.ref_ids == ax["ref_ids"]:
        return hit
    return None


#: segments handed to a metric's ``segment_blocks`` (batched implementations) per call
BATCH_SEGMENTS = 32
# at most this many rows between two progress reports of segment_stats_by_segment (a page's
# liveness check runs in its progress callback: pages.common.alive_progress)
CHUNK_ROWS = 50_000


def similarity_tensors(dataset: Dataset, metric_id, progress: Progress = None,
                       cache_dir: str | os.PathLike | None | bool = None, tokenize: str | None = None) -> SimTensors:
    """All oriented similarities of one metric on ``dataset`` (see :class:`SimTensors`).

    For each segment s with present references R_s (in ``dataset.ref_ids`` order) and present
    system outputs A_s, ``metric.segment_block(A_s + R_s, R_s)`` gives x(c, r) and x(c, R_s − {r})
    for every candidate; the reference rows fill ``ref_ref`` (diagonal NaN) and the diagonal of
    their leave-one-out block fills ``loo_ref`` (methods §0: r_j scored against R_s − {r_j}).
    ``progress(done, total)`` is called about every 1 % of the segments. ``cache_dir=False``
    disables the disk cache; ``None`` uses :func:`default_cache_dir`.
    """
    metric = _resolve_metric(metric_id, tokenize)
    return similarity_tensors_many(dataset, [metric], progress=progress, cache_dir=cache_dir)[metric.id]


def similarity_tensors_many(dataset: Dataset, metric_ids: Sequence, progress: Progress = None,
                            cache_dir: str | os.PathLike | None | bool = None,
                            tokenize: str | None = None, prepare: bool = True) -> dict[str, SimTensors]:
    """:func:`similarity_tensors` of several metrics in one pass over the segments.

    Returns ``{metric id: SimTensors}`` (in the order given). Each metric keeps its own disk
    cache file (same key as :func:`similarity_tensors`); the metrics not found in the cache
    are computed together, segments in the outer loop and metrics in the inner loop, so the
    per-block caches shared between metrics (token ids, n-gram layers, GTM runs, NIST and
    character n-gram overlaps) are used while they are warm. Metrics with a batched
    ``segment_blocks(blocks)`` receive :data:`BATCH_SEGMENTS` segments per call.
    ``progress(done, total)`` counts segments (cache hits count as done). ``tokenize``: a
    sacreBLEU tokenizer for the word-level metrics (part of the signature, so of the cache key).
    ``prepare=False`` skips the metrics' corpus-wide ``prepare`` (the caller prepared them on the
    whole corpus, e.g. :mod:`evalcore.scoring.parallel` computing one block of segments on a worker).
    """
    metrics = [_resolve_metric(m, tokenize) for m in metric_ids]
    ax = _axes(dataset)
    seg_ids, systems, ref_ids = ax["seg_ids"], ax["systems"], ax["ref_ids"]
    S, A, J = len(seg_ids), len(systems), len(ref_ids)
    out: dict[str, SimTensors] = {}
    todo: list[tuple[Metric, Any]] = []  # (metric, its cache path)
    for metric in metrics:
        if metric.id in out or any(m.id == metric.id for m, _ in todo):
            continue
        if not metric.meta.needs_text:
            arrs = [np.full((A, S, J), np.nan), np.full((S, J, J), np.nan), np.full((A, S, J), np.nan),
                    np.full((S, J), np.nan)]
            _external_tensors(metric, dataset, arrs[0], arrs[1], arrs[2], arrs[3], None)
            out[metric.id] = SimTensors(metric_id=metric.id, seg_ids=seg_ids, systems=systems, ref_ids=ref_ids,
                                        sys_ref=arrs[0], ref_ref=arrs[1], loo_sys=arrs[2], loo_ref=arrs[3],
                                        signature=metric.signature(), meta={"cached": False})
            continue
        path = _cache_path(dataset, metric, cache_dir)
        hit = _cached(path, ax)
        if hit is not None:
            out[metric.id] = hit
        else:
            todo.append((metric, path))
    if todo:
        _compute_many(dataset, ax, todo, out, progress, prepare)
    elif progress:
        progress(S, S)
    return {m.id: out[m.id] for m in metrics}


def _compute_many(dataset: Dataset, ax: dict, todo: list, out: dict, progress: Progress,
                  prepare: bool = True) -> None:
    seg_ids, systems, ref_ids = ax["seg_ids"], ax["systems"], ax["ref_ids"]
    S, A, J = len(seg_ids), len(systems), len(ref_ids)
    layout = _layout(dataset, ax)
    arrays = []
    for metric, _ in todo:
        if prepare:
            _prepare(metric, dataset)
        arrays.append((np.full((A, S, J), np.nan), np.full((S, J, J), np.nan), np.full((A, S, J), np.nan),
                       np.full((S, J), np.nan)))
    all_q, all_p = list(range(A)), list(range(J))
    step = max(1, S // 100)
    next_report = step
    reported = 0.0

    def report(done: int) -> None:  # segments done; progress never moves backwards
        nonlocal reported
        if progress and done > reported:
            reported = done
            progress(done, S)

    for b0 in range(0, S, BATCH_SEGMENTS):
        segs = [s for s in range(b0, min(S, b0 + BATCH_SEGMENTS)) if layout[s][0]]
        blocks = [(layout[s][2], layout[s][3]) for s in segs]
        for mi, ((metric, _), (sys_ref, ref_ref, loo_sys, loo_ref)) in enumerate(zip(todo, arrays)):
            if not blocks:
                break
            if progress:  # a metric that reports its rows (a neural model) moves the bar meanwhile
                span = (min(S, b0 + BATCH_SEGMENTS) - b0) / len(todo)
                with metric.reporting(lambda d, of, lo=b0 + mi * span, span=span:
                                      report(int(lo + span * d / max(of, 1)))):
                    res = metric.segment_blocks(blocks)
            else:
                res = metric.segment_blocks(blocks)
            orient = metric.oriented
            for s, (sim, loo) in zip(segs, res):
                P, Q = layout[s][0], layout[s][1]
                sim, loo = np.asarray(orient(sim), dtype=float), np.asarray(orient(loo), dtype=float)
                nq = len(Q)
                full = P == all_p
                if nq:
                    if full and Q == all_q:
                        sys_ref[:, s, :] = sim[:nq]
                        loo_sys[:, s, :] = loo[:nq]
                    else:
                        sys_ref[np.ix_(Q, [s], P)] = sim[:nq, None, :]
                        loo_sys[np.ix_(Q, [s], P)] = loo[:nq, None, :]
                rr = sim[nq:].copy()
                np.fill_diagonal(rr, np.nan)
                if full:
                    ref_ref[s] = rr
                    loo_ref[s] = np.diag(loo[nq:])
                else:
                    ref_ref[np.ix_([s], P, P)] = rr[None]
                    loo_ref[s, P] = np.diag(loo[nq:])
        done = min(S, b0 + BATCH_SEGMENTS)
        if progress:
            while next_report <= done:
                report(next_report)
                next_report += step
            if done == S:
                report(S)
    for (metric, path), (sys_ref, ref_ref, loo_sys, loo_ref) in zip(todo, arrays):
        t = SimTensors(metric_id=metric.id, seg_ids=seg_ids, systems=systems, ref_ids=ref_ids, sys_ref=sys_ref,
                       ref_ref=ref_ref, loo_sys=loo_sys, loo_ref=loo_ref, signature=metric.signature(),
                       meta={"cached": False})
        out[metric.id] = t
        if path is not None:
            try:
                _save_npz(path, t)
            except OSError:
                pass  # a read-only cache never stops a computation


def clear_block_caches() -> None:
    """Forget every in-memory memo of the metrics layer (token ids, n-gram layers, GTM runs,
    NIST and character n-gram overlaps, chunk plans, fitted NIST weights, TER pair edits:
    :func:`evalcore.metrics._caches.clear_caches`): for benchmarks and memory-tight callers."""
    from . import _load_all  # noqa: F401  (every memo registered)
    from ._caches import clear_caches

    clear_caches()


def _external_tensors(metric, dataset, sys_ref, ref_ref, loo_sys, loo_ref, progress) -> None:
    """External metrics: x(c, r) is looked up by (system, seg_id, ref_id). x(c, R − {r}) is only
    known when exactly one other reference remains (then it is that single-reference score)."""
    lp = dataset.lp
    seg_ids, systems, ref_ids = dataset.seg_ids, dataset.systems, dataset.ref_ids
    ref_t = dataset.ref_texts()
    look = metric.lookup
    S = len(seg_ids)
    for s, seg in enumerate(seg_ids):
        P = [j for j, r in enumerate(ref_ids) if ref_t[r][s] is not None]
        for a, name in enumerate(systems):
            for j in P:
                sys_ref[a, s, j] = look(name, seg, ref_ids[j], lp)
        for i in P:
            for j in P:
                if i != j:
                    ref_ref[s, i, j] = look(ref_ids[i], seg, ref_ids[j], lp)
        if len(P) == 2:
            j0, j1 = P
            loo_sys[:, s, j0], loo_sys[:, s, j1] = sys_ref[:, s, j1], sys_ref[:, s, j0]
            loo_ref[s, j0], loo_ref[s, j1] = ref_ref[s, j0, j1], ref_ref[s, j1, j0]
        if progress:
            progress(s + 1, S)
    for arr in (sys_ref, ref_ref, loo_sys, loo_ref):
        arr[...] = metric.oriented(arr)


# ---- score tables ------------------------------------------------------------------------
def scorable(dataset: Dataset, texts: Sequence[str | None], use_refs: Sequence[str]):
    """(seg_ids, candidates, reference lists) of the segments where the candidate text exists
    and at least one of ``use_refs`` does: the segments every score and statistic is over."""
    ref_t = dataset.ref_texts()
    keep, cands, refs = [], [], []
    for s, seg in enumerate(dataset.seg_ids):
        if texts[s] is None:
            continue
        rs = [ref_t[r][s] for r in use_refs if ref_t[r][s] is not None]
        if rs:
            keep.append(seg)
            cands.append(texts[s])
            refs.append(rs)
    return keep, cands, refs


def candidate_plan(dataset: Dataset, ref_ids: Sequence[str] | None = None,
                   include_references: bool = False) -> tuple[list, list[str]]:
    """Who is scored against what: ``([(name, texts aligned with seg_ids, reference ids)], notes)``.

    The rule (Freitag et al. 2021, human translations as systems): with a chosen reference set
    ``ref_ids``, every candidate, MT output or human translation, is scored against exactly
    that set; with ``include_references`` the reference sets *not* chosen become candidates,
    and a human translation that is in the chosen set is left out (it cannot be scored
    against itself). Without ``ref_ids`` every reference set is a reference; with
    ``include_references`` each is then scored against the *other* sets (leave one out), so
    human translations have one reference fewer than the MT outputs: ``notes`` says so,
    and says when a reference set is left out because no other reference set remains.
    """
    chosen = list(ref_ids) if ref_ids else dataset.ref_ids
    unknown = [r for r in chosen if r not in dataset.ref_ids]
    if unknown:
        raise ValueError(f"unknown reference set(s) {', '.join(unknown)}; available: "
                         f"{', '.join(dataset.ref_ids) or 'none'}")
    cands = [(name, texts, chosen) for name, texts in dataset.sys_texts().items()]
    notes: list[str] = []
    if not include_references:
        return cands, notes
    ref_t = dataset.ref_texts()
    if ref_ids:
        left = [r for r in dataset.ref_ids if r in chosen]
        cands += [(r, ref_t[r], chosen) for r in dataset.ref_ids if r not in chosen]
        if left and len(dataset.ref_ids) == 1:
            notes.append(f"human translation {left[0]} left out of the candidates: it is the only reference "
                         "set, so there is no other reference to score it against")
        elif left:
            notes.append(f"human translation(s) {', '.join(left)} left out of the candidates: "
                         f"{'it is' if len(left) == 1 else 'they are'} the chosen reference set "
                         f"({', '.join(chosen)})")
        return cands, notes
    if len(chosen) < 2:
        if chosen:
            notes.append(f"human translation {chosen[0]} left out of the candidates: it is the only "
                         "reference set, so there is no other reference to score it against")
        return cands, notes
    cands += [(r, ref_t[r], [o for o in chosen if o != r]) for r in chosen]
    notes.append(f"no reference set chosen: each human translation ({', '.join(chosen)}) is scored against "
                 f"the other {len(chosen) - 1} reference set(s), the MT outputs against all {len(chosen)}; "
                 "the scores are not comparable (choose one reference set to score every candidate "
                 "against the same references)")
    return cands, notes


def _candidates(dataset: Dataset, include_references: bool, ref_ids: Sequence[str] | None = None):
    """(name, texts aligned with seg_ids, reference ids to score against) for every candidate
    (:func:`candidate_plan` without its notes)."""
    yield from candidate_plan(dataset, ref_ids, include_references)[0]


def scoring_plan(ds: Dataset, ref_ids=None, include_references: bool = False, segments=None):
    """(candidates, notes) of :func:`score_table`: :func:`candidate_plan`, restricted to
    ``segments`` (one collection of seg_ids, or a mapping candidate -> seg_ids). Shared with
    :mod:`evalcore.scoring.parallel`, so distributed runs score exactly the same cells."""
    cands_all, notes = candidate_plan(ds, ref_ids, include_references)
    if segments is not None:
        per = segments if hasattr(segments, "keys") else None
        missing = [name for name, _, _ in cands_all if per is not None and name not in per]
        if missing:
            notes.append(f"left out (no judged segments): {', '.join(missing)}")
        pos = ds.seg_ids
        restricted = []
        for name, texts, use in cands_all:
            if per is not None and name not in per:
                continue
            keep = set(per[name] if per is not None else segments)
            restricted.append((name, [t if seg in keep else None for seg, t in zip(pos, texts)], use))
        cands_all = restricted
    return cands_all, notes


def segment_stats_by_segment(metric: Metric, cands: Sequence[str], refs: Sequence[Sequence[str]],
                             seg_pos: Sequence[int], progress: Progress = None) -> np.ndarray:
    """``metric.segment_stats(cands, refs)`` with the items (of every candidate) passed segment
    by segment, so a metric that groups the outputs of a segment into one block (BLEU, chrF,
    NIST, the word metrics) scores them together; in ten chunks (more when one would exceed
    ``CHUNK_ROWS`` rows) for the progress callback ``progress(done, total)``. The rows do not
    depend on the grouping (identical values).
    The rows are read from or written to the statistics store (:mod:`evalcore.metrics._stats_store`:
    keyed by the items' texts and the metric, so any later pass over the same items, in this
    process or another, reads them back)."""
    from . import _stats_store

    return _stats_store.cached_stats(metric, cands, refs,
                                     lambda: _stats_by_segment(metric, cands, refs, seg_pos, progress),
                                     on_hit=lambda: progress(len(cands), len(cands)) if progress else None)


def _stats_by_segment(metric: Metric, cands: Sequence[str], refs: Sequence[Sequence[str]],
                      seg_pos: Sequence[int], progress: Progress = None) -> np.ndarray:
    """The computation of :func:`segment_stats_by_segment` (no store)."""
    order = np.argsort(np.asarray(seg_pos), kind="stable")
    stats = None
    if len(order):
        metric.expect(cands, refs)  # the ten chunks' items at once: a metric's own progress total
    bounds = np.linspace(0, len(order), max(11, len(order) // CHUNK_ROWS + 2)).astype(int)  # ≤ CHUNK_ROWS a chunk
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b > a:
            sel = order[a:b]
            st = np.asarray(metric.segment_stats([cands[i] for i in sel], [refs[i] for i in sel]), dtype=float)
            if stats is None:
                stats = np.zeros((len(cands), st.shape[1]))
            stats[sel] = st
        if progress:
            progress(int(b), len(order))
    return stats if stats is not None else np.zeros((0, 1))


def score_table(dataset: Dataset, metric_ids: Sequence, level: str = "segment",
                ref_ids: Sequence[str] | None = None, include_references: bool = False,
                progress: Progress = None, segments=None, tokenize: str | None = None) -> pd.DataFrame:
    """The table of :func:`score_result` (its notes and warnings not wanted)."""
    return score_result(dataset, metric_ids, level, ref_ids, include_references, progress, segments, tokenize).table


def score_result(dataset: Dataset, metric_ids: Sequence, level: str = "segment",
                 ref_ids: Sequence[str] | None = None, include_references: bool = False,
                 progress: Progress = None, segments=None, tokenize: str | None = None) -> Result:
    """A :class:`~evalcore.core.results.Result` whose table is the tidy scores ``DataFrame(metric, system, seg_id, score, n_segments, signature)`` on each metric's own scale.

    ``level="segment"``: the multi-reference sentence score x(c, R_s) of every present output
    (R_s = the segment's present references among the candidate's references; segments
    without any reference are skipped; ``n_segments`` = 1). ``level="system"``: one row per
    system with ``seg_id == ""``, the corpus score from the summed per-segment statistics over
    the segments where the system has an output and at least one reference (sacreBLEU's
    corpus_score when every segment has the same references); ``n_segments`` = the segments
    summed. Who is scored against which references: :func:`candidate_plan` (``ref_ids``,
    ``include_references``); its notes, and those about ``segments``, are the result's
    ``notes``; the segments the alignment metrics refuse are its ``warnings``
    (:func:`long_segment_warnings`). ``segments``: restrict the scored segments, either one collection of
    seg_ids for every candidate or a mapping candidate -> seg_ids (e.g. the segments the humans
    judged for that candidate; a candidate absent from the mapping is left out and noted).
    External metrics return their given scores: the rows without ``ref_id``; at system level
    the given system-level row, else the mean of the segment rows. ``signature``: the metric's
    :meth:`~Metric.output_signature` (sacreBLEU's own string for BLEU/chrF/TER), ``nrefs`` = the
    references per scored segment over all rows of the metric (``var`` when it differs).
    ``tokenize``: a sacreBLEU tokenizer for the word-level metrics.
    """
    if level not in ("segment", "system"):
        raise ValueError(f"level must be 'segment' or 'system', not {level!r}")
    ds = dataset
    cands_all, notes = scoring_plan(ds, ref_ids, include_references, segments)
    metrics = [_resolve_metric(m, tokenize) for m in metric_ids]
    prep_ds = ds.with_references(list(ref_ids)) if ref_ids else ds  # corpus-wide weights: chosen references
    rows: list[tuple] = []
    signatures: dict[str, str] = {}
    total, done = len(metrics) * len(cands_all), 0
    for metric in metrics:
        if metric.meta.needs_text:
            _prepare(metric, prep_ds)
        nrefs: set[int] = set()
        batched = None
        if metric.meta.needs_text and (level == "system" or metric.serves_segments):
            # every candidate's statistics in one pass, a segment's outputs together
            items = [scorable(ds, texts, use_refs) for _, texts, use_refs in cands_all]
            pos_of = {sg: i for i, sg in enumerate(ds.seg_ids)}
            all_c = [c for _, cs, _ in items for c in cs]
            all_r = [r for _, _, rs in items for r in rs]
            all_pos = [pos_of[sg] for keep, _, _ in items for sg in keep]
            stats_all = segment_stats_by_segment(metric, all_c, all_r, all_pos) if all_c else None
            bounds_c = np.cumsum([0] + [len(cs) for _, cs, _ in items])
            batched = {name: (items[k], stats_all[bounds_c[k]:bounds_c[k + 1]] if stats_all is not None else None)
                       for k, (name, _, _) in enumerate(cands_all)}
        for name, texts, use_refs in cands_all:
            if not metric.meta.needs_text:
                ext = _external_rows(metric, ds, name, level)
                rows += [r + (1 if level == "segment" else None,) for r in ext]
            else:
                if batched is not None:
                    (keep, cands, refs), st = batched[name]
                else:
                    keep, cands, refs = scorable(ds, texts, use_refs)
                    st = None
                nrefs.update(len(r) for r in refs)
                if level == "segment":
                    if st is not None and cands:
                        vals = metric.sentence_scores_of(st, refs)
                    else:
                        vals = metric.sentence_scores(cands, refs) if cands else np.zeros(0)
                    rows += [(metric.id, name, seg, float(v), 1) for seg, v in zip(keep, vals)]
                elif cands:
                    assert st is not None  # the system level reads the batched statistics (above)
                    rows.append((metric.id, name, "", float(metric.score_from_stats(st)), len(keep)))
            done += 1
            if progress:
                progress(done, total)
        n = (next(iter(nrefs)) if len(nrefs) == 1 else "var") if nrefs else None
        signatures[metric.id] = metric.output_signature(n, level)
    table = pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score", "n_segments"]).astype(
        {"metric": str, "system": str, "seg_id": str, "score": float, "n_segments": "Int64"})
    table["signature"] = table["metric"].map(signatures).astype(str) if len(table) else pd.Series(dtype=str)
    return Result(table, notes=notes, warnings=tuple(long_segment_warnings(ds, metrics)))


def long_segment_report(dataset: Dataset, metric_ids: Sequence) -> dict[tuple[str, ...], dict[str, list[str]]]:
    """The segments the quadratic metrics (``Metric.quadratic``: TER, WER, ROUGE-L/W/S/SU,
    GTM-2/3, METEOR) refuse because
    a text has more than ``MAX_ALIGN_TOKENS`` tokens (their alignment would take minutes): ``{metric ids:
    {seg_id: ["name: n tokens", ...]}}``, metrics with the same refusals grouped. A text of at
    most ``MAX_ALIGN_TOKENS`` characters cannot have more tokens, so only longer ones are
    tokenised."""
    from .base import MAX_ALIGN_TOKENS

    metrics = [m for m in (_resolve_metric(x) for x in metric_ids)
               if m.meta.needs_text and m.quadratic]
    if not metrics:
        return {}
    columns = list(dataset.sys_texts().items()) + list(dataset.ref_texts().items())
    candidates = [(name, seg, t) for name, col in columns for seg, t in zip(dataset.seg_ids, col)
                  if t is not None and len(t) > MAX_ALIGN_TOKENS]
    grouped: dict[tuple, dict[str, list[str]]] = {}
    for metric in metrics:
        tok = metric.tokens
        long: dict[str, list[str]] = {}
        for name, seg, t in candidates:
            n = len(tok(t))
            if n > MAX_ALIGN_TOKENS:
                long.setdefault(seg, []).append(f"{name}: {n} tokens")
        if long:
            key = next((k for k, v in grouped.items() if v == long), None)
            if key is None:
                grouped[(metric.id,)] = long
            else:
                grouped[key + (metric.id,)] = grouped.pop(key)
    return grouped


def long_segment_warnings(dataset: Dataset, metric_ids: Sequence, max_listed: int = 10) -> list[str]:
    """One sentence per group of :func:`long_segment_report`: which metrics refused which
    segments and why (printed by the CLI, shown on the pages, the ``warnings`` of
    :func:`score_result`)."""
    from .base import MAX_ALIGN_TOKENS

    out = []
    for ids, long in long_segment_report(dataset, metric_ids).items():
        items = [f"segment {seg} ({'; '.join(v)})" for seg, v in long.items()]
        more = f" and {len(items) - max_listed} more" if len(items) > max_listed else ""
        out.append(f"{', '.join(ids)}: {len(long)} segment(s) refused, a text is longer than "
                   f"{MAX_ALIGN_TOKENS} tokens (the alignment would take minutes); their scores are NaN "
                   f"and they are left out of corpus scores: {', '.join(items[:max_listed])}{more}")
    return out


def _external_rows(metric, ds: Dataset, name: str, level: str) -> list:
    lp = ds.lp
    if level == "system":
        v = metric.lookup(name, "", "", lp)
        if np.isnan(v):
            seg = [metric.lookup(name, s, "", lp) for s in ds.seg_ids]
            seg = [x for x in seg if not np.isnan(x)]
            v = float(np.mean(seg)) if seg else float("nan")
        return [] if np.isnan(v) else [(metric.id, name, "", float(v))]
    out = []
    for s in ds.seg_ids:
        v = metric.lookup(name, s, "", lp)
        if not np.isnan(v):
            out.append((metric.id, name, s, float(v)))
    return out


# ---- n-gram breakdown (divergence browser) ---------------------------------------------------
def _spans(positions: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted token positions -> maximal half-open runs [start, end)."""
    out: list[list[int]] = []
    for p in sorted(set(positions)):
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return [(a, b) for a, b in out]


def ngram_breakdown(cand: str, refs: Sequence[str], tokenize: str = "13a", max_order: int = 4,
                    lowercase: bool = False) -> dict:
    """Where a candidate's n-grams match its references (Papineni et al. 2002 §2.1; Ananthakrishnan et al. 2007 §5).

    Returns a dict with

    * ``cand_tokens``, ``ref_tokens`` – the token lists (sacreBLEU tokenizer ``tokenize``);
    * ``orders`` – per order n: ``matched`` (clipped by the maximum count over the references,
      as BLEU does), ``total`` (candidate n-grams) and ``precision`` p_n = matched/total
      (0 when total is 0);
    * ``per_reference`` – per reference: ``matched_spans`` per order (half-open [start, end)
      candidate token spans of the n-gram occurrences that reference matches, clipped by its
      count, left to right) and ``token_spans``: candidate tokens covered by any of them;
    * ``hyp_len``, ``ref_len`` (closest reference length, shorter on ties) and
      ``brevity_penalty`` exp(1 − r/c) when c < r (0 for an empty candidate);
    * ``average_precision`` – P of Ananthakrishnan et al. 2007 §5.8: the arithmetic mean of p_1..p_4
      (of p_1..p_max_order);
    * ``bleu`` – sacreBLEU sentence BLEU (0-100) of the candidate, for reference.
    """
    from .bleu import BLEU, closest_len
    from .tokenize import tokenize as tok

    ct = list(tok(cand, tokenize, lowercase))
    rts = [list(tok(r, tokenize, lowercase)) for r in refs]

    def grams(ts, n):
        return [tuple(ts[i:i + n]) for i in range(len(ts) - n + 1)]

    orders = []
    per_ref: list[dict[str, Any]] = [{"ref_index": i, "matched_spans": {}, "token_spans": []}
                                     for i in range(len(refs))]
    covered: list[set[int]] = [set() for _ in refs]
    for n in range(1, max_order + 1):
        cg = grams(ct, n)
        ccount = Counter(cg)
        rcounts = [Counter(grams(rt, n)) for rt in rts]
        maxref: Counter = Counter()
        for rc in rcounts:
            for g, k in rc.items():
                maxref[g] = max(maxref[g], k)
        matched = sum(min(k, maxref[g]) for g, k in ccount.items() if g in maxref)
        total = len(cg)
        orders.append({"n": n, "matched": int(matched), "total": int(total),
                       "precision": matched / total if total else 0.0})
        for i, rc in enumerate(rcounts):
            left = dict(rc)
            spans = []
            for p, g in enumerate(cg):
                if left.get(g, 0) > 0:
                    left[g] -= 1
                    spans.append((p, p + n))
                    covered[i].update(range(p, p + n))
            per_ref[i]["matched_spans"][n] = spans
    for i in range(len(refs)):
        per_ref[i]["token_spans"] = _spans(covered[i])
    hyp_len = len(ct)
    ref_len = closest_len(hyp_len, [len(r) for r in rts]) if rts else 0
    if hyp_len < ref_len:
        bp = float(np.exp(1 - ref_len / hyp_len)) if hyp_len > 0 else 0.0
    else:
        bp = 1.0
    precisions = [o["precision"] for o in orders]
    bleu = BLEU(tokenize=tokenize, lowercase=lowercase, max_ngram_order=max_order)
    return {
        "cand_tokens": ct, "ref_tokens": rts, "orders": orders, "per_reference": per_ref,
        "hyp_len": hyp_len, "ref_len": ref_len, "brevity_penalty": bp,
        "average_precision": float(np.mean(precisions)) if precisions else 0.0,
        "bleu": bleu.sentence_score(cand, list(refs)) if refs else float("nan"),
    }
