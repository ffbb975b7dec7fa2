"""Pages at real size.

* the vectorised statistics (segments grouped into blocks) give exactly the per-item values:
  against sacreBLEU (BLEU, chrF, TER: sentence and corpus scores, several references) and
  against the literal per-item loop of every other lexical metric;
* one statistics table per metric serves segment scores and corpus scores (computed once);
* every page uses every segment by default; a subset is explicit and labelled;
* a widget change that does not change the inputs recomputes nothing.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE, shared
from evalcore.scoring import defaults as common_view
from evalcore.scoring import scores as scores_view
from evalcore.analysis import detail as segment_detail_view
from evalcore.views import (
    divergence as divergence_view,
    human_likeness as human_likeness_view,
    systems as systems_view,
)
from evalcore.io import load_collection, load_dataset
from evalcore.metrics.base import get_metric
from evalcore.metrics.engine import _candidates, _prepare, scorable

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))


@pytest.fixture(scope="module")
def wmt21():
    """40 segments of WMT21 news en-de: 3 reference sets, several systems."""
    return common_view.scoped(load_collection(shared("wmt21_news_mqm"))["en-de"], 40)


def _items(ds, include_references=True):
    C, R = [], []
    for _, texts, use in _candidates(ds, include_references):
        _, c, r = scorable(ds, texts, use)
        C += c
        R += r
    return C, R


def test_segment_and_corpus_scores_equal_sacrebleu(wmt21, fresh_cache):
    ds = wmt21
    seg = scores_view.segment_scores(ds, ["bleu", "chrf", "ter"], include_references=True)
    stats = scores_view.system_stats(ds, ["bleu", "chrf", "ter"], include_references=True)
    refs_of = {r: ds.ref_texts()[r] for r in ds.ref_ids}
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    texts = {**ds.sys_texts(), **refs_of}
    oracle = {"bleu": (sacrebleu.BLEU(effective_order=True), sacrebleu.BLEU()),
              "chrf": (sacrebleu.CHRF(), sacrebleu.CHRF()), "ter": (sacrebleu.TER(), sacrebleu.TER())}
    checked = 0
    for name in [ds.systems[0], ds.systems[-1], ds.ref_ids[0]]:
        use = [r for r in ds.ref_ids if r != name]
        for m, (sent, corp) in oracle.items():
            keep, _ = stats[m][name]
            got = seg[(seg["metric"] == m) & (seg["system"] == name)].set_index("seg_id")["score"]
            hyps = [texts[name][pos[s]] for s in keep]
            ref_lists = [[refs_of[r][pos[s]] for r in use if refs_of[r][pos[s]] is not None] for s in keep]
            for s, h, rl in list(zip(keep, hyps, ref_lists))[:15]:
                assert got[s] == pytest.approx(sent.sentence_score(h, rl).score, abs=1e-9), (m, name, s)
                checked += 1
            if all(len(rl) == len(use) for rl in ref_lists):  # sacreBLEU's corpus score needs full sets
                want = corp.corpus_score(hyps, [list(x) for x in zip(*ref_lists)]).score
                assert get_metric(m).score_from_stats(stats[m][name][1]) == pytest.approx(want, abs=1e-9)
    assert checked >= 90


@pytest.mark.parametrize("metric_id", ["nist-4", "nist-5", "wer", "per", "rouge-l", "rouge-su*", "rouge-w", "gtm-1", "meteor", "charngram-f3",
                                       "chrf++", "bleu-2", "bleus", "ter"])
def test_block_statistics_equal_the_per_item_loop(wmt21, metric_id):
    """The statistics of a segment's outputs computed as one block, and the sentence scores
    read from them, equal the literal per-item loop (``_stats_one`` / ``sentence_score``)."""
    m = get_metric(metric_id)
    _prepare(m, wmt21)
    C, R = _items(wmt21)
    C, R = C[:300], R[:300]
    got = m.segment_stats(C, R)
    if metric_id.startswith("nist"):  # one kernel call per item
        from evalcore.metrics.nist import _nist_kernel

        def one(c, rs):
            ct, rt = m.tok(c), [m.tok(r) for r in rs]
            info, counts, l_ref = _nist_kernel([ct], rt, np.ones((1, len(rt)), bool), m.max_n, m._table)
            return list(info[:, 0, 0]) + list(counts[:, 0]) + [len(ct), float(l_ref[0])]
    else:
        one = m._stats_one
    want = np.array([one(c, r) for c, r in zip(C, R)], dtype=float).reshape(got.shape)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(m.sentence_scores_of(got, R), np.array([m.sentence_score(c, r) for c, r in zip(C, R)]))


def test_one_statistics_table_serves_segment_and_corpus_scores(monkeypatch, fresh_cache):
    ds = load_dataset(SAMPLE)
    calls = []
    real = scores_view._stats_for
    monkeypatch.setattr(scores_view, "_stats_for", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    systems_view.system_table(ds, ["bleu", "wer"], n_boot=0)
    scores_view.segment_scores(ds, ["bleu", "wer"])
    divergence_view.signal_table(ds, ["bleu", "wer"])
    assert sorted(calls) == ["bleu", "wer"]


def _saved_app(tmp_path, monkeypatch, ds, name):
    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    from evalcore.io import workspace

    workspace.save({ds.lp: ds}, name)
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved() if m["name"] == name)
    at = AppTest.from_file(APP, default_timeout=240)
    at.session_state["dataset_label"] = label
    at.session_state["dataset_select"] = label
    return at


def _run(at, page=None):
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    if page:
        at.switch_page(f"pages/{page}.py")
        at.run()
        assert not at.exception, [e.message for e in at.exception]
    return at


def test_every_segment_by_default_and_sampling_is_labelled(tmp_path, monkeypatch, fresh_cache):
    from evalcore.io.synth import make_synthetic

    ds = make_synthetic(420, 2, 3, seed=1, mean_len=8)  # more than the old 300-segment default scope
    at = _saved_app(tmp_path, monkeypatch, ds, "synth420")
    at.session_state["div_metrics"] = ["bleu", "per"]
    _run(at, "divergence")
    n_out = len(ds.outputs)
    assert any(c.value.startswith(f"{n_out} output(s) ranked") for c in at.caption), ([t.value for t in at.title], [i.value for i in at.info], [e.value for e in at.error])
    assert not any("Sampled" in w.value for w in at.warning)
    # far bigger data (here: the threshold lowered) offers a subset, used only when asked, and labelled
    monkeypatch.setattr(common_view, "SAMPLING_OFFERED_ABOVE", 100)
    _run(at)
    assert any(c.value.startswith(f"{n_out} output(s) ranked") for c in at.caption)
    at.checkbox(key="div_sample").check()
    _run(at)
    assert any("Sampled: this page uses 420 of 420" in w.value for w in at.warning)
    at.number_input(key="div_scope").set_value(150)
    _run(at)
    assert any("Sampled: this page uses 150 of 420 segments" in w.value for w in at.warning)
    assert any(c.value.startswith(f"{150 * 3} output(s) ranked") for c in at.caption)


def test_widget_change_without_new_inputs_recomputes_nothing(tmp_path, monkeypatch, fresh_cache):
    ds = load_dataset(SAMPLE)
    counts = {"table": 0, "stats": 0}
    real_table, real_stats = systems_view._system_table, scores_view._stats_for

    def table(*a, **k):
        counts["table"] += 1
        return real_table(*a, **k)

    def stats(*a, **k):
        counts["stats"] += 1
        return real_stats(*a, **k)

    monkeypatch.setattr(systems_view, "_system_table", table)
    monkeypatch.setattr(scores_view, "_stats_for", stats)
    at = _saved_app(tmp_path, monkeypatch, ds, "sample-copy")
    at.session_state["sys_metrics"] = ["bleu", "chrf"]
    at.session_state["sys_boot"] = 20
    # every segment (judged segments only is the default): the statistics the divergence browser reads
    at.session_state["sys_judged_only"] = False
    _run(at, "systems")
    assert counts["stats"] == 2  # each metric's statistics once, shared by every table of the page
    first = dict(counts)
    # widgets that only change what is shown from the same scores
    at.selectbox(key="sys_rank_method").set_value("spearman")
    _run(at)
    at.selectbox(key="sys_sch_crit").set_value(ds.criteria[-1])
    _run(at)
    assert counts == first
    # a new input (resamples) recomputes the table, never the statistics
    at.number_input(key="sys_boot").set_value(30)
    _run(at)
    assert counts["table"] == first["table"] + 1 and counts["stats"] == first["stats"]
    # the divergence browser reads the same statistics (no new metric pass)
    at.session_state["div_metrics"] = ["bleu", "chrf"]
    at.switch_page("pages/divergence.py")
    _run(at)
    assert counts["stats"] == first["stats"]


def test_figure1_rows_are_independent(fresh_cache):
    """The Human-likeness page draws Figure 1 metric by metric: each metric's row (with its
    bootstrap CIs) is the row of the table computed for all metrics at once."""
    import pandas as pd

    ds = load_dataset(SAMPLE)
    ms = ["bleu", "chrf", "ter", "per"]
    joint = human_likeness_view.figure1_table(ds, ms, bootstrap=30)
    pd.testing.assert_frame_equal(pd.concat([human_likeness_view.figure1_table(ds, [m], bootstrap=30) for m in ms], ignore_index=True),
                                  joint)


def test_systems_page_draws_the_human_scores_before_scoring_any_metric(fresh_cache, monkeypatch):
    """The Systems page's first bar chart (human scores) is drawn before any metric's
    statistics are computed; the chart is then redrawn as each metric arrives."""
    import json

    from streamlit.delta_generator import DeltaGenerator

    from evalcore.scoring import scores

    events = []
    real_stats, real_chart = scores._stats_for, DeltaGenerator.plotly_chart

    def stats_for(dataset, metric_id, *a, **k):
        events.append(("score", metric_id))
        return real_stats(dataset, metric_id, *a, **k)

    def plotly_chart(self, fig=None, *a, **k):
        measures = {t.get("name") for t in json.loads(fig.to_json()).get("data", [])} if fig is not None else set()
        events.append(("chart", tuple(sorted(m for m in measures if m))))
        return real_chart(self, fig, *a, **k)

    monkeypatch.setattr(scores, "_stats_for", stats_for)
    monkeypatch.setattr(DeltaGenerator, "plotly_chart", plotly_chart)
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["sys_metrics"] = ["bleu", "chrf"]
    at.session_state["sys_boot"] = 20
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    first_score = next(i for i, e in enumerate(events) if e[0] == "score")
    assert events[0][0] == "chart" and first_score > 0, events
    assert events.index(("score", "chrf")) > events.index(("score", "bleu")) > first_score - 1
    charts = [e for e in events if e[0] == "chart"]
    assert len(charts) >= 3, events  # human scores, + BLEU, + chrF (then the final chart with CIs)


def test_divergence_ranks_the_two_signals_before_scoring_the_others(tmp_path, monkeypatch, fresh_cache):
    """The first view (the ranked table) needs only the compared pair (BLEU and the human score):
    the other chosen metrics (chrF) are scored after the table, for the detail view, and the
    detail view still lists every signal, equal to the signal table computed in one go."""
    ds = load_dataset(SAMPLE)
    order = []
    real_stats, real_div = scores_view._stats_for, divergence_view.divergence_table
    monkeypatch.setattr(scores_view, "_stats_for", lambda *a, **k: order.append(a[1]) or real_stats(*a, **k))
    monkeypatch.setattr(divergence_view, "divergence_table", lambda *a, **k: order.append("table") or real_div(*a, **k))
    at = _saved_app(tmp_path, monkeypatch, ds, "sample-div")
    at.session_state["div_metrics"] = ["bleu", "chrf"]
    at.session_state["div_queen"] = []
    _run(at, "divergence")
    assert order == ["bleu", "table", "chrf"]
    scores = next(df.value for df in at.dataframe if list(df.value.columns[:2]) == ["signal", "value"])
    want = divergence_view.signal_table(ds, ["bleu", "chrf"], ds.criteria)
    system, seg = at.selectbox(key="div_pick").options[0].split(" · ")[:2]
    row = want[(want["system"] == system) & (want["seg_id"] == seg.replace("segment ", ""))].iloc[0]
    for sgn, val in zip(scores["signal"], scores["value"]):
        assert val == pytest.approx(row[sgn], nan_ok=True), sgn
    assert list(scores["signal"]) == segment_detail_view.signal_columns(want)  # every signal, in the same order


def test_learn_computes_only_the_stop_it_shows(monkeypatch, fresh_cache):
    """The tour's first stop (BLEU vs the humans) computes neither ORANGE/KING nor QUEEN; each
    lesson computed alone equals the lesson computed with all the others."""
    from test_pages import _open

    from evalcore.views import learn as learn_view

    calls = []
    for name in ("figure1_table", "queen_human_points"):
        real = getattr(learn_view, name)
        monkeypatch.setattr(learn_view, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    at = _open("learn")
    assert at.radio(key="learn_stop").value == 1 and calls == []
    assert any("mean sentence BLEU" in str(df.value.columns.tolist()) or "bleu_rank" in df.value.columns
               for df in at.dataframe)
    at.radio(key="learn_stop").set_value(2).run()
    assert calls == ["figure1_table"]
    ds = load_dataset(SAMPLE)
    every = learn_view.lessons(ds)
    for part in learn_view.PARTS:
        alone = learn_view.lessons(ds, parts=(part,))
        for key in set(alone) - {"criterion", "metrics", "queen_set"}:
            got, want = alone[key], every[key]
            if isinstance(want, dict) and "points" in want:
                pd.testing.assert_frame_equal(got["points"], want["points"])
                assert (got["human_threshold"], got["queen_threshold"]) == (want["human_threshold"], want["queen_threshold"])
            elif isinstance(want, pd.DataFrame):
                pd.testing.assert_frame_equal(got, want)
            else:
                assert got == want, key
    with pytest.raises(ValueError, match="unknown lesson"):
        learn_view.lessons(ds, parts=("orange", "nope"))


def test_figure3_rows_are_independent(fresh_cache):
    """Likeness vs acceptability draws Figure 3 metric by metric, the selected set's point last:
    each metric's rows and the set's row, computed alone, equal the table computed at once
    (bootstrap CIs included), at segment and system level."""
    from evalcore.views import likeness_vs_acceptability as lva

    ds = load_dataset(SAMPLE)
    ms = ["bleu", "chrf", "ter"]
    for level in ("segment", "system"):
        joint = lva.figure3_points(ds, ms, "adequacy", None, level=level, bootstrap=30)
        alone = pd.concat([lva.figure3_points(ds, [m], "adequacy", level=level, bootstrap=30, groups=lva.GROUPS[:2])
                           for m in ms]
                          + [lva.figure3_points(ds, ms, "adequacy", None, level=level, bootstrap=30,
                                                groups=["selected set"])], ignore_index=True)
        pd.testing.assert_frame_equal(alone, joint)
    with pytest.raises(ValueError, match="unknown group"):
        lva.figure3_points(ds, ms, "adequacy", groups=["selected"])


def test_likeness_page_draws_figure3_before_the_search(monkeypatch, fresh_cache):
    """The metric-set search (every metric's similarities at once) runs after Figure 3's metric
    points are drawn: when it fails, the figure is there and the error names the search."""
    from test_pages import _charts, _open

    from evalcore.views import likeness_vs_acceptability as lva

    def boom(*a, **k):
        raise RuntimeError("search broke")

    monkeypatch.setattr(lva, "metric_set_search", boom)
    at = _open("likeness_vs_acceptability", {"lva_boot": 0, "lva_metrics": ["bleu", "chrf"]}, check_errors=False)
    charts = _charts(at)
    assert len(charts) == 1
    groups = {tr.get("name") for tr in charts[0]["data"]}
    assert any("QUEEN" in str(g) for g in groups) and not any("selected" in str(g) for g in groups), groups
    assert any("The search failed" in e.value and "search broke" in e.value for e in at.error)


def test_queen_vs_human_draws_a_provisional_figure_before_the_search(monkeypatch, fresh_cache):
    """Without a metric set from the Likeness page, the greedy search (every default metric's
    similarities) runs after a provisional Figure 4 for the first metric alone, labelled as such;
    the selected set's figure then replaces it (one figure on the page)."""
    from test_pages import _charts, _open

    from evalcore.present import plots
    from evalcore.views import likeness_vs_acceptability as lva

    order = []
    real_fig, real_search = plots.figure4, lva.metric_set_search
    monkeypatch.setattr(plots, "figure4", lambda *a, **k: order.append(a[4] if len(a) > 4 else k.get("set_label"))
                        or real_fig(*a, **k))
    monkeypatch.setattr(lva, "metric_set_search", lambda *a, **k: order.append("search") or real_search(*a, **k))
    at = _open("queen_vs_human")
    chosen = at.multiselect(key="qvh_set").value
    assert order == ["QUEEN{bleu}", "search", "QUEEN{" + ",".join(chosen) + "}"]
    assert len(_charts(at)) == 1 and not any("Provisional" in c.value for c in at.caption)
    order.clear()
    at.run()  # the search is cached: no provisional figure any more
    assert "QUEEN{bleu}" not in order and "search" not in order
