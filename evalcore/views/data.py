"""Data page (and the long-segment notes every scoring page shows): its queries and view-model."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..core.dataset import Dataset
from .fields import required
from .queries import Query


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class SegmentScoresQuery(Query):
    metrics: tuple[str, ...] = ()
    seg_id: str | None = None


def segment_scores_of(dataset: Dataset, q: SegmentScoresQuery) -> pd.DataFrame:
    """Every system's (and every reference's, against the others) scores on segment ``q.seg_id``."""
    from ..metrics.engine import score_table

    sub = dataset.subset(seg_ids=[required(q, "seg_id")])
    table = score_table(sub, list(q.metrics), level="segment", include_references=True, tokenize=q.tokenize)
    wide = table.pivot_table(index="system", columns="metric", values="score", sort=False).reset_index()
    wide.insert(1, "kind", ["reference (vs the others)" if sub.is_reference(s) else "system" for s in wide["system"]])
    return wide[["system", "kind"] + [m for m in q.metrics if m in wide]]


def wide_table(dataset: Dataset, q: Query) -> pd.DataFrame:
    return dataset.wide_table()


def length_table(dataset: Dataset, q: Query) -> pd.DataFrame:
    return dataset.length_table()


@dataclass(frozen=True)
class MetricsQuery(Query):
    metrics: tuple[str, ...] = ()


def long_segment_notes(dataset: Dataset, q: MetricsQuery) -> list[str]:
    """Which segments the alignment metrics of ``q.metrics`` refuse (in the tokens of ``q.tokenize``)."""
    from ..metrics.base import get_metric
    from ..metrics.engine import long_segment_warnings

    return long_segment_warnings(dataset, [get_metric(m, q.tokenize) for m in q.metrics])
