"""Figures of the human error spans (:mod:`evalcore.analysis.spans`): the error profile of each system
as stacked bars. Every name from the data goes through :func:`evalcore.present.plot_text.safe`."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..present.highlight import SEVERITY_STYLE
from ..present.plot_text import safe as _safe


def profile_bars(profile: pd.DataFrame, by: str = "severity", title: str | None = None) -> go.Figure:
    """Errors per annotated segment of each system, stacked by ``by`` (severity or category):
    one bar segment per level, the 95% bootstrap CI of each in its hover text (the table beside
    the figure has them as columns). ``profile``: :func:`evalcore.analysis.spans.error_profile`."""
    fig = go.Figure()
    systems = list(dict.fromkeys(profile["system"]))
    order = ["critical", "major", "minor", "neutral", "undecided"] if by == "severity" else None
    levels = list(dict.fromkeys(profile[by]))
    if order:
        levels = [x for x in order if x in levels] + [x for x in levels if x not in order]
    for level in levels:
        g = profile[profile[by] == level].set_index("system").reindex(systems)
        colour = SEVERITY_STYLE.get(level, (None, None))[0] if by == "severity" else None
        fig.add_trace(go.Bar(
            x=[_safe(s) for s in systems], y=g["errors_per_segment"].fillna(0.0), name=_safe(level),
            marker_color=colour, customdata=g[["lo", "hi", "errors", "items"]].fillna(0).to_numpy(),
            hovertemplate=f"%{{x}} · {_safe(level)}: %{{y:.3f}} errors per segment "
                          "(95% CI %{customdata[0]:.3f}–%{customdata[1]:.3f}; %{customdata[2]} errors in "
                          "%{customdata[3]} annotations)<extra></extra>"))
    fig.update_layout(barmode="stack", height=380, margin=dict(t=60, b=50, l=50, r=20),
                      title=_safe(title) if title else f"Errors per annotated segment, by {_safe(by)}",
                      yaxis_title="errors per segment", xaxis_title="", legend_title_text=_safe(by))
    fig.update_xaxes(tickangle=-35)
    return fig
