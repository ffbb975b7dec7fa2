"""Likeness vs acceptability: Amigó et al. 2006 Figure 3 (KING vs correlation with humans for standard
metrics, QUEEN of single metrics and the selected set), and the metric-set search."""
from __future__ import annotations


import pandas as pd
import streamlit as st

from evalcore.stats.registry import label as stat_label, names as stat_names
from evalcore.scoring import defaults as common_view
import dataclasses
from evalcore.views import likeness_vs_acceptability as likeness_vs_acceptability_view
from evalcore.scoring import scores as scores_view
from evalcore.present import plots as P
from pages.common import query_settings  # noqa: E402
from pages.common import cached, computed_keys, current_dataset, download_figure, download_table, ensure_shell, judged_only_control, long_segment_note, md, progress_bar, require_judged_multi_reference, scope, show_exception, syntax_note
from pages.common import tokenizer_of  # noqa: E402

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Likeness vs acceptability")
from pages.common import terms  # noqa: E402

terms('human acceptability', 'human-likeness', 'KING', 'QUEEN', 'metric set', 'pooled QUEEN', 'Pearson')
ds = current_dataset()
QARLA_NREFS = common_view.qarla_nrefs(ds)  # nrefs of each comparison in the signatures


ds = scope(ds, "lva")
tok = tokenizer_of(ds)  # the word-level metrics' tokenizer, passed to every view that scores
from pages.sections.second_reference import render as second_reference  # noqa: E402

second_reference(current_dataset(), "lva")  # one reference set: offer a human translation as a second
require_judged_multi_reference(ds)

st.markdown("Amigó et al. 2006 Figure 3: how well a metric characterises human translations (**KING**, x) against how "
            "well it agrees with human judgements (**correlation**, y), for standard metrics, for the QUEEN of "
            "each single metric, and for the metric set selected by KING (methods §0).")
c1, c2, c3 = st.columns([3, 1, 1])
metrics = c1.multiselect("Metrics", common_view.available_metrics(ds), default=common_view.default_metrics(ds), key="lva_metrics")
long_segment_note(ds, metrics)
syntax_note(ds)
criterion = c2.selectbox("Human criterion", ds.criteria, index=ds.criteria.index(common_view.default_criterion(ds)),
                         key="lva_crit")
method = c3.selectbox("Correlation", stat_names(p_value=True, aliases=False), key="lva_method", format_func=stat_label)
c4, c5, c6, c7, c8 = st.columns(5)
level = c4.selectbox("Level", ["segment", "system"], key="lva_level")
norm = c5.selectbox("Normalisation", ["raw", "z", "percentile"], key="lva_norm")
mode = c6.selectbox("QUEEN triples", ["auto", "local", "pooled"], key="lva_mode",
                    help="local: three distinct references of the segment; pooled: reference pairs of every "
                         "segment; auto: local where the segment has enough references (methods §0).")
ties = c7.selectbox("KING ties", ["geq", "strict", "fractional"], key="lva_ties")
boot = c8.number_input("Bootstrap CIs", 0, 1000, 100, step=50, key="lva_boot")
judged_only = True
if level == "system":
    judged_only = judged_only_control(ds, "lva")
    st.caption("System level: a system's metric and QUEEN score is the mean of its segment scores over "
               + ("the segments judged for it." if judged_only else "every segment (tick *Judged segments only* "
                                                                      "to use only the judged ones)."))
st.caption("Human translations are not scored as systems on this page: QUEEN and KING use every reference "
           "set as a reference. Use the *Systems* page or `correlate --include-human-systems`.")
average = "micro"
settings_caption(settings_of_page(ds, judged_only=judged_only), ds, criterion if judged_only else None)
if not metrics:
    st.info("Choose at least one metric.")
    st.stop()

# ---------------------------------------------------------------- Figure 3 (drawn first, metric by metric)
st.subheader("Figure 3")
st.caption("Drawn metric by metric as each metric's similarities and scores arrive (each point depends only on "
           "its own metric); the selected set's point is added after the metric-set search below.")
fig_slot = st.empty()
fig_notes = st.container()
pk = likeness_vs_acceptability_view.LikenessQuery(ds.content_hash(), query_settings(tok, judged_only=bool(judged_only)),
                                                  tuple(metrics), criterion, method, level, mode, norm, ties, average,
                                                  int(boot))
done = computed_keys()
try:
    bar, cb = progress_bar("QUEEN values and correlations…")
    parts = []
    for i, m in enumerate(metrics):
        what = f"Figure 3: {m} ({i + 1} of {len(metrics)})"
        cb(i / len(metrics), what)
        parts.append(cached(likeness_vs_acceptability_view.likeness_points, dataclasses.replace(pk, metrics=(m,), groups=tuple(likeness_vs_acceptability_view.GROUPS[:2])),
                            ds, progress=lambda f, t, i=i, what=what: cb((i + f) / len(metrics), f"{what}: {t}")))
        if ("lva", pk) not in done and i < len(metrics) - 1:  # the figure so far, while the next metric is scored
            fig_slot.plotly_chart(P.figure3(pd.concat(parts, ignore_index=True),
                                            f"{method} with {criterion} ({level} level)"), width="stretch")
            if i == 0:  # the other metrics' similarities in one pass (shared per-segment work; cached on disk)
                cb(1 / len(metrics), f"Similarities of the other {len(metrics) - 1} metric(s)…")
                scores_view.tensors(ds, list(metrics[1:]),
                                    progress=lambda f, t: cb((1 + 0.8 * f * (len(metrics) - 1)) / len(metrics), t),
                                    tokenize=tok)
    bar.empty()
    done.add(("lva", pk))
except Exception as exc:
    show_exception(exc, "Could not compute Figure 3")
    st.stop()
per_metric = pd.concat(parts, ignore_index=True)
fig_slot.plotly_chart(cached(likeness_vs_acceptability_view.likeness_figure, pk, per_metric), width="stretch")

# ---------------------------------------------------------------- search
st.subheader("Metric-set search")
s1, s2, s3 = st.columns([1, 1, 2])
min_cov = float(s2.number_input(
    "Minimum coverage", 0.0, 1.0, 0.95, step=0.05, format="%.2f", key="lva_min_cov",
    help="Leave out metrics whose similarity is undefined too often: the share of (candidate, reference) pairs "
         "whose texts exist where the metric is defined (a syntactic sub-metric such as GRAM-INTJ is undefined "
         "when neither text has the word type). 0 disables. Metrics whose KING is decided by ties (KING ≥ 0.99 "
         "with a tie rate ≥ 0.9) are left out too."))
smethod = s1.radio("Search", ["greedy", "exhaustive"], key="lva_search", horizontal=True,
                   help="greedy: rank metrics by KING of their QUEEN, add each if the set's KING rises (Amigó et al. 2006 "
                        "§3.3); exhaustive: every subset (at most 12 metrics).")
if smethod == "exhaustive" and len(metrics) > 12:
    st.warning("Exhaustive search is limited to 12 metrics; using greedy.")
    smethod = "greedy"
run_exhaustive = smethod == "exhaustive" and (
    st.session_state.get("lva_exhaustive_ran") == (ds.content_hash(), tok, tuple(metrics))
    or s3.button(f"Run exhaustive search over up to {2 ** len(metrics) - 1} subsets", key="lva_run"))
if smethod == "exhaustive" and not run_exhaustive:
    smethod = "greedy"
    s3.caption("Showing the greedy search until the exhaustive one is run.")
try:
    bar, cb = progress_bar(f"{smethod} search…")
    sk = dataclasses.replace(pk, search=smethod, min_coverage=min_cov, criterion=None, method="pearson", level="segment",
                   normalisation="raw", bootstrap=0,
                   settings=pk.settings.with_(judged_only=True))  # the search needs no human score
    res = cached(likeness_vs_acceptability_view.likeness_search, sk, ds, progress=cb)
    bar.empty()
    if smethod == "exhaustive":
        st.session_state["lva_exhaustive_ran"] = (ds.content_hash(), tok, tuple(metrics))
except Exception as exc:
    show_exception(exc, "The search failed")
    st.stop()

chosen = res["chosen"]
st.session_state["metric_set"] = list(chosen)
st.markdown(f"**Selected set** ({smethod}): {md(', '.join(chosen))} — KING {res['king']:.3f}, "
            f"ORANGE {res['orange']:.3f}. The *QUEEN vs human* page uses this set by default.")
excl = res["excluded"]
if len(excl):
    st.caption(f"Left out of the search ({len(excl)}): " + "; ".join(
        f"**{md(r.metric)}** (coverage {r.coverage:.3f}): {md(r.reason)}" for r in excl.itertuples(index=False)))
tr = res["trace"]
if smethod == "greedy":
    tfig = cached(likeness_vs_acceptability_view.search_trace_figure, sk, tr)
    st.plotly_chart(tfig, width="stretch", key="lva_trace")
    download_figure(P.with_signature(tfig, common_view.signature_text(metrics, tokenize=tok, nrefs=QARLA_NREFS)), f"{ds.name}_search_trace",
                    key="lva_trace_fig")
with st.expander("Search trace", expanded=smethod == "exhaustive"):
    st.dataframe(tr, hide_index=True, width="stretch")
    download_table(tr, f"{ds.name}_search_{smethod}", key="lva_trace_tab",
                   signature=common_view.signature_text(metrics, f"mode={mode}; ties={ties}", tokenize=tok, nrefs=QARLA_NREFS))

# ---------------------------------------------------------------- the selected set's point
try:
    set_row = cached(likeness_vs_acceptability_view.likeness_points, dataclasses.replace(pk, selected=tuple(chosen), groups=("selected set",)), ds)
except Exception as exc:
    show_exception(exc, "Could not compute the selected set's point")
    st.stop()
pts = pd.concat([per_metric, set_row], ignore_index=True)
with fig_notes:
    pk = dataclasses.replace(pk, selected=tuple(chosen))
    if len(pts):
        ns = sorted({int(x) for x in pts["n_segments"]})
        st.caption(f"Correlations over {ns[0]}{'-' + str(ns[-1]) if len(ns) > 1 else ''} of {ds.n_segments} segments.")
    fig = cached(likeness_vs_acceptability_view.likeness_figure, pk, pts)
    fig_slot.plotly_chart(fig, width="stretch", key="lva_fig3")
    download_figure(P.with_signature(fig, common_view.signature_text(metrics, f"criterion={criterion}; {method}; level={level}", tokenize=tok, nrefs=QARLA_NREFS)),
                    f"{ds.name}_figure3", key="lva_fig3_dl")
    best_corr = pts.loc[pts["corr"].idxmax()] if pts["corr"].notna().any() else None
    sel = pts[pts["group"] == "selected set"].iloc[0]
    if best_corr is not None:
        st.caption(f"Highest correlation: {md(best_corr['label'])} ({best_corr['corr']:.3f}); the selected set: KING "
                   f"{sel['king']:.3f}, correlation {sel['corr']:.3f}. Amigó et al. 2006 found that the set with the highest "
                   "KING does not have the highest correlation: human-like and human-acceptable are different goals.")
    st.dataframe(pts, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in pts.columns
                                if c not in ("group", "label", "metrics", "n", "n_segments")})
    download_table(pts, f"{ds.name}_figure3_points", key="lva_points",
                   signature=common_view.signature_text(metrics, f"criterion={criterion}; {method}; level={level}; "
                                                       f"normalisation={norm}; QUEEN mode={mode}; ties={ties}", tokenize=tok, nrefs=QARLA_NREFS))
