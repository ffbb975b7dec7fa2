"""Class page section "rankings settled" (methods §27): whether the significance clusters of the
class's ranking of the systems have stopped changing as its judgements came in
(:func:`evalcore.analysis.adaptive.class_settled`).

One frozen query, :class:`SettledQuery` (dataset content hash, the shared settings, the protocol),
and one view-model function. Nothing here imports streamlit.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import adaptive as AD
from ..analysis import annotate as A
from ..core.dataset import Dataset
from .queries import Query


@dataclass(frozen=True)
class SettledQuery(Query):
    """The dataset, the shared settings and the class's protocol (DA, ESA, MQM-lite)."""
    protocol: str = "da"


def settle_window(dataset: Dataset) -> int:
    """k of the rule: the clusters unchanged over the last :data:`~evalcore.analysis.adaptive.SETTLE_SHARE`
    of the dataset's outputs' judgements, at least 10."""
    return max(10, int(round(AD.SETTLE_SHARE * len(A.items(dataset)))))


def settled_status(data: Dataset, query: SettledQuery) -> dict:
    """:func:`~evalcore.analysis.adaptive.class_settled` on the class's item judgements of the
    protocol, in the order saved, with ``k`` = :func:`settle_window`; None for rankings (a screen's
    ranks are not scores) or before any judgement."""
    if query.protocol == "rank":
        return {}
    log = A.log_of(data)
    log = log[(log["protocol"] == query.protocol) & (log["kind"] == "item")]
    if log.empty:
        return {}
    return AD.class_settled(log[["system", "seg_id", "rater", "score", "saved_at"]], settle_window(data))


def settled_line(status: dict) -> str:
    """The sentence the Class page shows (plain text: system names are escaped by the page)."""
    if not status:
        return ""
    clusters = " > ".join("{" + ", ".join(c) + "}" for c in status["clusters"])
    if status["settled"]:
        return (f"Rankings settled: the clusters have not changed over the last {status['since']} judgements "
                f"(the rule asks for {status['k']}; {status['n']} judgements so far): {clusters}.")
    return (f"Rankings not settled yet: the clusters last changed {status['since']} judgements ago; they must stay "
            f"the same for {status['k']} ({status['n']} judgements so far).")
