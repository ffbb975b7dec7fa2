"""Experts vs non-experts page (Callison-Burch 2009 §4; methods §5.10): its query and view-model."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..core.dataset import Dataset
from .fields import required
from .queries import Query


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class ExpertsQuery(Query):
    criterion: str | None = None
    gold: tuple[str, ...] = ()
    metric: str = ""  # the metric ranked beside the humans ('' for none)


def expert_labels(dataset: Dataset, q: ExpertsQuery) -> pd.DataFrame:
    from ..analysis.experts import gold_labels

    return gold_labels(dataset, list(q.gold), required(q, "criterion"))


def experts_vs_gold(labels: pd.DataFrame, q: ExpertsQuery) -> pd.DataFrame:
    from ..analysis.experts import rater_vs_gold

    return rater_vs_gold(labels)


def experts_vs_gold_figure(table: pd.DataFrame, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.rater_vs_gold(table)


def experts_curves(labels: pd.DataFrame, q: ExpertsQuery):
    from ..analysis.experts import combination_curves

    return combination_curves(labels, 5, 20)


def experts_curves_figure(curves, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.combination_curves(curves.table, curves.reference_agreement)


def experts_metric_scores(dataset: Dataset, q: ExpertsQuery) -> pd.Series:
    from ..analysis.experts import metric_system_scores

    return metric_system_scores(dataset, q.metric, q.settings)


def experts_rankings(labels_and_scores: tuple, q: ExpertsQuery):
    """Ranking correlations of ``(labels, metric scores or None)``."""
    from ..analysis.experts import ranking_correlations

    labels, scores = labels_and_scores
    return ranking_correlations(labels, scores, q.metric, 5)


def experts_rankings_figure(ranks: pd.DataFrame, q: ExpertsQuery):
    from ..present import plots_refs as PR

    return PR.ranking_bars(ranks)
