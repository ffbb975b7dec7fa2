"""Metric detective page: the catch-rate heat map (drawing only; the numbers are
:mod:`evalcore.analysis.detective`'s, methods §12)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .plot_text import safe


def catch_heatmap(matrix: pd.DataFrame, title: str) -> go.Figure:
    """Families (rows) × metrics (columns), colour = catch rate in [0, 1], the rate written in
    each cell; a family that applied to no output is blank."""
    z = matrix.to_numpy(float)
    text = [["" if not np.isfinite(v) else f"{v:.0%}" for v in row] for row in z]
    fig = go.Figure(go.Heatmap(z=z, x=[safe(c) for c in matrix.columns], y=[safe(i) for i in matrix.index],
                               text=text, texttemplate="%{text}", colorscale="Blues", zmin=0, zmax=1,
                               hoverongaps=False, colorbar=dict(title="caught"),
                               hovertemplate="%{y} · %{x}: caught %{z:.0%}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(title=safe(title), height=max(320, 34 * len(matrix) + 140),
                      margin=dict(t=50, b=40, l=10, r=10))
    return fig
