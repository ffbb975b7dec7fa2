"""The Metrics task page's view-model (no streamlit): the task table of
:func:`evalcore.analysis.metatask.run_metatask` with metric scores cached on disk per (dataset, metrics,
level, references, human systems, tokenizer, segments), its leaderboard and figures; and the
system ranking figures (:mod:`evalcore.stats.system_ranking`) the Systems and Campaign pages call
through :func:`system_ranking_figures`. The maths: methods §3.12-3.13.
"""
from __future__ import annotations

import hashlib
from typing import Sequence

import pandas as pd

from ..analysis.metatask_tasks import TASKS


def task_names() -> list[str]:
    return sorted(TASKS)


def task_description(name: str) -> str:
    t = TASKS[name]
    return f"{t.name}: {t.citation}"


def _segments_key(segments) -> str:
    if not segments:
        return ""
    text = "\n".join(f"{k}:{','.join(sorted(v))}" for k, v in sorted(segments.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached_scorer(progress=None):
    """A ``scorer`` for :func:`~evalcore.analysis.metatask.run_metatask` whose tables are cached on disk
    (:func:`evalcore.scoring.scores.cached`)."""
    from ..metrics.engine import score_table
    from ..scoring.scores import cached

    def scorer(ds, metrics, *, level, ref_ids, include_references, tokenize, segments=None, label=""):
        key = (ds.content_hash(), tuple(metrics), level, tuple(ref_ids or ()), include_references, tokenize,
               _segments_key(segments))
        return cached("metatask", key, lambda: score_table(ds, list(metrics), level=level, ref_ids=ref_ids,
                                                           include_references=include_references,
                                                           tokenize=tokenize, segments=segments,
                                                           progress=progress))
    return scorer


def compute(collection: dict, task: str, metrics: Sequence[str], lps: Sequence[str] | None = None,
            human: str | None = None, judged_only: bool = False, k: int = 0, progress=None):
    """(result, notes, signature string) of the task table; see :func:`evalcore.analysis.metatask.run_metatask`."""
    from ..analysis.metatask import run_metatask

    res, notes, sigs = run_metatask(collection, task, lps=list(lps) if lps else None, metrics=list(metrics),
                                    human=human, judged_only=judged_only, k=k, scorer=cached_scorer(progress))
    sig = "; ".join(f"{m}: {' / '.join(v)}" for m, v in sigs.items())
    return res, notes, sig


def leaderboard(result) -> pd.DataFrame:
    """The task table (one row per metric, best first) as the command writes it, without settings."""
    return result.table()


def figures(result, ci: dict | None = None, signature: str | None = None):
    """(leaderboard figure, per-sub-task values figure)."""
    from ..present.plots_ranking import metatask_leaderboard, metatask_values

    t = result.table()
    vals = result.values.loc[[m for m in t["metric"]]]
    return (metatask_leaderboard(t, signature=signature), metatask_values(vals, ci, signature=signature))


def system_ranking_figures(dataset, criterion: str, test: str = "wilcoxon", alpha: float = 0.05):
    """(table, clustered bar figure, p-value heatmap) of the human ranking of ``dataset`` by
    ``criterion`` (WMT24 procedure by default, methods §3.12). One call for the Systems and
    Campaign pages."""
    from ..human.scores import criterion_judgements
    from ..present.plots_ranking import ranking_bars, ranking_heatmap
    from ..stats.system_ranking import item_scores, rank_systems

    dom = dataset.extras.get("segment_domains")
    domains = dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str))) if dom is not None and len(dom) else {}
    r = rank_systems(item_scores(criterion_judgements(dataset, criterion)), domains, test=test, alpha=alpha)
    sig = f"human:{criterion}|test={test}|alpha={alpha:g}|domains={len(r.domains)}"
    return r.table(), ranking_bars(r, signature=sig), ranking_heatmap(r, signature=sig)
