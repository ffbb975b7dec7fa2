"""Likeness vs acceptability page (Amigó et al. 2006 Figure 3; methods §2-§3): each metric's
KING (human-likeness) against its correlation with the human scores, and the metric-set
search for the set whose QUEEN is most human-like.

Nothing here imports streamlit. Progress callbacks: ``progress(fraction in [0, 1], text)``.
"""
from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from ..core.dataset import Dataset
from ..core.progress import Progress, stage, sub_range
from ..scoring.scores import human_segment_scores, queen_index, segment_scores
from ..scoring.settings import DEFAULTS, Settings
from dataclasses import dataclass
from . import chosen
from .queries import Query


def _corr_frame(human: pd.DataFrame, scores: pd.DataFrame, method: str, level: str,
                bootstrap: int) -> pd.DataFrame:
    from ..stats.tables import correlation_table

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # resample segments (items): with few systems, resampling systems too makes the CI meaningless
        return correlation_table(human, scores, level=level, method=method, bootstrap=bootstrap, seed=0,
                                 resample="items" if level == "segment" else "systems")


def _queen_frame(qv, name: str) -> pd.DataFrame:
    df = qv.to_frame()
    df = df[np.isfinite(df["queen"].to_numpy(float))]
    return pd.DataFrame({"metric": name, "system": df["system"].to_numpy(), "seg_id": df["seg_id"].astype(str),
                         "score": df["queen"].to_numpy(float)})


GROUPS = ("standard metric", "QUEEN of one metric", "selected set")
COLUMNS = ["group", "label", "metrics", "king", "king_lo", "king_hi", "orange", "corr", "corr_lo", "corr_hi", "n",
           "n_segments"]


def figure3_points(dataset: Dataset, metric_ids: Sequence[str], criterion: str,
                   selected: Sequence[str] | None = None, method: str = "pearson", level: str = "segment",
                   mode: str = "auto", normalisation: str = "raw", ties: str = "geq", average: str = "micro",
                   bootstrap: int = 0, progress: Progress = None, settings: Settings = DEFAULTS,
                   groups: Sequence[str] = GROUPS) -> pd.DataFrame:
    """The points of Amigó et al. 2006 Figure 3 (methods §0): x = KING, y = correlation with the human
    criterion, in three groups:

    * ``standard metric``: KING of §1.1 (orange_king) vs corr(x(a, R_s), human);
    * ``QUEEN of one metric``: KING of {x} (§1.3) vs corr(QUEEN_{x}(a), human);
    * ``selected set``: KING(X) vs corr(QUEEN_X(a), human) for ``selected`` (default: the
      greedy search's set, methods §0).

    Correlations over the systems' (not the references') judged outputs; ``level`` segment
    (grouping none) or system. ``bootstrap`` > 0 adds percentile CIs for KING (segments
    resampled) and for the correlation (segments resampled at segment level, systems at
    system level; methods §3.8). At system level a system's metric (or QUEEN) score is the mean of
    its segment scores over the segments judged for it (``settings.judged_only``, the default) or
    over every segment it has a score for. ``settings.tokenizer``: the word-level metrics' tokenizer. Columns: group, label, metrics, king, king_lo, king_hi,
    orange, corr, corr_lo, corr_hi, n, n_segments.

    ``groups``: the groups to compute. Every row depends only on its own metric (or set): the
    rows computed one metric at a time, and the selected set's row alone, equal the rows computed
    together, CIs included (the page draws the figure metric by metric).
    """
    from ..qarla import greedy_search, orange_king

    judged_only, tokenize = settings.judged_only, settings.tokenizer
    refs = set(dataset.ref_ids)
    idx = queen_index(dataset, metric_ids, mode=mode, progress=stage(progress, 0.0, 0.5), tokenize=tokenize)
    human = human_segment_scores(dataset, criterion, normalisation, include_references=False)
    human = human[~human["system"].isin(refs)]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown group(s) {sorted(unknown)}; known: {', '.join(GROUPS)}")
    per_metric = [m for m in metric_ids if {"standard metric", "QUEEN of one metric"} & set(groups)]
    frames = []
    if "standard metric" in groups:
        frames.append(segment_scores(dataset, metric_ids, progress=stage(progress, 0.5, 0.8), tokenize=tokenize))
    if "QUEEN of one metric" in groups:
        for m in metric_ids:
            frames.append(_queen_frame(idx.values([m]), f"queen:{m}"))
    if "selected set" in groups:
        if selected is None:
            selected = greedy_search(None, mode=mode, ties=ties, average=average, index=idx).chosen
        the_set: list[str] = list(selected)
        set_name = "QUEEN{" + ",".join(the_set) + "}"
        frames.append(_queen_frame(idx.values(the_set), set_name))
    allscores = pd.concat(frames, ignore_index=True)
    if level == "system" and not judged_only:
        allscores = (allscores.groupby(["metric", "system"], sort=False)["score"].agg(["mean", "size"])
                     .reset_index().rename(columns={"mean": "score", "size": "n_segments"}).assign(seg_id=""))
    if level == "system":  # given system-level human scores win, as everywhere (human_system_scores)
        from ..human.scores import human_system_scores

        hsys = human_system_scores(dataset, criterion, normalisation, include_references=False).table
        if (hsys["source"] == "given").any():
            if judged_only:  # each system's metric score over its judged segments, computed here
                judged = allscores.merge(human[["system", "seg_id"]], on=["system", "seg_id"])
                allscores = (judged.groupby(["metric", "system"], sort=False)["score"].agg(["mean", "size"])
                             .reset_index().rename(columns={"mean": "score", "size": "n_segments"}).assign(seg_id=""))
            hsys = hsys[~hsys["system"].isin(refs)]
            human = pd.DataFrame({"system": hsys["system"], "seg_id": "", "score": hsys["score"]})
    if progress:
        progress(0.85, "correlations")
    corr = _corr_frame(human, allscores, method, level, bootstrap).set_index("metric")
    rows = []

    def ci(res, key):
        lo, hi = res.ci.get(key, (np.nan, np.nan)) if res.ci else (np.nan, np.nan)
        return lo, hi

    def crow(name):
        if name in corr.index:
            r = corr.loc[name]
            return float(r["value"]), float(r["ci_low"]), float(r["ci_high"]), int(r["n"])
        return np.nan, np.nan, np.nan, 0

    def nseg(name):
        sub = allscores[allscores["metric"] == name]
        if "n_segments" in sub and (sub["seg_id"] == "").all():
            return int(sub["n_segments"].max()) if len(sub) else 0
        cells = sub.merge(human[["system", "seg_id"]], on=["system", "seg_id"])
        return int(cells["seg_id"].nunique())

    ts = idx.tensors
    for m in per_metric:
        if "standard metric" in groups:
            ok = orange_king(ts[m], ties=ties, average=average, bootstrap=bootstrap)
            c, clo, chi, n = crow(m)
            klo, khi = ci(ok, "king")
            rows.append({"group": "standard metric", "label": m, "metrics": m, "king": ok.king, "king_lo": klo,
                         "king_hi": khi, "orange": ok.orange, "corr": c, "corr_lo": clo, "corr_hi": chi, "n": n,
                         "n_segments": nseg(m)})
        if "QUEEN of one metric" in groups:
            kq = idx.king([m], ties=ties, average=average, bootstrap=bootstrap)
            c, clo, chi, n = crow(f"queen:{m}")
            klo, khi = ci(kq, "king")
            rows.append({"group": "QUEEN of one metric", "label": f"QUEEN({m})", "metrics": m, "king": kq.king,
                         "king_lo": klo, "king_hi": khi, "orange": kq.orange, "corr": c, "corr_lo": clo,
                         "corr_hi": chi, "n": n, "n_segments": nseg(f"queen:{m}")})
    if "selected set" in groups:
        ks = idx.king(the_set, ties=ties, average=average, bootstrap=bootstrap)
        c, clo, chi, n = crow(set_name)
        klo, khi = ci(ks, "king")
        rows.append({"group": "selected set", "label": set_name, "metrics": ",".join(the_set), "king": ks.king,
                     "king_lo": klo, "king_hi": khi, "orange": ks.orange, "corr": c, "corr_lo": clo,
                     "corr_hi": chi, "n": n, "n_segments": nseg(set_name)})
    if progress:
        progress(1.0, "Figure 3 ready")
    return pd.DataFrame(rows, columns=COLUMNS)


def metric_set_search(dataset: Dataset, metric_ids: Sequence[str], method: str = "greedy",
                      mode: str = "auto", ties: str = "geq", average: str = "micro",
                      progress: Progress = None, min_coverage: float = 0.95,
                      exclude_degenerate: bool = True, settings: Settings = DEFAULTS):
    """Greedy (methods §0) or exhaustive (≤ 12 metrics) KING-driven metric-set search; returns the
    :class:`~evalcore.qarla.search.SearchResult` (chosen set, KING, ORANGE, ranking, trace, and
    ``excluded``: the metrics left out first because their :func:`~evalcore.qarla.search.coverage`
    (defined similarities among the pairs whose texts exist, from the dataset's texts) is below
    ``min_coverage`` (0 disables) or, with ``exclude_degenerate``, because their single-metric
    KING is decided by ties (KING ≥ 0.99, tie rate ≥ 0.9; docs/findings.md).
    ``settings.tokenizer``: the word-level metrics' tokenizer."""
    from ..qarla import exhaustive_search, greedy_search
    from ..qarla.search import text_presence

    idx = queen_index(dataset, metric_ids, mode=mode, progress=stage(progress, 0.0, 0.4),
                      tokenize=settings.tokenizer)
    cb = sub_range(progress, 0.4, 1.0, f"{method} search")
    kw = dict(mode=mode, ties=ties, average=average, index=idx, progress=cb, min_coverage=min_coverage,
              exclude_degenerate=exclude_degenerate,
              presence=text_presence(dataset, next(iter(idx.tensors.values()))))
    if method == "greedy":
        return greedy_search(None, **kw)
    if method == "exhaustive":
        return exhaustive_search(None, **kw)
    raise ValueError("method must be greedy or exhaustive")


# ---------------------------------------------------------------- the page's query and view-model
# (a frozen query: the page's cache key; each function takes (data, query); docs/architecture.md)
@dataclass(frozen=True)
class LikenessQuery(Query):
    metrics: tuple[str, ...] = ()
    criterion: str | None = None
    method: str = "pearson"
    level: str = "segment"
    mode: str = "auto"
    normalisation: str = "raw"
    ties: str = "geq"
    average: str = "micro"
    bootstrap: int = 0
    selected: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None
    search: str = "greedy"
    min_coverage: float = 0.95


def likeness_points(dataset: Dataset, q: LikenessQuery, progress: Progress = None) -> pd.DataFrame:
    """Figure 3's points (:func:`evalcore.views.likeness_vs_acceptability.figure3_points`)."""
    from . import likeness_vs_acceptability as V

    return V.figure3_points(dataset, list(q.metrics), chosen(q.criterion, "a human criterion"),
                            list(q.selected) if q.selected else None, q.method,
                            q.level, q.mode, q.normalisation, q.ties, q.average, q.bootstrap, progress=progress,
                            settings=q.settings, groups=q.groups or V.GROUPS)


def likeness_search(dataset: Dataset, q: LikenessQuery, progress: Progress = None) -> dict:
    """The metric-set search of ``q.search`` over ``q.metrics`` as a dict (chosen, king, orange,
    ranking, trace, excluded; :func:`evalcore.views.likeness_vs_acceptability.metric_set_search`)."""
    r = metric_set_search(dataset, list(q.metrics), q.search, q.mode, q.ties, q.average, progress=progress,
                          min_coverage=q.min_coverage, settings=q.settings)
    return {"chosen": r.chosen, "king": r.king, "orange": r.orange, "ranking": r.ranking, "trace": r.trace,
            "excluded": r.excluded}


def likeness_figure(points: pd.DataFrame, q: LikenessQuery):
    """Figure 3 of ``points``."""
    from ..present import plots as P

    return P.figure3(points, f"{q.method} with {q.criterion} ({q.level} level)")


def search_trace_figure(trace: pd.DataFrame, q: LikenessQuery):
    """The greedy search's trace."""
    from ..present import plots as P

    return P.search_trace(trace)
