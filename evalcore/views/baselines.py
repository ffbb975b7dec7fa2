"""View-model of the Metrics task page's "Human ceiling and sentinel baselines" section: the task
table with the human-ceiling row and the sentinel margins (methods §24.2, §24.3). No streamlit here."""
from __future__ import annotations

from dataclasses import dataclass

from .queries import Query


@dataclass(frozen=True)
class BaselinesQuery(Query):
    """The cache key: ``dataset`` the pairs' content hashes; ``settings`` the shared settings;
    ``task``, ``lps``, ``metrics``, ``human``
    as the page's task query; ``second`` the second rating ("" none; a human score type,
    ``raters`` or ``repeats``); ``sentinels``; ``draws`` the permutation draws of each margin test."""

    task: str = "wmt24"
    lps: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    human: str | None = None
    second: str = ""
    sentinels: bool = True
    draws: int = 100
    seed: int = 0


def second_ratings(collection: dict, lps) -> list[str]:
    """What can serve as the second rating on these pairs: every human score type of them, then
    ``raters`` and ``repeats``."""
    from ..analysis.ceiling import RATERS, REPEATS

    return list(dict.fromkeys(c for lp in lps for c in collection[lp].criteria)) + [RATERS, REPEATS]


def baselines(collection: dict, q: BaselinesQuery, progress=None):
    """A :class:`~evalcore.core.results.Result`: the task table with the sentinel rows and margins
    (when ``sentinels``) and the human-ceiling row (when ``second``), and the notes."""
    from ..analysis.baselines import augment, with_sentinel_rows
    from ..analysis.metatask import run_metatask
    from ..core.results import Result

    notes: list[str] = []
    scores = None
    if q.sentinels:
        scores, notes = with_sentinel_rows({lp: collection[lp] for lp in q.lps}, None)
    if progress is not None:
        progress(0.1, "Scoring and computing the task table…")
    res, tnotes, signatures = run_metatask(collection, q.task, lps=list(q.lps), metrics=list(q.metrics),
                                           scores=scores, human=q.human, settings=q.settings)
    if progress is not None:
        progress(0.5, "Testing the margins and computing the ceiling…")
    table, signatures, bnotes = augment(res, res.table(), collection, signatures, sentinels=q.sentinels,
                                        second=q.second or None, human=q.human, draws=q.draws, seed=q.seed)
    table["signature"] = table["metric"].map(lambda m: " / ".join(signatures.get(m, ["external"])))
    if progress is not None:
        progress(1.0, "Done")
    return Result(table, tuple(list(tnotes) + notes + bnotes))
