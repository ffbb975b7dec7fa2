"""The Metrics task page's detection section: error-free detection (WMT26) and criticality
(WMT25) of the page's metrics on its language pairs (layout only; the view is
evalcore.views.detect, the maths evalcore.analysis.detect, methods §23)."""
from __future__ import annotations

import streamlit as st

from evalcore.views import detect as view
from pages import common  # through the module: a test may replace its functions (tests/test_downloads.py)


def render(coll: dict, lps: list, metrics: list) -> None:
    st.subheader("Detection: error-free and critical outputs")
    if not st.toggle("Show the detection tasks (error-free: human score ≥ 85 and no error span; critical: "
                     "human score < 10)", value=False, key="mt_detect_on"):
        return
    humans = view.human_choices(coll, lps)
    if not humans or not metrics:
        st.info("Needs one human score type that every chosen language pair has, and at least one metric.")
        return
    c1, c2, c3, c4 = st.columns(4)
    task = c1.selectbox("Task", view.TASKS, key="mt_detect_task",
                        help="error-free (WMT26): can the metric find the outputs without errors? critical "
                             "(WMT25): can it find the outputs humans scored below 10?")
    human = c2.selectbox("Gold labels from", humans, key="mt_detect_human")
    others = [h for h in humans if h != human]
    human2 = c3.selectbox("Second wave (human row)", ["(none)"] + others, key="mt_detect_human2",
                          help="Another annotation of the same outputs: its own label against the gold.")
    source = c4.selectbox("Thresholds chosen on", ["(each pair its own)"] + list(lps), key="mt_detect_from",
                          format_func=lambda x: x or "-",
                          help="Apply the thresholds chosen on one pair to every pair (transfer columns).")
    query = view.DetectQuery(view.dataset_key(coll, lps), tuple(lps), tuple(metrics), task, human,
                             None if human2 == "(none)" else human2,
                             None if source == "(each pair its own)" else source)
    try:
        with st.spinner("Scoring the outputs and choosing thresholds…"):
            res = common.cached(view.detect_table, query, coll)
    except (ValueError, KeyError) as exc:
        common.show_exception(exc, "Could not compute the detection table")
        return
    st.caption(common.md(res.method))
    st.dataframe(res.table, hide_index=True, width="stretch")
    common.download_table(res.table, f"detect_{task}", key="mt_detect_table")
    common.show_notes(res)
