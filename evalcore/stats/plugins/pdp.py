"""Pairwise difference Pearson (PDP), the WMT25 metrics task's Pearson variant (methods §22.1).

Within each group of the grouping (``item``: the outputs of one segment; ``sys``: one system's
segments; ``none``: every cell together, as mt-metrics-eval's ``Pearson(pdp=True)`` on its flat
vectors), every ordered pair of scored cells (i, j) gives the human difference h_i − h_j and the
metric difference m_i − m_j; PDP is Pearson's r over the differences of every group pooled into
one list (Freitag et al. 2025, findings of the WMT25 metrics task; mt-metrics-eval
``stats.AverageCorrelation._enumerate_pairwise_diffs``). It asks whether the metric separates
the translations the humans separate, by as much, rather than whether it tracks the absolute
scores across segments of different difficulty.

The list holds each pair in both orders (and each cell against itself), so both coordinates have
mean 0 and r is the uncentred ratio Σ Δh·Δm / √(Σ Δh² · Σ Δm²) over unordered pairs, which is
computed here from per-group sums: Σ_{i<j}(x_i − x_j)(y_i − y_j) = n · Σ_i (x_i − x̄)(y_i − ȳ)
over a group's n scored cells. A gold value missing (NaN) removes that cell's pairs. The value is
NaN when every human difference (or every metric difference) is 0, as scipy's Pearson on a
constant input.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import Statistic, register


def pdp_value(g: np.ndarray, m: np.ndarray) -> float:
    """PDP of (G, L) group matrices (NaN = missing gold): one value over every group's pairs."""
    g = np.asarray(g, dtype=float)
    m = np.asarray(m, dtype=float)
    ok = ~np.isnan(g) & ~np.isnan(m)
    n = ok.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        gm = np.where(ok, g, 0.0).sum(1) / np.maximum(n, 1)
        mm = np.where(ok, m, 0.0).sum(1) / np.maximum(n, 1)
    gc = np.where(ok, g - gm[:, None], 0.0)
    mc = np.where(ok, m - mm[:, None], 0.0)
    sxy = float((n * (gc * mc).sum(1)).sum())
    sxx = float((n * (gc * gc).sum(1)).sum())
    syy = float((n * (mc * mc).sum(1)).sum())
    if sxx <= 0 or syy <= 0:
        return float("nan")
    return float(np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0))


def rows_pdp(g: np.ndarray, m: np.ndarray, **_: Any) -> tuple[np.ndarray, None]:
    """The registry's row function: PDP pools the groups' pairs into one Pearson, so every group
    carries the pooled value (their average is that value)."""
    return np.full(len(g), pdp_value(g, m)), None


register(Statistic(
    "pdp", "pairwise difference Pearson (PDP)", rows_pdp,
    citation="Freitag et al. 2025 (WMT25 metrics findings); MTME stats.Pearson(pdp=True)", section="§22.1",
    term="PDP",
    definition="Pearson correlation of the pairwise differences between translations' human scores and "
               "their metric scores, pooled over the groups (with --grouping item: the outputs of one "
               "segment) (Freitag et al. 2025; methods §22.1).",
    # mt-metrics-eval AverageCorrelation(scipy.stats.pearsonr, grouping, pdp=True) on the registry's example
    example=(("none", 0.8131113958498328, "mt-metrics-eval AverageCorrelation(pearsonr, 'none', pdp=True)"),
             ("item", 0.8391573191462569, "mt-metrics-eval AverageCorrelation(pearsonr, 'item', pdp=True)"))))
