"""Annotate: a student judges outputs one at a time (DA, ESA, MQM-lite) or ranks several; every save goes to the saved dataset."""
from __future__ import annotations

import streamlit as st

from evalcore.analysis import annotate as A
from evalcore.io import workspace
from evalcore.present.highlight import box, escape
from evalcore.views import annotate as V
from pages.common import current_collection, current_dataset, ensure_shell, latest_saved, md, show_exception

ensure_shell(__file__)
st.title("Annotate")
from pages.common import terms  # noqa: E402

terms("DA", "ESA", "MQM", "segment")
st.caption("Judge machine translations as WMT's human raters do, one at a time. Direct assessment (DA): how good "
           "is the translation, 0-100. Error span annotation (ESA; Kocmi et al. 2024): mark each error's words "
           "with a severity, then give the score. MQM-lite (Freitag et al. 2021): mark each error with a severity "
           "and a category; the score is computed from them. Ranking (WMT's relative ranking): put two to five "
           "translations of one sentence in order. Your judgements are saved into the chosen saved dataset as soon "
           "as you press *Save and next*; the Class page compares them with your classmates' and the experts'.")
st.page_link("pages/classroom.py", label="See the class's results on the Class page", icon="🧑‍🏫")

ds = current_dataset()
meta = st.session_state.get("dataset_meta") or {}
name = meta.get("name")
if name is None:
    st.info("Judgements are saved into a saved dataset, and the bundled sample is not one. The teacher saves a "
            "copy for the class once; everybody then chooses it in the sidebar.")
    wanted = st.text_input("Name of the class's copy", "class-teaching-es-en", key="ann_copy_name")
    if st.button("Save a copy for the class", key="ann_copy"):
        try:
            stored = workspace.save(current_collection(), wanted, source="copy for class annotation")
            label = next(f"{m['name']} (saved {m.get('saved_at') or '?'})" for m in workspace.list_saved()
                         if m["name"] == stored)
            st.session_state["dataset_label"] = st.session_state["dataset_select"] = label
            st.rerun()
        except (OSError, ValueError, TimeoutError) as exc:
            st.error(md(str(exc)))
        except Exception as exc:
            show_exception(exc, "Could not save the copy")
    st.stop()
try:  # the newest version: classmates save into it all the time
    ds = latest_saved(name, ds.lp)
except Exception as exc:
    show_exception(exc, "Could not load the saved dataset")
    st.stop()
if not ds.systems:
    st.info("This dataset has no system outputs to judge.")
    st.stop()

plan = A.plan_of(ds)
with st.expander("Teacher settings (shared by the whole class, saved with the dataset)"):
    c1, c2, c3 = st.columns(3)
    n_items = c1.number_input("Items per student", 1, max(1, len(A.items(ds))), min(plan.items_per_student,
                              len(A.items(ds))), key="ann_n")
    overlap = c2.slider("Overlap (share of items every student judges)", 0.0, 1.0, float(plan.overlap), 0.05,
                        key="ann_overlap")
    seed = c3.number_input("Seed", 0, 10**6, int(plan.seed), key="ann_seed")
    qc = st.checkbox("Quality control: a degraded copy and a repeat of about one item in ten", plan.qc, key="ann_qc")
    show_ref = st.checkbox("Show the reference translation to the students", plan.show_reference, key="ann_ref")
    rank_k = st.number_input("Relative ranking: outputs of one segment per screen", A.MIN_RANK_OUTPUTS,
                             A.MAX_RANK_OUTPUTS, int(plan.rank_outputs), key="ann_rank_k")
    adaptive = st.checkbox("Adaptive order: after the shared items, each student's own items come where the class's "
                           "ranking of the systems is least certain (every protocol)", plan.adaptive, key="ann_adaptive")
    st.caption(f"With these settings every two students share at least {A.n_shared(int(n_items), overlap)} items "
               "(for agreement); they come first, in one order for the class, and the rest are drawn per student. "
               "Changing the settings changes what is still to do, never what was saved: a student's saved items "
               "stay done.")
    if st.button("Save the settings for the class", key="ann_save_plan"):
        try:
            A.save_plan(name, ds.lp, A.Plan(int(n_items), float(overlap), bool(qc), bool(show_ref), int(seed),
                                              int(rank_k), bool(adaptive)))
            st.rerun()
        except Exception as exc:
            show_exception(exc, "Could not save the settings")

c1, c2 = st.columns([2, 1])
typed = c1.text_input("Your name (as the class knows you)", key="ann_rater")
protocol = c2.radio("Protocol", list(A.PROTOCOLS), format_func=lambda p: {"da": "DA (0-100 score)",
                    "esa": "ESA (error spans + score)", "mqm": "MQM-lite (error spans + category)",
                    "rank": "Ranking (2-5 outputs)"}[p],
                    horizontal=True, key="ann_protocol")
if not typed.strip():
    st.info("Type your name to start.")
    st.stop()
try:
    rater = A.check_rater(typed)
except ValueError as exc:
    st.error(md(str(exc)))
    st.stop()

task, done, total = A.next_task(ds, plan, rater, protocol)
st.markdown(f"**{done} of {total} done**")  # text, not st.progress: a bar reads as "still running"
first = A.agreement_after(ds, plan, protocol)
unit = "screens" if protocol == "rank" else "items"
st.caption(f"Your first items are shared with the whole class, in the same order: your agreement with any "
           f"classmate can be measured on the Class page after your first {first} {unit} (and theirs)."
           if first else "This plan shares too few items for agreement between students to be measured.")
if task is None:
    st.success(f"All {total} items done, {md(rater)}: thank you! Your judgements are on the Class page.")
    st.stop()

task_key = f"{protocol}|{task.kind}|{task.system}|{task.seg_id}"
if protocol == "rank":  # relative ranking: one segment's outputs side by side (Callison-Burch et al. 2009)
    ctx = V.rank_context(ds, task, plan.show_reference)
    st.markdown(V.source_html(ctx["source"]), unsafe_allow_html=True)  # escaped (evalcore.present.highlight)
    for ref_id, text in ctx["references"][:1]:
        st.markdown(box(f"Reference ({ref_id})", escape(text)), unsafe_allow_html=True)
    k = len(task.systems)
    st.markdown(f"**Rank the {k} translations** from 1 (best) to {k} (worst). Two translations that are "
                "equally good get the same rank.")
    ranks = []
    for i, text in enumerate(task.texts):
        r1, r2 = st.columns([5, 1])
        r1.markdown(box(f"Translation {i + 1}", escape(text)), unsafe_allow_html=True)
        ranks.append(r2.selectbox(f"Rank of translation {i + 1}", list(range(1, k + 1)), index=None,
                                  placeholder="rank", key=f"ann_rank::{task_key}::{i}"))
    if st.button("Save and next", type="primary", key=f"ann_go::{task_key}"):
        try:
            if any(r is None for r in ranks):
                raise ValueError("give every translation a rank (1 = best; equal ones may share a rank)")
            A.save_ranking(name, ds.lp, rater, task, ranks)
            st.toast("Saved.")
            st.rerun()
        except (ValueError, TimeoutError, OSError) as exc:
            st.error(md(str(exc)))
        except Exception as exc:
            show_exception(exc, "Could not save the ranking")
    st.stop()
ctx = V.task_context(ds, task, plan.show_reference)
st.markdown(V.source_html(ctx["source"]), unsafe_allow_html=True)  # escaped (evalcore.present.highlight)
for ref_id, text in ctx["references"][:1]:
    st.markdown(box(f"Reference ({ref_id})", escape(text)), unsafe_allow_html=True)

spans_key = f"ann_spans::{task_key}"
spans = st.session_state.setdefault(spans_key, [])
output_slot = st.empty()  # drawn below, once the words being chosen are known (they are highlighted)
pending = None

if protocol in ("esa", "mqm"):
    words = ctx["words"]
    st.markdown("**Mark the errors**: choose the words of one error, its severity"
                + (", its category" if protocol == "mqm" else "") + ", then *Add the error*. "
                "Minor: a problem that does not change the meaning much; major: a wrong meaning, "
                "something left out, or a hard-to-understand sentence.")
    if protocol == "mqm":
        st.caption("Categories (MQM, Freitag et al. 2021): Accuracy (meaning: mistranslated, added, left out), "
                   "Fluency (grammar, spelling, punctuation), Terminology, Style (awkward), Locale convention "
                   "(dates, numbers, addresses), Non-translation (not translated at all: always major), Other. "
                   "The score is computed from your errors: minor −1, major −5, non-translation −25.")
    if words:
        st.caption("Click the first and the last word of the error (one word: click it once); click a word "
                   "again to unselect it. The words are buttons: Tab moves between them, Enter or Space selects.")
        picked = st.pills("Words of the error", options=list(range(len(words))), selection_mode="multi",
                          format_func=lambda i: words[i], key=f"ann_pick::{task_key}", label_visibility="collapsed")
        e1, e2 = st.columns([3, 1])
        with e1.expander("…or choose the words with a slider"):
            if len(words) > 1:
                rng = st.select_slider("Words of the error", options=list(range(len(words))), value=(0, 0),
                                       format_func=lambda i: V.word_label(words, i), key=f"ann_words::{task_key}")
            else:  # a one-word output: nothing to choose
                rng = (0, 0)
                st.caption(f"The output is one word: {md(words[0])}")
        if picked:  # two clicks (or one) on words: the span from the first to the last chosen
            rng = (min(picked), max(picked))
            pending = A.words_to_span(ctx["output"], int(rng[0]), int(rng[1]), "selected")
        sev = e2.radio("Severity", list(A.ESA_SEVERITIES), horizontal=True, key=f"ann_sev::{task_key}")
        cat = (st.selectbox("Category", list(A.MQM_CATEGORIES), key=f"ann_cat::{task_key}")
               if protocol == "mqm" else None)
        if st.button("Add the error", key=f"ann_add::{task_key}"):
            span = A.words_to_span(ctx["output"], int(rng[0]), int(rng[1]), sev)
            if cat is not None:
                span = {k: v for k, v in span.items() if k != "error_type"} | {"category": cat}
            try:
                if cat is not None:
                    A.check_mqm_spans([span], ctx["output"])
                spans.append(span)
                st.session_state.pop(f"ann_pick::{task_key}", None)  # the next error starts from no words
                st.rerun()
            except ValueError as exc:
                st.error(md(str(exc)))
    if spans:
        st.dataframe(V.spans_table(ctx["output"], spans), hide_index=True)
        if st.button("Remove the last error", key=f"ann_undo::{task_key}"):
            spans.pop()
            st.rerun()

output_slot.markdown(V.output_html(ctx["output"], spans, pending=pending), unsafe_allow_html=True)  # escaped text

if protocol == "mqm":
    score = None
    st.markdown(f"**MQM score of your errors: {A.mqm_lite_score(spans):g}** (0 = no error found)")
else:
    score = st.slider("Your score: 0 = nonsense or no meaning kept, 100 = perfect meaning and grammar",
                      0, 100, 50, key=f"ann_score::{task_key}")
if st.button("Save and next", type="primary", key=f"ann_go::{task_key}"):
    try:
        A.save_judgement(name, ds.lp, rater, protocol, task, score, spans if protocol != "da" else None)
        st.session_state.pop(spans_key, None)
        st.toast("Saved.")
        st.rerun()
    except (ValueError, TimeoutError, OSError) as exc:
        st.error(md(str(exc)))
    except Exception as exc:
        show_exception(exc, "Could not save the judgement")
