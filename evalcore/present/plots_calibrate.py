"""Plotly figure of the calibration section (Systems and Compare pages; methods §25.1): P(humans
agree | |Δ|) of one metric, the logistic and the isotonic curve with their bootstrap CI bands,
and the observed pairs (agree = 1, disagree = 0) as a rug. Okabe & Ito colours; the two curves
also differ by dash. Names from user data go through :func:`evalcore.present.plot_text.safe`."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from .plot_text import safe as _safe

COLOURS = {"logistic": "#0072B2", "isotonic": "#E69F00", "pairs": "#555555"}
BANDS = {"logistic": "rgba(0,114,178,0.18)", "isotonic": "rgba(230,159,0,0.18)"}


def agreement_curves(curves: pd.DataFrame, pairs: pd.DataFrame, metric: str, lp: str,
                     mark: float | None = None) -> go.Figure:
    """The curves of ``metric`` on ``lp`` (rows of the calibration's curve table), the pairs'
    outcomes, and a vertical line at ``mark`` (the difference the sentence reads)."""
    fig = go.Figure()
    for fit, dash in (("logistic", "solid"), ("isotonic", "dash")):
        c = curves[(curves["metric"] == metric) & (curves["lp"] == lp) & (curves["fit"] == fit)].sort_values("delta")
        if c.empty:
            continue
        fig.add_trace(go.Scatter(x=list(c["delta"]) + list(c["delta"])[::-1],
                                 y=list(c["hi"]) + list(c["lo"])[::-1], fill="toself", fillcolor=BANDS[fit],
                                 line=dict(width=0), hoverinfo="skip", name=f"{fit} CI", showlegend=False))
        fig.add_trace(go.Scatter(x=c["delta"], y=c["agreement"], mode="lines", name=fit,
                                 line=dict(color=COLOURS[fit], dash=dash, width=2.5),
                                 hovertemplate="|Δ| %{x:.3g}: P(agree) %{y:.2f}<extra>" + fit + "</extra>"))
    p = pairs[(pairs["metric"] == metric) & pairs["agree"].notna() & pairs["significant"].astype(bool)]
    if len(p):
        fig.add_trace(go.Scatter(x=p["delta"].abs(), y=p["agree"], mode="markers", name="pairs of systems",
                                 marker=dict(color=COLOURS["pairs"], symbol="line-ns-open", size=10),
                                 text=[f"{_safe(a)} vs {_safe(b)}" for a, b in zip(p["system_a"], p["system_b"])],
                                 hovertemplate="%{text}<br>|Δ| %{x:.3g}, agree %{y:.0f}<extra></extra>"))
    if mark is not None:
        fig.add_vline(x=abs(float(mark)), line=dict(color="#222222", dash="dot", width=1))
    fig.update_layout(title=f"P(humans agree | {_safe(metric)} difference), {_safe(lp)}",
                      xaxis_title=f"|Δ {_safe(metric)}| between two systems", yaxis_title="P(humans agree)",
                      yaxis=dict(range=[-0.05, 1.05]), margin=dict(t=60, b=50, l=60, r=20),
                      legend=dict(orientation="h", y=-0.2))
    return fig
