"""A page that computes refuses, with the estimate and the setting, a dataset over the server's
memory budget (evalcore.core.budget; EVALCORE_MEMORY_BUDGET_MB), and computes nothing; within
the budget it is unchanged."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from conftest import ROOT

APP = str(ROOT / "app.py")


def test_systems_page_refuses_a_dataset_over_the_budget(monkeypatch):
    import evalcore.views.systems as systems_view
    from evalcore.core.budget import estimate
    from evalcore.io import load_dataset

    calls = []
    real = systems_view.systems_table
    monkeypatch.setattr(systems_view, "systems_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    need = estimate(load_dataset(ROOT / "sample_data" / "teaching_es_en")).bytes
    monkeypatch.setenv("EVALCORE_MEMORY_BUDGET_MB", str(max(1, need // (1024 * 1024) // 2)))
    if need < 2 * 1024 * 1024:  # the sample is small: a budget below it needs a smaller unit
        monkeypatch.setattr("evalcore.core.budget.budget_bytes", lambda environ=None: need // 2)
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    errs = [e.value for e in at.error]
    assert any("Not computed here" in e and "EVALCORE&#95;MEMORY&#95;BUDGET&#95;MB" in e or
               "EVALCORE_MEMORY_BUDGET_MB" in e for e in errs), errs
    assert calls == []  # nothing computed
