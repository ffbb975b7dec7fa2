"""The calibration section (pages/sections/calibration.py) on the Systems and Compare pages under
AppTest: made on request, the sentence is the one evalcore.analysis.calibrate writes for the same
data, settings and difference, with the curve figure and the summary table."""
from __future__ import annotations

import html
import os

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT, SAMPLE

APP = os.environ.get("EVALCORE_TEST_APP", str(ROOT / "app.py"))


@pytest.mark.parametrize("page,key,state", [("systems", "sys_cal", {"sys_boot": 0, "sys_metrics": ["chrf"]}),
                                            ("compare", "cmp_cal", {})])
def test_page_states_what_a_difference_means(page, key, state):
    from evalcore.analysis import calibrate as C
    from evalcore.io import load_collection

    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in state.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [i for i in at.info if "humans agree" in i.value]  # computed only on request
    at.button(key=f"{key}_go").click().run()
    assert not at.exception, [e.message for e in at.exception]
    metric = at.selectbox(key=f"{key}_metric").value
    at.number_input(key=f"{key}_delta_{metric}").set_value(2.0).run()
    assert not at.exception, [e.message for e in at.exception]
    (said,) = [i.value for i in at.info if "humans agree" in i.value]
    metrics = list(at.selectbox(key=f"{key}_metric").options)  # the page's metrics, in its order
    res = C.calibrate_datasets([load_collection(SAMPLE)["es-en"]], metrics, "adequacy", n_boot=200, seed=0)
    assert html.unescape(said.replace("\\", "")) == C.agreement_sentence(res.fits[("es-en", metric)], 2.0)
    assert any("delta_80" in df.value.columns for df in at.dataframe)
