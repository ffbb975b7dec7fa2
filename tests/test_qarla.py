"""Tests for evalcore.qarla: ORANGE / KING / QUEEN / set search (spec §1, §2, §8.2-8.4).

References used here:
* the hand-worked examples of spec §8.2-8.4, built as SimTensors from the spec's tables;
* a deliberately literal brute-force implementation (``bf_*`` below: loops that follow the
  formulas of spec §1.1-1.4 and §0.3 one case / one triple at a time), compared with the
  vectorised code on random datasets with ties, 1-5 references, missing references and
  systems with missing outputs (hypothesis);
* properties of spec §1.1-1.2 (KING ≤ ORANGE, QUEEN never increases when a metric is added,
  constant and random metrics).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.metrics.base import SimTensors
from evalcore.qarla import (QueenIndex, exhaustive_search, greedy_search, king_case_summary, king_cases,
                            king_of_set, orange_king, orange_king_arrays, orange_lin_och, queen,
                            queen_triples, subset_segments)
from evalcore.qarla.search import coverage, text_presence

nan = np.nan


# ----------------------------------------------------------------------------------------------
# helpers
def make_t(mid, sys_ref, ref_ref, loo_sys=None, loo_ref=None, seg_ids=None):
    sys_ref = np.asarray(sys_ref, float)
    ref_ref = np.asarray(ref_ref, float)
    A, S, N = sys_ref.shape
    return SimTensors(
        mid, seg_ids or [f"s{i}" for i in range(S)], [f"a{i + 1}" for i in range(A)],
        [f"r{i + 1}" for i in range(N)], sys_ref, ref_ref,
        np.full((A, S, N), nan) if loo_sys is None else np.asarray(loo_sys, float),
        np.full((S, N), nan) if loo_ref is None else np.asarray(loo_ref, float))


def sym(pairs: dict, n: int) -> np.ndarray:
    m = np.full((n, n), nan)
    for (i, k), v in pairs.items():
        m[i, k] = m[k, i] = v
    return m


# ----------------------------------------------------------------------------------------------
# literal brute force (spec §1.1-1.3, §0.3), one case / triple at a time
def bf_orange_king(ref, sys, ties="geq", average="micro"):
    """Spec §1.1 read literally: loop over (s, r) cases and (s, r, a) events."""
    S, N = ref.shape
    A = sys.shape[0]
    seg_k, seg_o = {}, {}
    k_events, o_events = [], []
    for s in range(S):
        for j in range(N):
            q = ref[s, j]
            if math.isnan(q):
                continue
            outs = [sys[a, s, j] for a in range(A) if not math.isnan(sys[a, s, j])]
            if not outs:
                continue
            above = sum(1 for v in outs if v > q)
            tied = sum(1 for v in outs if v == q)
            if ties == "geq":
                k = 1.0 if above == 0 else 0.0
            elif ties == "strict":
                k = 1.0 if above == 0 and tied == 0 else 0.0
            else:
                k = 0.0 if above > 0 else 1.0 / (1 + tied)
            k_events.append(k)
            seg_k.setdefault(s, []).append(k)
            for v in outs:
                if v < q:
                    o = 1.0
                elif v == q:
                    o = {"geq": 1.0, "strict": 0.0, "fractional": 0.5}[ties]
                else:
                    o = 0.0
                o_events.append(o)
                seg_o.setdefault(s, []).append(o)
    if not k_events:
        return nan, nan
    if average == "micro":
        return float(np.mean(o_events)), float(np.mean(k_events))
    return (float(np.mean([np.mean(v) for v in seg_o.values()])),
            float(np.mean([np.mean(v) for v in seg_k.values()])))


def bf_queen_one(cand_sim, seg, refs, metrics, mode, ties, held_out, present):
    """QUEEN_{X, refs}(c) of one candidate (spec §1.2, §0.3). ``cand_sim[m][r]`` = x_m(c, r).
    ``metrics``: list of ref_ref arrays [S, N, N]. Returns NaN when undefined."""
    ge = (lambda u, v: u >= v) if ties == "geq" else (lambda u, v: u > v)
    m = len(refs)
    local = mode == "local" or (mode == "auto" and m >= 3)
    if local:
        if m < 3:
            return nan
        triples = [(r, (seg, i, k)) for r in refs for i in refs for k in refs if len({r, i, k}) == 3]
    else:
        S = metrics[0].shape[0]
        pool = [(s2, i, k) for s2 in range(S) for i in range(present.shape[1]) for k in range(present.shape[1])
                if i != k and present[s2, i] and present[s2, k]
                and not (s2 == seg and held_out is not None and held_out in (i, k))]
        if m < 1 or not pool:
            return nan
        triples = [(r, p) for r in refs for p in pool]
    won = 0
    for r, (s2, i, k) in triples:
        if all(ge(cand_sim[x][r], metrics[x][s2, i, k]) for x in range(len(metrics))):
            won += 1
    return won / len(triples)


def bf_queen_values(tensors, mode, ties, present, sys_ok):
    """Full QUEEN of every (system, segment) and leave-one-out QUEEN of refs and outputs."""
    rrs = [t.ref_ref for t in tensors]
    A, S, N = tensors[0].sys_ref.shape
    full = np.full((A, S), nan)
    loo_sys = np.full((A, S, N), nan)
    loo_ref = np.full((S, N), nan)
    for s in range(S):
        refs = [j for j in range(N) if present[s, j]]
        for a in range(A):
            if not sys_ok[a, s]:
                continue
            cs = [t.sys_ref[a, s] for t in tensors]
            full[a, s] = bf_queen_one(cs, s, refs, rrs, mode, ties, None, present)
        for h in refs:
            rest = [j for j in refs if j != h]
            if len(rest) < 1:
                continue
            ok_mode = (mode == "local" and len(rest) >= 3) or mode != "local"
            if not ok_mode:
                continue
            loo_ref[s, h] = bf_queen_one([t.ref_ref[s, h] for t in tensors], s, rest, rrs, mode, ties, h, present)
            for a in range(A):
                if sys_ok[a, s]:
                    loo_sys[a, s, h] = bf_queen_one([t.sys_ref[a, s] for t in tensors], s, rest, rrs, mode,
                                                    ties, h, present)
    return full, loo_sys, loo_ref


def bf_king_of_set(tensors, mode, qties, ties, present, sys_ok, average="micro"):
    _, loo_sys, loo_ref = bf_queen_values(tensors, mode, qties, present, sys_ok)
    return bf_orange_king(loo_ref, loo_sys, ties, average)


# ----------------------------------------------------------------------------------------------
# random datasets for hypothesis
@st.composite
def datasets(draw, n_metrics=1, max_ref=5):
    S = draw(st.integers(1, 4))
    N = draw(st.integers(1, max_ref))
    A = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    present = rng.random((S, N)) < 0.85
    sys_ok = rng.random((A, S)) < 0.85
    levels = draw(st.sampled_from([2, 3, 5, 1000]))  # coarse values -> ties
    ts = []
    for x in range(n_metrics):
        v = lambda *shape: rng.integers(0, levels, size=shape) / levels  # noqa: E731
        sr = v(A, S, N)
        rr = v(S, N, N)
        ls = v(A, S, N)
        lr = v(S, N)
        others = present.sum(axis=1)[:, None] - present  # other present refs per (s, j)
        sr = np.where(sys_ok[:, :, None] & present[None], sr, nan)
        rr = np.where(present[:, :, None] & present[:, None, :] & ~np.eye(N, dtype=bool)[None], rr, nan)
        ls = np.where(sys_ok[:, :, None] & present[None] & (others[None] > 0), ls, nan)
        lr = np.where(present & (others > 0), lr, nan)
        ts.append(make_t(f"m{x}", sr, rr, ls, lr))
    return ts, present, sys_ok


def close(a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    return a.shape == b.shape and bool(np.all((np.isnan(a) & np.isnan(b)) | np.isclose(a, b, atol=1e-12)))


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------------------------
# spec §8.2
EX82_REF = np.array([[0.60, 0.55, 0.80]])
EX82_SYS = np.array([[[0.50, 0.40, 0.30]], [[0.70, 0.55, 0.60]]])


@pytest.mark.parametrize("ties,orange,king", [("geq", 5 / 6, 2 / 3), ("strict", 4 / 6, 1 / 3),
                                              ("fractional", 0.75, 0.5)])
def test_spec_8_2(ties, orange, king):
    r = orange_king_arrays(EX82_REF, EX82_SYS, ties=ties)
    assert r.orange == pytest.approx(orange)
    assert r.king == pytest.approx(king)
    assert r.king_random == pytest.approx(1 / 3)
    assert r.orange_random == 0.5
    assert r.n_cases == 3 and r.n_comparisons == 6
    assert r.tie_rate == pytest.approx(1 / 6)  # one tie (r2 vs a2) in 6 comparisons


def test_spec_8_2_lin_och():
    t = make_t("x", np.full((2, 1, 3), 0.1), np.full((1, 3, 3), 0.1), EX82_SYS, EX82_REF)
    assert orange_lin_och(t) == pytest.approx(0.75)  # mean rank 1.5 / N = 2
    frac = orange_king(t, ties="fractional").orange
    assert orange_lin_och(t) == pytest.approx(1 / 2 + (1 - frac))


# spec §8.3
def ex83():
    tx = make_t("x", [[[0.55, 0.45, 0.65]]], [sym({(0, 1): .5, (0, 2): .4, (1, 2): .6}, 3)])
    ty = make_t("y", [[[0.9, 0.2, 0.5]]], [sym({(0, 1): .3, (0, 2): .6, (1, 2): .4}, 3)])
    return tx, ty


@pytest.mark.parametrize("mode", ["local", "auto"])
def test_spec_8_3_queen(mode):
    tx, ty = ex83()
    assert queen([tx], mode=mode).full[0, 0] == pytest.approx(2 / 3)
    assert queen([ty], mode=mode).full[0, 0] == pytest.approx(2 / 3)
    assert queen([tx, ty], mode=mode).full[0, 0] == pytest.approx(1 / 3)
    assert queen({"x": tx, "y": ty}, mode=mode).full_mode[0] == "local"


def test_spec_8_3_triples_explain():
    tx, ty = ex83()
    df = queen_triples([tx, ty], "a1", "s0", mode="local")
    assert len(df) == 6
    assert df["won"].mean() == pytest.approx(1 / 3)
    won = df[df["won"]]
    assert set(won["r"]) == {"r3"}  # only r = r3 vs pair (r1, r2) beats both metrics
    assert set(map(frozenset, zip(won["r1"], won["r2"]))) == {frozenset({"r1", "r2"})}


def test_spec_8_3_pooled():
    s1 = np.full((3, 3), nan)
    s1[0, 1] = s1[1, 0] = 0.5
    s2 = sym({(0, 1): .6, (0, 2): .4, (1, 2): .7}, 3)
    t = make_t("x", [[[0.55, 0.65, nan], [nan, nan, nan]]], [s1, s2])
    for mode in ("pooled", "auto"):  # s1 has 2 references, so auto pools too
        qv = queen([t], mode=mode)
        assert qv.full[0, 0] == pytest.approx(0.625)
        assert qv.full_mode[0] == "pooled"
    df = queen_triples([t], "a1", "s0", mode="pooled")
    assert len(df) == 16 and df["won"].sum() == 10
    assert np.isnan(queen([t], mode="local").full[0, 0])  # local needs 3 references


# spec §8.4
def ex84():
    P = sym({(0, 1): .6, (0, 2): .5, (0, 3): .4, (1, 2): .7, (1, 3): .5, (2, 3): .6}, 4)
    return make_t("x", [[[.72, .75, .65, .45]], [[.30, .40, .35, .60]]], [P])


def test_spec_8_4():
    t = ex84()
    qv = queen([t], mode="local")
    assert qv.full[:, 0] == pytest.approx([3 / 4, 1 / 4])
    assert qv.loo_ref[0] == pytest.approx([2 / 3, 1, 1, 2 / 3])
    assert qv.loo_sys[0, 0] == pytest.approx([2 / 3, 2 / 3, 2 / 3, 1])
    assert qv.loo_sys[1, 0] == pytest.approx([0, 1 / 3, 2 / 3, 0])
    assert king_of_set([t], mode="local").king == pytest.approx(3 / 4)
    assert king_of_set([t], mode="local", ties="strict").king == pytest.approx(1 / 2)
    # fractional: r1 tied with a1 -> 1/2; r2, r3 win; r4 loses
    assert king_of_set([t], mode="local", ties="fractional").king == pytest.approx((0.5 + 1 + 1 + 0) / 4)
    assert king_of_set([t], mode="auto").king == pytest.approx(3 / 4)
    # leave-one-out explanation of the r1 case
    df = queen_triples([t], "a1", "s0", mode="local", held_out="r1")
    assert len(df) == 6 and df["won"].mean() == pytest.approx(2 / 3)
    df = queen_triples([t], "r4", "s0", mode="local")
    assert df["won"].mean() == pytest.approx(2 / 3)


# ----------------------------------------------------------------------------------------------
# brute force vs fast
@FAST
@given(datasets(), st.sampled_from(["geq", "strict", "fractional"]), st.sampled_from(["micro", "macro"]))
def test_orange_king_matches_brute_force(data, ties, average):
    (t,), present, sys_ok = data
    r = orange_king(t, ties=ties, average=average)
    o, k = bf_orange_king(t.loo_ref, t.loo_sys, ties, average)
    assert close(r.orange, o) and close(r.king, k)


@FAST
@given(datasets(n_metrics=2), st.sampled_from(["local", "pooled", "auto"]), st.sampled_from(["geq", "strict"]))
def test_queen_matches_brute_force(data, mode, qties):
    ts, present, sys_ok = data
    for X in ([ts[0]], ts):
        qv = queen(X, mode=mode, ties=qties)
        full, loo_sys, loo_ref = bf_queen_values(X, mode, qties, present, sys_ok)
        assert close(qv.full, full)
        assert close(qv.loo_sys, loo_sys)
        assert close(qv.loo_ref, loo_ref)


@FAST
@given(datasets(n_metrics=2), st.sampled_from(["local", "pooled", "auto"]),
       st.sampled_from(["geq", "strict", "fractional"]), st.sampled_from(["micro", "macro"]))
def test_king_of_set_matches_brute_force(data, mode, ties, average):
    ts, present, sys_ok = data
    r = king_of_set(ts, mode=mode, ties=ties, average=average)
    o, k = bf_king_of_set(ts, mode, "geq", ties, present, sys_ok, average)
    assert close(r.king, k) and close(r.orange, o)


@FAST
@given(datasets(n_metrics=2), st.sampled_from(["local", "pooled", "auto"]))
def test_queen_triples_match_values(data, mode):
    ts, present, sys_ok = data
    qv = queen(ts, mode=mode)
    lay_sys = ts[0].systems
    for a, name in enumerate(lay_sys):
        for s, sid in enumerate(ts[0].seg_ids):
            if not sys_ok[a, s] or np.isnan(qv.full[a, s]):
                continue
            df = queen_triples(ts, name, sid, mode=mode)
            assert df["won"].mean() == pytest.approx(qv.full[a, s])


# ----------------------------------------------------------------------------------------------
# properties
@FAST
@given(datasets(n_metrics=3), st.sampled_from(["local", "pooled", "auto"]), st.sampled_from(["geq", "strict"]))
def test_queen_never_increases_when_a_metric_is_added(data, mode, qties):
    ts, _, _ = data
    q1 = queen(ts[:1], mode=mode, ties=qties)
    q2 = queen(ts[:2], mode=mode, ties=qties)
    q3 = queen(ts, mode=mode, ties=qties)
    for a, b in ((q1, q2), (q2, q3)):
        for f in ("full", "loo_sys", "loo_ref"):
            x, y = getattr(a, f), getattr(b, f)
            assert np.array_equal(np.isnan(x), np.isnan(y))
            ok = ~np.isnan(x)
            assert np.all(y[ok] <= x[ok] + 1e-12)


@FAST
@given(datasets(), st.sampled_from(["geq", "strict", "fractional"]))
def test_king_le_orange(data, ties):
    """KING ≤ ORANGE per case; so macro averages (|A_s| constant within a segment) keep it.
    Micro can break it when |A_s| varies (ORANGE weights cases by |A_s|), so micro is checked
    only when every case has the same |A_s|."""
    (t,), _, _ = data
    r = orange_king(t, ties=ties, average="macro")
    if r.n_cases:
        assert r.king <= r.orange + 1e-12
    summ = king_case_summary(t, ties)
    assert np.all(summ["king"] <= summ["orange"] + 1e-12)
    if summ["n_systems"].nunique() == 1:
        r = orange_king(t, ties=ties, average="micro")
        assert r.king <= r.orange + 1e-12


def test_micro_king_can_exceed_micro_orange_when_a_varies():
    # case 1: one output, reference wins; case 2: three outputs, reference loses to all
    ref = np.array([[1.0, nan], [0.0, nan]])
    sys = np.full((3, 2, 2), nan)
    sys[0, 0, 0] = 0.5
    sys[:, 1, 0] = 0.5
    r = orange_king_arrays(ref, sys)
    assert r.king == pytest.approx(0.5) and r.orange == pytest.approx(0.25)
    assert orange_king_arrays(ref, sys, average="macro").king == pytest.approx(0.5)


def _rand_tensors(rng, S, N, A, const=None):
    if const is not None:
        sr = np.full((A, S, N), const)
        rr = np.full((S, N, N), const)
        ls = np.full((A, S, N), const)
        lr = np.full((S, N), const)
    else:
        sr, rr, ls, lr = rng.random((A, S, N)), rng.random((S, N, N)), rng.random((A, S, N)), rng.random((S, N))
    rr = np.where(np.eye(N, dtype=bool)[None], nan, rr)
    return make_t("c" if const is not None else "rnd", sr, rr, ls, lr)


@pytest.mark.parametrize("mode", ["local", "pooled"])
def test_constant_metric(mode):
    """Spec §1.1: with ≥ a constant metric gets KING = ORANGE = 1; strict gives 0; fractional
    lands on the random baselines (ORANGE 1/2, KING 1/(|A|+1)). QUEEN of a constant metric is 1
    (≥) or 0 (>) for everyone, so KING of the set behaves the same way."""
    t = _rand_tensors(None, 6, 4, 3, const=0.3)
    exp = {"geq": (1, 1), "strict": (0, 0), "fractional": (0.5, 1 / 4)}
    for ties, (o, k) in exp.items():
        r = orange_king(t, ties=ties)
        assert (r.orange, r.king) == pytest.approx((o, k))
        assert r.king_perm == pytest.approx(k)  # the shuffle baseline agrees for a constant
        assert r.tie_rate == 1.0
        rs = king_of_set([t], mode=mode, ties=ties)
        assert (rs.orange, rs.king) == pytest.approx((o, k))
    assert np.all(queen([t], mode=mode).full == 1)
    assert np.all(queen([t], mode=mode, ties="strict").full == 0)


def test_random_metric_lands_on_the_baseline():
    """A continuous random metric: KING ≈ 1/(|A|+1), ORANGE ≈ 1/2 in every tie mode
    (no ties). 4 000 cases; tolerance 4 binomial standard errors."""
    rng = np.random.default_rng(12345)
    A, S, N = 3, 1000, 4
    t = _rand_tensors(rng, S, N, A)
    n = S * N
    for ties in ("geq", "strict", "fractional"):
        r = orange_king(t, ties=ties)
        assert r.tie_rate == 0
        assert abs(r.king - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)
        # ORANGE events within a case are correlated; bound by the case count
        assert abs(r.orange - 0.5) < 4 * math.sqrt(0.25 / n)
        assert r.king_random == pytest.approx(0.25)
        assert r.king_perm == pytest.approx(0.25)  # exact for distinct values


def test_permutation_and_monte_carlo_baselines():
    """Exact shuffle baseline vs a literal loop over positions, and the sampled MC close to it."""
    rng = np.random.default_rng(3)
    S, N, A = 40, 3, 4
    ref = rng.integers(0, 3, (S, N)) / 3
    sys = rng.integers(0, 3, (A, S, N)) / 3
    sys[0, :5] = nan
    for ties in ("geq", "strict", "fractional"):
        r = orange_king_arrays(ref, sys, ties=ties, mc=4000, seed=1)
        per_case = []
        for s in range(S):
            for j in range(N):
                vals = [ref[s, j]] + [sys[a, s, j] for a in range(A) if not np.isnan(sys[a, s, j])]
                credits = []
                for i, q in enumerate(vals):
                    others = vals[:i] + vals[i + 1:]
                    credits.append(bf_orange_king(np.array([[q]]), np.array(others)[:, None, None], ties)[1])
                per_case.append(np.mean(credits))
        assert r.king_perm == pytest.approx(np.mean(per_case))
        assert abs(r.king_mc - r.king_perm) < 0.02


def test_bootstrap_ci():
    rng = np.random.default_rng(0)
    t = _rand_tensors(rng, 200, 3, 4)
    r = orange_king(t, bootstrap=500, seed=7)
    for k in ("orange", "king"):
        lo, hi = r.ci[k]
        assert lo <= getattr(r, k) <= hi and hi - lo > 0
    # identical segments: every resample gives the same value
    one = _rand_tensors(rng, 1, 3, 4)
    rep = make_t("rep", np.repeat(one.sys_ref, 30, 1), np.repeat(one.ref_ref, 30, 0),
                 np.repeat(one.loo_sys, 30, 1), np.repeat(one.loo_ref, 30, 0))
    r = orange_king(rep, bootstrap=50)
    assert r.ci["king"][0] == pytest.approx(r.king) and r.ci["king"][1] == pytest.approx(r.king)


@FAST
@given(datasets())
def test_lin_och_identity(data):
    """Spec §2: ORANGE_LO = 1/N + (1 − ORANGE_fractional) per case; averaged exactly when N is constant."""
    (t,), _, _ = data
    summ = king_case_summary(t, "fractional")
    if len(summ) == 0:
        return
    if summ["n_systems"].nunique() == 1:
        N = summ["n_systems"].iloc[0]
        assert orange_lin_och(t) == pytest.approx(1 / N + 1 - orange_king(t, ties="fractional").orange)
    # per-case identity, via the explanation frame
    lo = 1 + summ["n_beat"] + 0.5 * summ["n_tied"]
    assert np.allclose(lo / summ["n_systems"], 1 / summ["n_systems"] + 1 - summ["orange"])


@FAST
@given(datasets())
def test_king_cases_explain(data):
    (t,), _, _ = data
    df = king_cases(t)
    summ = king_case_summary(t, "geq")
    r = orange_king(t)
    assert len(df) == r.n_comparisons
    if len(df):
        g = df.groupby(["seg_id", "held_out"], sort=False)
        beat = g["outcome"].apply(lambda s: (s == "beats").sum())
        m = summ.set_index(["seg_id", "held_out"])
        assert (beat.reindex(m.index).to_numpy() == m["n_beat"].to_numpy()).all()
        assert summ["king"].mean() == pytest.approx(r.king)
        assert ((df["margin"] > 0) == (df["outcome"] == "beats")).all()


# ----------------------------------------------------------------------------------------------
# search
def bf_tie_rate(loo_ref, loo_sys):
    """Share of (s, r, a) comparisons where the output's score equals the held-out reference's
    (spec §1.1 events), one comparison at a time."""
    S, N = loo_ref.shape
    tied = total = 0
    for s in range(S):
        for j in range(N):
            q = loo_ref[s, j]
            outs = [loo_sys[a, s, j] for a in range(loo_sys.shape[0]) if not math.isnan(loo_sys[a, s, j])]
            if math.isnan(q) or not outs:
                continue
            total += len(outs)
            tied += sum(1 for v in outs if v == q)
    return tied / total if total else nan


def bf_coverage(t, present, sys_ok):
    """Coverage read literally: loop over every (output, reference) and (reference, other
    reference) pair whose two texts exist and count the defined similarities."""
    A, S, N = t.sys_ref.shape
    cells = defined = 0
    for s in range(S):
        for j in range(N):
            if not present[s, j]:
                continue
            for a in range(A):
                if sys_ok[a, s]:
                    cells += 1
                    defined += not math.isnan(t.sys_ref[a, s, j])
            for i in range(N):
                if i != j and present[s, i]:
                    cells += 1
                    defined += not math.isnan(t.ref_ref[s, i, j])
    return defined / cells if cells else nan


def bf_guard(ts, present, sys_ok, mode, ties="geq", min_coverage=0.95, exclude_degenerate=True):
    """The search guard: names kept, and {name: reason word} of the left-out ones (coverage
    below the minimum; single-metric KING ≥ 0.99 with tie rate ≥ 0.9)."""
    kept, out = [], {}
    for t in ts:
        _, loo_sys, loo_ref = bf_queen_values([t], mode, "geq", present, sys_ok)
        king = bf_orange_king(loo_ref, loo_sys, ties)[1]
        tie = bf_tie_rate(loo_ref, loo_sys)
        cov = bf_coverage(t, present, sys_ok)
        if min_coverage and not math.isnan(cov) and cov < min_coverage:
            out[t.metric_id] = "coverage"
        elif exclude_degenerate and not math.isnan(king) and not math.isnan(tie) and king >= 0.99 and tie >= 0.9:
            out[t.metric_id] = "degenerate"
        else:
            kept.append(t)
    return kept, out


def bf_greedy(ts, present, sys_ok, mode):
    names = [t.metric_id for t in ts]
    single = {t.metric_id: bf_king_of_set([t], mode, "geq", "geq", present, sys_ok)[1] for t in ts}
    order = sorted(names, key=lambda n: (-(single[n] if not np.isnan(single[n]) else -np.inf), n))
    by = {t.metric_id: t for t in ts}
    chosen = [order[0]]
    cur = single[order[0]]
    for n in order[1:]:
        k = bf_king_of_set([by[c] for c in chosen + [n]], mode, "geq", "geq", present, sys_ok)[1]
        if not np.isnan(k) and (np.isnan(cur) or k > cur):
            chosen.append(n)
            cur = k
    return chosen, cur


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets(n_metrics=3), st.sampled_from(["pooled", "auto"]))
def test_greedy_matches_brute_force(data, mode):
    """Spec §0.5 read literally, without the guard (min_coverage=0, exclude_degenerate=False)
    and with the default guard applied to the brute-force candidates first."""
    ts, present, sys_ok = data
    res = greedy_search({t.metric_id: t for t in ts}, mode=mode, min_coverage=0, exclude_degenerate=False)
    chosen, k = bf_greedy(ts, present, sys_ok, mode)
    assert res.chosen == chosen
    assert close(res.king, k)
    assert len(res.trace) == 3 and res.trace["kept"].sum() == len(chosen)
    assert res.excluded.empty
    kept, out = bf_guard(ts, present, sys_ok, mode)
    if not kept:
        with pytest.raises(ValueError, match="excluded"):
            greedy_search({t.metric_id: t for t in ts}, mode=mode)
        return
    g = greedy_search({t.metric_id: t for t in ts}, mode=mode)
    assert dict(zip(g.excluded["metric"], g.excluded["reason"].str.split().str[0].str.rstrip(":"))) == out
    chosen, k = bf_greedy(kept, present, sys_ok, mode)
    assert g.chosen == chosen and close(g.king, k)
    assert sorted(g.trace["metric"]) == sorted(t.metric_id for t in kept)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets(n_metrics=3), st.sampled_from(["pooled", "auto"]))
def test_exhaustive_matches_brute_force(data, mode):
    ts, present, sys_ok = data
    res = exhaustive_search({t.metric_id: t for t in ts}, mode=mode, min_coverage=0, exclude_degenerate=False)
    assert len(res.trace) == 7
    best = nan
    for size in range(1, 4):
        for sub in itertools.combinations(ts, size):
            k = bf_king_of_set(list(sub), mode, "geq", "geq", present, sys_ok)[1]
            row = res.trace[res.trace["set"] == ",".join(t.metric_id for t in sub)]
            assert close(row["king"].iloc[0], k)
            if not np.isnan(k) and (np.isnan(best) or k > best):
                best = k
    assert close(res.king, best)
    kept, out = bf_guard(ts, present, sys_ok, mode)
    if kept:
        g = exhaustive_search({t.metric_id: t for t in ts}, mode=mode)
        assert sorted(g.excluded["metric"]) == sorted(out)
        assert len(g.trace) == 2 ** len(kept) - 1
        assert set(g.chosen) <= {t.metric_id for t in kept}


def test_greedy_trace_and_progress():
    rng = np.random.default_rng(5)
    ts = {f"m{i}": _rand_tensors(rng, 30, 5, 4) for i in range(4)}
    for n, t in ts.items():
        t.metric_id = n
    calls = []
    res = greedy_search(ts, progress=lambda d, n: calls.append((d, n)))
    assert calls[-1][0] == calls[-1][1]
    assert list(res.trace.columns[:6]) == ["step", "metric", "king_single", "king_before", "king_after",
                                           "orange_after"]
    assert res.ranking["king_single"].is_monotonic_decreasing
    kept = res.trace[res.trace["kept"]]
    assert kept["metric"].tolist() == res.chosen
    assert (kept["king_after"].diff().dropna() > 0).all()
    idx = QueenIndex(ts)
    assert idx.king(res.chosen).king == pytest.approx(res.king)
    with pytest.raises(ValueError):
        exhaustive_search(ts, max_metrics=3)


# ----------------------------------------------------------------------------------------------
# coverage and the search guard (docs/findings.md: "Why ≥ picks sparse sub-metrics")
def test_coverage_hand_count():
    """2 systems, 2 segments, 3 references; r3 lacks segment s1, a2 lacks s1.
    Cells whose texts exist: sys_ref 2x3 (s0) + 1x2 (s1) = 8; ref_ref off-diagonal 6 (s0) + 2 (s1)
    = 8; 16 in all. Undefined among them: 3 sys_ref + 2 ref_ref -> coverage 11/16."""
    sr = np.full((2, 2, 3), 0.5)
    sr[1, 1, :] = nan  # a2 missing in s1
    sr[:, 1, 2] = nan  # r3 missing in s1
    sr[0, 0, 1] = sr[1, 0, 2] = sr[0, 1, 0] = nan  # 3 undefined similarities
    rr = np.full((2, 3, 3), 0.4)
    rr[:, [0, 1, 2], [0, 1, 2]] = nan
    rr[1, 2, :] = rr[1, :, 2] = nan  # r3 missing in s1
    rr[0, 0, 2] = rr[0, 2, 0] = nan  # one undefined pair, both directions
    t = make_t("x", sr, rr)
    present = np.array([[True, True, True], [True, True, False]])
    sys_ok = np.array([[True, True], [True, False]])
    assert coverage(t, sys_ok, present) == pytest.approx(11 / 16)
    assert coverage(t) == pytest.approx(11 / 16)  # presence read off the finite cells agrees here
    assert bf_coverage(t, present, sys_ok) == pytest.approx(11 / 16)
    # a text that exists but has no defined similarity at all: only explicit presence counts it
    sr2 = sr.copy()
    sr2[1, 0, :] = nan  # a2's s0 output: 3 cells, 2 of them were defined
    t2 = make_t("x", sr2, rr)
    assert coverage(t2, sys_ok, present) == pytest.approx(9 / 16)
    assert coverage(t2) == pytest.approx(9 / 13)  # inferred: a2 absent in s0 -> 13 cells
    # text_presence reads the same masks from a Dataset's texts
    from evalcore.core.dataset import Dataset
    segs = pd.DataFrame({"seg_id": ["s0", "s1"], "source": ["x", "y"]})
    refs = pd.DataFrame([{"seg_id": s, "ref_id": r, "text": "t"} for s in ("s0", "s1") for r in ("r1", "r2")]
                        + [{"seg_id": "s0", "ref_id": "r3", "text": "t"}])
    outs = pd.DataFrame([{"system": "a1", "seg_id": "s0", "text": "o"}, {"system": "a1", "seg_id": "s1", "text": "o"},
                         {"system": "a2", "seg_id": "s0", "text": "o"}])
    ds = Dataset("d", "xx-yy", segs, refs, outs)
    sp, rp = text_presence(ds, t2)
    assert (sp == sys_ok).all() and (rp == present).all()


def _guard_data(seed=3, S=12, N=4, A=3):
    """Two random dense metrics and one sparse constant metric ("sparse": defined only for the
    pairs of segment 0, value 0.5 there; spec §1.5 [A]-style NaN elsewhere)."""
    rng = np.random.default_rng(seed)
    ts = {}
    for name in ("lex1", "lex2"):
        t = _rand_tensors(rng, S, N, A)
        t.metric_id = name
        ts[name] = t
    sr = np.full((A, S, N), nan)
    rr = np.full((S, N, N), nan)
    sr[:, 0, :] = 0.5
    rr[0] = 0.5
    rr[0][np.eye(N, dtype=bool)] = nan
    ts["sparse"] = make_t("sparse", sr, rr, np.full((A, S, N), 0.5), np.full((S, N), 0.5))
    present = np.ones((S, N), bool)
    sys_ok = np.ones((A, S), bool)
    return ts, present, sys_ok


def test_sparse_constant_metric_is_excluded_by_default():
    ts, present, sys_ok = _guard_data()
    S, N, A = 12, 4, 3
    hand = (A * N + N * (N - 1)) / (S * (A * N + N * (N - 1)))  # only segment 0 is defined
    assert coverage(ts["sparse"], sys_ok, present) == pytest.approx(hand)
    # under ≥ the sparse metric is "perfect": QUEEN 0 (or 1) for everyone, every case tied
    _, loo_sys, loo_ref = bf_queen_values([ts["sparse"]], "auto", "geq", present, sys_ok)
    assert bf_orange_king(loo_ref, loo_sys, "geq")[1] == 1.0 and bf_tie_rate(loo_ref, loo_sys) == 1.0
    for search in (greedy_search, exhaustive_search):
        res = search(ts)  # default guard
        assert "sparse" not in res.chosen and "sparse" not in res.ranking["metric"].tolist()
        ex = res.excluded.set_index("metric")
        assert list(ex.index) == ["sparse"]
        assert ex.loc["sparse", "coverage"] == pytest.approx(hand)
        assert ex.loc["sparse", "reason"].startswith("coverage")
        assert (res.ranking["coverage"] == 1.0).all()
        # coverage guard off, degenerate guard on: still left out, for the other reason
        res = search(ts, min_coverage=0)
        assert res.excluded.set_index("metric").loc["sparse", "reason"].startswith("degenerate: decided by ties")
        assert "sparse" not in res.chosen
        # both guards off: the degenerate KING = 1 of the findings is reproduced
        res = search(ts, min_coverage=0, exclude_degenerate=False)
        assert res.excluded.empty
        assert res.chosen == ["sparse"] and res.king == 1.0
        rk = res.ranking.set_index("metric")
        assert bool(rk.loc["sparse", "degenerate"]) and rk.loc["sparse", "tie_rate"] == 1.0
        assert not rk.loc[["lex1", "lex2"], "degenerate"].any()
    # fractional ties: the constant metric sits at the random level 1/(|A|+1), not flagged
    res = greedy_search(ts, ties="fractional", min_coverage=0)
    assert res.excluded.empty
    assert res.ranking.set_index("metric").loc["sparse", "king_single"] == pytest.approx(1 / (A + 1))
    with pytest.raises(ValueError, match="every candidate metric was excluded"):
        greedy_search({"sparse": ts["sparse"]}, min_coverage=0)


def test_guard_leaves_dense_searches_unchanged():
    """All coverages 1 and no degenerate metric: the default search equals spec §0.5 without
    the guard (same ranking order, chosen set, trace) and the literal brute force."""
    rng = np.random.default_rng(11)
    ts = {}
    for i in range(4):
        t = _rand_tensors(rng, 6, 4, 3)
        t.sys_ref = np.round(t.sys_ref, 1)  # some ties, still far from degenerate
        t.metric_id = f"m{i}"
        ts[t.metric_id] = t
    present, sys_ok = np.ones((6, 4), bool), np.ones((3, 6), bool)
    for search in (greedy_search, exhaustive_search):
        new, old = search(ts), search(ts, min_coverage=0, exclude_degenerate=False)
        assert new.excluded.empty and (new.ranking["coverage"] == 1.0).all()
        assert new.chosen == old.chosen and new.king == old.king
        pd.testing.assert_frame_equal(new.trace, old.trace)
        pd.testing.assert_frame_equal(new.ranking, old.ranking)
    g = greedy_search(ts)
    chosen, k = bf_greedy(list(ts.values()), present, sys_ok, "auto")
    assert g.chosen == chosen and close(g.king, k)
    assert (g.trace["coverage"] == 1.0).all()


def test_misaligned_tensors_rejected():
    a = ex84()
    b = make_t("y", a.sys_ref, a.ref_ref, seg_ids=["other"])
    with pytest.raises(ValueError, match="not aligned"):
        queen([a, b])


def test_subset_segments_restricts_the_pool():
    s1 = np.full((3, 3), nan)
    s1[0, 1] = s1[1, 0] = 0.5
    s2 = sym({(0, 1): .6, (0, 2): .4, (1, 2): .7}, 3)
    t = make_t("x", [[[0.55, 0.65, nan], [nan, nan, nan]]], [s1, s2])
    sub = subset_segments(t, ["s0"])
    # pool = the 2 pairs of s0 (value .5): a beats both for both r -> 1
    assert queen([sub], mode="pooled").full[0, 0] == pytest.approx(1.0)


# ----------------------------------------------------------------------------------------------
# CLI on a small dataset built on disk (tidy TSV) when the loader and the engine exist
def _write_tidy(tmp_path):
    segs = pd.DataFrame({"seg_id": ["1", "2", "3"], "source": ["a b c", "d e f", "g h i"]})
    refs = []
    texts = {"ref-A": ["the cat sat on the mat", "a dog ran in the park", "it is raining today"],
             "ref-B": ["a cat sat on a mat", "the dog ran through the park", "today it rains"],
             "ref-C": ["the cat was sitting on the mat", "a dog was running in a park", "it rains today"],
             "ref-D": ["on the mat sat the cat", "in the park a dog ran", "there is rain today"]}
    for r, tx in texts.items():
        for sid, x in zip(segs["seg_id"], tx):
            refs.append({"seg_id": sid, "ref_id": r, "text": x})
    outs = []
    sys_t = {"s1": ["the cat sat on mat", "dog ran in park", "it is rain today"],
             "s2": ["cat is on the mat", "the dog runs in the park", "today raining"]}
    for s, tx in sys_t.items():
        for sid, x in zip(segs["seg_id"], tx):
            outs.append({"system": s, "seg_id": sid, "text": x})
    segs.to_csv(tmp_path / "segments.tsv", sep="\t", index=False)
    pd.DataFrame(refs).to_csv(tmp_path / "references.tsv", sep="\t", index=False)
    pd.DataFrame(outs).to_csv(tmp_path / "outputs.tsv", sep="\t", index=False)
    pd.DataFrame(columns=["system", "seg_id", "rater", "judgement", "score"]).to_csv(
        tmp_path / "judgements.tsv", sep="\t", index=False)
    return tmp_path


def test_cli_commands(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    from evalcore.cli import main
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import similarity_tensors

    path = _write_tidy(tmp_path)
    out = tmp_path / "q.tsv"
    assert main(["qarla", str(path), "--metrics", "chrf,bleu", "--bootstrap", "50", "--out", str(out)]) == 0
    df = pd.read_csv(out, sep="\t")
    assert list(df["metric"]) == ["chrf", "bleu"]
    assert {"orange", "king", "king_random", "tie_rate", "n_cases", "king_lo", "king_hi"} <= set(df.columns)
    ds = load_dataset(str(path))
    t = similarity_tensors(ds, "chrf")
    r = orange_king(t)
    assert df.loc[0, "king"] == pytest.approx(r.king) and df.loc[0, "orange"] == pytest.approx(r.orange)
    assert list(df.columns[:3]) == ["lp", "metric", "coverage"] and (df["coverage"] == 1.0).all()  # lexical: defined everywhere

    out2 = tmp_path / "queen.tsv"
    assert main(["queen", str(path), "--set", "chrf,bleu", "--out", str(out2)]) == 0
    err = capsys.readouterr().err
    assert "KING" in err
    qd = pd.read_csv(out2, sep="\t", dtype={"seg_id": str})
    qv = queen([t, similarity_tensors(ds, "bleu")])
    assert len(qd) == 6
    assert qd["queen"].to_numpy() == pytest.approx(qv.full.ravel())

    assert main(["search", str(path), "--metrics", "chrf,bleu,ter", "--exhaustive"]) == 0
    assert "chosen" in capsys.readouterr().out
    assert main(["search", str(path), "--metrics", "chrf,bleu,ter", "--min-coverage", "0", "--keep-degenerate"]) == 0
    printed = capsys.readouterr().out
    assert "coverage" in printed and "excluded" not in printed
    assert main(["search", str(path), "--metrics", "chrf,bleu", "--min-coverage", "2"]) == 2
    from evalcore.views.likeness_vs_acceptability import metric_set_search
    res = metric_set_search(ds, ["chrf", "bleu"], min_coverage=0.95)
    assert res.excluded.empty and (res.ranking["coverage"] == 1.0).all()
    assert res.settings["min_coverage"] == 0.95
    # unknown metric -> clean error, exit 2
    assert main(["qarla", str(path), "--metrics", "nosuchmetric"]) == 2


def test_real_data_smoke(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    """A few en-de segments of WMT21 news (3 references): the pooled QUEEN path runs and the
    fast KING of {chrF} equals the literal brute force on real similarities."""
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import similarity_tensors

    from conftest import shared

    ds = load_dataset(shared("wmt21_news_mqm"), lp="en-de")
    judged = list(dict.fromkeys(ds.judgements["seg_id"]))[:12]
    ds_small = type(ds)(ds.name, ds.lp, ds.segments[ds.segments["seg_id"].isin(judged)],
                        ds.references[ds.references["seg_id"].isin(judged)],
                        ds.outputs[ds.outputs["seg_id"].isin(judged)])
    t = similarity_tensors(ds_small, "chrf")
    assert len(t.ref_ids) == 3
    present = np.isfinite(t.sys_ref).any(axis=0) | np.isfinite(t.loo_ref)
    sys_ok = np.isfinite(t.sys_ref).any(axis=2)
    r = king_of_set([t], mode="auto")
    assert close(r.king, bf_king_of_set([t], "auto", "geq", "geq", present, sys_ok)[1])
