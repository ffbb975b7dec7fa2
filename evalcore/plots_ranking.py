"""Figures of system rankings with significance clusters (methods §3.12) and of the metrics-task
table (methods §3.13). Names from user data go into labels through
:func:`evalcore.present.plot_text.safe`. Clusters and rank bands are told apart by colour *and* by text
(the cluster number or rank range is written on each bar).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..present.plot_text import safe as _safe

_MARGIN = dict(t=60, b=50, l=50, r=20)
# colour-blind-safe qualitative palette (Okabe & Ito 2008), cycled over clusters / rank bands
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")


def ranking_bars(ranking, title: str | None = None, signature: str | None = None) -> go.Figure:
    """One bar per system (descending score) of a :class:`~evalcore.stats.system_ranking.SystemRanking`,
    coloured by significance cluster, with the rank range written on the bar."""
    t = ranking.table()
    colors = [PALETTE[(c - 1) % len(PALETTE)] for c in t["cluster"]]
    fig = go.Figure(go.Bar(
        x=[_safe(s) for s in t["system"]], y=t["score"].to_numpy(float), marker_color=colors,
        text=[f"{r} (c{c})" for r, c in zip(t["rank_range"], t["cluster"])], textposition="outside",
        customdata=np.c_[t["rank_range"].to_numpy(), t["cluster"].to_numpy(), t["n_segments"].to_numpy()],
        hovertemplate="%{x}<br>score %{y:.3f}<br>rank %{customdata[0]}, cluster %{customdata[1]}"
                      "<br>%{customdata[2]} segments<extra></extra>"))
    lo, hi = float(np.nanmin(t["score"])), float(np.nanmax(t["score"]))
    pad = 0.08 * (hi - lo or 1.0)
    fig.update_layout(title=title or f"Systems ranked, clusters by {ranking.test} (α = {ranking.alpha:g})",
                      height=420, margin=_MARGIN, showlegend=False, yaxis_title="score",
                      yaxis_range=[lo - pad * 3, hi + pad * 2], xaxis_tickangle=-45)
    if signature:
        fig.layout.meta = {"signatures": signature}
    return fig


def ranking_heatmap(ranking, title: str | None = None, signature: str | None = None) -> go.Figure:
    """The N×N pairwise p-value matrix (descending score order); significant cells (p < α) are
    marked with ``*`` beside the value."""
    P = ranking.pvalues
    labels = [_safe(s) for s in ranking.systems]
    text = [["" if not np.isfinite(v) else f"{v:.2f}{'*' if v < ranking.alpha else ''}" for v in row] for row in P]
    fig = go.Figure(go.Heatmap(z=P, x=labels, y=labels, text=text, texttemplate="%{text}", zmin=0, zmax=1,
                               colorscale="Viridis_r", hoverongaps=False, colorbar=dict(title="p"),
                               hovertemplate="%{y} vs %{x}: p = %{z:.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    side = max(360, 32 * len(labels) + 160)
    fig.update_layout(title=title or f"Pairwise p-values ({ranking.test}; * p < {ranking.alpha:g})",
                      height=min(side, 800), margin=_MARGIN)
    if signature:
        fig.layout.meta = {"signatures": signature}
    return fig


def metatask_leaderboard(table: pd.DataFrame, title: str | None = None, signature: str | None = None) -> go.Figure:
    """Horizontal bars of the weighted average (metrics-task table), best on top, coloured by
    cluster when the table has clusters, else by rank band (integer part of the average rank);
    the band is written beside each bar."""
    t = table.sort_values("average", ascending=True, kind="stable")
    has_cluster = "cluster" in t and t["cluster"].notna().any()
    band = (t["cluster"].astype("Int64") if has_cluster else np.floor(t["average_rank"]).astype(int)).to_numpy()
    label = "cluster" if has_cluster else "rank band"
    colors = [PALETTE[(int(b) - 1) % len(PALETTE)] for b in band]
    fig = go.Figure(go.Bar(
        y=[_safe(m) for m in t["metric"]], x=t["average"].to_numpy(float), orientation="h", marker_color=colors,
        text=[f"{label} {int(b)} · avg rank {r:.2f}" for b, r in zip(band, t["average_rank"])], textposition="auto",
        hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_layout(title=title or "Metrics task: weighted average (values mapped to [0, 1])",
                      height=max(300, 34 * len(t) + 120), margin=dict(t=60, b=50, l=120, r=20),
                      xaxis_title="weighted average", showlegend=False)
    if signature:
        fig.layout.meta = {"signatures": signature}
    return fig


def metatask_values(values: pd.DataFrame, ci: dict | None = None, title: str | None = None,
                    signature: str | None = None) -> go.Figure:
    """Per-sub-task values (x: sub-task, one marker trace per metric), with error bars from
    ``ci`` ({(metric, subtask): (lo, hi)}) when given."""
    fig = go.Figure()
    cols = list(values.columns)
    for i, m in enumerate(values.index):
        y = values.loc[m].to_numpy(float)
        kw = {}
        if ci:
            lo = np.array([ci.get((m, c), (np.nan, np.nan))[0] for c in cols])
            hi = np.array([ci.get((m, c), (np.nan, np.nan))[1] for c in cols])
            kw["error_y"] = dict(type="data", symmetric=False, array=hi - y, arrayminus=y - lo)
        fig.add_trace(go.Scatter(x=[_safe(c) for c in cols], y=y, mode="markers", name=_safe(m),
                                 marker=dict(size=9, color=PALETTE[i % len(PALETTE)],
                                             symbol=["circle", "square", "diamond", "triangle-up", "x", "cross",
                                                     "star", "hexagon"][i % 8]), **kw))
    fig.update_layout(title=title or "Value per sub-task" + (" (95 % bootstrap CI over segments)" if ci else ""),
                      height=440, margin=_MARGIN, yaxis_title="value", xaxis_tickangle=-30,
                      legend=dict(orientation="h", y=1.1, x=1, xanchor="right"))
    if signature:
        fig.layout.meta = {"signatures": signature}
    return fig
