"""Metric detective, class mode: a student rewrites one output, every chosen metric scores it,
and the leaderboard shows which metric the class fooled most. Rewrites are saved into the saved
dataset (each student's own journal: evalcore.analysis.detective.save_submission) or, on a dataset
that is not saved, kept in this browser session only."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from evalcore.analysis import detective as D
from evalcore.present.highlight import box, escape
from evalcore.views import detective as detective_view
from pages.common import download_table, latest_saved, md, show_exception

SESSION_KEY = "det_session_rewrites"


def _submissions(ds, name):
    """The rewrites so far: the saved dataset's (newest version), else this session's."""
    if name:
        current = latest_saved(name, ds.lp)  # classmates keep adding rewrites
        return D.submissions_of(current), current
    rows = st.session_state.get(SESSION_KEY, [])
    return pd.DataFrame(rows, columns=D.SUBMISSION_COLUMNS), ds


def render(ds, query) -> None:
    st.subheader("Class mode: fool the metric")
    name = (st.session_state.get("dataset_meta") or {}).get("name")
    st.caption("Rewrite one translation. Goal A: change the meaning while keeping every metric's drop within Δ "
               "(the metric is fooled). Goal B: keep the meaning and make the metrics drop anyway (a false alarm). "
               + ("Rewrites are saved with this saved dataset, so the whole class shares one leaderboard."
                  if name else "This dataset is not a saved one: rewrites stay in this browser only (save the "
                  "dataset on the Data or Annotate page to share a leaderboard with the class)."))
    c1, c2 = st.columns(2)
    seg = c1.selectbox("Segment", [str(s) for s in ds.seg_ids], key="det_cls_seg")
    i = [str(s) for s in ds.seg_ids].index(seg)
    texts = ds.sys_texts()
    systems = [s for s in ds.systems if isinstance(texts[s][i], str) and texts[s][i].strip()]
    if not systems:
        st.info("No system has an output for this segment.")
        return
    system = c2.selectbox("Output of", systems, key="det_cls_sys")
    original = texts[system][i]
    st.markdown(box("Source", escape(str(ds.segments["source"].iloc[i]))), unsafe_allow_html=True)
    refs = ds.ref_texts()
    for r in ds.ref_ids[:1]:
        if isinstance(refs[r][i], str):
            st.markdown(box(f"Reference ({r})", escape(refs[r][i])), unsafe_allow_html=True)
    rewrite = st.text_area("Your rewrite of the translation", original, key=f"det_cls_text::{system}::{seg}")
    c3, c4 = st.columns(2)
    changed = c3.radio("Your rewrite…", ["changes the meaning", "keeps the meaning"], horizontal=True,
                       key="det_cls_changed") == "changes the meaning"
    student = c4.text_input("Your name (for the leaderboard)", key="det_cls_student")
    if st.button("Score and submit", type="primary", key="det_cls_go"):
        try:
            from evalcore.analysis.annotate import check_rater

            who = check_rater(student)
            D.check_rewrite(ds, system, seg, rewrite)
            if name:
                D.save_submission(name, ds.lp, who, system, seg, rewrite, changed)
            else:
                st.session_state.setdefault(SESSION_KEY, []).append(
                    {"student": who, "system": system, "seg_id": seg, "rewrite": rewrite, "meaning_changed": changed,
                     "saved_at": ""})
            st.session_state["det_cls_last"] = {"student": who, "system": system, "seg_id": seg, "rewrite": rewrite,
                                                "meaning_changed": changed}
            st.toast("Submitted.")
        except (ValueError, TimeoutError, OSError) as exc:
            st.error(md(str(exc)))
        except Exception as exc:
            show_exception(exc, "Could not submit the rewrite")
    last = st.session_state.get("det_cls_last")
    try:
        subs, current = _submissions(ds, name)
        if last:
            mine = detective_view.rewrites_scored((ds, pd.DataFrame([last])), query)
            st.markdown("**Your last rewrite**")
            a, b = detective_view.side_by_side_html(texts[last["system"]][[str(s) for s in ds.seg_ids].index(last["seg_id"])],
                                       last["rewrite"], "Your rewrite")
            left, right = st.columns(2)
            left.markdown(a, unsafe_allow_html=True)  # escaped text
            right.markdown(b, unsafe_allow_html=True)
            st.dataframe(mine[["metric", "original_score", "rewrite_score", "drop", "caught"]], hide_index=True)
        if subs.empty:
            st.info("No rewrites yet: be the first.")
            return
        scored = detective_view.rewrites_scored((current, subs), query)
        board = detective_view.leaderboard(scored, query)
        st.markdown(f"**Leaderboard: which metric the class fooled most** ({len(subs)} rewrite(s) by "
                    f"{subs['student'].nunique()} student(s); fooled = the meaning changed and the drop was at most Δ)")
        st.dataframe(board, hide_index=True, width="stretch",
                     column_config={"fooled_share": st.column_config.ProgressColumn(
                         "fooled_share", min_value=0.0, max_value=1.0, format="%.2f")})
        download_table(scored, f"{ds.name}_detective_rewrites", key="det_cls_dl")
    except Exception as exc:
        show_exception(exc, "Could not score the class's rewrites")
