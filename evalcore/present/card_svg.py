"""Static figures of the evaluation card: inline SVG drawn as text, no script, no external
reference (not even an XML namespace URL: inline ``<svg>`` in HTML5 needs none), so the card
opens offline and stays small. Drawing only: the numbers come from the card. Every label is
escaped (:func:`html.escape`)."""
from __future__ import annotations

import html
import math
from typing import Sequence

#: one colour for the bars, one for the CI whiskers, one for the highlighted (primary) bar
BAR, WHISKER, PRIMARY = "#8da0cb", "#333333", "#1b9e77"


def bars(labels: Sequence[str], values: Sequence[float], lows: Sequence[float] | None = None,
         highs: Sequence[float] | None = None, title: str = "", highlight: str | None = None,
         width: int = 640, digits: int = 2) -> str:
    """A horizontal bar chart (one bar per label, in the given order) with optional CI whiskers,
    as an inline ``<svg>`` element; ``highlight``: the label drawn in the primary colour."""
    n = len(labels)
    vals = [float(v) for v in values]
    lo = [float(x) for x in lows] if lows is not None else [math.nan] * n
    hi = [float(x) for x in highs] if highs is not None else [math.nan] * n
    finite = [x for x in vals + lo + hi if math.isfinite(x)]
    vmin, vmax = (min(finite + [0.0]), max(finite + [0.0])) if finite else (0.0, 1.0)
    if vmax == vmin:
        vmax = vmin + 1.0
    left, right, row, top = 190, 70, 20, 28 if title else 8
    plot_w = width - left - right
    height = top + row * n + 24

    def x(v: float) -> float:
        return left + (v - vmin) / (vmax - vmin) * plot_w

    out = [f'<svg role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'font-family="sans-serif" font-size="12"><title>{html.escape(title or "bar chart")}</title>']
    if title:
        out.append(f'<text x="{left}" y="16" font-weight="bold">{html.escape(title)}</text>')
    zero = x(0.0)
    out.append(f'<line x1="{zero:.1f}" y1="{top}" x2="{zero:.1f}" y2="{top + row * n}" stroke="#999"/>')
    for i, (lab, v) in enumerate(zip(labels, vals)):
        y = top + i * row
        out.append(f'<text x="{left - 6}" y="{y + 14}" text-anchor="end">{html.escape(str(lab))}</text>')
        if math.isfinite(v):
            x0, x1 = sorted((zero, x(v)))
            colour = PRIMARY if highlight is not None and str(lab) == highlight else BAR
            out.append(f'<rect x="{x0:.1f}" y="{y + 3}" width="{max(x1 - x0, 0.5):.1f}" height="{row - 6}" '
                       f'fill="{colour}"/>')
            if math.isfinite(lo[i]) and math.isfinite(hi[i]):
                out.append(f'<line x1="{x(lo[i]):.1f}" y1="{y + row / 2:.1f}" x2="{x(hi[i]):.1f}" '
                           f'y2="{y + row / 2:.1f}" stroke="{WHISKER}" stroke-width="1.5"/>')
            out.append(f'<text x="{width - right + 6}" y="{y + 14}">{v:.{digits}f}</text>')
    axis_y = top + row * n + 16
    out.append(f'<text x="{left}" y="{axis_y}" fill="#555">{vmin:.{digits}f}</text>')
    out.append(f'<text x="{left + plot_w}" y="{axis_y}" text-anchor="end" fill="#555">{vmax:.{digits}f}</text>')
    out.append("</svg>")
    return "".join(out)
