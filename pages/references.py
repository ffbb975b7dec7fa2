"""References & comprehension: reference quality (each human translation against the others,
MT on the same scale, Detect MT) and reading-comprehension results (Callison-Burch 2009)."""
from __future__ import annotations

import streamlit as st

from evalcore.scoring import defaults as common_view
from evalcore.present import plots_refs as PR
from evalcore.analysis import references as R
import dataclasses
from evalcore.views import references as references_view
from pages.common import query_settings  # noqa: E402
from pages.common import (
    tokenizer_of,
    current_dataset,
    download_figure,
    download_table,
    ensure_shell,
    md,
    cached,
    progress_bar,
    scope,
    show_exception,
    show_notes,
)

ensure_shell(__file__)
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
st.title("References & comprehension")
from pages.common import terms  # noqa: E402

terms('reference set', 'Detect MT', 'bootstrap CI')
ds = current_dataset()

# ---------------------------------------------------------------- reference quality
st.subheader("Reference quality: each human translation against the others")
settings_caption(settings_of_page(ds, judged_only=False), ds)
st.caption("Callison-Burch (2009) scored each professional translator against the other translators "
           "(leave-one-out) to see what score a human translation reaches, and scored MT against the same "
           "reference sets. A translator far below the others, or MT far above them, deserves a look.")
from pages.sections.second_reference import render as second_reference  # noqa: E402

second_reference(ds, "rf")  # one reference set: offer a human translation as a second
if len(ds.ref_ids) < 2:
    st.info(f"This needs at least two reference sets (human translations); this dataset has "
            f"{len(ds.ref_ids)}{': ' + md(ds.ref_ids[0]) if ds.ref_ids else ''}.")
else:
    sds = scope(ds, "rf")
    h = sds.content_hash()
    tok = tokenizer_of(sds)  # the word-level metrics' tokenizer, passed to every view that scores
    metrics = common_view.available_metrics(sds)
    text_metrics = [m for m in metrics if m in ("bleu", "chrf", "chrf++", "ter")] or metrics[:1]
    c1, c2 = st.columns(2)
    chosen = c1.multiselect("Metrics", metrics, default=text_metrics[:2], key="rf_metrics")
    n_boot = c2.number_input("Bootstrap resamples (95 % CI over segments; 0 = none)", 0, 2000, 200, step=100,
                             key="rf_boot")
    if chosen:
        try:
            show = st.selectbox("Figure metric", chosen, key="rf_fig_metric")
            # the figure's metric first (drawn at once), then the other metrics of the table
            loo = {}
            bar, cb = progress_bar(f"Scoring the references against each other ({show})…")
            query = references_view.ReferencesQuery(h, query_settings(tok), (), int(n_boot))
            loo[show] = cached(references_view.reference_loo, dataclasses.replace(query, metrics=(show,)), sds, progress=cb)
            bar.empty()
            show_notes(loo[show])
            fig = PR.reference_quality(loo[show].table, show)
            st.plotly_chart(fig, width="stretch", key="rf_fig")
            download_figure(fig, f"{ds.name}_reference_quality_{show}", key="rf_fig_dl")
            rest = [m for m in chosen if m != show]
            if rest:
                bar, cb = progress_bar(f"Scoring the references against each other ({', '.join(rest)})…")
                for i, m in enumerate(rest):
                    loo[m] = cached(references_view.reference_loo, dataclasses.replace(query, metrics=(m,)), sds,
                                    progress=lambda f, t, i=i: cb((i + f) / len(rest), t))
                bar.empty()
            summary = R.combine_loo([loo[m] for m in chosen]).table
            table = summary.assign(signature=summary["metric"].map(lambda m: R.loo_signature(m, len(sds.ref_ids), query.settings)))
            st.dataframe(table, hide_index=True, width="stretch")
            download_table(table, f"{ds.name}_reference_quality", key="rf_tab",
                           signature=common_view.signature_text(chosen, f"leave-one-out over {len(sds.ref_ids)} reference sets",
                                                                tokenize=tok))
            st.caption("Human rows: the translation scored against all other reference sets (one value; the "
                       "error bar is the 95 % bootstrap CI over segments). MT rows: mean, sd, min and max over the held-out reference sets "
                       "(the MT output is scored against the same sets as each held-out translation).")
        except Exception as exc:
            show_exception(exc, "Could not score the references")

    # ------------------------------------------------------------ Detect MT
    st.subheader("Detect MT: references suspiciously close to an MT output")
    if not sds.systems:
        st.info("This dataset has no MT outputs to compare the references with.")
    else:
        c1, c2, c3 = st.columns(3)
        dmetric = c1.selectbox("Metric", metrics, index=metrics.index("bleu") if "bleu" in metrics else 0, key="rf_dmetric")
        gap = c2.number_input("Segment threshold: closer to one MT output than to the other references by at least",
                              0.0, 100.0, 20.0, step=5.0, key="rf_gap")
        share = c3.slider("Flag a reference set when this share of its segments is flagged", 0.0, 1.0, 0.3, 0.05,
                          key="rf_share")
        try:
            detected = cached(references_view.detect_mt, references_view.ReferencesQuery(h, query_settings(tok), (dmetric,), 0, float(gap), float(share)), sds)
            segs, overall = detected.detail, detected.table
            st.caption(md(detected.method))
            st.dataframe(overall, hide_index=True, width="stretch")
            download_table(overall, f"{ds.name}_detect_mt", key="rf_detect_tab",
                           signature=common_view.signature_text([dmetric], "nrefs:1 per comparison", tokenize=tok))
            flagged = segs[segs["flagged"]].sort_values("gap", ascending=False)
            st.markdown(f"**{len(flagged)} flagged (segment, reference) pairs** of {len(segs)}")
            if len(flagged):
                st.dataframe(flagged, hide_index=True, width="stretch", height=260)
                download_table(flagged, f"{ds.name}_detect_mt_segments", key="rf_detect_segs",
                               signature=common_view.signature_text([dmetric], "nrefs:1 per comparison", tokenize=tok))
                pick = st.selectbox("Evidence for", list(range(min(len(flagged), 200))), key="rf_pick",
                                    format_func=lambda i: f"segment {flagged.iloc[i]['seg_id']} · {flagged.iloc[i]['ref_id']} "
                                                          f"(gap {flagged.iloc[i]['gap']:.1f})")
                row = flagged.iloc[int(pick)]
                a, b, c = st.columns(3)
                a.markdown(f"**Reference {md(row['ref_id'])}** (against the closest other reference: {row['to_refs']:.1f})<br>"
                           f"{md(row['reference'])}", unsafe_allow_html=True)
                b.markdown(f"**MT output {md(row['closest_system'])}** (reference against it: {row['to_mt']:.1f})<br>"
                           f"{md(row['mt_output'])}", unsafe_allow_html=True)
                c.markdown("**The other references**<br>" + "<br>".join(
                    md(t) for t in str(row["other_references"]).split(" ||| ")), unsafe_allow_html=True)
        except Exception as exc:
            show_exception(exc, "Could not run the Detect MT check")

# ---------------------------------------------------------------- reading comprehension
st.subheader("Reading comprehension")
st.caption("Callison-Burch (2009): readers answer questions about a document from one system's translation; "
           "the share of questions answered correctly says how understandable the output is. The human "
           "translation read the same way is the control row.")
from evalcore.analysis import comprehension as C  # noqa: E402

if not len(C.table_of(ds)):
    st.info("This dataset has no reading-comprehension answers. Add a `comprehension.tsv` (lp, system, doc_id, "
            "question_id, rater, correct — 0/1 or a grade between — and optional question, answer) to a tidy "
            "folder; see docs/formats.md.")
else:
    hc = ds.content_hash()
    ctok = tokenizer_of(ds)
    c1, c2 = st.columns(2)
    cboot = c1.number_input("Bootstrap resamples over questions", 0, 5000, 1000, step=100, key="rc_boot")
    cmetrics = c2.multiselect("Metrics to correlate with", common_view.available_metrics(ds),
                              default=[m for m in ("bleu", "chrf") if m in common_view.available_metrics(ds)], key="rc_metrics")
    try:
        cquery = references_view.ComprehensionQuery(hc, query_settings(ctok), int(cboot), tuple(cmetrics))
        t3res = cached(references_view.comprehension_results, dataclasses.replace(cquery, settings=query_settings(), metrics=()), ds)
        t3 = t3res.table
        st.caption(md(t3res.method))
        fig = PR.comprehension_bars(t3)
        st.plotly_chart(fig, width="stretch", key="rc_fig")
        download_figure(fig, f"{ds.name}_comprehension", key="rc_fig_dl")
        st.dataframe(t3, hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="%.1f") for c in ("pct_correct", "ci_lo", "ci_hi")})
        download_table(t3, f"{ds.name}_comprehension_table3", key="rc_tab", signature=t3res.method)
        cres = cached(references_view.comprehension_correlations, cquery, (ds, t3))
        corr = cres.table
        st.markdown("**System-level correlation of % correct with metrics and human scores**")
        st.caption(md(cres.method))
        st.dataframe(corr, hide_index=True, width="stretch")
        download_table(corr, f"{ds.name}_comprehension_correlations", key="rc_corr_tab",
                       signature=common_view.signature_text(cmetrics, tokenize=ctok))
        with st.expander("Questions and answers"):
            ans = C.table_of(ds)
            st.dataframe(ans, hide_index=True, width="stretch", height=260)
            download_table(ans, f"{ds.name}_comprehension_answers", key="rc_answers")
    except Exception as exc:
        show_exception(exc, "Could not compute the reading-comprehension results")
