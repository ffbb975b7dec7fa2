"""The metrics-task table with its honest reference rows: the human ceiling (methods §24.2) and the
sentinel baselines (methods §24.3). One place for what ``metatask --human-ceiling / --sentinels``
and the Metrics task page's section add to the table."""
from __future__ import annotations

import pandas as pd


def with_sentinel_rows(collection: dict, scores: pd.DataFrame | None) -> tuple[pd.DataFrame, list[str]]:
    """``scores`` (bring-your-own rows, or None) with the text sentinels of every pair appended."""
    from .sentinels import task_sentinel_rows

    sent, notes = task_sentinel_rows(collection)
    if scores is not None and "lp" not in scores.columns:
        scores = scores.assign(lp="")  # rows for every pair, as read_scores gives them
    return (sent if scores is None else pd.concat([scores, sent], ignore_index=True)), notes


def augment(res, table: pd.DataFrame, collection: dict, signatures: dict, *, sentinels: bool = False,
            second: str | None = None, human: str | None = None, draws: int = 100, alpha: float = 0.05,
            seed: int = 0, num_permutations: int = 1000) -> tuple[pd.DataFrame, dict, list[str]]:
    """The task table of ``res`` with the sentinel margins (when its metrics include the sentinels)
    and the human-ceiling row (``second``: a second rating, see
    :func:`~evalcore.analysis.ceiling.rating_waves`). Returns (table, signatures, notes)."""
    from .ceiling import CEILING, task_table_with_ceiling
    from .sentinels import SIGNATURE, task_margins

    notes: list[str] = []
    if sentinels:
        m, mnotes = task_margins(res, k=draws, alpha=alpha, seed=seed, num_permutations=num_permutations)
        table = table.merge(m, on="metric", how="left")
        notes += mnotes
        signatures = {**signatures, **{x: [SIGNATURE] for x in table["metric"] if x.startswith("sentinel:")}}
    if second:
        table, cnotes = task_table_with_ceiling(res, table, collection, second, human, num_permutations)
        notes += cnotes
        signatures = {**signatures, CEILING: [f"human:{human or 'gold'}~{second}"]}
    return table, signatures, notes


__all__ = ["with_sentinel_rows", "augment"]
