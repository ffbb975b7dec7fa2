"""Reference quality: human translations scored against each other, and the "Detect MT" check.

Callison-Burch (2009), §5.1 and Figure 4: each professional translator is scored against the
*other* translators (leave-one-out: BLEU of each of 11 LDC translators against the other 10),
which gives the level a human translation reaches on the metric's scale; an MT system is put
on the same scale by scoring it against the same reference sets. The seed also filtered
references that had been copied from online MT ("Detect MT"); :func:`detect_mt` flags a
reference that is much closer to one MT output than to the other references.

Every score uses only the segments where *every* reference set has a text, so that all
candidates are scored against the same reference sets; how many segments were left out is
reported in the result's ``notes``. Any text metric can be used (error rates on their own scale;
the "Detect MT" gaps use the similarity orientation, higher = closer).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..metrics.base import Metric, get_metric, metric_signature, valid_stats
from ..core.results import Detailed
from ..scoring.settings import DEFAULTS, Settings

Progress = Callable[[float, str], None] | None


def _text_metric(metric_id: str, ds, why: str = "", settings: Settings = DEFAULTS):
    """The metric ``metric_id`` (word-level metrics with tokenizer ``settings.tokenizer``, None:
    their default) prepared on ``ds`` (corpus-wide weights such as NIST's); a metric without a
    text scorer is refused."""
    from ..metrics.engine import _prepare

    metric = get_metric(metric_id, settings.tokenizer)
    if not metric.meta.needs_text:
        raise ValueError(f"metric {metric_id!r} has no text scorer{why}")
    _prepare(metric, ds)
    return metric

def loo_signature(metric_id: str, n_refs: int, settings: Settings = DEFAULTS) -> str:
    """The signature of a leave-one-out corpus score: the metric's own (sacreBLEU's for
    BLEU/chrF/TER, tokenizer ``settings.tokenizer``) with ``nrefs`` = the ``n_refs − 1``
    references scored against, plus ``leave-one-out:n_refs`` before ``version``."""
    return metric_signature(metric_id, n_refs - 1, "system", settings.tokenizer).with_fields(
        **{"leave-one-out": n_refs})


def common_segments(ds: Dataset) -> tuple[list[int], str]:
    """Indices (into ``ds.seg_ids``) of the segments where every reference set has a
    non-empty text, and a sentence saying how many were left out."""
    refs = ds.ref_texts()
    keep = [s for s in range(ds.n_segments)
            if all(refs[r][s] is not None and str(refs[r][s]).strip() for r in ds.ref_ids)]
    left = ds.n_segments - len(keep)
    note = (f"{len(keep)} of {ds.n_segments} segments have a text in all {len(ds.ref_ids)} reference sets "
            f"({', '.join(ds.ref_ids)}) and are used" + (f"; {left} left out" if left else ""))
    return keep, note


def _check(ds: Dataset) -> None:
    if len(ds.ref_ids) < 2:
        raise ValueError(f"reference quality needs at least two reference sets (human translations); "
                         f"this dataset has {len(ds.ref_ids)}: {', '.join(ds.ref_ids) or 'none'}")


def _stats(metric, ds: Dataset, keep: list[int]) -> dict:
    """(candidate, held_out) -> (kept segment positions, per-segment statistics) for every
    human translation (held_out = itself) and every MT system (one entry per held-out set)."""
    from ..metrics.engine import segment_stats_by_segment

    refs, syss = ds.ref_texts(), ds.sys_texts()
    out = {}
    for r in ds.ref_ids:
        others = [o for o in ds.ref_ids if o != r]
        ref_lists = [[refs[o][s] for o in others] for s in keep]
        # the held-out translation and every MT output against the same R − {r}, passed segment by
        # segment so a vectorised metric scores a segment's candidates as one block (its references'
        # n-grams once, not once per candidate): the same statistics as one call per candidate
        # (every text here is present: ``keep`` holds the segments every reference set covers)
        parts: list[tuple[str, np.ndarray, list[str]]] = [
            (r, np.arange(len(keep)), cast("list[str]", [refs[r][s] for s in keep]))]
        for name, texts in syss.items():
            have = [i for i, s in enumerate(keep) if texts[s] is not None]
            if have:
                parts.append((name, np.asarray(have), cast("list[str]", [texts[keep[i]] for i in have])))
        cands = [c for _, _, cs in parts for c in cs]
        seg_pos = np.concatenate([pos for _, pos, _ in parts])
        stats = segment_stats_by_segment(metric, cands, [ref_lists[i] for i in seg_pos],
                                         cast("Sequence[int]", seg_pos))
        start = 0
        for name, pos, _ in parts:
            out[(name, r)] = (pos, stats[start:start + len(pos)])
            start += len(pos)
    return out


def leave_one_out(ds: Dataset, metric_ids: Sequence[str] = ("bleu",), n_boot: int = 0, seed: int = 1,
                  progress: Progress = None, settings: Settings = DEFAULTS) -> Detailed:
    """Leave-one-out reference quality (Callison-Burch 2009, §5.1, Figure 4; methods §5.11).

    For every reference set r: r scored as a candidate against R − {r}, and every MT system
    scored against the same R − {r} (corpus level, on the segments every reference set covers).

    Returns a :class:`~evalcore.core.results.Detailed` (its ``notes``: how many segments are used, its
    ``segments``: their ids):

    * ``detail`` (the scores): metric, held_out, candidate, kind ("human"/"mt"), score, n_segments;
    * ``table`` (the summary): metric, candidate, kind, mean, sd, min, max (over the held-out sets: one
      value for a human translation, |R| values for an MT system), n_held_out, and with
      ``n_boot > 0`` for each human translation a percentile 95 % CI (ci_lo, ci_hi) from a
      bootstrap over segments (the same resampled segments for every translation); an MT
      system's spread is its sd / min / max over the held-out sets (CI columns empty).
    """
    _check(ds)
    keep, note = common_segments(ds)
    if not keep:
        raise ValueError("no segment has a text in every reference set; " + note)
    rows, summ = [], []
    from ..stats.bootstrap import percentile_ci, resample_indices  # stats/ loads scipy: only when called

    boots = resample_indices(len(keep), n_boot, seed) if n_boot else None
    for mi, mid in enumerate(metric_ids):
        metric = _text_metric(mid, ds, " (bring-your-own scores cannot score references)", settings)
        st = _stats(metric, ds, keep)
        for (cand, held), (pos, stats) in st.items():
            rows.append({"metric": mid, "held_out": held, "candidate": cand,
                         "kind": "human" if cand in ds.ref_ids else "mt",
                         "score": metric.score_from_stats(valid_stats(stats)), "n_segments": len(pos)})
        frame = pd.DataFrame([r for r in rows if r["metric"] == mid])
        for cand, sub in frame.groupby("candidate", sort=False):
            v = sub["score"].to_numpy()
            rec = {"metric": mid, "candidate": cand, "kind": sub["kind"].iloc[0], "mean": float(np.mean(v)),
                   "sd": float(np.std(v, ddof=1)) if len(v) > 1 else float("nan"),
                   "min": float(v.min()), "max": float(v.max()), "n_held_out": len(v)}
            if boots is not None and rec["kind"] == "human":
                parts = []
                for held in sub["held_out"]:
                    pos, stats = st[(cand, held)]
                    where = np.full(len(keep), -1)  # row of each kept segment in this candidate's stats
                    where[pos] = np.arange(len(pos))
                    parts.append((where, stats))
                samples = np.empty(n_boot)
                for b, idx in enumerate(boots):
                    vals = []
                    for where, stats in parts:
                        rows_b = where[idx]
                        rows_b = rows_b[rows_b >= 0]
                        vals.append(metric.score_from_stats(valid_stats(stats[rows_b])) if len(rows_b) else np.nan)
                    samples[b] = np.mean(vals)
                rec["ci_lo"], rec["ci_hi"] = percentile_ci(samples, 0.05)
            elif boots is not None:
                rec["ci_lo"] = rec["ci_hi"] = float("nan")  # MT: the spread is over the held-out sets
            summ.append(rec)
        if progress:
            progress((mi + 1) / len(metric_ids), f"reference quality: {mid}")
    scores = pd.DataFrame(rows, columns=["metric", "held_out", "candidate", "kind", "score", "n_segments"])
    return combine_loo([Detailed(pd.DataFrame(summ), detail=scores)], note, [ds.seg_ids[s] for s in keep])


def combine_loo(parts: Sequence[Detailed], note: str | None = None,
                segments: Sequence[str] | None = None) -> Detailed:
    """The :func:`leave_one_out` result of several metrics from the results of each (every metric's
    rows depend on it alone, the bootstrap draws on the seed: equal to one call with all of them);
    the page draws the figure of one metric before scoring the others. ``note`` and ``segments``:
    those of the first part when None."""
    scores = pd.concat([p.detail for p in parts], ignore_index=True)
    summary = pd.concat([p.table for p in parts], ignore_index=True)
    order = {"human": 0, "mt": 1}
    summary = summary.sort_values(["metric", "kind", "mean"], key=lambda c: c.map(order) if c.name == "kind" else c,
                                  ascending=[True, True, False], kind="stable").reset_index(drop=True)
    notes = [note] if note is not None else (list(parts[0].notes) if parts else [])
    segments = segments if segments is not None else (parts[0].segments if parts else ())
    return Detailed(summary, detail=scores, notes=tuple(n for n in notes if n), segments=tuple(segments))


def scores_and_stats(metric, cands: Sequence[str], refs: Sequence[Sequence[str]]):
    """(sentence scores, per-item statistics) from one statistics pass when the metric reads its
    sentence scores off its statistics (``sentence_scores_of``; then ``corpus_score`` =
    ``score_from_stats`` of them, and the rows of a subset are the subset's statistics); else
    (``sentence_scores``, None)."""
    if metric.serves_segments and type(metric).corpus_score is Metric.corpus_score:
        st = np.asarray(metric.segment_stats(cands, refs), dtype=float)
        return np.asarray(metric.sentence_scores_of(st, refs), dtype=float), st
    return np.asarray(metric.sentence_scores(cands, refs), dtype=float), None


def detect_mt(ds: Dataset, metric_id: str = "bleu", gap: float = 20.0, share: float = 0.3,
              progress: Progress = None, settings: Settings = DEFAULTS) -> Detailed:
    """Flag references that look machine-translated (the "Detect MT" step of Callison-Burch
    2009, §5.1, done automatically).

    Per segment and reference r, with single-reference sentence scores on both sides (so that
    they are on the same footing): ``to_refs`` = max over the other references o of x(r, {o}),
    ``to_mt`` = max over systems m of x(r, {m}), ``gap = to_mt − to_refs`` in the similarity
    orientation (error rates negated, so a larger gap always means "closer to an MT output
    than to any other human translation"); the segment is flagged when ``gap >= gap``. With
    many systems and few references the maximum favours the MT side, so short segments that
    several translators render identically are flagged easily: read the evidence.

    Overall per reference set: the same comparison at corpus level (r against each system's
    output vs r against the closest other reference set, on the segments the system covers;
    the system with the largest gap is reported), the share of r's segments flagged, and
    ``flagged`` when the share reaches ``share`` (the seed excluded translators flagged 30 %
    of the time or more) or the corpus-level gap reaches ``gap``.

    Returns a :class:`~evalcore.core.results.Detailed`: ``table`` the overall rows per reference set,
    ``detail`` the segments (seg_id, ref_id, closest_system, to_mt, to_refs, gap, flagged and the
    texts: reference, closest MT output, for side-by-side display), ``notes`` how many segments
    are used, ``method`` the settings (metric and its signature, thresholds).
    """
    _check(ds)
    if not ds.systems:
        raise ValueError("Detect MT needs MT outputs to compare the references with; this dataset has none")
    metric = _text_metric(metric_id, ds, settings=settings)
    keep, note = common_segments(ds)
    refs, syss = ds.ref_texts(), ds.sys_texts()
    seg_rows, overall = [], []
    for k, r in enumerate(ds.ref_ids):
        others = [o for o in ds.ref_ids if o != r]
        cand = cast("list[str]", [refs[r][s] for s in keep])  # (keep: every reference set has a text)
        # closeness to the other humans: the closest single other reference (same nrefs as the MT side)
        ref_stats = {o: scores_and_stats(metric, cand, [[cast(str, refs[o][s])] for s in keep]) for o in others}
        per_ref = np.array([metric.oriented(ref_stats[o][0]) for o in others])
        to_refs = per_ref.max(axis=0)
        to_sys = np.full((len(keep), len(syss)), np.nan)
        corpus_sys = {}
        for j, (name, texts) in enumerate(syss.items()):
            pos = [i for i, s in enumerate(keep) if texts[s] is not None]
            if not pos:
                continue
            c = [cand[i] for i in pos]
            sent, st = scores_and_stats(metric, c, [[cast(str, texts[keep[i]])] for i in pos])
            to_sys[pos, j] = metric.oriented(sent)
            # corpus level on the segments this system covers: r against the system's output vs r
            # against the closest other reference set (both single-reference)
            if st is not None:  # corpus scores from the statistics already computed (= corpus_score)
                c_mt = float(metric.oriented(metric.score_from_stats(st)))
                c_ref = max(float(metric.oriented(metric.score_from_stats(ref_stats[o][1][pos]))) for o in others)
            else:
                c_mt = float(metric.oriented(metric.corpus_score(c, [[texts[keep[i]]] for i in pos])))
                c_ref = max(float(metric.oriented(metric.corpus_score(c, [[refs[o][keep[i]]] for i in pos])))
                            for o in others)
            corpus_sys[name] = (c_mt, c_ref)
        names = list(syss)
        best = np.where(np.isnan(to_sys).all(axis=1), -1,
                        np.nanargmax(np.where(np.isnan(to_sys), -np.inf, to_sys), axis=1))
        n_flag = 0
        for i, s in enumerate(keep):
            if best[i] < 0:
                continue
            m = names[best[i]]
            g = float(to_sys[i, best[i]] - to_refs[i])
            flag = bool(g >= gap)
            n_flag += flag
            seg_rows.append({"seg_id": ds.seg_ids[s], "ref_id": r, "closest_system": m,
                             "to_mt": float(to_sys[i, best[i]]), "to_refs": float(to_refs[i]), "gap": g,
                             "flagged": flag, "reference": refs[r][s], "mt_output": syss[m][s],
                             "other_references": " ||| ".join(cast(str, refs[o][s]) for o in others)})
        if corpus_sys:
            cm = max(corpus_sys, key=lambda n: corpus_sys[n][0] - corpus_sys[n][1])
            c_to_mt, c_to_refs = corpus_sys[cm]
        else:
            cm, c_to_mt, c_to_refs = "", float("nan"), float("nan")
        sh = n_flag / len(keep) if keep else float("nan")
        cg = c_to_mt - c_to_refs
        overall.append({"ref_id": r, "closest_system": cm, "corpus_to_mt": c_to_mt, "corpus_to_refs": c_to_refs,
                        "corpus_gap": cg, "segments": len(keep), "segments_flagged": n_flag, "share_flagged": sh,
                        "flagged": bool(sh >= share or cg >= gap)})
        if progress:
            progress((k + 1) / len(ds.ref_ids), f"Detect MT: {r}")
    segs = pd.DataFrame(seg_rows, columns=["seg_id", "ref_id", "closest_system", "to_mt", "to_refs", "gap", "flagged",
                                           "reference", "mt_output", "other_references"])
    over = pd.DataFrame(overall)
    method = (f"metric {metric_id} ({metric_signature(metric, 1, 'segment')}); segment flagged when the reference is "
                f"≥ {gap:g} points closer to one MT output than to the other references; reference set "
                f"flagged when ≥ {share:.0%} of its segments are flagged or its corpus-level gap is ≥ {gap:g}")
    return Detailed(over, detail=segs, notes=(note,), method=method, segments=tuple(ds.seg_ids[s] for s in keep))
