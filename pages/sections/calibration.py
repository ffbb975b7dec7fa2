"""What a metric difference means here (methods §25.1), on the Systems and Compare pages: on
request, P(humans agree | Δ) of the page's metrics on its language pair, the sentence at a chosen
difference, the curves and the tables (evalcore.views.calibrate). Layout only."""
from __future__ import annotations

import dataclasses

import streamlit as st

from evalcore.views import calibrate as cal_view
from pages.common import cached, download_figure, download_table, md, on_request


def render(ds, settings, criterion: str | None, metrics, key: str) -> None:
    if not criterion or criterion not in ds.criteria or not metrics:
        return
    with st.expander("What a metric difference means here (calibration against the humans)"):
        st.caption("For every pair of systems: the metric difference and whether the human scores order the two "
                   "the same way; a logistic curve through 50 % at no difference and an isotonic curve beside it, "
                   "with bootstrap CIs over systems (methods §25.1; `evalcore calibrate`).")
        sig = st.checkbox("Only pairs the humans separate significantly (Kocmi et al. 2024)", key=f"{key}_sig")
        q = cal_view.CalibrationQuery(ds.content_hash(), settings, criterion, tuple(metrics), 200, 0, bool(sig))
        # too few systems or pairs: an info box says how many are needed
        res = on_request(key, "Calibrate", "calibrating", cal_view.calibration, q, ds, "No calibration")
        if res is None:
            return
        fitted = cal_view.fitted_metrics(res)
        metric = st.selectbox("Metric", fitted, key=f"{key}_metric")
        delta = st.number_input("Difference", min_value=0.0, value=round(cal_view.typical_delta(res, metric), 3),
                                key=f"{key}_delta_{metric}", format="%.3f")
        st.info(md(cal_view.sentence(res, metric, delta)))
        for n in res.notes:
            st.caption(md(n))
        fq = cal_view.CurveQuery(**{f.name: getattr(q, f.name) for f in dataclasses.fields(q)}, metric=metric,
                                 delta=float(delta))
        fig = cached(cal_view.curve_figure, fq, res, shared=True)
        st.plotly_chart(fig, width="stretch", key=f"{key}_fig")
        download_figure(fig, f"{ds.name}_calibration_{metric}", key=f"{key}_fig_dl")
        tabs = cal_view.tables(res)
        st.dataframe(tabs["summary"], hide_index=True, width="stretch")
        download_table(tabs["summary"], f"{ds.name}_calibration_summary", key=f"{key}_sum_dl")
        download_table(tabs["curves"], f"{ds.name}_calibration_curves", key=f"{key}_curves_dl")
