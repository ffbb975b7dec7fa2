"""The detection section of the Metrics task page under Streamlit's AppTest (the sample
dataset): its table is the one evalcore.analysis.detect computes for the same options (whose
numbers tests/test_detect.py checks against scikit-learn)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = str(ROOT / "app.py")


def _page():
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["mt_metrics"] = ["bleu", "chrf"]
    at.run()
    at.switch_page("pages/metatask.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_detect_section_matches_the_engine():
    from evalcore.analysis.detect import detect
    from evalcore.io import load_collection
    from evalcore.scoring.scores import segment_scores
    from evalcore.scoring.settings import DEFAULTS

    at = _page()
    assert not [df for df in at.dataframe if "auprc" in df.value.columns]  # off until asked for
    at.toggle(key="mt_detect_on").set_value(True).run()
    at.selectbox(key="mt_detect_task").set_value("critical").run()
    assert not at.exception, [e.message for e in at.exception]
    human = at.selectbox(key="mt_detect_human").value
    got = next(df.value for df in at.dataframe if "auprc" in df.value.columns)
    coll = load_collection(SAMPLE)
    seg = {lp: segment_scores(ds, ["bleu", "chrf"]) for lp, ds in coll.items()}
    want = detect(coll, "critical", human, seg, DEFAULTS).table
    assert got["metric"].tolist() == want["metric"].tolist() == ["bleu", "chrf"]
    for col in ("n", "positives", "threshold", "f1", "mcc"):
        np.testing.assert_allclose(got[col].to_numpy(dtype=float), want[col].to_numpy(dtype=float), atol=1e-12)
    assert pd.isna(got["auroc"]).all() == pd.isna(want["auroc"]).all()


def test_detect_section_says_why_error_free_is_not_possible():
    at = _page()
    at.toggle(key="mt_detect_on").set_value(True).run()
    at.selectbox(key="mt_detect_task").set_value("error-free").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("needs error spans" in e.value for e in at.error)
