"""Plotly figures of the Campaign page that need no metric: the human scores of every system in
every language pair (:func:`evalcore.campaign.campaign` with no metric in, figure out), drawn
before any metric is scored. Names from user data go into labels through
:func:`evalcore.plots._safe`. The correlation bars are :func:`evalcore.plots.campaign_bars`.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .plots import _safe

_MARGIN = dict(t=60, b=50, l=50, r=20)


def human_bars(systems: pd.DataFrame, title: str | None = None) -> go.Figure:
    """One panel per language pair, one bar per system: its human score (``systems`` rows of
    kind ``human``: the mean over its judged segments), best first; systems without a human
    score are left out of the figure (the table lists them)."""
    from plotly.subplots import make_subplots

    h = systems[(systems["kind"] == "human") & systems["score"].notna()]
    lps = list(dict.fromkeys(h["lp"]))
    fig = make_subplots(rows=1, cols=max(len(lps), 1), shared_yaxes=True, horizontal_spacing=0.03,
                        subplot_titles=[_safe(lp or "-") for lp in lps] or None)
    for k, lp in enumerate(lps):
        g = h[h["lp"] == lp].sort_values("score", ascending=False, kind="stable")
        fig.add_trace(go.Bar(x=[_safe(s) for s in g["system"]], y=g["score"].to_numpy(float),
                             customdata=[_safe(m) for m in g["measure"]], name=_safe(lp or "-"), showlegend=False,
                             marker_color="#0072B2",
                             hovertemplate="%{x}<br>%{customdata}: %{y:.3f}<extra></extra>"), row=1, col=k + 1)
    crit = ", ".join(dict.fromkeys(m.split(":", 1)[-1] for m in h["measure"])) or "human"
    fig.update_layout(title=title or f"Human score ({_safe(crit)}) of every system, per language pair",
                      height=420, margin=_MARGIN)
    fig.update_yaxes(title_text="mean human score", row=1, col=1)
    fig.update_xaxes(tickangle=-45)
    return fig
