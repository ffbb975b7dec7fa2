"""The Campaign page draws a figure before any metric is scored and takes its metric
scores from the statistics the Systems page caches per (dataset, metric, tokenizer, reference
set, segments), so nothing is scored twice.

Oracles computed here: the campaign's own default path (:func:`evalcore.scoring.parallel.score_table`,
pinned against sacreBLEU in tests/test_campaign.py) for the values, and call counts of the one
function that computes statistics (``evalcore.scoring.scores._stats_for``).
"""
from __future__ import annotations

import pandas as pd
import pytest
from conftest import ROOT, shared

from evalcore.analysis.campaign import campaign
from evalcore.io import load_collection
from evalcore.scoring.settings import DEFAULTS
from evalcore.scoring import scores as scores_view
from evalcore.analysis.system_level import cached_scores
from evalcore.views.campaign import lp_plan

N = 25  # segments per language pair


@pytest.fixture(scope="module")
def wmt24():
    coll = load_collection(shared("wmt24_esa"))
    return {lp: ds.subset(seg_ids=ds.seg_ids[:N]) for lp, ds in coll.items()}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    calls = []
    real = scores_view._stats_for

    def spy(dataset, metric_id, *a, **k):
        calls.append((dataset.lp, metric_id, k.get("tokenize")))
        return real(dataset, metric_id, *a, **k)

    monkeypatch.setattr(scores_view, "_stats_for", spy)
    return calls


@pytest.mark.parametrize("judged_only,include_human", [(True, False), (False, True)])
def test_cached_scores_equal_the_engine(wmt24, cache, judged_only, include_human):
    want = campaign(wmt24, ["bleu", "chrf", "ter"], settings=DEFAULTS.with_(judged_only=judged_only, human_systems="include" if include_human else "exclude"))
    got = campaign(wmt24, ["bleu", "chrf", "ter"], settings=DEFAULTS.with_(judged_only=judged_only, human_systems="include" if include_human else "exclude"),
                   scorer=cached_scores)
    pd.testing.assert_frame_equal(got.systems, want.systems)
    pd.testing.assert_frame_equal(got.correlations, want.correlations)
    assert got.notes == want.notes and got.signature == want.signature
    # every language pair scored with its own tokenizer (sacreBLEU's default for the target language)
    assert {(lp, tok) for lp, _, tok in cache} == {("en-cs", "13a"), ("en-ja", "ja-mecab"), ("en-zh", "zh")}
    assert len(cache) == 9
    campaign(wmt24, ["bleu", "chrf", "ter"], settings=DEFAULTS.with_(judged_only=judged_only, human_systems="include" if include_human else "exclude"),
             scorer=cached_scores)
    assert len(cache) == 9  # the second campaign reads the disk cache


def test_systems_page_statistics_are_reused_and_the_key_carries_the_tokenizer(wmt24, cache):
    ja = wmt24["en-ja"]
    # what the Systems page passes on en-ja (its sidebar default)
    scores_view.system_stats(ja, ["bleu"], False, None, None, "esa", tokenize="ja-mecab")
    assert cache == [("en-ja", "bleu", "ja-mecab")]
    cached_scores(ja, ["bleu"], tokenize="ja-mecab", criterion="esa")
    assert len(cache) == 1  # the Campaign's (en-ja, BLEU, ja-mecab, judged esa) is the Systems page's entry
    other = cached_scores(ja, ["bleu"], tokenize="char", criterion="esa")
    assert cache[1:] == [("en-ja", "bleu", "char")]  # another tokenizer is another entry
    same = cached_scores(ja, ["bleu"], tokenize="ja-mecab", criterion="esa")
    assert not other.table["score"].equals(same.table["score"])


def test_lp_plan_tokenizers(wmt24):
    assert lp_plan(wmt24, list(wmt24)) == [("en-cs", "esa", "13a"), ("en-ja", "esa", "ja-mecab"),
                                           ("en-zh", "esa", "zh")]
    assert lp_plan(wmt24, ["en-cs"], settings=DEFAULTS.with_(tokenizer="intl")) == [("en-cs", "esa", "intl")]
    assert lp_plan(wmt24, ["en-cs"], criterion="mqm") == []  # not judged so: left out (the notes say why)


def test_campaign_page_draws_the_human_figure_before_scoring(wmt24, cache, tmp_path, monkeypatch):
    """The first st.plotly_chart (human scores per language pair) comes before the first
    statistics are computed; a rerun and a new session compute nothing again."""
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    workspace.save({lp: ds.subset(seg_ids=ds.seg_ids[:20]) for lp, ds in wmt24.items()}, "wmt24-slice")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    charts = []
    for owner in (DeltaGenerator, st):  # st.plotly_chart is bound to the main container at import
        def chart(*a, _real=getattr(owner, "plotly_chart"), **k):
            if str(k.get("key")).startswith("camp_"):
                charts.append((k.get("key"), len(cache)))
            return _real(*a, **k)

        monkeypatch.setattr(owner, "plotly_chart", chart)
    st.cache_data.clear()
    st.cache_resource.clear()

    def page():
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
        at.session_state["dataset_label"] = at.session_state["dataset_select"] = label
        at.run()
        at.switch_page("pages/campaign.py")
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        return at

    at = page()
    assert charts[0] == ("camp_human_bars", 0)  # drawn before any statistics were computed
    assert ("camp_bars", 6) in charts  # BLEU and chrF on three pairs, then the correlations
    human = at.get("plotly_chart")[0].proto.spec
    assert "en-ja" in human and "refA" not in human  # human translations left out by default
    from evalcore.present import plots, plots_campaign

    built = []
    for mod, name in ((plots_campaign, "human_bars"), (plots, "campaign_bars")):
        def build(*a, _real=getattr(mod, name), _name=name, **k):
            built.append(_name)
            return _real(*a, **k)
        monkeypatch.setattr(mod, name, build)
    n = len(charts)
    at.run()  # warm rerun: nothing scored, no figure built again, both drawn
    assert not at.exception and built == [] and [k for k, _ in charts[n:]] == ["camp_human_bars", "camp_bars"]
    at.radio(key="camp_stat").set_value("kendall").run()  # another statistic: only that figure is built
    assert not at.exception and built == ["campaign_bars"]
    st.cache_data.clear()
    page()  # a new session (empty in-process cache): the disk cache serves every statistic
    assert len(cache) == 6


@pytest.mark.parametrize("include_references", [False, True])
def test_judged_statistics_from_the_every_segment_table(wmt24, cache, tmp_path, monkeypatch, include_references):
    """With the every-segment table cached (the Systems page's default), the judged-only
    statistics are its rows on the judged segments: exactly what computing them on their own
    gives (compared here with a second, empty cache), and nothing is scored again."""
    import numpy as np

    from evalcore.scoring.scores import judged_segments

    ds = wmt24["en-cs"]
    ids = ["bleu", "chrf", "ter", "nist-4", "wer"]
    full = scores_view.system_stats(ds, ids, include_references, tokenize="13a")
    n = len(cache)
    derived = scores_view.system_stats(ds, ids, include_references, None, None, "esa", tokenize="13a")
    assert len(cache) == n  # nothing scored
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "other"))
    alone = scores_view.system_stats(ds, ids, include_references, None, None, "esa", tokenize="13a")
    assert len(cache) == n + len(ids)
    judged = judged_segments(ds, "esa")
    for m in ids:
        assert list(derived[m]) == list(alone[m]) and set(alone[m]) <= set(judged)
        assert sum(len(k) for k, _ in derived[m].values()) < sum(len(k) for k, _ in full[m].values())
        for name, (keep, st) in alone[m].items():
            assert derived[m][name][0] == keep and set(keep) <= judged[name]
            assert np.array_equal(derived[m][name][1], st, equal_nan=True)


def test_campaign_after_the_systems_page_scores_nothing_again(wmt24, cache, tmp_path, monkeypatch):
    """The Systems page on en-ja (ja-mecab, every segment, its default) then the Campaign page
    (judged segments, each pair's own tokenizer): en-ja's statistics are not computed again."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    workspace.save({lp: ds.subset(seg_ids=ds.seg_ids[:20]) for lp, ds in wmt24.items()}, "wmt24-slice")
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.query_params["dataset"], at.query_params["lp"] = "wmt24-slice", "en-ja"
    at.session_state["sys_metrics"], at.session_state["sys_boot"] = ["bleu", "chrf"], 0
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert sorted(cache) == [("en-ja", "bleu", "ja-mecab"), ("en-ja", "chrf", "ja-mecab")]
    at.switch_page("pages/campaign.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert sorted(cache[2:]) == [("en-cs", "bleu", "13a"), ("en-cs", "chrf", "13a"),
                                 ("en-zh", "bleu", "zh"), ("en-zh", "chrf", "zh")]


def test_signatures_name_each_pairs_tokenizer(wmt24):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    from evalcore.views.campaign import signature_frame

    sig = campaign(wmt24, ["bleu"]).signature
    want = {"en-cs": Tokenizer13a().signature(), "en-ja": TokenizerJaMecab().signature(),
            "en-zh": TokenizerZh().signature()}
    for lp, tok in want.items():
        assert f"{lp}: bleu=" in sig and f"tok:{tok}|" in sig.split(f"{lp}: bleu=")[1].split(" / ")[0]
    frame = signature_frame(wmt24, list(wmt24), ["bleu", "chrf"])
    assert [(r.lp, r.metric) for r in frame.itertuples()] == [(lp, m) for lp in want for m in ("bleu", "chrf")]
    for r in frame[frame["metric"] == "bleu"].itertuples():
        assert f"tok:{want[r.lp]}|" in r.signature
    one = campaign({"en-cs": wmt24["en-cs"]}, ["bleu"]).signature  # one tokenizer: no per-pair groups
    assert one.startswith("metrics: bleu=") and f"tok:{want['en-cs']}|" in one


def test_given_scores_go_through_unchanged(wmt24, cache):
    """An external metric (scores computed elsewhere, no text to score) gives the same campaign
    through the cached path as through the engine; its system rows are the given ones."""
    from evalcore.metrics.byo import register_scores, unregister_external

    rows = []
    for lp, ds in wmt24.items():
        for k, s in enumerate(ds.systems):
            rows.append({"metric": "ext-given", "system": s, "seg_id": "", "score": float(k % 5) + 0.5 * len(lp),
                         "lp": lp, "ref_id": ""})
    ids = register_scores(pd.DataFrame(rows))
    try:
        want = campaign(wmt24, ["bleu"] + ids, settings=DEFAULTS.with_(judged_only=True))
        got = campaign(wmt24, ["bleu"] + ids, settings=DEFAULTS.with_(judged_only=True), scorer=cached_scores)
        pd.testing.assert_frame_equal(got.systems, want.systems)
        pd.testing.assert_frame_equal(got.correlations, want.correlations)
        given = got.systems[(got.systems["measure"] == "ext-given") & (got.systems["lp"] == "en-cs")]
        sys_cs = wmt24["en-cs"].systems
        assert given.set_index("system")["score"].to_dict() == {
            s: float(sys_cs.index(s) % 5) + 0.5 * 5 for s in given["system"]}
    finally:
        unregister_external(ids)
