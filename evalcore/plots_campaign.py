"""Plotly figures of the Campaign page that need no metric: the human scores of every system in
every language pair (:func:`evalcore.analysis.campaign.campaign` with no metric in, figure out), drawn
before any metric is scored. Names from user data go into labels through
:func:`evalcore.present.plot_text.safe` (plotly.express is not imported: this figure comes first). The correlation bars are :func:`evalcore.present.plots.campaign_bars`.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..present.plot_text import safe as _safe

_MARGIN = dict(t=60, b=50, l=50, r=20)


def human_bars(systems: pd.DataFrame, title: str | None = None, signature: str | None = None) -> go.Figure:
    """One group of bars per language pair (a two-level x axis: pair, then system), one bar per
    system: its human score (``systems`` rows of kind ``human``: the mean over its judged
    segments), best first within the pair; systems without a human score are left out of the
    figure (the table lists them). ``signature``: put into ``layout.meta`` as
    :func:`evalcore.present.plots.with_signature` does (written into exported HTML)."""
    h = systems[(systems["kind"] == "human") & systems["score"].notna()]
    fig = go.Figure()
    for lp in dict.fromkeys(h["lp"]):
        g = h[h["lp"] == lp].sort_values("score", ascending=False, kind="stable")
        fig.add_trace(go.Bar(x=[[_safe(lp or "-")] * len(g), [_safe(s) for s in g["system"]]],
                             y=g["score"].to_numpy(float), name=_safe(lp or "-"),
                             customdata=[_safe(m) for m in g["measure"]],
                             hovertemplate="%{x}<br>%{customdata}: %{y:.3f}<extra></extra>"))
    crit = ", ".join(dict.fromkeys(m.split(":", 1)[-1] for m in h["measure"])) or "human"
    fig.update_layout(title=title or f"Human score ({_safe(crit)}) of every system, per language pair",
                      height=420, margin=_MARGIN, showlegend=False, yaxis_title="mean human score",
                      xaxis_tickangle=-45)
    if signature:
        fig.layout.meta = {"signatures": signature}
    return fig
