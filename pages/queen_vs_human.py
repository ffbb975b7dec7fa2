"""QUEEN vs human: Amigó et al. 2006 Figure 4 — QUEEN of the selected metric set for every (system,
segment) against its human score, the quadrant "acceptable to humans but not human-like",
and point selection that opens the divergence browser."""
from __future__ import annotations


import numpy as np
import streamlit as st

from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import queen_vs_human as queen_vs_human_view
from evalcore.present import plots as P
from pages.common import query_settings  # noqa: E402
from pages.common import cached, computed_keys, current_dataset, download_figure, download_table, ensure_shell, long_segment_note, md, progress_bar, require_judged_multi_reference, scope, show_exception, syntax_note
from pages.common import tokenizer_of  # noqa: E402

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("QUEEN vs human")
from pages.common import terms  # noqa: E402

terms('QUEEN', 'metric set', 'human acceptability', 'pooled QUEEN')
ds = current_dataset()
QARLA_NREFS = common_view.qarla_nrefs(ds)  # nrefs of each comparison in the signatures


ds = scope(ds, "qvh")
tok = tokenizer_of(ds)  # the word-level metrics' tokenizer, passed to every view that scores
base = queen_vs_human_view.QueenVsHumanQuery(ds.content_hash(), query_settings(tok))
from pages.sections.second_reference import render as second_reference  # noqa: E402

second_reference(current_dataset(), "qvh")  # one reference set: offer a human translation as a second
require_judged_multi_reference(ds)

st.markdown("Amigó et al. 2006 Figure 4: **QUEEN** (how human-like an output is: the probability that, for every metric of "
            "the set, it is as close to a reference as two references are to each other) against the **human "
            "score** of every judged output. High QUEEN implies high human scores, not the reverse: the shaded "
            "quadrant holds outputs humans accept although they are unlike every reference.")
known = common_view.available_metrics(ds)
syntax_note(ds)
wanted = [m for m in st.session_state.get("metric_set", []) if m in known]
provisional = st.empty()
try:
    if not wanted:
        defaults = tuple(common_view.default_metrics(ds))
        greedy_q = dataclasses.replace(base, metrics=defaults)
        if defaults and ("qvh_greedy", greedy_q) not in computed_keys():
            # the search needs every default metric's similarities: first a provisional Figure 4 for the
            # first metric alone (its similarities are the search's first anyway), replaced below
            crit0 = common_view.default_criterion(ds)
            try:
                p_pts, (p_h, p_q) = cached(queen_vs_human_view.queen_points, dataclasses.replace(base, metrics=defaults[:1], criterion=crit0), ds)
                with provisional.container():
                    st.caption(f"Provisional: Figure 4 for QUEEN{{{md(defaults[0])}}} while the greedy KING search "
                               f"selects the metric set over the {len(defaults)} default metrics (it scores every "
                               "metric's similarities); the figure of the selected set replaces it.")
                    st.plotly_chart(P.figure4(p_pts, p_h, p_q, crit0, f"QUEEN{{{defaults[0]}}}"), width="stretch")
            except Exception:  # provisional only: the search below reports any problem
                pass
        bar, cb = progress_bar("Selecting the metric set (greedy KING search)…")
        wanted = cached(queen_vs_human_view.greedy_metric_set, greedy_q, ds, progress=cb)
        bar.empty()
        computed_keys().add(("qvh_greedy", greedy_q))
except Exception as exc:
    show_exception(exc, "Could not select a metric set")
    wanted = common_view.default_metrics(ds)[:1]
provisional.empty()
c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
metric_set = c1.multiselect("Metric set X", known, default=wanted, key="qvh_set",
                            help="Default: the set selected on the Likeness vs acceptability page (greedy KING).")
criterion = c2.selectbox("Human criterion", ds.criteria, index=ds.criteria.index(common_view.default_criterion(ds)),
                         key="qvh_crit")
norm = c3.selectbox("Normalisation", ["raw", "z", "percentile"], key="qvh_norm")
mode = c4.selectbox("QUEEN triples", ["auto", "local", "pooled"], key="qvh_mode")
long_segment_note(ds, metric_set)
if not metric_set:
    st.info("Choose at least one metric.")
    st.stop()
try:
    bar, cb = progress_bar("QUEEN of every output…")
    query = dataclasses.replace(base, metrics=tuple(metric_set), criterion=criterion, mode=mode, normalisation=norm)
    pts, (h_thr, q_thr) = cached(queen_vs_human_view.queen_points, query, ds, progress=cb)
    bar.empty()
except Exception as exc:
    show_exception(exc, "Could not compute QUEEN")
    st.stop()
if pts.empty:
    st.info("No judged system output has a QUEEN value (too few references?).")
    st.stop()

st.caption(f"{len(pts)} judged outputs on {pts['seg_id'].nunique()} of {ds.n_segments} segments: only judged "
           "segments have a human score, so this page always uses the judged segments only.")
settings_caption(settings_of_page(ds, judged_only=True), ds, criterion)
lo, hi = float(pts["human"].min()), float(pts["human"].max())
t1, t2 = st.columns(2)
h_thr = t1.slider(f"Acceptable: {md(criterion)} ≥", lo, hi if hi > lo else lo + 1, float(np.clip(h_thr, lo, hi)),
                  key="qvh_hthr", help="Default: the first quartile of the judged references' scores (as "
                                       "acceptable as three in four human translations), else the 75th percentile.")
q_thr = t2.slider("Not human-like: QUEEN ≤", 0.0, 1.0, float(np.clip(q_thr, 0, 1)), 0.01, key="qvh_qthr",
                  help="Default: the median QUEEN of the points.")
fig = cached(queen_vs_human_view.queen_figure, dataclasses.replace(query, human_threshold=float(h_thr), queen_threshold=float(q_thr)), pts)
event = st.plotly_chart(fig, width="stretch", key="qvh_fig4", on_select="rerun",
                        selection_mode=("points", "box", "lasso"))
download_figure(P.with_signature(fig, common_view.signature_text(metric_set, f"criterion={criterion}; mode={mode}", tokenize=tok, nrefs=QARLA_NREFS)),
                f"{ds.name}_figure4", key="qvh_fig4_dl")


def _pairs_from(event) -> list[tuple[str, str]]:
    try:
        points = event.selection.points
    except AttributeError:
        points = (event or {}).get("selection", {}).get("points", [])
    out = []
    for p in points or []:
        cd = p.get("customdata")
        if cd is None:
            try:
                cd = fig.data[p["curve_number"]].customdata[p["point_index"]]
            except (KeyError, IndexError, TypeError):
                continue
        out.append((str(cd[0]), str(cd[1])))
    return list(dict.fromkeys(out))


selected = _pairs_from(event)
if selected:
    st.session_state["divergence_focus"] = {"pairs": selected, "source": f"{len(selected)} point(s) selected "
                                                                         "in Figure 4", "queen_set": list(metric_set)}
    st.switch_page("pages/divergence.py")
st.caption("Select points (click, box or lasso) to open those outputs in the divergence browser.")

quad = queen_vs_human_view.quadrant_table(pts, h_thr, q_thr)
st.subheader(f"Acceptable to humans but not human-like: {len(quad)} of {len(pts)} outputs")
if len(quad):
    by = quad.groupby("system").size().sort_values(ascending=False)
    st.caption("By system: " + ", ".join(f"{md(s)} {n}" for s, n in by.items()))
    texts = ds.sys_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    show = quad.assign(output=[texts[s][pos[g]] for s, g in zip(quad["system"], quad["seg_id"])])
    st.dataframe(show, hide_index=True, width="stretch", height=280,
                 column_config={"queen": st.column_config.NumberColumn(format="%.3f"),
                                "human": st.column_config.NumberColumn(format="%.2f")})
    download_table(show, f"{ds.name}_quadrant", key="qvh_quad",
                   signature=common_view.signature_text(metric_set, f"criterion={criterion}; human>={h_thr:.3f}; "
                                                          f"QUEEN<={q_thr:.3f}; mode={mode}", tokenize=tok, nrefs=QARLA_NREFS))
    if st.button("Open these outputs in the divergence browser", key="qvh_open_quad"):
        st.session_state["divergence_focus"] = {
            "pairs": list(zip(quad["system"], quad["seg_id"].astype(str))),
            "source": "the quadrant of Figure 4", "queen_set": list(metric_set)}
        st.switch_page("pages/divergence.py")
with st.expander("All points"):
    st.dataframe(pts, hide_index=True, width="stretch")
    download_table(pts, f"{ds.name}_figure4_points", key="qvh_points", signature=common_view.signature_text(metric_set, tokenize=tok, nrefs=QARLA_NREFS))
