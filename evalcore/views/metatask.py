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
from dataclasses import dataclass
from ..scoring.settings import Settings
from .queries import Query


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
    (:func:`evalcore.scoring.scores.disk_cached`)."""
    from ..metrics.engine import score_table
    from ..scoring.scores import disk_cached

    def scorer(ds, metrics, *, level, ref_ids, include_references, tokenize, segments=None, label=""):
        key = (ds.content_hash(), tuple(metrics), level, tuple(ref_ids or ()), include_references, tokenize,
               _segments_key(segments))
        return disk_cached("metatask", key, lambda: score_table(ds, list(metrics), level=level, ref_ids=ref_ids,
                                                           include_references=include_references,
                                                           tokenize=tokenize, segments=segments,
                                                           progress=progress))
    return scorer


def compute(collection: dict, task: str, metrics: Sequence[str], lps: Sequence[str] | None = None,
            human: str | None = None, settings: Settings | None = None, k: int = 0, progress=None):
    """(result, notes, signature string) of the task table; see :func:`evalcore.analysis.metatask.run_metatask`
    (``settings`` None: the task's recipe, :data:`evalcore.analysis.metatask.TASK_RECIPE`)."""
    from ..analysis.metatask import TASK_RECIPE, run_metatask

    res, notes, sigs = run_metatask(collection, task, lps=list(lps) if lps else None, metrics=list(metrics),
                                    human=human, settings=settings or TASK_RECIPE, k=k,
                                    scorer=cached_scorer(progress))
    sig = "; ".join(f"{m}: {' / '.join(v)}" for m, v in sigs.items())
    return res, notes, sig


def leaderboard(result) -> pd.DataFrame:
    """The task table (one row per metric, best first) as the command writes it, without settings."""
    return result.table()


#: What the page says in place of significance clusters it did not compute.
NO_CLUSTERS = ("Clusters were not computed (cluster resamples = 0, as in the official runs): the cluster "
               "column shows a dash. Set the cluster resamples above 0 to group the metrics whose averages "
               "do not differ significantly.")


def leaderboard_display(result) -> tuple[pd.DataFrame, str | None]:
    """(the task table as shown on the page, a note or None): where clusters were not computed
    the cluster column holds a dash (never "None") and the note says why."""
    t = result.table()
    if t["cluster"].isna().all():
        t["cluster"] = "–"
        return t, NO_CLUSTERS
    return t, None


def leaderboard_pending(result, k: int) -> tuple[pd.DataFrame, str]:
    """(the task table of a result computed without clusters, as the page shows it while the
    ``k`` cluster resamples run; the note saying so): the cluster column holds an ellipsis."""
    t = result.table()
    t["cluster"] = "…"
    return t, (f"Significance clusters ({k:,} resamples) are being computed: the values and ranks shown are final; "
               "the cluster column fills in when the permutations are done.")


def figures(result, ci: dict | None = None, signature: str | None = None):
    """(leaderboard figure, per-sub-task values figure)."""
    return leaderboard_figure(result, signature), values_figure(result, ci, signature)


def leaderboard_figure(result, signature: str | None = None):
    """The leaderboard alone (the page draws it first, before building the values figure)."""
    from ..present.plots_ranking import metatask_leaderboard

    return metatask_leaderboard(result.table(), signature=signature)


def values_figure(result, ci: dict | None = None, signature: str | None = None):
    """The per-sub-task values, metrics in leaderboard order."""
    from ..present.plots_ranking import metatask_values

    t = result.table()
    return metatask_values(result.values.loc[[m for m in t["metric"]]], ci, signature=signature)


def divergence_focus(result, metric: str, lp: str, criteria: Sequence[str], human: str | None = None) -> dict:
    """What the Divergence page needs to open ``metric``'s segment-level disagreements with the
    gold of ``lp`` (``human``, else the task's, else — as :func:`~evalcore.analysis.metatask.run_metatask`
    — the data's only criterion): the signals (``metric:<id>`` against ``human:<criterion>``)
    and a line saying where they come from (the Divergence page's ``divergence_focus``)."""
    gold = human or result.task.gold_for(lp)
    if gold not in criteria and not human and len(criteria) == 1:
        gold = criteria[0]
    return {"signals": (f"metric:{metric}", f"human:{gold}"), "metric": metric, "lp": lp,
            "source": f"the Metrics task page ({result.task.name}, {lp}): {metric} against {gold}"}


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


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class MetataskQuery(Query):
    task: str = "wmt24"
    lps: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    human: str | None = None
    k: int = 0
    with_ci: bool = False


def metatask_result(collection: dict, q: MetataskQuery):
    """(result, notes, signature) of the task table (:func:`evalcore.views.metatask.compute`)."""
    return compute(collection, q.task, list(q.metrics), lps=list(q.lps), human=q.human,
                   settings=q.settings, k=q.k)


def metatask_clusters(point: tuple, q: MetataskQuery):
    """The (result, notes, signature) of :func:`metatask_result` for ``q`` (``q.k`` cluster
    resamples) from ``point``, the same table computed without clusters (``k = 0``: what the page
    draws first): :func:`evalcore.analysis.metatask.run_task` again on the pairs already scored,
    now with ``q.k`` (the same function, defaults and seeds as :func:`evalcore.analysis.metatask.run_metatask`,
    so the same values, clusters and p-values; the sub-task values are recomputed, a small part of
    the k resamples' work). The notes are those of ``run_metatask`` with ``q.k``: the point
    run's, with run_task's own notes replaced and without the "k = 0" note."""
    from ..analysis.metatask import run_task

    res0, notes0, sig = point
    if q.k <= 0:
        return point
    res = run_task(res0.task, res0.pairs, k=q.k)
    # notes0 = (run_metatask's notes) + (run_task's notes at k = 0) + ["k = 0 ..."]; at k > 0 run_task
    # adds its cluster note first, when it clustered
    own0 = len(res.notes) - (1 if res.cluster is not None else 0)
    notes = list(notes0[:len(notes0) - 1 - own0]) + list(res.notes)
    res.notes, res.pairs, res.signatures, res.reference_rows = notes, res0.pairs, res0.signatures, res0.reference_rows
    return res, notes, sig


def metatask_leaderboard_figure(result: tuple, q: MetataskQuery):
    res, _, sig = result
    return leaderboard_figure(res, signature=sig)


def metatask_cis(result: tuple, q: MetataskQuery):
    from ..analysis.metatask import subtask_cis

    return subtask_cis(result[0], n_boot=100)


def metatask_values_figure(result_and_ci: tuple, q: MetataskQuery):
    """The values per sub-task of ``(result, notes, signature, CIs or None)``."""
    res, _, sig, ci = result_and_ci
    return values_figure(res, ci, signature=sig)


def leaderboard_verdict(result: tuple, q: MetataskQuery):
    """"Which metric is best" on this task (:func:`evalcore.analysis.verdict.metatask_verdict`,
    the sentence ``metatask`` prints): the recipe's weighted average, the average rank as an
    alternative; None when no metric has a value."""
    from ..analysis.verdict import metatask_verdict

    return metatask_verdict(result[0].table(), q.task)
