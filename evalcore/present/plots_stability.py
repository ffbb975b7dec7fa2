"""Figures of ranking stability (methods §24.1): each item's P(rank 1) and the range of ranks it
took under the perturbations. Names from user data go into labels through
:func:`evalcore.present.plot_text.safe`."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..present.plot_text import safe as _safe

_MARGIN = dict(t=60, b=50, l=50, r=20)
_BAR, _RANGE, _BASE = "#0072B2", "#E69F00", "#000000"   # Okabe & Ito (2008)


def stability_figure(table: pd.DataFrame, item: str, title: str | None = None) -> go.Figure:
    """Two panels over the items in base order: P(rank 1) as bars, and the rank range (lowest to
    highest position taken) as a line with the base rank marked."""
    from plotly.subplots import make_subplots

    t = table.sort_values("base_rank", na_position="last")
    names = [_safe(x) for x in t[item]]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("P(rank 1)", "rank range (● base rank)"))
    fig.add_trace(go.Bar(x=names, y=t["p_rank1"].astype(float), marker_color=_BAR, name="P(rank 1)",
                         text=[f"{p:.2f}" for p in t["p_rank1"]], textposition="outside",
                         hovertemplate="%{x}: P(rank 1) = %{y:.3f}<extra></extra>"), row=1, col=1)
    for name, lo, hi in zip(names, t["rank_lo"], t["rank_hi"]):
        if pd.notna(lo):
            fig.add_trace(go.Scatter(x=[name, name], y=[int(lo), int(hi)], mode="lines", line=dict(color=_RANGE, width=6),
                                     showlegend=False, hovertemplate=f"{name}: ranks {int(lo)}-{int(hi)}<extra></extra>"),
                          row=1, col=2)
    fig.add_trace(go.Scatter(x=names, y=t["base_rank"].astype(float), mode="markers", marker=dict(color=_BASE, size=9),
                             name="base rank", hovertemplate="%{x}: base rank %{y}<extra></extra>"), row=1, col=2)
    fig.update_yaxes(range=[0, 1.1], row=1, col=1)
    fig.update_yaxes(autorange="reversed", dtick=1, title_text="rank", row=1, col=2)
    fig.update_layout(title=title or f"How firm the {item} ranking is", height=420, margin=_MARGIN,
                      showlegend=False, xaxis_tickangle=-45, xaxis2_tickangle=-45)
    return fig
