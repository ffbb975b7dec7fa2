"""Metric-set search by KING (spec §0.5, §1.4; seed 000 §3.3).

* :func:`greedy_search` — rank metrics by their single-metric KING (QUEEN-based, §1.3 with
  X = {x}, by default; ``rank_by="direct"`` uses the §1.1 KING of the metric's own
  multi-reference score), ties broken by name; start from the best; add each next metric
  only if the set's KING strictly increases; one pass. Returns the set and the whole trace.
* :func:`exhaustive_search` — KING of every non-empty subset (≤ 12 metrics), best first
  (ties: fewer metrics, then names).

Both accept ``progress(done, total)`` and reuse one :class:`~evalcore.qarla.queen.QueenIndex`
(bits per metric; a set is an AND), so each step is a bitwise AND plus a count.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from .queen import QueenIndex
from .single import orange_king_arrays

EXHAUSTIVE_MAX = 12
_EPS = 1e-12


@dataclass
class SearchResult:
    method: str  # "greedy" | "exhaustive"
    chosen: list[str]
    king: float
    orange: float
    ranking: pd.DataFrame  # metric, king_single (QUEEN-based), king_direct (§1.1), rank
    trace: pd.DataFrame  # greedy: step, metric, king_before, king_after, kept; exhaustive: set, size, king
    settings: dict = field(default_factory=dict)


def _index(tensors_by_metric, index, mode, queen_ties, progress, offset, total):
    if index is not None:
        return index
    def cb(done, _n):
        progress(offset + done, total)

    return QueenIndex(tensors_by_metric, mode=mode, ties=queen_ties, progress=cb if progress else None)


def _ranking(idx: QueenIndex, tensors_by_metric, ties, average, rank_by, progress, offset, total):
    rows = []
    for n, name in enumerate(idx.names):
        ks = idx.king([name], ties=ties, average=average, baselines=False).king
        kd = orange_king_arrays(idx.tensors[name].loo_ref, idx.tensors[name].loo_sys, ties=ties,
                                average=average, baselines=False).king
        rows.append({"metric": name, "king_single": ks, "king_direct": kd})
        if progress:
            progress(offset + n + 1, total)
    rk = pd.DataFrame(rows, columns=["metric", "king_single", "king_direct"])
    key = "king_single" if rank_by == "queen" else "king_direct"
    rk["_k"] = rk[key].fillna(-np.inf)
    rk = rk.sort_values(["_k", "metric"], ascending=[False, True], kind="stable").drop(columns="_k")
    rk["rank"] = np.arange(1, len(rk) + 1)
    return rk.reset_index(drop=True)


def greedy_search(tensors_by_metric: Mapping, mode: str = "auto", queen_ties: str = "geq", ties: str = "geq",
                  average: str = "micro", rank_by: str = "queen",
                  progress: Callable[[int, int], None] | None = None,
                  index: QueenIndex | None = None) -> SearchResult:
    """Greedy KING-driven metric-set selection (spec §0.5, §1.4; seed 000 §3.3).

    ``tensors_by_metric``: {name: SimTensors} on one dataset. ``mode`` / ``queen_ties``: how
    QUEEN is computed (§0.3); ``ties`` / ``average``: how KING compares QUEENs (§1.1).
    ``rank_by``: "queen" (single-metric KING of §1.3, the default) or "direct" (§1.1).
    """
    if rank_by not in ("queen", "direct"):
        raise ValueError("rank_by must be 'queen' or 'direct'")
    k = len(tensors_by_metric) if index is None else len(index.names)
    total = (0 if index is not None else k) + k + max(k - 1, 0)
    idx = _index(tensors_by_metric, index, mode, queen_ties, progress, 0, total)
    built = 0 if index is not None else k
    rk = _ranking(idx, tensors_by_metric, ties, average, rank_by, progress, built, total)
    order = rk["metric"].tolist()
    chosen = [order[0]]
    cur_bits = idx.bits[order[0]]
    cur = idx.king(bits=cur_bits, ties=ties, average=average, baselines=False)
    trace = [{"step": 0, "metric": order[0], "king_single": rk.loc[0, "king_single"],
              "king_before": np.nan, "king_after": cur.king, "orange_after": cur.orange, "kept": True}]
    for step, name in enumerate(order[1:], start=1):
        bits = cur_bits & idx.bits[name]
        res = idx.king(bits=bits, ties=ties, average=average, baselines=False)
        before = cur.king
        kept = bool(np.isfinite(res.king) and (not np.isfinite(before) or res.king > before + _EPS))
        trace.append({"step": step, "metric": name, "king_single": rk.loc[step, "king_single"],
                      "king_before": before, "king_after": res.king, "orange_after": res.orange,
                      "kept": kept})
        if kept:
            chosen.append(name)
            cur_bits, cur = bits, res
        if progress:
            progress(built + k + step, total)
    return SearchResult("greedy", chosen, cur.king, cur.orange, rk, pd.DataFrame(trace),
                        {"mode": mode, "queen_ties": queen_ties, "ties": ties, "average": average,
                         "rank_by": rank_by})


def exhaustive_search(tensors_by_metric: Mapping, mode: str = "auto", queen_ties: str = "geq",
                      ties: str = "geq", average: str = "micro",
                      progress: Callable[[int, int], None] | None = None,
                      index: QueenIndex | None = None, max_metrics: int = EXHAUSTIVE_MAX) -> SearchResult:
    """KING of every non-empty subset of the metrics (spec §0.5 / issue: ≤ 12 metrics).

    Subsets are visited depth-first so each one is its parent's bits AND one metric. The
    chosen set has the highest KING; ties go to fewer metrics, then to the alphabetically
    first sorted name tuple. ``trace`` lists every subset (best first).
    """
    names = sorted(index.names if index is not None else tensors_by_metric)
    k = len(names)
    if k > max_metrics:
        raise ValueError(f"exhaustive search over {k} metrics means {2**k - 1} subsets; "
                         f"the limit is {max_metrics} metrics (use greedy_search)")
    n_sub = 2 ** k - 1
    total = (0 if index is not None else k) + n_sub
    idx = _index(tensors_by_metric, index, mode, queen_ties, progress, 0, total)
    built = 0 if index is not None else k
    rows = []

    def visit(start, prefix, bits):
        for i in range(start, k):
            b = idx.bits[names[i]] if bits is None else bits & idx.bits[names[i]]
            sub = prefix + [names[i]]
            res = idx.king(bits=b, ties=ties, average=average, baselines=False)
            rows.append({"set": ",".join(sub), "size": len(sub), "king": res.king, "orange": res.orange})
            if progress:
                progress(built + len(rows), total)
            visit(i + 1, sub, b)

    visit(0, [], None)
    tr = pd.DataFrame(rows)
    tr["_k"] = tr["king"].fillna(-np.inf)
    tr = tr.sort_values(["_k", "size", "set"], ascending=[False, True, True], kind="stable")
    tr = tr.drop(columns="_k").reset_index(drop=True)
    best = tr.iloc[0]
    rk = pd.DataFrame([{"metric": n, "king_single": tr.loc[tr["set"] == n, "king"].iloc[0]} for n in names])
    return SearchResult("exhaustive", best["set"].split(","), float(best["king"]), float(best["orange"]),
                        rk, tr, {"mode": mode, "queen_ties": queen_ties, "ties": ties, "average": average})
