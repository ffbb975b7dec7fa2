"""The Divergence browser on WMT24 ESA en-cs in a real browser: the detail view draws the ESA
error spans beside the metric marks, the page raises nothing (screenshot for review)."""
from __future__ import annotations

import os

import pytest

from browser import browser_page, require_browser, running_app, screenshot, wait_for_app
from conftest import shared


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("spans-home")
    old = os.environ.get("EVALCORE_HOME")
    os.environ["EVALCORE_HOME"] = str(home)
    try:
        from evalcore.io import workspace
        from evalcore.io import load_collection

        workspace.save(load_collection(shared("wmt24_esa")), "wmt24-esa")
        with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url:
            yield url
    finally:
        if old is None:
            os.environ.pop("EVALCORE_HOME", None)
        else:
            os.environ["EVALCORE_HOME"] = old


def test_divergence_detail_shows_esa_spans_on_wmt24_en_cs(app_url):
    exe = require_browser()
    with browser_page(exe, height=3200) as page:
        page.goto(f"{app_url}/divergence?dataset=wmt24-esa&lp=en-cs")
        wait_for_app(page, timeout_ms=300000)
        page.get_by_text("Human error spans beside what each metric marks").wait_for(timeout=300000)
        wait_for_app(page, timeout_ms=300000)
        assert page.locator('[data-testid="stException"]').count() == 0
        # the stacked layers: at least one ESA rater and the three metrics' marks on the same text
        body = page.locator('[data-testid="stMain"]').inner_text()
        assert "(ESA)" in body
        for label in ("BLEU: tokens without any n-gram match", "TER: words shifted, substituted or inserted"):
            assert label in body
        page.get_by_text("Human error spans beside what each metric marks").scroll_into_view_if_needed()
        screenshot(page, "wmt24_en-cs_divergence_spans")
