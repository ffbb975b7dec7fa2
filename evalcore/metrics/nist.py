"""NIST (Doddington 2002) as mteval-v13a.pl computes it (methods §7.4).

Registered ids ``nist-1`` .. ``nist-5`` (NIST-n uses n-gram orders 1..n; 0..∞, higher is
better). mteval-v13a's defaults are the metric's defaults: 13a tokens (sacreBLEU's 13a is
mteval-v13a's tokenisation) of **lower-cased** text (mteval lower-cases unless ``-c``).

**Information weights** (``compute_ngram_info``) come from *all references of the corpus*:
info(w1..wn) = log2(count(w1..wn−1) / count(w1..wn)), info(w) = log2(#reference words /
count(w)), counts over every reference segment of every reference set. The weights are kept in
compact arrays (:class:`InfoTable`: n-grams as packed int64 ids of token ids, weights as a
float64 array, look-ups by ``np.searchsorted``), 16 bytes per distinct reference n-gram.

**Corpus context — how to call it.** ``metric.fit(references_per_segment)`` stores the
n-gram counts of a corpus's references (``references_per_segment``: one list of reference
strings per segment; ``None`` entries are skipped) and from then on every call uses those
weights; ``fit`` returns the metric, ``unfit()`` forgets them, ``is_fitted`` tells. The
engine should call ``fit`` once per dataset with *all* its references (every reference set)
before scoring. The signature then carries ``info:fit-<hash of the counts>``. An unfitted
metric takes the weights from the references of each call instead: ``sentence_score(c, R)``
and ``similarity(c, r)`` treat R (or {r}) as the whole corpus — methods §8's "this pair as the
whole corpus" — ``segment_block`` does so for each reference set it scores against
(each single reference, each R − {r_j}), and ``segment_stats(cands, refs)`` /
``corpus_score`` use all references passed in that call (= mteval-v13a on that corpus).
An n-gram matched in a call but absent from the fitted counts has information 0.

**Per segment and order n** (``score_segment``): matched info_n = Σ_g info(g) ·
min(count_c(g), max_r count_r(g)), count_n = max(0, |c| − n + 1). Several references are
NIST's own multi-reference rule: clipping by the maximum count over references, and the
reference length L_ref = the average reference length.

**Score** (``nist_score``): Σ_{n≤N} info_n / max(count_n, 1) × BP, with the brevity penalty
(``nist_length_penalty``) BP = 1 if ρ ≥ 1, 0 if ρ ≤ 0, else exp(−β ln²ρ), ρ = L_sys/L_ref,
β = −ln 0.5 / ln² 1.5 (BP = 0.5 at ρ = 2/3). Corpus: info_n, count_n, L_sys, L_ref summed
over segments (per-segment statistics ``[info_1..info_N, count_1..count_N, |c|, L_ref]``).

Empty candidate: 0. Empty references (L_ref = 0): no n-gram can match, so 0 (BP is taken as
1). No reference: NaN.
"""
from __future__ import annotations

import copy
import hashlib
import math
from array import array
from functools import partial
from typing import Iterable, Sequence, cast

import numpy as np

from ._jit import lazy_njit
from .base import Metric, MetricMeta, MetricOption, register, valid_stats
from .edit import WordMetric, token_options
from ._caches import bounded_cache
from .kernels.ngram import encode_block, ngram_keys_all
from .kernels.overlap import clipped_counts, max_ref_counts, pooled_types
from .kernels.plans import chunk_texts

CITATION = ("Doddington (2002), Automatic evaluation of machine translation quality using n-gram "
            "co-occurrence statistics, HLT; NIST mteval-v13a.pl")

BETA = -math.log(0.5) / math.log(1.5) / math.log(1.5)


def nist_bp(l_sys: float, l_ref: float) -> float:
    """NIST length penalty exp(−β ln²ρ) for ρ = l_sys/l_ref < 1 (1 if ρ ≥ 1, 0 if ρ ≤ 0);
    1 when l_ref = 0 (methods §7.4, mteval-v13a ``nist_length_penalty``)."""
    if l_ref <= 0:
        return 1.0
    rho = l_sys / l_ref
    if rho >= 1:
        return 1.0
    if rho <= 0:
        return 0.0
    return math.exp(-BETA * math.log(rho) * math.log(rho))


class InfoTable:
    """The information weights of :func:`ngram_info` in compact arrays (methods §7.4;
    Doddington 2002): no Python object per n-gram.

    ``vocab`` maps each reference token to an id (sorted token order). An n-gram of order n
    has the id of its position in ``keys[n-1]``; ``keys[0]`` are the token ids and for n > 1
    ``keys[n-1]`` holds the sorted codes ``id(w1..wn−1) · V + id(wn)`` (V = vocabulary size),
    which are collision-free (an exact packing, checked to fit in int64). ``info[n-1]`` are
    the weights in the same order. Look-ups (:meth:`lookup`) run ``np.searchsorted`` order by
    order. 16 bytes per distinct reference n-gram plus the vocabulary.

    The weights of all orders live in one array, ``flat`` (``info[n-1]`` is its slice
    ``offsets[n-1]:offsets[n]``), which the compiled scorer reads directly: per 32-segment chunk
    it used to concatenate the orders afresh, a copy of the whole table each time (at 100k
    segments × 4 references, 17 M weights: most of NIST's time and a worker's peak memory).
    The keys of all orders likewise live in one array, ``flat_keys``, cut by the same offsets.
    Travels as plain arrays (:meth:`to_arrays` / :meth:`from_arrays`: to Dask workers in
    :class:`evalcore.scoring.parallel.Packed`, and when pickled), so the views are rebuilt on arrival.
    """

    __slots__ = ("vocab", "keys", "info", "max_n", "flat", "offsets", "flat_keys")

    def __init__(self, vocab: dict, keys: list, info: list, max_n: int):
        lens = [len(i) for i in info]
        self._set(vocab, max_n, np.concatenate([[0], np.cumsum(lens, dtype=np.int64)]).astype(np.int64),
                  np.ascontiguousarray(np.concatenate(keys) if keys else np.zeros(0, np.int64), dtype=np.int64),
                  np.ascontiguousarray(np.concatenate(info) if info else np.zeros(0), dtype=np.float64))

    def _set(self, vocab: dict, max_n: int, offsets: np.ndarray, flat_keys: np.ndarray, flat: np.ndarray) -> None:
        """The table from its one key array and one weight array; each order's keys and
        weights are views of them, cut by ``offsets`` (so shipping the table copies nothing
        but those arrays)."""
        self.vocab, self.max_n, self.offsets, self.flat_keys, self.flat = vocab, max_n, offsets, flat_keys, flat
        self.keys = [flat_keys[offsets[n]:offsets[n + 1]] for n in range(len(offsets) - 1)]
        self.info = [flat[offsets[n]:offsets[n + 1]] for n in range(len(offsets) - 1)]

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The table as plain arrays (no pickle; see :class:`evalcore.scoring.parallel.Packed`): the
        vocabulary as its UTF-8 bytes and each token's byte length, in id order; every order's
        keys and weights concatenated, cut by ``offsets``."""
        words = [w.encode("utf-8") for w in sorted(self.vocab, key=self.vocab.__getitem__)]
        return {"vocab_bytes": np.frombuffer(b"".join(words), dtype=np.uint8),
                "vocab_lens": np.fromiter(map(len, words), dtype=np.int64, count=len(words)),
                "keys": self.flat_keys,
                "flat": self.flat, "offsets": self.offsets, "max_n": np.array([self.max_n])}

    @classmethod
    def from_arrays(cls, a) -> "InfoTable":
        """The table of :meth:`to_arrays` (``a``: that dict); keys and weights are views of
        the two arrays (of the packed buffer when they arrive from the driver)."""
        raw = a["vocab_bytes"].tobytes()
        ends = np.cumsum(a["vocab_lens"]).tolist()
        vocab = {raw[b:e].decode("utf-8"): i for i, (b, e) in enumerate(zip([0] + ends[:-1], ends))}
        t = cls.__new__(cls)
        t._set(vocab, int(a["max_n"][0]), a["offsets"], a["keys"], a["flat"])
        return t

    def __reduce__(self):
        return InfoTable.from_arrays, (self.to_arrays(),)

    def __len__(self) -> int:
        return int(sum(len(k) for k in self.keys))

    def nbytes(self) -> int:
        """Bytes of the n-gram arrays (the vocabulary dict not included)."""
        return int(sum(k.nbytes for k in self.keys) + sum(i.nbytes for i in self.info))

    def ngram_ids(self, grams: np.ndarray) -> np.ndarray:
        """Ids of n-grams given as an (m × n) array of token ids (−1 = token not in the
        vocabulary); −1 for n-grams not in the table."""
        grams = np.asarray(grams, dtype=np.int64)
        m, n = grams.shape
        if n > self.max_n or m == 0:
            return np.full(m, -1, dtype=np.int64)
        v = len(self.vocab)
        cur = grams[:, 0].copy()
        for k in range(1, n):
            ok = (cur >= 0) & (grams[:, k] >= 0)
            code = np.where(ok, cur, 0) * v + np.where(ok, grams[:, k], 0)
            keys = self.keys[k]
            pos = np.searchsorted(keys, code)
            hit = ok & (pos < len(keys))
            hit[hit] = keys[pos[hit]] == code[hit]
            cur = np.where(hit, pos, -1)
        return cur

    def lookup(self, grams: np.ndarray) -> np.ndarray:
        """Weights of n-grams given as an (m × n) array of token ids; 0 for n-grams (or
        tokens) not in the table."""
        ids = self.ngram_ids(grams)
        n = np.asarray(grams).shape[1] if np.ndim(grams) == 2 else 0
        out = np.zeros(len(ids))
        if n and n <= self.max_n:
            ok = ids >= 0
            out[ok] = self.info[n - 1][ids[ok]]
        return out

    def get(self, gram: Sequence[str], default: float = 0.0) -> float:
        """The weight of one n-gram given as a token tuple (``default`` when absent)."""
        ids = [self.vocab.get(t, -1) for t in gram]
        if not ids or -1 in ids:
            return default
        i = int(self.ngram_ids(np.array([ids]))[0])
        return float(self.info[len(ids) - 1][i]) if i >= 0 else default

    def as_dict(self) -> dict[tuple, float]:
        """The table as ``{token tuple: weight}`` (for tests and inspection; not compact)."""
        inv = sorted(self.vocab, key=self.vocab.__getitem__)
        v = len(inv)
        out = {}
        grams: list[tuple[int, ...]] = [(i,) for i in range(len(self.keys[0]))] if self.keys else []
        for n in range(self.max_n):
            if n:
                grams = [grams[int(c) // v] + (int(c) % v,) for c in self.keys[n]]
            for g, w in zip(grams, self.info[n].tolist()):
                out[tuple(inv[t] for t in g)] = w
        return out


def _log2_ratio(den: np.ndarray, k: np.ndarray, chunk: int = 1 << 18) -> np.ndarray:
    """log2(den/k) elementwise with ``math.log2`` (one call per distinct pair of a chunk), so the
    weights are exactly mteval's whatever numpy's log2 implementation. Chunked: a table of
    millions of n-grams needs no million-long temporaries."""
    if not len(k):
        return np.zeros(0)
    # the distinct (den, k) pairs as one int64 code each (den · K + k, K > max k: exact)
    kk = int(k.max()) + 1
    if (int(den.max()) + 1) * kk >= 2 ** 63:
        raise OverflowError("n-gram counts do not fit in int64 codes")
    out = np.empty(len(k))
    memo: dict[int, float] = {}
    for a in range(0, len(k), chunk):
        pairs, inv = np.unique(np.asarray(den[a:a + chunk], dtype=np.int64) * kk + k[a:a + chunk],
                               return_inverse=True)
        vals = np.array([memo[p] if p in memo else memo.setdefault(p, math.log2((p // kk) / (p % kk)))
                         for p in pairs.tolist()])
        out[a:a + chunk] = vals[inv.reshape(-1)]
    return out


def ngram_info(references: Iterable[Sequence[str]], max_n: int = 5) -> InfoTable:
    """Information weights of every n-gram (n ≤ max_n) of the given tokenised references
    (one token sequence per reference segment): methods §7.4 / ``compute_ngram_info``,
    info(w1..wn) = log2(count(w1..wn−1)/count(w1..wn)), info(w) = log2(#words/count(w)).
    ``references`` may be a generator: it is read once and no token list is kept. Returns an
    :class:`InfoTable` (compact arrays)."""
    # one pass over the (possibly streamed) references: ids in first-seen order, no token lists
    first_seen: dict = {}
    flat = array("i")  # int32 ids (checked below)
    seq_lens = array("q")
    for toks in references:
        n0 = len(flat)
        flat.extend(first_seen.setdefault(t, len(first_seen)) for t in toks)
        seq_lens.append(len(flat) - n0)
    order = sorted(first_seen)  # ids in sorted token order (as the literal's vocabulary)
    vocab = {t: i for i, t in enumerate(order)}
    remap = np.fromiter((vocab[t] for t in first_seen), dtype=np.int32, count=len(first_seen))
    v = max(len(vocab), 1)
    lens = np.frombuffer(seq_lens, dtype=np.int64) if len(seq_lens) else np.zeros(0, np.int64)
    total = int(lens.sum())
    ids32 = remap[np.frombuffer(flat, dtype=np.int32)] if total else np.zeros(0, np.int32)
    del flat, first_seen
    # working memory ~50 bytes a reference token (the table itself: 16 bytes a distinct n-gram):
    # n-gram ids are int32, and each order's distinct codes come from one sort (not np.unique's
    # inverse and counts, which hold several more token-length arrays) — at 100k segments × 4
    # references (8 M tokens) this was the largest transient of a batch run
    if total and (v >= 2 ** 31 or total >= 2 ** 31):
        raise OverflowError("more than 2**31 reference tokens or types")
    room = (np.repeat(np.cumsum(lens), lens) - np.arange(total)).astype(np.int32)
    keys: list[np.ndarray] = []
    info: list[np.ndarray] = []
    cur = ids32  # id of the n-gram starting at each position (valid where room >= n)
    prev_counts = np.zeros(0, dtype=np.int64)  # the counts of order n - 1 (read from n = 2 on)
    for n in range(1, max_n + 1):
        pos = np.flatnonzero(room >= n)
        if n == 1:
            code = ids32.astype(np.int64)
        else:
            if len(keys[-1]) and (len(keys[-1]) - 1) * v + v - 1 >= 2 ** 63:
                raise OverflowError("n-gram codes do not fit in int64")
            code = cur[pos].astype(np.int64)
            code *= v
            code += ids32[pos + n - 1]
        perm = np.argsort(code, kind="stable")
        code = code[perm]  # sorted
        new_group = np.empty(len(code), dtype=bool)
        if len(code):
            new_group[0] = True
            np.not_equal(code[1:], code[:-1], out=new_group[1:])
        starts = np.flatnonzero(new_group)
        uk = code[starts]
        cnt = np.diff(np.append(starts, len(code))).astype(np.int64)
        del code
        group = np.cumsum(new_group, dtype=np.int32)
        group -= 1
        del new_group, starts
        den = np.full(len(uk), total, dtype=np.int64) if n == 1 else prev_counts[uk // v]
        keys.append(uk)
        info.append(_log2_ratio(den, cnt))
        nxt = np.full(total, -1, dtype=np.int32)
        nxt[pos[perm]] = group
        del perm, group, pos
        cur, prev_counts = nxt, cnt
    return InfoTable(vocab, keys, info, max_n)


def _nist_kernel(cands: list[tuple], refs: list[tuple], member: np.ndarray, max_n: int,
                 table: "InfoTable | None") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Matched information per (order, reference set, candidate).

    ``member`` (V × K, bool) defines V reference sets over the K references. Returns
    ``info[n−1, v, c]`` (Σ_g info·clipped count), ``counts[n−1, c]`` and ``l_ref[v]`` (average
    reference length). With ``table`` None each reference set supplies its own weights.
    Sums over n-grams run sequentially in the n-grams' lexicographic order, so the value for
    a (candidate, reference set) does not depend on the other candidates and sets passed.
    """
    nc, nk, nv = len(cands), len(refs), member.shape[0]
    ids, _ = encode_block(list(cands) + list(refs))
    allkeys = ngram_keys_all(ids, max_n)
    mem = member.astype(np.int64)
    rlens = np.array([len(r) for r in refs], dtype=np.int64)
    nsets = mem.sum(axis=1)
    l_ref = (mem @ rlens) / np.maximum(nsets, 1)
    info_out = np.zeros((max_n, nv, nc))
    counts_out = np.zeros((max_n, nc), dtype=np.int64)
    prev_rc = np.zeros((0, 0), dtype=np.int64)  # the reference counts of order n - 1 (read from n = 2 on)
    if table is not None:
        # the block's token ids (sorted token order) -> the table's vocabulary ids (−1: absent)
        block_vocab = sorted({t for s in list(cands) + list(refs) for t in s})
        to_table = np.array([table.vocab.get(t, -1) for t in block_vocab] or [-1], dtype=np.int64)
        tok_lens = np.array([len(x) for x in ids], dtype=np.int64)
        tok_starts = np.cumsum(tok_lens) - tok_lens
        tok_table_ids = to_table[np.concatenate(ids)] if tok_lens.sum() else np.zeros(0, np.int64)
    for n in range(1, max_n + 1):
        keys = allkeys[n - 1]
        counts_out[n - 1] = [len(k) for k in keys[:nc]]
        nonempty = [k for k in keys if len(k)]
        g_max = 1 + (int(np.concatenate(nonempty).max()) if nonempty else -1)
        # reference counts (K × G)
        rk = keys[nc:]
        rc = np.zeros((nk, g_max + 1), dtype=np.int64)
        if nk and g_max:
            own = np.repeat(np.arange(nk), [len(k) for k in rk])
            flat = np.concatenate(rk) if own.size else np.zeros(0, np.int64)
            np.add.at(rc, (own, flat), 1)
        ck = keys[:nc]
        tmax = max((len(k) for k in ck), default=0)
        if tmax and nk:
            # candidate types (sorted = lexicographic) and counts, padded with the zero column g_max
            clens = np.array([len(k) for k in ck], dtype=np.int64)
            code = np.repeat(np.arange(nc), clens) * (g_max + 1) + np.concatenate(ck)
            pair, tc = np.unique(code, return_counts=True)
            p_c, p_g = pair // (g_max + 1), pair % (g_max + 1)
            n_types = np.bincount(p_c, minlength=nc)
            col = np.arange(len(pair)) - np.repeat(np.cumsum(n_types) - n_types, n_types)
            width = int(n_types.max())
            types = np.full((nc, width), g_max, dtype=np.int64)
            tcnt = np.zeros((nc, width), dtype=np.int64)
            types[p_c, col] = p_g
            tcnt[p_c, col] = tc
            rel, rel_idx = np.unique(types, return_inverse=True)
            rel_idx = rel_idx.reshape(types.shape)
            rc_rel = rc[:, rel]  # K × R
            vmax = (mem[:, :, None] * rc_rel[None, :, :]).max(axis=1)  # V × R (integers)
            clip = np.minimum(tcnt[None, :, :], vmax[:, rel_idx])  # V × C × T
            if table is not None:
                # n-grams no reference contains are clipped to 0: their weight does not matter
                # (0 · w adds 0), so only the others are looked up, each by its first occurrence
                lookup = np.zeros(len(rel))
                in_ref = np.flatnonzero(rc_rel.max(axis=0) > 0) if nk else np.zeros(0, np.int64)
                if len(in_ref):
                    klens = np.array([len(k) for k in keys], dtype=np.int64)
                    flat = np.concatenate(keys)
                    starts = np.repeat(tok_starts, klens)  # flat token position of each n-gram
                    starts = starts + np.arange(len(flat)) - np.repeat(np.cumsum(klens) - klens, klens)
                    uniq, first = np.unique(flat, return_index=True)
                    loc = np.searchsorted(uniq, rel[in_ref])  # every in_ref n-gram occurs in a reference
                    p0 = starts[first[loc]]
                    grams = tok_table_ids[p0[:, None] + np.arange(n)[None, :]]
                    lookup[in_ref] = table.lookup(grams)
                info = np.broadcast_to(lookup, (nv, len(rel)))
            else:
                cnt_v = mem @ rc_rel  # V × R
                if n == 1:
                    pref_v = np.broadcast_to((mem @ rlens)[:, None], cnt_v.shape)
                else:
                    prefix_of = np.zeros(g_max + 1, dtype=np.int64)
                    pk = allkeys[n - 2]
                    for s in range(len(keys)):
                        if len(keys[s]):
                            prefix_of[keys[s]] = pk[s][:len(keys[s])]
                    pref_v = mem @ prev_rc[:, prefix_of[rel]]
                ok = cnt_v > 0
                ratio = np.ascontiguousarray(np.where(ok, pref_v, 1) / np.where(ok, cnt_v, 1), dtype=np.float64)
                info = np.where(ok, np.log2(ratio), 0.0)
            prod = clip * info[:, rel_idx]  # V × C × T
            info_out[n - 1] = np.cumsum(prod, axis=2)[:, :, -1]
        prev_rc = rc
    return info_out, counts_out, l_ref


def _scores(info: np.ndarray, counts: np.ndarray, l_ref: np.ndarray, clens: Sequence[int], upto: int) -> np.ndarray:
    """NIST-``upto`` per (reference set, candidate) from the kernel output."""
    nv, nc = info.shape[1], info.shape[2]
    total = np.zeros((nv, nc))
    for n in range(upto):
        total = total + info[n] / np.maximum(counts[n], 1)[None, :]
    l_sys = np.broadcast_to(np.asarray(clens, dtype=np.float64)[None, :], (nv, nc))
    l_r = np.broadcast_to(np.asarray(l_ref, dtype=np.float64)[:, None], (nv, nc))
    return total * nist_bp_array(l_sys, l_r)


def nist_bp_array(l_sys: np.ndarray, l_ref: np.ndarray) -> np.ndarray:
    """:func:`nist_bp` elementwise (the same cases, numpy arithmetic)."""
    l_sys, l_ref = np.broadcast_arrays(np.asarray(l_sys, dtype=np.float64), np.asarray(l_ref, dtype=np.float64))
    ok = l_ref > 0
    rho = np.where(ok, l_sys, 1.0) / np.where(ok, l_ref, 1.0)
    mid = (rho > 0) & (rho < 1)
    lr = np.log(np.ascontiguousarray(np.where(mid, rho, 0.5)))
    bp = np.exp(np.ascontiguousarray(-BETA * lr * lr))
    return np.where(~ok | (rho >= 1), 1.0, np.where(rho <= 0, 0.0, bp))


@lazy_njit
def _chunk_kernel(ng, offs, info_flat, info_off, r_lo, r_hi, g_cand, cand_text, max_n):
    """Matched information ``out[c, n−1]`` = Σ_g info(g) · min(count_c(g), max_r count_r(g)) of
    every candidate of a chunk (methods §7.4; Doddington 2002). ``ng[n−1, p]`` is the weight
    table's id of the n-gram starting at flat token position p (−1: not in the table, or past
    the end of its text); texts are ``offs[t]:offs[t+1]``; group q has the reference texts
    ``r_lo[q]:r_hi[q]`` and the candidates ``g_cand[q]:g_cand[q+1]`` (text ``cand_text[c]``).
    The sum runs over the candidate's distinct n-grams in increasing id order, which is their
    lexicographic order, as :func:`_nist_kernel` sums (identical values); n-grams without a
    weight add 0 there and are skipped here."""
    nc = len(cand_text)
    out = np.zeros((nc, max_n), np.float64)
    width = 1
    for c in range(nc):
        t = cand_text[c]
        width = max(width, offs[t + 1] - offs[t])
    gid = np.empty(width, np.int64)
    clip = np.empty(width, np.int64)
    nq = len(r_lo)
    for q in range(nq):
        for n in range(1, max_n + 1):
            row = ng[n - 1]
            # the references' n-grams with a weight: sorted distinct ids and the maximum count
            # over the references of each; then each candidate's clipped counts (kernels.overlap)
            uid = pooled_types(row, offs, r_lo[q], r_hi[q], n - 1)
            umax = max_ref_counts(row, offs, r_lo[q], r_hi[q], n - 1, uid)
            base = info_off[n - 1]
            for c in range(g_cand[q], g_cand[q + 1]):
                t = cand_text[c]
                k = clipped_counts(row, offs[t], offs[t + 1] - n + 1, uid, umax, gid, clip)
                s = 0.0
                for x in range(k):
                    s += clip[x] * info_flat[base + gid[x]]
                out[c, n - 1] = s
    return out


def chunk_stats(tok, cands: Sequence[str], refs: Sequence[Sequence[str]], table: InfoTable, max_n: int) -> tuple:
    """NIST statistics of many candidates at once with the weights of ``table`` (methods §7.4):
    ``(info (C × max_n), counts (C × max_n), |c|, L_ref, has_ref)``; ``tok`` tokenises a text.
    Candidates sharing their reference list (a segment's outputs) form a group; the whole call is
    one compiled run over flat token ids (:func:`_chunk_kernel`) instead of numpy calls per
    segment and order. Values are those of :func:`_nist_kernel` with the same table (exactly)."""
    nc = len(cands)
    info = np.zeros((nc, max_n))
    counts = np.zeros((nc, max_n))
    clen = np.zeros(nc)
    l_ref = np.zeros(nc)
    has_ref = np.zeros(nc, dtype=bool)
    vocab = table.vocab
    texts, r_lo, r_hi, g_cand, cand_text, cand_item = chunk_texts(
        cands, [[r for r in rs if isinstance(r, str)] for rs in refs], tok)
    if not len(cand_item):
        return info, counts, clen, l_ref, has_ref
    tlens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    offs = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(tlens, out=offs[1:])
    clen[cand_item] = tlens[cand_text]
    # each group's mean reference length (an exact integer sum over a count, as sum(lens) / len)
    l_ref[cand_item] = np.repeat((offs[r_hi] - offs[r_lo]) / (r_hi - r_lo), np.diff(g_cand))
    has_ref[cand_item] = True
    total = int(offs[-1])
    ids = np.fromiter((vocab.get(w, -1) for t in texts for w in t), dtype=np.int64, count=total)
    room = np.repeat(offs[1:], tlens) - np.arange(total)  # tokens left from each position
    orders = min(max_n, table.max_n)
    ng = np.full((max_n, total), -1, dtype=np.int64)
    ng[0] = ids
    v = len(vocab)
    cur = ids
    for n in range(2, orders + 1):
        ok = (room >= n) & (cur >= 0)
        pos = np.flatnonzero(ok)
        nxt = ids[pos + n - 1]
        sel = nxt >= 0
        pos, code = pos[sel], cur[pos[sel]] * v + nxt[sel]
        keys = table.keys[n - 1]
        # each distinct code looked up once, in increasing order (cache-friendly on a big table)
        uc, back = np.unique(code, return_inverse=True)
        at = np.asarray(np.searchsorted(keys, uc))
        found: np.ndarray = at < len(keys)
        found[found] = keys[at[found]] == uc[found]
        at = np.where(found, at, -1)[back.reshape(-1)]
        cur = np.full(total, -1, dtype=np.int64)
        cur[pos] = at
        ng[n - 1] = cur
    info_off = np.zeros(max_n + 1, dtype=np.int64)
    for n in range(max_n):
        info_off[n + 1] = info_off[n] + (len(table.info[n]) if n < table.max_n else 0)
    info_flat = table.flat[:int(table.offsets[orders])]  # a view: orders 1..orders, as info_off says
    got = _chunk_kernel(ng, offs, info_flat, info_off, r_lo, r_hi, g_cand, cand_text, max_n)
    rows = cand_item
    info[rows] = got
    counts[rows] = np.maximum(0, clen[rows][:, None] - np.arange(max_n)[None, :])
    return info, counts, clen, l_ref, has_ref


# segment_block results of the kernel are shared by nist-1..nist-5: the kernel always runs
# orders 1..SHARED_ORDERS and its output is cached per (text options, weights, block).
SHARED_ORDERS = 5
_BLOCK_CACHE = bounded_cache("nist.blocks", 1024)
_FIT_CACHE = bounded_cache("nist.fits", 4)  # fitted weight tables of the last datasets


class NIST(WordMetric):
    """NIST-n (module docstring)."""

    serves_segments = True
    stats_mode = "sum"  # corpus score from summed statistics

    def __init__(self, max_n: int = 5, tokenize: str = "13a", lowercase: bool = True, metric_id: str | None = None):
        super().__init__(tokenize, lowercase)
        if not 1 <= int(max_n) <= 9:
            raise ValueError("max_n must be in 1..9")
        self.max_n = int(max_n)
        self._table: InfoTable | None = None
        self._fit_hash = ""
        self.meta = MetricMeta(
            id=metric_id or f"nist-{self.max_n}", family="NIST",
            description=(f"NIST (mteval-v13a) with n-gram orders 1..{self.max_n}: information-weighted n-gram "
                         "matches × NIST brevity penalty; weights from all references of the corpus (fit)"),
            citation=CITATION, higher_is_better=True,
            options=(MetricOption("max_n", self.max_n, "maximum n-gram order"),) + token_options(True))

    # -- corpus context ------------------------------------------------------------------
    def fit(self, references_per_segment: Sequence[Sequence[str | None]]) -> "NIST":
        """Take the information weights from these references (one list of reference strings
        per segment, every reference set; ``None`` / NaN entries skipped). Returns self."""
        h = hashlib.sha1()

        def tokens():  # streamed: the hash and the table read each reference once
            for seg in references_per_segment:
                for r in seg:
                    if isinstance(r, str):
                        t = self.tok(r)
                        h.update(" ".join(t).encode("utf-8"))
                        h.update(b"\n")
                        yield t

        self._table = ngram_info(tokens(), max(SHARED_ORDERS, self.max_n))
        self._fit_hash = h.hexdigest()[:10]
        return self

    # -- corpus state shipped to Dask workers as arrays (evalcore.scoring.parallel.Packed) ---------
    @property
    def shared_state(self) -> InfoTable | None:
        """The fitted weight table (shared by nist-1..5 of one data set), or None."""
        return self._table

    def with_shared_state(self, state: InfoTable | None) -> "NIST":
        """A copy with ``state`` (a weight table) as its weights (None: without them, for
        transport; the signature's fit hash is kept)."""
        new = copy.copy(self)
        new._table = state
        return new

    @staticmethod
    def state_from_arrays(arrays) -> InfoTable:
        return InfoTable.from_arrays(arrays)

    def prepare(self, dataset) -> "NIST":
        """Called by the engine before scoring a dataset: information weights from every
        reference of every reference set of the corpus (methods §7.4). The weights of the last
        datasets are memoised (nist-1..5 of one dataset share one fit)."""
        key = (dataset.content_hash(), self.tokenize, self.lowercase, max(SHARED_ORDERS, self.max_n))
        hit = _FIT_CACHE.get(key)
        if hit is not None:
            self._table, self._fit_hash = hit
            return self
        texts = list(dataset.ref_texts().values())
        self.fit([[t[s] for t in texts] for s in range(dataset.n_segments)])
        _FIT_CACHE[key] = (self._table, self._fit_hash)
        return self

    def _retokenized(self) -> None:
        self.unfit()

    def unfit(self) -> "NIST":
        self._table, self._fit_hash = None, ""
        return self

    @property
    def is_fitted(self) -> bool:
        return self._table is not None

    def _signature_extra(self):
        return [f"n:{self.max_n}", f"info:{'fit-' + self._fit_hash if self.is_fitted else 'refs'}"]

    # -- scores ----------------------------------------------------------------------------
    def _run(self, cands: list[tuple], refs: list[tuple], member: np.ndarray, table) -> np.ndarray:
        info, counts, l_ref = _nist_kernel(cands, refs, member, self.max_n, table)
        return _scores(info, counts, l_ref, [len(c) for c in cands], self.max_n)

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        if len(refs) == 0:
            return float("nan")
        r = [self.tok(x) for x in refs]
        return float(self._run([self.tok(cand)], r, np.ones((1, len(r)), bool), self._table)[0, 0])

    def similarity(self, cand: str, ref: str) -> float:
        return self.sentence_score(cand, [ref])

    def sentence_scores(self, cands, refs):
        return np.array([self.sentence_score(c, r) for c, r in zip(cands, refs)], dtype=float)

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Identical to the default loop: one kernel call over the reference sets {r_j} and
        R − {r_j} (each with its own weights when unfitted)."""
        nc, nr = len(cands), len(refs)
        loo = np.full((nc, nr), np.nan)
        if nc == 0 or nr == 0:
            return np.zeros((nc, nr)), loo
        eye = np.eye(nr, dtype=bool)
        member = np.vstack([eye, ~eye]) if nr > 1 else eye
        ct, rt = [self.tok(c) for c in cands], [self.tok(r) for r in refs]
        orders = max(SHARED_ORDERS, self.max_n)
        key = (self.tokenize, self.lowercase, self._fit_hash, orders, tuple(ct), tuple(rt))
        out = _BLOCK_CACHE.get(key)
        if out is None:
            out = _nist_kernel(ct, rt, member, orders, self._table)
            _BLOCK_CACHE[key] = out
        info, counts, l_ref = out
        s = _scores(info, counts, l_ref, [len(c) for c in ct], self.max_n)
        sim = s[:nr].T.copy()
        if nr > 1:
            loo = s[nr:].T.copy()
        return sim, loo

    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Rows ``[info_1..info_N, count_1..count_N, |c|, L_ref]`` (NaN rows for segments without
        references). Unfitted: the weights come from all references passed here."""
        table = self._table
        if table is None:
            table = ngram_info([self.tok(r) for seg in refs for r in seg if isinstance(r, str)], self.max_n)
        return self._rows(chunk_stats(self.tok, cands, refs, table, self.max_n), self.max_n)

    @staticmethod
    def _rows(parts: tuple, n: int) -> np.ndarray:
        """This metric's statistics rows from :func:`chunk_stats` (orders 1..n of its orders)."""
        info, counts, clen, l_ref, has_ref = parts
        out = np.full((len(clen), 2 * n + 2), np.nan)
        out[has_ref, :n] = info[has_ref, :n]
        out[has_ref, n:2 * n] = counts[has_ref, :n]
        out[has_ref, 2 * n] = clen[has_ref]
        out[has_ref, 2 * n + 1] = l_ref[has_ref]
        return out

    @classmethod
    def family_segment_stats(cls, metrics: Sequence[Metric], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of one chunk (:func:`evalcore.metrics.levels.family_stats`):
        metrics with the same fitted weights and text options (nist-1..5 of one dataset) share
        one :func:`chunk_stats` run of their highest order; the values of order n do not depend
        on the highest order run."""
        metrics = cast("Sequence[NIST]", metrics)  # a family pass hands a class its own members
        out: list = [None] * len(metrics)
        groups: dict = {}
        for k, m in enumerate(metrics):
            if m._table is None:
                out[k] = m.segment_stats(cands, refs)
            else:
                groups.setdefault((id(m._table), m.tokenize, m.lowercase), []).append(k)
        for ks in groups.values():
            first = metrics[ks[0]]
            parts = chunk_stats(first.tok, cands, refs, first._table, max(metrics[k].max_n for k in ks))
            for k in ks:
                out[k] = cls._rows(parts, metrics[k].max_n)
        return out

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats` (the arithmetic of ``_scores``
        on the same numbers; NaN without a reference), so a score table runs the kernel once."""
        stats = np.asarray(stats, dtype=float)
        if not len(stats):
            return np.zeros(0)
        n = self.max_n
        total = np.zeros(len(stats))
        for k in range(n):
            total = total + stats[:, k] / np.maximum(stats[:, n + k], 1)
        out = total * nist_bp_array(stats[:, 2 * n], stats[:, 2 * n + 1])
        return np.where(np.array([len(r) == 0 for r in refs], dtype=bool), np.nan, out)

    def score_from_stats(self, stats: np.ndarray) -> float:
        stats = valid_stats(stats)
        if len(stats) == 0:
            return float("nan")
        s = stats.sum(axis=0)
        n = self.max_n
        total = 0.0
        for k in range(n):
            total += s[k] / max(s[n + k], 1.0)
        return float(total * nist_bp(s[2 * n], s[2 * n + 1]))


for _n in range(1, 6):
    register(f"nist-{_n}", partial(NIST, max_n=_n))
