"""Plotly figures built from evalcore tables (testable without Streamlit).

Large scatters use WebGL traces (``scattergl``). Texts from users go into hover labels and
titles only through Plotly, which escapes them.
"""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go


def length_histogram(lengths: pd.DataFrame) -> go.Figure:
    """Token-length distributions of sources, references and outputs (overlaid histograms)."""
    fig = px.histogram(lengths, x="length", color="kind", barmode="overlay", opacity=0.6,
                       histnorm="percent", labels={"length": "length (whitespace tokens)", "kind": ""})
    fig.update_yaxes(title="% of texts of that kind")
    fig.update_layout(title="Length distributions", height=360, margin=dict(t=50, b=40, l=40, r=10))
    return fig
