"""Plotly figures of the Compare page (:mod:`evalcore.analysis.compare` tables in, figures out).

Colours are Okabe & Ito's colour-blind-safe palette (:data:`evalcore.analysis.compare.COLOURS`); system
A is always orange and B blue, and a second cue (marker symbol, pattern or text) carries the
same information. Names from user data go into labels through :func:`evalcore.present.plot_text.safe`
(this module does not import plotly.express, so the page's first figure does not wait for it).
Scatters switch to WebGL (``scattergl``) above :data:`evalcore.present.plots.SCATTERGL_MIN` points.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..analysis.compare import COLOURS
from .plot_text import safe as _safe

_MARGIN = dict(t=60, b=50, l=60, r=20)
#: Text on the white page beside a bar (contrast 15.9:1 with white, WCAG 2.1 §1.4.3).
LABEL_COLOUR = "#222222"


def _winner_colour(winner: str, a: str, b: str) -> str:
    return COLOURS["a"] if winner == a else COLOURS["b"] if winner == b else COLOURS["tie"]


def win_rates(wins: pd.DataFrame, head: pd.DataFrame, a: str, b: str) -> go.Figure:
    """Per signal, the share of segments A wins and the share B wins (ties count half to each; 0.5
    = no preference), as one stacked bar: A's share in A's colour (orange) from the left, B's in
    B's colour (blue, hatched) to the right, so each colour shows the rate of its own system; the
    headline's significant winner (or "n.s.") is written beside the bar."""
    winner = head.set_index("signal")["winner"]
    sig = wins["signal"].tolist()
    w = [winner.get(s, "") for s in sig]
    y = [_safe(s) for s in sig]
    rate_a = wins["a_win_rate"].to_numpy(float)
    counts = np.c_[wins["a_wins"], wins["b_wins"], wins["ties"], wins["n_segments"]]
    hover = ("%{y}<br>A wins %{customdata[0]}, B wins %{customdata[1]}, ties %{customdata[2]} of "
             "%{customdata[3]} segments<br>")
    fig = go.Figure()
    fig.add_trace(go.Bar(y=y, x=rate_a, orientation="h", name=f"A = {_safe(a)}", marker_color=COLOURS["a"],
                         customdata=counts, hovertemplate=hover + "A win rate %{x:.2f}<extra></extra>"))
    fig.add_trace(go.Bar(
        y=y, x=1 - rate_a, orientation="h", name=f"B = {_safe(b)}", marker_color=COLOURS["b"],
        marker_pattern_shape="/", customdata=counts, hovertemplate=hover + "B win rate %{x:.2f}<extra></extra>",
        # the winner's name outside the bar in dark text on the page's white: inside, Plotly's
        # automatic white text was unreadable on B's blue-and-white hatching
        text=[_safe(x if x in (a, b) else "n.s.") for x in w], textposition="outside", cliponaxis=False,
        textfont={"color": LABEL_COLOUR}))
    fig.add_vline(x=0.5, line_dash="dash", line_color="#444")
    longest = max((len(str(x)) for x in (a, b, "n.s.")), default=4)
    fig.update_layout(barmode="stack",
                      title=f"Share of segments won by A = {_safe(a)} (orange) and by B = {_safe(b)} (blue, hatched)",
                      xaxis_title="win rate (ties count ½ to each); the name beside a bar: the significant winner",
                      xaxis_range=[0, 1], height=170 + 34 * len(sig),
                      # the legend in its own row between the title and the bars: below the plot,
                      # Plotly's horizontal legend overlapped the x-axis ticks and title
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0, traceorder="normal"),
                      margin=dict(_MARGIN, t=_MARGIN["t"] + 30, r=_MARGIN["r"] + 7 * longest))
    return fig


def scatter_ab(seg: pd.DataFrame, signal: str, a: str, b: str) -> go.Figure:
    """Per-segment score of A (x) against B (y) under ``signal``, with the diagonal; points
    above it favour B when higher is better."""
    from ..present.plots import SCATTERGL_MIN

    x, y = seg[f"{signal} A"].to_numpy(float), seg[f"{signal} B"].to_numpy(float)
    ok = np.isfinite(x) & np.isfinite(y)
    trace = go.Scattergl if ok.sum() > SCATTERGL_MIN else go.Scatter
    fig = go.Figure(trace(x=x[ok], y=y[ok], mode="markers", marker=dict(color="#444444", opacity=0.6, size=7),
                          text=[_safe(s) for s in seg["seg_id"][ok]],
                          hovertemplate="segment %{text}<br>A %{x:.3f}<br>B %{y:.3f}<extra></extra>"))
    if ok.any():
        lo, hi = float(min(x[ok].min(), y[ok].min())), float(max(x[ok].max(), y[ok].max()))
        fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", line=dict(color="#444", dash="dash"),
                                 hoverinfo="skip", showlegend=False))
    fig.update_layout(title=f"{_safe(signal)} per segment ({int(ok.sum())} segments)", showlegend=False,
                      xaxis_title=f"A = {_safe(a)}", yaxis_title=f"B = {_safe(b)}", height=430, margin=_MARGIN)
    return fig


def difference_histogram(seg: pd.DataFrame, signal: str, a: str, b: str) -> go.Figure:
    """Histogram of B − A per segment under ``signal``."""
    d = seg[f"Δ {signal}"].to_numpy(float)
    d = d[np.isfinite(d)]
    fig = go.Figure(go.Histogram(x=d, marker_color=COLOURS["agree"], nbinsx=40))
    fig.add_vline(x=0, line_dash="dash", line_color="#444")
    fig.update_layout(title=f"B − A per segment ({len(d)} segments)", xaxis_title=f"{_safe(signal)}: B − A",
                      yaxis_title="segments", height=430, margin=_MARGIN, bargap=0.05)
    return fig


def bucket_bars(table: pd.DataFrame, signal: str, a: str, b: str) -> go.Figure:
    """Both systems' scores per bucket under ``signal`` (A orange, B blue hatched), with the
    number of segments in the hover."""
    t = table[table["signal"] == signal]
    fig = go.Figure()
    for side, name, colour, pattern in (("a", a, COLOURS["a"], ""), ("b", b, COLOURS["b"], "/")):
        fig.add_trace(go.Bar(x=[_safe(x) for x in t["bucket"]], y=t[f"score_{side}"], name=f"{side.upper()} = {_safe(name)}",
                             marker_color=colour, marker_pattern_shape=pattern,
                             customdata=np.c_[t["n_segments"], t["a_win_rate"]],
                             hovertemplate="%{x}<br>score %{y:.3f}<br>segments %{customdata[0]}"
                                           "<br>A win rate %{customdata[1]:.2f}<extra></extra>"))
    kind = _safe(t["bucket_type"].iloc[0]) if len(t) else ""
    fig.update_layout(title=f"{_safe(signal)} by {kind}", barmode="group", height=400, margin=_MARGIN,
                      yaxis_title=_safe(signal), legend=dict(orientation="h", y=-0.25))
    return fig


def word_f_bars(table: pd.DataFrame, a: str, b: str) -> go.Figure:
    """Word F-measure per target-word frequency bucket, A and B side by side."""
    fig = go.Figure()
    for side, name, colour, pattern in (("A", a, COLOURS["a"], ""), ("B", b, COLOURS["b"], "/")):
        t = table[table["side"] == side]
        fig.add_trace(go.Bar(x=[_safe(x) for x in t["frequency"]], y=t["f_measure"], name=f"{side} = {_safe(name)}",
                             marker_color=colour, marker_pattern_shape=pattern,
                             customdata=np.c_[t["precision"], t["recall"], t["output_words"]],
                             hovertemplate="%{x}<br>F %{y:.3f}<br>precision %{customdata[0]:.3f}<br>recall "
                                           "%{customdata[1]:.3f}<br>output words %{customdata[2]}<extra></extra>"))
    fig.update_layout(title="Word F-measure by frequency of the word in the references", barmode="group",
                      yaxis_title="F-measure", yaxis_range=[0, 1], height=400, margin=_MARGIN,
                      xaxis_title="occurrences in the references of the test set", legend=dict(orientation="h", y=-0.3))
    return fig


def length_bias_bars(table: pd.DataFrame) -> go.Figure:
    """Partial correlation of each metric with the length ratio, controlling for the human score;
    positive: the metric rewards longer outputs at equal human quality."""
    colours = [COLOURS["longer"] if r == "longer outputs" else COLOURS["shorter"] if r == "shorter outputs"
               else COLOURS["tie"] for r in table["rewards"]]
    fig = go.Figure(go.Bar(x=[_safe(m) for m in table["metric"]], y=table["partial_r"], marker_color=colours,
                           text=[_safe(r) for r in table["rewards"]], textposition="outside",
                           customdata=np.c_[table["p_value"], table["n_points"]],
                           hovertemplate="%{x}<br>partial r %{y:.3f}<br>p %{customdata[0]:.3g}<br>outputs "
                                         "%{customdata[1]}<extra></extra>"))
    fig.add_hline(y=0, line_color="#444")
    crit = _safe(table["criterion"].iloc[0]) if len(table) else ""
    fig.update_layout(title=f"Length bias: metric vs output/reference length, controlling for {crit}",
                      yaxis_title="partial correlation", yaxis_range=[-1, 1], height=400, margin=_MARGIN)
    return fig
