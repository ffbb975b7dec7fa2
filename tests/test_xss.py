"""Security in a real browser: the saved dataset sample_data/xss_es_en (segments with <script>,
<img onerror>, Markdown and LaTeX) shown on the Divergence browser and the Data page. Nothing
executes (no dialog), no injected element exists, and the text is shown literally."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import browser
from browser import browser_page, require_browser, running_app, screenshot, wait_for_app
from conftest import ROOT

XSS = ROOT / "sample_data" / "xss_es_en"
LITERALS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "**bold**",
            "[link](javascript:alert(1))", "&amp; &lt;b&gt;", "$x^2$", "\\frac{a}{b}",
            "http://evil.example/x www.evil.example x@evil.example"]
INJECTED = ['img[onerror]', 'img[src="x"]', 'a[href^="javascript"]', '[data-testid="stMain"] script',
            '[data-testid="stMain"] .katex', '[data-testid="stMarkdownContainer"] strong:text-is("bold")',
            'a[href*="evil.example"]']  # GFM autolinks


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    if not XSS.exists():
        pytest.fail("sample_data/xss_es_en is missing")
    home = tmp_path_factory.mktemp("xss-home")
    old = os.environ.get("EVALCORE_HOME")
    os.environ["EVALCORE_HOME"] = str(home)
    try:
        from evalcore.io import workspace
        from evalcore.io import load_collection

        workspace.save(load_collection(XSS), "xss-test")
    finally:
        if old is None:
            os.environ.pop("EVALCORE_HOME", None)
        else:
            os.environ["EVALCORE_HOME"] = old
    if os.environ.get("EVALCORE_TEST_APP"):  # run another copy of the app (development only)
        browser.ROOT = Path(os.environ["EVALCORE_TEST_APP"]).parent
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url:
        yield url


def _settle(page):
    wait_for_app(page, 120000)  # every run asked for has finished (a condition, no fixed delay)


def _choose(page, container, label_text: str, option_prefix: str | None = None, index: int | None = None):
    box = container.locator('[data-testid="stSelectbox"]').filter(has_text=label_text).first
    box.click()
    options = page.locator('[role="option"]')
    options.first.wait_for(timeout=20000)
    if option_prefix is not None:
        options.filter(has_text=option_prefix).first.click()
    else:
        options.nth(index).click()
    _settle(page)


def _assert_inert(page, dialogs):
    assert not dialogs, f"a dialog fired: {dialogs}"
    for sel in INJECTED:
        assert page.locator(sel).count() == 0, f"injected element found: {sel}"


def test_hostile_text_is_inert_and_literal(app_url):
    exe = require_browser()
    with browser_page(exe, height=2400) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(app_url)
        _settle(page)
        page.wait_for_selector("h1", timeout=60000)
        sidebar = page.locator('[data-testid="stSidebar"]')
        _choose(page, sidebar, "Dataset", option_prefix="xss-test")
        # Data page: overview and the segment browser
        page.get_by_role("tab", name="Segments").click()
        _settle(page)
        _assert_inert(page, dialogs)
        screenshot(page, "xss_data")
        # Divergence browser, through the navigation so the session (and the dataset) is kept
        sidebar.get_by_role("link", name="Divergence browser").click()
        _settle(page)
        page.wait_for_selector('h1:has-text("Divergence browser")', timeout=60000)
        main = page.locator('[data-testid="stMain"]')
        seen = main.inner_text()
        n_outputs = 6
        for i in range(n_outputs):
            _choose(page, main, "Output (from this page", index=i)
            _assert_inert(page, dialogs)
            seen += "\n" + main.inner_text()
        screenshot(page, "xss_divergence")
        _assert_inert(page, dialogs)
        seen = seen.replace("\u2060", "")  # the invisible word joiners that break autolinks
        for lit in LITERALS:
            assert lit in seen, f"not shown literally: {lit!r}"
