"""Ranking stability section (methods §24.1): on the Metrics task page for the metric ranking, on
the Systems page for the human ranking. Layout only: the numbers come from
evalcore.views.stability through pages.common.cached."""
from __future__ import annotations

import streamlit as st

from evalcore.views import stability as view
from pages.common import cached, download_figure, download_table, md, progress_bar, show_exception


def render(ds, *, mode: str, key: str, name: str, criterion: str = "", task: str = "wmt24", lps=(), metrics=(),
           human=None, judged_only: bool = False) -> None:
    """``ds``: the collection (task mode) or the Dataset (human mode); ``judged_only``: the task's
    corpus scores over the judged segments only (the Metrics task page's checkbox)."""
    from evalcore.views.queries import collection_key
    from pages.common import query_settings

    st.subheader("How firm is this ranking?")
    st.caption("The ranking re-run without one language pair, system, domain or rater, with another gold, with tie "
               "calibration and item grouping switched, and on bootstrap resamples of the judged segments "
               "(methods §24.1).")
    if mode == "human" and not criterion:
        st.info("The ranking stability needs human judgements.")
        return
    c1, c2 = st.columns(2)
    n_boot = int(c1.number_input("Bootstrap resamples", 0, 500, view.N_BOOT, step=10, key=f"{key}_stab_boot"))
    if not c2.toggle("Compute the stability", value=False, key=f"{key}_stab_on"):
        return
    dataset = collection_key(ds, lps) if mode == "task" else ds.content_hash()
    settings = query_settings(judged_only=bool(judged_only)) if mode == "task" else query_settings()
    query = view.StabilityQuery(dataset, settings, mode=mode, task=task, lps=tuple(lps), metrics=tuple(metrics),
                                human=human, criterion=criterion, n_boot=n_boot)
    bar, cb = progress_bar("Perturbing…")
    try:
        res = cached(view.stability, query, ds, progress=cb)
    except Exception as exc:
        bar.empty()
        show_exception(exc, "Could not compute the stability")
        return
    bar.empty()
    fig = cached(view.figure, query, res, shared=True)
    st.plotly_chart(fig, width="stretch", key=f"{key}_stab_fig")
    download_figure(fig, f"{name}_stability", key=f"{key}_stab_fig_dl")
    st.dataframe(res.table, hide_index=True, width="stretch")
    download_table(res.table, f"{name}_stability", key=f"{key}_stab_tab")
    changed = res.perturbations[res.perturbations["changes_winner"]]
    st.markdown(f"The winner **{md(res.base[0])}** changes in {len(changed)} of {len(res.perturbations)} "
                "perturbations.")
    with st.expander("Every perturbation"):
        st.dataframe(res.perturbations, hide_index=True, width="stretch")
        download_table(res.perturbations, f"{name}_perturbations", key=f"{key}_stab_per")
    with st.expander(f"What was computed ({len(res.notes)} note(s))"):
        st.markdown("\n".join(f"- {md(n)}" for n in res.notes))
