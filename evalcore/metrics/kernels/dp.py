"""Dynamic programmes shared by the word-level metrics: unit-cost Levenshtein distance (WER),
longest common subsequence and Lin's weighted LCS (ROUGE-L / ROUGE-W; Lin & Och 2004, §3;
methods §7.3 and §7.6), as scalar Python definitions, as compiled kernels over many pairs of
token-id sequences stored back to back (``flat``/``offs``), and as numpy block versions for runs
without numba. Every version computes the same recurrences in the same order (identical values;
tests/test_metrics_lexical.py and tests/test_chunk_kernels.py compare them).

The work of each grows with the product of the two lengths: callers refuse texts over the
long-segment cap before calling them (``Metric.refuses``, :data:`evalcore.metrics.base.MAX_ALIGN_TOKENS`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .._jit import HAVE_NUMBA
from .._jit import lazy_njit as _njit

_nb = True if HAVE_NUMBA else None


def flatten_ids(seqs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Sequences stored back to back: (flat ids, offsets) with sequence t = flat[offs[t]:offs[t+1]]."""
    lens = np.array([len(x) for x in seqs], dtype=np.int64)
    offs = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    flat = np.concatenate([np.asarray(x, dtype=np.int64) for x in seqs]) if offs[-1] else np.zeros(0, np.int64)
    return flat, offs





def levenshtein(a: Sequence, b: Sequence) -> int:
    """Unit-cost edit distance (insertions, deletions, substitutions) between two sequences."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def lcs_length(a: Sequence, b: Sequence) -> int:
    """Length of the longest common subsequence of two sequences."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def _wlcs_increments(max_len: int, w: float) -> np.ndarray:
    """inc[k] = f(k+1) − f(k) with f(k) = k**w, the gain of extending a run of length k."""
    k = np.arange(max_len + 1, dtype=np.float64)
    return np.array([(x + 1.0) ** w - x ** w for x in k.tolist()], dtype=np.float64)


def wlcs(a: Sequence, b: Sequence, w: float = 1.2) -> float:
    """Weighted LCS of Lin & Och 2004 / ROUGE-1.5.5 (``-w``; methods §7.6): a run of k consecutive
    matches earns f(k) = k**w. Lin's DP: on a match C[i][j] = C[i−1][j−1] + f(W+1) − f(W) with W
    the run length ending at (i−1, j−1) and W[i][j] = W + 1; otherwise C[i][j] = max(C[i−1][j],
    C[i][j−1]) and W[i][j] = 0. (``a`` indexes rows.)"""
    inc = _wlcs_increments(max(len(a), len(b)) + 1, w).tolist()
    prev_c = [0.0] * (len(b) + 1)
    prev_w = [0] * (len(b) + 1)
    for x in a:
        cur_c, cur_w = [0.0], [0]
        for j, y in enumerate(b, 1):
            if x == y:
                k = prev_w[j - 1]
                cur_c.append(prev_c[j - 1] + inc[k])
                cur_w.append(k + 1)
            else:
                cur_c.append(prev_c[j] if prev_c[j] > cur_c[j - 1] else cur_c[j - 1])
                cur_w.append(0)
        prev_c, prev_w = cur_c, cur_w
    return float(prev_c[-1])


def _pad(seqs: Sequence[np.ndarray], fill: int) -> tuple[np.ndarray, np.ndarray]:
    lens = np.array([len(s) for s in seqs], dtype=np.int64)
    width = int(lens.max()) if len(lens) else 0
    out = np.full((len(seqs), width), fill, dtype=np.int64)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = s
    return out, lens


@_njit
def _dp_many(flat, offs, na, nb, kind, inc):
    """Pairwise DPs of sequences 0..na−1 (rows) against na..na+nb−1 (columns), stored back to
    back in ``flat``; kind 0 = Levenshtein, 1 = LCS, 2 = WLCS with increments ``inc``. The
    same recurrences, in the same order, as :func:`levenshtein`, :func:`lcs_length`, :func:`wlcs`
    (computed by :func:`_dp_pairs` on every (row, column) pair)."""
    ph = np.empty(na * nb, np.int64)
    pr = np.empty(na * nb, np.int64)
    k = 0
    for x in range(na):
        for y in range(nb):
            ph[k] = x
            pr[k] = na + y
            k += 1
    return _dp_pairs(flat, offs, ph, pr, kind, inc).reshape((na, nb))


@_njit
def _dp_pairs(flat, offs, ph, pr, kind, inc):
    """The DP of each listed pair: out[k] = the DP of sequence ``ph[k]`` (rows) against sequence
    ``pr[k]`` (columns) of ``flat``/``offs`` (kind 0 = Levenshtein, 1 = LCS, 2 = WLCS with
    increments ``inc``); the recurrences of :func:`levenshtein`, :func:`lcs_length` and
    :func:`wlcs`, in the same order."""
    n = len(ph)
    out = np.zeros(n, np.float64)
    width = 1
    for t in range(len(offs) - 1):
        width = max(width, offs[t + 1] - offs[t] + 1)
    prev = np.zeros(width, np.float64)
    cur = np.zeros(width, np.float64)
    prev_w = np.zeros(width, np.int64)
    cur_w = np.zeros(width, np.int64)
    for k in range(n):
        a = flat[offs[ph[k]]:offs[ph[k] + 1]]
        b = flat[offs[pr[k]]:offs[pr[k] + 1]]
        na, m = len(a), len(b)
        if kind == 0:
            for j in range(m + 1):
                prev[j] = j
            for i in range(1, na + 1):
                cur[0] = i
                ai = a[i - 1]
                for j in range(1, m + 1):
                    v = prev[j] + 1
                    if cur[j - 1] + 1 < v:
                        v = cur[j - 1] + 1
                    d = prev[j - 1] + (0 if ai == b[j - 1] else 1)
                    if d < v:
                        v = d
                    cur[j] = v
                prev, cur = cur, prev
            out[k] = prev[m]
        elif kind == 1:
            for j in range(m + 1):
                prev[j] = 0
            for i in range(na):
                cur[0] = 0
                ai = a[i]
                for j in range(1, m + 1):
                    if ai == b[j - 1]:
                        cur[j] = prev[j - 1] + 1
                    else:
                        cur[j] = prev[j] if prev[j] > cur[j - 1] else cur[j - 1]
                prev, cur = cur, prev
            out[k] = prev[m]
        else:
            for j in range(m + 1):
                prev[j] = 0.0
                prev_w[j] = 0
            for i in range(na):
                cur[0] = 0.0
                cur_w[0] = 0
                ai = a[i]
                for j in range(1, m + 1):
                    if ai == b[j - 1]:
                        q = prev_w[j - 1]
                        cur[j] = prev[j - 1] + inc[q]
                        cur_w[j] = q + 1
                    else:
                        cur[j] = prev[j] if prev[j] > cur[j - 1] else cur[j - 1]
                        cur_w[j] = 0
                prev, cur = cur, prev
                prev_w, cur_w = cur_w, prev_w
            out[k] = prev[m]
    return out


def _dp_block(a_ids, b_ids, kind: int, w: float = 1.2) -> np.ndarray:
    flat, offs = flatten_ids(list(a_ids) + list(b_ids))
    longest = int(np.diff(offs).max()) if len(offs) > 1 else 0
    inc = _wlcs_increments(longest + 1, w) if kind == 2 else np.zeros(1)
    return _dp_many(flat, offs, len(a_ids), len(b_ids), kind, inc)


def levenshtein_matrix(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray]) -> np.ndarray:
    """Edit distances of every (a_i, b_k) pair, shape (len a, len b): the compiled DP
    (:func:`_dp_many`) when numba is installed, else :func:`levenshtein_matrix_np`."""
    if _nb is not None:
        return np.rint(_dp_block(a_ids, b_ids, 0)).astype(np.int64)
    return levenshtein_matrix_np(a_ids, b_ids)


def lcs_matrix(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray]) -> np.ndarray:
    """LCS lengths of every (a_i, b_k) pair: compiled DP or :func:`lcs_matrix_np`."""
    if _nb is not None:
        return np.rint(_dp_block(a_ids, b_ids, 1)).astype(np.int64)
    return lcs_matrix_np(a_ids, b_ids)


def wlcs_matrix(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray], w: float = 1.2) -> np.ndarray:
    """:func:`wlcs` of every (a_i, b_k) pair (a_i indexes rows): compiled DP or
    :func:`wlcs_matrix_np`; identical values."""
    if _nb is not None:
        return _dp_block(a_ids, b_ids, 2, w)
    return wlcs_matrix_np(a_ids, b_ids, w)


def levenshtein_matrix_np(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray]) -> np.ndarray:
    """Edit distances of every (a_i, b_k) pair, shape (len a, len b), by one row-wise DP over
    all pairs at once: row i+1 is T[j] = min(D[i][j] + 1, D[i][j−1] + cost) followed by
    D[i+1][j] = j + cummin_k≤j(T[k] − k) (the left-insertion chain)."""
    A, la = _pad(a_ids, -1)
    B, lb = _pad(b_ids, -2)
    na, nb = len(a_ids), len(b_ids)
    res = np.repeat(lb[None, :], na, axis=0).astype(np.int64)  # empty a: |b| insertions
    if na == 0 or nb == 0 or A.shape[1] == 0:
        return res
    width = B.shape[1]
    ar = np.arange(width + 1, dtype=np.int64)
    prev = np.broadcast_to(ar, (na, nb, width + 1)).copy()
    kk = np.arange(nb)
    for i in range(A.shape[1]):
        cost = (A[:, i][:, None, None] != B[None, :, :]).astype(np.int64)
        T = np.empty_like(prev)
        T[..., 0] = i + 1
        T[..., 1:] = np.minimum(prev[..., 1:] + 1, prev[..., :-1] + cost)
        cur = np.minimum.accumulate(T - ar, axis=2) + ar
        done = np.nonzero(la == i + 1)[0]
        if len(done):
            res[done] = cur[done][:, kk, lb]
        prev = cur
    return res


def lcs_matrix_np(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray]) -> np.ndarray:
    """LCS lengths of every (a_i, b_k) pair by a row-wise DP over all pairs:
    L[i+1][j] = max_{k≤j} max(L[i][k], L[i][k−1] + [a_i = b_k])."""
    A, la = _pad(a_ids, -1)
    B, lb = _pad(b_ids, -2)
    na, nb = len(a_ids), len(b_ids)
    res = np.zeros((na, nb), dtype=np.int64)
    if na == 0 or nb == 0 or A.shape[1] == 0 or B.shape[1] == 0:
        return res
    width = B.shape[1]
    prev = np.zeros((na, nb, width + 1), dtype=np.int64)
    kk = np.arange(nb)
    for i in range(A.shape[1]):
        match = (A[:, i][:, None, None] == B[None, :, :])
        V = np.zeros_like(prev)
        V[..., 1:] = np.maximum(prev[..., 1:], prev[..., :-1] + match)
        cur = np.maximum.accumulate(V, axis=2)
        done = np.nonzero(la == i + 1)[0]
        if len(done):
            res[done] = cur[done][:, kk, lb]
        prev = cur
    return res


def wlcs_matrix_np(a_ids: Sequence[np.ndarray], b_ids: Sequence[np.ndarray], w: float = 1.2) -> np.ndarray:
    """:func:`wlcs` of every (a_i, b_k) pair, identical values. Row-wise DP over all pairs;
    within a row C[j] = D[j] at a match (D = diagonal + increment) and max(C_up[j], C[j−1])
    otherwise: a cumulative maximum that restarts at every match, computed exactly as the
    lexicographic running maximum of the complex numbers (segment number + i·value)."""
    A, la = _pad(a_ids, -1)
    B, lb = _pad(b_ids, -2)
    na, nb = len(a_ids), len(b_ids)
    res = np.zeros((na, nb), dtype=np.float64)
    if na == 0 or nb == 0 or A.shape[1] == 0 or B.shape[1] == 0:
        return res
    width = B.shape[1]
    inc = _wlcs_increments(max(A.shape[1], width) + 1, w)
    prev_c = np.zeros((na, nb, width + 1), dtype=np.float64)
    prev_w = np.zeros((na, nb, width + 1), dtype=np.int64)
    kk = np.arange(nb)
    for i in range(A.shape[1]):
        match = (A[:, i][:, None, None] == B[None, :, :])
        diag = prev_c[..., :-1] + inc[prev_w[..., :-1]]
        V = np.where(match, diag, prev_c[..., 1:])
        seg = np.cumsum(match, axis=2)
        z = np.empty(V.shape, dtype=np.complex128)
        z.real = seg
        z.imag = V
        cur_c = np.zeros_like(prev_c)
        cur_c[..., 1:] = np.maximum.accumulate(z, axis=2).imag
        cur_w = np.zeros_like(prev_w)
        cur_w[..., 1:] = np.where(match, prev_w[..., :-1] + 1, 0)
        done = np.nonzero(la == i + 1)[0]
        if len(done):
            res[done] = cur_c[done][:, kk, lb]
        prev_c, prev_w = cur_c, cur_w
    return res
