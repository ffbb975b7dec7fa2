"""Human ceiling and sentinel baselines section of the Metrics task page (methods §24.2, §24.3).
Layout only: the numbers come from evalcore.views.baselines through pages.common.cached."""
from __future__ import annotations

import streamlit as st

from evalcore.views import baselines as view
from pages.common import cached, download_table, md, progress_bar, show_exception


def render(coll, *, key: str, name: str, task: str, lps, metrics, human=None, judged_only: bool = False) -> None:
    from evalcore.views.queries import collection_key
    from pages.common import query_settings

    st.subheader("Human ceiling and sentinel baselines")
    st.caption("A second rating of the same outputs scored like a metric (the ceiling; each metric's share of it), "
               "and model-free sentinels a metric must beat (Perrella et al. 2024; methods §24.2-22.3).")
    c1, c2, c3 = st.columns(3)
    options = ["(none)"] + view.second_ratings(coll, lps)
    second = c1.selectbox("Second rating (human ceiling)", options, key=f"{key}_base_second",
                          help="Another human score type (a second wave), 'raters' (each item's first rater "
                               "against its second) or 'repeats' (a rater's re-rating).")
    sentinels = c2.checkbox("Sentinel baselines", value=True, key=f"{key}_base_sent")
    if not c3.toggle("Compute", value=False, key=f"{key}_base_on"):
        return
    query = view.BaselinesQuery(collection_key(coll, lps), query_settings(judged_only=bool(judged_only)), task=task,
                                lps=tuple(lps), metrics=tuple(metrics), human=human,
                                second="" if second.startswith("(") else second, sentinels=bool(sentinels))
    bar, cb = progress_bar("Computing…")
    try:
        res = cached(view.baselines, query, coll, progress=cb)
    except Exception as exc:
        bar.empty()
        show_exception(exc, "Could not compute the baselines")
        return
    bar.empty()
    st.dataframe(res.table, hide_index=True, width="stretch")
    download_table(res.table, f"{name}_baselines", key=f"{key}_base_tab")
    if "beats_sentinel" in res.table:
        lost = res.table.loc[res.table["beats_sentinel"].eq(False), "metric"].tolist()
        if lost:
            st.warning("Not significantly better than the best sentinel: " + ", ".join(md(m) for m in lost))
    with st.expander(f"What was computed ({len(res.notes)} note(s))"):
        st.markdown("\n".join(f"- {md(n)}" for n in res.notes))
