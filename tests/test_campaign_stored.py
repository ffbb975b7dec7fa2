"""A fresh server's first Campaign visit reads the result a save precomputed: the kept result
equals one computed directly by evalcore.analysis.campaign (every table exactly, notes,
signature, orientations) and gives the same metric clusters; it is keyed by every language
pair's content, the settings and every option, so another query never reads it; only a query
naming the collection, with built-in metrics, is kept; an unreadable entry is computed again; the
page asks exactly what a save precomputes and draws the same page from it without running the
campaign. Behaviour only (counts of calls), never timings."""
from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from conftest import SAMPLE, open_page, record_view_calls
from evalcore.analysis import campaign as CA
from evalcore.analysis.system_level import cached_scores
from evalcore.io import load_collection
from evalcore.views import campaign as view
from evalcore.views import precompute
from evalcore.views.queries import collection_key



@pytest.fixture(scope="module")
def coll():
    return load_collection(SAMPLE)


def _direct(coll, q):
    """The campaign of ``q`` computed by the analysis layer alone (no view, no disk cache)."""
    return CA.campaign(coll, list(q.metrics), q.criterion, lps=list(q.lps), settings=q.settings, rank_by=q.rank_by,
                       scorer=cached_scores)


def _same(got, want) -> None:
    for k in ("systems", "correlations", "metric_ranks"):
        pd.testing.assert_frame_equal(getattr(got, k), getattr(want, k), check_exact=True)
    assert got.notes == want.notes and got.signature == want.signature
    assert got.higher_is_better == want.higher_is_better
    pd.testing.assert_frame_equal(got.wide(), want.wide(), check_exact=True)


def _counting(monkeypatch) -> list:
    calls: list = []
    real = CA.campaign
    monkeypatch.setattr(CA, "campaign", lambda *a, **k: calls.append(tuple(a[1])) or real(*a, **k))
    return calls


def test_the_first_visit_query_is_the_pages_defaults(coll):
    q = view.first_visit_query(coll)
    assert q.lps == tuple(coll) and q.metrics == ("bleu", "chrf") and q.criterion is None
    assert q.dataset == collection_key(coll, q.lps) and q.rank_by == "pearson"
    assert q.settings.judged_only and not q.settings.include_human_systems


def test_kept_result_equals_the_direct_computation_and_is_read_back(fresh_cache, coll, monkeypatch):
    q = view.first_visit_query(coll)
    want = _direct(coll, q)
    assert len(want.correlations) and len(want.systems) and want.notes
    assert view.stored_result(q) is None and not view.is_stored(q)
    _same(view.campaign_result(coll, q), want)  # computed, kept
    assert view.is_stored(q)
    calls = _counting(monkeypatch)
    back = view.campaign_result(coll, q)  # read back
    _same(back, want)
    _same(view.stored_result(q), want)
    assert calls == []
    lp = q.lps[0]
    for test, stat in (("perm", "pearson"), ("williams", "pearson")):  # the clusters the page draws from it
        got = CA.metric_clusters(back, lp, statistic=stat, test=test)
        exp = CA.metric_clusters(want, lp, statistic=stat, test=test)
        pd.testing.assert_frame_equal(got[0], exp[0], check_exact=True)
        pd.testing.assert_frame_equal(got[1], exp[1], check_exact=True)
        assert got[2] == exp[2]


def test_another_content_settings_or_option_is_not_read(fresh_cache, coll):
    q = view.first_visit_query(coll)
    view.campaign_result(coll, q)
    others = [dataclasses.replace(q, metrics=("bleu",)), dataclasses.replace(q, rank_by="kendall"),
              dataclasses.replace(q, criterion="fluency"),
              dataclasses.replace(q, settings=q.settings.with_(judged_only=False)),
              dataclasses.replace(q, settings=q.settings.with_(human_systems="include")),
              dataclasses.replace(q, settings=q.settings.with_(tokenizer="intl"))]
    for other in others:
        assert view.stored_result(other) is None and not view.is_stored(other), other
    lp = q.lps[0]
    ds = coll[lp]
    changed = {lp: dataclasses.replace(ds, outputs=ds.outputs.assign(text=ds.outputs["text"] + " x"))}
    moved = view.first_visit_query(changed)
    assert moved.dataset != q.dataset and view.stored_result(moved) is None


def test_only_a_query_naming_the_collection_with_built_in_metrics_is_kept(fresh_cache, coll):
    q = view.first_visit_query(coll)
    assert view.result_cacheable(coll, q)
    wrong = dataclasses.replace(q, dataset="another content")
    assert not view.result_cacheable(coll, wrong)
    view.campaign_result(coll, wrong)
    assert not view.is_stored(wrong)
    assert not view.result_cacheable(coll, dataclasses.replace(q, lps=("xx-yy",)))
    for odd in ("learned:mine", "stored:given", "cosine:some-model"):
        assert not view.result_cacheable(coll, dataclasses.replace(q, metrics=q.metrics + (odd,)))


def test_an_unreadable_entry_is_computed_again(fresh_cache, coll, monkeypatch):
    q = view.first_visit_query(coll)
    first = view.campaign_result(coll, q)
    from evalcore.scoring.scores import _cache_base

    _cache_base(view.RESULT_KIND, view._result_key(q)).with_suffix(".json").write_text("{not json", encoding="utf-8")
    assert view.stored_result(q) is None
    calls = _counting(monkeypatch)
    _same(view.campaign_result(coll, q), first)
    assert calls == [q.metrics]
    assert view.stored_result(q) is not None  # kept again


def test_a_save_precomputes_the_first_visit(fresh_cache, coll, monkeypatch):
    precompute.precompute_statistics(coll)
    q = view.first_visit_query(coll)
    _same(view.stored_result(q), _direct(coll, q))
    _same(view.stored_result(dataclasses.replace(q, metrics=())), _direct(coll, dataclasses.replace(q, metrics=())))
    calls = _counting(monkeypatch)
    precompute.precompute_statistics(coll)  # a second save: nothing computed again
    assert calls == []


def test_a_precomputed_first_visit_draws_the_same_page_without_computing(fresh_cache, monkeypatch):
    import streamlit as st

    seen: list = []
    record_view_calls(monkeypatch, view, "campaign_result", seen)
    at = open_page("campaign")  # computed on the page (one metric at a time), every cache empty
    coll = seen[-1][0]
    q = view.first_visit_query(coll)
    assert seen[-1][1] == q  # the page asks what a save precomputes (its human scores too)
    assert seen[0][1] == dataclasses.replace(q, metrics=())
    frames = [df.value for df in at.dataframe]
    specs = [c.proto.spec for c in at.get("plotly_chart")]
    monkeypatch.setenv("EVALCORE_CACHE", str(fresh_cache / "saved"))  # a new empty cache: a save's, then
    precompute.precompute_statistics(coll)
    calls = _counting(monkeypatch)
    scored: list = []
    from evalcore.analysis import system_level

    real = system_level.cached_scores
    monkeypatch.setattr(system_level, "cached_scores", lambda *a, **k: scored.append(1) or real(*a, **k))
    st.cache_data.clear()
    st.cache_resource.clear()  # a fresh server: only the disk cache remains
    seen.clear()
    at = open_page("campaign")
    assert calls == [] and scored == []  # nothing scored, no campaign run: both results read back
    assert [x[1] for x in seen] == [dataclasses.replace(q, metrics=()), q]  # no table one metric at a time
    assert [c.proto.spec for c in at.get("plotly_chart")] == specs
    after = [df.value for df in at.dataframe]
    assert len(after) == len(frames)
    for a, b in zip(frames, after):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
