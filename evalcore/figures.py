"""Static figure files (PNG, SVG, PDF) for papers, through Plotly's ``kaleido`` and the
machine's own Chromium (kaleido never downloads a browser here).

:func:`static_image` renders a copy of a figure with its metric signatures (kept by
:func:`evalcore.plots.with_signature` in ``layout.meta``) as a caption under the plot, so a
figure pasted into a paper still says how its numbers were computed. Rendering starts a
headless browser, about a second or more per figure: pages build these files only when
a download button is clicked.
"""
from __future__ import annotations

import os
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


def _captioned(fig, caption: str | None, width: int):
    """A copy of ``fig`` with ``caption`` wrapped under the plot area."""
    import plotly.graph_objects as go

    out = go.Figure(fig)
    if not caption:
        return out
    lines = textwrap.wrap(caption, width=max(40, width // 7))
    bottom = (out.layout.margin.b if out.layout.margin.b is not None else 60) + 16 * len(lines) + 20
    out.update_layout(margin={"b": bottom})
    out.add_annotation(text="<br>".join(_escape(s) for s in lines), xref="paper", yref="paper", x=0, y=0,
                       xanchor="left", yanchor="top", yshift=-(bottom - 16 * len(lines) - 10), showarrow=False,
                       align="left", font={"size": 10, "color": "#444"})
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
    h = height or (fig.layout.height or 500)
    if caption:
        h += 16 * len(textwrap.wrap(caption, width=max(40, width // 7))) + 20
    try:
        return out.to_image(format=fmt, width=width, height=h, scale=scale if fmt == "png" else 1)
    except Exception as exc:  # kaleido's own errors (browser crash, timeout) with our advice
        raise FigureExportError(f"static export failed ({type(exc).__name__}: {exc}); "
                                "the HTML download works without a browser") from exc
