"""A view that needs an optional query field says so (evalcore.views.fields.required)."""
from __future__ import annotations

import pandas as pd
import pytest

from evalcore.views import compare as compare_view
from evalcore.views import verdict as verdict_view
from evalcore.views.fields import required


def test_required_returns_a_set_field_and_names_a_missing_one():
    q = verdict_view.VerdictQuery("hash", criterion="da")
    assert required(q, "criterion") == "da"
    with pytest.raises(ValueError, match=r"^VerdictQuery\.criterion is not set"):
        required(verdict_view.VerdictQuery("hash"), "criterion")


def test_an_empty_string_is_set():
    # only None means "not picked": "" is a value the view passes on as it is
    assert required(compare_view.CompareQuery("hash", signal=""), "signal") == ""


def test_a_view_refuses_a_query_without_its_signal_before_plotting():
    seg = pd.DataFrame({"seg_id": ["1"], "Δ BLEU": [1.0]})
    with pytest.raises(ValueError, match=r"CompareQuery\.signal is not set"):
        compare_view.compare_differences(seg, compare_view.CompareQuery("hash"))
