"""Sentinel baselines: model-free scores a metric must beat (methods §24.3).

Perrella et al. 2024 ("Guardians of the Machine Translation Meta-Evaluation: Sentinel Metrics Fall
In!", ACL) show that a "metric" that sees only the candidate, only the source or only the reference
(`sentinel-cand`, `sentinel-src`, `sentinel-ref`; the WMT25 metrics task keeps `sentinel-cand` as a
baseline) ranks above real metrics in some meta-evaluation settings: segment-level correlations
without grouping reward knowing which segment is hard or which system is good, not judging the
translation. Their sentinels are trained regressors; these are model-free stand-ins with the same
blind spots, each a score per (system, segment), oriented as a quality guess (higher = better):

* ``sentinel:cand-length``  the candidate's length in characters (what a candidate-only model can
  always read);
* ``sentinel:src-length``   minus the source's length in characters (longer sources are harder;
  the same for every system of a segment: it carries segment difficulty only);
* ``sentinel:length-ratio`` minus |ln(len(candidate) / len(source))| (0 = as long as the source;
  an empty candidate or source gives the worst ratio of the pair's other cells);
* ``sentinel:src-overlap``  minus the share of the candidate's whitespace tokens (case-folded) that
  occur in the source (copied, untranslated text scores low; 0 for an empty candidate);
* ``sentinel:system-prior`` the system's identity as a prior: the system's mean human score on the
  *other half* of its judged segments (halves by position in the segment order: a cross-fitted
  prior, so no cell sees its own rating). Segment level only: at system level it would be the
  human score itself.

They are not metrics of the registry (:mod:`evalcore.metrics.base`): a ``Metric`` sees a candidate
and its references only, while these need the source, the system's name and (the prior) the human
scores; they are computed here and enter the tables as bring-your-own score rows.
"""
from __future__ import annotations

import math
from typing import cast

import numpy as np
import pandas as pd

PREFIX = "sentinel:"
TEXT_SENTINELS = ("sentinel:cand-length", "sentinel:src-length", "sentinel:length-ratio", "sentinel:src-overlap")
PRIOR = "sentinel:system-prior"
SENTINELS = TEXT_SENTINELS + (PRIOR,)
SIGNATURE = "sentinel (model-free; methods §24.3)"


def is_sentinel(metric: str) -> bool:
    return str(metric).startswith(PREFIX)


def _overlap(cand: str, src: str) -> float:
    toks = cand.casefold().split()
    if not toks:
        return 0.0
    have = set(src.casefold().split())
    return sum(t in have for t in toks) / len(toks)


def text_sentinels(ds, systems=None, segments: dict | None = None) -> pd.DataFrame:
    """Rows (metric, system, seg_id, score) of the four text sentinels for every output of
    ``systems`` (default: every system with text, and every reference set as a "system"),
    restricted to ``segments`` (system → seg_ids) when given."""
    src = dict(zip(ds.seg_ids, ds.segments["source"]))
    texts = {**ds.ref_texts(), **ds.sys_texts()}
    rows = []
    for s in (systems if systems is not None else list(texts)):
        if s not in texts:
            continue
        keep = None if segments is None else {str(x) for x in segments.get(s, ())}
        for sid, cand in zip(ds.seg_ids, texts[s]):
            if cand is None or (keep is not None and str(sid) not in keep):
                continue
            source = src.get(sid) or ""
            lc, ls = len(cand.strip()), len(source.strip())
            ratio = -abs(math.log(lc / ls)) if lc and ls else float("nan")
            rows += [("sentinel:cand-length", s, str(sid), float(lc)),
                     ("sentinel:src-length", s, str(sid), -float(ls)),
                     ("sentinel:length-ratio", s, str(sid), ratio),
                     ("sentinel:src-overlap", s, str(sid), -_overlap(cand, source))]
    out = pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score"])
    bad = out["metric"].eq("sentinel:length-ratio") & out["score"].isna()
    if bad.any():  # an empty side: the worst ratio of the other cells (no cell is dropped)
        worst = out.loc[out["metric"].eq("sentinel:length-ratio") & ~bad, "score"].min()
        out.loc[bad, "score"] = worst if np.isfinite(worst) else 0.0
    return out


def system_prior(items: pd.DataFrame, seg_order) -> pd.DataFrame:
    """``sentinel:system-prior`` rows from item scores (system, seg_id, score): each judged segment
    of a system gets the system's mean over the other half of its judged segments (halves by
    alternate position in ``seg_order``); a system with one judged segment gets no row."""
    pos = {str(s): i for i, s in enumerate(seg_order)}
    rows = []
    for s, g in items.assign(seg_id=items["seg_id"].astype(str)).groupby("system", sort=False):
        g = g[g["score"].notna()]
        g = g.iloc[np.argsort([pos.get(x, len(pos)) for x in g["seg_id"]], kind="stable")]
        half = np.arange(len(g)) % 2
        if len(g) < 2:
            continue
        means = [g["score"].to_numpy(dtype=float)[half == h].mean() for h in (0, 1)]
        rows += [(PRIOR, s, sid, means[1 - h]) for sid, h in zip(g["seg_id"], half)]
    return pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score"])


def sentinel_scores(ds, items: pd.DataFrame | None = None, *, level: str = "segment", segments: dict | None = None,
                    systems=None) -> tuple[pd.DataFrame, list[str]]:
    """Every sentinel's rows for ``ds`` and notes: the text sentinels, and the system prior from the
    gold ``items`` (system, seg_id, score) at segment level."""
    out = [text_sentinels(ds, systems, segments)]
    notes = [f"sentinels (model-free baselines, Perrella et al. 2024): {', '.join(TEXT_SENTINELS)}"]
    if items is not None and level == "segment":
        out.append(system_prior(items, ds.seg_ids))
        notes[0] += f", {PRIOR} (cross-fitted over halves of each system's judged segments)"
    elif items is not None:
        notes.append(f"{PRIOR}: segment level only (at system level it is the human score itself)")
    return pd.concat(out, ignore_index=True), notes


def best_sentinel(values: pd.Series) -> str | None:
    """The sentinel with the highest value (ties by name), or None."""
    s = values[[is_sentinel(m) for m in values.index]].dropna()
    if not len(s):
        return None
    return sorted(s.index, key=lambda m: (-s[m], m))[0]


def margins(values: pd.Series, pvalue, alpha: float = 0.05) -> pd.DataFrame:
    """Per metric (not sentinel): ``sentinel_margin`` = value − the best sentinel's value,
    ``sentinel_p`` = ``pvalue(metric, best)`` (one-sided: the metric agrees better) where the margin
    is positive, else NaN, ``beats_sentinel`` = margin > 0 and p < alpha, ``best_sentinel``."""
    best = best_sentinel(values)
    rows: list[tuple] = []
    for key, v in values.items():
        m = cast(str, key)  # values is indexed by metric name
        if is_sentinel(m) or best is None:
            rows.append((m, float("nan"), float("nan"), pd.NA, best or ""))
            continue
        d = float(v) - float(values[best])
        p = float(pvalue(m, best)) if d > 0 else float("nan")
        rows.append((m, d, p, bool(d > 0 and p < alpha), best))
    out = pd.DataFrame(rows, columns=["metric", "sentinel_margin", "sentinel_p", "beats_sentinel", "best_sentinel"])
    out["beats_sentinel"] = out["beats_sentinel"].astype("boolean")
    return out


def task_sentinel_rows(collection: dict, task=None, human: str | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Text-sentinel rows (metric, system, seg_id, score, lp) of every pair of ``collection`` for a
    metrics-task table. The system prior is left out: a recipe's system-level sub-tasks (SPA reads
    segment scores) would compare the humans with half of their own scores."""
    del task, human  # the text sentinels read no gold; kept so that a recipe-aware prior can slot in
    frames = [text_sentinels(ds).assign(lp=lp) for lp, ds in collection.items()]
    notes = [f"sentinels (model-free baselines, Perrella et al. 2024): {', '.join(TEXT_SENTINELS)}; {PRIOR} left "
             "out (the recipe's system-level sub-tasks would compare the humans with half of their own scores)"]
    return pd.concat(frames, ignore_index=True), notes


def task_margins(result, *, k: int = 100, alpha: float = 0.05, seed: int = 0,
                 num_permutations: int = 1000) -> tuple[pd.DataFrame, list[str]]:
    """:func:`margins` of a metrics-task result on its weighted average; the p-value of a metric
    against the best sentinel from :func:`~evalcore.analysis.metatask.metric_clusters` (paired
    permutation of the two metrics' scores, ``k`` draws; methods §3.13)."""
    from .metatask import metric_clusters

    def pvalue(metric, best):
        _, sig = metric_clusters(result.task, result.pairs, result.subtasks, [metric, best], result.average, k=k,
                                 alpha=alpha, seed=seed, num_permutations=num_permutations)
        return sig.loc[metric, best]

    m = margins(result.average, pvalue, alpha)
    best = m["best_sentinel"].iloc[0] if len(m) else ""
    return m, [f"sentinel_margin = average - the best sentinel's ({best or 'none'}); sentinel_p: paired permutation "
               f"of the two metrics' scores over every sub-task, {k} draws, one-sided, where the margin is positive; "
               f"beats_sentinel: margin > 0 and p < {alpha:g}"]


__all__ = ["task_sentinel_rows", "task_margins", "SENTINELS", "TEXT_SENTINELS", "PRIOR", "sentinel_scores", "text_sentinels", "system_prior",
           "best_sentinel", "margins", "is_sentinel"]
