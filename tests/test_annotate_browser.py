"""Two students annotate at the same time in a real browser (two Chromium contexts, one DA and
one ESA, on one server), and the Class page shows both."""
from __future__ import annotations

from browser import browser_page, chromium, new_page, require_browser, running_app, screenshot, wait_for_app
from conftest import ROOT

NAME_A = "ana <b>bold</b>"
NAME_B = "bo"


def _start(page, url: str, rater: str, esa: bool) -> None:
    page.goto(f"{url}/annotate?dataset=class")
    wait_for_app(page)
    page.get_by_label("Your name (as the class knows you)").fill(rater)
    page.keyboard.press("Enter")
    wait_for_app(page)
    if esa:
        page.get_by_text("ESA (error spans + score)").click()
        wait_for_app(page)


def test_two_students_annotate_concurrently_and_the_class_page_shows_both(tmp_path, monkeypatch):
    exe = require_browser()
    from evalcore.analysis import annotate as A
    from evalcore.io import workspace
    from evalcore.io import load_collection

    home = tmp_path / "home"
    monkeypatch.setenv("EVALCORE_HOME", str(home))
    monkeypatch.setenv("EVALCORE_CACHE", str(home / "cache"))
    coll = load_collection(ROOT / "sample_data" / "teaching_es_en", name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    A.save_plan(name, lp, A.Plan(items_per_student=6, overlap=0.5, qc=False))
    with running_app({"EVALCORE_HOME": str(home), "EVALCORE_CACHE": str(home / "cache")}) as url, \
            chromium(exe) as browser:
        a = new_page(browser, height=2000)  # two contexts: two sessions, two students
        b = new_page(browser, height=2000)
        _start(a, url, NAME_A, esa=False)
        _start(b, url, NAME_B, esa=True)
        for _ in range(2):  # both press "Save and next" before either run has finished
            # ESA: the first word marked as a minor error (the default range and severity)
            b.get_by_role("button", name="Add the error").click()
            wait_for_app(b)
            a.get_by_role("button", name="Save and next").click()
            b.get_by_role("button", name="Save and next").click()
            wait_for_app(a)
            wait_for_app(b)
        assert "2 of 6 done" in a.locator("body").inner_text()
        assert "2 of 6 done" in b.locator("body").inner_text()
        screenshot(b, "annotate_esa")
        a.context.close()
        b.context.close()
        ds = workspace.load_saved(name)[lp]
        cls = ds.judgements[ds.judgements["judgement"].isin(["class_da", "class_esa"])]
        assert sorted(zip(cls["rater"], cls["judgement"])) == sorted(
            [(NAME_A, "class_da")] * 2 + [(NAME_B, "class_esa")] * 2)
        assert len(ds.extras["esa_spans"]) == 2
        with browser_page(exe, browser=browser) as page:
            page.goto(f"{url}/classroom?dataset=class")
            wait_for_app(page)
            body = page.locator("body").inner_text()
            assert "1 student(s)" in body and NAME_A in body  # shown as typed, not as markup
            assert page.locator("b", has_text="bold").count() == 0
            page.get_by_text("ESA", exact=True).click()
            wait_for_app(page)
            body = page.locator("body").inner_text()
            assert "1 student(s)" in body and NAME_B in body
            screenshot(page, "classroom_esa")
