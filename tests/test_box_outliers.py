"""The Divergence browser's box plot shows the outliers beyond Tukey's whiskers as points."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.present.plots import signal_by_system


def test_outliers_beyond_the_whiskers_are_drawn_as_points():
    a = [50, 52, 53, 55, 56, 58, 60, 5, 99]  # 5 and 99 lie beyond 1.5 IQR (hand: q1 52, q3 58, IQR 6)
    b = [70, 71, 72, 73, 74]                 # no outlier
    t = pd.DataFrame({"system": ["A"] * len(a) + ["B"] * len(b), "human:esa": a + b})
    fig = signal_by_system(t, "human:esa")
    box, pts = fig.data[0], fig.data[1]
    assert pts.name == "outliers" and pts.mode == "markers"
    assert sorted(zip(pts.x, pts.y)) == [("A", 5.0), ("A", 99.0)]
    q1, q3 = np.percentile(a, [25, 75])
    assert (q1, q3) == (52.0, 58.0)
    assert list(box.lowerfence) == [50.0, 70.0] and list(box.upperfence) == [60.0, 74.0]
