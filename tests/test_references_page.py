"""The References & comprehension page under Streamlit's AppTest on the bundled sample."""
from __future__ import annotations

from test_pages import _charts, _frame, _open


def test_references_page_reference_quality_and_detect_mt():
    at = _open("references", {"rf_boot": 0})
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
