"""GTM, the General Text Matcher (Turian, Shen & Melamed 2003; methods §7.5).

Registered ids ``gtm-1``, ``gtm-2``, ``gtm-3`` (run exponent e = 1, 2, 3; 0..1, higher is
better).

* A matching aligns candidate and reference tokens one-to-one; a *run* is a maximal block of
  aligned tokens contiguous in both. size(M) = (Σ_runs |run|^e)^(1/e); MMS = max size.
* e = 1: MMS is exactly the clipped unigram overlap Σ_w min(n_c(w), n_r(w)).
* e > 1: the usual greedy approximation (methods §7.5 [A]): repeatedly take the longest common
  run of still unaligned tokens, ties broken by the earliest candidate position, then the
  earliest reference position (:func:`gtm_runs`). Greedy also aligns every possible word, so
  Σ|run| equals the e = 1 MMS.
* P = MMS/|c|, R = MMS/|r|, GTM = F = 2PR/(P+R); 0 when MMS = 0 (so an empty candidate or an
  empty reference scores 0, and so do two empty strings).
* Several references: the maximum F over references (methods §7.5 [A]; gtm.jar differs).
* Corpus level (Turian et al.: the corpus is one bitext whose runs cannot cross segments):
  per segment the statistics ``[Σ_runs |run|^e, |c|, |r*|]`` of the best reference r*; the
  corpus MMS is (Σ_s Σ_runs |run|^e)^(1/e) and P, R divide it by Σ|c| and Σ|r*|.

Default text: 13a tokens of lower-cased text (``tokenize``, ``lowercase`` are options).
Plain functions: :func:`gtm_runs`, :func:`gtm_mms`, :func:`gtm_f`.
"""
from __future__ import annotations

import heapq
from functools import partial
from typing import Sequence

import numpy as np

from ._caches import bounded_cache, lru_memo
from .base import MetricMeta, MetricOption, register
from ._jit import lazy_njit as _njit
from .edit import PairwiseWordMetric, _nb, token_options
from .kernels.plans import overlap_pairs
from .kernels.dp import _pad, flatten_ids
from .kernels.ngram import encode_block
from .kernels.overlap import bag_overlap, clipped_overlap

CITATION = ("Turian, Shen & Melamed (2003), Evaluation of machine translation and its evaluation, "
            "MT Summit IX")


@lru_memo("gtm.pair_runs", 1 << 14)
def _runs_cached(c: tuple, r: tuple) -> tuple[int, ...]:
    return _greedy_runs(c, r)


def _greedy_runs(c: Sequence, r: Sequence) -> tuple[int, ...]:
    rpos: dict = {}
    for j, t in enumerate(r):
        rpos.setdefault(t, []).append(j)
    nc, nr = len(c), len(r)
    heap = []
    for i, t in enumerate(c):
        for j in rpos.get(t, ()):
            if i and j and c[i - 1] == r[j - 1]:
                continue  # not the start of a maximal diagonal run
            k = 1
            while i + k < nc and j + k < nr and c[i + k] == r[j + k]:
                k += 1
            heap.append((-k, i, j))
    return _greedy_from_runs(heap, nc, nr)


def _greedy_from_runs(runs: list, nc: int, nr: int) -> tuple[int, ...]:
    """Greedy selection from the maximal diagonal runs ``(-length, i, j)`` of a pair: take
    runs in (longest, earliest candidate position, earliest reference position) order; a
    run partly covered by earlier choices is split into its free pieces, which re-enter the
    queue."""
    runs = sorted(runs)
    used_c = bytearray(nc)
    used_r = bytearray(nr)
    out: list[int] = []
    extra: list = []  # split pieces (a heap), merged with the sorted list
    p, n = 0, len(runs)
    while p < n or extra:
        if extra and (p >= n or extra[0] < runs[p]):
            neg, i, j = heapq.heappop(extra)
        else:
            neg, i, j = runs[p]
            p += 1
        if neg == -1:
            if not used_c[i] and not used_r[j]:
                used_c[i] = used_r[j] = 1
                out.append(1)
            continue
        length = -neg
        pieces, start = [], None
        for k in range(length):
            free = not used_c[i + k] and not used_r[j + k]
            if free and start is None:
                start = k
            elif not free and start is not None:
                pieces.append((start, k))
                start = None
        if start is not None:
            pieces.append((start, length))
        if pieces == [(0, length)]:
            for k in range(length):
                used_c[i + k] = used_r[j + k] = 1
            out.append(length)
        else:
            for a, b in pieces:
                heapq.heappush(extra, (-(b - a), i + a, j + a))
    return tuple(out)


_BLOCK_CACHE = bounded_cache("gtm.blocks", 1024)


def gtm_runs_block(cands: Sequence[tuple], refs: Sequence[tuple]) -> list[list[tuple[int, ...]]]:
    """:func:`gtm_runs` for every (candidate, reference) pair of a block (identical values).
    The maximal diagonal runs of all pairs are found with numpy; pairs where no token
    matches twice in a row or column take all their runs (sorted longest first), the others
    go through the greedy selection. Cached per block (shared by gtm-2, gtm-3, meteor)."""
    key = (tuple(cands), tuple(refs))
    hit = _BLOCK_CACHE.get(key)
    if hit is not None:
        return hit
    nc, nk = len(cands), len(refs)
    out: list[list[tuple[int, ...]]] = [[()] * nk for _ in range(nc)]
    ids, _ = encode_block(list(cands) + list(refs))
    A, la = _pad(ids[:nc], -1)
    B, lb = _pad(ids[nc:], -2)
    if nc and nk and A.shape[1] and B.shape[1]:
        chunk = max(1, int(4_000_000 // max(1, nk * A.shape[1] * B.shape[1])))
        for c0 in range(0, nc, chunk):
            E = A[c0:c0 + chunk, None, :, None] == B[None, :, None, :]  # c, k, i, j
            prev = np.zeros_like(E)
            prev[:, :, 1:, 1:] = E[:, :, :-1, :-1]
            nxt = np.zeros_like(E)
            nxt[:, :, :-1, :-1] = E[:, :, 1:, 1:]
            sc, sk, si, sj = np.nonzero(E & ~prev)
            ec, ek, ei, ej = np.nonzero(E & ~nxt)
            o_s = np.lexsort((si, sj - si, sk, sc))
            o_e = np.lexsort((ei, ej - ei, ek, ec))
            sc, sk, si, sj = sc[o_s], sk[o_s], si[o_s], sj[o_s]
            length = ei[o_e] - si + 1
            clash = (E.sum(axis=3).max(axis=2) > 1) | (E.sum(axis=2).max(axis=2) > 1)  # c, k
            order = np.lexsort((sj, si, -length, sk, sc))
            sc, sk, si, sj, length = sc[order], sk[order], si[order], sj[order], length[order]
            bounds = np.flatnonzero(np.diff(sc * nk + sk)) + 1
            starts = np.concatenate([[0], bounds]) if len(sc) else np.zeros(0, np.int64)
            ends = np.concatenate([bounds, [len(sc)]]) if len(sc) else np.zeros(0, np.int64)
            L, I, J = length.tolist(), si.tolist(), sj.tolist()
            for a, b in zip(starts.tolist(), ends.tolist()):
                c, k = int(sc[a]), int(sk[a])
                if clash[c, k]:
                    runs = _greedy_from_runs([(-L[x], I[x], J[x]) for x in range(a, b)],
                                             int(la[c0 + c]), int(lb[k]))
                else:
                    runs = tuple(L[a:b])
                out[c0 + c][k] = runs
    _BLOCK_CACHE[key] = out
    return out


@_njit
def _heap_push(heap, n, key):
    heap[n] = key
    i = n
    while i > 0:
        parent = (i - 1) // 2
        if heap[parent] <= heap[i]:
            break
        heap[parent], heap[i] = heap[i], heap[parent]
        i = parent
    return n + 1


@_njit
def _heap_pop(heap, n):
    top = heap[0]
    n -= 1
    heap[0] = heap[n]
    i = 0
    while True:
        lft = 2 * i + 1
        if lft >= n:
            break
        small = lft
        if lft + 1 < n and heap[lft + 1] < heap[lft]:
            small = lft + 1
        if heap[i] <= heap[small]:
            break
        heap[i], heap[small] = heap[small], heap[i]
        i = small
    return top, n


@_njit
def _greedy_runs_many(flat, offs, nc, nk):
    """:func:`_greedy_runs` for every (candidate t < nc, reference nc + k) pair of texts
    stored back to back in ``flat`` (:func:`_greedy_runs_pairs` of the pairs in (c, k)
    order). Returns (run lengths of all pairs in selection order, offsets per pair c * nk + k)."""
    ph = np.empty(nc * nk, np.int64)
    pr = np.empty(nc * nk, np.int64)
    for c in range(nc):
        for k in range(nk):
            ph[c * nk + k] = c
            pr[c * nk + k] = nc + k
    return _greedy_runs_pairs(flat, offs, ph, pr)


@_njit
def _greedy_runs_pairs(flat, offs, ph, pr):
    """:func:`_greedy_runs` of the pairs (sequence ph[p], sequence pr[p]) of sequences stored
    back to back in ``flat``. Runs are (−length, i, j) encoded as one integer (same order as
    the tuples); the sorted maximal runs are merged with a heap of split pieces exactly as
    :func:`_greedy_from_runs` does. Returns (run lengths of all pairs in selection order,
    offsets per pair)."""
    lens = offs[1:] - offs[:-1]
    n_pairs = len(ph)
    cap = 0
    for q in range(n_pairs):
        cap += min(lens[ph[q]], lens[pr[q]])
    out = np.zeros(cap, np.int64)
    pos = np.zeros(n_pairs + 1, np.int64)
    w = 0
    longest = 1  # over the sequences of the pairs only: a sequence no pair uses (a segment over the
    # alignment cap, left out by the plan) must not size the buffers (40,000 tokens: 1.6e9 entries)
    for q in range(n_pairs):
        longest = max(longest, lens[ph[q]], lens[pr[q]])
    B = longest + 1
    runs = np.zeros(longest * longest + 1, np.int64)
    heap = np.zeros(longest * longest + 1, np.int64)
    used_c = np.zeros(B, np.bool_)
    used_r = np.zeros(B, np.bool_)
    for q in range(n_pairs):
        a = flat[offs[ph[q]]:offs[ph[q] + 1]]
        n_a = len(a)
        b = flat[offs[pr[q]]:offs[pr[q] + 1]]
        n_b = len(b)
        nr = 0
        for i in range(n_a):
            for j in range(n_b):
                if a[i] != b[j]:
                    continue
                if i > 0 and j > 0 and a[i - 1] == b[j - 1]:
                    continue
                L = 1
                while i + L < n_a and j + L < n_b and a[i + L] == b[j + L]:
                    L += 1
                runs[nr] = ((B - L) * B + i) * B + j
                nr += 1
        srt = np.sort(runs[:nr])
        for x in range(n_a):
            used_c[x] = False
        for x in range(n_b):
            used_r[x] = False
        p = 0
        nh = 0
        while p < nr or nh > 0:
            if nh > 0 and (p >= nr or heap[0] < srt[p]):
                key, nh = _heap_pop(heap, nh)
            else:
                key = srt[p]
                p += 1
            j = key % B
            i = (key // B) % B
            L = B - key // (B * B)
            if L == 1:
                if not used_c[i] and not used_r[j]:
                    used_c[i] = True
                    used_r[j] = True
                    out[w] = 1
                    w += 1
                continue
            whole = True
            for x in range(L):
                if used_c[i + x] or used_r[j + x]:
                    whole = False
                    break
            if whole:
                for x in range(L):
                    used_c[i + x] = True
                    used_r[j + x] = True
                out[w] = L
                w += 1
            else:
                start = -1
                for x in range(L + 1):
                    free = x < L and not used_c[i + x] and not used_r[j + x]
                    if free and start < 0:
                        start = x
                    elif not free and start >= 0:
                        nh = _heap_push(heap, nh, ((B - (x - start)) * B + i + start) * B + j + start)
                        start = -1
        pos[q + 1] = w
    return out, pos


def runs_pairs(plan) -> tuple[np.ndarray, np.ndarray]:
    """The greedy runs of every pair of a :class:`~evalcore.metrics.kernels.plans.ChunkPairs` as flat
    arrays ``(runs, pos)`` (pair p took ``runs[pos[p]:pos[p+1]]``, identical to
    :func:`gtm_runs`): one compiled call per chunk, memoised in ``plan.memo`` (gtm-2 and gtm-3
    share it)."""
    hit = plan.memo.get("gtm_runs")
    if hit is None:
        hit = plan.memo["gtm_runs"] = _greedy_runs_pairs(plan.flat, plan.offs, plan.ph, plan.pr)
    return hit


@_njit
def _run_power_sums(runs, pos, e):
    """Σ_runs float(k) ** e per pair, summed left to right (as ``sum(...)`` in Python), and the
    number of runs and Σ k per pair."""
    n = len(pos) - 1
    acc = np.zeros(n, np.float64)
    cnt = np.zeros(n, np.float64)
    tot = np.zeros(n, np.float64)
    for t in range(n):
        s = 0.0
        m = 0
        for x in range(pos[t], pos[t + 1]):
            s += float(runs[x]) ** e
            m += runs[x]
        acc[t] = s
        cnt[t] = pos[t + 1] - pos[t]
        tot[t] = m
    return acc, cnt, tot


@_njit
def _roots(acc, inv_e):
    """acc ** inv_e elementwise with C's pow (as Python's ``**``; numpy's own power can differ
    in the last bit)."""
    out = np.empty(len(acc), np.float64)
    for t in range(len(acc)):
        out[t] = acc[t] ** inv_e
    return out


_RUNS_CACHE = bounded_cache("gtm.runs_arrays", 64)


def gtm_runs_arrays(cands: Sequence[tuple], refs: Sequence[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """The greedy runs of every (candidate, reference) pair as flat arrays ``(runs, pos)``:
    pair (c, k) took ``runs[pos[c*K+k]:pos[c*K+k+1]]`` in selection order (identical to
    :func:`gtm_runs`). Compiled when numba is installed; cached per block (shared by gtm-2,
    gtm-3 and meteor)."""
    key = (tuple(cands), tuple(refs))
    hit = _RUNS_CACHE.get(key)
    if hit is not None:
        return hit
    nc, nk = len(cands), len(refs)
    if _nb is not None:
        ids, _ = encode_block(list(cands) + list(refs))
        flat, offs = flatten_ids(ids)
        out = _greedy_runs_many(flat, offs, nc, nk)
    else:
        block = gtm_runs_block(cands, refs)
        flat_runs = [x for row in block for rr in row for x in rr]
        pos = np.zeros(nc * nk + 1, dtype=np.int64)
        np.cumsum([len(rr) for row in block for rr in row], out=pos[1:])
        out = (np.array(flat_runs, dtype=np.int64), pos)
    _RUNS_CACHE[key] = out
    return out


def gtm_runs(c: Sequence, r: Sequence) -> tuple[int, ...]:
    """Lengths of the runs chosen by the greedy GTM matcher, in the order they were taken
    (longest common run of unaligned tokens first; ties: earliest candidate position, then
    earliest reference position). Spec §7.1."""
    return _runs_cached(tuple(c), tuple(r))


def gtm_mms(c: Sequence, r: Sequence, e: float = 1) -> float:
    """Maximum match size (Σ_runs |run|^e)^(1/e); exact for e = 1 (the bag overlap), greedy
    for e > 1 (methods §7.5)."""
    if e == 1:
        return float(bag_overlap(c, r))
    return _mms_from_runs(gtm_runs(c, r), e)


def _mms_from_runs(runs: Sequence[int], e: float) -> float:
    return float(sum(float(k) ** e for k in runs) ** (1.0 / e))


def _f(mms: float, nc: int, nr: int) -> float:
    if mms <= 0 or nc == 0 or nr == 0:
        return 0.0
    p, r = mms / nc, mms / nr
    return 2 * p * r / (p + r)


def f_array(mms: np.ndarray, nc: np.ndarray, nr: np.ndarray) -> np.ndarray:
    """:func:`_f` elementwise (the same operations in the same order)."""
    mms, nc, nr = np.broadcast_arrays(np.asarray(mms, dtype=np.float64), np.asarray(nc, dtype=np.float64),
                                      np.asarray(nr, dtype=np.float64))
    ok = (mms > 0) & (nc != 0) & (nr != 0)
    p = mms / np.where(ok, nc, 1.0)
    r = mms / np.where(ok, nr, 1.0)
    den = np.where(ok, p + r, 1.0)
    return np.where(ok, 2 * p * r / den, 0.0)


def gtm_f(c: Sequence, r: Sequence, e: float = 1) -> float:
    """GTM F-measure 2PR/(P+R) with P = MMS/|c|, R = MMS/|r| (0 if MMS = 0). Spec §7.1."""
    return _f(gtm_mms(c, r, e), len(c), len(r))


class GTM(PairwiseWordMetric):
    """GTM-e (module docstring)."""

    n_stats = 3

    def __init__(self, e: float = 1, tokenize: str = "13a", lowercase: bool = True, metric_id: str | None = None):
        super().__init__(tokenize, lowercase)
        self.e = e
        mid = metric_id or f"gtm-{e:g}"
        self.meta = MetricMeta(
            id=mid, family="GTM",
            description=(f"GTM F-measure with run exponent e={e:g} (" + ("exact maximum matching" if e == 1 else
                         "greedy longest-run matching") + "); best reference; corpus = bitext MMS"),
            citation=CITATION, higher_is_better=True,
            options=(MetricOption("e", e, "run-length exponent (1 = bag overlap)"),) + token_options(True))

    @property
    def quadratic(self) -> bool:
        """GTM-2/-3 search greedy runs over every equal (candidate, reference) token pair (|c|·|r|
        of them at worst): capped like the alignments. GTM-1 is the bag overlap (linear)."""
        return self.e != 1

    def _signature_extra(self):
        return [f"e:{self.e:g}"]

    def _pair(self, c, r):
        if self.e == 1:
            mms = float(bag_overlap(c, r))
            s = mms
        else:
            runs = gtm_runs(c, r)
            s = float(sum(float(k) ** self.e for k in runs))
            mms = _mms_from_runs(runs, self.e)
        return _f(mms, len(c), len(r)), (s, len(c), len(r))

    def _score_stats(self, s):
        mms = float(s[0] ** (1.0 / self.e)) if self.e != 1 else float(s[0])
        return _f(mms, s[1], s[2])

    def _pairs_stats(self, plan):
        """Values and ``_pair`` statistics ``[Σ_runs |run|^e, |c|, |r|]`` of every pair of a
        chunk (methods §7.5): e = 1 from the bag overlaps, e > 1 from the greedy runs (the
        operations of :meth:`_block`, so identical values)."""
        lc, lr = plan.lc.astype(np.float64), plan.lr.astype(np.float64)
        if self.e != 1:
            runs, pos = runs_pairs(plan)
            acc = _run_power_sums(runs, pos, float(self.e))[0]
            mms = _roots(acc, 1.0 / self.e)
        else:
            acc = mms = overlap_pairs(plan).astype(np.float64)
        return f_array(mms, lc, lr), np.stack([acc, lc, lr], axis=1)

    def _block(self, cands, refs):
        nc, nk = len(cands), len(refs)
        lc = np.array([len(c) for c in cands], dtype=np.float64)[:, None]
        lr = np.array([len(r) for r in refs], dtype=np.float64)[None, :]
        if self.e != 1:
            runs, pos = gtm_runs_arrays(cands, refs)
            acc = _run_power_sums(runs, pos, float(self.e))[0]
            mms = _roots(acc, 1.0 / self.e).reshape(nc, nk)
        else:
            ids, _ = encode_block(list(cands) + list(refs))
            mms = clipped_overlap(ids[:nc], ids[nc:]).astype(np.float64)
        return f_array(mms, lc, lr)


for _e in (1, 2, 3):
    register(f"gtm-{_e}", partial(GTM, e=_e))
