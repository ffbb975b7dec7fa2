"""Every table and figure download of every page, on the bundled sample with a hostile system
name (``A1,=HYPERLINK(...)``) and rater name (``gold,=2+2``), under Streamlit's AppTest:

* each CSV download is read by plain ``pandas.read_csv`` with the shape of the table shown,
  and no cell (column names included) starts with ``= + - @`` unless neutralised with ``'``
  or a plain number;
* each LaTeX download has no raw Unicode mark and no ``nan``;
* each figure download, rendered by kaleido with the machine's Chromium, holds no Streamlit
  placeholder colour (``#000001``… drawn near-black outside Streamlit's browser code), gives
  each legend entry its own colour, shows no ``nan`` label, and its bottom margin holds its x
  tick labels above the caption (skipped with the reason where no Chromium exists).

The page sweep runs once per module (about 30-40 s on the sample): ``slow``-marked tests, run
in CI like every other."""
from __future__ import annotations

import csv
import math
import io
import re
import shutil

import pandas as pd
import pytest

from conftest import ROOT

HOSTILE_SYSTEM = 'A1,=HYPERLINK("http://evil.example","x")'
HOSTILE_RATER = "gold,=2+2"
from pages.registry import PAGES as _REGISTRY  # noqa: E402  (every registered page)

PAGES = [p.slug for p in _REGISTRY]
FAST = {"sys_boot": 30, "hl_boot": 0, "lva_boot": 0, "cmp_boot": 100, "cmp_ar": 100}


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    from streamlit.testing.v1 import AppTest

    import pages.common as common
    from evalcore.io import load_collection

    folder = tmp_path_factory.mktemp("hostile") / "teaching"
    shutil.copytree(ROOT / "sample_data" / "teaching_es_en", folder)
    for f in folder.glob("*.tsv"):
        f.write_text(f.read_text(encoding="utf-8").replace("near-human", HOSTILE_SYSTEM)
                     .replace("rater1", HOSTILE_RATER), encoding="utf-8")
    hostile = load_collection(folder, name="hostile-sample")
    assert HOSTILE_SYSTEM in hostile["es-en"].systems
    from streamlit.delta_generator import DeltaGenerator

    tables, figs, files = [], [], {}
    real_table, real_figure, real_sample = common.download_table, common.download_figure, common._load_sample
    real_button = DeltaGenerator.download_button

    def button(self, label, data, file_name=None, *args, **kw):  # the file each button would send
        files[(page, file_name)] = data
        return real_button(self, label, data, file_name, *args, **kw)

    def table(df, name, key=None, signature=None):
        tables.append((page, name, df.copy(), signature))
        return real_table(df, name, key=key, signature=signature)

    def figure(fig, name, key=None):
        figs.append((page, name, fig))
        return real_figure(fig, name, key=key)

    common.download_table, common.download_figure, common._load_sample = table, figure, lambda: hostile
    DeltaGenerator.download_button = button
    try:
        for page in PAGES:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
            for k, v in FAST.items():
                at.session_state[k] = v
            at.run()
            at.switch_page(f"pages/{page}.py")
            at.run()
            assert not at.exception, (page, [e.message for e in at.exception])
    finally:
        common.download_table, common.download_figure, common._load_sample = real_table, real_figure, real_sample
        DeltaGenerator.download_button = real_button
    return tables, figs, files


def _file(files, page, name):
    """The bytes the download button of ``name`` on ``page`` sends (built as on a click)."""
    data = files[(page, name)]
    data = data() if callable(data) else data
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _formula(cell: str) -> bool:
    """A cell a spreadsheet would run: starts with = + - @ (tab, CR) and is not a plain number."""
    if cell[:1] not in ("=", "+", "-", "@", "\t", "\r"):
        return False
    try:
        float(cell)
        return False
    except ValueError:
        return True


@pytest.mark.slow
def test_every_csv_download_reads_back_with_its_shape_and_no_live_formula(sweep):
    from pages.common import download_frame

    tables, _, files = sweep
    pages_seen = {p for p, *_ in tables}
    assert {"systems", "compare", "experts", "campaign", "judges"} <= pages_seen, pages_seen
    hostile_seen = 0
    for page, name, df, _sig in tables:
        data = _file(files, page, f"{name}.csv")  # exactly what the CSV button sends
        back = pd.read_csv(io.BytesIO(data))
        assert back.shape == download_frame(df).shape, (page, name, back.shape, df.shape)
        assert not data.startswith(b"#"), (page, name)
        for row in csv.reader(io.StringIO(data.decode("utf-8"), newline="")):
            for cell in row:
                assert not _formula(cell), (page, name, cell)
                hostile_seen += "HYPERLINK" in cell or "2+2" in cell
    assert hostile_seen > 0  # the hostile names did reach the downloads (neutralised)


@pytest.mark.slow
def test_every_latex_download_is_free_of_unicode_marks_and_nan(sweep):
    tables, _, files = sweep
    for page, name, df, sig in tables:
        tex = _file(files, page, f"{name}.tex").decode("utf-8")
        if sig:
            assert " ".join(sig.split()) in tex and (page, f"{name}_signatures.txt") in files
        body = "\n".join(x for x in tex.split("\n") if not x.startswith("%"))
        assert not re.search(r"[▲▼≈±ρτ≥≤—–−]", body), (page, name)
        assert not re.search(r"(?<![\w\\])nan(?!\w)", body, flags=re.IGNORECASE), (page, name)


_PLACEHOLDER_SVG = re.compile(r"rgb\(0, 0, (?:[1-9]|[1-3][0-9]|40)\)|#0000(?:0[1-9]|[1-3][0-9]|40)\b")


@pytest.mark.slow
def test_every_figure_download_has_paper_colours_and_room_for_its_labels(sweep):
    from evalcore.present import figures

    _, figs, files = sweep
    assert {p for p, *_ in figs} >= {"systems", "campaign", "compare"}
    for page in {p for p, *_ in figs}:  # the HTML download of one figure per page: paper colours too
        name = next(n for p, n, _ in figs if p == page)
        html = _file(files, page, f"{name}.html").decode("utf-8")
        spec = html[html.index("Plotly.newPlot("):]
        assert not _PLACEHOLDER_SVG.search(spec), (page, name)
    for page, name, fig in figs:
        out = figures._captioned(fig, "sig", 1000)
        spec = out.to_plotly_json()
        text = str(spec["data"]) + str({k: v for k, v in spec["layout"].items() if k != "template"})
        assert not _PLACEHOLDER_SVG.search(text), (page, name)
        assert "nan" not in [str(t).split(":")[0] for t in figures._axis_labels(out, "x")], (page, name)
        # x tick labels: their rotated height (an independent generous estimate) fits the bottom
        # margin above the caption, which sits that far under the plot area
        labels = [re.sub(r"<[^>]*>", "", str(t)) for t in figures._axis_labels(out, "x")]
        angle = abs(float(out.layout.xaxis.tickangle or 0))

        need = (max((len(t) for t in labels), default=0) * 12 * 0.6 * math.sin(math.radians(angle))
                + 12 * math.cos(math.radians(angle)))
        (cap,) = [a for a in out.layout.annotations if a.text == "sig"]
        assert -cap.yshift >= need, (page, name, cap.yshift, need)
        ylabels = figures._axis_labels(out, "y")
        if ylabels and out.layout.yaxis.tickangle in (None, 0, "auto"):
            assert out.layout.margin.l >= min(max(len(t) for t in ylabels) * 12 * 0.55, 450), (page, name)
    if figures.find_browser() is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium): the rendered figures are not checked")
    import kaleido

    import warnings

    kaleido.start_sync_server(silence_warnings=True)  # one browser for every figure
    try:
        warnings.filterwarnings("ignore", message="The kopts argument is ignored")
        seen = set()
        for page, name, fig in figs:
            if page in seen:  # one rendered figure per page (about a second each); the checks above cover all
                continue
            seen.add(page)
            svg = figures.static_image(fig, "svg").decode("utf-8")
            assert not _PLACEHOLDER_SVG.search(svg), (page, name)
            legend = re.findall(r'class="legendpoints".*?style="[^"]*fill: (rgb\([^)]*\))', svg)
            assert len(legend) == len(set(legend)), (page, name, legend)
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
