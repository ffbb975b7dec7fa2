"""View-model of the stability sections (Metrics task page: the metric ranking; Systems page:
the human ranking of the systems): the query, the computation and its figure (methods §24.1).
No streamlit here."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.stability import MAX_RATERS, N_BOOT
from .queries import Query


@dataclass(frozen=True)
class StabilityQuery(Query):
    """Everything the numbers depend on (the cache key): ``dataset`` the content hash (several
    pairs: their hashes joined), ``settings`` the shared settings (judged-only corpus scores,
    tokenizer), ``mode`` ``task`` or ``human``; ``task``, ``lps``, ``metrics`` and ``human`` (the
    gold override) as the Metrics task page's query; ``criterion`` the human ranking's."""

    mode: str = "human"
    task: str = "wmt24"
    lps: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    human: str | None = None
    criterion: str = ""
    n_boot: int = N_BOOT
    max_raters: int = MAX_RATERS
    seed: int = 0


def stability(data, q: StabilityQuery, progress=None):
    """The :class:`~evalcore.analysis.stability.StabilityResult` of the query: ``data`` is the
    collection (lp → Dataset) in task mode, the Dataset in human mode. ``progress``: a page's
    (fraction, text) callback."""
    from ..analysis.stability import human_stability, task_stability

    cb = None if progress is None else (lambda done, total: progress(done / total if total else 1.0,
                                                                      f"perturbation {done} of {total}"))
    if q.mode == "task":
        return task_stability(data, q.task, q.settings, lps=list(q.lps), metrics=list(q.metrics), human=q.human,
                              n_boot=q.n_boot, max_raters=q.max_raters, seed=q.seed, progress=cb)
    if q.mode != "human":
        raise ValueError(f"mode must be task or human, not {q.mode!r}")
    return human_stability(data, q.criterion, q.settings, n_boot=q.n_boot, max_raters=q.max_raters, seed=q.seed,
                           progress=cb)


def figure(result, q: StabilityQuery):
    """P(rank 1) and rank ranges of a stability result."""
    from ..present.plots_stability import stability_figure

    item = "metric" if q.mode == "task" else "system"
    what = f"{q.task} metric ranking" if q.mode == "task" else f"system ranking by {q.criterion}"
    return stability_figure(result.table, item, f"How firm the {what} is ({len(result.perturbations)} perturbations)")
