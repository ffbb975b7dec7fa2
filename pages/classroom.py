"""Class: the students' judgements as they arrive, beside the experts'."""
from __future__ import annotations

import streamlit as st

from evalcore.analysis import annotate as A
from evalcore.views import classroom as V
from evalcore.scoring.defaults import default_metrics
from pages.common import current_dataset, download_table, ensure_shell, latest_saved, md, query_settings, show_exception

ensure_shell(__file__)
st.title("Class")
from pages.common import terms  # noqa: E402
from pages.common import settings_caption, settings_of_page  # noqa: E402  (the one settings line)
from pages.sections.adaptive_settled import render as rankings_settled  # noqa: E402

terms("kappa", "Krippendorff's alpha", "Schulze ranking", "system level", "segment level")
st.caption("The class's judgements from the Annotate page: who has done what, how much the students agree with "
           "each other and with the experts, whether they passed the quality checks, how the metrics correlate "
           "with them, and how they rank the systems. Refresh to see new judgements.")
st.page_link("pages/annotate.py", label="Annotate", icon="✍️")

ds0 = current_dataset()
if (st.session_state.get("dataset_meta") or {}).get("name") is None:
    st.info("The class annotates a saved dataset: open the Annotate page to save a copy of this one, then "
            "choose it in the sidebar.")
    st.stop()

c1, c2, c3 = st.columns([1, 2, 1])
protocol = c1.radio("Protocol", list(A.PROTOCOLS), format_func=str.upper, horizontal=True, key="cls_protocol")
experts = V.expert_criteria(ds0)
expert = c2.selectbox("Experts' criterion to compare with", experts or ["(none)"], key="cls_expert")
expert = expert if experts else None
auto = c3.toggle("Refresh every 30 s", False, key="cls_auto")
metrics_all = default_metrics(ds0)
metrics = st.multiselect("Metrics", metrics_all, default=[m for m in ("bleu", "chrf") if m in metrics_all],
                         key="cls_metrics")


def _fresh():
    """The dataset as saved now (other sessions keep adding judgements)."""
    return latest_saved(st.session_state["dataset_meta"]["name"], ds0.lp)


def _fmt(v) -> str:
    return "—" if v != v else f"{v:.3f}"


@st.fragment(run_every=30 if auto else None)
def results():
    st.button("Refresh now", key="cls_refresh")
    try:
        ds = _fresh()
        from pages.common import tokenizer_of

        tok = tokenizer_of(ds)
        o = V.overview(ds, protocol, expert, metrics, settings=query_settings(tok))
    except Exception as exc:
        show_exception(exc, "Could not compute the class's results")
        return
    settings_caption(settings_of_page(ds), ds)  # what the numbers below follow: judged outputs, scores oriented
    prog = o["progress"]
    if prog.empty:
        st.info(f"No {protocol.upper()} judgements from the class yet.")
        return
    st.subheader("Progress")
    st.markdown(f"**{len(prog)} student(s)** so far: " + ", ".join(md(r) for r in prog["rater"]))
    st.dataframe(prog, hide_index=True, width="stretch",
                 column_config={"done": st.column_config.ProgressColumn("done", min_value=0.0, max_value=1.0)})
    st.subheader("Agreement between students")
    al, ag = o["class_alpha"], o["class_agreement"]
    alpha = (f"Krippendorff's α = **{al.value:.3f}** over {al.n_items} outputs judged by two or more"
             if al.defined else f"Krippendorff's α: {md(al.reason)}")
    st.markdown(f"All students together: {alpha}; pairwise labels κ = **{_fmt(ag['kappa'])}** "
                f"(P(A) {_fmt(ag['p_agree'])}, {ag['n_pairs']} label pairs).")
    st.dataframe(o["pairs"], hide_index=True, width="stretch")
    download_table(o["pairs"], f"{ds.name}_class_pairs", key="cls_pairs_dl")
    if o["experts"] is not None:
        st.subheader(f"Students against the experts ({md(expert)})")
        st.caption("κ: agreement of the student's pairwise labels with the experts' labels of the same outputs "
                   "(Callison-Burch 2009 Fig. 2); α: Krippendorff's α of the student's scores with the experts'.")
        st.dataframe(o["experts"], hide_index=True, width="stretch")
    st.subheader("Quality control")
    if protocol == "rank":
        st.caption("A degraded copy of an output, put on a screen beside its original, should be ranked worse "
                   "(a larger number; a tie fails). A repeated screen should order the outputs the same way: it "
                   f"is consistent when at least {A.RANK_REPEAT_AGREEMENT:.0%} of its pairs of outputs agree "
                   "(better, worse, or tied with tied); intra κ = (P(A) − 1/3)/(2/3) over all repeated pairs "
                   "(Callison-Burch 2009). These screens are kept apart and never enter the other results. "
                   "Ranks are read with 1 = best: κ compares the pairwise labels they imply (as the Judges page "
                   "with *lower is better*), and the metrics are correlated with minus the mean rank.")
        st.dataframe(o["qc"], hide_index=True, width="stretch")
    else:
        st.caption("Degraded copies (some words dropped, some shuffled) should score lower than their original; "
                   f"repeats within {A.repeat_tolerance(protocol):g} points of the first judgement "
                   "(Graham et al. 2013). These items are kept apart and never enter the other results.")
        st.dataframe(o["qc"], hide_index=True, width="stretch")
    st.subheader("Metrics against the class and against the experts")
    corr = o["correlations"]
    if len(corr):
        keys = ["level", "method", "metric"]
        wide = corr.pivot_table(index=keys, columns="humans", values="value", sort=False, dropna=False)
        n = corr.pivot_table(index=keys, columns="humans", values="n", sort=False, dropna=False)
        n.columns = [f"n: {c}" for c in n.columns]
        wide = wide.join(n).reset_index()
        st.dataframe(wide, hide_index=True, width="stretch")
        download_table(corr, f"{ds.name}_class_correlations", key="cls_corr_dl")
        st.caption("System level: corpus scores over the segments each group judged; segment level: sentence "
                   "scores, no grouping; n: systems or outputs correlated (empty: fewer than two, or no "
                   "spread). With few judgements these numbers move a lot: compare the column of the experts "
                   "on the class's outputs with the class's.")
    rankings_settled(ds, protocol)
    st.subheader("Ranking of the systems (Schulze)")
    cols = st.columns(len(o["schulze"]))
    for col, (who, table) in zip(cols, o["schulze"].items()):
        col.markdown(f"**{md(who)}**")
        col.dataframe(table, hide_index=True)


results()
