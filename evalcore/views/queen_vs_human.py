"""QUEEN vs human page (Amigó et al. 2006 Figure 4): per-segment QUEEN of a metric set against
the human score, the quadrant thresholds and the quadrant counts.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress
from ..scoring.scores import human_segment_scores, queen_index
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from . import chosen
from .queries import Query


def queen_human_points(dataset: Dataset, metric_set: Sequence[str], criterion: str, mode: str = "auto",
                       normalisation: str = "raw", progress: Progress = None,
                       settings: Settings = DEFAULTS) -> pd.DataFrame:
    """QUEEN_X (methods §1.2) of every judged (system, segment) against its human score (Amigó et al. 2006
    Figure 4). Columns: system, seg_id, queen, human, n_ratings, mode."""
    idx = queen_index(dataset, metric_set, mode=mode, progress=progress, tokenize=settings.tokenizer)
    q = idx.values(list(metric_set)).to_frame()
    q["seg_id"] = q["seg_id"].astype(str)
    h = human_segment_scores(dataset, criterion, normalisation, include_references=False)
    pts = q.merge(h.rename(columns={"score": "human"}), on=["system", "seg_id"], how="inner")
    pts = pts[np.isfinite(pts["queen"].to_numpy(float)) & np.isfinite(pts["human"].to_numpy(float))]
    return pts[["system", "seg_id", "queen", "human", "n_ratings", "mode"]].reset_index(drop=True)


def quadrant_thresholds(dataset: Dataset, points: pd.DataFrame, criterion: str,
                        normalisation: str = "raw") -> tuple[float, float]:
    """Default thresholds of Figure 4's quadrant "acceptable to humans but not human-like":
    human ≥ the first quartile of the judged references' human scores when references are
    judged (as acceptable as three in four human translations), else the 75th percentile of the points;
    QUEEN ≤ the median QUEEN of the points."""
    if points.empty:
        return float("nan"), float("nan")
    refs = set(dataset.ref_ids)
    h = human_segment_scores(dataset, criterion, normalisation, include_references=True)
    hr = h[h["system"].isin(refs)]["score"]
    h_thr = float(hr.quantile(0.25)) if len(hr) else float(points["human"].quantile(0.75))
    q_thr = float(points["queen"].median())
    return h_thr, q_thr


def quadrant_table(points: pd.DataFrame, human_threshold: float, queen_threshold: float) -> pd.DataFrame:
    """Points with human ≥ threshold and QUEEN ≤ threshold, most acceptable / least human-like first."""
    sel = points[(points["human"] >= human_threshold) & (points["queen"] <= queen_threshold)]
    return sel.sort_values(["queen", "human"], ascending=[True, False], kind="stable").reset_index(drop=True)


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class QueenVsHumanQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    mode: str = "auto"
    normalisation: str = "raw"
    human_threshold: float | None = None
    queen_threshold: float | None = None


def queen_points(dataset: Dataset, q: QueenVsHumanQuery, progress: Progress = None):
    """(points, (human threshold, QUEEN threshold)) of Figure 4 for the set ``q.metrics``
    (:mod:`evalcore.views.queen_vs_human`)."""
    from . import queen_vs_human as V

    criterion = chosen(q.criterion, "a human criterion")
    pts = V.queen_human_points(dataset, list(q.metrics), criterion, q.mode, q.normalisation, progress=progress,
                               settings=q.settings)
    return pts, V.quadrant_thresholds(dataset, pts, criterion, q.normalisation)


def greedy_metric_set(dataset: Dataset, q: QueenVsHumanQuery, progress: Progress = None) -> list[str]:
    """The metric set the greedy KING search selects among ``q.metrics``
    (:func:`evalcore.views.likeness_vs_acceptability.metric_set_search`)."""
    from .likeness_vs_acceptability import metric_set_search

    return metric_set_search(dataset, list(q.metrics), "greedy", progress=progress, settings=q.settings).chosen


def queen_figure(points: pd.DataFrame, q: QueenVsHumanQuery):
    """Figure 4 of ``points`` with the thresholds of ``q``."""
    from ..present import plots as P

    return P.figure4(points, q.human_threshold, q.queen_threshold, chosen(q.criterion, "a human criterion"),
                     "QUEEN{" + ",".join(q.metrics) + "}")
