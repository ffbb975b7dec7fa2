"""Real-browser tests in headless Chromium: screenshots of every page, and escaping of user text.

Screenshots land in artifacts/screenshots/ (look at them before closing an issue).
"""
from __future__ import annotations

import pytest

from browser import (FIGURE, browser_page, chromium, require_browser, running_app, screenshot, wait_for_app,
                     wait_for_figures)
from conftest import ROOT

from pages.registry import PAGES as REGISTRY  # noqa: E402  (the one page list: app.py builds from it)

PAGES = [(p.slug, p.title) for p in REGISTRY]
FIGURE_PAGES = {p.slug for p in REGISTRY if p.figure}


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("browser-home")
    # a saved dataset full of markup, for the escaping test
    import os

    os.environ["EVALCORE_HOME"] = str(home)
    from evalcore.io import workspace
    from evalcore.io import load_collection

    xss = ROOT / "sample_data" / "xss_es_en"
    if xss.exists():
        workspace.save(load_collection(xss), "xss-test")
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url:
        yield url


@pytest.fixture(scope="module")
def shared_chromium():
    """One Chromium for the module's tests (each test still opens its own context: its own
    session); launching one per test cost about a CPU-second each."""
    with chromium(require_browser()) as browser:
        yield browser


def _url_path(slug: str) -> str:
    return "" if slug == "data" else slug


@pytest.mark.parametrize("slug,title", PAGES)
def test_page_screenshot(app_url, shared_chromium, slug, title):
    assert (ROOT / "pages" / f"{slug}.py").exists(), f"pages/{slug}.py is missing"
    exe = require_browser()
    with browser_page(exe, browser=shared_chromium) as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{app_url}/{_url_path(slug)}")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        if slug in FIGURE_PAGES:  # the seed's figures must actually be drawn
            page.wait_for_selector(FIGURE, timeout=120000)
        wait_for_figures(page)
        path = screenshot(page, f"page_{slug}")
        assert path.stat().st_size > 10_000
        assert page.locator('[data-testid="stException"]').count() == 0
        # an element the browser failed to draw (e.g. a table whose attrs held a NaN, not JSON)
        body = page.locator("body").inner_text()
        assert "SyntaxError" not in body and "is not valid JSON" not in body, body[-2000:]
        assert title.split(" (")[0] in page.locator("h1").first.inner_text()


def test_deep_link_on_a_fresh_server_gets_the_app_shell(shared_chromium, tmp_path):
    """Opening /learned before anyone opened / must still show the app's navigation and
    dataset picker, not Streamlit's stand-alone pages/ mode."""
    exe = require_browser()
    with running_app({"EVALCORE_HOME": str(tmp_path), "EVALCORE_CACHE": str(tmp_path / "cache")}) as url:
        with browser_page(exe, height=1200, browser=shared_chromium) as page:
            page.goto(f"{url}/learned")
            wait_for_app(page)
            # The hand-over to the app shell is a second script run (st.switch_page): under load
            # it can land after the first idle check, so wait for its result, not for a time.
            page.wait_for_function(
                """() => { const n = document.querySelector('[data-testid="stSidebarNav"]');
                          const h = document.querySelector('h1');
                          return n && n.innerText.includes('Data') && h
                                 && h.innerText.includes('Learned metrics'); }""", timeout=120000)
            wait_for_app(page)
            nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
            # the app's navigation (it may fold the last entries under "View N more"), never the
            # stand-alone pages/ listing (which would show the helper module "common")
            assert "Data" in nav and "Systems" in nav and "common" not in nav
            assert "Learned metrics" in page.locator("h1").first.inner_text()
            assert page.get_by_text("Dataset").count() >= 1


def test_zip_upload_in_the_browser(app_url, shared_chromium, tmp_path):
    """Upload a zip through the browser; it is validated, saved and selectable."""
    import io
    import zipfile

    exe = require_browser()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in (ROOT / "sample_data" / "teaching_es_en").iterdir():
            zf.write(f, f"teaching/{f.name}")
    zpath = tmp_path / "teaching.zip"
    zpath.write_bytes(buf.getvalue())
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("segments.tsv", "seg_id\tsource\n1\ta\n1\tb\n")
        zf.writestr("outputs.tsv", "system\tseg_id\ttext\ns\t9\tx\n")
    with browser_page(exe, browser=shared_chromium) as page:
        page.goto(app_url)
        wait_for_app(page)
        page.get_by_role("tab", name="Upload or import").click()
        page.locator('[data-testid="stFileUploader"]').filter(has_text="Files or a zip").locator('input[type="file"]').set_input_files(str(bad))
        wait_for_app(page)  # the upload and the run it asks for (browser.RUN_SPY counts both)
        page.get_by_role("button", name="Validate and save").click()
        wait_for_app(page)
        page.get_by_text("problem(s) found").wait_for(timeout=60000)
        screenshot(page, "upload_bad_zip")
        page.goto(app_url)  # a new session
        wait_for_app(page)
        page.get_by_role("tab", name="Upload or import").click()
        page.locator('[data-testid="stFileUploader"]').filter(has_text="Files or a zip").locator('input[type="file"]').set_input_files(str(zpath))
        wait_for_app(page)
        name_box = page.get_by_role("textbox", name="Save as")  # (the field has a help button too)
        name_box.fill("uploaded-teaching")
        name_box.press("Enter")
        wait_for_app(page)
        page.get_by_role("button", name="Validate and save").click()
        wait_for_app(page)
        page.get_by_text("Saved as").wait_for(timeout=60000)
        screenshot(page, "upload_zip_saved")
    from evalcore.io import workspace

    import os
    assert "uploaded-teaching" in [m["name"] for m in workspace.list_saved()], os.environ.get("EVALCORE_HOME")


@pytest.mark.parametrize("slug", ["human_likeness", "likeness_vs_acceptability", "queen_vs_human", "divergence", "systems", "judges"])
def test_pages_on_wmt21_news_en_de(app_url, shared_chromium, slug):
    """Every page works on ../shared/data/wmt21_news_mqm en-de (3 references, MQM),
    and the seed's figures are drawn from that real data."""
    from conftest import shared
    from evalcore.io import workspace
    from evalcore.io import load_collection

    if "wmt21-news" not in [m["name"] for m in workspace.list_saved()]:
        workspace.save(load_collection(shared("wmt21_news_mqm")), "wmt21-news")
    exe = require_browser()
    with browser_page(exe, browser=shared_chromium) as page:
        page.goto(f"{app_url}/{slug}?dataset=wmt21-news&lp=en-de")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        assert "1002 segments · 3 reference sets · 8 systems" in page.locator('[data-testid="stSidebar"]').inner_text()
        if slug in FIGURE_PAGES:
            page.wait_for_selector(FIGURE, timeout=180000)
        wait_for_figures(page)
        screenshot(page, f"wmt21_en-de_{slug}")
        assert page.locator('[data-testid="stException"]').count() == 0


def test_compare_page_screenshot(app_url, shared_chromium):
    """The Compare page on the sample draws its figures, shows the two outputs with the
    word diff and every reference highlighted, and raises nothing; screenshots of the top and of
    the side-by-side view."""
    exe = require_browser()
    with browser_page(exe, height=3200, browser=shared_chromium) as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{app_url}/compare")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        page.wait_for_selector(FIGURE, timeout=180000)
        wait_for_figures(page)
        screenshot(page, "compare_top")
        side = page.get_by_text("Side by side").first
        side.scroll_into_view_if_needed()
        screenshot(page, "compare_side_by_side")
        assert page.locator("h1").first.inner_text().startswith("Compare two systems")
        assert page.locator('[data-testid="stException"]').count() == 0
        assert page.locator("mark").count() > 0  # matched n-grams highlighted
        assert not errors, errors


def test_plotly_prefetch_chart_is_drawn_out_of_view_and_takes_no_room(app_url, shared_chromium):
    """The shell's once-per-session chart (pages.common.prefetch_plotly) is drawn, so the
    browser has Plotly before the page's first figure, but outside the viewport; on a rerun the
    chart is gone and the page's title has not moved (the style-only st.html and the fixed
    position take no room). test_zip_upload_in_the_browser holds the tabs' state across the
    rerun (an element removed ahead of them had reset them)."""
    exe = require_browser()
    with browser_page(exe, browser=shared_chromium) as page:
        page.goto(f"{app_url}/judges")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        pre = page.locator(".st-key-evalcore_plotly_prefetch .main-svg").first
        pre.wait_for(state="attached", timeout=60000)
        box = pre.bounding_box()
        assert box is not None and box["x"] + box["width"] < 0  # drawn, out of view
        wait_for_app(page)
        wait_for_figures(page)
        y_first = page.locator("h1").first.bounding_box()["y"]
        page.locator("body").press("r")  # a rerun of the same session sends no prefetch chart
        page.wait_for_function("() => !document.querySelector('.st-key-evalcore_plotly_prefetch .main-svg')",
                               timeout=60000)
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        wait_for_figures(page)
        assert abs(page.locator("h1").first.bounding_box()["y"] - y_first) < 2


def test_data_slug_with_a_dataset_opens_that_dataset(app_url, shared_chromium):
    """/data?dataset=NAME (the default page's own slug, as a user would type or share it) opens the
    Data page on that saved dataset, like every other registered slug."""
    import re

    exe = require_browser()
    with browser_page(exe, height=1200, browser=shared_chromium) as page:
        page.goto(f"{app_url}/data?dataset=xss-test")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        assert page.locator("h1").first.inner_text().startswith("Data")
        picker = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.inner_html()
        assert re.search(r"xss-test \(saved ", picker), picker[:500]
        assert page.locator('[data-testid="stException"]').count() == 0
