"""Click-marking an error span in a real browser: two clicks on words (one by keyboard), the span
highlighted before it is added, added, undone with one click."""
from __future__ import annotations

from browser import chromium, new_page, require_browser, running_app, screenshot, wait_for_app
from conftest import ROOT


def test_click_two_words_then_undo(tmp_path, monkeypatch):
    exe = require_browser()
    from evalcore.analysis import annotate as A
    from evalcore.io import load_collection, workspace

    home = tmp_path / "home"
    monkeypatch.setenv("EVALCORE_HOME", str(home))
    monkeypatch.setenv("EVALCORE_CACHE", str(home / "cache"))
    coll = load_collection(ROOT / "sample_data" / "teaching_es_en", name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    A.save_plan(name, lp, A.Plan(items_per_student=4, overlap=1.0, qc=False))
    ds = workspace.load_saved(name)[lp]
    task = A.next_task(ds, A.plan_of(ds), "ana", "esa")[0]
    words = task.text.split()
    assert len(words) >= 3 and len(set(words[:3])) == 3
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url, \
            chromium(exe) as browser:
        page = new_page(browser, height=2000)
        page.goto(f"{url}/annotate?dataset=class")
        wait_for_app(page)
        page.get_by_label("Your name (as the class knows you)").fill("ana")
        page.keyboard.press("Enter")
        wait_for_app(page)
        page.get_by_text("ESA (error spans + score)").click()
        wait_for_app(page)
        # first word by mouse, third word by keyboard (focus, Enter)
        page.get_by_role("button", name=words[0], exact=True).first.click()
        wait_for_app(page)
        page.get_by_role("button", name=words[2], exact=True).first.focus()
        page.keyboard.press("Enter")
        wait_for_app(page)
        chosen = page.locator('span[title="chosen, not added yet"]')
        assert chosen.count() == 1
        assert chosen.inner_text().split() == words[:3]  # highlighted before it is added
        page.get_by_role("button", name="Add the error").click()
        wait_for_app(page)
        marked = page.locator('span[title="minor error"]')
        assert marked.count() == 1 and marked.inner_text().split() == words[:3]
        screenshot(page, "annotate_click_marking")
        page.get_by_role("button", name="Remove the last error").click()  # one click undoes it
        wait_for_app(page)
        assert page.locator('span[title="minor error"]').count() == 0
