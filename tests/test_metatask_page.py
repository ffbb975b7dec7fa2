"""The Metrics task page and the Campaign page's ranking expander under Streamlit's AppTest
(the sample dataset): the tables equal the engine's (tested against mt-metrics-eval in
test_metatask.py) and the ranking equals rank_systems (tested against scipy in
test_system_ranking.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = str(ROOT / "app.py")


def _open(page: str, state: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, (page, [e.message for e in at.exception])
    assert not at.error, [e.value for e in at.error]
    return at


def _table(at, column):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a column {column!r}")


def test_metatask_page_matches_the_engine():
    from evalcore.io import load_collection
    from evalcore.analysis.metatask import run_metatask

    at = _open("metatask", {"mt_metrics": ["bleu", "chrf"]})
    assert at.title[0].value == "Metrics task"
    t = _table(at, "average_rank")
    from evalcore.scoring.defaults import default_criterion

    coll = load_collection(SAMPLE)
    crit = default_criterion(next(iter(coll.values())))  # the sample has no MQM/ESA: the page's default
    assert at.selectbox(key="mt_human").value == crit
    res, _, _ = run_metatask(coll, "wmt24", metrics=["bleu", "chrf"], human=crit)
    want = res.table()
    assert t["metric"].tolist() == want["metric"].tolist()
    assert t["average"].to_numpy() == pytest.approx(want["average"].to_numpy(), abs=1e-12)
    spa = [c for c in t.columns if c.endswith(":sys:spa")]
    assert spa and t[spa[0]].to_numpy() == pytest.approx(want[spa[0]].to_numpy(), abs=1e-12)
    keys = [c.key for c in at.get("plotly_chart")]
    assert keys == ["mt_lead", "mt_values"]
    # no clusters computed (0 resamples, the default): a dash and a note, never "None"
    assert set(t["cluster"].astype(str)) == {"–"} and want["cluster"].isna().all()
    assert any("Clusters were not computed" in c.value for c in at.caption)
    # the task choice changes the table: wmt23 has the pooled accuracy column
    at.selectbox(key="mt_task").set_value("wmt23").run()
    assert not at.exception
    assert any(c.startswith("*:sys:accuracy") for c in _table(at, "average_rank").columns)


def test_campaign_ranking_expander_matches_rank_systems():
    from evalcore.human.scores import criterion_judgements
    from evalcore.io import load_collection
    from evalcore.stats.system_ranking import item_scores, rank_systems
    from evalcore.scoring.defaults import default_criterion

    at = _open("campaign", {"camp_metrics": ["chrf"]})
    at.toggle(key="camp_rank_on").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    t = _table(at, "rank_range")
    ds = next(iter(load_collection(SAMPLE).values()))
    r = rank_systems(item_scores(criterion_judgements(ds, default_criterion(ds))), {})
    assert t["system"].tolist() == r.systems
    assert t["score"].to_numpy() == pytest.approx(r.scores, abs=1e-12)
    assert t["cluster"].tolist() == list(r.clusters)
    charts = {c.key: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    heat = charts["camp_rank_heat"]["data"][0]
    assert heat["type"] == "heatmap" and len(heat["x"]) == len(r.systems)
    assert np.isfinite(r.pvalues[0, 1])


def test_systems_page_ranking_matches_rank_systems():
    """The Systems page's ranking expander (the same section as the Campaign page's) shows the
    WMT24-procedure ranking of rank_systems, here with the paired bootstrap."""
    from evalcore.human.scores import criterion_judgements
    from evalcore.io import load_collection
    from evalcore.stats.system_ranking import item_scores, rank_systems

    at = _open("systems", {"sys_metrics": ["bleu"], "sys_boot": 0})
    at.radio(key="sysrk_rank_test").set_value("bootstrap").run()
    at.toggle(key="sysrk_rank_on").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    crit = at.selectbox(key="sysrk_crit").value
    t = _table(at, "rank_range")
    ds = next(iter(load_collection(SAMPLE).values()))
    r = rank_systems(item_scores(criterion_judgements(ds, crit)), {}, test="bootstrap")
    assert t["system"].tolist() == r.systems
    assert t["cluster"].tolist() == list(r.clusters)
    assert "sysrk_rank_heat" in [c.key for c in at.get("plotly_chart")]


def test_metatask_page_opens_a_metric_in_the_divergence_browser():
    """The metric chosen under the leaderboard opens the Divergence browser with that metric as
    signal a and the task's human scores as signal b (session state, then st.switch_page)."""
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import default_criterion

    at = _open("metatask", {"mt_metrics": ["bleu", "chrf"]})
    assert set(at.selectbox(key="mt_div_metric").options) == {"bleu", "chrf"}  # the leaderboard's metrics
    at.selectbox(key="mt_div_metric").set_value("chrf").run()
    at.button(key="mt_div_open").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value == "Divergence browser"
    crit = default_criterion(next(iter(load_collection(SAMPLE).values())))
    assert at.selectbox(key="div_a").value == "metric:chrf"
    assert at.selectbox(key="div_b").value == f"human:{crit}"
    assert any("Opened from the Metrics task page" in i.value for i in at.info)
    assert "chrf" in at.multiselect(key="div_metrics").value
    # the ranked table is that of those two signals
    cols = set(_table(at, "divergence").columns)
    assert {"a = metric:chrf", f"b = human:{crit}"} <= cols
