"""The Campaign page's view-model: the metric scores of every language pair from the one
statistics table per (dataset, metric, tokenizer, reference set, segments) that the Systems page
also uses (:func:`evalcore.scoring.scores.system_stats`, cached on disk), so a Campaign visit after
a Systems visit (or a second Campaign visit) scores nothing again.

The maths is :func:`evalcore.analysis.campaign.campaign` (WMT metrics-task tables, Kocmi et al. 2021;
methods §3.3, §3.11); this module only says where its metric scores come from. Nothing here
imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress
from ..scoring.scores import system_stats


def cached_scores(dataset: Dataset, metric_ids: Sequence[str], *, tokenize: str, include_references: bool = False,
                  criterion: str | None = None, ref_ids: Sequence[str] | None = None,
                  progress: Progress = None) -> pd.DataFrame:
    """System-level rows (metric, system, score, n_segments, signature) with the same values, rows,
    signatures and ``attrs`` notes/warnings as :func:`evalcore.scoring.parallel.score_table` at level ``system`` with
    ``segments`` = the segments judged under ``criterion`` for each candidate (None: every
    segment), from the disk-cached statistics: the corpus score of a candidate is
    ``metric.score_from_stats`` of its summed per-segment statistics, as in the engine.
    ``tokenize`` (the language pair's tokenizer) is part of the cache key."""
    from ..metrics.base import get_metric, signature_nrefs
    from ..metrics.engine import long_segment_warnings, scorable, score_table, scoring_plan
    from ..scoring.scores import judged_segments

    metrics = [get_metric(m, tokenize) for m in metric_ids]
    text = [m.id for m in metrics if m.meta.needs_text]
    stats = system_stats(dataset, text, include_references, progress, ref_ids, criterion, tokenize=tokenize)
    segments = judged_segments(dataset, criterion) if criterion else None
    cands_all, notes = scoring_plan(dataset, ref_ids, include_references, segments)
    # the engine's nrefs: references per scored segment over every candidate ("var" when it differs)
    ref_lists = [r for _, texts, use in cands_all for r in scorable(dataset, texts, use)[2]] if text else []
    nrefs = signature_nrefs(ref_lists) if ref_lists else None
    rows, sigs = [], {}
    for metric in metrics:
        if metric.id not in stats:  # given scores (no text to score): the engine's rows as they are
            given = score_table(dataset, [metric], level="system", ref_ids=ref_ids,
                                include_references=include_references, segments=segments)
            rows += [(metric.id, r.system, float(r.score), r.n_segments) for r in given.itertuples(index=False)]
            sigs[metric.id] = given["signature"].iloc[0] if len(given) else metric.signature(None, "system")
            continue
        sigs[metric.id] = metric.signature(nrefs, "system")
        for name, (keep, st) in stats[metric.id].items():
            if len(keep):
                rows.append((metric.id, name, float(metric.score_from_stats(st)), len(keep)))
    table = pd.DataFrame(rows, columns=["metric", "system", "score", "n_segments"]).astype(
        {"metric": str, "system": str, "score": float})
    table["signature"] = table["metric"].map(sigs).astype(str) if len(table) else pd.Series(dtype=str)
    table.attrs["notes"] = notes
    table.attrs["warnings"] = long_segment_warnings(dataset, metrics)
    return table


def lp_plan(collection: dict[str, Dataset], lps: Sequence[str], criterion: str | None = None,
            tokenize: str | None = None) -> list[tuple[str, str, str]]:
    """(lp, human criterion, tokenizer) of every language pair :func:`evalcore.analysis.campaign.campaign`
    scores: the criterion given or the pair's default, the tokenizer given or sacreBLEU's default
    for the pair's target language (Post 2018); pairs without that criterion are left out (the
    campaign's notes say so)."""
    from ..metrics.tokenize import resolve_tokenizer
    from ..scoring.defaults import default_criterion

    out = []
    for lp in lps:
        ds = collection[lp]
        crit = criterion or default_criterion(ds)
        if crit is None or crit not in ds.criteria and not (crit == "mqm" and "mqm_errors" in ds.extras):
            continue
        if ds.systems and ds.ref_ids:
            out.append((lp, crit, resolve_tokenizer(tokenize, lp)[0]))
    return out


def signature_frame(collection: dict[str, Dataset], lps: Sequence[str], metric_ids: Sequence[str],
                    criterion: str | None = None) -> pd.DataFrame:
    """lp, metric, signature: each metric's sacreBLEU-style signature of system scores with the
    language pair's references per segment and the tokenizer it is scored with there
    (:func:`lp_plan`)."""
    from ..metrics.base import metric_signature
    from ..scoring.defaults import dataset_nrefs

    return pd.DataFrame([{"lp": lp, "metric": m,
                          "signature": metric_signature(m, dataset_nrefs(collection[lp]), "system", tokenize=tok)}
                         for lp, _, tok in lp_plan(collection, lps, criterion) for m in metric_ids],
                        columns=["lp", "metric", "signature"])


def undefined_notes(result) -> list[str]:
    """Why a language pair's correlation of a :func:`evalcore.analysis.campaign.campaign` result is empty
    or degenerate (zero variance, fewer than three systems: :mod:`evalcore.core.undefined`), from the
    very scores it was computed from (error rates negated, as the campaign correlates them)."""
    from ..metrics.base import get_metric
    from ..core.undefined import correlation_notes

    notes = []
    s = result.systems
    for r in result.correlations.itertuples(index=False):
        sub = s[s["lp"] == r.lp]
        if sub.empty:
            continue
        human = sub[sub["kind"] == "human"].set_index("system")["score"]
        metric = sub[sub["measure"] == r.metric].set_index("system")["score"]
        systems = [x for x in human.index if x in metric.index]
        sign = 1.0 if get_metric(r.metric).meta.higher_is_better else -1.0
        g = human.reindex(systems).to_numpy(float)
        m = metric.reindex(systems).to_numpy(float) * sign
        for n in correlation_notes(r.metric, "correlation", g, m, float(r.pearson)):
            notes.append(f"{r.lp or '-'}: {n}")
    return list(dict.fromkeys(notes))
