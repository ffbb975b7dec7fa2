"""Both levels from one pass, one metric at a time: the batch path of ``score --level both``.

:func:`iter_score_levels` yields ``(metric, {level: table})`` for each metric in turn, where
each table is exactly what :func:`evalcore.metrics.engine.score_table` returns for that metric
and level (same rows, order, values, dtypes and signatures). Per metric, every candidate's
per-segment sufficient statistics are computed **once** (a segment's outputs together; the
metrics of one family chunk by chunk, so blocks they share are computed once:
:func:`family_stats`); the system score is the corpus score
of the summed statistics (Papineni et al. 2002; methods §0) and the segment scores are the
metric's ``sentence_scores_of`` of the same rows. Scoring both levels therefore costs one
statistics pass instead of two, and a caller can write each metric's rows and drop them before
the next metric is computed (the CLI streams its output this way, so a 100k-segment campaign
never holds one frame of every metric's rows).

Metrics without ``serves_segments`` and bring-your-own scores are served by
:func:`~evalcore.metrics.engine.score_table`, level by level.
"""
from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np
import pandas as pd

from . import engine

Progress = Callable[[int, int], None] | None

LEVELS = ("system", "segment")
COLUMNS = ["metric", "system", "seg_id", "score", "n_segments", "signature"]


def levels_of(level: str) -> tuple[str, ...]:
    """``"both"`` -> ("system", "segment"); a single level -> that level."""
    if level == "both":
        return LEVELS
    if level not in LEVELS:
        raise ValueError(f"level must be 'segment', 'system' or 'both', not {level!r}")
    return (level,)


def frame(metric_id: str, systems, seg_ids, scores, n_segments, signature: str) -> pd.DataFrame:
    """One metric's rows as the engine's tidy table (columns and dtypes of ``score_table``).
    Each column is built in its final dtype: the text columns straight from their values (the
    metric and signature columns by repeating one string), not through a table of Python
    objects converted afterwards (measured at 1M rows: 0.20 s instead of 0.52 s, and a peak of
    +178 MB instead of +455 MB)."""
    n = len(scores)
    return pd.DataFrame({
        "metric": _repeated(metric_id, n),
        "system": pd.array(np.asarray(systems, dtype=object), dtype="str"),
        "seg_id": pd.array(np.asarray(seg_ids, dtype=object), dtype="str"),
        "score": np.asarray(scores, dtype=float),
        "n_segments": pd.array(np.asarray(n_segments, dtype=np.int64), dtype="Int64"),
        "signature": _repeated(signature, n),
    })


def _repeated(value: str, n: int):
    """``n`` copies of ``value`` as a ``str`` array (what ``astype(str)`` gives)."""
    return pd.array([value], dtype="str").take(np.zeros(n, dtype=np.intp))


def level_frames(metric, items: Sequence[tuple[str, list, list, list]], stats: Sequence[np.ndarray | None],
                 levels: Sequence[str], seg_scores: Sequence[np.ndarray | None] | None = None) -> dict:
    """``{level: table}`` of one metric from each candidate's statistics.

    ``items``: per candidate ``(name, kept seg_ids, candidate texts, reference lists)``;
    ``stats``: per candidate its statistics rows (None when it has no scorable segment);
    ``seg_scores``: per candidate its sentence scores when already computed (else
    ``metric.sentence_scores_of`` of the statistics)."""
    refs_all = [r for _, _, _, refs in items for r in refs]
    nrefs = {len(r) for r in refs_all}
    n = (next(iter(nrefs)) if len(nrefs) == 1 else "var") if nrefs else None
    out = {}
    if "system" in levels:
        names, vals, counts = [], [], []
        for (name, keep, cands, _), st in zip(items, stats):
            if cands:
                names.append(name)
                vals.append(float(metric.score_from_stats(st)))
                counts.append(len(keep))
        out["system"] = frame(metric.id, names, [""] * len(names), vals, counts,
                              metric.output_signature(n, "system"))
    if "segment" in levels:
        name_parts: list[np.ndarray] = []
        seg_parts: list[np.ndarray] = []
        val_parts: list[np.ndarray] = []
        for k, ((name, keep, cands, refs), st) in enumerate(zip(items, stats)):
            if not cands:
                continue
            v = seg_scores[k] if seg_scores is not None else metric.sentence_scores_of(st, refs)
            name_parts.append(np.full(len(keep), name, dtype=object))
            seg_parts.append(np.asarray(keep, dtype=object))
            val_parts.append(np.asarray(v, dtype=float))
        cat = (lambda xs, dt: np.concatenate(xs) if xs else np.zeros(0, dtype=dt))
        sv = cat(val_parts, float)
        out["segment"] = frame(metric.id, cat(name_parts, object), cat(seg_parts, object), sv,
                               np.ones(len(sv), np.int64),
                               metric.output_signature(n, "segment"))
    return out


def plan_items(ds, cands_all) -> tuple[list, list[int]]:
    """Per candidate ``(name, kept seg_ids, cands, refs)`` (:func:`engine.scorable`) and the
    segment position of every item, candidates concatenated."""
    pos_of = {sg: i for i, sg in enumerate(ds.seg_ids)}
    items = []
    for name, texts, use_refs in cands_all:
        keep, c, r = engine.scorable(ds, texts, use_refs)
        items.append((name, keep, c, r))
    positions = [pos_of[sg] for _, keep, _, _ in items for sg in keep]
    return items, positions


def split_rows(items, rows: np.ndarray | None) -> list:
    """Rows of all candidates concatenated -> one slice per candidate (None when empty)."""
    bounds = np.cumsum([0] + [len(c) for _, _, c, _ in items])
    return [rows[bounds[k]:bounds[k + 1]] if rows is not None and bounds[k + 1] > bounds[k] else None
            for k in range(len(items))]


#: segments per chunk of :func:`family_stats` (the BLEU / chrF block memos hold 64 blocks)
CHUNK_SEGMENTS = 32


def family_stats(metrics: Sequence, cands: Sequence[str], refs: Sequence[Sequence[str]],
                 positions: Sequence[int], chunk_segments: int = CHUNK_SEGMENTS) -> list[np.ndarray | None]:
    """``metric.segment_stats(cands, refs)`` of several metrics at once, in chunks of
    ``chunk_segments`` segments (items sorted by segment position, a segment's outputs together),
    every metric in turn on the same chunk: the blocks the metrics of one family share (token ids,
    BLEU's n-gram layers, chrF's character statistics, the character n-gram overlaps of the 18
    BEER features, GTM runs) are computed once per chunk instead of once per metric
    (:func:`evalcore.metrics._pass.shared_blocks`). The rows do not depend on the grouping, so
    each metric's table is identical to its own ``segment_stats`` pass. Tables already in the
    statistics store (:mod:`evalcore.metrics._stats_store`) are read from it; the others are
    computed together and stored."""
    from . import _stats_store

    n = len(cands)
    if not n:
        return [None] * len(metrics)
    if not _stats_store.enabled():
        return _family_stats(metrics, cands, refs, positions, chunk_segments)
    digest = None
    out: list[np.ndarray | None] = [None] * len(metrics)
    if any(_stats_store.storable(m) for m in metrics):
        digest = _stats_store.texts_digest(cands, refs)
        out = [_stats_store.get(m, digest, n) for m in metrics]
    todo = [k for k, st in enumerate(out) if st is None]
    if todo:
        for k, st in zip(todo, _family_stats([metrics[k] for k in todo], cands, refs, positions, chunk_segments)):
            out[k] = st
            if digest is not None and st is not None:
                _stats_store.put(metrics[k], digest, st)
    return out


def _family_stats(metrics: Sequence, cands: Sequence[str], refs: Sequence[Sequence[str]],
                  positions: Sequence[int], chunk_segments: int = CHUNK_SEGMENTS) -> list[np.ndarray | None]:
    """The computation of :func:`family_stats` (no store)."""
    from . import _pass

    n = len(cands)
    for m in metrics:  # every chunk's items at once: a metric's own progress total
        m.expect(cands, refs)
    pos = np.asarray(positions, dtype=np.int64)
    order = np.argsort(pos, kind="stable")
    sp = pos[order]
    # chunk boundaries on segment boundaries: every chunk_segments distinct positions
    starts = np.flatnonzero(np.r_[True, sp[1:] != sp[:-1]])
    cuts = list(starts[::max(1, int(chunk_segments))]) + [n]
    out: list[np.ndarray | None] = [None] * len(metrics)
    with _pass.shared_blocks():
        for a, b in zip(cuts[:-1], cuts[1:]):
            sel = order[a:b]
            c = [cands[i] for i in sel]
            r = [refs[i] for i in sel]
            for k, st in enumerate(_chunk_stats(metrics, c, r)):
                st = np.asarray(st, dtype=float)
                acc = out[k]
                if acc is None:
                    acc = out[k] = np.zeros((n, st.shape[1]))
                acc[sel] = st
    return out


def _chunk_stats(metrics: Sequence, cands, refs) -> list:
    """Each metric's ``segment_stats`` of one chunk; a family whose class computes all its
    members at once (``family_segment_stats``, e.g. the 18 BEER character n-gram features)
    does so."""
    cls = type(metrics[0])
    if len(metrics) > 1 and all(type(m) is cls for m in metrics):
        return cls.family_segment_stats(metrics, cands, refs)
    return [m.segment_stats(cands, refs) for m in metrics]


def families(metrics: Sequence) -> list[list[int]]:
    """Indices of the streamable metrics grouped by family (then tokenizer and case), in order
    of first appearance: the groups :func:`family_stats` computes together."""
    groups: dict[tuple, list[int]] = {}
    for i, m in enumerate(metrics):
        if streamable(m):
            key = (m.meta.family, m.tokenize, m.lowercase)
            groups.setdefault(key, []).append(i)
    return list(groups.values())


def streamable(metric) -> bool:
    """Whether one statistics pass serves both levels (text metrics with ``sentence_scores_of``)."""
    return metric.meta.needs_text and metric.serves_segments


def iter_score_levels(dataset, metric_ids: Sequence, level: str = "both", ref_ids: Sequence[str] | None = None,
                      include_references: bool = False, progress: Progress = None, segments=None,
                      tokenize: str | None = None) -> Iterator[tuple[object, dict]]:
    """Yield ``(metric, {level: table})`` one metric at a time (see the module docstring);
    ``level`` is "system", "segment" or "both". Arguments as
    :func:`evalcore.metrics.engine.score_table` (whose notes and long-segment warnings are
    :func:`plan_notes`). ``progress(done, total)`` counts metrics."""
    levels = levels_of(level)
    ds = dataset
    metrics = [engine._resolve_metric(m, tokenize) for m in metric_ids]
    cands_all, _ = engine.scoring_plan(ds, ref_ids, include_references, segments)
    prep_ds = ds.with_references(list(ref_ids)) if ref_ids else ds
    group_of = {i: g for g in families(metrics) for i in g}
    items: list | None = None  # the plan, made when the first family is met
    positions: list[int] | None = None
    pending: dict[int, np.ndarray | None] = {}  # statistics computed with the family, not yet yielded
    for i, metric in enumerate(metrics):
        if i in group_of:
            if i not in pending:
                if items is None:
                    items, positions = plan_items(ds, cands_all)
                    all_c = [c for _, _, cs, _ in items for c in cs]
                    all_r = [r for _, _, _, rs in items for r in rs]
                group = [j for j in group_of[i] if j >= i]
                for j in group:
                    engine._prepare(metrics[j], prep_ds)
                assert positions is not None  # planned above
                pending.update(zip(group, family_stats([metrics[j] for j in group], all_c, all_r, positions)))
            assert items is not None  # planned for the first member of the family
            out = level_frames(metric, items, split_rows(items, pending.pop(i)), levels)
        else:
            out = {lv: engine.score_table(ds, [metric], level=lv, ref_ids=ref_ids,
                                          include_references=include_references, segments=segments)[COLUMNS]
                   for lv in levels}
        yield metric, out
        if progress:
            progress(i + 1, len(metrics))


def plan_notes(dataset, metric_ids: Sequence, ref_ids=None, include_references: bool = False, segments=None,
               tokenize: str | None = None) -> tuple[list[str], list[str]]:
    """(notes, warnings) of :func:`engine.score_result`: who is scored against
    which references and which segments, and the long segments the alignment metrics refuse."""
    _, notes = engine.scoring_plan(dataset, ref_ids, include_references, segments)
    metrics = [engine._resolve_metric(m, tokenize) for m in metric_ids]
    return notes, engine.long_segment_warnings(dataset, metrics)
