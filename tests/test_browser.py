"""Real-browser tests in headless Chromium: screenshots of every page, and escaping of user text.

Screenshots land in artifacts/screenshots/ (look at them before closing an issue).
"""
from __future__ import annotations

import pytest

from browser import browser_page, require_browser, running_app, screenshot, wait_for_app
from conftest import ROOT

PAGES = [
    ("data", "Data"),
    ("systems", "Systems"),
    ("human_likeness", "Human-likeness"),
    ("likeness_vs_acceptability", "Likeness vs acceptability"),
    ("queen_vs_human", "QUEEN vs human"),
    ("divergence", "Divergence browser"),
    ("judges", "Judges"),
    ("learned", "Learned metrics"),
    ("learn", "Learn (guided tour)"),
]

FIGURE_PAGES = {"data", "systems", "human_likeness", "likeness_vs_acceptability", "queen_vs_human", "judges"}


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("browser-home")
    # a saved dataset full of markup, for the escaping test
    import os

    os.environ["EVALCORE_HOME"] = str(home)
    from evalcore import workspace
    from evalcore.io import load_collection

    xss = ROOT / "sample_data" / "xss_es_en"
    if xss.exists():
        workspace.save(load_collection(xss), "xss-test")
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url:
        yield url


def _url_path(slug: str) -> str:
    return "" if slug == "data" else slug


@pytest.mark.parametrize("slug,title", PAGES)
def test_page_screenshot(app_url, slug, title):
    if not (ROOT / "pages" / f"{slug}.py").exists():
        pytest.skip(f"pages/{slug}.py not written yet")
    exe = require_browser()
    with browser_page(exe) as page:
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{app_url}/{_url_path(slug)}")
        wait_for_app(page)
        page.wait_for_selector("h1", timeout=60000)
        if slug in FIGURE_PAGES:  # the seed's figures must actually be drawn
            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=120000)
        page.wait_for_timeout(1500)
        path = screenshot(page, f"page_{slug}")
        assert path.stat().st_size > 10_000
        assert page.locator('[data-testid="stException"]').count() == 0
        assert title.split(" (")[0] in page.locator("h1").first.inner_text()


def test_deep_link_on_a_fresh_server_gets_the_app_shell(tmp_path):
    """Opening /learned before anyone opened / must still show the app's navigation and
    dataset picker, not Streamlit's stand-alone pages/ mode."""
    exe = require_browser()
    with running_app({"EVALCORE_HOME": str(tmp_path), "EVALCORE_CACHE": str(tmp_path / "cache")}) as url:
        with browser_page(exe, height=1200) as page:
            page.goto(f"{url}/learned")
            wait_for_app(page)
            page.wait_for_selector("h1", timeout=60000)
            nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
            assert "Data" in nav and "Learned metrics" in nav and "common" not in nav
            assert "Learned metrics" in page.locator("h1").first.inner_text()
            assert page.get_by_text("Dataset").count() >= 1
