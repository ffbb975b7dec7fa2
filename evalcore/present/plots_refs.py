"""Plotly figures for reference quality, reading comprehension and experts vs non-experts
(Callison-Burch 2009, Figures 1-4 and Table 3), testable without Streamlit.

Names that come from users (reference sets, systems, raters) are entity-escaped in labels.
"""
from __future__ import annotations

import html as _html

import pandas as pd
import plotly.graph_objects as go

_MARGIN = dict(t=60, b=60, l=60, r=20)
HUMAN, MT = "#4e79a7", "#e15759"


def _safe(v) -> str:
    return _html.escape(str(v), quote=True)


def reference_quality(summary: pd.DataFrame, metric: str,
                      title: str = "Each human translation against the others (Callison-Burch 2009, Figure 4)") -> go.Figure:
    """Bars: each human translation scored against the other reference sets (with the
    bootstrap 95 % CI when present); points with min-max bars: each MT system against the same
    held-out sets (mean over them); a dashed line at the human translations' mean."""
    t = summary[summary["metric"] == metric]
    hum, mt = t[t["kind"] == "human"], t[t["kind"] == "mt"]
    fig = go.Figure()
    err = (dict(type="data", symmetric=False, array=(hum["ci_hi"] - hum["mean"]).to_numpy(float),
                arrayminus=(hum["mean"] - hum["ci_lo"]).to_numpy(float)) if "ci_lo" in hum else None)
    fig.add_bar(x=[_safe(c) for c in hum["candidate"]], y=hum["mean"], name="human translation vs the others",
                marker_color=HUMAN, error_y=err, hovertemplate="%{x}<br>%{y:.2f}<extra></extra>")
    if len(mt):
        fig.add_scatter(x=[_safe(c) for c in mt["candidate"]], y=mt["mean"], mode="markers", name="MT system (mean over held-out sets)",
                        marker=dict(color=MT, size=10, symbol="diamond"),
                        error_y=dict(type="data", symmetric=False, array=(mt["max"] - mt["mean"]).to_numpy(float),
                                     arrayminus=(mt["mean"] - mt["min"]).to_numpy(float)),
                        hovertemplate="%{x}<br>mean %{y:.2f}<extra></extra>")
    if len(hum):
        m = float(hum["mean"].mean())
        fig.add_hline(y=m, line_dash="dash", line_color=HUMAN,
                      annotation_text=f"human mean {m:.2f}" + (f" (sd {hum['mean'].std(ddof=1):.2f})" if len(hum) > 1 else ""))
    fig.update_layout(title=title, margin=_MARGIN, height=460, legend=dict(orientation="h", y=-0.2))
    fig.update_yaxes(title=f"{_safe(metric)} against the other reference sets")
    return fig


def comprehension_bars(table: pd.DataFrame,
                       title: str = "Questions answered correctly (Callison-Burch 2009, Table 3)") -> go.Figure:
    """% correct per system with the bootstrap CI; human-reference control rows in blue."""
    t = table
    err = {"type": "data", "symmetric": False, "array": (t["ci_hi"] - t["pct_correct"]).to_numpy(float),
           "arrayminus": (t["pct_correct"] - t["ci_lo"]).to_numpy(float)}
    fig = go.Figure(go.Bar(x=[_safe(s) for s in t["system"]], y=t["pct_correct"], error_y=err,
                           marker_color=[HUMAN if k == "reference" else MT for k in t["kind"]],
                           hovertemplate="%{x}<br>%{y:.1f} % correct<extra></extra>"))
    fig.update_layout(title=title, margin=_MARGIN, height=420, showlegend=False)
    fig.update_yaxes(title="% of questions answered correctly", range=[0, 105])
    return fig


def rater_vs_gold(table: pd.DataFrame, chance: float | None = 1 / 3,
                  title: str = "Each non-expert's agreement with the gold raters (Callison-Burch 2009, Figure 2)") -> go.Figure:
    """Agreement with the gold raters against the number of judgements made; chance as a line."""
    t = table.dropna(subset=["p_agree"])
    fig = go.Figure(go.Scatter(x=t["n_labels"], y=t["p_agree"], mode="markers+text", text=[_safe(r) for r in t["rater"]],
                               textposition="top center", marker={"size": 11, "color": MT},
                               hovertemplate="%{text}<br>%{x} judgements<br>agreement %{y:.3f}<extra></extra>"))
    if chance is not None:
        fig.add_hline(y=chance, line_dash="dot", line_color="#888", annotation_text="chance")
    fig.update_layout(title=title, margin=_MARGIN, height=420, showlegend=False)
    fig.update_xaxes(title="pairwise judgements made")
    fig.update_yaxes(title="agreement with the gold raters", range=[0, 1.05])
    return fig


def combination_curves(curves: pd.DataFrame, gold_agreement: float | None = None,
                       title: str = "Agreement with the gold raters as non-experts are combined "
                                    "(Callison-Burch 2009, Figure 1)") -> go.Figure:
    """One line per combination method (±1 sd over resamples); the gold raters' own agreement
    as the top line."""
    fig = go.Figure()
    for method, g in curves.groupby("method", sort=False):
        fig.add_scatter(x=g["k"], y=g["agreement"], mode="lines+markers", name=_safe(method),
                        error_y={"type": "data", "array": g["sd"].fillna(0).to_numpy(float), "thickness": 1})
    if gold_agreement is not None and gold_agreement == gold_agreement:
        fig.add_hline(y=gold_agreement, line_dash="dash", line_color=HUMAN,
                      annotation_text=f"gold vs gold {gold_agreement:.3f}")
    fig.update_layout(title=title, margin=_MARGIN, height=420, legend={"orientation": "h", "y": -0.2})
    fig.update_xaxes(title="non-experts combined", dtick=1)
    fig.update_yaxes(title="agreement with the gold raters")
    return fig


def ranking_bars(table: pd.DataFrame,
                 title: str = "System-ranking correlation with the gold raters (Callison-Burch 2009, Figure 3)") -> go.Figure:
    """Spearman's ρ per ranking; the gold-vs-gold cross-validation bar with its sd over folds."""
    t = table
    colors = [HUMAN if str(r).startswith("gold") else MT if str(r).startswith("non-experts") else "#999" for r in t["ranking"]]
    fig = go.Figure(go.Bar(x=[_safe(r) for r in t["ranking"]], y=t["rho"], marker_color=colors,
                           error_y={"type": "data", "array": t["sd"].fillna(0).to_numpy(float)},
                           hovertemplate="%{x}<br>ρ %{y:.3f}<extra></extra>"))
    fig.update_layout(title=title, margin={**_MARGIN, "b": 140}, height=460, showlegend=False)
    fig.update_yaxes(title="Spearman's ρ with the gold ranking", range=[min(-0.1, float(t["rho"].min() or 0) - 0.1), 1.05])
    return fig
