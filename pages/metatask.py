"""Metrics task: the WMT metrics-task table of a recipe (WMT23, WMT24, WMT25) on the loaded
dataset — per-task values, weighted average, average rank, leaderboard with rank bands or
clusters. The maths is in evalcore.analysis.metatask (methods §3.13)."""
from __future__ import annotations

import streamlit as st

from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import metatask as metatask_view, metatask as view, queries as queries_view
from pages.common import query_settings  # noqa: E402
from pages.common import cached, computed_keys, download_figure, download_table, ensure_shell, md, progress_bar, show_exception

ensure_shell(__file__)
from pages.common import settings_caption  # noqa: E402  (the one settings line)
from evalcore.scoring.settings import metatask_settings_line  # noqa: E402
st.title("Metrics task")
from pages.common import terms  # noqa: E402

terms('metrics task', 'SPA', 'acc23', 'tie calibration', 'Pearson', 'significance cluster', 'bootstrap CI')
from pages.common import current_collection  # noqa: E402

coll = current_collection()
judged = [lp for lp, d in coll.items() if d.criteria]
if not judged:
    st.info("This page needs human judgements in at least one language pair.")
    st.stop()

c1, c2, c3 = st.columns([2, 3, 3])
task = c1.selectbox("Task recipe", view.task_names(), index=view.task_names().index("wmt24"), key="mt_task")
st.caption(md(view.task_description(task)) + " — values per sub-task, their weighted average (each mapped to [0, 1] "
           "by its range) and the weighted average rank, as mt-metrics-eval's TaskSetResults.")
from evalcore.analysis.metatask_tasks import TASKS  # noqa: E402

in_task = [lp for lp in TASKS[task].lps if lp in judged]
lps = c2.multiselect("Language pairs", judged, default=in_task or judged, key="mt_lps",
                     format_func=lambda x: x or "-",
                     help="Default: the task's pairs when the data has them, else every judged pair.")
fast = [m for m in ("bleu", "chrf") if m in common_view.available_metrics()]
from evalcore.scoring.availability import offered  # noqa: E402  (only metrics that can run on every pair)

metrics = c3.multiselect("Metrics", offered(coll[lp] for lp in lps), default=fast, key="mt_metrics")
criteria = list(dict.fromkeys(c for lp in lps for c in coll[lp].criteria))
task_gold_ok = all(TASKS[task].gold_for(lp) in coll[lp].criteria for lp in lps) if lps else True
options = ["(the task's)"] + criteria
default_h = 0 if task_gold_ok or not lps else 1 + criteria.index(common_view.default_criterion(coll[lps[0]]))
human = st.selectbox("Human scores", options, index=default_h, key="mt_human",
                     help="The task fixes the human score type per pair (WMT24: MQM or ESA); choose another when "
                          "the data has other judgements.")
human_v = None if human.startswith("(") else human
c4, c5, c6 = st.columns(3)
judged_only = c4.checkbox("Corpus scores on judged segments only", value=False, key="mt_judged",
                          help="The official tasks score every segment; on: only the judged ones.")
k = int(c5.number_input("Cluster resamples (0: none, as the official runs)", 0, 1000, 0, step=50, key="mt_k",
                        help="Joint paired permutations of the weighted average; slow (minutes for 100)."))
want_ci = c6.checkbox("Bootstrap CIs per sub-task (100 draws; slow)", value=False, key="mt_ci")
if not lps or not metrics:
    st.info("Choose at least one language pair and one metric.")
    st.stop()

# each pair's tokenizer is sacreBLEU's default for its target language (the task's own rule)
query = metatask_view.MetataskQuery(queries_view.collection_key(coll, lps), query_settings(judged_only=bool(judged_only)), task,
                                    tuple(lps), tuple(metrics), human_v, k)
point_query = dataclasses.replace(query, k=0)  # the table without clusters: what is drawn first
try:
    with st.spinner("Scoring and computing the task table…"):
        point = cached(metatask_view.metatask_result, point_query, coll)
except Exception as exc:
    show_exception(exc, "Could not compute the task table")
    st.stop()

st.subheader("Leaderboard")
settings_caption(metatask_settings_line(judged_only))
verdict_slot = st.container()  # the primary answer first: filled once the clusters (if any) are known
lead_slot = st.empty()
lead_dl = st.container()
table_slot = st.empty()
table_note = st.empty()
table_dl = st.container()
done = computed_keys()
if k and ("metatask", query) not in done:
    # progressive: the leaderboard from the values first, then the clusters' permutations under a bar
    lead_slot.plotly_chart(cached(metatask_view.metatask_leaderboard_figure, point_query, point, shared=True),
                           width="stretch", key="mt_lead_point")
    pending, pending_note = view.leaderboard_pending(point[0], k)
    table_slot.dataframe(pending, hide_index=True, width="stretch")
    table_note.caption(pending_note)
    bar, _ = progress_bar(f"Significance clusters: {k:,} joint permutations of the weighted average…")
    try:
        result = cached(metatask_view.metatask_clusters, query, point)
    except Exception as exc:
        bar.empty()
        show_exception(exc, "Could not cluster the metrics")
        st.stop()
    bar.empty()
    done.add(("metatask", query))
else:
    result = cached(metatask_view.metatask_clusters, query, point) if k else point
res, notes, sig = result
verdict = cached(metatask_view.leaderboard_verdict, query, result)
if verdict is not None:  # which metric is best: the recipe's answer first (methods §21)
    from pages.sections import verdict as verdict_section

    with verdict_slot:
        verdict_section.show(verdict, "Best metric:")
table = view.leaderboard(res)
lead = cached(metatask_view.metatask_leaderboard_figure, query, result, shared=True)
lead_slot.plotly_chart(lead, width="stretch", key="mt_lead")
with lead_dl:
    download_figure(lead, f"metatask_{task}_leaderboard", key="mt_lead_dl")
shown, no_clusters = view.leaderboard_display(res)
table_slot.dataframe(shown, hide_index=True, width="stretch")
if no_clusters:
    table_note.caption(no_clusters)
else:
    table_note.empty()
with table_dl:
    download_table(table, f"metatask_{task}", key="mt_table", signature=sig)

def _open_divergence(focus: dict, pairs: list) -> None:
    """(Button callback, before the rerun: the sidebar's pair may still be changed here.)"""
    st.session_state["divergence_focus"] = focus
    for k in ("div_metrics", "div_a", "div_b"):  # the Divergence page's defaults then follow the focus
        st.session_state.pop(k, None)
    if len(pairs) > 1 and focus["lp"] in pairs:  # the sidebar's language pair (one pair: no box)
        st.session_state["lp_select"] = focus["lp"]
    st.session_state["_mt_switch"] = True


d1, d2, d3 = st.columns([3, 2, 2])
div_metric = d1.selectbox("Open a metric's segment-level disagreements with the humans", list(table["metric"]),
                          key="mt_div_metric", help="In the Divergence browser: the outputs ranked by how far the "
                                                    "metric's rank of each output is from the humans'.")
div_lp = d2.selectbox("in language pair", lps, key="mt_div_lp", format_func=lambda x: x or "-")
d3.button("Open in the Divergence browser", key="mt_div_open", on_click=_open_divergence,
          args=(view.divergence_focus(res, div_metric, div_lp, coll[div_lp].criteria, human_v), list(coll)))
if st.session_state.pop("_mt_switch", False):
    st.switch_page("pages/divergence.py")
with st.expander(f"What was computed ({len(notes)} note(s))", expanded=False):
    st.markdown("\n".join(f"- {md(n)}" for n in notes))

st.subheader("Values per sub-task")
values_slot = st.empty()
values_dl = st.container()
ci = None
if want_ci:
    if ("metatask_cis", query) not in done:  # progressive: the values first, then their bootstrap CIs
        values_slot.plotly_chart(cached(metatask_view.metatask_values_figure, query, result + (None,), shared=True),
                                 width="stretch", key="mt_values_point")
        bar, _ = progress_bar("Bootstrap CIs per sub-task: resampling the segments…")
        try:
            ci = cached(metatask_view.metatask_cis, query, result)
        finally:
            bar.empty()
        done.add(("metatask_cis", query))
    else:
        ci = cached(metatask_view.metatask_cis, query, result)
values_fig = cached(metatask_view.metatask_values_figure, dataclasses.replace(query, with_ci=bool(ci)), result + (ci,), shared=True)
values_slot.plotly_chart(values_fig, width="stretch", key="mt_values")
with values_dl:
    download_figure(values_fig, f"metatask_{task}_values", key="mt_values_dl")
st.caption("SPA: soft pairwise accuracy (Thompson et al. 2024); acc23/item+tie: segment-level pairwise accuracy "
           "with the optimised tie threshold, averaged over items (Deutsch et al. 2023). Error rates are negated.")

from pages.sections import detect as detect_section  # noqa: E402
detect_section.render(coll, lps, metrics)
from pages.sections.stability import render as stability_section  # noqa: E402
stability_section(coll, mode="task", key="mt", name=f"metatask_{task}", task=task, lps=lps, metrics=metrics,
                  human=human_v, judged_only=bool(judged_only))
from pages.sections.baselines import render as baselines_section  # noqa: E402
baselines_section(coll, key="mt", name=f"metatask_{task}", task=task, lps=lps, metrics=metrics, human=human_v,
                  judged_only=bool(judged_only))

from pages.common import current_dataset, settings_of_page  # noqa: E402
from pages.sections import share  # noqa: E402

_card_ds = current_dataset()  # the card is of one language pair: the sidebar's
share.render(_card_ds, settings_of_page(_card_ds), human_v, metrics, "mt_share")
