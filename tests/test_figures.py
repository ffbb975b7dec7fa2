"""Paper-ready figures: PNG, SVG and PDF through kaleido with the system Chromium,
the metric signatures as a caption, and a clear message where no browser exists."""
from __future__ import annotations

import contextlib
import os
import warnings

import plotly.graph_objects as go
import pytest

from evalcore.present import figures
from evalcore.present.plots import with_signature


def _fig():
    return with_signature(go.Figure(go.Bar(x=["<b>sys-A</b>", "sys-B"], y=[31.5, 29.0])),
                          "bleu: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0")


@contextlib.contextmanager
def _one_browser():
    """kaleido's sync server: the exports inside share one Chromium (a start is ~4 s and a few
    CPU-s) instead of one each; the first export of the file runs without it, as a page does."""
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The kopts argument is ignored")
            yield
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def test_png_svg_pdf_with_the_signature_as_caption():
    if figures.find_browser() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI installs Debian's chromium (scripts/test.sh): static export must be tested")
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    png = figures.static_image(_fig(), "png")  # a Chromium of its own, as a page's download
    with _one_browser():
        svg, pdf = (figures.static_image(_fig(), f) for f in ("svg", "pdf"))
        # the caption is added to a copy: the page's figure is unchanged
        fig = _fig()
        figures.static_image(fig, "svg")
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and pdf.startswith(b"%PDF-")
    text = svg.decode("utf-8")
    assert text.lstrip().startswith("<svg") and "tok:13a" in text and "version:2.6.0" in text
    assert "&lt;b&gt;sys-A&lt;/b&gt;" in text or "sys-A" in text  # the user label is text, not markup
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


def test_exported_figures_do_not_carry_streamlit_placeholder_colours():
    """Importing streamlit makes its chart theme Plotly's default: every figure built after it
    holds #000001, #000002… which only Streamlit's browser code replaces. The exports must
    carry the paper palette instead, one distinct colour per metric."""
    import pandas as pd
    import streamlit.elements.plotly_chart  # noqa: F401  (installs the theme, as every page does)

    from evalcore.present import plots

    corr = pd.DataFrame({"lp": ["en-de", "en-de", "(all)", "(all)"], "metric": ["bleu", "chrf"] * 2,
                         "pearson": [0.8, 0.9, 0.7, 0.6], "n_systems": [5] * 4, "pairs": [10] * 4})
    fig = plots.campaign_bars(corr)
    assert fig.data[0].marker.color == "#000001"  # the page's figure, themed by Streamlit
    out = figures.paper_figure(fig)
    colours = [tr.marker.color for tr in out.data]
    assert colours == list(figures.PALETTE[:2])
    assert "#0000" not in str(out.to_plotly_json()["data"]) and out.layout.template.layout.colorway[0] == "#0072B2"
    assert fig.data[0].marker.color == "#000001"  # a copy: the page keeps its theme
    if figures.find_browser() is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    svg = figures.static_image(fig, "svg").decode("utf-8")
    assert "rgb(0, 0, 1)" not in svg and "rgb(0, 0, 2)" not in svg and "rgb(0, 114, 178)" in svg


def test_rotated_tick_labels_leave_room_for_the_caption():
    names = [f"a-very-long-system-name-{i:02d}" for i in range(30)]
    fig = go.Figure(go.Bar(x=names, y=list(range(30))))
    out = figures._captioned(fig, "bleu: tok:13a", width=1000)
    assert out.layout.xaxis.tickangle in (-45, -90)
    (cap,) = out.layout.annotations
    # 30 labels of 27 characters at 12 px cannot lie flat in 840 px: rotated, they need at
    # least 27 * 12 * 0.5 * sin(45°) px under the axis before the caption starts
    assert -cap.yshift >= 27 * 12 * 0.5 * 0.7071 and out.layout.margin.b > -cap.yshift
