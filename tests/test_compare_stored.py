"""A fresh server's first Compare visit reads the tables a save precomputed: each kept table equals
one computed directly by evalcore.analysis.compare (values, dtypes, order); a kept table is keyed
by the dataset's content, the settings and every option, so another query never reads it; only
the full comparison the query names, with built-in metrics, is kept; an unreadable entry is
computed again; the page asks exactly what a save precomputes and draws the same page from it
without computing a table. Behaviour only (counts of calls), never timings."""
from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from conftest import SAMPLE, open_page, record_view_calls
from evalcore.analysis import compare as C
from evalcore.io import load_collection
from evalcore.views import compare as view
from evalcore.views import precompute

#: the page's own widgets set small (the first visit's query follows them)
OPEN_STATE = {"cmp_boot": 40, "cmp_ar": 30}


@pytest.fixture(scope="module")
def ds():
    return load_collection(SAMPLE)["es-en"]


def _small(queries):
    """The first visit's queries with fewer resamples (the headline's tests still run)."""
    return [dataclasses.replace(q, n_boot=40, n_ar=30) if q.table == "headline" else q for q in queries]


def _direct(ds, q) -> pd.DataFrame:
    """Table ``q`` computed by the analysis layer alone, as the command would: no view, no cache."""
    cmp = C.build(ds, q.a, q.b, list(q.metrics), list(q.criteria), q.settings, normalisation=q.normalisation)
    return C.table(cmp, q.table, q.n_boot, q.n_ar, q.test, 0.05, 50)


def _counting(monkeypatch) -> list:
    calls: list = []
    real = C.table
    monkeypatch.setattr(C, "table", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    return calls


def test_the_first_visit_query_is_the_pages_defaults(ds):
    q = view.first_visit_query(ds)
    assert (q.a, q.b) == tuple(ds.systems[:2]) and q.metrics == ("bleu", "chrf", "ter")
    assert q.criteria == tuple(ds.criteria) and q.lengths and q.normalisation == "raw"
    assert q.settings.tokenizer == C.default_tokenizer(ds.lp)[0] and q.settings.judged_only
    tables = view.first_visit_tables(ds)
    assert [t.table for t in tables] == list(view.FIRST_TABLES)
    assert [(t.n_boot, t.n_ar) for t in tables] == [(1000, 1000)] + [(0, 0)] * (len(tables) - 1)


def test_kept_tables_equal_the_direct_computation_and_are_read_back(fresh_cache, ds, monkeypatch):
    queries = _small(view.first_visit_tables(ds))
    cmp = view.first_visit_comparison(ds, queries[0])
    want = {q.table: _direct(ds, q) for q in queries}
    assert len(want["headline"]) and want["headline"]["p_bootstrap"].notna().all()
    assert all(len(want[t]) for t in ("segments", "buckets", "characteristic_ngrams", "length_bias"))
    for q in queries:
        assert view.stored_table(q) is None and not view.is_stored(q)
        pd.testing.assert_frame_equal(view.compare_table(cmp, q), want[q.table], check_exact=True)  # computed, kept
        assert view.is_stored(q)
    calls = _counting(monkeypatch)
    for q in queries:
        pd.testing.assert_frame_equal(view.stored_table(q), want[q.table], check_exact=True)
        pd.testing.assert_frame_equal(view.compare_table(cmp, q), want[q.table], check_exact=True)  # read back
    assert calls == []


def test_another_content_settings_or_option_is_not_read(fresh_cache, ds, monkeypatch):
    q = _small(view.first_visit_tables(ds))[0]
    cmp = view.first_visit_comparison(ds, q)
    view.compare_table(cmp, q)
    assert view.is_stored(q)
    others = [dataclasses.replace(q, n_boot=41), dataclasses.replace(q, test="ar"),
              dataclasses.replace(q, settings=q.settings.with_(judged_only=False)),
              dataclasses.replace(q, settings=q.settings.with_(tokenizer="intl")),
              dataclasses.replace(q, b=ds.systems[2]), dataclasses.replace(q, metrics=q.metrics[:2]),
              dataclasses.replace(q, dataset="another content")]
    for other in others:
        assert view.stored_table(other) is None and not view.is_stored(other), other
    # the same query on changed content: another content hash, so another key
    changed = dataclasses.replace(ds, outputs=ds.outputs.assign(text=ds.outputs["text"] + " x"))
    assert changed.content_hash() != ds.content_hash()
    moved = view.first_visit_tables(changed)[0]
    assert moved.dataset != q.dataset and view.stored_table(dataclasses.replace(moved, n_boot=40, n_ar=30)) is None


def test_only_the_full_comparison_the_query_names_is_kept(fresh_cache, ds):
    q = _small(view.first_visit_tables(ds))[2]  # buckets
    cmp = view.first_visit_comparison(ds, q)
    assert view.table_cacheable(cmp, q)
    wrong = [dataclasses.replace(q, b=ds.systems[2]), dataclasses.replace(q, metrics=("bleu",)),
             dataclasses.replace(q, lengths=False), dataclasses.replace(q, normalisation="z"),
             dataclasses.replace(q, settings=q.settings.with_(tokenizer="intl")),
             dataclasses.replace(q, dataset="another content")]
    for w in wrong:
        assert not view.table_cacheable(cmp, w), w
        view.compare_table(cmp, w)
        assert not view.is_stored(w)
    for odd in ("learned:mine", "stored:given", "cosine:some-model"):
        assert not view.table_cacheable(dataclasses.replace(cmp, metrics=cmp.metrics + [odd]),
                                        dataclasses.replace(q, metrics=q.metrics + (odd,)))


def test_an_unreadable_entry_is_computed_again(fresh_cache, ds, monkeypatch):
    q = _small(view.first_visit_tables(ds))[4]  # characteristic n-grams
    cmp = view.first_visit_comparison(ds, q)
    first = view.compare_table(cmp, q)
    from evalcore.scoring.scores import _cache_base

    _cache_base(view.TABLE_KIND, view._table_key(q)).with_suffix(".parquet").write_bytes(b"not parquet")
    assert view.stored_table(q) is None
    calls = _counting(monkeypatch)
    pd.testing.assert_frame_equal(view.compare_table(cmp, q), first, check_exact=True)
    assert calls == ["characteristic_ngrams"]


def test_a_save_precomputes_every_first_visit_table(fresh_cache, ds, monkeypatch):
    monkeypatch.setattr(view, "PAGE_N_BOOT", 40)
    monkeypatch.setattr(view, "PAGE_N_AR", 30)
    precompute.precompute_statistics({"es-en": ds})
    queries = view.first_visit_tables(ds)
    assert queries[0].n_boot == 40
    for q in queries:
        pd.testing.assert_frame_equal(view.stored_table(q), _direct(ds, q), check_exact=True)
    calls = _counting(monkeypatch)
    precompute.precompute_statistics({"es-en": ds})  # a second save: nothing computed again
    assert calls == []


def test_a_precomputed_first_visit_draws_the_same_page_without_computing(fresh_cache, monkeypatch):
    import streamlit as st

    monkeypatch.setattr(view, "PAGE_N_BOOT", 40)
    monkeypatch.setattr(view, "PAGE_N_AR", 30)
    seen: list = []
    record_view_calls(monkeypatch, view, "compare_table", seen)
    at = open_page("compare", OPEN_STATE)  # computed on the page (scores first, then the tests), every cache empty
    ds = seen[-1][0].dataset
    asked = [q for _, q in seen if q.lengths]
    assert asked == view.first_visit_tables(ds)  # the page asks exactly what a save precomputes
    frames = [df.value for df in at.dataframe]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    monkeypatch.setenv("EVALCORE_CACHE", str(fresh_cache / "saved"))  # a new empty cache: a save's, then
    precompute.precompute_statistics({ds.lp: ds})
    calls = _counting(monkeypatch)
    st.cache_data.clear()
    st.cache_resource.clear()  # a fresh server: only the disk cache remains
    seen.clear()
    at = open_page("compare", OPEN_STATE)
    assert calls == []  # no table computed: every one read back
    assert [q for _, q in seen] == view.first_visit_tables(ds)  # no point headline: the full one at once
    assert [c.proto.spec for c in at.get("plotly_chart")] == specs
    after = [df.value for df in at.dataframe]
    assert len(after) == len(frames)
    for a, b in zip(frames, after):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
