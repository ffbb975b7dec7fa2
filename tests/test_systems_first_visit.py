"""The Systems page: what a first visit of a large dataset scores, and a warm
rerun that rebuilds nothing. Behaviour only (counts of calls), never timings."""
from __future__ import annotations

import html
import os

import pandas as pd
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE
from evalcore.present import plots as P
from evalcore.io import load_dataset
from evalcore.scoring import defaults as common_view
from evalcore.scoring import scores as scores_view
from evalcore.views import systems as systems_view

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))


def _run(at):
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def _open_systems(state=None):
    at = AppTest.from_file(APP, default_timeout=240)
    for k, v in (state or {}).items():
        at.session_state[k] = v
    _run(at)
    at.switch_page("pages/systems.py")
    _run(at)
    return at


def test_first_metrics_split_only_above_the_threshold(monkeypatch):
    ds = load_dataset(SAMPLE)
    every = common_view.default_metrics(ds)
    assert systems_view.first_metrics(ds) == (every, [])  # a small dataset: every default metric
    monkeypatch.setattr(systems_view, "FIRST_METRICS_ABOVE", len(ds.outputs) - 1)
    first, later = systems_view.first_metrics(ds)
    assert first == [m for m in every if m in ("bleu", "chrf", "ter")] and first
    assert later == [m for m in every if m not in first] and first + later == every


def test_a_large_dataset_starts_with_three_metrics_and_says_so(monkeypatch, fresh_cache):
    ds = load_dataset(SAMPLE)
    monkeypatch.setattr(systems_view, "FIRST_METRICS_ABOVE", len(ds.outputs) - 1)
    scored = []
    real = scores_view._stats_for
    monkeypatch.setattr(scores_view, "_stats_for", lambda *a, **k: scored.append(a[1]) or real(*a, **k))
    at = _open_systems({"sys_boot": 20})
    first, later = systems_view.first_metrics(ds)
    assert at.multiselect(key="sys_metrics").value == first
    assert sorted(scored) == sorted(first)  # the others are not scored
    note = html.unescape(next(i.value for i in at.info if "At this size" in i.value))  # escaped for Markdown
    assert all(m in note for m in later)
    # one click adds the others (scored then), and the note goes
    at.button(key="sys_add_later").click()
    _run(at)
    assert at.multiselect(key="sys_metrics").value == first + later
    assert sorted(scored) == sorted(first + later)
    assert not any("At this size" in i.value for i in at.info)
    wide = next(df.value for df in at.dataframe if "system" in df.value.columns and "bleu" in df.value.columns)
    assert all(m in wide.columns for m in first + later)


def test_warm_rerun_rebuilds_no_table_and_no_figure(monkeypatch, fresh_cache):
    """A rerun with the same inputs (Streamlit's "r") reads the system table, the bar chart,
    the ranks, the rank agreement and the consensus from the cache: none is built again; the
    objects shown are the ones of the first run."""
    calls = []
    for mod, name in ((systems_view, "_system_table"), (systems_view, "system_wide"), (systems_view, "rank_table"),
                      (systems_view, "rank_agreement"), (systems_view, "schulze_consensus"), (P, "system_bars"),
                      (P, "heatmap")):
        real = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    at = _open_systems({"sys_metrics": ["bleu", "chrf"], "sys_boot": 20})
    assert {"_system_table", "system_wide", "rank_table", "rank_agreement", "schulze_consensus", "system_bars",
            "heatmap"} <= set(calls)
    before = [df.value for df in at.dataframe]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    calls.clear()
    _run(at)
    assert calls == []
    # the very same figures are sent again (signatures included), so the browser need not redraw them
    assert [c.proto.spec for c in at.get("plotly_chart")] == specs and len(specs) >= 2
    assert all('"signatures"' in sp for sp in specs)
    after = [df.value for df in at.dataframe]
    assert len(before) == len(after)
    for a, b in zip(before, after):
        pd.testing.assert_frame_equal(a, b)
