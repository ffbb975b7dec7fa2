"""Static figure files (PNG, SVG, PDF) for papers, through Plotly's ``kaleido`` and the
machine's own Chromium (kaleido never downloads a browser here).

:func:`static_image` renders a copy of a figure with its metric signatures (kept by
:func:`evalcore.present.plots.with_signature` in ``layout.meta``) as a caption under the plot, so a
figure pasted into a paper still says how its numbers were computed. Rendering starts a
headless browser, about a second or more per figure: pages build these files only when
a download button is clicked.

Every exported file (these and the pages' HTML download) is drawn from
:func:`paper_figure`: a copy with fixed colour-blind-safe colours (Okabe & Ito 2008) in place
of the Streamlit theme's placeholder colours, which only Streamlit's browser code fills in,
and margins sized to the tick labels so that nothing is cut and the caption sits below them.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import textwrap

FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


class FigureExportError(RuntimeError):
    """Static export is impossible here (no browser, or kaleido missing); the message says what to do."""


def find_browser() -> str | None:
    """The Chromium/Chrome kaleido will use: ``$BROWSER_PATH`` if set, else the first of
    chromium, chromium-browser, google-chrome on PATH."""
    env = os.environ.get("BROWSER_PATH")
    if env and os.path.exists(env):
        return env
    for name in _BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


#: Okabe & Ito (2008), "Color Universal Design": eight colours told apart with every common
#: colour-vision deficiency (yellow last but one: weakest on white), then two of Tol's muted set
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442",
           "#882255", "#999933")
#: colour-blind-safe scales (viridis family; red-blue diverging)
SEQUENTIAL = "cividis"
DIVERGING = "RdBu"
FONT_SIZE = 12
#: Streamlit's chart theme writes placeholders #000001..#000040 into every figure built after
#: ``import streamlit`` (its template is made Plotly's default) and only its browser code swaps
#: them for theme colours: any other renderer (kaleido, an HTML file) draws them near-black
_PLACEHOLDER = re.compile(r"#0000([0-3][0-9]|40)\b")
_CHAR_EM = 0.62  # a generous average glyph width of Plotly's default sans-serif, in font sizes


def _placeholder_colour(code: int) -> str:
    """The paper colour of Streamlit placeholder ``#0000NN``: categories -> :data:`PALETTE`,
    sequential/diverging steps -> cividis/RdBu samples, increasing/decreasing/total, greys, background."""
    from plotly.colors import sample_colorscale

    if 1 <= code <= 10:
        return PALETTE[code - 1]
    if 11 <= code <= 20:
        return sample_colorscale(SEQUENTIAL, (code - 11) / 9)[0]
    if 21 <= code <= 30:
        return sample_colorscale(DIVERGING, (code - 21) / 9)[0]
    return {32: PALETTE[0], 33: PALETTE[3], 34: "#999999", 36: "#b3b3b3", 37: "#e5e5e5", 38: "#ffffff",
            39: "#f2f2f2", 40: "#f7f7f7"}.get(code, "#999999")


def _replace_placeholders(obj):
    if isinstance(obj, str):
        return _PLACEHOLDER.sub(lambda m: _placeholder_colour(int(m.group(1))), obj)
    if isinstance(obj, dict):
        return {k: _replace_placeholders(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_replace_placeholders(v) for v in obj)
    return obj


def paper_template():
    """Plotly's white template with the colour-blind-safe :data:`PALETTE` and scales, black text,
    and axes whose margins grow to fit their labels (independent of Streamlit's theme)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    t = go.layout.Template(pio.templates["plotly_white"])
    t.layout.colorway = PALETTE
    t.layout.font = {"family": "Arial, Helvetica, sans-serif", "size": FONT_SIZE, "color": "#222222"}
    t.layout.colorscale = {"sequential": SEQUENTIAL, "sequentialminus": SEQUENTIAL, "diverging": DIVERGING}
    t.layout.coloraxis = {"colorscale": SEQUENTIAL}
    return t


def text_width(text, size: float = FONT_SIZE) -> float:
    """A generous estimate of the width in pixels of ``text`` (longest line of a ``<br>`` label)."""
    lines = re.sub(r"<[^>]*>", "", str(text).replace("<br>", "\n")).split("\n")
    return max(len(line) for line in lines) * size * _CHAR_EM


def _axis_labels(fig, axis: str) -> list[str]:
    """The category / tick labels on the x (``"x"``) or y axes of ``fig`` (explicit tick texts
    and the category values of every trace)."""
    labels = []
    for name in fig.layout:
        if name.startswith(f"{axis}axis") and getattr(fig.layout[name], "ticktext", None):
            labels += [str(t) for t in fig.layout[name].ticktext]
    for tr in fig.data:
        vals = getattr(tr, axis, None) if axis in ("x", "y") else None
        if vals is None:
            continue
        try:
            seq = list(vals)
        except TypeError:
            continue
        if seq and isinstance(seq[0], (list, tuple)):  # a two-level (multicategory) axis
            seq = [v for level in seq for v in level]
        labels += [v for v in seq if isinstance(v, str)]
    return labels


def label_extent(labels, angle: float, size: float = FONT_SIZE) -> float:
    """Height in pixels that tick ``labels`` rotated by ``angle`` degrees take under an axis."""
    if not labels:
        return size * 1.5
    w = max(text_width(t, size) for t in labels)
    a = math.radians(abs(angle or 0))
    return w * math.sin(a) + size * 1.3 * math.cos(a) + 6


def _x_tickangle(fig, labels, plot_width: float) -> float:
    """The explicit tick angle of the export: the figure's own, else 0 when the labels fit side
    by side, -45 when they fit diagonally, -90 otherwise (Plotly's automatic choice is made in
    the browser, where the caption's place is unknown)."""
    own = fig.layout.xaxis.tickangle
    if own is not None and own != "auto":
        return float(own)
    if not labels:
        return 0.0
    n = len(dict.fromkeys(labels))
    if n * (max(text_width(t) for t in labels) + 8) <= plot_width:
        return 0.0
    return -45.0 if n * FONT_SIZE * 1.6 <= plot_width else -90.0


def paper_figure(fig, width: int = 1000):
    """A copy of ``fig`` ready for a paper or a stand-alone file: the Streamlit placeholder
    colours replaced (:func:`_placeholder_colour`), the :func:`paper_template`, explicit x tick
    angles, and margins that fit the tick labels (the page's figure is unchanged)."""
    import plotly.graph_objects as go

    spec = _replace_placeholders(fig.to_plotly_json())
    spec.setdefault("layout", {})["template"] = paper_template()
    out = go.Figure(spec)
    m = out.layout.margin
    left, right = (m.l if m.l is not None else 80), (m.r if m.r is not None else 80)
    xl = _axis_labels(out, "x")
    angle = _x_tickangle(out, xl, width - left - right)
    out.update_xaxes(tickangle=angle, automargin=True)
    out.update_yaxes(automargin=True)
    yl = _axis_labels(out, "y")
    need_left = (max(text_width(t) for t in yl) + 20) if yl else 60
    if out.layout.yaxis.title.text:
        need_left += FONT_SIZE * 2
    bottom = label_extent(xl, angle) + (FONT_SIZE * 2.5 if out.layout.xaxis.title.text else 8)
    if any(isinstance(getattr(tr, "x", None), tuple) and tr.x and isinstance(tr.x[0], (list, tuple))
           for tr in out.data):
        bottom += FONT_SIZE * 2  # the second row of a two-level axis
    out.update_layout(margin={"l": max(left, min(need_left, width * 0.45)), "b": max(m.b or 0, bottom)})
    out.layout.meta = fig.layout.meta
    return out


def _captioned(fig, caption: str | None, width: int):
    """A copy of ``fig`` (:func:`paper_figure`) with ``caption`` wrapped under the plot area,
    below the x tick labels and axis title (their room is the figure's bottom margin)."""
    out = paper_figure(fig, width)
    if not caption:
        return out
    lines = textwrap.wrap(caption, width=max(40, int(width / (10 * _CHAR_EM))))
    below = out.layout.margin.b  # the tick labels and the axis title live here
    out.update_layout(margin={"b": below + 16 * len(lines) + 20})
    out.add_annotation(text="<br>".join(_escape(s) for s in lines), xref="paper", yref="paper", x=0, y=0,
                       xanchor="left", yanchor="top", yshift=-below, showarrow=False,
                       align="left", font={"size": 10, "color": "#444444"})
    return out


def _escape(text: str) -> str:
    """Plotly annotations read a small HTML subset: keep user text literal."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def static_image(fig, fmt: str, caption: str | None = None, width: int = 1000, height: int | None = None,
                 scale: float = 2.0) -> bytes:
    """``fig`` as PNG, SVG or PDF bytes, with ``caption`` (default: the figure's signatures).

    Raises :class:`FigureExportError` with the fix when no browser (or kaleido) is available.
    """
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; choose one of {sorted(FORMATS)}")
    browser = find_browser()
    if browser is None:
        raise FigureExportError(
            "PNG/SVG/PDF export needs a Chromium or Chrome browser on this machine (none was found). "
            "Install one (Debian/Ubuntu: `apt-get install chromium`) or set BROWSER_PATH to its executable; "
            "the HTML download and the figure toolbar's camera button work without it.")
    try:
        import kaleido  # noqa: F401  (plotly's static-image engine)
    except ImportError as exc:  # pragma: no cover - kaleido is a pinned requirement
        raise FigureExportError("PNG/SVG/PDF export needs the `kaleido` package: pip install kaleido") from exc
    if caption is None:
        meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
        caption = meta.get("signatures")
    os.environ.setdefault("BROWSER_PATH", browser)
    out = _captioned(fig, caption, width)
    # the plot area keeps its height: the image grows by what the bottom margin gained
    own_b = fig.layout.margin.b if fig.layout.margin.b is not None else 80  # Plotly's default
    h = (height or (fig.layout.height or 500)) + max(0, out.layout.margin.b - own_b)
    try:
        return out.to_image(format=fmt, width=width, height=h, scale=scale if fmt == "png" else 1)
    except Exception as exc:  # kaleido's own errors (browser crash, timeout) with our advice
        raise FigureExportError(f"static export failed ({type(exc).__name__}: {exc}); "
                                "the HTML download works without a browser") from exc
