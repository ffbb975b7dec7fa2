"""QUEEN of a metric set and KING of a metric set (methods §0-0.4, §1.2-1.3; Amigó et al. 2006 §3.1, §3.3).

QUEEN_{X,R}(a) = P_(r, r', r'')[ ∀x ∈ X: x(a, r) ≥ x(r', r'') ]   (methods §1.2)

over ordered triples of distinct references (``local``) or, for (r', r''), over the pool of
every ordered distinct reference pair of every segment (``pooled``; when r_j is held out the
pairs of that segment containing r_j are dropped; methods §0). ``auto`` uses local where the
segment has enough references (≥ 3 for QUEEN over R_s, ≥ 4 for leave-one-out) and pooled
elsewhere.

How it is fast (no loop over cases): for every metric the comparisons
``x(a, r) ≥ x(r', r'')`` are computed once as bit arrays (:class:`QueenBits`), already
masked to valid triples. The quantifier over X is then a bitwise AND over metrics, and
every QUEEN, with and without each held-out reference, is a count of set bits:

* local: with D[a, r, r', r''] the AND-ed bits (zero unless r, r', r'' are present and
  distinct), the count over all triples is T = ΣD and the count over the triples avoiding
  r_j is T − Σ_{r',r''} D[a, j, ·, ·] − Σ_{r, r''} D[a, ·, j, ·] − Σ_{r, r'} D[a, ·, ·, j]
  (a triple of distinct references contains r_j in at most one place).
* pooled: per (a, r) the number of pool pairs beaten, minus the pairs of the own segment
  that contain the held-out reference.

The held-out reference r_j is itself a candidate (its QUEEN over R_s − {r_j} uses
x(r_j, r) = ``ref_ref[s, j, r]``), so KING of a set (methods §1.3) reuses
:func:`evalcore.qarla.single.orange_king_arrays` on the leave-one-out QUEEN values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .single import OrangeKing, orange_king_arrays

MODES = ("local", "pooled", "auto")
QUEEN_TIES = ("geq", "strict")
_CHUNK_ELEMS = 8_000_000  # booleans per chunk while building bits
POOL_BYTES_LIMIT = 1 << 30  # pooled bits of one metric above this -> error (use local/auto)


def _cmp(ties: str):
    if ties == "geq":
        return np.greater_equal
    if ties == "strict":
        return np.greater
    raise ValueError(f"QUEEN ties must be one of {QUEEN_TIES}, got {ties!r}")


def _as_list(tensors) -> list:
    if isinstance(tensors, Mapping):
        return list(tensors.values())
    if hasattr(tensors, "sys_ref"):
        return [tensors]
    return list(tensors)


def _chunks(n: int, per_item: int):
    step = max(1, _CHUNK_ELEMS // max(per_item, 1))
    for lo in range(0, n, step):
        yield slice(lo, min(n, lo + step))


class QueenLayout:
    """What all metrics of one dataset share: presence of references / outputs, which
    segments use local or pooled triples, and the pool of reference pairs (methods §0)."""

    def __init__(self, tensors: Sequence, mode: str = "auto"):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        tensors = _as_list(tensors)
        if not tensors:
            raise ValueError("no similarity tensors given")
        t0 = tensors[0]
        for t in tensors[1:]:
            if (list(t.seg_ids) != list(t0.seg_ids) or list(t.systems) != list(t0.systems)
                    or list(t.ref_ids) != list(t0.ref_ids)):
                raise ValueError(f"tensors of {t.metric_id!r} and {t0.metric_id!r} are not aligned "
                                 "(segments, systems and references must match)")
        self.mode = mode
        self.seg_ids = list(t0.seg_ids)
        self.systems = list(t0.systems)
        self.ref_ids = list(t0.ref_ids)
        self.n_sys, self.n_seg, self.n_ref = np.shape(t0.sys_ref)
        N = self.n_ref
        ref_present = np.zeros((self.n_seg, N), bool)
        sys_present = np.zeros((self.n_sys, self.n_seg), bool)
        for t in tensors:
            rr = np.asarray(t.ref_ref, float)
            sr = np.asarray(t.sys_ref, float)
            ref_present |= np.isfinite(rr).any(axis=2) | np.isfinite(rr).any(axis=1)
            ref_present |= np.isfinite(np.asarray(t.loo_ref, float))
            ref_present |= np.isfinite(sr).any(axis=0)
            sys_present |= np.isfinite(sr).any(axis=2) | np.isfinite(np.asarray(t.loo_sys, float)).any(axis=2)
        self.ref_present = ref_present
        self.sys_present = sys_present
        m = ref_present.sum(axis=1)
        self.m = m
        local_ok = mode in ("local", "auto")
        self.full_local = (m >= 3) if local_ok else np.zeros(self.n_seg, bool)
        self.loo_local = (m >= 4) if local_ok else np.zeros(self.n_seg, bool)
        if mode == "pooled":
            self.full_pooled = m >= 1
            self.loo_pooled = m >= 2
        elif mode == "auto":
            self.full_pooled = (m >= 1) & (m < 3)
            self.loo_pooled = (m >= 2) & (m < 4)
        else:
            self.full_pooled = np.zeros(self.n_seg, bool)
            self.loo_pooled = np.zeros(self.n_seg, bool)
        self.local_segs = np.nonzero(self.full_local)[0]  # loo_local ⊆ full_local
        self.pooled_segs = np.nonzero(self.full_pooled | self.loo_pooled)[0]
        eye = np.eye(N, dtype=bool)
        # valid3[s, r, i, k]: r, i, k present and pairwise distinct
        pres = ref_present
        distinct3 = ~(eye[:, :, None] | eye[:, None, :] | eye[None, :, :])  # r≠i, r≠k, i≠k
        self._distinct3 = distinct3
        # distinct from j: [j, r, i, k]
        self._not_j = ~(eye[:, :, None, None] | eye[:, None, :, None] | eye[:, None, None, :])
        # the pool: every ordered pair (i, k), i ≠ k, both present, of every segment
        pair_ok = pres[:, :, None] & pres[:, None, :] & ~eye[None]
        ps, pi, pk = np.nonzero(pair_ok)
        self.pool = (ps, pi, pk)
        self.pool_size = len(ps)
        self.pair_ok = pair_ok
        if len(self.pooled_segs):
            q = len(self.pooled_segs) * (self.n_sys + N) * N
            need = q * ((self.pool_size + 7) // 8)
            if need > POOL_BYTES_LIMIT:
                raise ValueError(
                    f"pooled QUEEN here needs {need / 2**30:.1f} GiB of comparison bits per metric "
                    f"({len(self.pooled_segs)} pooled segments x {self.pool_size} pool pairs); "
                    "use mode='local' or 'auto' (segments with >= 4 references use local triples)")

    def valid3(self, segs) -> np.ndarray:
        p = self.ref_present[segs]
        return (p[:, :, None, None] & p[:, None, :, None] & p[:, None, None, :]) & self._distinct3[None]

    @property
    def kpad(self) -> int:
        """Bits per (r, i) row of the local bit arrays: n_ref padded to 8, 16, 32 or a multiple
        of 64 so that a row is one machine word (fast popcount) or whole 64-bit words."""
        N = self.n_ref
        for w in (8, 16, 32):
            if N <= w:
                return w
        return -(-N // 64) * 64

    def local_masks(self):
        """Packed validity of local triples, cached: ``v3[ls, r, i, kbytes]`` (r, i, k present
        and distinct) and ``v4[ls, j, r, i, kbytes]`` (also distinct from a present j)."""
        if not hasattr(self, "_local_masks"):
            L = self.local_segs
            N, K = self.n_ref, self.kpad
            v3 = np.zeros((len(L), N, N, K), bool)
            v3[..., :N] = self.valid3(L)
            v4 = np.zeros((len(L), N, N, N, K), bool)
            v4[..., :N] = (self.valid3(L)[:, None] & self._not_j[None]) & self.ref_present[L][:, :, None, None, None]
            self._local_masks = (np.packbits(v3, axis=-1), np.packbits(v4, axis=-1))
        return self._local_masks

@dataclass
class QueenBits:
    """Comparison bits of one metric (or, after ``&``, of a metric set).

    * ``loc_sys[r, i, ls, a, k packed]``  x(a, r) ≥ x(r_i, r_k), valid local triples only
    * ``loc_ref[r, i, ls, j, k packed]``  x(r_j, r) ≥ x(r_i, r_k), triples avoiding j
      (r and i lead so that sums over them add long contiguous rows)
    * ``pool_sys[ps, a, r, pool packed]``  x(a, r) ≥ pool pair value
    * ``pool_ref[ps, j, r, pool packed]``  x(r_j, r) ≥ pool pair value (r ≠ j)
    * ``own_sys[ps, a, r, i, k]`` / ``own_ref[ps, j, r, i, k]`` the same against the own
      segment's pairs, unpacked (to drop the pairs containing a held-out reference).
    """

    loc_sys: np.ndarray
    loc_ref: np.ndarray
    pool_sys: np.ndarray
    pool_ref: np.ndarray
    own_sys: np.ndarray
    own_ref: np.ndarray

    def __and__(self, other: "QueenBits") -> "QueenBits":
        return QueenBits(*(np.bitwise_and(a, b) for a, b in zip(self._fields(), other._fields())))

    def _fields(self):
        return (self.loc_sys, self.loc_ref, self.pool_sys, self.pool_ref, self.own_sys, self.own_ref)

    @property
    def nbytes(self) -> int:
        return sum(f.nbytes for f in self._fields())


def build_bits(t, lay: QueenLayout, ties: str = "geq") -> QueenBits:
    """Precompute the comparison bits of one metric (methods §1.2; ``ties``: ≥ or >)."""
    cmp = _cmp(ties)
    N, A = lay.n_ref, lay.n_sys
    NN = N * N
    sr = np.asarray(t.sys_ref, float).transpose(1, 0, 2)  # [seg, a, r]
    rr = np.asarray(t.ref_ref, float)  # [seg, i, k]
    # ---- local: sort once per segment, then every query's bits are a prefix mask
    L = lay.local_segs
    K = lay.kpad
    kb = K // 8
    loc_sys = np.zeros((N, N, len(L), A, kb), np.uint8)
    loc_ref = np.zeros((N, N, len(L), N, kb), np.uint8)
    v3p, v4p = lay.local_masks()
    for ch in _chunks(len(L), (N * K + 1) * N * kb + (A + N) * N * N * kb * 4):
        segs = L[ch]
        n = len(segs)
        pairs = np.full((n, N, K), np.nan)
        pairs[..., :N] = rr[segs]
        pairs = pairs.reshape(n, N * K)
        qs = np.where(lay.sys_present[:, segs].T[:, :, None], sr[segs], np.nan).reshape(n, A * N)
        cnt, prefix = _prefix_bits(pairs, np.concatenate([qs, rr[segs].reshape(n, NN)], axis=1), ties)
        # work on machine words (one (r, i) row of k bits = one word) for speed
        wdt = _WORD[kb] if kb in _WORD else np.uint64
        pw = prefix.view(wdt)  # [n, N*K + 1, N * nw]
        nw = pw.shape[-1] // N
        flat = pw.reshape(-1, N * nw)
        base = (np.arange(n) * pw.shape[1])[:, None]
        b = np.take(flat, (base + cnt[:, :A * N]).ravel(), axis=0).reshape(n, A, N, N, nw)
        b &= v3p[ch].view(wdt)[:, None]
        loc_sys.view(wdt)[:, :, ch] = b.transpose(2, 3, 0, 1, 4)
        b = np.take(flat, (base + cnt[:, A * N:]).ravel(), axis=0).reshape(n, N, N, N, nw)
        b &= v4p[ch].view(wdt)
        loc_ref.view(wdt)[:, :, ch] = b.transpose(2, 3, 0, 1, 4)
    # ---- pooled
    P = lay.pooled_segs
    ps, pi, pk = lay.pool
    pool_vals = rr[ps, pi, pk]  # [pool]
    nbp = (lay.pool_size + 63) // 64 * 8  # whole 64-bit words (fast popcount)
    nraw = (lay.pool_size + 7) // 8
    pool_sys = np.zeros((len(P), A, N, nbp), np.uint8)
    pool_ref = np.zeros((len(P), N, N, nbp), np.uint8)
    own_sys = np.zeros((len(P), A, N, N, N), bool)
    own_ref = np.zeros((len(P), N, N, N, N), bool)
    if len(P):
        eye = np.eye(N, dtype=bool)
        for ch in _chunks(len(P), (A + N) * N * max(lay.pool_size, 1)):
            segs = P[ch]
            pres = lay.ref_present[segs]
            qs = np.where(pres[:, None, :] & lay.sys_present[:, segs].T[:, :, None], sr[segs], np.nan)
            qr = np.where(pres[:, :, None] & pres[:, None, :] & ~eye[None], rr[segs], np.nan)
            pool_sys[ch, ..., :nraw] = np.packbits(cmp(qs[..., None], pool_vals), axis=-1)
            pool_ref[ch, ..., :nraw] = np.packbits(cmp(qr[..., None], pool_vals), axis=-1)
            own_pairs = np.where(lay.pair_ok[segs], rr[segs], np.nan)[:, None, None]  # [s,1,1,i,k]
            own_sys[ch] = cmp(qs[..., None, None], own_pairs)
            own_ref[ch] = cmp(qr[..., None, None], own_pairs)
    return QueenBits(loc_sys, loc_ref, pool_sys, pool_ref, own_sys, own_ref)


def _prefix_bits(pairs: np.ndarray, queries: np.ndarray, ties: str):
    """For each row (segment): how many ``pairs`` every query beats (≥ or >), and the packed
    bit masks ``prefix[c]`` = "the c smallest pairs", in the pairs' own order, so the bits
    of a query that beats c pairs are ``prefix[c]``. One sort of the pairs and a vectorised
    binary search replace |queries|·|pairs| comparisons.

    NaN pairs sort last and are never beaten; NaN queries beat nothing. Equal pairs are
    either all beaten or none, so their order in the sort does not matter.
    """
    n, npair = pairs.shape
    order = np.argsort(pairs, axis=1)  # NaN last
    srt = np.take_along_axis(pairs, order, axis=1)
    # branchless binary search ("binary lifting") on the row-flattened sorted pairs, padded
    # with +inf so that at least one padding value exists and the size is a power of two
    K = 1 << int(np.ceil(np.log2(npair + 1)))
    pad = np.full((n, K), np.inf)
    pad[:, :npair] = np.where(np.isnan(srt), np.inf, srt)
    flat = pad.ravel()
    base = (np.arange(n, dtype=np.int64) * K)[:, None]
    beats = np.less_equal if ties == "geq" else np.less  # pair ≤ query  /  pair < query
    lo = np.zeros(queries.shape, np.int64)
    step = K >> 1
    while step:
        lo += step * beats(np.take(flat, base + lo + (step - 1)), queries)
        step >>= 1
    lo = np.where(np.isnan(queries), 0, lo)
    rows = np.arange(n)[:, None]
    cnt = lo
    nb = (npair + 7) // 8
    onehot = np.zeros((n, npair + 1, nb), np.uint8)
    onehot[rows, np.arange(1, npair + 1)[None, :], order >> 3] = (128 >> (order & 7)).astype(np.uint8)
    if nb % 8 == 0:  # accumulate 8 bytes at a time
        prefix = np.bitwise_or.accumulate(onehot.view(np.uint64), axis=1).view(np.uint8)
    else:
        prefix = np.bitwise_or.accumulate(onehot, axis=1)  # prefix[c] = the c smallest pairs
    return cnt, prefix


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
_WORD = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _popcount_sum(packed: np.ndarray) -> np.ndarray:
    """Number of set bits along the last (packed) axis."""
    nb = packed.shape[-1]
    if nb == 0:
        return np.zeros(packed.shape[:-1], np.int64)
    if hasattr(np, "bitwise_count"):
        if nb in _WORD:
            w = np.ascontiguousarray(packed).view(_WORD[nb])[..., 0]
            return np.bitwise_count(w)
        if nb % 8 == 0:
            w = np.ascontiguousarray(packed).view(np.uint64)
            return np.bitwise_count(w).sum(axis=-1, dtype=np.int64)
    return _POPCOUNT[packed].sum(axis=-1, dtype=np.int64)


@dataclass
class QueenValues:
    """QUEEN of every candidate (methods §1.2-1.3), arrays aligned with ``systems`` / ``seg_ids``
    / ``ref_ids``; NaN where undefined (too few references for the mode, missing output).

    * ``full[a, s]``      QUEEN_{X, R_s}(a_s)
    * ``loo_sys[a, s, j]`` QUEEN_{X, R_s − {r_j}}(a_s)
    * ``loo_ref[s, j]``    QUEEN_{X, R_s − {r_j}}(r_j)
    * ``full_mode[s]`` / ``loo_mode[s]``: "local", "pooled" or "" (undefined)
    """

    metric_id: str
    seg_ids: list
    systems: list
    ref_ids: list
    full: np.ndarray
    loo_sys: np.ndarray
    loo_ref: np.ndarray
    full_mode: np.ndarray
    loo_mode: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """Tidy per (system, segment) QUEEN."""
        a, s = np.meshgrid(np.arange(len(self.systems)), np.arange(len(self.seg_ids)), indexing="ij")
        df = pd.DataFrame({"system": np.asarray(self.systems, dtype=object)[a.ravel()],
                           "seg_id": np.asarray(self.seg_ids, dtype=object)[s.ravel()],
                           "queen": self.full.ravel(),
                           "mode": self.full_mode[s.ravel()]})
        return df

    def loo_frame(self) -> pd.DataFrame:
        """Tidy leave-one-out QUEEN of references and outputs: seg_id, held_out, candidate, queen."""
        n_sys, n_seg, n_ref = self.loo_sys.shape
        s, j = np.meshgrid(np.arange(n_seg), np.arange(n_ref), indexing="ij")
        parts = [pd.DataFrame({"seg_id": np.asarray(self.seg_ids, object)[s.ravel()],
                               "held_out": np.asarray(self.ref_ids, object)[j.ravel()],
                               "candidate": np.asarray(self.ref_ids, object)[j.ravel()],
                               "is_reference": True, "queen": self.loo_ref.ravel()})]
        for a, name in enumerate(self.systems):
            parts.append(pd.DataFrame({"seg_id": np.asarray(self.seg_ids, object)[s.ravel()],
                                       "held_out": np.asarray(self.ref_ids, object)[j.ravel()],
                                       "candidate": name, "is_reference": False,
                                       "queen": self.loo_sys[a].ravel()}))
        df = pd.concat(parts, ignore_index=True)
        return df[np.isfinite(df["queen"].to_numpy(float))].reset_index(drop=True)


def reduce_bits(bits: QueenBits, lay: QueenLayout, metric_id: str = "") -> QueenValues:
    """Count the set bits into QUEEN values (methods §1.2 local / pooled; §1.3 leave-one-out)."""
    A, S, N = lay.n_sys, lay.n_seg, lay.n_ref
    m = lay.m.astype(float)
    full = np.full((A, S), np.nan)
    loo_sys = np.full((A, S, N), np.nan)
    loo_ref = np.full((S, N), np.nan)
    full_mode = np.full(S, "", dtype=object)
    loo_mode = np.full(S, "", dtype=object)
    # ---- local
    L = lay.local_segs
    K = lay.kpad
    cdt = np.uint16 if N * N < 65536 else np.int64
    for ch in _chunks(len(L), (A + N) * N * N * K):
        segs = L[ch]
        p = bits.loc_sys[:, :, ch]  # [r, i, s, a, kb]
        rows = _popcount_sum(p).astype(np.int64)  # [r, i, s, a]: Σ_k
        d_r = rows.sum(axis=1).transpose(1, 2, 0)  # [s, a, r]
        s_i = rows.sum(axis=0).transpose(1, 2, 0)  # [s, a, i]
        s_k = np.unpackbits(p, axis=-1, count=N).sum(axis=(0, 1), dtype=cdt).astype(np.int64)  # [s, a, k]
        tot = d_r.sum(axis=-1)  # [s, a]
        mm = m[segs]
        den_full = mm * (mm - 1) * (mm - 2)
        den_loo = (mm - 1) * (mm - 2) * (mm - 3)
        pres_sys = lay.sys_present[:, segs].T  # [s, a]
        fl = lay.full_local[segs]
        ll = lay.loo_local[segs]
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(pres_sys, tot / den_full[:, None], np.nan)  # [s, a]
            full[:, segs[fl]] = f[fl].T
            okj = lay.ref_present[segs]  # [s, j]
            cnt = tot[:, :, None] - d_r - s_i - s_k  # [s, a, j]
            v = np.where(okj[:, None, :] & pres_sys[:, :, None], cnt / den_loo[:, None, None], np.nan)
            loo_sys[:, segs[ll], :] = v[ll].transpose(1, 0, 2)
            cref = _popcount_sum(bits.loc_ref[:, :, ch]).sum(axis=(0, 1))  # [s, j]
            loo_ref[segs[ll]] = np.where(okj, cref / den_loo[:, None], np.nan)[ll]
        full_mode[segs[fl]] = "local"
        loo_mode[segs[lay.loo_local[segs]]] = "local"
    # ---- pooled
    P = lay.pooled_segs
    if len(P):
        Psz = float(lay.pool_size)
        eye = np.eye(N, dtype=bool)
        for ch in _chunks(len(P), (A + N) * N * max(lay.pool_size, 1) // 8 + 1):
            segs = P[ch]
            mm = m[segs]
            pres = lay.ref_present[segs]
            pres_sys = lay.sys_present[:, segs].T
            cnt = _popcount_sum(bits.pool_sys[ch])  # [s, a, r]
            cntr = _popcount_sum(bits.pool_ref[ch])  # [s, j, r]
            o = bits.own_sys[ch]  # [s, a, r, i, k]
            own_j = o.sum(axis=4, dtype=np.int32) + o.sum(axis=3, dtype=np.int32)  # [s, a, r, j]
            orf = bits.own_ref[ch]  # [s, j, r, i, k]
            # pairs of the own segment containing j: i == j or k == j, for candidate r_j
            diag_i = np.einsum("sjrjk->sjr", orf.astype(np.int32))
            diag_k = np.einsum("sjrij->sjr", orf.astype(np.int32))
            own_ref_j = diag_i + diag_k  # [s, j, r]
            fp = lay.full_pooled[segs]
            lp = lay.loo_pooled[segs]
            with np.errstate(invalid="ignore", divide="ignore"):
                f = cnt.sum(axis=-1) / (mm * Psz)[:, None]
                full[:, segs[fp]] = np.where(pres_sys, f, np.nan)[fp].T
                den = (mm - 1) * (Psz - 2 * (mm - 1))
                keep = pres[:, None, :, None] & ~eye[None, None]  # [s, 1, r, j]: r present, r ≠ j
                x = np.where(keep, cnt[..., None] - own_j, 0).sum(axis=2)  # [s, a, j]
                okj = pres & (den > 0)[:, None]
                v = np.where(okj[:, None, :] & pres_sys[:, :, None], x / den[:, None, None], np.nan)
                loo_sys[:, segs[lp], :] = v[lp].transpose(1, 0, 2)
                xr = (cntr - own_ref_j).sum(axis=-1)  # query bits are already zero for r = j / absent
                loo_ref[segs[lp]] = np.where(okj, xr / den[:, None], np.nan)[lp]
            full_mode[segs[fp]] = "pooled"
            loo_mode[segs[lp]] = "pooled"
    return QueenValues(metric_id, lay.seg_ids, lay.systems, lay.ref_ids, full, loo_sys, loo_ref,
                       full_mode, loo_mode)


class QueenIndex:
    """Precomputed comparison bits of many metrics on one dataset, for QUEEN / KING of any
    subset (methods §1.2-1.4). Build once, then query sets cheaply::

        idx = QueenIndex({"bleu": t1, "chrf": t2}, mode="auto")
        idx.king(["bleu", "chrf"]).king
    """

    def __init__(self, tensors, mode: str = "auto", ties: str = "geq",
                 progress: Callable[[int, int], None] | None = None):
        if isinstance(tensors, Mapping):
            items = list(tensors.items())
        else:
            items = [(t.metric_id, t) for t in _as_list(tensors)]
        names = [n for n, _ in items]
        if len(set(names)) != len(names):
            raise ValueError(f"metric names must be unique, got {names}")
        _cmp(ties)
        self.mode = mode
        self.ties = ties
        self.layout = QueenLayout([t for _, t in items], mode)
        self.tensors = dict(items)
        self.bits: dict[str, QueenBits] = {}
        for done, (name, t) in enumerate(items):
            self.bits[name] = build_bits(t, self.layout, ties)
            if progress:
                progress(done + 1, len(items))

    @property
    def names(self) -> list[str]:
        return list(self.bits)

    def set_bits(self, names: Sequence[str]) -> QueenBits:
        names = list(names)
        if not names:
            raise ValueError("empty metric set")
        out = self.bits[names[0]]
        for n in names[1:]:
            out = out & self.bits[n]
        return out

    def values(self, names: Sequence[str] | None = None, bits: QueenBits | None = None) -> QueenValues:
        if bits is None:
            bits = self.set_bits(names or [])
        return reduce_bits(bits, self.layout, "+".join(names or []))

    def king(self, names: Sequence[str] | None = None, bits: QueenBits | None = None, ties: str = "geq",
             average: str = "micro", bootstrap: int = 0, seed: int = 0, ci: float = 0.95,
             baselines: bool = True) -> OrangeKing:
        """KING (and ORANGE) of the set (methods §1.3): ``ties`` applies to QUEEN(r) ≥ QUEEN(a)."""
        qv = self.values(names, bits)
        return orange_king_arrays(qv.loo_ref, qv.loo_sys, ties=ties, average=average,
                                  bootstrap=bootstrap, seed=seed, ci=ci, metric=qv.metric_id,
                                  baselines=baselines)


def queen(tensors, mode: str = "auto", ties: str = "geq") -> QueenValues:
    """QUEEN_X of every (system, segment) over all references, and leave-one-out QUEEN of
    references and outputs (methods §0, §1.2; Amigó et al. 2006 §3.1). ``tensors``: one SimTensors per
    metric of the set X (list or dict), all on the same dataset."""
    idx = QueenIndex(tensors, mode=mode, ties=ties)
    return idx.values(idx.names)


def king_of_set(tensors, mode: str = "auto", queen_ties: str = "geq", ties: str = "geq",
                average: str = "micro", bootstrap: int = 0, seed: int = 0, ci: float = 0.95) -> OrangeKing:
    """KING_{A,R}(X) = P_(s,r)[∀a: QUEEN_{X,R_s−{r}}(r) ≥ QUEEN_{X,R_s−{r}}(a)] (methods §0, §1.3;
    Amigó et al. 2006 §3.3), with the tie modes of §1.1 on the QUEEN values (``ties``) and ≥ / > inside
    QUEEN (``queen_ties``). The returned ORANGE is the set's ORANGE on QUEEN values."""
    idx = QueenIndex(tensors, mode=mode, ties=queen_ties)
    return idx.king(idx.names, ties=ties, average=average, bootstrap=bootstrap, seed=seed, ci=ci)
