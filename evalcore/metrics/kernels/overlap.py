"""Clipped n-gram overlaps: Σ_g min(count_c(g), count_r(g)) of a candidate c and a reference r
(or min(count_c(g), max_r count_r(g)) over several references), for one pair, a block of
candidates × references, every pair of a chunk plan, or a whole chunk of segments in one compiled
loop.

This is the clipped count of Papineni et al. (2002, §2.1, modified n-gram precision: each
candidate n-gram counts at most as often as it occurs in a reference; with several references
at most its maximum count in any one of them, :func:`maxref_matches`). Over word unigrams it is
PER's and GTM-1's bag overlap (:func:`bag_overlap`, :func:`bag_overlap_pairs`), over word n-grams
ROUGE-N's hits (:func:`clipped_overlap`), over character n-grams the matches of chrF (Popović
2015; :func:`chunk_matches`, :func:`block_overlaps`) and of the BEER character n-gram features
(Stanojević & Sima'an 2014). The n-gram ids these work on come from
:mod:`evalcore.metrics.kernels.ngram`.

Every version gives the same exact integers (tests/test_levels.py, tests/test_chunk_kernels.py,
tests/test_family_kernels.py and tests/test_metrics_lexical.py compare them with literal
``Counter`` n-grams). The compiled kernels (numba, ``cache=True``) are compiled or loaded from
numba's cache on first use (:mod:`evalcore.metrics._jit`); without numba :data:`AVAILABLE` is
False and callers count with the layers of :func:`evalcore.metrics.kernels.ngram.ngram_layers`.

:func:`block_overlaps` counts many small blocks (a segment: its candidates then its references,
as id sequences) in one loop: for each order n = 1..N, ``hits[n−1, c, r]`` and every text's
n-gram total max(0, len − n + 1). Each n-gram is coded exactly as a base-``B`` number of its ids
(B = the block's largest id + 1; callers check B**N < 2**63, :func:`fits`), each text's codes are
sorted, and a two-pointer walk over two sorted multisets counts Σ_g min(count_c, count_r).
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from .._jit import HAVE_NUMBA, lazy_njit

AVAILABLE = HAVE_NUMBA


def clipped_overlap(a_keys: Sequence[np.ndarray], b_keys: Sequence[np.ndarray]) -> np.ndarray:
    """``out[i, k] = Σ_g min(count_{a_i}(g), count_{b_k}(g))`` for bags given as integer key
    arrays (repetitions = counts). Exact integers via count layers: Σ_g min(a_g, b_g) =
    Σ_{t≥1} Σ_g [a_g ≥ t][b_g ≥ t], one 0/1 matrix product per threshold t."""
    na, nb = len(a_keys), len(b_keys)
    out = np.zeros((na, nb), dtype=np.int64)
    if na == 0 or nb == 0:
        return out
    seqs = list(a_keys) + list(b_keys)
    lens = np.array([len(s) for s in seqs], dtype=np.int64)
    if lens[:na].sum() == 0 or lens[na:].sum() == 0:
        return out
    keys = np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs])
    owner = np.repeat(np.arange(len(seqs)), lens)
    _, g = np.unique(keys, return_inverse=True)
    n_g = int(g.max()) + 1
    in_a = np.zeros(n_g, dtype=bool)
    in_a[g[owner < na]] = True
    in_b = np.zeros(n_g, dtype=bool)
    in_b[g[owner >= na]] = True
    common = in_a & in_b
    keep = common[g]
    if not keep.any():
        return out
    n_c = int(common.sum())
    g2 = (np.cumsum(common) - 1)[g[keep]]
    n_s = len(seqs)
    counts = np.bincount(owner[keep] * n_c + g2, minlength=n_s * n_c).reshape(n_s, n_c)
    ca, cb = counts[:na], counts[na:]
    top = np.minimum(ca.max(axis=0), cb.max(axis=0))
    acc = np.zeros((na, nb))
    t = 1
    while ca.shape[1]:
        acc += (ca >= t).astype(np.float64) @ (cb >= t).astype(np.float64).T
        t += 1
        sel = top >= t
        if not sel.all():
            ca, cb, top = ca[:, sel], cb[:, sel], top[sel]
    return np.rint(acc).astype(np.int64)


def bag_overlap(a: Sequence, b: Sequence) -> int:
    """Σ_w min(n_a(w), n_b(w)): clipped overlap of two bags (sequences with repetitions)."""
    ca, cb = Counter(a), Counter(b)
    if len(ca) > len(cb):
        ca, cb = cb, ca
    return sum(min(k, cb[w]) for w, k in ca.items() if w in cb)


@lazy_njit
def bag_overlap_pairs(flat, offs, ph, pr, n_vocab):
    """Bag overlap Σ_w min(n_c(w), n_r(w)) of every pair (sequence ph[k], sequence pr[k]):
    the reference's counts in a table over the ids, each candidate token consumes one."""
    cnt = np.zeros(max(n_vocab, 1), np.int64)
    out = np.zeros(len(ph), np.int64)
    for k in range(len(ph)):
        r0, r1 = offs[pr[k]], offs[pr[k] + 1]
        for x in range(r0, r1):
            cnt[flat[x]] += 1
        m = 0
        for x in range(offs[ph[k]], offs[ph[k] + 1]):
            t = flat[x]
            if cnt[t] > 0:
                m += 1
                cnt[t] -= 1
        for x in range(r0, r1):
            cnt[flat[x]] = 0
        out[k] = m
    return out


@lazy_njit
def pooled_types(row, offs, lo, hi, cut):
    """The distinct non-negative n-gram ids of texts lo..hi−1, sorted: ``row[p]`` is the id of
    the n-gram starting at flat position p, text t's n-grams start at ``offs[t]`` up to
    ``offs[t+1] − cut`` (cut = order − 1); negative ids (no n-gram there) are left out. One
    pooled sort; the references' side of every clipped count here and in NIST's kernel."""
    tot = 0
    for t in range(lo, hi):
        tot += max(0, offs[t + 1] - offs[t] - cut)
    pool = np.empty(tot, np.int64)
    m = 0
    for t in range(lo, hi):
        for i in range(offs[t], offs[t + 1] - cut):
            pool[m] = row[i]
            m += 1
    pool.sort()
    uid = np.empty(tot, np.int64)
    u = 0
    for i in range(tot):
        if pool[i] >= 0 and (u == 0 or pool[i] != uid[u - 1]):
            uid[u] = pool[i]
            u += 1
    return uid[:u]


@lazy_njit
def max_ref_counts(row, offs, lo, hi, cut, uid):
    """``umax[j]`` = the largest count of n-gram ``uid[j]`` in any one of texts lo..hi−1
    (:func:`pooled_types`' layout): each text's sorted ids walked once along ``uid``."""
    umax = np.zeros(max(len(uid), 1), np.int64)
    for t in range(lo, hi):
        a, b = offs[t], offs[t + 1] - cut
        if b <= a:
            continue
        s = np.sort(row[a:b])
        i = 0
        j = 0
        while i < len(s):
            e = i + 1
            while e < len(s) and s[e] == s[i]:
                e += 1
            if s[i] >= 0:
                while uid[j] < s[i]:
                    j += 1
                if e - i > umax[j]:
                    umax[j] = e - i
            i = e
    return umax


@lazy_njit
def clipped_counts(row, a, b, uid, umax, gid, clip):
    """Papineni et al. (2002, §2.1) clipping of one candidate: for each distinct n-gram g ≥ 0 of
    ``row[a:b]`` that is in ``uid``, in increasing id order, ``gid[k] = g`` and ``clip[k] =
    min(count_c(g), umax[j])`` (``uid[j] = g``, :func:`max_ref_counts`); returns k, the number
    filled (``gid``/``clip`` need room for b − a entries). BLEU sums ``clip`` (:func:`maxref_matches`),
    NIST weighs it by each n-gram's information (:func:`evalcore.metrics.nist._chunk_kernel`)."""
    u = len(uid)
    k = 0
    if b <= a or u == 0:
        return 0
    s = np.sort(row[a:b])
    i = 0
    j = 0
    while i < len(s):
        e = i + 1
        while e < len(s) and s[e] == s[i]:
            e += 1
        g = s[i]
        if g >= 0:
            while j < u and uid[j] < g:
                j += 1
            if j < u and uid[j] == g:
                c = e - i
                gid[k] = g
                clip[k] = c if c < umax[j] else umax[j]
                k += 1
        i = e
    return k


@lazy_njit
def maxref_matches(ids, offs, r_lo, r_hi, g_cand, cand_text):
    """Clipped n-gram matches Σ_g min(count_c(g), max_r count_r(g)) of every candidate (rows in
    ``cand_text`` order) and order (columns), the references of candidate c's group q being the
    texts ``r_lo[q]:r_hi[q]`` (Papineni et al. 2002 §2.1, the clipping against the maximum
    reference count); ``ids`` as :func:`.ngram.dense_ngram_ids`. Exact integers.

    No sorting (as :func:`chunk_matches`): per group and order the references' n-grams go into
    a small hash table (:func:`_slot`) holding the maximum count over the references; the
    candidate's counts of those n-grams (:func:`_tally`) then add min(count, maximum) each. About 7× faster than sorting the pooled references and every candidate
    (13a word ids of 3,000 synthetic segments × 10 systems, orders 1..4)."""
    orders = ids.shape[0]
    maxpool, maxlen, bits = _table_shape(offs, r_lo, r_hi, cand_text)
    size = 1 << bits
    mask = size - 1
    keys = np.full(size, -1, np.int64)
    umax = np.zeros(size, np.int64)
    cnt = np.zeros(size, np.int64)
    used = np.empty(maxpool, np.int64)
    touched = np.empty(max(maxpool, maxlen), np.int64)
    out = np.zeros((len(cand_text), orders), np.int64)
    for q in range(len(r_lo)):
        for n in range(orders):
            nu = 0
            for t in range(r_lo[q], r_hi[q]):
                nt = 0
                for i in range(offs[t], offs[t + 1] - n):
                    x = ids[n, i]
                    if x < 0:
                        continue
                    s, nu = _insert(keys, x, mask, bits, used, nu)
                    cnt[s] += 1
                    if cnt[s] == 1:
                        touched[nt] = s
                        nt += 1
                for x in range(nt):
                    s = touched[x]
                    if cnt[s] > umax[s]:
                        umax[s] = cnt[s]
                    cnt[s] = 0
            if nu:
                for c in range(g_cand[q], g_cand[q + 1]):
                    t = cand_text[c]
                    nt = _tally(ids, n, offs[t], offs[t + 1] - n, keys, mask, bits, cnt, touched)
                    h = 0
                    for x in range(nt):
                        s = touched[x]
                        h += min(cnt[s], umax[s])
                        cnt[s] = 0
                    out[c, n] = h
            for x in range(nu):
                s = used[x]
                keys[s] = -1
                umax[s] = 0
    return out


@lazy_njit
def _slot(keys, x, mask, bits):
    """Open-addressing slot of id ``x`` (≥ 0) in ``keys`` (−1 = free): Fibonacci hashing
    (Knuth, TAOCP vol. 3, §6.4, multiplicative hashing) then linear probing; returns the slot
    holding ``x`` or the free slot where it would go."""
    s = np.int64((np.uint64(x) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))
    while keys[s] != -1 and keys[s] != x:
        s = (s + 1) & mask
    return s


@lazy_njit
def _table_shape(offs, r_lo, r_hi, cand_text):
    """(the most reference n-gram occurrences of one group, the longest candidate, the hash
    table's bits: a power of two at least twice the first) of both clipping kernels."""
    maxpool, maxlen = 1, 1
    for q in range(len(r_lo)):
        tot = 0
        for t in range(r_lo[q], r_hi[q]):
            tot += offs[t + 1] - offs[t]
        maxpool = max(maxpool, tot)
    for c in range(len(cand_text)):
        t = cand_text[c]
        maxlen = max(maxlen, offs[t + 1] - offs[t])
    bits = 1
    while (1 << bits) < 2 * maxpool:
        bits += 1
    return maxpool, maxlen, bits


@lazy_njit
def _insert(keys, x, mask, bits, used, nu):
    """(the slot of reference n-gram ``x``, the new number of used slots): ``x`` is entered in
    the table (its slot appended to ``used``) when it is not there yet."""
    s = _slot(keys, x, mask, bits)
    if keys[s] == -1:
        keys[s] = x
        used[nu] = s
        nu += 1
    return s, nu


@lazy_njit
def _tally(ids, n, lo, hi, keys, mask, bits, cnt, touched):
    """Count the occurrences of ``ids[n, lo:hi]`` whose n-gram is in the hash table ``keys`` (the
    references' n-grams; :func:`_slot`) into ``cnt`` by slot, each slot counted for the first
    time written to ``touched``; returns how many slots were touched. Both clipping kernels
    (:func:`maxref_matches`, :func:`chunk_matches`) then add min(count, limit) per touched slot
    (Σ_g min(count_c(g), limit(g)), Papineni et al. 2002 §2.1) and reset ``cnt``."""
    nt = 0
    for i in range(lo, hi):
        x = ids[n, i]
        if x < 0:
            continue
        s = _slot(keys, x, mask, bits)
        if keys[s] == -1:
            continue
        cnt[s] += 1
        if cnt[s] == 1:
            touched[nt] = s
            nt += 1
    return nt


@lazy_njit
def chunk_matches(ids, offs, r_lo, r_hi, g_cand, cand_text):
    """Clipped n-gram matches Σ_g min(count_c(g), count_r(g)) of every (candidate, reference of
    its group) pair and order, shape (pairs, orders), pairs candidate by candidate with the
    group's references in order; ``ids`` as :func:`.ngram.dense_ngram_ids`. Exact integers.

    No sorting: per group and order the
    references' n-grams go into a small hash table (:func:`_slot`) with a count per reference,
    the candidate's n-gram occurrences are counted once by slot (:func:`_tally`) and each pair
    (c, r) adds Σ_g min(count_c(g), count_r(g)) (Papineni et al. 2002, §2.1 clipping). About 5× faster
    than sorting every text's n-grams and walking them (synthetic 10k set, chrF's 6 orders)."""
    orders = ids.shape[0]
    npairs = 0
    maxnr = 1
    for q in range(len(r_lo)):
        nr = r_hi[q] - r_lo[q]
        npairs += (g_cand[q + 1] - g_cand[q]) * nr
        maxnr = max(maxnr, nr)
    maxpool, maxlen, bits = _table_shape(offs, r_lo, r_hi, cand_text)
    size = 1 << bits
    mask = size - 1
    keys = np.full(size, -1, np.int64)
    rc = np.zeros((size, maxnr), np.int64)
    cc = np.zeros(size, np.int64)
    used = np.empty(maxpool, np.int64)
    touched = np.empty(maxlen, np.int64)
    out = np.zeros((npairs, orders), np.int64)
    p0 = 0
    for q in range(len(r_lo)):
        nr = r_hi[q] - r_lo[q]
        for n in range(orders):
            nu = 0
            for k in range(nr):
                t = r_lo[q] + k
                for i in range(offs[t], offs[t + 1] - n):
                    x = ids[n, i]
                    if x < 0:
                        continue
                    s, nu = _insert(keys, x, mask, bits, used, nu)
                    rc[s, k] += 1
            p = p0
            for c in range(g_cand[q], g_cand[q + 1]):
                ct = cand_text[c]
                if nu:
                    nt = _tally(ids, n, offs[ct], offs[ct + 1] - n, keys, mask, bits, cc, touched)
                    for x in range(nt):
                        s = touched[x]
                        for k in range(nr):
                            out[p + k, n] += min(cc[s], rc[s, k])
                        cc[s] = 0
                p += nr
            for x in range(nu):
                s = used[x]
                keys[s] = -1
                for k in range(nr):
                    rc[s, k] = 0
        p0 += (g_cand[q + 1] - g_cand[q]) * nr
    return out


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
