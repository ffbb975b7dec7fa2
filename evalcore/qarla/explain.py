"""Explanations: why KING failed on a case, which triples a candidate won (methods §1.1-1.3).

* :func:`king_cases` — one row per (segment, held-out reference, system output): the
  scores of the reference and of the output against R_s − {r}, the margin, and whether the
  output beats, ties or stays below the reference. Works for a single metric
  (:class:`SimTensors`) and for a metric set (:class:`~evalcore.qarla.queen.QueenValues`,
  whose scores are leave-one-out QUEENs).
* :func:`king_case_summary` — one row per case: how many outputs beat / tied the
  reference, the case's KING credit and the closest competitor.
* :func:`queen_triples` — for one (system, segment), every triple (r, r', r'') with every
  metric's x(a, r) and x(r', r''), and whether the candidate won it.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .queen import MODES, QueenLayout, _as_list, _cmp
from .single import case_stats, king_credit, orange_credit


def king_cases(t) -> pd.DataFrame:
    """Tidy frame, one row per (seg_id, held_out, system) of every valid case (methods §1.1):
    ``ref_score`` x(r, R−{r}), ``sys_score`` x(a, R−{r}), ``margin`` = sys − ref
    (> 0: the output beats the reference) and ``outcome`` in {beats, ties, below}."""
    ref = np.asarray(t.loo_ref, float)
    sys = np.asarray(t.loo_sys, float)
    cs = case_stats(ref, sys)
    if len(cs.seg) == 0:
        return pd.DataFrame(columns=["seg_id", "held_out", "system", "ref_score", "sys_score",
                                     "margin", "outcome"])
    q = ref[cs.seg, cs.ref]
    v = sys[:, cs.seg, cs.ref]  # [sys, case]
    a_idx, c_idx = np.nonzero(np.isfinite(v))
    seg = np.asarray(t.seg_ids, object)[cs.seg[c_idx]]
    held = np.asarray(t.ref_ids, object)[cs.ref[c_idx]]
    sv = v[a_idx, c_idx]
    rv = q[c_idx]
    margin = sv - rv
    outcome = np.where(sv > rv, "beats", np.where(sv == rv, "ties", "below"))
    df = pd.DataFrame({"seg_id": seg, "held_out": held,
                       "system": np.asarray(t.systems, object)[a_idx],
                       "ref_score": rv, "sys_score": sv, "margin": margin, "outcome": outcome})
    order = np.lexsort((a_idx, cs.ref[c_idx], cs.seg[c_idx]))
    return df.iloc[order].reset_index(drop=True)


def king_case_summary(t, ties: str = "geq") -> pd.DataFrame:
    """One row per case: n_systems, n_beat, n_tied, king (credit under ``ties``), orange (share
    of comparisons won), best_system (highest-scoring output) and best_margin (its score minus
    the reference's; > 0 means KING failed because of it)."""
    ref = np.asarray(t.loo_ref, float)
    sys = np.asarray(t.loo_sys, float)
    cs = case_stats(ref, sys)
    v = sys[:, cs.seg, cs.ref]
    filled = np.where(np.isfinite(v), v, -np.inf)
    best = filled.argmax(axis=0) if len(cs.seg) else np.zeros(0, int)
    best_val = filled.max(axis=0) if len(cs.seg) else np.zeros(0)
    return pd.DataFrame({
        "seg_id": np.asarray(t.seg_ids, object)[cs.seg],
        "held_out": np.asarray(t.ref_ids, object)[cs.ref],
        "n_systems": cs.n, "n_beat": cs.above, "n_tied": cs.tied,
        "king": king_credit(cs.above, cs.tied, ties),
        "orange": orange_credit(cs.below, cs.tied, ties) / cs.n,
        "best_system": np.asarray(t.systems, object)[best],
        "best_margin": best_val - ref[cs.seg, cs.ref],
    })


def queen_triples(tensors, system: str, seg_id: str, mode: str = "auto", ties: str = "geq",
                  held_out: str | None = None) -> pd.DataFrame:
    """Every triple behind QUEEN_X(a) of one output (methods §1.2), or behind the leave-one-out
    QUEEN_{X, R_s − {held_out}} (§1.3) when ``held_out`` is given; ``system`` may also name a
    reference set, then the candidate is that reference (``held_out`` must be the same).

    Columns: r, r1, r2 (the triple ⟨r, r', r''⟩), pair_seg (the segment of the pair, differs
    from ``seg_id`` only in pooled mode), for every metric x: ``x:cand`` = x(a, r) and
    ``x:pair`` = x(r', r'') and ``x:won``; ``won`` = all metrics won. The mean of ``won`` is
    the QUEEN value.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    cmp = _cmp(ties)
    items = list(tensors.items()) if isinstance(tensors, Mapping) else [(t.metric_id, t) for t in _as_list(tensors)]
    lay = QueenLayout([t for _, t in items], mode)
    if seg_id not in lay.seg_ids:
        raise KeyError(f"unknown segment {seg_id!r}")
    s = lay.seg_ids.index(seg_id)
    is_ref = system in lay.ref_ids and system not in lay.systems
    if is_ref:
        j_cand = lay.ref_ids.index(system)
        if held_out not in (None, system):
            raise ValueError("a reference is a candidate only when it is the held-out one")
        held_out = system
    elif system not in lay.systems:
        raise KeyError(f"unknown system {system!r}")
    h = lay.ref_ids.index(held_out) if held_out is not None else None
    refs = [j for j in range(lay.n_ref) if lay.ref_present[s, j] and j != h]
    m = len(refs)
    use_local = (mode == "local") or (mode == "auto" and m >= 3)
    if use_local:
        trip = [(r, i, k, s) for r in refs for i in refs for k in refs if len({r, i, k}) == 3]
    else:
        ps, pi, pk = lay.pool
        keep = ~((ps == s) & ((pi == h) | (pk == h))) if h is not None else np.ones(len(ps), bool)
        trip = [(r, i, k, ss) for r in refs for i, k, ss in zip(pi[keep], pk[keep], ps[keep])]
    if not trip:
        return pd.DataFrame(columns=["r", "r1", "r2", "pair_seg", "won"])
    tr = np.array(trip)
    rid = np.asarray(lay.ref_ids, object)
    df = pd.DataFrame({"r": rid[tr[:, 0]], "r1": rid[tr[:, 1]], "r2": rid[tr[:, 2]],
                       "pair_seg": np.asarray(lay.seg_ids, object)[tr[:, 3]]})
    won = np.ones(len(tr), bool)
    for name, t in items:
        if is_ref:
            cand = np.asarray(t.ref_ref, float)[s, j_cand, tr[:, 0]]
        else:
            a = lay.systems.index(system)
            cand = np.asarray(t.sys_ref, float)[a, s, tr[:, 0]]
        pair = np.asarray(t.ref_ref, float)[tr[:, 3], tr[:, 1], tr[:, 2]]
        w = cmp(cand, pair)
        df[f"{name}:cand"] = cand
        df[f"{name}:pair"] = pair
        df[f"{name}:won"] = w
        won &= w
    df["won"] = won
    return df
