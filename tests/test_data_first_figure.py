"""The Data page's first figure: the length histogram is binned in evalcore, and
every bar is the share of the texts of its kind whose length falls in the bar's bin, counted
here by a literal loop."""
from __future__ import annotations

import numpy as np
import pandas as pd

from conftest import SAMPLE, shared
from evalcore.io import load_dataset
from evalcore.present.plots import length_histogram


def _check(lengths: pd.DataFrame, max_bins: int = 80):
    fig = length_histogram(lengths, max_bins)
    kinds = list(dict.fromkeys(lengths.dropna(subset=["length"])["kind"]))
    assert [t.name for t in fig.data] == kinds
    for tr in fig.data:
        vals = [int(v) for v in lengths.loc[lengths["kind"] == tr.name, "length"].dropna()]
        width = int(tr.width)
        assert len(tr.x) <= max_bins
        total = 0.0
        for centre, pct in zip(tr.x, tr.y):
            lo = int(round(centre - (width - 1) / 2))
            n = sum(1 for v in vals if lo <= v < lo + width)
            assert pct == 100.0 * n / len(vals)
            total += pct
        assert abs(total - 100.0) < 1e-9  # every text is in one bin
    return fig


def test_bins_of_the_sample_and_of_wide_lengths():
    ds = load_dataset(SAMPLE)
    fig = _check(ds.length_table())
    assert fig.data[0].width == 1  # short texts: one bin per length
    rng = np.random.default_rng(0)
    wide = pd.DataFrame({"kind": ["source"] * 300 + ["output"] * 500,
                         "length": np.r_[rng.integers(1, 400, 300), rng.integers(3, 250, 500)].astype(float)})
    wide.loc[5, "length"] = np.nan  # a missing text is left out
    fig = _check(wide, max_bins=40)
    assert fig.data[0].width > 1


def test_wmt24_lengths_binned():
    ds = load_dataset(shared("wmt24_esa"), lp="en-cs")
    lengths = ds.length_table()
    fig = _check(lengths)
    assert sum(len(t.x) for t in fig.data) < len(lengths) / 20  # a few hundred numbers, not every length
