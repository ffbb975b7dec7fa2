"""Counting n-grams: integer ids for tokens, characters and their n-grams, and the per-order
count layers whose products give clipped counts, shared by BLEU, chrF, NIST, ROUGE-N, GTM/PER
and the BEER character n-grams.

An n-gram is identified by an integer id (equal ids = equal n-grams) so that counting and
matching become integer work on arrays. Order 1 keeps the symbol ids; order n > 1 is the id of
the pair (id of the (n−1)-gram, next symbol), either as an exact base-A number or as a dense
rank. The counts are those of Papineni et al. (2002, §2.1, modified n-gram precision: a
candidate n-gram's count clipped by its count in a reference): for texts i and k,
Σ_g min(count_i(g), count_k(g)) over the n-grams g of one order is the clipped match count of
BLEU; the same counts over character n-grams are chrF's matches (Popović 2015: character n-gram
precision and recall), over word n-grams chrF++'s word part (Popović 2017), NIST's (Doddington
2002) and ROUGE-N's (Lin 2004). Each order n also has its n-gram total max(0, len − n + 1) per
text.

* :func:`encode_block`, :func:`ids_and_offsets`, :func:`code_point_ids` – token and character ids;
* :func:`ngram_keys_all` / :func:`ngram_keys` – n-gram ids per text, position order (dense ranks);
* :func:`dense_ngram_ids` – n-gram ids over a whole chunk of texts stored back to back;
* :func:`ngram_layers` / :func:`ngram_layers_groups` – binary count layers: ``X[i] @ X[k]`` is the
  clipped count of texts i and k (one matrix product per order).

The clipped overlaps themselves (pairs, blocks, chunks, compiled) are in
:mod:`evalcore.metrics.kernels.overlap`. Every function returns exact integers (or floats holding
exact integers); tests compare them with literal ``Counter`` n-grams and sacreBLEU.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .._caches import bounded_cache


def ids_and_offsets(seqs: Sequence[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """Token sequences -> (flat integer ids, offsets): equal tokens, equal ids."""
    vocab: dict = {}
    flat = np.fromiter((vocab.setdefault(w, len(vocab)) for s in seqs for w in s), dtype=np.int64)
    offs = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs)), out=offs[1:])
    return flat, offs


def code_point_ids(strings: Sequence[str]) -> list[np.ndarray]:
    """The characters of each string as int64 ids: the Unicode code points of all the strings
    ranked together (dense ranks, so the ids are below the number of distinct characters and
    their order is code point order). The character n-grams of chrF (Popović 2015) and of the
    BEER features are counted over these ids."""
    cps = [np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32).astype(np.int64) for s in strings]
    allcp = np.concatenate(cps) if cps else np.zeros(0, np.int64)
    _, inv = np.unique(allcp, return_inverse=True)
    bounds = np.cumsum([0] + [len(c) for c in cps])
    return [inv[bounds[i]:bounds[i + 1]] for i in range(len(strings))]


_ENCODE_CACHE = bounded_cache("ngram.encode", 64)


def encode_block(seqs: Sequence[Sequence[str]]) -> tuple[list[np.ndarray], int]:
    """Integer ids for the tokens of several sequences, ids in **sorted token order** (so that
    id order, and the n-gram ids of :func:`ngram_keys`, follow the strings' lexicographic
    order whatever the block). Returns (id arrays, vocabulary size). The last blocks are
    memoised (the word-level metrics of one segment share them); treat the arrays as
    read-only."""
    key = tuple(tuple(s) for s in seqs)
    hit = _ENCODE_CACHE.get(key)
    if hit is not None:
        return list(hit[0]), hit[1]
    vocab = {t: i for i, t in enumerate(sorted({t for s in seqs for t in s}))}
    out = [np.fromiter((vocab[t] for t in s), dtype=np.int64, count=len(s)) for s in seqs], len(vocab)
    _ENCODE_CACHE[key] = out
    return list(out[0]), out[1]


def ngram_keys_all(seqs: Sequence[np.ndarray], max_n: int) -> list[list[np.ndarray]]:
    """``out[n-1][s]`` = the ids of the n-grams of sequence s in position order (length
    max(0, len−n+1)), for n = 1..max_n. Ids are dense ranks over the given sequences ordered
    lexicographically by the token ids (order 1 keeps the token ids themselves)."""
    m = len(seqs)
    lens = np.array([len(s) for s in seqs], dtype=np.int64)
    total = int(lens.sum()) if m else 0
    ids = np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs]) if total else np.zeros(0, np.int64)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]) if m else np.zeros(0, np.int64)
    pos = np.arange(total) - np.repeat(starts, lens)
    seq_len = np.repeat(lens, lens)
    base = int(ids.max()) + 1 if total else 1
    key = ids.copy()
    out = []
    for n in range(1, max_n + 1):
        if n > 1 and total:
            idx = np.nonzero(pos <= seq_len - n)[0]
            raw = key[idx] * base + ids[idx + n - 1]
            _, inv = np.unique(raw, return_inverse=True)
            key = np.full(total, -1, dtype=np.int64)
            key[idx] = inv
        out.append([key[starts[s]:starts[s] + max(0, int(lens[s]) - n + 1)] for s in range(m)])
    return out


def ngram_keys(seqs: Sequence[np.ndarray], n: int) -> list[np.ndarray]:
    """For every sequence the ids of its n-grams (see :func:`ngram_keys_all`)."""
    return ngram_keys_all(seqs, n)[n - 1]


def _symbol_ranks(flat: np.ndarray) -> tuple[np.ndarray, int]:
    """``(rank of each symbol among the distinct symbols, number of distinct symbols)``: the
    inverse and size of ``np.unique(flat)``. Token ids and code points are small non-negative
    integers, so a presence table and its running count give the same ranks without sorting
    (a sort of 2.4 million code points took 0.8 s); other values go through ``np.unique``."""
    lo, hi = int(flat.min()), int(flat.max())
    if lo >= 0 and hi <= max(1 << 21, 4 * len(flat)):
        present = np.zeros(hi + 1, dtype=np.int64)
        present[flat] = 1
        rank = np.cumsum(present) - 1
        return rank[flat], int(rank[-1]) + 1
    alphabet, sym = np.unique(flat, return_inverse=True)
    return sym.reshape(-1).astype(np.int64), len(alphabet)


def dense_ngram_ids(flat: np.ndarray, offs: np.ndarray, orders: int) -> np.ndarray:
    """``ids[n−1, p]``: an id of the n-gram starting at flat position p (equal ids = equal
    n-grams, −1 past the end of its text), for n = 1..orders, over the whole chunk at once. The
    symbols are ranked (alphabet of size A) and the id of an n-gram is (id of its (n−1)-gram)·A
    + its last symbol: the exact base-A number of its symbols while that fits in int64 (always
    when A^orders does). Before an order whose ids could pass 2^62, the (n−1)-gram ids are first
    replaced by their dense ranks (so a 3,000-character alphabet needs one sort, at order 6,
    instead of one per order). Only equality and a consistent order of the ids are used (the
    chunk kernels sort and walk them), so every count is the same whichever ids are chosen."""
    total = len(flat)
    lens = np.diff(offs)
    ids = np.full((max(orders, 1), total), -1, dtype=np.int64)
    if not total:
        return ids
    sym, a = _symbol_ranks(flat)
    room = np.repeat(offs[1:], lens) - np.arange(total)
    ids[0] = sym
    cur, top = sym, a  # top: every id of the current order is below it
    for n in range(2, orders + 1):
        if top * a >= 2 ** 62:
            ok = cur >= 0
            uniq, rank = np.unique(cur[ok], return_inverse=True)
            cur = cur.copy()
            cur[ok] = rank.reshape(-1)
            top = len(uniq)
        row = ids[n - 1]
        m = total - n + 1  # positions whose n symbols lie inside the chunk
        if m > 0:
            np.multiply(cur[:m], a, out=row[:m])
            row[:m] += sym[n - 1:]
            row[room < n] = -1  # the n-gram would run past the end of its text
        cur, top = row, top * a
    return ids


_DENSE_MAX = 4_000_000


def ngram_layers(seqs: Sequence[np.ndarray], max_order: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Binary "count layer" matrices of the n-grams of several id sequences.

    ``seqs`` are integer arrays (token or character ids ≥ 0). For each order n = 1..max_order
    returns ``(X, totals)``: ``X`` has one row per sequence and one column per (n-gram g,
    threshold t) with t = 1..max count of g over the sequences; ``X[i, (g, t)] = 1`` iff
    sequence i contains g at least t times. Hence for sequences i, k
    ``X[i] @ X[k] = Σ_g min(count_i(g), count_k(g))`` (the clipped matches of BLEU / chrF),
    and ``totals[i]`` is the number of n-grams of sequence i (max(0, len − n + 1)).
    """
    m = len(seqs)
    lens = np.array([len(s) for s in seqs], dtype=np.int64)
    ids = np.concatenate([np.asarray(s, dtype=np.int64) for s in seqs]) if m else np.zeros(0, np.int64)
    total = len(ids)
    text_of = np.repeat(np.arange(m), lens)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]) if m else np.zeros(0, np.int64)
    pos = np.arange(total) - np.repeat(starts, lens)
    base = int(ids.max()) + 1 if total else 1
    out = []
    key = ids.copy()  # id of the (n-1)-gram starting at each position (dense ranks)
    n_ids = base
    for n in range(1, max_order + 1):
        valid = pos <= np.repeat(lens, lens) - n
        idx = np.nonzero(valid)[0]
        if n > 1:
            raw = key[idx] * base + ids[idx + n - 1]
            uniq, inv = np.unique(raw, return_inverse=True)
            key = np.full(total, -1, dtype=np.int64)
            key[idx] = inv
            n_ids = len(uniq)
        else:
            n_ids = base
        gram = key[idx]
        texts = text_of[idx]
        totals = np.bincount(texts, minlength=m).astype(np.float64)
        if len(idx) == 0:
            out.append((np.zeros((m, 0)), totals))
            continue
        code = texts * n_ids + gram
        if m * n_ids <= min(_DENSE_MAX, 64 * len(code)):  # counts per (text, n-gram) by bincount (same order as np.unique)
            full = np.bincount(code, minlength=m * n_ids)
            pair = np.flatnonzero(full)
            cnt = full[pair]
            p_text, p_gram = pair // n_ids, pair % n_ids
            maxc = full.reshape(m, n_ids).max(axis=0)
        else:
            pair, cnt = np.unique(code, return_counts=True)
            p_text, p_gram = pair // n_ids, pair % n_ids
            maxc = np.zeros(n_ids, dtype=np.int64)
            np.maximum.at(maxc, p_gram, cnt)
        colbase = np.cumsum(maxc) - maxc
        reps = np.repeat(np.arange(len(cnt)), cnt)
        offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        X = np.zeros((m, int(maxc.sum())), dtype=np.float64)
        X[p_text[reps], colbase[p_gram[reps]] + offs] = 1.0
        out.append((X, totals))
    return out


def ngram_layers_groups(groups: Sequence[Sequence[np.ndarray]], max_order: int) -> list[list]:
    """:func:`ngram_layers` of several independent groups of sequences (e.g. the segments of a
    batch) in one pass: ``out[g]`` equals ``ngram_layers(groups[g], max_order)`` (the same
    columns in the same order). Token ids are offset per group, so no n-gram is shared
    between groups and each group's columns form one contiguous range."""
    seqs, sizes, off = [], [], 0
    for g in groups:
        top = 0
        for x in g:
            x = np.asarray(x, dtype=np.int64)
            seqs.append(x + off)
            if len(x):
                top = max(top, int(x.max()) + 1)
        sizes.append(len(g))
        off += top
    m = len(seqs)
    out: list[list] = [[] for _ in groups]
    row_bounds = np.cumsum([0] + sizes)
    lens = np.array([len(x) for x in seqs], dtype=np.int64)
    total = int(lens.sum()) if m else 0
    if total == 0:
        for gi, size in enumerate(sizes):
            out[gi] = [(np.zeros((size, 0)), np.zeros(size)) for _ in range(max_order)]
        return out
    ids = np.concatenate(seqs)
    text_of = np.repeat(np.arange(m), lens)
    rem = np.repeat(lens, lens) - (np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens))
    base = int(ids.max()) + 1
    key = ids.copy()
    n_ids = base
    for n in range(1, max_order + 1):
        idx = np.flatnonzero(rem >= n)
        if n > 1 and len(idx):
            raw = key[idx] * base + ids[idx + n - 1]
            uniq, inv = np.unique(raw, return_inverse=True)
            key = np.full(total, -1, dtype=np.int64)
            key[idx] = inv
            n_ids = len(uniq)
        totals = np.bincount(text_of[idx], minlength=m).astype(np.float64)
        if len(idx) == 0:
            for gi in range(len(groups)):
                out[gi].append((np.zeros((sizes[gi], 0)), totals[row_bounds[gi]:row_bounds[gi + 1]]))
            continue
        pair, cnt = np.unique(text_of[idx] * n_ids + key[idx], return_counts=True)
        p_text, p_gram = pair // n_ids, pair % n_ids
        maxc = np.zeros(n_ids, dtype=np.int64)
        np.maximum.at(maxc, p_gram, cnt)
        colbase = np.cumsum(maxc) - maxc
        reps = np.repeat(np.arange(len(cnt)), cnt)
        offs = np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        rows = p_text[reps]
        cols = colbase[p_gram[reps]] + offs
        e_b = np.searchsorted(rows, row_bounds)
        for gi in range(len(groups)):
            r0, r1, e0, e1 = row_bounds[gi], row_bounds[gi + 1], e_b[gi], e_b[gi + 1]
            if e1 > e0:
                c = cols[e0:e1]
                c0 = int(c.min())
                X = np.zeros((r1 - r0, int(c.max()) - c0 + 1))
                X[rows[e0:e1] - r0, c - c0] = 1.0
            else:
                X = np.zeros((r1 - r0, 0))
            out[gi].append((X, totals[r0:r1]))
    return out
