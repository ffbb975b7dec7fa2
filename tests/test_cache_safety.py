"""Analysis caches cannot run code: a cache file replaced by a pickle
payload that would create a file is never executed; the value is recomputed and equals a fresh
computation with the cache off."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from conftest import SAMPLE


class _Payload:
    """Unpickling this creates the marker file (what an attacker's cache file would do)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _compute(ds):
    from evalcore.scoring import scores as scores_view
    from evalcore.views import systems as systems_view

    return (scores_view.segment_scores(ds, ["bleu", "per"]),
            scores_view.system_stats(ds, ["bleu"]),
            systems_view.system_table(ds, ["bleu"], criteria=["adequacy"], n_boot=5))


def _same(a, b):
    seg_a, stats_a, tab_a = a
    seg_b, stats_b, tab_b = b
    pd.testing.assert_frame_equal(seg_a, seg_b)
    pd.testing.assert_frame_equal(tab_a, tab_b)
    assert stats_a.keys() == stats_b.keys()
    for m in stats_a:
        assert stats_a[m].keys() == stats_b[m].keys()
        for name in stats_a[m]:
            assert list(stats_a[m][name][0]) == list(stats_b[m][name][0])
            np.testing.assert_array_equal(stats_a[m][name][1], stats_b[m][name][1])


def test_cache_read_back_and_tampered_cache_not_executed(fresh_cache, tmp_path, monkeypatch):
    from evalcore.scoring import scores as scores_view
    from evalcore.views import systems as systems_view
    from evalcore.io import load_dataset
    from evalcore.metrics import engine

    first = _compute(load_dataset(str(SAMPLE)))  # computed in an empty cache folder
    files = [p for p in (fresh_cache / "analysis").rglob("*") if p.is_file()]
    assert files and not any(p.suffix == ".pkl" for p in files)

    def no_recompute(*a, **k):
        raise AssertionError("recomputed although cached")
    with monkeypatch.context() as mp:  # read back: the cache alone answers, with equal values
        for mod, name in ((engine, "score_table"), (scores_view, "_stats_for"), (systems_view, "_system_table")):
            mp.setattr(mod, name, no_recompute)
        _same(first, _compute(load_dataset(str(SAMPLE))))

    marker = tmp_path / "pwned"
    for p in files:  # an attacker who can write to the cache folder replaces every file
        with open(p, "wb") as fh:
            pickle.dump(_Payload(str(marker)), fh)
        # and plants pickles under the names a pickle cache would use
        with open(p.with_suffix(".pkl"), "wb") as fh:
            pickle.dump(_Payload(str(marker)), fh)
    again = _compute(load_dataset(str(SAMPLE)))
    assert not marker.exists(), "a cache file was unpickled: code from the cache folder ran"
    _same(first, again)
