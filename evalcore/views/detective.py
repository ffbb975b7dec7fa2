"""Metric detective page: the lab of :mod:`evalcore.analysis.detective` (methods §12) as a page
— the catch table and its heat map, perturbed outputs side by side with their originals, and the
class mode's scored rewrites and leaderboard.

One frozen query, :class:`DetectiveQuery` (plain values and the shared
:class:`~evalcore.scoring.settings.Settings`: the page's cache key), and view-model functions
``f(data, query)``. Nothing here imports streamlit.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..analysis import detective as D
from ..core.dataset import Dataset
from ..present.highlight import box, escape
from .queries import Query

#: outputs the page perturbs by default (the command's default is larger: a page answers in seconds)
PAGE_SAMPLE = 60


@dataclass(frozen=True)
class DetectiveQuery(Query):
    """What the page asks: the dataset (content hash) and the shared settings (tokenizer,
    reference sets, judged outputs only: the base :class:`~evalcore.views.queries.Query`), the
    metrics, the families, how many outputs with which seed, the Δ given per metric ((metric, Δ)
    pairs; others: the default of :func:`~evalcore.analysis.detective.delta_for`)."""
    metrics: tuple[str, ...] = ("bleu", "chrf")
    families: tuple[str, ...] = tuple(D.FAMILIES)
    sample: int = PAGE_SAMPLE
    seed: int = 0
    deltas: tuple[tuple[str, float], ...] = ()

    def delta_map(self) -> dict[str, float]:
        return dict(self.deltas)


def lab(data: Dataset, query: DetectiveQuery) -> D.LabResult:
    """The lab on ``data`` (:func:`evalcore.analysis.detective.run_lab`)."""
    return D.run_lab(data, list(query.metrics), query.settings, list(query.families), sample=query.sample,
                     seed=query.seed, deltas=query.delta_map())


def catch_matrix(data: D.LabResult, query: DetectiveQuery) -> pd.DataFrame:
    """The catch table as a matrix: one row per family (the query's order, with n), one column per metric."""
    c = data.catch
    wide = c.pivot(index="perturbation", columns="metric", values="catch_rate")
    wide = wide.reindex(index=list(query.families), columns=list(query.metrics))
    n = c.groupby("perturbation")["n"].first().reindex(wide.index)
    return wide.assign(n=n.to_numpy())


def catch_figure(data: D.LabResult, query: DetectiveQuery):
    """The heat map of catch rates (families × metrics; a family with n = 0 left blank)."""
    from ..present.plots_detective import catch_heatmap

    m = catch_matrix(data, query)
    labels = [f"{f} (n={int(k)})" + (" ★ meaning kept" if f in D.MEANING_KEPT else "")
              for f, k in zip(m.index, m["n"])]
    return catch_heatmap(m.drop(columns="n").set_axis(labels, axis=0),
                         "Catch rate: share of perturbed outputs whose score dropped by more than Δ")


def skipped(data: D.LabResult, query: DetectiveQuery) -> pd.DataFrame:
    """Per family and reason, the outputs the family could not apply to."""
    return D.skip_counts(data.perturbed)


def examples(data: D.LabResult, family: str, limit: int = 5) -> pd.DataFrame:
    """Up to ``limit`` outputs the family perturbed: system, seg_id, original, perturbed, and per
    metric the drop (one column per metric)."""
    p = data.perturbed
    p = p[(p["perturbation"] == family) & (p["skipped"] == "")].head(limit)
    s = data.scored[data.scored["perturbation"] == family]
    drops = s.pivot_table(index=["system", "seg_id"], columns="metric", values="drop", aggfunc="first")
    drops.columns = [f"drop {c}" for c in drops.columns]
    return p.merge(drops.reset_index(), on=["system", "seg_id"], how="left").drop(columns=["skipped"])


def side_by_side_html(original: str, changed: str, label: str = "Perturbed") -> tuple[str, str]:
    """The original and the changed output as two boxes of escaped text."""
    return box("Original", escape(original)), box(label, escape(changed))


def rewrites_scored(data_and_rewrites: tuple, query: DetectiveQuery) -> pd.DataFrame:
    """The class's rewrites (``(dataset, rewrites)``) scored by the query's metrics
    (:func:`~evalcore.analysis.detective.score_rewrites`)."""
    data, rewrites = data_and_rewrites
    return D.score_rewrites(data, rewrites, list(query.metrics), query.settings, query.delta_map())


def leaderboard(scored: pd.DataFrame, query: DetectiveQuery) -> pd.DataFrame:
    """Which metric the class fooled most (:func:`~evalcore.analysis.detective.fooled_board`)."""
    return D.fooled_board(scored, query.delta_map())
