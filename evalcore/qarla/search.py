"""Metric-set search by KING (methods §0, §1.4; Amigó et al. 2006 §3.3).

* :func:`greedy_search` — rank metrics by their single-metric KING (QUEEN-based, §1.3 with
  X = {x}, by default; ``rank_by="direct"`` uses the §1.1 KING of the metric's own
  multi-reference score), ties broken by name; start from the best; add each next metric
  only if the set's KING strictly increases; one pass. Returns the set and the whole trace.
* :func:`exhaustive_search` — KING of every non-empty subset (≤ 12 metrics), best first
  (ties: fewer metrics, then names).
* :func:`coverage` — share of a metric's single-reference similarities that are defined where
  both texts exist (syntactic sub-metrics are undefined when neither text has the type,
  methods §1.5 [A]).

Guard (docs/findings.md, "Why ≥ picks sparse sub-metrics"): QUEEN counts a comparison with an
undefined side as failed (§1.2), so a metric undefined almost everywhere gives every candidate
QUEEN 0 and, with ≥ ties, KING 1 (§1.1: a constant metric is "perfect" under ≥). Before the
search, both functions therefore leave out (and report in ``SearchResult.excluded``)

* metrics with :func:`coverage` below ``min_coverage`` (default 0.95; 0 disables), and
* with ``exclude_degenerate`` (default), metrics whose single-metric QUEEN-based KING is ≥ 0.99
  while their tie rate is ≥ 0.9 ("degenerate: decided by ties").

A metric defined wherever its texts exist (every lexical metric) has coverage 1, so for
non-degenerate metrics the search is exactly methods §0.

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
#: default minimum :func:`coverage` of a search candidate
MIN_COVERAGE = 0.95
#: a candidate is "degenerate: decided by ties" when its single-metric KING is ≥ DEGENERATE_KING
#: and its tie rate ≥ DEGENERATE_TIE_RATE (docs/findings.md)
DEGENERATE_KING = 0.99
DEGENERATE_TIE_RATE = 0.9
_EXCLUDED_COLS = ["metric", "coverage", "king_single", "tie_rate", "reason"]


def inferred_presence(t) -> tuple[np.ndarray, np.ndarray]:
    """``(sys_present [n_sys, n_seg], ref_present [n_seg, n_ref])`` read off one SimTensors: a
    text counts as present when any of its similarities (single- or multi-reference) is
    finite. Used when no dataset is at hand; a metric undefined for *every* pair of some text
    makes that text look absent, so prefer :func:`text_presence` (or the union over several
    metrics, as :class:`~evalcore.qarla.queen.QueenLayout` does)."""
    sr = np.asarray(t.sys_ref, float)
    rr = np.asarray(t.ref_ref, float)
    fr = np.isfinite(rr)
    ref_present = fr.any(axis=2) | fr.any(axis=1) | np.isfinite(np.asarray(t.loo_ref, float))
    ref_present |= np.isfinite(sr).any(axis=0)
    sys_present = np.isfinite(sr).any(axis=2) | np.isfinite(np.asarray(t.loo_sys, float)).any(axis=2)
    return sys_present, ref_present


def text_presence(dataset, t) -> tuple[np.ndarray, np.ndarray]:
    """``(sys_present, ref_present)`` on the axes of ``t`` (its systems, seg_ids, ref_ids) from
    the texts of ``dataset`` (``Dataset.sys_texts`` / ``ref_texts``: None = missing)."""
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    idx = [pos.get(str(s)) for s in t.seg_ids]
    sys_t, ref_t = dataset.sys_texts(), dataset.ref_texts()

    def row(texts):
        if texts is None:
            return np.zeros(len(idx), bool)
        return np.array([i is not None and texts[i] is not None for i in idx], bool)

    sys_present = np.array([row(sys_t.get(a)) for a in t.systems], bool).reshape(len(t.systems), len(idx))
    ref_present = np.array([row(ref_t.get(r)) for r in t.ref_ids], bool).reshape(len(t.ref_ids), len(idx)).T
    return sys_present, ref_present


def coverage(t, sys_present: np.ndarray | None = None, ref_present: np.ndarray | None = None) -> float:
    """Share of the single-reference similarities of ``t`` that are defined (not NaN), among the
    cells whose two texts exist: ``sys_ref[a, s, j]`` where output a_s and reference r_j exist,
    and ``ref_ref[s, i, j]``, i ≠ j, where both references exist. These are the similarities
    QUEEN compares (methods §1.2: x(c, r) ≥ x(r', r'')); a syntactic sub-metric is undefined
    where neither text has its type (methods §1.5 [A]). NaN when no such cell exists.

    ``sys_present`` [n_sys, n_seg] / ``ref_present`` [n_seg, n_ref]: which texts exist (e.g.
    :func:`text_presence`); by default :func:`inferred_presence` of ``t`` itself."""
    if sys_present is None or ref_present is None:
        inf_sys, inf_ref = inferred_presence(t)
        sys_present = inf_sys if sys_present is None else sys_present
        ref_present = inf_ref if ref_present is None else ref_present
    sr = np.asarray(t.sys_ref, float)
    rr = np.asarray(t.ref_ref, float)
    sys_present = np.asarray(sys_present, bool)
    ref_present = np.asarray(ref_present, bool)
    n_ref = rr.shape[-1]
    ms = sys_present[:, :, None] & ref_present[None, :, :]
    mr = ref_present[:, :, None] & ref_present[:, None, :] & ~np.eye(n_ref, dtype=bool)[None]
    den = int(ms.sum() + mr.sum())
    if den == 0:
        return float("nan")
    num = int((np.isfinite(sr) & ms).sum() + (np.isfinite(rr) & mr).sum())
    return num / den


@dataclass
class SearchResult:
    method: str  # "greedy" | "exhaustive"
    chosen: list[str]
    king: float
    orange: float
    # candidates only: metric, king_single (QUEEN-based), [king_direct (§1.1),] rank, coverage,
    # tie_rate (of the single-metric QUEEN), degenerate
    ranking: pd.DataFrame
    # greedy: step, metric, king_single, king_before, king_after, orange_after, kept, coverage;
    # exhaustive: set, size, king, orange, coverage (the lowest of the set's metrics)
    trace: pd.DataFrame
    settings: dict = field(default_factory=dict)
    # metrics left out before the search: metric, coverage, king_single, tie_rate, reason
    excluded: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_EXCLUDED_COLS))


def _index(tensors_by_metric, index, mode, queen_ties, progress, offset, total):
    if index is not None:
        return index
    def cb(done, _n):
        progress(offset + done, total)

    return QueenIndex(tensors_by_metric, mode=mode, ties=queen_ties, progress=cb if progress else None)


def _is_degenerate(king: float, tie_rate: float) -> bool:
    return bool(np.isfinite(king) and np.isfinite(tie_rate) and king >= DEGENERATE_KING
                and tie_rate >= DEGENERATE_TIE_RATE)


def _screen(idx: QueenIndex, names, ties, average, direct, presence, min_coverage, exclude_degenerate,
            progress, offset, total):
    """Coverage, single-metric KING (QUEEN-based, §1.3; and direct §1.1 when ``direct``) and tie
    rate of every metric; returns (table, candidates, excluded)."""
    if presence is None:
        sys_p, ref_p = idx.layout.sys_present, idx.layout.ref_present
    else:
        sys_p, ref_p = presence
    rows = []
    for n, name in enumerate(names):
        t = idx.tensors[name]
        q = idx.king([name], ties=ties, average=average, baselines=False)
        row = {"metric": name, "king_single": q.king}
        if direct:
            row["king_direct"] = orange_king_arrays(t.loo_ref, t.loo_sys, ties=ties, average=average,
                                                    baselines=False).king
        row.update(coverage=coverage(t, sys_p, ref_p), tie_rate=q.tie_rate,
                   degenerate=_is_degenerate(q.king, q.tie_rate))
        rows.append(row)
        if progress:
            progress(offset + n + 1, total)
    tab = pd.DataFrame(rows, columns=["metric", "king_single"] + (["king_direct"] if direct else [])
                       + ["coverage", "tie_rate", "degenerate"])
    cand, excl = [], []
    for r in rows:
        reason = None
        if min_coverage and np.isfinite(r["coverage"]) and r["coverage"] < min_coverage:
            reason = f"coverage {r['coverage']:.3f} < {min_coverage:g}"
        elif exclude_degenerate and r["degenerate"]:
            reason = (f"degenerate: decided by ties (KING {r['king_single']:.3f}, "
                      f"tie rate {r['tie_rate']:.3f})")
        if reason is None:
            cand.append(r["metric"])
        else:
            excl.append({"metric": r["metric"], "coverage": r["coverage"], "king_single": r["king_single"],
                         "tie_rate": r["tie_rate"], "reason": reason})
    excluded = pd.DataFrame(excl, columns=_EXCLUDED_COLS)
    if not cand:
        detail = "; ".join(f"{e['metric']}: {e['reason']}" for e in excl[:10])
        raise ValueError(f"every candidate metric was excluded before the search ({detail}"
                         f"{'; …' if len(excl) > 10 else ''}); lower min_coverage (0 disables) or "
                         "keep degenerate metrics")
    return tab, cand, excluded


def _ranking(tab: pd.DataFrame, cand, rank_by):
    rk = tab[tab["metric"].isin(cand)].copy()
    key = "king_single" if rank_by == "queen" else "king_direct"
    rk["_k"] = rk[key].fillna(-np.inf)
    rk = rk.sort_values(["_k", "metric"], ascending=[False, True], kind="stable").drop(columns="_k")
    rk.insert(3, "rank", np.arange(1, len(rk) + 1))
    return rk.reset_index(drop=True)


def greedy_search(tensors_by_metric: Mapping | None, mode: str = "auto", queen_ties: str = "geq", ties: str = "geq",
                  average: str = "micro", rank_by: str = "queen",
                  progress: Callable[[int, int], None] | None = None,
                  index: QueenIndex | None = None, min_coverage: float = MIN_COVERAGE,
                  exclude_degenerate: bool = True,
                  presence: tuple[np.ndarray, np.ndarray] | None = None) -> SearchResult:
    """Greedy KING-driven metric-set selection (methods §0, §1.4; Amigó et al. 2006 §3.3).

    ``tensors_by_metric``: {name: SimTensors} on one dataset. ``mode`` / ``queen_ties``: how
    QUEEN is computed (§0.3); ``ties`` / ``average``: how KING compares QUEENs (§1.1).
    ``rank_by``: "queen" (single-metric KING of §1.3, the default) or "direct" (§1.1).
    ``min_coverage`` / ``exclude_degenerate``: the guard of the module docstring (excluded
    metrics are listed in ``result.excluded``); ``presence``: ``(sys_present, ref_present)``
    for :func:`coverage` (default: the index layout, i.e. the union over all metrics).
    Raises ValueError when the guard leaves no candidate.
    """
    if rank_by not in ("queen", "direct"):
        raise ValueError("rank_by must be 'queen' or 'direct'")
    if index is None and tensors_by_metric is None:
        raise ValueError("greedy_search needs the metrics' tensors or a QUEEN index")
    k = len(index.names) if index is not None else len(tensors_by_metric or {})
    built = 0 if index is not None else k
    # the step count is only known after screening; report with the upper bound, then finish
    total = built + k + max(k - 1, 0)
    idx = _index(tensors_by_metric, index, mode, queen_ties, progress, 0, total)
    tab, cand, excluded = _screen(idx, idx.names, ties, average, True, presence, min_coverage,
                                  exclude_degenerate, progress, built, total)
    rk = _ranking(tab, cand, rank_by)
    kc = len(cand)
    total = built + k + max(kc - 1, 0)
    order = rk["metric"].tolist()
    cov = dict(zip(rk["metric"], rk["coverage"]))
    chosen = [order[0]]
    cur_bits = idx.bits[order[0]]
    cur = idx.king(bits=cur_bits, ties=ties, average=average, baselines=False)
    trace = [{"step": 0, "metric": order[0], "king_single": rk.loc[0, "king_single"],
              "king_before": np.nan, "king_after": cur.king, "orange_after": cur.orange, "kept": True,
              "coverage": cov[order[0]]}]
    for step, name in enumerate(order[1:], start=1):
        bits = cur_bits & idx.bits[name]
        res = idx.king(bits=bits, ties=ties, average=average, baselines=False)
        before = cur.king
        kept = bool(np.isfinite(res.king) and (not np.isfinite(before) or res.king > before + _EPS))
        trace.append({"step": step, "metric": name, "king_single": rk.loc[step, "king_single"],
                      "king_before": before, "king_after": res.king, "orange_after": res.orange,
                      "kept": kept, "coverage": cov[name]})
        if kept:
            chosen.append(name)
            cur_bits, cur = bits, res
        if progress:
            progress(built + k + step, total)
    if progress and kc == 1:
        progress(total, total)
    return SearchResult("greedy", chosen, cur.king, cur.orange, rk, pd.DataFrame(trace),
                        {"mode": mode, "queen_ties": queen_ties, "ties": ties, "average": average,
                         "rank_by": rank_by, "min_coverage": min_coverage,
                         "exclude_degenerate": exclude_degenerate}, excluded)


def exhaustive_search(tensors_by_metric: Mapping | None, mode: str = "auto", queen_ties: str = "geq",
                      ties: str = "geq", average: str = "micro",
                      progress: Callable[[int, int], None] | None = None,
                      index: QueenIndex | None = None, max_metrics: int = EXHAUSTIVE_MAX,
                      min_coverage: float = MIN_COVERAGE, exclude_degenerate: bool = True,
                      presence: tuple[np.ndarray, np.ndarray] | None = None) -> SearchResult:
    """KING of every non-empty subset of the metrics (methods §0 / issue: ≤ 12 metrics).

    Subsets are visited depth-first so each one is its parent's bits AND one metric. The
    chosen set has the highest KING; ties go to fewer metrics, then to the alphabetically
    first sorted name tuple. ``trace`` lists every subset (best first). ``min_coverage`` /
    ``exclude_degenerate`` / ``presence``: the guard, as in :func:`greedy_search`; the
    ``max_metrics`` limit applies to the metrics that remain.
    """
    if index is None and tensors_by_metric is None:
        raise ValueError("exhaustive_search needs the metrics' tensors or a QUEEN index")
    names = sorted(index.names if index is not None else (tensors_by_metric or {}))
    k = len(names)
    if k > max_metrics and not min_coverage and not exclude_degenerate:  # nothing can be left out
        raise ValueError(f"exhaustive search over {k} metrics means {2**k - 1} subsets; "
                         f"the limit is {max_metrics} metrics (use greedy_search)")
    built = 0 if index is not None else k
    total = built + k + 2 ** min(k, max_metrics) - 1
    idx = _index(tensors_by_metric, index, mode, queen_ties, progress, 0, total)
    tab, cand, excluded = _screen(idx, names, ties, average, False, presence, min_coverage,
                                  exclude_degenerate, progress, built, total)
    kc = len(cand)
    if kc > max_metrics:
        raise ValueError(f"exhaustive search over {kc} metrics means {2**kc - 1} subsets; "
                         f"the limit is {max_metrics} metrics (use greedy_search)")
    total = built + k + 2 ** kc - 1
    done0 = built + k
    cov = dict(zip(tab["metric"], tab["coverage"]))
    rows = []

    def visit(start, prefix, bits, low):
        for i in range(start, kc):
            b = idx.bits[cand[i]] if bits is None else bits & idx.bits[cand[i]]
            sub = prefix + [cand[i]]
            c = min(low, cov[cand[i]])
            res = idx.king(bits=b, ties=ties, average=average, baselines=False)
            rows.append({"set": ",".join(sub), "size": len(sub), "king": res.king, "orange": res.orange,
                         "coverage": c})
            if progress:
                progress(done0 + len(rows), total)
            visit(i + 1, sub, b, c)

    visit(0, [], None, np.inf)
    tr = pd.DataFrame(rows)
    tr["_k"] = tr["king"].fillna(-np.inf)
    tr = tr.sort_values(["_k", "size", "set"], ascending=[False, True, True], kind="stable")
    tr = tr.drop(columns="_k").reset_index(drop=True)
    best = tr.iloc[0]
    rk = tab[tab["metric"].isin(cand)].reset_index(drop=True)
    return SearchResult("exhaustive", best["set"].split(","), float(best["king"]), float(best["orange"]),
                        rk, tr, {"mode": mode, "queen_ties": queen_ties, "ties": ties, "average": average,
                                 "min_coverage": min_coverage, "exclude_degenerate": exclude_degenerate},
                        excluded)
