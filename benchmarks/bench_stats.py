"""Timing of the correlation statistics on a WMT-sized segment matrix (10 systems x 1418 items).

Run: python benchmarks/bench_stats.py   (synthetic data, seed 0; prints a table)
"""
import time

import numpy as np

from evalcore.stats import bootstrap_ci, correlation, perm_both

rng = np.random.default_rng(0)
G = rng.normal(size=(10, 1418)).round(1)
G[rng.random(G.shape) < 0.05] = np.nan
M1 = np.nan_to_num(G) + rng.normal(size=G.shape)
M2 = np.nan_to_num(G) + rng.normal(scale=2, size=G.shape)

cases = [
    ("pearson item", lambda: correlation(G, M1, "pearson", "item")),
    ("kendall item", lambda: correlation(G, M1, "kendall", "item")),
    ("kendall none (14k cells)", lambda: correlation(G, M1, "kendall", "none")),
    ("acc23 item + tie calibration", lambda: correlation(G, M1, "acc23", "item", tie_calibration=True)),
    ("darr item", lambda: correlation(G * 30, M1, "darr", "item")),
    ("bootstrap both k=1000, pearson none", lambda: bootstrap_ci(G, M1, "pearson", "none", k=1000)),
    ("bootstrap both k=1000, kendall item", lambda: bootstrap_ci(G, M1, "kendall", "item", k=1000)),
    ("perm_both k=1000 (no early stop), pearson item",
     lambda: perm_both(G, M2, M1, "pearson", "item", k=1000, early_min=-1, early_max=2)),
]
print(f"{'case':50s} {'seconds':>8s}")
for name, fn in cases:
    t = time.perf_counter()
    fn()
    print(f"{name:50s} {time.perf_counter() - t:8.3f}")
