"""Share this analysis: the evaluation card of the page's dataset under the page's settings, as
one offline HTML file (evalcore.views.card; docs/usage.md). Layout only."""
from __future__ import annotations

import streamlit as st

from evalcore.views import card as view
from pages.common import cached, show_exception


def render(ds, settings, criterion: str | None = None, metrics=None, key: str = "share", a: str | None = None,
           b: str | None = None) -> None:
    """A button that makes the card (it recomputes the verdicts and CIs: seconds to a minute),
    then its download."""
    st.subheader("Share this analysis")
    st.caption("The evaluation card: one HTML file that opens offline in any browser, with the verdicts, the "
               "tables with CIs, figures, these settings, the metric signatures and every number as embedded "
               "JSON; `python -m evalcore verify-card card.html DATA` recomputes each number from the data.")
    crit = criterion if criterion in ds.criteria else (ds.criteria[0] if len(ds.criteria) == 1 else criterion)
    query = view.CardQuery(dataset=ds.content_hash(), settings=settings, criterion=crit,
                           metrics=tuple(metrics) if metrics else None, n_boot=view.N_BOOT,
                           a=a if a and b and a != b else None, b=b if a and b and a != b else None)
    if not st.session_state.get(f"{key}_ready") and not st.button("Make the evaluation card", key=f"{key}_make"):
        return
    st.session_state[f"{key}_ready"] = True
    try:
        with st.spinner("Computing the card…"):
            text = cached(view.card_html, query, ds)
    except Exception as exc:
        show_exception(exc, "Could not make the evaluation card")
        return
    st.container().download_button("Download the evaluation card (HTML)", text.encode("utf-8"),
                                   f"{ds.name}_{ds.lp or 'data'}_card.html".replace("/", "_"), "text/html",
                                   key=f"{key}_download", on_click="ignore")
