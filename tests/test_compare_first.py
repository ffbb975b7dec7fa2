"""The Compare page draws a figure (the humans' win rates) before any metric is scored
or any text tokenised for the length columns, and a rerun rebuilds nothing.

Oracles computed here: the token counts of a literal loop over sacreBLEU's own tokenizer (not
evalcore's), and call counts of the functions that score (``compare.with_metrics``) and tokenise
for lengths (``compare._add_lengths``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT, shared
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from evalcore.analysis import compare as C
from evalcore.io import load_collection
from evalcore.scoring.settings import DEFAULTS


@pytest.fixture(scope="module")
def encs():
    ds = load_collection(shared("wmt24_esa"))["en-cs"]
    return ds.subset(seg_ids=ds.seg_ids[:40])


def test_lengths_deferred_are_the_same(encs):
    a, b = encs.systems[:2]
    late = C.build(encs, a, b, ["bleu"], lengths=False)
    assert not set(C.LENGTH_COLUMNS) & set(late.segments.columns)
    full = C.with_lengths(late)
    assert C.with_lengths(full) is full
    pd.testing.assert_frame_equal(full.segments, C.build(encs, a, b, ["bleu"]).segments)
    tok = Tokenizer13a()
    refs = dict(zip(encs.references["seg_id"], encs.references["text"]))  # one reference set
    outs = {s: dict(zip(g["seg_id"], g["text"])) for s, g in encs.outputs.groupby("system")}
    f = full.segments
    assert f["len_a"].tolist() == [len(tok(outs[a][s]).split()) for s in f["seg_id"]]
    assert f["len_b"].tolist() == [len(tok(outs[b][s]).split()) for s in f["seg_id"]]
    assert np.allclose(f["ref_len"], [len(tok(refs[s]).split()) for s in f["seg_id"]])
    # the tables that need the lengths add them themselves: same tables either way
    for name in ("segments", "length_ratios", "length_bias", "buckets"):
        pd.testing.assert_frame_equal(C.table(late, name, 0, 0), C.table(full, name, 0, 0))


def test_compare_page_first_figure_before_scoring(encs, tmp_path, monkeypatch):
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    workspace.save(encs, "encs-slice")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    events = []
    for owner in (DeltaGenerator, st):
        def chart(*a, _real=getattr(owner, "plotly_chart"), **k):
            if str(k.get("key")).startswith("cmp_"):
                events.append(("figure", k.get("key")))
            return _real(*a, **k)
        monkeypatch.setattr(owner, "plotly_chart", chart)
    for name in ("with_metrics", "_add_lengths"):
        def spy(*a, _real=getattr(C, name), _name=name, **k):
            events.append((_name,))
            return _real(*a, **k)
        monkeypatch.setattr(C, name, spy)
    from evalcore.present import plots_compare as PC

    for name in ("win_rates", "scatter_ab", "difference_histogram", "bucket_bars", "word_f_bars", "length_bias_bars"):
        def build(*a, _real=getattr(PC, name), _name=name, **k):
            events.append(("build figure", _name))
            return _real(*a, **k)
        monkeypatch.setattr(PC, name, build)
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.session_state["dataset_label"] = at.session_state["dataset_select"] = label
    at.run()
    at.switch_page("pages/compare.py")
    events.clear()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    # build(..., lengths=False) scores no metric itself (with_metrics with none is its last step)
    first = events.index(("figure", "cmp_win_fig_human"))
    assert ("_add_lengths",) not in events[:first]
    assert events[:first].count(("with_metrics",)) == 1  # the human rows only (no metric)
    assert events[first + 1:].count(("with_metrics",)) == 3  # BLEU, chrF, TER after it
    assert events.count(("_add_lengths",)) == 1  # once, for the tables that need lengths
    assert ("figure", "cmp_win_fig") in events[first + 1:]
    # the humans' (first), every signal's scores (before the paired tests), then with the tests' winners
    assert events.count(("build figure", "win_rates")) == 3
    assert events.index(("figure", "cmp_win_fig_point")) < events.index(("figure", "cmp_win_fig"))
    events.clear()
    at.run()  # a rerun: nothing rebuilt, nothing tokenised again, no figure built again
    assert not at.exception
    assert ("with_metrics",) not in events and ("_add_lengths",) not in events
    assert not [e for e in events if e[0] == "build figure"], events
    assert events[0] == ("figure", "cmp_win_fig")  # the full figure straight away
    assert sum(e[0] == "figure" for e in events) == 6
    at.selectbox(key="cmp_signal").set_value("human:esa").run()  # another signal: only its two figures
    assert not at.exception
    assert sorted(e[1] for e in events if e[0] == "build figure") == ["difference_histogram", "scatter_ab"]
    new = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)  # a new session, caches warm
    new.session_state["dataset_label"] = new.session_state["dataset_select"] = label
    new.run()
    new.switch_page("pages/compare.py")
    events.clear()
    new.run()
    assert not new.exception
    figures = [e[1] for e in events if e[0] == "figure"]
    assert figures[0] == "cmp_win_fig" and not {"cmp_win_fig_human", "cmp_win_fig_point"} & set(figures)  # no flash
    assert ("with_metrics",) not in events and ("_add_lengths",) not in events


@pytest.mark.parametrize("judged_only", [False, True])
def test_statistics_from_the_shared_cache_are_the_same(encs, tmp_path, monkeypatch, judged_only):
    """A's and B's rows of the Systems page's every-segment statistics give the same comparison
    as scoring the two systems (segments, sentence scores, statistics), and they are used."""
    from evalcore.scoring import scores as scores_view

    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    a, b = encs.systems[:2]
    ids = ["bleu", "chrf", "ter"]
    assert scores_view.known_system_stats(encs, "bleu", "13a") is None  # nothing cached yet
    scores_view.system_stats(encs, ids, tokenize="13a")
    known = {m: scores_view.known_system_stats(encs, m, "13a") for m in ids}
    assert all(known.values())
    human = C.build(encs, a, b, [], settings=DEFAULTS.with_(judged_only=judged_only), require_judged=judged_only,
                    lengths=False)
    alone = C.with_metrics(human, ids)
    shared = C.with_metrics(human, ids, known_stats=known.get)
    pd.testing.assert_frame_equal(shared.segments, alone.segments)
    for m in ids:
        for x, y in zip(shared.stats[m], alone.stats[m]):
            assert np.array_equal(x, y)
    pd.testing.assert_frame_equal(C.table(shared, "headline", 100, 100), C.table(alone, "headline", 100, 100))
    swapped = {m: {a: k[b], b: k[a]} for m, k in known.items()}  # proof that the given rows are the ones used
    used = C.with_metrics(human, ["bleu"], known_stats=swapped.get)
    assert np.array_equal(used.stats["bleu"][0], alone.stats["bleu"][1])
    assert np.array_equal(used.stats["bleu"][1], alone.stats["bleu"][0])
