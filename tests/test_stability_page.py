"""The stability sections under Streamlit's AppTest (the sample dataset): the Metrics task page's
metric-ranking stability and the Systems page's human-ranking stability equal the engine's
(evalcore.analysis.stability, tested against the metatask and rank commands in test_stability.py)."""
from __future__ import annotations

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
    return at


def _table(at, column):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a column {column!r}")


def test_metatask_page_stability_equals_the_engine():
    from evalcore.analysis.stability import task_stability
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import default_criterion
    from evalcore.scoring.settings import DEFAULTS

    at = _open("metatask", {"mt_metrics": ["bleu", "chrf"], "mt_stab_boot": 10})
    assert not [c for c in at.get("plotly_chart") if c.key == "mt_stab_fig"]   # off until asked
    at.toggle(key="mt_stab_on").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    t = _table(at, "p_rank1")
    coll = load_collection(SAMPLE)
    crit = default_criterion(next(iter(coll.values())))
    want = task_stability(coll, "wmt24", DEFAULTS.with_(judged_only=False), lps=list(coll), metrics=["bleu", "chrf"],
                          human=crit, n_boot=10).table
    assert t["metric"].tolist() == want["metric"].tolist()
    assert t["p_rank1"].to_numpy() == pytest.approx(want["p_rank1"].to_numpy(), abs=1e-12)
    assert t["p_rank1"].sum() == pytest.approx(1.0)
    assert "mt_stab_fig" in [c.key for c in at.get("plotly_chart")]
    assert _table(at, "kendall_tau")["kind"].eq("bootstrap").sum() == 10


def test_systems_page_stability_equals_the_engine():
    from evalcore.analysis.stability import human_stability
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import default_criterion
    from evalcore.scoring.settings import DEFAULTS

    at = _open("systems", {"sysrk_stab_boot": 20})
    at.toggle(key="sysrk_stab_on").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    t = _table(at, "p_rank1")
    ds = next(iter(load_collection(SAMPLE).values()))
    want = human_stability(ds, default_criterion(ds), DEFAULTS, n_boot=20).table
    assert t["system"].tolist() == want["system"].tolist()
    assert t["p_rank1"].to_numpy() == pytest.approx(want["p_rank1"].to_numpy(), abs=1e-12)
    assert t["rank_hi"].tolist() == want["rank_hi"].tolist()
    assert "sysrk_stab_fig" in [c.key for c in at.get("plotly_chart")]


def test_metatask_page_baselines_equal_the_command(tmp_path):
    import pandas as pd

    from evalcore.cli import main
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import default_criterion

    at = _open("metatask", {"mt_metrics": ["bleu", "chrf"], "mt_base_second": "raters"})
    at.toggle(key="mt_base_on").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    t = _table(at, "ceiling_share")
    crit = default_criterion(next(iter(load_collection(SAMPLE).values())))
    out = tmp_path / "mt.tsv"
    assert main(["metatask", str(SAMPLE), "--task", "wmt24", "--metrics", "bleu,chrf", "--human", crit,
                 "--sentinels", "--human-ceiling", "raters", "--out", str(out)]) == 0
    want = pd.read_csv(out, sep="\t", keep_default_na=False, na_values=[""])
    assert t["metric"].tolist() == want["metric"].tolist()
    assert "human-ceiling" in t["metric"].tolist() and any(m.startswith("sentinel:") for m in t["metric"])
    for c in ("average", "ceiling_share", "sentinel_margin", "sentinel_p"):
        assert t[c].to_numpy(dtype=float) == pytest.approx(want[c].to_numpy(dtype=float), abs=1e-12, nan_ok=True), c
