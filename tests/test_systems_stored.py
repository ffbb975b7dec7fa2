"""A fresh server's first Systems visit reads what a save precomputed: the full table and the
metrics-vs-humans section, equal to computing them (values, notes, tests); the page's first-visit
queries are those the save precomputes; an unreadable entry is computed again; learned and
neural metrics are never kept. Behaviour only (counts of calls), never timings."""
from __future__ import annotations

import dataclasses

import pandas as pd

from conftest import SAMPLE, open_page, record_view_calls
from evalcore.analysis import system_level
from evalcore.io import load_dataset
from evalcore.scoring import scores
from evalcore.views import precompute
from evalcore.views import systems as systems_view



def _same(a: dict, b: dict) -> None:
    for k in ("table", "tests", "ranks"):
        pd.testing.assert_frame_equal(a[k], b[k], check_exact=True)
    for k in ("notes", "settings", "systems", "commands", "settings_object"):
        assert a[k] == b[k], k


def _small(q):
    return dataclasses.replace(q, n_boot=20)


def test_metrics_vs_humans_read_back_equals_the_computation(fresh_cache, monkeypatch):
    ds = load_dataset(SAMPLE)
    q = _small(systems_view.first_visit_vs_humans_query(ds))
    assert q is not None and len(q.metrics) > 1  # tests between metrics too
    direct = system_level.metrics_vs_humans(ds, list(q.metrics), q.criterion, q.settings, n_boot=q.n_boot,
                                            test=q.test, normalisation=q.normalisation)
    assert len(direct["tests"]) and len(direct["table"])
    _same(systems_view.metrics_vs_humans(ds, q), direct)  # computed, then kept
    calls = []
    real = system_level.metrics_vs_humans
    monkeypatch.setattr(system_level, "metrics_vs_humans", lambda *a, **k: calls.append(1) or real(*a, **k))
    _same(systems_view.metrics_vs_humans(ds, q), direct)  # read back
    assert calls == []
    systems_view.metrics_vs_humans(ds, dataclasses.replace(q, test="perm"))  # another query: computed
    assert calls == [1]


def test_an_unreadable_entry_is_computed_again(fresh_cache):
    ds = load_dataset(SAMPLE)
    q = _small(systems_view.first_visit_vs_humans_query(ds))
    first = systems_view.metrics_vs_humans(ds, q)
    key = systems_view._vs_humans_key(q)
    scores._cache_base("vshumans", key).with_suffix(".json").write_text("{not json", encoding="utf-8")
    assert scores.stored("vshumans", key) is None
    _same(systems_view.metrics_vs_humans(ds, q), first)  # computed again, and kept again
    assert scores.stored("vshumans", key) is not None


def test_only_built_in_metrics_are_kept():
    ds = load_dataset(SAMPLE)
    q = systems_view.first_visit_vs_humans_query(ds)
    assert systems_view._vs_humans_cacheable(q)
    for odd in ("learned:mine", "stored:given", "cosine:some-model", "no-such-metric"):
        assert not systems_view._vs_humans_cacheable(dataclasses.replace(q, metrics=q.metrics + (odd,)))


def test_stored_table_only_once_computed(fresh_cache):
    ds = load_dataset(SAMPLE)
    q = _small(systems_view.first_visit_query(ds))
    assert systems_view.stored_systems_table(ds, q) is None
    table = systems_view.systems_table(ds, q)
    pd.testing.assert_frame_equal(systems_view.stored_systems_table(ds, q), table, check_exact=True)
    assert systems_view.stored_systems_table(ds, dataclasses.replace(q, baseline=None)) is None


def test_the_page_asks_what_a_save_precomputes(fresh_cache, monkeypatch):
    tables, vs = [], []
    record_view_calls(monkeypatch, systems_view, "systems_table", tables)
    record_view_calls(monkeypatch, systems_view, "metrics_vs_humans", vs)
    open_page("systems")
    ds = tables[-1][0]
    assert tables[-1][1] == systems_view.first_visit_query(ds)  # the full table, the last one asked for
    assert vs and vs[-1][1] == systems_view.first_visit_vs_humans_query(ds)


def test_a_precomputed_first_visit_draws_the_same_page_without_computing(fresh_cache, monkeypatch):
    import streamlit as st

    tables: list = []
    record_view_calls(monkeypatch, systems_view, "systems_table", tables)
    at = open_page("systems")  # computed on the page (metric by metric, then the bootstrap), every cache empty
    ds = tables[-1][0]
    frames = [df.value for df in at.dataframe]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    monkeypatch.setenv("EVALCORE_CACHE", str(fresh_cache / "saved"))  # a new empty cache: a save's, then
    assert precompute.precompute_statistics(ds) >= 1  # what the Data page starts after a save
    calls = []
    real = systems_view._system_table
    monkeypatch.setattr(systems_view, "_system_table", lambda *a, **k: calls.append("table") or real(*a, **k))
    real_vs = system_level.metrics_vs_humans
    monkeypatch.setattr(system_level, "metrics_vs_humans", lambda *a, **k: calls.append("vs") or real_vs(*a, **k))
    st.cache_data.clear()
    st.cache_resource.clear()  # a fresh server: only the disk cache remains
    tables.clear()
    at = open_page("systems")
    assert calls == []  # neither the table nor the section computed: both read back
    assert [q.n_boot for _, q in tables] == [systems_view.PAGE_N_BOOT]  # no point tables, metric by metric
    assert [c.proto.spec for c in at.get("plotly_chart")] == specs
    after = [df.value for df in at.dataframe]
    assert len(after) == len(frames)
    for a, b in zip(frames, after):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
