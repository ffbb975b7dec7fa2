"""Experts vs non-experts: agreement with a gold group of raters chosen by the user
(Callison-Burch 2009, §4, Figures 1-3)."""
from __future__ import annotations

import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.analysis import experts as E
import dataclasses
from evalcore.views import experts as experts_view
from pages.common import query_settings  # noqa: E402
from pages.common import cached, current_dataset, download_figure, download_table, ensure_shell, md, show_exception, show_notes, tokenizer_of

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Experts vs non-experts")
from pages.common import terms  # noqa: E402

terms('kappa', 'Schulze ranking')
ds = current_dataset()
st.caption("Callison-Burch (2009) had non-experts redo the experts' judgements and asked how often they agree "
           "with the experts, whether combining several non-experts helps, and whether they rank the systems "
           "like the experts. Choose the gold (expert) raters; every other rater is a non-expert.")
ds_criteria = ds.criteria  # a property that scans every judgement: read once per run
if not ds_criteria or len(ds.raters) < 2:
    st.info("This needs human judgements by at least two raters.")
    st.stop()

c1, c2, c3 = st.columns(3)
criterion = c1.selectbox("Criterion", ds_criteria, index=ds_criteria.index(common_view.default_criterion(ds)), key="ex_crit")
raters = list(dict.fromkeys(ds.judgements.loc[ds.judgements["judgement"] == criterion, "rater"]))
default, no_gold = E.no_implicit_gold(raters)
gold = c2.multiselect("Gold (expert) raters", raters, default=default[:3], key="ex_gold")
metric_slot = c3.empty()  # the metric list (it imports every metric module): after the first figure
if not gold:
    st.info(md(no_gold or "Choose at least one gold rater.") + " Every figure here compares the other raters "
            "with the gold group you choose.")
    st.stop()
if len(gold) == 1:
    st.caption(f"One gold rater ({md(gold[0])}): there is no gold-vs-gold agreement to compare with.")
h = ds.content_hash()
tok = tokenizer_of(ds)  # the metric's tokenizer when it splits words
# the three figures are computed in turn, each drawn before the next is computed: Figure 2 first
# (the labels only), then the combination curves, then the rankings (the metric scored last)
try:
    query = experts_view.ExpertsQuery(h, query_settings(), criterion, tuple(gold))  # the humans alone: no metric, no tokenizer
    labels = cached(experts_view.expert_labels, query, ds)
    fig2t = cached(experts_view.experts_vs_gold, query, labels)
except ValueError as exc:
    st.info(md(str(exc)))
    st.stop()
except Exception as exc:
    show_exception(exc, "Could not compare the raters with the gold raters")
    st.stop()

settings_caption(settings_of_page(ds), ds, criterion)
st.subheader("Each non-expert's agreement with the gold raters")
if fig2t["p_agree"].notna().any():
    f2 = cached(experts_view.experts_vs_gold_figure, query, fig2t, shared=True)
    st.plotly_chart(f2, width="stretch", key="ex_fig2")
    download_figure(f2, f"{ds.name}_experts_fig2", key="ex_fig2_dl")
else:  # no figure drawn from nothing
    st.warning("No figure: no non-expert compared the same two outputs of a segment as a gold rater, so no "
               "agreement with the gold raters can be measured. Choose other gold raters.")
metrics = common_view.available_metrics(ds)
metric = metric_slot.selectbox("Metric beside them", ["(none)"] + metrics,
                               index=1 + metrics.index("bleu") if "bleu" in metrics else 0, key="ex_metric")
m = "" if metric == "(none)" else metric
sig = common_view.signature_text([m] if m else [], "gold: " + ", ".join(gold), dataset=ds, level="system",
                                 tokenize=tok)
st.dataframe(fig2t, hide_index=True, width="stretch")
download_table(fig2t, f"{ds.name}_agreement_with_gold", key="ex_fig2_tab", signature=sig)
st.caption("Agreement: share of (non-expert comparison, gold comparison) pairs of the same two outputs of a segment "
           "with the same label (better / worse / equal); chance is 1/3. The most prolific rater is not always "
           "the best (Callison-Burch 2009, Figure 2).")

st.subheader("Combining non-experts")
cres = cached(experts_view.experts_curves, query, labels)
curves, ga = cres.table, cres.reference_agreement
if curves.empty:
    st.info("No item was judged by both the gold raters and a non-expert.")
else:
    f1 = cached(experts_view.experts_curves_figure, query, cres, shared=True)
    st.plotly_chart(f1, width="stretch", key="ex_fig1")
    download_figure(f1, f"{ds.name}_experts_fig1", key="ex_fig1_dl")
    st.dataframe(curves, hide_index=True, width="stretch")
    download_table(curves, f"{ds.name}_combination_curves", key="ex_fig1_tab", signature=sig)
    st.caption("k non-experts' labels of an item are drawn at random (20 draws per k) and combined by a vote: "
               "plain, weighted by each non-expert's agreement with the gold raters, or weighted by their "
               "leave-one-out agreement with the other non-experts. "
               + ("With one gold rater there is no gold-vs-gold top line." if ga != ga else
                  f"Top line: the gold raters agree with each other {ga:.3f} of the time."))

st.subheader("Ranking the systems")
try:
    if m:
        with st.spinner(f"Scoring the systems with {md(m)}…"):
            scores = cached(experts_view.experts_metric_scores, experts_view.ExpertsQuery(h, query_settings(tok), metric=m), ds)
    else:
        scores = None
    mquery = dataclasses.replace(query, settings=query_settings(tok if m else None), metric=m)
    rres = cached(experts_view.experts_rankings, mquery, (labels, scores))
except Exception as exc:
    show_exception(exc, "Could not rank the systems")
    st.stop()
ranks = rres.table
show_notes(rres, notes_as="warning")
if ranks["rho"].notna().any():
    f3 = cached(experts_view.experts_rankings_figure, mquery, ranks, shared=True)
    st.plotly_chart(f3, width="stretch", key="ex_fig3")
    download_figure(f3, f"{ds.name}_experts_fig3", key="ex_fig3_dl")
else:
    st.warning("No figure: no ranking shares 3 systems with the gold raters' ranking.")
st.dataframe(ranks, hide_index=True, width="stretch")
download_table(ranks, f"{ds.name}_ranking_correlations", key="ex_fig3_tab", signature=sig)
st.caption(md(rres.method) + ". Upper bound: five-fold cross-validation over the gold raters' "
           "judgements (each fifth ranks the systems, compared with the ranking from the other four fifths).")
