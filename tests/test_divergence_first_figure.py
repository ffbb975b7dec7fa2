"""The Divergence browser: its first figure (the human scores by system) is drawn
before any metric is scored, and a first visit of a large dataset scores BLEU alone, saying so.
Behaviour only (order and counts of calls), never timings."""
from __future__ import annotations

import html

import numpy as np
import pytest

from conftest import SAMPLE, open_page
from evalcore.io import load_dataset
from evalcore.views import divergence as divergence_view
from evalcore.scoring import scores as scores_view



def test_the_human_scores_are_drawn_before_any_metric_is_scored(monkeypatch, fresh_cache):
    import streamlit as st

    events = []
    real_stats, real_chart = scores_view._stats_for, st.plotly_chart
    monkeypatch.setattr(scores_view, "_stats_for", lambda *a, **k: events.append(("score", a[1])) or real_stats(*a, **k))

    def plotly_chart(fig=None, *a, **k):
        events.append(("chart", k.get("key")))
        return real_chart(fig, *a, **k)

    monkeypatch.setattr(st, "plotly_chart", plotly_chart)
    at = open_page("divergence", {"div_metrics": ["bleu", "chrf"], "div_queen": []})
    first_score = next(i for i, e in enumerate(events) if e[0] == "score")
    assert ("chart", "div_human") in events[:first_score], events
    # the figure shows the human scores of the default comparison: per system, its outputs' scores
    ds = load_dataset(SAMPLE)
    crit = "human:" + next(c for c in ("adequacy", "mqm", "da") if c in ds.criteria)
    want = divergence_view.signal_table(ds, [], ds.criteria)
    fig = next(c for c in at.get("plotly_chart") if "Human scores" in c.proto.spec).proto.spec
    import json

    trace = json.loads(fig)["data"][0]

    def arr(v):  # Plotly's typed-array encoding or a list
        if isinstance(v, dict):
            import base64

            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).tolist()
        return list(v)

    have = want[want[crit].notna()]
    groups = {s: sorted(g[crit].tolist()) for s, g in have.groupby("system")}
    assert sorted(trace["x"]) == sorted(groups)
    for i, system in enumerate(trace["x"]):
        v = groups[system]
        n = len(v)

        def q(p):  # linear interpolation between order statistics, by hand
            h = (n - 1) * p
            k = int(h)
            return v[k] + (h - k) * (v[min(k + 1, n - 1)] - v[k])

        q1, med, q3 = q(0.25), q(0.5), q(0.75)
        assert arr(trace["q1"])[i] == pytest.approx(q1) and arr(trace["median"])[i] == pytest.approx(med)
        assert arr(trace["q3"])[i] == pytest.approx(q3)
        assert arr(trace["lowerfence"])[i] == min(x for x in v if x >= q1 - 1.5 * (q3 - q1))
        assert arr(trace["upperfence"])[i] == max(x for x in v if x <= q3 + 1.5 * (q3 - q1))
        assert arr(trace["customdata"])[i] == n


def test_a_large_dataset_starts_with_bleu_alone_and_says_so(monkeypatch, fresh_cache):
    ds = load_dataset(SAMPLE)
    monkeypatch.setattr(divergence_view, "FIRST_METRICS_ABOVE", len(ds.outputs) - 1)
    assert divergence_view.first_metrics(ds, ["bleu", "chrf"]) == (["bleu"], ["chrf"])
    scored = []
    real = scores_view._stats_for
    monkeypatch.setattr(scores_view, "_stats_for", lambda *a, **k: scored.append(a[1]) or real(*a, **k))
    at = open_page("divergence", {"div_queen": []})
    assert at.multiselect(key="div_metrics").value == ["bleu"] and scored == ["bleu"]
    assert any("starts with BLEU" in html.unescape(i.value) and "chrf" in html.unescape(i.value) for i in at.info)
    at.button(key="div_add_later").click().run()
    assert not at.exception
    assert at.multiselect(key="div_metrics").value == ["bleu", "chrf"] and scored == ["bleu", "chrf"]
    assert not any("starts with BLEU" in i.value for i in at.info)
    monkeypatch.setattr(divergence_view, "FIRST_METRICS_ABOVE", len(ds.outputs))
    assert divergence_view.first_metrics(ds, ["bleu", "chrf"]) == (["bleu", "chrf"], [])
