"""Plotly figures of the "Learned metrics" page, testable without Streamlit.

Inputs are the frames / dicts of :mod:`evalcore.learned.pipeline`. Names that may come from
users (model names in metric ids) are entity-escaped before going into labels.
"""
from __future__ import annotations

import html as _html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

_MARGIN = dict(t=60, b=50, l=60, r=20)
_PALETTE = ["#e15759", "#4e79a7", "#f28e2b", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"]


def _safe(v) -> str:
    return _html.escape(str(v), quote=True)


def weights_figure(table: pd.DataFrame, value: str = "weight", err: str | None = None,
                   title: str = "Feature weights") -> go.Figure:
    """Horizontal bars of one value per feature (largest magnitude at the top), with an
    optional error column (e.g. the standard deviation of permutation importances)."""
    t = table.copy()
    t = t.reindex(t[value].abs().sort_values(ascending=True, kind="stable").index)
    colors = np.where(t[value].to_numpy(float) >= 0, "#4e79a7", "#e15759")
    fig = go.Figure(go.Bar(
        x=t[value], y=[_safe(f) for f in t["feature"]], orientation="h", marker_color=colors,
        error_x=dict(type="data", array=t[err].to_numpy(float), visible=True) if err and err in t else None,
        hovertemplate="%{y}<br>" + value + " %{x:.4f}<extra></extra>"))
    fig.update_layout(title=title, height=max(320, 22 * len(t) + 120), margin=_MARGIN, showlegend=False)
    fig.update_xaxes(title=value, zeroline=True, zerolinecolor="#888")
    return fig


def roc_figure(rocs: dict, title: str = "Telling human from machine translations (Kulesza 2004, Fig. 2.2)") -> go.Figure:
    """ROC curves in Kulesza 2004's orientation: x = fraction of human translations recognised as
    human (true-positive rate), y = fraction of machine translations recognised as machine
    (1 − false-positive rate). Better curves bend towards the upper right; the dotted
    diagonal is chance. The legend gives the area under each curve."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[1, 0], mode="lines", line=dict(dash="dot", color="#999"),
                             name="chance (AUC 0.5)", hoverinfo="skip"))
    order = sorted(rocs, key=lambda k: (not str(k).startswith("learned"), -rocs[k]["auc"]))
    for i, name in enumerate(order):
        r = rocs[name]
        learned = str(name).startswith("learned")
        fig.add_trace(go.Scatter(
            x=np.asarray(r["tpr"], float), y=1 - np.asarray(r["fpr"], float), mode="lines",
            name=f"{_safe(name)} (AUC {r['auc']:.3f})",
            line=dict(width=3.5 if learned else 1.8, color=_PALETTE[i % len(_PALETTE)],
                      shape="hv"),
            hovertemplate="humans recognised %{x:.2f}<br>machines recognised %{y:.2f}<extra>" + _safe(name)
                          + "</extra>"))
    fig.update_xaxes(title="human translations recognised as human", range=[0, 1.01])
    fig.update_yaxes(title="machine translations recognised as machine", range=[0, 1.01])
    fig.update_layout(title=title, height=460, margin=_MARGIN, legend=dict(x=1.02, y=1))
    return fig


def accuracy_correlation_figure(grid: pd.DataFrame, accuracy: str, meta: float, best: dict | None = None,
                                corr: str = "pearson",
                                title: str = "Classification accuracy vs correlation with humans (Kulesza 2004, Fig. 4.2)"
                                ) -> go.Figure:
    """One point per grid model (C, γ): x = classification accuracy (held-out, or
    cross-validated), y = its correlation with the human judgements of held-out MT outputs.
    The title carries the meta-correlation (Pearson across the grid); the selected model
    (best cross-validated accuracy) is circled; a least-squares line shows the trend."""
    g = grid.dropna(subset=[accuracy, corr]) if corr in grid else grid.iloc[0:0]
    labels = [f"C={c:g}" + ("" if gm is None or (isinstance(gm, float) and np.isnan(gm)) else f", γ={gm:g}")
              for c, gm in zip(g["C"], g["gamma"] if "gamma" in g else [None] * len(g))]
    fig = go.Figure(go.Scatter(x=g[accuracy], y=g[corr], mode="markers+text", text=labels, textposition="top center",
                               textfont=dict(size=10), marker=dict(size=10, color="#4e79a7"), name="grid model",
                               hovertemplate="%{text}<br>accuracy %{x:.3f}<br>" + corr + " %{y:.3f}<extra></extra>"))
    if len(g) >= 2 and g[accuracy].std() > 0:
        a, b = np.polyfit(g[accuracy].to_numpy(float), g[corr].to_numpy(float), 1)
        xs = np.array([g[accuracy].min(), g[accuracy].max()])
        fig.add_trace(go.Scatter(x=xs, y=a * xs + b, mode="lines", line=dict(dash="dash", color="#999"),
                                 name="least-squares line", hoverinfo="skip"))
    if best is not None and len(g):
        sel = g["C"] == best.get("C")
        if best.get("gamma") is not None and "gamma" in g:
            sel &= g["gamma"] == best["gamma"]
        if sel.any():
            fig.add_trace(go.Scatter(x=g.loc[sel, accuracy], y=g.loc[sel, corr], mode="markers", name="selected",
                                     marker=dict(size=20, color="rgba(0,0,0,0)", line=dict(width=2.5, color="#e15759")),
                                     hoverinfo="skip"))
    mc = "n/a" if meta is None or not np.isfinite(meta) else f"{meta:+.3f}"
    fig.update_layout(title=f"{title}<br><sup>meta-correlation (Pearson across {len(g)} models): {mc}</sup>",
                      height=460, margin=dict(t=80, b=50, l=60, r=20))
    fig.update_xaxes(title=f"classification accuracy ({accuracy.replace('_', ' ')})")
    fig.update_yaxes(title=f"{corr} with human judgements (held-out MT outputs)")
    return fig


COMPARISON_STATS = {"seg_darr": "segment daRR τ", "seg_acc23": "segment acc23", "sys_pearson": "system Pearson"}


def comparison_figure(table: pd.DataFrame, title: str = "Held-out comparison with sentence BLEU and chrF") -> go.Figure:
    """Grouped bars: for each statistic (segment-level daRR τ and acc23, system-level Pearson),
    one bar per metric; the learned metric is drawn in red."""
    fig = go.Figure()
    stats = [c for c in COMPARISON_STATS if c in table]
    for i, (_, row) in enumerate(table.iterrows()):
        learned = str(row["metric"]).startswith("learned")
        fig.add_trace(go.Bar(x=[COMPARISON_STATS[c] for c in stats], y=[row[c] for c in stats],
                             name=_safe(row["metric"]),
                             marker_color="#e15759" if learned else _PALETTE[1 + i % (len(_PALETTE) - 1)],
                             hovertemplate="%{x}: %{y:.3f}<extra>" + _safe(row["metric"]) + "</extra>"))
    fig.update_layout(title=title, barmode="group", height=380, margin=_MARGIN)
    fig.update_yaxes(title="value (higher = agrees more with humans)", zeroline=True, zerolinecolor="#888")
    return fig
