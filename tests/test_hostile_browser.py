"""A hostile upload through the Data page in a real browser (headless Chromium): broken files
whose names carry HTML and script. The page must show the clean error report naming file and
line, show the payloads as text, and run none of them."""
from __future__ import annotations

import pytest

from browser import browser_page, require_browser, running_app, screenshot, wait_for_app

IMG = '<img src=x onerror="window.__xss=1">'
SCRIPT = "<script>window.__xss=2</script>"
SEGMENTS = "seg_id\tsource\n1\tuno\n2\tdos\n"
# line 3: a missing field; lines 4 and 6: the same output twice (system name = an <img> payload);
# line 5: a segment id (a <script> payload) that is not in segments.tsv
OUTPUTS = ("system\tseg_id\ttext\n" "sysA\t1\tone\n" "sysA\t2\n" f"{IMG}\t1\tone\n" f"sysA\t{SCRIPT}\ttwo\n"
           f"{IMG}\t1\tuno\n")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("hostile-browser-home")
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url:
        yield url


def _grid_text(page) -> str:
    """The report table's cells: Streamlit's data grid draws on a canvas and keeps the cells in
    an accessible table (role=grid) beside it; read that, plus the page's own text."""
    cells = page.locator('[data-testid="stDataFrame"]:visible [role="gridcell"]')
    return "\n".join(cells.all_inner_texts()) + "\n" + page.locator('[data-testid="stMain"]').inner_text()


def _upload(page, paths) -> None:
    """Choose ``paths`` in the Data page's uploader and wait until the page holds them, the
    *Upload or import* tab open. The tab is opened again if a rerun reset it (a page rebuilt after a
    reconnect under heavy load opens on its first tab, its uploader empty: the files are then
    chosen again), and a screenshot is kept when the names never show, so that a failure says
    what the page showed instead."""
    tab = page.get_by_role("tab", name="Upload or import")
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Files or a zip")
    tab.click()
    uploader.locator('input[type="file"]').set_input_files([str(p) for p in paths])
    for _ in range(3):
        wait_for_app(page)  # the rerun after the upload, however long the machine's load makes it
        if tab.get_attribute("aria-selected") != "true":
            tab.click()
        try:
            for p in paths:  # the uploader lists each chosen file by name once it has it
                uploader.get_by_text(p.name, exact=True).wait_for(timeout=20000)
            return
        except Exception:  # the files did not arrive (a remounted uploader is empty): choose them again
            uploader.locator('input[type="file"]').set_input_files([str(p) for p in paths])
    shot = screenshot(page, "upload_hostile_names_not_held")
    raise AssertionError(f"the uploader never listed {[p.name for p in paths]} (screenshot {shot}):\n"
                         + page.locator('[data-testid="stMain"]').inner_text()[-3000:])


def test_broken_upload_with_markup_names_shows_the_clean_report_escaped(app_url, tmp_path):
    exe = require_browser()
    seg, out = tmp_path / "segments.tsv", tmp_path / "outputs.tsv"
    seg.write_text(SEGMENTS, encoding="utf-8")
    out.write_text(OUTPUTS, encoding="utf-8")
    with browser_page(exe) as page:
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(app_url)
        wait_for_app(page)
        _upload(page, [seg, out])
        page.get_by_role("button", name="Validate and save").click(timeout=120000)
        wait_for_app(page)
        page.get_by_text("problem(s) found").wait_for(timeout=60000)
        page.wait_for_timeout(1000)
        screenshot(page, "upload_hostile_names")
        page.locator('[data-testid="stDataFrame"]:visible').first.wait_for(timeout=60000)
        assert page.get_by_text("3 problem(s) found — nothing was loaded").count() == 1
        assert page.locator('[data-testid="stException"]').count() == 0
        text = _grid_text(page)
        # file and line of each problem, and the payloads shown as the text they are
        for want in ("outputs.tsv", "has 2 fields but the header has 3", "not in the segments file", SCRIPT,
                     "duplicate output", IMG):
            assert want in text, (want, text[-3000:])
        lines = set(page.locator('[data-testid="stDataFrame"]:visible [role="gridcell"]').all_inner_texts())
        assert {"3", "5", "6"} <= lines, lines
        # nothing ran and nothing was injected: no flag, no dialog, no <img src=x>, no page script
        assert page.evaluate("window.__xss") is None
        assert dialogs == []
        assert page.locator('img[src="x"]').count() == 0
        assert page.evaluate("[...document.scripts].filter(s => s.textContent.includes('__xss')).length") == 0
        # the detector itself works: the same payload put into the page as HTML does run
        page.evaluate("p => { const d = document.createElement('div'); d.innerHTML = p; document.body.append(d); }", IMG)
        page.wait_for_function("window.__xss === 1", timeout=10000)
