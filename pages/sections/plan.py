"""How many judgements to buy (methods §25.2), on the Systems page: on request, the page's human
judgements as a pilot, the power of the ranking test per pair at N judged segments per system,
the answer and the tables (evalcore.views.plan; the `evalcore plan` command's defaults). Layout only."""
from __future__ import annotations

import streamlit as st

from evalcore.views import plan as plan_view
from pages.common import download_table, md, on_request


def render(ds, settings, criterion: str | None, key: str = "plan") -> None:
    if not criterion or criterion not in ds.criteria:
        return
    with st.expander("How many judgements to buy (power of the ranking test)"):
        st.caption("The judgements here as a pilot: for N judged segments per system, simulated campaigns drawn "
                   "from the pilot (stratified by domain) and WMT24's ranking test (Wilcoxon per domain, Stouffer) "
                   "on each; power = the share of campaigns in which a pair differs significantly. 200 campaigns "
                   "per N, α = 0.05, seed 0 (methods §25.2; `evalcore plan`).")
        q = plan_view.PlanQuery(ds.content_hash(), settings, criterion)
        # too few systems or segments: an info box says how many are needed
        res = on_request(key, "Plan", "simulating campaigns", plan_view.plan_of, q, ds, "No plan")
        if res is None:
            return
        st.info(md(plan_view.headline(res.plan, res.pilot_n)))
        for n in res.plan.notes:
            st.caption(md(n))
        if res.left_out:
            st.caption(md(f"Human translations left out of the pilot by the settings: {', '.join(res.left_out)} "
                          "(`evalcore plan` ranks them with the systems, as `rank` does)."))
        per_n = plan_view.pairs_at_80(res.plan)
        st.dataframe(per_n, hide_index=True, width="stretch")
        download_table(per_n, f"{ds.name}_plan_pairs_at_80", key=f"{key}_n_dl")
        st.dataframe(res.plan.summary, hide_index=True, width="stretch")
        download_table(res.plan.summary, f"{ds.name}_plan_summary", key=f"{key}_sum_dl")
        download_table(res.plan.power, f"{ds.name}_plan_power", key=f"{key}_pow_dl")
