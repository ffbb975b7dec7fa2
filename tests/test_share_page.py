"""Share this analysis on the Systems page (pages/sections/share.py) under AppTest: the card is
made on request, for the page's dataset and settings, and is the card of evalcore.views.card."""
from __future__ import annotations

import os

from streamlit.testing.v1 import AppTest

from conftest import ROOT

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))


def test_systems_page_offers_the_card_on_request(monkeypatch):
    from streamlit.delta_generator import DeltaGenerator

    from evalcore.analysis.verdict import best_system
    from evalcore.io import load_collection
    from evalcore.views.card import read_card

    files = {}
    real = DeltaGenerator.download_button

    def button(self, label, data, file_name=None, *args, **kw):  # the file the button would send
        files[file_name] = data
        return real(self, label, data, file_name, *args, **kw)

    monkeypatch.setattr(DeltaGenerator, "download_button", button)
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["sys_boot"] = 0
    at.session_state["sys_metrics"] = ["bleu"]
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [f for f in files if f and f.endswith("_card.html")]  # made only on request
    at.button(key="sys_share_make").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    (name,) = [f for f in files if f and f.endswith("_card.html")]
    card = read_card(files[name].decode("utf-8"))
    ds = load_collection(ROOT / "sample_data" / "teaching_es_en")["es-en"]
    crit = at.multiselect(key="sys_criteria").value[0]  # the page's first criterion
    assert card["parameters"]["criterion"] == crit
    assert card["verdicts"][0]["answer"] == best_system(ds, crit).answer
    assert card["dataset"]["content_hash"] == ds.content_hash() and card["inputs"] == []


def test_compare_page_card_is_of_the_compared_pair(monkeypatch):
    """The Compare page's card answers "does B beat A" for the page's own A and B."""
    from streamlit.delta_generator import DeltaGenerator

    from evalcore.views.card import read_card

    files = {}
    real = DeltaGenerator.download_button

    def button(self, label, data, file_name=None, *args, **kw):
        files[file_name] = data
        return real(self, label, data, file_name, *args, **kw)

    monkeypatch.setattr(DeltaGenerator, "download_button", button)
    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in {"cmp_boot": 100, "cmp_ar": 100, "cmp_metrics": ["bleu"]}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/compare.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    a, b = at.selectbox(key="cmp_a").value, at.selectbox(key="cmp_b").value
    at.button(key="cmp_share_make").click().run()
    assert not at.exception, [e.message for e in at.exception]
    (name,) = [f for f in files if f and f.endswith("_card.html")]
    card = read_card(files[name].decode("utf-8"))
    pair = [v for v in card["verdicts"] if v["question"] == "does B beat A"]
    assert pair and f"--a {a}" in card["command"] and f"--b {b}" in card["command"]


def test_metatask_and_campaign_pages_offer_the_card():
    for page, key in (("metatask", "mt_share_make"), ("campaign", "camp_share_make")):
        at = AppTest.from_file(APP, default_timeout=300)
        at.session_state["mt_metrics"] = ["bleu"]
        at.session_state["camp_metrics"] = ["bleu"]
        at.run()
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, (page, [e.message for e in at.exception])
        assert at.button(key=key).label == "Make the evaluation card"
