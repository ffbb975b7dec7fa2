"""Judges: per-rater distributions before/after normalisation, agreement matrix and kappa,
per-rater agreement, agreement as judges are added, Schulze consensus, HTER (Callison-Burch 2009)."""
from __future__ import annotations

import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.views import judges as judges_view, queries as queries_view
from pages.common import query_settings  # noqa: E402
from pages.common import cached, current_dataset, download_figure, download_table, ensure_shell, md, show_exception

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("Judges")
from pages.common import terms  # noqa: E402
from pages.common import AGGREGATION_CAPTION, AGGREGATION_COLUMNS  # noqa: E402

terms('z-normalisation', 'percentile normalisation', 'kappa', "Krippendorff's alpha", 'Schulze ranking', 'MQM', 'ESA', 'DA', 'HTER')
ds = current_dataset()


def _alpha_caption(alpha) -> str:
    """What the α above rests on (Krippendorff 2011): items, values, averaged repeats."""
    if not alpha.defined and alpha.n_items == 0:
        return (f"Krippendorff's α needs an output judged by two different raters; here each of the "
                f"{alpha.n_raters} raters judged different outputs"
                + (f" ({alpha.n_repeats} repeated judgements by the same rater were averaged, never compared)."
                   if alpha.n_repeats else "."))
    return (f"Krippendorff's α over {alpha.n_items} outputs judged by at least two raters ({alpha.n_values} "
            "rater values); a rater's repeated judgements of an output count once, as their mean"
            + (f" ({alpha.n_repeats} such cells)." if alpha.n_repeats else "."))


h = ds.content_hash()
skip_details = True
ds_criteria = ds.criteria  # a property that scans every judgement: read once per run
if not ds_criteria:
    st.info("This dataset has no human judgements.")
    st.stop()

c1, c2, c3 = st.columns(3)
criterion = c1.selectbox("Criterion", ds_criteria, index=ds_criteria.index(common_view.default_criterion(ds)), key="jd_crit")
norm = c2.selectbox("Normalisation shown", ["z", "percentile"], key="jd_norm",
                    help="z: (x − rater mean)/rater sd; percentile: mid-rank among the rater's own scores (methods §5.1-5.2).")
chance = c3.selectbox("Chance agreement P(E)", ["uniform", "empirical"], key="jd_chance",
                      help="uniform: 1/3 (WMT07-12); empirical: from the label proportions (WMT13+).")

# ---------------------------------------------------------------- distributions
settings_caption(settings_of_page(ds), ds, criterion)
st.subheader("Score distributions per rater")
try:
    dres = cached(judges_view.distributions, judges_view.CriterionQuery(h, query_settings(), criterion, norm), ds)
    dist = dres.table
except Exception as exc:
    show_exception(exc, "Could not normalise the scores")
    st.stop()
fig = cached(judges_view.rater_distributions_figure, judges_view.CriterionQuery(h, query_settings(), criterion, norm), dist, shared=True)
st.plotly_chart(fig, width="stretch", key="jd_dist")
download_figure(fig, f"{ds.name}_rater_distributions", key="jd_dist_fig")
summary = dres.summary
if summary is not None:
    st.dataframe(summary, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in summary.columns
                                if c not in ("judgement", "rater", "n")})
    download_table(summary, f"{ds.name}_rater_summary_{criterion}", key="jd_summary")
if dres.excluded_raters:
    st.warning(f"{len(dres.excluded_raters)} rater(s) with constant scores cannot be z-normalised and were left out.")
st.caption("Raters use the scale differently (some are strict, some lenient, some use only part of it); "
           "normalising per rater removes that before scores are averaged.")

# ---------------------------------------------------------------- agreement
try:
    with st.spinner("Comparing the judges…"):
        ov = cached(judges_view.overview, judges_view.CriterionQuery(h, query_settings(), criterion, chance), ds)
except Exception as exc:
    show_exception(exc, "Could not compute agreement")
    st.stop()
raters = ov["raters"]
st.subheader("Agreement")
if len(raters) < 2:
    st.info(f"Only one rater ({md(raters[0]) if raters else 'none'}) judged {md(criterion)}: agreement needs at least two. "
            "(Datasets that publish averaged scores, e.g. WMT MQM's 'mean', have a single pseudo-rater.)")
else:
    alpha = ov["alpha_result"]
    lo, hi = ov["outputs_per_segment"]
    intra = ov["intra"]
    if not ov["inter"]["n_pairs"]:
        if alpha.defined:
            st.metric("Krippendorff's α (interval)", alpha.text(3))
        else:
            st.markdown(f"**Krippendorff's α (interval):** {alpha.reason}.")
        if hi <= 1:
            st.info("No pairwise labels: each judged segment has a single judged output, so 'A better than B' "
                    "agreement and kappa cannot be computed."
                    + (" Krippendorff's α above compares the raters' scores of the same output directly."
                       if alpha.defined else ""))
        else:
            n_out = f"{hi}" if lo == hi else f"{lo}–{hi}"
            st.info(f"No inter-rater pairwise labels: each judged segment has {n_out} judged outputs, but no "
                    "pair of outputs of a segment was compared by two different raters, so inter-rater agreement "
                    "and kappa cannot be computed."
                    + (f" Intra-rater (a rater's repeats): P(A) {intra['p_agree']:.3f}, κ {intra['kappa']:.3f} "
                       f"over {intra['n_pairs']} pairs." if intra["n_pairs"] else ""))
        st.caption(_alpha_caption(alpha))
        skip_details = True
    else:
        skip_details = False
        m0, m1, m2, m3, m4 = st.columns(5)
        m0.metric("Krippendorff's α (interval)", alpha.text(3) if alpha.defined else "undefined")
        m1.metric("inter-rater P(A)", f"{ov['inter']['p_agree']:.3f}")
        m2.metric("inter-rater κ", f"{ov['inter']['kappa']:.3f}")
        m3.metric("intra-rater P(A)", "–" if not intra["n_pairs"] else f"{intra['p_agree']:.3f}")
        m4.metric("intra-rater κ", "–" if not intra["n_pairs"] else f"{intra['kappa']:.3f}")
        st.caption(_alpha_caption(alpha))
        st.caption("Pairwise labels (A better / worse / equal) implied by each rater's scores of two outputs of the "
                   f"same segment; P(A) = share of judgement pairs with the same label; κ = (P(A) − P(E))/(1 − P(E)), "
                   f"P(E) {chance} (WMT convention). Intra-rater: repeated judgements by the same rater "
                   f"({intra['n_pairs']} pairs).")
if len(raters) >= 2 and not skip_details:
    left, right = st.columns(2)
    with left:
        pf = cached(judges_view.agreement_pa_figure, judges_view.CriterionQuery(h, query_settings(), criterion, chance), ov, shared=True)
        st.plotly_chart(pf, width="stretch", key="jd_pa")
        download_figure(pf, f"{ds.name}_agreement_matrix", key="jd_pa_fig")
    with right:
        kf = cached(judges_view.agreement_kappa_figure, judges_view.CriterionQuery(h, query_settings(), criterion, chance), ov, shared=True)
        st.plotly_chart(kf, width="stretch", key="jd_kappa")
        download_figure(kf, f"{ds.name}_kappa_matrix", key="jd_kappa_fig")
    mat = ov["pa"].reset_index().rename(columns={"index": "rater"})
    download_table(mat, f"{ds.name}_agreement_matrix_{criterion}", key="jd_pa_tab")
    st.markdown("**Each rater's agreement with the others** (low values: a rater who clicks at random, Callison-Burch 2009)")
    st.dataframe(ov["per_rater"], hide_index=True, width="stretch",
                 column_config={"p_agree": st.column_config.NumberColumn(format="%.3f"),
                                "kappa": st.column_config.NumberColumn(format="%.3f")})
    download_table(ov["per_rater"], f"{ds.name}_per_rater_{criterion}", key="jd_per_rater")
    if len(ov["curve"]):
        st.markdown("**Agreement as judges are added** (Callison-Burch 2009 Fig. 1): each rater in turn is the reference; "
                    "k of the other raters' labels are combined by majority vote.")
        cf = cached(judges_view.agreement_curve_figure, judges_view.CriterionQuery(h, query_settings(), criterion, chance), ov, shared=True)
        st.plotly_chart(cf, width="stretch", key="jd_curve")
        download_figure(cf, f"{ds.name}_agreement_curve", key="jd_curve_fig")
        download_table(ov["curve"], f"{ds.name}_agreement_curve_{criterion}", key="jd_curve_tab")

# ---------------------------------------------------------------- consensus + HTER
st.subheader("Consensus ranking of the judges (Schulze)")
try:
    cons, support = cached(judges_view.consensus, judges_view.CriterionQuery(h, query_settings(), criterion), ds)
    st.caption("Each (rater, segment) is a ballot ranking the outputs that rater scored on that segment "
               f"(Callison-Burch 2009; Schulze 2011, winning votes): {support.summary()}.")
    if support.few:
        st.warning(support.warning())
    st.dataframe(cons, hide_index=True, width="stretch", column_config=AGGREGATION_COLUMNS)
    st.caption(AGGREGATION_CAPTION)
    download_table(cons, f"{ds.name}_schulze_{criterion}", key="jd_schulze", signature=support.summary())
except Exception as exc:
    show_exception(exc, "Could not rank the systems")

st.subheader("HTER")
ht = cached(judges_view.hter, queries_view.Query(h), ds)
if ht.empty:
    st.caption("No post-edits in this dataset (a `postedits_tokenized.tsv` table enables HTER, methods §5.6).")
else:
    agg = ht.groupby("system", sort=False)["hter"].agg(["mean", "count"]).reset_index()
    st.dataframe(agg, hide_index=True, width="stretch")
    st.dataframe(ht, hide_index=True, width="stretch", height=240)
    download_table(ht, f"{ds.name}_hter", key="jd_hter")
