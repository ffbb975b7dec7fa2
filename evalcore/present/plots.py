"""Plotly figures built from evalcore tables (testable without Streamlit).

Large scatters use WebGL traces (``scattergl``). Texts from users go into hover labels and
titles only through Plotly, which escapes them.
"""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..present.plot_text import safe as _safe  # one label escaper (plot_text: importable without plotly.express)


def length_histogram(lengths: pd.DataFrame, max_bins: int = 80) -> go.Figure:
    """Token-length distributions of sources, references and outputs (overlaid histograms, %
    of the texts of each kind per length bin). Binned here (integer bins of equal width, at
    most ``max_bins``), so the figure carries a few hundred numbers instead of every text's
    length (a WMT test set has ~17,000 texts; the browser would bin them all before drawing)."""
    import math

    import numpy as np

    df = lengths.dropna(subset=["length"])
    fig = go.Figure()
    if len(df):
        lo, hi = int(df["length"].min()), int(df["length"].max())
        width = max(1, math.ceil((hi - lo + 1) / max_bins))
        edges = np.arange(lo, hi + width + 1, width)
        for kind, g in df.groupby("kind", sort=False):
            counts, _ = np.histogram(g["length"].to_numpy(float), bins=edges)
            pct = 100.0 * counts / len(g)
            label = [f"{a}" if width == 1 else f"{a}–{a + width - 1}" for a in edges[:-1]]
            fig.add_trace(go.Bar(x=edges[:-1] + (width - 1) / 2, y=pct, width=width, name=str(kind), opacity=0.6,
                                 customdata=np.c_[label, counts],
                                 hovertemplate=f"{kind}: length %{{customdata[0]}}: %{{y:.1f}}% "
                                               "(%{customdata[1]} texts)<extra></extra>"))
    fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(title="length (whitespace tokens)")
    fig.update_yaxes(title="% of texts of that kind")
    fig.update_layout(title="Length distributions", height=360, margin=dict(t=50, b=40, l=40, r=10))
    return fig


# =============================================================================================
# Dashboard figures (Amigó et al. 2006 Figures 1, 3, 4; systems; judges). Inputs are evalcore.views frames.
# =============================================================================================
import numpy as np  # noqa: E402

SCATTERGL_MIN = 1000  # points above which scatters use WebGL (scattergl)
_MARGIN = dict(t=60, b=50, l=50, r=20)


def _err(df: pd.DataFrame, val: str, lo: str, hi: str):
    if lo not in df or hi not in df or not np.isfinite(df[[lo, hi]].to_numpy(float)).any():
        return None, None
    v = df[val].to_numpy(float)
    return np.clip(df[hi].to_numpy(float) - v, 0, None), np.clip(v - df[lo].to_numpy(float), 0, None)


def figure1(table: pd.DataFrame, title: str = "ORANGE and KING per metric (Amigó et al. 2006, Figure 1)") -> go.Figure:
    """Grouped bars of ORANGE and KING per metric with their random baselines: ORANGE 1/2
    (dashed line) and KING 1/(|A_s|+1) averaged per metric (black dashes on each KING bar);
    bootstrap CIs as error bars when the table has them."""
    fig = go.Figure()
    names = [_safe(m) for m in table["metric"]]
    for col, color in (("orange", "#f28e2b"), ("king", "#4e79a7")):
        up, down = _err(table, col, f"{col}_lo", f"{col}_hi")
        fig.add_trace(go.Bar(
            x=names, y=table[col], name=col.upper(), marker_color=color, offsetgroup=col,
            error_y=None if up is None else dict(type="data", array=up, arrayminus=down, visible=True),
            customdata=np.c_[table["tie_rate"].to_numpy(float), table["n_cases"].to_numpy(float)],
            hovertemplate=f"%{{x}}<br>{col.upper()} %{{y:.3f}}<br>tie rate %{{customdata[0]:.3f}}"
                          "<br>cases %{customdata[1]:.0f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=names, y=table["king_random"], mode="markers", name="random KING 1/(|A|+1)",
                             marker=dict(symbol="line-ew-open", size=28, color="black", line=dict(width=3)),
                             hovertemplate="%{x}<br>random KING %{y:.3f}<extra></extra>"))
    fig.add_hline(y=0.5, line_dash="dash", line_color="#f28e2b",
                  annotation_text="random ORANGE = 0.5", annotation_position="top left")
    fig.update_layout(title=title, barmode="group", height=430, margin=_MARGIN, yaxis_title="probability",
                      yaxis_range=[0, max(0.75, float(np.nanmax(table[["orange", "king"]].to_numpy(float))) + 0.1)
                                   if len(table) else [0, 1]],
                      legend=dict(orientation="h", y=-0.2))
    return fig


_GROUP_STYLE = {"standard metric": ("#4e79a7", "circle"), "QUEEN of one metric": ("#59a14f", "diamond"),
                "selected set": ("#e15759", "star")}


def figure3(points: pd.DataFrame, corr_label: str = "correlation with human judgements",
            title: str = "Human likeness (KING) vs acceptability (Amigó et al. 2006, Figure 3)") -> go.Figure:
    """KING (x) against correlation with the human criterion (y) for the three groups of methods
    §0; hover shows the metric, both values and their CIs; error bars when CIs exist."""
    fig = go.Figure()
    for group, g in points.groupby("group", sort=False):
        color, symbol = _GROUP_STYLE.get(str(group), ("#888", "circle"))
        ex_up, ex_dn = _err(g, "king", "king_lo", "king_hi")
        ey_up, ey_dn = _err(g, "corr", "corr_lo", "corr_hi")
        cd = np.c_[[_safe(x) for x in g["label"]], g["king_lo"], g["king_hi"], g["corr_lo"], g["corr_hi"],
                   g["orange"], g["n"]]
        fig.add_trace(go.Scatter(
            x=g["king"], y=g["corr"], mode="markers" if group == "QUEEN of one metric" else "markers+text",
            name=group, text=[_safe(x) for x in g["label"]],
            textposition="top center", textfont=dict(size=10),
            marker=dict(color=color, symbol=symbol, size=14 if group == "selected set" else 10,
                        line=dict(width=1, color="white")),
            error_x=None if ex_up is None else dict(type="data", array=ex_up, arrayminus=ex_dn, thickness=0.8,
                                                    width=2, color=color),
            error_y=None if ey_up is None else dict(type="data", array=ey_up, arrayminus=ey_dn, thickness=0.8,
                                                    width=2, color=color),
            customdata=cd,
            hovertemplate="<b>%{customdata[0]}</b><br>KING %{x:.3f} [%{customdata[1]:.3f}, %{customdata[2]:.3f}]"
                          f"<br>{corr_label} %{{y:.3f}} [%{{customdata[3]:.3f}}, %{{customdata[4]:.3f}}]"
                          "<br>ORANGE %{customdata[5]:.3f}<br>n %{customdata[6]}<extra></extra>"))
    fig.update_layout(title=title, height=520, margin=_MARGIN, xaxis_title="KING (human likeness)",
                      yaxis_title=corr_label, legend=dict(orientation="h", y=-0.15))
    return fig


def figure4(points: pd.DataFrame, human_threshold: float | None = None, queen_threshold: float | None = None,
            criterion: str = "human score", set_label: str = "QUEEN",
            title: str = "QUEEN vs human judgements (Amigó et al. 2006, Figure 4)") -> go.Figure:
    """QUEEN_X of every (system, segment) (x) against its human score (y), one colour per
    system (WebGL above SCATTERGL_MIN points); the quadrant "acceptable to humans but not
    human-like" (human ≥ threshold, QUEEN ≤ threshold) is shaded. Each point's customdata is
    (system, seg_id) so a selection can be sent to the divergence browser."""
    gl = len(points) > SCATTERGL_MIN
    Trace = go.Scattergl if gl else go.Scatter
    fig = go.Figure()
    rng = np.random.default_rng(0)
    for system, g in points.groupby("system", sort=False):
        jitter = rng.uniform(-0.006, 0.006, len(g))  # QUEEN values are coarse fractions: spread ties
        fig.add_trace(Trace(
            x=g["queen"].to_numpy(float) + jitter, y=g["human"], mode="markers", name=_safe(system),
            marker=dict(size=7, opacity=0.75),
            customdata=np.c_[[str(system)] * len(g), g["seg_id"].astype(str), g["queen"].to_numpy(float)],
            hovertemplate=f"<b>{_safe(system)}</b><br>segment %{{customdata[1]}}<br>{_safe(set_label)} "
                          f"%{{customdata[2]:.3f}}<br>{_safe(criterion)} %{{y:.2f}}<extra></extra>"))
    if human_threshold is not None and queen_threshold is not None and len(points) \
            and np.isfinite(human_threshold) and np.isfinite(queen_threshold):
        ymax = float(points["human"].max())
        fig.add_shape(type="rect", x0=-0.02, x1=queen_threshold, y0=human_threshold, y1=ymax + 0.02 * abs(ymax or 1),
                      fillcolor="rgba(225,87,89,0.12)", line=dict(color="rgba(225,87,89,0.8)", dash="dot"),
                      layer="below")
        fig.add_annotation(x=0, y=ymax, xanchor="left", yanchor="bottom", showarrow=False,
                           text="acceptable to humans, not human-like", font=dict(color="#c03030"))
    fig.update_layout(title=title, height=540, margin=_MARGIN, xaxis_title=f"{_safe(set_label)} (human likeness)",
                      yaxis_title=_safe(criterion), legend=dict(title="system"), dragmode="select")
    return fig


def system_bars(table: pd.DataFrame, measures: list[str] | None = None,
                title: str = "System scores with 95% bootstrap CIs") -> go.Figure:
    """One small bar chart per measure (independent y axes), systems as bars, human
    translations in grey, error bars = the bootstrap CI of :func:`evalcore.views.systems.system_table`."""
    import plotly.express as px  # (lazy: a page's first figure does not wait for it)
    df = table if measures is None else table[table["measure"].isin(measures)]
    df = df.assign(kind_label=np.where(df["is_reference"], "human translation", "MT system"),
                   err_up=(df["ci_hi"] - df["score"]).clip(lower=0), err_dn=(df["score"] - df["ci_lo"]).clip(lower=0),
                   system_label=[_safe(s) for s in df["system"]])
    n = df["measure"].nunique()
    cols = min(3, max(n, 1))
    rows = -(-n // cols) if n else 1
    # room for the rotated system names below each panel and the next panel's title above it:
    # real names (WMT's "Unbabel-Tower70B", "CommandR-plus") run into the next row otherwise
    label_px = bar_label_px(df["system"])
    gap_px = label_px + BAR_TITLE_PX
    area_px = rows * BAR_PANEL_PX + (rows - 1) * gap_px
    spacing = gap_px / area_px if rows > 1 else 0.0
    fig = px.bar(df, x="system_label", y="score", color="kind_label", facet_col="measure", facet_col_wrap=cols,
                 error_y="err_up", error_y_minus="err_dn", facet_row_spacing=spacing, facet_col_spacing=0.06,
                 color_discrete_map={"MT system": "#4e79a7", "human translation": "#9c9c9c"},
                 hover_data={"mark": True, "ci_lo": ":.3f", "ci_hi": ":.3f", "kind_label": False},
                 labels={"system_label": "", "score": "", "kind_label": ""})
    fig.update_yaxes(matches=None, showticklabels=True)
    fig.update_xaxes(tickangle=-BAR_TICK_ANGLE, showticklabels=True, automargin=True)
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    margin = dict(_MARGIN, b=_MARGIN["b"] + label_px)
    fig.update_layout(title=title, height=int(area_px + margin["t"] + margin["b"]), margin=margin,
                      legend=dict(orientation="h", y=1.06, x=1, xanchor="right"))
    return fig


#: Bar-chart grid geometry (pixels): a panel's plotting height, the height of a panel's title,
#: the angle of the system names and the width of one character at Plotly's 12 px default font.
BAR_PANEL_PX = 240
BAR_TITLE_PX = 36
BAR_TICK_ANGLE = 45
BAR_CHAR_PX = 7.0


def bar_label_px(names) -> float:
    """Vertical extent (px) of the longest system name rotated by :data:`BAR_TICK_ANGLE`."""
    longest = max((len(str(s)) for s in names), default=0)
    return float(np.ceil(longest * BAR_CHAR_PX * np.sin(np.radians(BAR_TICK_ANGLE)) + 12))


def rater_distributions(dist: pd.DataFrame, title: str = "Per-rater score distributions",
                        max_points: int = 5000) -> go.Figure:
    """Box plots per rater before (raw) and after normalisation, side by side (independent y).
    Above ``max_points`` ratings the boxes are drawn from precomputed quartiles (Tukey fences
    at 1.5 IQR) so the figure stays small."""
    import plotly.express as px  # (lazy: a page's first figure does not wait for it)
    stages = list(dict.fromkeys(dist["stage"]))
    if len(dist) <= max_points:
        df = dist.assign(rater_label=[_safe(r) for r in dist["rater"]])
        fig = px.box(df, x="rater_label", y="score", color="rater_label", facet_col="stage", points="outliers",
                     labels={"rater_label": "rater", "score": "score"})
        fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    else:
        from plotly.subplots import make_subplots

        fig = make_subplots(rows=1, cols=len(stages), subplot_titles=[_safe(s) for s in stages])
        for c, stage in enumerate(stages, start=1):
            g = dist[dist["stage"] == stage].groupby("rater", sort=False)["score"]
            q = g.quantile([0.25, 0.5, 0.75]).unstack()
            lo, hi = g.min(), g.max()
            iqr = q[0.75] - q[0.25]
            fig.add_trace(go.Box(x=[_safe(r) for r in q.index], q1=q[0.25], median=q[0.5], q3=q[0.75],
                                 lowerfence=np.maximum(lo, q[0.25] - 1.5 * iqr),
                                 upperfence=np.minimum(hi, q[0.75] + 1.5 * iqr), name=_safe(stage),
                                 showlegend=False), row=1, col=c)
    fig.update_yaxes(matches=None, showticklabels=True)
    fig.update_layout(title=title, height=400, margin=_MARGIN, showlegend=False)
    return fig


def heatmap(matrix: pd.DataFrame, title: str, zmin: float | None = None, zmax: float | None = None,
            colorscale: str = "RdBu") -> go.Figure:
    """Annotated heatmap of a square frame (agreement, kappa, Kendall between rankings)."""
    z = matrix.to_numpy(float)
    labels_x = [_safe(c) for c in matrix.columns]
    labels_y = [_safe(c) for c in matrix.index]
    text = [["" if not np.isfinite(v) else f"{v:.2f}" for v in row] for row in z]
    fig = go.Figure(go.Heatmap(z=z, x=labels_x, y=labels_y, text=text, texttemplate="%{text}",
                               colorscale=colorscale, zmin=zmin, zmax=zmax, hoverongaps=False,
                               hovertemplate="%{y} × %{x}: %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    side = max(320, 40 * len(matrix) + 140)
    fig.update_layout(title=title, height=min(side, 700), margin=_MARGIN)
    return fig


def agreement_curve(curve: pd.DataFrame, title: str = "Agreement with one judge as the other judges are added") -> go.Figure:
    """Agreement with a reference judge (line per reference) as k other judges are combined
    (Callison-Burch 2009 Fig. 1), ±1 sd over resamples."""
    fig = go.Figure()
    for ref, g in curve.groupby("reference", sort=False):
        fig.add_trace(go.Scatter(x=g["k"], y=g["agreement"], mode="lines+markers", name=f"vs {_safe(ref)}",
                                 error_y=dict(type="data", array=g["sd"].fillna(0).to_numpy(float), thickness=1)))
    fig.update_layout(title=title, height=380, margin=_MARGIN, xaxis_title="judges combined (majority vote)",
                      yaxis_title="agreement with the reference judge", xaxis=dict(dtick=1))
    return fig


def search_trace(trace: pd.DataFrame, title: str = "Greedy metric-set search (KING after each step)") -> go.Figure:
    """KING of the set after trying each metric in rank order; kept metrics filled."""
    t = trace.copy()
    labels = [_safe(m) for m in t["metric"]]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=labels, y=t["king_after"], mode="lines+markers", name="KING if added",
                             marker=dict(size=11, color=np.where(t["kept"], "#e15759", "white"),
                                         line=dict(color="#e15759", width=2)),
                             hovertemplate="%{x}: KING %{y:.3f}<extra></extra>"))
    if "king_single" in t:
        fig.add_trace(go.Bar(x=labels, y=t["king_single"], name="KING of the metric alone", opacity=0.35,
                             marker_color="#4e79a7"))
    fig.update_layout(title=title, height=380, margin=_MARGIN, yaxis_title="KING",
                      legend=dict(orientation="h", y=-0.25))
    return fig


def divergence_scatter(div: pd.DataFrame, a: str, b: str, highlight: int = 50,
                       title: str = "Rank of each output under both signals") -> go.Figure:
    """Rank-normalised signal a (x) vs b (y) of the filtered outputs; the most divergent
    ``highlight`` rows are red (WebGL above SCATTERGL_MIN points)."""
    Trace = go.Scattergl if len(div) > SCATTERGL_MIN else go.Scatter
    top = np.zeros(len(div), bool)
    top[:highlight] = True
    fig = go.Figure()
    for flag, name, color in ((False, "others", "#9cb4d8"), (True, f"top {highlight} divergent", "#e15759")):
        g = div[top == flag]
        fig.add_trace(Trace(x=g["rank_a"], y=g["rank_b"], mode="markers", name=name,
                            marker=dict(color=color, size=6, opacity=0.7),
                            customdata=np.c_[[_safe(s) for s in g["system"]], g["seg_id"].astype(str)],
                            hovertemplate="%{customdata[0]} · segment %{customdata[1]}<br>"
                                          "rank a %{x:.2f} · rank b %{y:.2f}<extra></extra>"))
    fig.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line=dict(dash="dot", color="#888"))
    fig.update_layout(title=title, height=420, margin=_MARGIN, xaxis_title=f"rank of {_safe(a)} (0 worst, 1 best)",
                      yaxis_title=f"rank of {_safe(b)}")
    return fig


def signal_by_system(signals: pd.DataFrame, column: str, title: str | None = None) -> go.Figure:
    """Box plot of one signal (a column of :func:`evalcore.views.divergence.signal_table`) per
    system over the outputs that have it: the Divergence browser's first figure (the human
    scores need no metric). The boxes are drawn from quartiles computed here (linear
    interpolation; whiskers at the most extreme values within 1.5 IQR of the box, Tukey), so the
    figure carries five numbers per system and the outliers beyond the whiskers as points
    (trace ``outliers``) instead of every output's score.
    ``title`` is plain text (escaped here)."""
    import numpy as np

    g = signals.loc[signals[column].notna(), ["system", column]]
    names, q1, med, q3, lo, hi, n = [], [], [], [], [], [], []
    out_x, out_y = [], []
    for system, vals in g.groupby("system", sort=False)[column]:
        v = np.sort(vals.to_numpy(float))
        a, m, b = np.percentile(v, [25, 50, 75])
        iqr = b - a
        names.append(_safe(system))
        q1.append(a)
        med.append(m)
        q3.append(b)
        n.append(len(v))
        inside = (v >= a - 1.5 * iqr) & (v <= b + 1.5 * iqr)
        lo.append(float(v[inside].min()))
        hi.append(float(v[inside].max()))
        out_x += [names[-1]] * int((~inside).sum())
        out_y += v[~inside].tolist()
    fig = go.Figure(go.Box(x=names, q1=q1, median=med, q3=q3, lowerfence=lo, upperfence=hi,
                           marker_color="#4e79a7", name=_safe(column), customdata=n,
                           hovertemplate="%{x}: median %{median:.2f}, quartiles %{q1:.2f}–%{q3:.2f} "
                                         "(%{customdata} outputs)<extra></extra>"))
    # the outliers (beyond the whiskers) as points: the five numbers alone would hide them
    fig.add_trace(go.Scatter(x=out_x, y=out_y, mode="markers", name="outliers",
                             marker=dict(color="#4e79a7", size=5, symbol="circle-open"),
                             hovertemplate="%{x}: %{y:.2f} (beyond 1.5 IQR)<extra></extra>"))
    fig.update_layout(title=_safe(title) if title else f"{_safe(column)} of each system's outputs", height=360,
                      margin=_MARGIN, xaxis_title="", yaxis_title=_safe(column), showlegend=False)
    fig.update_xaxes(tickangle=-35)
    return fig


def with_signature(fig: go.Figure, signature: str) -> go.Figure:
    """``fig`` with the metric signatures in ``layout.meta`` (written into exported HTML/JSON).
    Modifies and returns the figure (cheap: no copy)."""
    fig.layout.meta = {"signatures": signature}
    return fig


def campaign_bars(corr: pd.DataFrame, statistic: str = "pearson",
                  title: str | None = None) -> go.Figure:
    """Campaign correlations (:func:`evalcore.analysis.campaign.campaign`): one group of bars per language
    pair (and the averaged / pooled ``(all)``), one bar per metric (Kocmi et al. 2021)."""
    import plotly.express as px  # (lazy: a page's first figure does not wait for it)
    df = corr.assign(lp_label=[_safe(s) for s in corr["lp"]], metric_label=[_safe(s) for s in corr["metric"]])
    names = {"pearson": "Pearson r", "kendall": "Kendall τ_b", "accuracy": "pairwise accuracy"}
    fig = px.bar(df, x="lp_label", y=statistic, color="metric_label", barmode="group",
                 hover_data={"n_systems": True, "pairs": True},
                 labels={"lp_label": "language pair", statistic: names.get(statistic, statistic), "metric_label": "metric"})
    fig.update_layout(title=title or f"System-level {names.get(statistic, statistic)} per language pair",
                      height=420, margin=_MARGIN, legend=dict(orientation="h", y=1.08, x=1, xanchor="right"))
    return fig
