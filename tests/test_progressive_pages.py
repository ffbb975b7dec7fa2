"""Progressive pages (Compare, Metrics task, Campaign) under Streamlit's AppTest on the bundled
sample: on a cold visit the first figure is drawn from point estimates before any significance
work runs (spies on the functions that resample: the paired bootstrap and approximate
randomisation, the metrics task's cluster permutations and segment bootstrap, the campaign's
metric clusters), the significance arrives after under a progress bar, and the values shown at
the end equal the non-progressive computation (the analysis functions called directly here, with
the page's settings). Behaviour only: orders and values, never timings."""
from __future__ import annotations

import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from conftest import SAMPLE
from test_pages import _frame, _open

from evalcore.analysis import compare as C
from evalcore.io import load_collection
from evalcore.scoring.settings import DEFAULTS


@pytest.fixture
def events(monkeypatch, tmp_path):
    """Every keyed figure drawn (with the figure), every progress bar started, in order."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    log: list[tuple] = []
    for owner in (DeltaGenerator, st):  # st.x are bound to the main container at import
        def chart(*a, _real=getattr(owner, "plotly_chart"), **k):
            if k.get("key"):
                log.append(("figure", k["key"], a[-1] if a else k.get("figure_or_data")))
            return _real(*a, **k)

        def progress(*a, _real=getattr(owner, "progress"), **k):
            log.append(("bar", str(k.get("text") or "")))
            return _real(*a, **k)
        monkeypatch.setattr(owner, "plotly_chart", chart)
        monkeypatch.setattr(owner, "progress", progress)
    st.cache_data.clear()
    st.cache_resource.clear()  # (computed_keys too: every page starts cold)
    return log


def _spy(monkeypatch, log: list, module, name: str) -> None:
    real = getattr(module, name)

    def spy(*a, **k):
        log.append(("work", name))
        return real(*a, **k)
    monkeypatch.setattr(module, name, spy)


def _index(log, kind: str, what: str | None = None) -> int:
    return next(i for i, e in enumerate(log) if e[0] == kind and (what is None or e[1] == what))


def _winner_labels(fig) -> list:
    return [list(t.text) for t in fig.data if t.text is not None]


# ---------------------------------------------------------------------------------------------- Compare
def test_compare_draws_the_scores_before_the_paired_tests(events, monkeypatch):
    from evalcore.stats import significance
    from evalcore.views.compare import PENDING

    for name in ("paired_bootstrap", "paired_approximate_randomization"):
        _spy(monkeypatch, events, significance, name)
    a, b, metrics, n_boot, n_ar = "synonyms", "literal", ["bleu", "chrf"], 60, 50
    at = _open("compare", {"cmp_a": a, "cmp_b": b, "cmp_metrics": metrics, "cmp_boot": n_boot, "cmp_ar": n_ar})
    figures = [e for e in events if e[0] == "figure" and e[1].startswith("cmp_win")]
    assert [e[1] for e in figures] == ["cmp_win_fig_human", "cmp_win_fig_point", "cmp_win_fig"]
    first_test = _index(events, "work")
    # the humans' win rates, then every signal's, both before the first resample, the bar before it too
    assert events.index(figures[1]) < first_test
    bar = _index(events, "bar", next(e[1] for e in events if e[0] == "bar" and e[1].startswith("Paired tests")))
    assert events.index(figures[1]) < bar < first_test < events.index(figures[2])
    assert not [e for e in events[:first_test] if e[0] == "work"]
    # the point figures say the test is pending; the last one names the winners
    humans = ("human:adequacy", "human:fluency")
    assert _winner_labels(figures[0][2]) == [[PENDING] * len(humans)]
    assert _winner_labels(figures[1][2]) == [[PENDING] * (len(metrics) + len(humans))]
    # the final headline: the same as one non-progressive computation with the page's settings
    ds = load_collection(SAMPLE)["es-en"]
    settings = DEFAULTS.with_(tokenizer=C.default_tokenizer(ds.lp)[0], judged_only=DEFAULTS.judged_only)
    want = C.headline(C.build(ds, a, b, metrics, ds.criteria, settings), n_boot, n_ar, test="bootstrap")
    shown = _frame(at, "winner")
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), want, check_exact=True)
    assert want["p_bootstrap"].notna().all() and want["p_ar"].notna().all()
    final = figures[2][2]
    assert _winner_labels(final) == [[w if w in (a, b) else "n.s." for w in want["winner"]]]
    # a rerun: the full figure at once, nothing resampled again
    events.clear()
    at.run()
    assert not at.exception
    assert [e[1] for e in events if e[0] == "figure" and e[1].startswith("cmp_win")] == ["cmp_win_fig"]
    assert not [e for e in events if e[0] in ("work", "bar")]


# ---------------------------------------------------------------------------------------------- Metrics task
METATASK_METRICS = ("bleu", "chrf", "ter")


def _metatask_query(k: int):
    from evalcore.views import metatask as view
    from evalcore.views.queries import collection_key

    coll = load_collection(SAMPLE)
    return coll, view.MetataskQuery(collection_key(coll, ["es-en"]), DEFAULTS.with_(tokenizer=None, judged_only=False),
                                    "wmt24", ("es-en",), METATASK_METRICS, "adequacy", k)


def test_metatask_clusters_from_the_point_table_equal_one_run():
    """The clusters added to the table computed without them (what the page draws first) give the
    result of one run_metatask with k: the same table (values, ranks, clusters), p-values and notes."""
    import dataclasses

    from evalcore.analysis.metatask import run_metatask
    from evalcore.views import metatask as view

    coll, q = _metatask_query(12)
    point = view.metatask_result(coll, dataclasses.replace(q, k=0))
    assert point[0].cluster is None
    res, notes, sig = view.metatask_clusters(point, q)
    want, want_notes, want_sigs = run_metatask(coll, "wmt24", lps=["es-en"], metrics=list(METATASK_METRICS),
                                               human="adequacy", settings=q.settings, k=12)
    pd.testing.assert_frame_equal(res.table(), want.table(), check_exact=True)
    assert res.cluster is not None and res.cluster.notna().all()
    pd.testing.assert_frame_equal(res.sig, want.sig, check_exact=True)
    assert notes == want_notes == res.notes and any("clusters:" in n for n in notes)
    assert not any(n.startswith("k = 0") for n in notes)
    assert res.signatures == want_sigs and set(res.pairs) == set(want.pairs)
    assert sig == view.metatask_result(coll, q)[2]
    assert view.metatask_clusters(point, dataclasses.replace(q, k=0)) is point  # k = 0: the point table itself


def test_metatask_draws_the_leaderboard_before_the_clusters_and_the_cis(events, monkeypatch):
    from evalcore.analysis import metatask as M

    for name in ("metric_clusters", "subtask_cis"):
        _spy(monkeypatch, events, M, name)
    k = 12
    at = _open("metatask", {"mt_metrics": list(METATASK_METRICS), "mt_human": "adequacy", "mt_k": k, "mt_ci": True})
    order = [e[1] for e in events if e[0] == "work" or e[0] == "figure" and e[1].startswith(("mt_lead", "mt_values"))]
    assert order == ["mt_lead_point", "metric_clusters", "mt_lead", "mt_values_point", "subtask_cis", "mt_values"]
    bars = [i for i, e in enumerate(events) if e[0] == "bar"]
    assert len(bars) == 2
    assert _index(events, "figure", "mt_lead_point") < bars[0] < _index(events, "work", "metric_clusters")
    assert _index(events, "figure", "mt_values_point") < bars[1] < _index(events, "work", "subtask_cis")
    # the values shown at the end: today's one-step computation (run_metatask with k), and its CIs
    from evalcore.views import metatask as view

    coll, q = _metatask_query(k)
    old = view.metatask_result(coll, q)
    shown = _frame(at, "average_rank")
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), view.leaderboard_display(old[0])[0], check_exact=True)
    assert shown["cluster"].notna().all() and old[0].cluster is not None
    drawn = {e[1]: e[2] for e in events if e[0] == "figure"}  # the last figure drawn under each key
    assert drawn["mt_lead"].to_plotly_json() == view.metatask_leaderboard_figure(old, q).to_plotly_json()
    ci = M.subtask_cis(old[0])
    assert ci
    assert drawn["mt_values"].to_plotly_json() == view.metatask_values_figure(old + (ci,), q).to_plotly_json()
    assert drawn["mt_values"].to_plotly_json() != drawn["mt_values_point"].to_plotly_json()  # the CIs drawn
    events.clear()
    at.run()  # a rerun: the final figures at once, nothing resampled again
    assert not at.exception
    assert [e[1] for e in events if e[0] in ("work", "bar") or e[0] == "figure" and e[1].startswith(("mt_lead", "mt_values"))] \
        == ["mt_lead", "mt_values"]


# ---------------------------------------------------------------------------------------------- Campaign
def test_campaign_already_draws_its_figures_before_the_metric_clusters(events, monkeypatch):
    """Unchanged, and kept so: the human scores' figure (no metric scored), then the correlations'
    figure, and only then the metrics' significance clusters (PERM-BOTH) under their indicator."""
    from evalcore.analysis import campaign as CA

    _spy(monkeypatch, events, CA, "metric_clusters")
    at = _open("campaign", {"camp_metrics": ["bleu", "chrf"]})
    order = [e[1] for e in events if e[0] == "work" or e[0] == "figure" and e[1] in ("camp_human_bars", "camp_bars")]
    assert order == ["camp_human_bars", "camp_bars", "metric_clusters"]
    assert len(_frame(at, "rank")) == 2  # the two metrics' clusters are shown
