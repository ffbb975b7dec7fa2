"""Say why a correlation is undefined or says nothing, instead of an empty cell or a bare ±1.

Pearson r, Kendall τ and pairwise accuracy need at least two systems that differ on both sides:
a metric (or human criterion) that gives every system the same score has zero variance and the
correlation is undefined (0/0; Pearson 1895, Kendall 1938); with two systems every correlation
is ±1 and a bootstrap over systems can only draw that value again (Deutsch, Dror & Roth 2021
§3: the percentile bootstrap needs enough units to resample); below three systems Williams'
test has no degrees of freedom (n − 3; Williams 1959). Every page and command states these
notes beside the empty or degenerate value (on stderr for the commands). Nothing here imports
streamlit.
"""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

#: Fewer systems than this: a correlation is stated but flagged as degenerate.
MIN_SYSTEMS = 3


def _constant(x: np.ndarray) -> bool:
    x = x[~np.isnan(x)]
    return len(x) > 0 and bool(np.all(x == x[0]))


def correlation_notes(metric: str, method: str, gold: npt.ArrayLike, scores: npt.ArrayLike, value: float,
                      ci: tuple[float, float] | None = None, unit: str = "system") -> list[str]:
    """Notes explaining an undefined (NaN) or degenerate correlation of ``metric`` with the humans
    over the paired vectors ``gold``/``scores`` (one entry per ``unit``); empty when the value
    is an ordinary one."""
    g = np.asarray(gold, dtype=float).ravel()
    m = np.asarray(scores, dtype=float).ravel()
    ok = ~np.isnan(g) & ~np.isnan(m)
    g, m = g[ok], m[ok]
    n = len(g)
    notes = []
    nan = value is None or (isinstance(value, float) and math.isnan(value))
    if n < 2:
        notes.append(f"{metric} {method}: undefined: {n} {unit}(s) with both a human and a metric score "
                     "(a correlation needs at least 2, and 3 to mean anything)")
        return notes
    if _constant(m):
        notes.append(f"{metric} {method}: undefined: the metric gives all {n} {unit}s the same score "
                     f"({m[0]:.6g}; zero variance)")
    if _constant(g):
        notes.append(f"{metric} {method}: undefined: the humans give all {n} {unit}s the same score "
                     f"({g[0]:.6g}; zero variance)")
    if n < MIN_SYSTEMS and not notes and nan:
        notes.append(f"{metric} {method}: undefined: only {n} {unit}s (at least {MIN_SYSTEMS} are needed)")
    if n < MIN_SYSTEMS and not notes:
        ci_text = f" and its CI [{ci[0]:.3g}, {ci[1]:.3g}]" if ci and not any(map(math.isnan, ci)) else ""
        notes.append(f"{metric} {method}: degenerate: with {n} {unit}s every correlation is ±1; the value"
                     f"{ci_text} say nothing about agreement (at least {MIN_SYSTEMS} needed)")
    if nan and not notes:
        notes.append(f"{metric} {method}: undefined on these {n} {unit}s (no pair of {unit}s that both sides "
                     "order)")
    return notes


def test_notes(n: int, test: str) -> list[str]:
    """Why a test between two metrics' correlations cannot be run on ``n`` systems."""
    if test == "williams" and n <= 3:
        return [f"Williams test: needs at least 4 systems (n − 3 degrees of freedom); {n} here"]
    if n < MIN_SYSTEMS:
        return [f"{test} test: {n} system(s) cannot tell two metrics apart"]
    return []
