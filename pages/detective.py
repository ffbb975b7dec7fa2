"""Metric detective: real outputs broken on purpose, which metric notices, and a class leaderboard."""
from __future__ import annotations

import streamlit as st

from evalcore.analysis import detective as D
from evalcore.views import detective as detective_view
from pages.common import (cached, current_dataset, download_figure, download_table, ensure_shell, md,
                          show_exception)

ensure_shell(__file__)
from pages.common import judged_only_control, settings_caption, settings_of_page, terms, tokenizer_of  # noqa: E402

st.title("Metric detective")
terms("segment", "reference set", "tokenizer")
st.caption("Each perturbation family breaks real translations of this dataset in one known way (copy the source, "
           "leave out a clause, negate a verb, change a number, ...). A metric *catches* a perturbed output when "
           "its score drops by more than Δ, the drop people notice. The catch rate is the share caught "
           "(methods §12). *punctuation_casing* keeps the meaning: there a catch is a false alarm.")

ds = current_dataset()
if not ds.systems or not ds.ref_ids:
    st.info("The lab needs system outputs and at least one reference set: choose such a dataset in the sidebar "
            "(the bundled sample has both).")
    st.stop()

from evalcore.scoring.defaults import default_metrics  # noqa: E402

available = default_metrics(ds)
c1, c2 = st.columns([2, 3])
metrics = c1.multiselect("Metrics", available, default=[m for m in ("bleu", "chrf") if m in available],
                         key="det_metrics")
families = c2.multiselect("Perturbation families", list(D.FAMILIES), default=list(D.FAMILIES), key="det_families")
c3, c4, c5 = st.columns(3)
n_out = len(ds.outputs)
sample = int(c3.number_input("Outputs to perturb", 1, max(1, n_out), min(detective_view.PAGE_SAMPLE, max(1, n_out)),
                             key="det_sample"))
seed = int(c4.number_input("Seed", 0, 10**6, 0, key="det_seed"))
judged = judged_only_control(ds, "det", container=c5)
if not metrics or not families:
    st.info("Choose at least one metric and one family.")
    st.stop()
with st.expander("Δ: the drop that counts as noticed"):
    st.caption("Default: 1 % of each metric's scale (1 point for BLEU, chrF, TER). Where your data has human "
               "judgements, a calibrated Δ (the drop people notice 80 % of the time) is better: type it here.")
    cols = st.columns(len(metrics))
    deltas = tuple((m, float(col.number_input(f"Δ {m}", 0.0, 1000.0, D.delta_for(m)[0], key=f"det_delta_{m}")))
                   for m, col in zip(metrics, cols))
settings = settings_of_page(ds, judged_only=judged)  # the line the page states; the query's: its tokenizer explicit
query = detective_view.DetectiveQuery(ds.content_hash(), settings.with_(tokenizer=tokenizer_of(ds)), tuple(metrics),
                                      tuple(families), sample, seed,
                                      tuple((m, d) for m, d in deltas if d != D.delta_for(m)[0]))
try:
    with st.spinner("Perturbing and scoring..."):
        res = cached(detective_view.lab, query, ds)
        fig = cached(detective_view.catch_figure, query, res, shared=True)
except Exception as exc:
    show_exception(exc, "Could not run the lab")
    st.stop()

st.subheader("Catch table")
st.plotly_chart(fig, key="det_heat")
download_figure(fig, f"{ds.name}_detective_heatmap", key="det_heat_dl")
settings_caption(settings, ds)
st.dataframe(res.catch, hide_index=True, width="stretch",
             column_config={"catch_rate": st.column_config.ProgressColumn("catch_rate", min_value=0.0, max_value=1.0,
                                                                          format="%.2f")})
download_table(res.catch, f"{ds.name}_detective_catch", key="det_catch_dl")
st.caption("Δ used: " + "; ".join(f"{md(r.metric)} {r.delta:g} ({md(r.source)})" for r in res.deltas.itertuples()))
skips = cached(detective_view.skipped, query, res)
if len(skips):
    st.markdown("**Outputs a family could not apply to** (never dropped silently):")
    st.dataframe(skips, hide_index=True, width="stretch")

st.subheader("Side by side")
fam = st.selectbox("Family", list(families), key="det_family")
ex = detective_view.examples(res, fam, limit=5)
if ex.empty:
    st.info(f"The family {md(fam)} applied to none of these outputs (see the table above for why).")
for r in ex.to_dict("records"):
    drops = ", ".join(f"{md(c[5:])} {r[c]:+.2f}" for c in ex.columns if c.startswith("drop "))
    st.markdown(f"**{md(r['system'])}**, segment {md(r['seg_id'])}: drop {drops}")
    left, right = st.columns(2)
    a, b = detective_view.side_by_side_html(r["original"], r["perturbed"], f"Perturbed ({fam})")
    left.markdown(a, unsafe_allow_html=True)  # escaped text (evalcore.present.highlight)
    right.markdown(b, unsafe_allow_html=True)

from pages.sections.detective_class import render as class_mode  # noqa: E402

class_mode(ds, query)
