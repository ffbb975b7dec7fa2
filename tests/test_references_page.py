"""The References & comprehension page under Streamlit's AppTest on the bundled sample."""
from __future__ import annotations

from test_pages import _charts, _frame, _open


def test_references_page_reference_quality_and_detect_mt():
    at = _open("references", {"rf_boot": 0, "rf_metrics": ["bleu"]})
    assert at.title[0].value == "References & comprehension"
    summary = _frame(at, "n_held_out")
    assert {"human", "mt"} <= set(summary["kind"])
    assert len(_charts(at)) >= 1
    overall = _frame(at, "share_flagged")
    n_before = int(overall["segments_flagged"].sum())
    at.number_input(key="rf_gap").set_value(0.0).run()
    assert not at.exception
    n_after = int(_frame(at, "share_flagged")["segments_flagged"].sum())
    assert n_after >= n_before and n_after > 0


def test_references_page_reading_comprehension_table3():
    at = _open("references", {"rf_boot": 0, "rc_boot": 50})
    t3 = _frame(at, "pct_correct").set_index("system")
    assert t3.loc["ref-A", "kind"] == "reference"
    assert t3.loc["pleonastic", "pct_correct"] < t3.loc["literal", "pct_correct"]
    corr = _frame(at, "spearman").set_index("measure")
    assert {"bleu", "adequacy"} <= set(corr.index)


def test_experts_page_gold_picker():
    at = _open("experts")
    assert at.title[0].value == "Experts vs non-experts"
    assert at.multiselect(key="ex_gold").value == ["expert"]
    fig2 = _frame(at, "n_labels").set_index("rater")
    assert set(fig2.index) == {"rater1", "rater2", "rater3"}
    assert len(_charts(at)) == 3
    at.multiselect(key="ex_gold").set_value(["rater1", "rater2"]).run()
    assert not at.exception
    assert set(_frame(at, "n_labels")["rater"]) == {"rater3", "expert"}
    ranks = _frame(at, "rho")
    assert ranks["ranking"].str.startswith("gold vs gold").any()


def test_detect_mt_evidence_is_escaped_on_hostile_text(tmp_path, monkeypatch):
    """sample_data/xss_es_en: the side-by-side evidence shows <script>, Markdown and LaTeX as
    escaped text (the browser test of this stays with the lead's test_xss.py)."""
    from conftest import ROOT
    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    workspace.save(load_collection(ROOT / "sample_data" / "xss_es_en"), "xss")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = _open("references", {"dataset_label": label, "dataset_select": label, "rf_boot": 0, "rf_gap": 0.0})
    n = len(at.selectbox(key="rf_pick").options)
    assert n >= 2  # the pairs at least as close to an MT output as to the other reference
    seen = ""
    for i in range(n):
        at.selectbox(key="rf_pick").set_value(i).run()
        assert not at.exception
        evidence = [m.value for m in at.markdown if m.value.startswith(("**Reference", "**MT output", "**The other"))]
        assert len(evidence) == 3
        text = "\n".join(evidence)
        assert "<script" not in text and "<img" not in text and "**bold**" not in text and "$x^2$" not in text
        seen += text
    assert "&lt;script&gt;" in seen and "&#42;&#42;bold&#42;&#42;" in seen


def test_experts_page_draws_agreement_before_scoring_the_metric(monkeypatch):
    """The metric beside the raters (Figure 3's last row) is scored last: when it fails, Figures 2
    and 1 are already drawn and the error names the step."""
    import streamlit as st

    from evalcore.analysis import experts as E

    st.cache_data.clear()  # a metric scored by an earlier test stays cached in this process

    def boom(ds, metric, tokenize=None):  # (the page passes its tokenizer explicitly)
        raise RuntimeError(f"scoring {metric} failed")

    monkeypatch.setattr(E, "metric_system_scores", boom)
    at = _open("experts", check_errors=False)
    assert len(_charts(at)) == 2
    assert any("Could not rank the systems" in e.value and "scoring bleu failed" in e.value for e in at.error)
    at.selectbox(key="ex_metric").set_value("(none)").run()  # no metric: nothing is scored
    assert not at.error and len(_charts(at)) == 3
