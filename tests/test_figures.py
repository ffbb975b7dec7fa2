"""Paper-ready figures: PNG, SVG and PDF through kaleido with the system Chromium,
the metric signatures as a caption, and a clear message where no browser exists."""
from __future__ import annotations

import os

import plotly.graph_objects as go
import pytest

from evalcore import figures
from evalcore.plots import with_signature


def _fig():
    return with_signature(go.Figure(go.Bar(x=["<b>sys-A</b>", "sys-B"], y=[31.5, 29.0])),
                          "bleu: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0")


def test_png_svg_pdf_with_the_signature_as_caption():
    if figures.find_browser() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs Debian's chromium (scripts/test.sh): static export must be tested")
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    png, svg, pdf = (figures.static_image(_fig(), f) for f in ("png", "svg", "pdf"))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and pdf.startswith(b"%PDF-")
    text = svg.decode("utf-8")
    assert text.lstrip().startswith("<svg") and "tok:13a" in text and "version:2.6.0" in text
    assert "&lt;b&gt;sys-A&lt;/b&gt;" in text or "sys-A" in text  # the user label is text, not markup
    # the caption is added to a copy: the page's figure is unchanged
    fig = _fig()
    figures.static_image(fig, "svg")
    assert len(fig.layout.annotations) == 0


def test_no_browser_gives_a_clear_message(monkeypatch):
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(figures.shutil, "which", lambda name: None)
    assert figures.find_browser() is None
    with pytest.raises(figures.FigureExportError, match="apt-get install chromium"):
        figures.static_image(_fig(), "png")
    with pytest.raises(ValueError, match="unknown figure format"):
        figures.static_image(_fig(), "gif")


def test_caption_is_escaped_and_wrapped():
    long = "x" * 50 + " <script>alert(1)</script> " + "y" * 200
    out = figures._captioned(_fig(), long, width=700)
    (ann,) = out.layout.annotations
    assert "<script>" not in ann.text and "&lt;script&gt;" in ann.text and ann.text.count("<br>") >= 2
