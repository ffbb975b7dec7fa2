"""Clipped n-gram overlaps of many small blocks in one compiled loop (numba).

For each block (a segment: its candidates then its references, as id sequences) and each order
n = 1..N, ``hits[n−1, c, r] = Σ_g min(count_c(g), count_r(g))`` over the n-grams g — the
clipped matches of BLEU (Papineni et al. 2002), chrF (Popović 2015) and the BEER character
n-gram features (Stanojević & Sima'an 2014) — and every text's n-gram total max(0, len − n + 1).
Each n-gram is coded exactly as a base-``B`` number of its ids (B = the block's largest id + 1;
callers check B**N < 2**63, :func:`fits`), each text's codes are sorted, and a two-pointer walk
over two sorted multisets counts Σ_g min(count_c, count_r). Integer counts: the same numbers as
the count-layer products of :func:`evalcore.metrics.bleu.ngram_layers`, far fewer numpy calls.
"""
from __future__ import annotations

import numpy as np

from ._jit import HAVE_NUMBA, lazy_njit

AVAILABLE = HAVE_NUMBA


@lazy_njit
def _overlaps(ids, tstart, bstart, bnc, bbase, max_n, hits, hoff, totals):  # pragma: no cover (compiled)
    nb = len(bnc)
    for b in range(nb):
        t0, t1 = bstart[b], bstart[b + 1]
        nc = bnc[b]
        nr = t1 - t0 - nc
        base = bbase[b]
        size = 0
        for t in range(t0, t1):
            size += tstart[t + 1] - tstart[t]
        scratch = np.empty(max(size, 1), dtype=np.int64)
        offs = np.empty(t1 - t0 + 1, dtype=np.int64)
        for n in range(1, max_n + 1):
            o = 0
            for t in range(t0, t1):
                s, L = tstart[t], tstart[t + 1] - tstart[t]
                m = L - n + 1
                if m < 0:
                    m = 0
                offs[t - t0] = o
                for i in range(m):
                    code = 0
                    for j in range(n):
                        code = code * base + ids[s + i + j]
                    scratch[o + i] = code
                if m > 1:
                    scratch[o:o + m] = np.sort(scratch[o:o + m])
                totals[t, n - 1] = m
                o += m
            offs[t1 - t0] = o
            for c in range(nc):
                a0, a1 = offs[c], offs[c + 1]
                for r in range(nr):
                    k0, k1 = offs[nc + r], offs[nc + r + 1]
                    i, j, cnt = a0, k0, 0
                    while i < a1 and j < k1:
                        x, y = scratch[i], scratch[j]
                        if x == y:
                            cnt += 1
                            i += 1
                            j += 1
                        elif x < y:
                            i += 1
                        else:
                            j += 1
                    hits[hoff[b] + ((n - 1) * nc + c) * nr + r] = cnt


@lazy_njit
def _overlaps_ranked(ids, tstart, bstart, bnc, bbase, max_n, hits, hoff, totals, table, cnt):  # pragma: no cover
    """The counts of :func:`_overlaps` without sorting: within a block the n-grams get dense
    ranks order by order (rank of the n-gram at i = first-appearance rank of the pair
    (rank of the (n−1)-gram at i, id at i+n−1), looked up in ``table``, a flat array of −1
    of size ≥ ranks × base), and each pair's Σ_g min(count_c, count_r) is counted in ``cnt``
    (the reference's ranks added, the candidate's consumed). ``table`` and ``cnt`` are left
    as they were given (all −1, all 0)."""
    nb = len(bnc)
    for b in range(nb):
        t0, t1 = bstart[b], bstart[b + 1]
        nc = bnc[b]
        nr = t1 - t0 - nc
        base = bbase[b]
        p0, p1 = tstart[t0], tstart[t1]
        rk = ids[p0:p1].copy()  # 1-gram ranks: the ids (below base)
        codes = np.empty(max(p1 - p0, 1), np.int64)
        for n in range(1, max_n + 1):
            if n > 1:
                nxt = 0
                for t in range(t0, t1):
                    s, L = tstart[t], tstart[t + 1] - tstart[t]
                    for i in range(L - n + 1):
                        q = s - p0 + i
                        code = rk[q] * base + ids[s + i + n - 1]
                        codes[q] = code
                        v = table[code]
                        if v < 0:
                            v = nxt
                            table[code] = v
                            nxt += 1
                        rk[q] = v
                for t in range(t0, t1):  # leave the table as given
                    s, L = tstart[t], tstart[t + 1] - tstart[t]
                    for i in range(L - n + 1):
                        table[codes[s - p0 + i]] = -1
            for t in range(t0, t1):
                m = tstart[t + 1] - tstart[t] - n + 1
                totals[t, n - 1] = m if m > 0 else 0
            for c in range(nc):
                cs = tstart[t0 + c] - p0
                mc = tstart[t0 + c + 1] - tstart[t0 + c] - n + 1
                for r in range(nr):
                    rs = tstart[t0 + nc + r] - p0
                    mr = tstart[t0 + nc + r + 1] - tstart[t0 + nc + r] - n + 1
                    cntv = 0
                    if mc > 0 and mr > 0:
                        for i in range(mr):
                            cnt[rk[rs + i]] += 1
                        for i in range(mc):
                            g = rk[cs + i]
                            if cnt[g] > 0:
                                cntv += 1
                                cnt[g] -= 1
                        for i in range(mr):
                            cnt[rk[rs + i]] = 0
                    hits[hoff[b] + ((n - 1) * nc + c) * nr + r] = cntv


#: largest rank table (entries) :func:`block_overlaps` allocates for the sort-free counts
RANK_TABLE_MAX = 1 << 23


def fits(base: int, max_n: int) -> bool:
    """Whether n-grams up to ``max_n`` of ids below ``base`` have exact int64 codes."""
    return int(base) ** int(max_n) < 2 ** 63


def block_overlaps(seqs_per_block, n_cands, max_n: int, ranked: bool = False):
    """Per block ``(hits (max_n, nc, nr) int64, totals (texts, max_n) int64)``.

    ``seqs_per_block[b]``: the block's id sequences (non-negative ints), candidates first
    (``n_cands[b]`` of them) then references. Returns None when numba is absent or a block's
    ids are too many for exact codes (the caller then counts with count layers).
    ``ranked=True``: count with :func:`_overlaps_ranked` (no sorting; the same integers) when
    every block's rank table stays under :data:`RANK_TABLE_MAX` entries (ids must then be
    below each block's largest id + 1 = base, ranked within the block, as the BEER
    features' are)."""
    if not AVAILABLE:
        return None
    seqs = [np.asarray(x, dtype=np.int64) for blk in seqs_per_block for x in blk]
    lens = np.array([len(x) for x in seqs], dtype=np.int64)
    ids = np.concatenate(seqs) if seqs else np.zeros(0, np.int64)
    tstart = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    sizes = np.array([len(b) for b in seqs_per_block], dtype=np.int64)
    bstart = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    bnc = np.asarray(n_cands, dtype=np.int64)
    bbase = np.ones(len(sizes), dtype=np.int64)
    for b in range(len(sizes)):
        lo, hi = tstart[bstart[b]], tstart[bstart[b + 1]]
        if hi > lo:
            bbase[b] = int(ids[lo:hi].max()) + 1
        if not fits(bbase[b], max_n):
            return None
    nr = sizes - bnc
    cells = max_n * bnc * nr
    hoff = np.concatenate([[0], np.cumsum(cells)]).astype(np.int64)
    hits = np.zeros(int(hoff[-1]), dtype=np.int64)
    totals = np.zeros((len(seqs), max_n), dtype=np.int64)
    chars = tstart[bstart[1:]] - tstart[bstart[:-1]]
    need = int((chars * bbase).max()) + 1 if len(sizes) else 1
    if ranked and need <= RANK_TABLE_MAX:
        size = int(max(chars.max(), bbase.max())) + 1 if len(sizes) else 1
        _overlaps_ranked(ids, tstart, bstart, bnc, bbase, int(max_n), hits, hoff[:-1].copy(), totals,
                         np.full(need, -1, dtype=np.int64), np.zeros(size, dtype=np.int64))
    else:
        _overlaps(ids, tstart, bstart, bnc, bbase, int(max_n), hits, hoff[:-1].copy(), totals)
    out = []
    for b in range(len(sizes)):
        h = hits[hoff[b]:hoff[b + 1]].reshape(max_n, int(bnc[b]), int(nr[b]))
        out.append((h, totals[bstart[b]:bstart[b + 1]]))
    return out
