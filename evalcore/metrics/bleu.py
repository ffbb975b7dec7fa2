"""BLEU (Papineni et al. 2002) exactly as sacreBLEU 2.x computes it, plus BLEU-1..4 and BLEUS.

Registered ids (all on sacreBLEU's **0-100 scale**, methods §0):

* ``bleu``    – sacreBLEU BLEU, max order 4. Sentence level uses sacreBLEU's ``sentence_bleu``
  defaults (``exp`` smoothing, effective order); corpus level (``corpus_score`` /
  ``score_from_stats``) uses ``corpus_bleu`` defaults (``exp`` smoothing, no effective order).
* ``bleu-1`` .. ``bleu-4`` – the cumulative BLEU-n of Amigó et al. 2006 (Amigó et al. 2006, §4 "BLEU-n"):
  the same computation with ``max_ngram_order = n`` (geometric mean of p_1..p_n × BP).
  ``bleu-4`` therefore equals ``bleu``.
* ``bleus``   – Lin & Och's (2004, COLING §4) smoothed BLEU-4: add 1 to the hit and the total
  count of every order n > 1 (sacreBLEU's ``add-k`` smoothing with k = 1), times the usual
  brevity penalty. Spec §8.1: "he walked the dog" vs "he took the dog for a walk" gives
  precisions 3/4, 2/4, 1/3, 1/2, geometric mean 0.5, × BP = 0.236183 (23.6183 here).

Multi-reference semantics are sacreBLEU's: n-gram counts are clipped by the **maximum** count
over the references, and the reference length is the **closest** reference length (ties go
to the shorter one). Per-segment sufficient statistics are sacreBLEU's vector
``[hyp_len, ref_len, correct_1..N, total_1..N]``: corpus scores, bootstrap resamples and
subsets are sums of rows followed by :meth:`BLEU.score_from_stats`.

Empty candidate: every count is 0, so the score is 0 (sacreBLEU's early stop). Empty
reference: no n-gram can match, score 0. No reference at all: NaN.

The pairwise engine uses :meth:`BLEU.segment_block`, a vectorised version built on
:func:`ngram_layers`: a clipped count min(a, b) equals the number of thresholds t ≥ 1 with
a ≥ t and b ≥ t, so with one binary column per (n-gram, t) the clipped matches of every
candidate against every reference are one matrix product, and clipping against the maximum
over "all references but r_j" is a product with the column-wise OR of the other references.
"""
from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Sequence

import numpy as np

from .. import __version__
from ._jit import lazy_njit
from .base import Metric, MetricMeta, MetricOption, Signature, group_by_refs, make_signature, register
from .tokenize import TOKENIZERS
from .tokenize import tokenize as _tokenize
from ._caches import bounded_cache

SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
_LOG_FLOOR = -9999999999  # sacreBLEU's my_log(0)
CITATION_BLEU = ("Papineni, Roukos, Ward & Zhu (2002), BLEU: a method for automatic evaluation of "
                 "machine translation, ACL; Post (2018), A call for clarity in reporting BLEU scores, WMT")
CITATION_BLEUS = ("Lin & Och (2004), ORANGE: a method for evaluating automatic evaluation metrics for "
                  "machine translation, COLING, §4 (smoothed BLEU)")


# ---- 13a tokens word by word ------------------------------------------------------------------
_WORD_13A = bounded_cache("bleu.words_13a", 1 << 20)  # word -> its 13a tokens


def tokenize_13a_words(text: str, lowercase: bool = False) -> tuple[str, ...]:
    """sacreBLEU's 13a tokens of ``text`` (the same as ``tokenize(text, "13a", lowercase)``),
    computed per whitespace-separated word with a memo of the words' tokens.

    Why this is the same: 13a's steps are literal replacements without spaces (``<skipped>``,
    the XML entities) and four regular expressions whose matches are a single character or a
    pair of adjacent characters. A match never joins two words: a pair match containing a
    whitespace character uses it only as the "not a digit" context at the pair's start
    (``([^0-9])([.,])``) or end (``([.,])([^0-9])``), and every word is padded with a space on
    both sides either way. The only step that does join words, deleting ``-\n``, makes texts
    containing a newline go through the whole-text tokenizer. Lower-casing is applied to the
    whole text first (Unicode final sigma depends on context). Tested against sacreBLEU's
    tokenizer on random strings (tests/test_metrics_sacrebleu.py).
    """
    if lowercase:
        text = text.lower()
    text = text.rstrip()
    if "\n" in text or "\r" in text:
        return _tokenize(text, "13a", False)
    memo = _WORD_13A
    words = text.split()
    try:
        parts = [memo[w] for w in words]
    except KeyError:
        for w in words:
            if w not in memo:
                # a word without any character 13a acts on is its own single token
                memo[w] = (w,) if _SPECIAL_13A.isdisjoint(w) else _tokenize(w, "13a", False)
        parts = [memo[w] for w in words]
    return tuple(chain.from_iterable(parts))


def _special_13a() -> frozenset:
    """Characters any 13a step acts on: the first regular expression's class (read from
    sacreBLEU's compiled pattern; all ASCII), '.', ',' and '-' (the other three), '&' and '<'
    (entities, ``<skipped>``; already in the class)."""
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    first = TokenizerRegexp()._re[0][0]
    return frozenset(c for c in map(chr, range(128)) if first.search(c)) | frozenset(".,-&<")


_SPECIAL_13A = _special_13a()


# ---- shared n-gram kernel (also used by chrF) ------------------------------------------------
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


def _dense_ngram_ids(flat: np.ndarray, offs: np.ndarray, orders: int) -> np.ndarray:
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


@lazy_njit
def _maxref_matches(ids, offs, r_lo, r_hi, g_cand, cand_text):
    """Clipped n-gram matches Σ_g min(count_c(g), max_r count_r(g)) of every candidate (rows in
    ``cand_text`` order) and order (columns), the references of candidate c's group q being the
    texts ``r_lo[q]:r_hi[q]`` (Papineni et al. 2002 §2.1, the clipping against the maximum
    reference count); ``ids`` as :func:`_dense_ngram_ids`. Exact integers."""
    orders = ids.shape[0]
    out = np.zeros((len(cand_text), orders), np.int64)
    for q in range(len(r_lo)):
        for n in range(orders):
            tot = 0
            for t in range(r_lo[q], r_hi[q]):
                tot += max(0, offs[t + 1] - offs[t] - n)
            # the references' n-grams: sorted distinct ids (one pooled sort), then the maximum count
            # over the references of each, walking every reference's sorted ids along them
            pool = np.empty(tot, np.int64)
            m = 0
            for t in range(r_lo[q], r_hi[q]):
                for i in range(offs[t], offs[t + 1] - n):
                    pool[m] = ids[n, i]
                    m += 1
            pool.sort()
            uid = np.empty(tot, np.int64)
            u = 0
            for i in range(tot):
                if pool[i] >= 0 and (u == 0 or pool[i] != uid[u - 1]):
                    uid[u] = pool[i]
                    u += 1
            umax = np.zeros(max(u, 1), np.int64)
            for t in range(r_lo[q], r_hi[q]):
                a, b = offs[t], offs[t + 1] - n
                if b <= a:
                    continue
                s = np.sort(ids[n, a:b])
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
            for c in range(g_cand[q], g_cand[q + 1]):
                t = cand_text[c]
                a, b = offs[t], offs[t + 1] - n
                if b <= a or u == 0:
                    continue
                s = np.sort(ids[n, a:b])
                h = 0
                i = 0
                j = 0
                while i < len(s):
                    e = i + 1
                    while e < len(s) and s[e] == s[i]:
                        e += 1
                    while j < u and uid[j] < s[i]:
                        j += 1
                    if j < u and uid[j] == s[i]:
                        k = e - i
                        h += k if k < umax[j] else umax[j]
                    i = e
                out[c, n] = h
    return out


def chunk_texts(cands: Sequence, refs: Sequence[Sequence], prep) -> tuple:
    """Candidates grouped by their reference list (a segment's outputs) laid out for the
    compiled chunk kernels: ``(texts, r_lo, r_hi, g_cand, cand_text, cand_item)`` where
    ``texts`` are ``prep`` of every reference and candidate, group q's references are texts
    ``r_lo[q]:r_hi[q]``, its candidates ``g_cand[q]:g_cand[q+1]`` (text ``cand_text[c]``, item
    ``cand_item[c]``). Items without a reference are left out."""
    texts: list = []
    r_lo, r_hi, g_cand, cand_text, cand_item = [], [], [0], [], []
    for key, idx in group_by_refs(refs):
        if not key:
            continue
        r_lo.append(len(texts))
        texts.extend(prep(r) for r in key)
        r_hi.append(len(texts))
        for i in idx:
            cand_text.append(len(texts))
            cand_item.append(i)
            texts.append(prep(cands[i]))
        g_cand.append(len(cand_item))
    arr = [np.asarray(x, dtype=np.int64) for x in (r_lo, r_hi, g_cand, cand_text, cand_item)]
    return (texts, *arr)


def ids_and_offsets(seqs: Sequence[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """Token sequences -> (flat integer ids, offsets): equal tokens, equal ids."""
    vocab: dict = {}
    flat = np.fromiter((vocab.setdefault(w, len(vocab)) for s in seqs for w in s), dtype=np.int64)
    offs = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs)), out=offs[1:])
    return flat, offs


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


def closest_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """sacreBLEU's closest reference length: smallest |hyp − ref|, ties to the shorter ref."""
    best_d, best = -1, -1
    for r in ref_lens:
        d = abs(hyp_len - r)
        if best_d == -1 or d < best_d:
            best_d, best = d, r
        elif d == best_d and r < best:
            best = r
    return best


def bleu_from_stats(stats: np.ndarray, max_order: int, smooth_method: str = "exp",
                    smooth_value: float | None = None, effective_order: bool = False) -> np.ndarray:
    """Vectorised sacreBLEU ``BLEU.compute_bleu`` over rows of sufficient statistics.

    ``stats[..., :]`` = ``[hyp_len, ref_len, correct_1..N, total_1..N]``. Implements
    Papineni et al. (2002) §2.3 (geometric mean of modified precisions × brevity penalty
    exp(1 − r/c) when c < r) with the smoothing methods of Chen & Cherry (2014) exactly as
    sacreBLEU orders the floating-point operations (0-100 scale).
    """
    stats = np.asarray(stats, dtype=np.float64)
    N = max_order
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct = stats[..., 2:2 + N].copy()
    total = stats[..., 2 + N:2 + 2 * N].copy()
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(sys_len < ref_len,
                      np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 0.0), 1.0)
        any_correct = (correct != 0).any(axis=-1)
        if smooth_method == "add-k" and N > 1:
            correct[..., 1:] += smooth_value
            total[..., 1:] += smooth_value
        alive = np.ones(sys_len.shape, dtype=bool)
        eff = np.full(sys_len.shape, N, dtype=np.int64)
        smooth = np.ones(sys_len.shape)
        logs = []
        for n in range(N):
            c, t = correct[..., n], total[..., n]
            alive = alive & (t != 0)
            if effective_order:
                eff = np.where(alive, n + 1, eff)
            zero = c == 0
            safe_t = np.where(t != 0, t, 1.0)
            hit = 100.0 * c / safe_t
            if smooth_method == "exp":
                smooth = np.where(alive & zero, smooth * 2, smooth)
                p = np.where(zero, 100.0 / (smooth * safe_t), hit)
            elif smooth_method == "floor":
                p = np.where(zero, 100.0 * smooth_value / safe_t, hit)
            else:
                p = np.where(zero, 0.0, hit)
            p = np.where(alive, p, 0.0)
            logs.append(np.where(p == 0.0, float(_LOG_FLOOR), np.log(np.where(p == 0.0, 1.0, p))))
        acc = np.zeros(sys_len.shape)
        for n in range(N):
            acc = np.where(n < eff, acc + logs[n], acc)
        score = bp * np.exp(acc / eff)
    return np.where(any_correct, score, 0.0)


# ---- the metric --------------------------------------------------------------------------
class BLEU(Metric):
    """sacreBLEU-exact BLEU (see module docstring). ``effective_order=None`` means sacreBLEU's
    defaults: on for sentence scores, off for corpus scores."""

    def __init__(self, tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp",
                 smooth_value: float | None = None, max_ngram_order: int = 4,
                 effective_order: bool | None = None, metric_id: str = "bleu",
                 description: str | None = None, citation: str = CITATION_BLEU):
        if smooth_method not in SMOOTH_DEFAULTS:
            raise ValueError(f"unknown smooth_method {smooth_method!r}; choose one of {sorted(SMOOTH_DEFAULTS)}")
        self.tokenize = tokenize
        self.lowercase = lowercase
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = int(max_ngram_order)
        self.effective_order = effective_order
        _tokenize("", tokenize)  # validates the tokenizer name (and that it is installed)
        self.meta = MetricMeta(
            id=metric_id, family="BLEU",
            description=description or (f"sacreBLEU BLEU (max order {max_ngram_order}), 0-100; sentence level: "
                                        "exp smoothing + effective order, corpus level: corpus_bleu defaults"),
            citation=citation, higher_is_better=True,
            options=(
                MetricOption("tokenize", "13a", "sacreBLEU tokenizer", TOKENIZERS),
                MetricOption("lowercase", False, "lowercase before tokenising"),
                MetricOption("smooth_method", "exp", "smoothing (Chen & Cherry 2014)", tuple(SMOOTH_DEFAULTS)),
                MetricOption("smooth_value", None, "value for floor / add-k (None = sacreBLEU default)"),
                MetricOption("max_ngram_order", 4, "maximum n-gram order"),
                MetricOption("effective_order", None, "None = on for sentences, off for corpus (sacreBLEU defaults)"),
            ))

    # -- helpers
    def _eff(self, sentence: bool) -> bool:
        return sentence if self.effective_order is None else bool(self.effective_order)

    def tokens(self, text: str) -> tuple[str, ...]:
        if self.tokenize == "13a":
            return tokenize_13a_words(text, self.lowercase)
        return _tokenize(text, self.tokenize, self.lowercase)

    uses_tokenizer = True
    serves_segments = True
    stats_mode = "sum"  # corpus score from summed statistics

    def with_tokenize(self, name: str) -> "BLEU":
        import copy

        from .tokenize import check_tokenizer

        new = copy.copy(self)
        new.tokenize = check_tokenizer(name)
        return new

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        """sacreBLEU's own signature string (``BLEU.get_signature().format()``) when the order is
        4 (sacreBLEU's signature does not record the order), e.g.
        ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``; ``eff`` follows
        sacreBLEU's defaults: ``yes`` for sentence scores (``level="segment"`` or None, the
        similarities), ``no`` for corpus scores (``level="system"``). Other orders get an
        evalcore signature with the metric id and ``ngram:N``."""
        import sacrebleu

        from .tokenize import tokenizer_signature

        smooth = self.smooth_method
        if SMOOTH_DEFAULTS[smooth] is not None:
            val = self.smooth_value if self.smooth_value is not None else SMOOTH_DEFAULTS[smooth]
            smooth += f"[{val:.2f}]"
        fields = [("case", "lc" if self.lowercase else "mixed"), ("eff", self._eff(level != "system")),
                  ("tok", tokenizer_signature(self.tokenize)), ("smooth", smooth)]
        if self.max_ngram_order == 4:
            return make_signature(fields, nrefs=nrefs, version=sacrebleu.__version__)
        return make_signature(fields + [("ngram", self.max_ngram_order)], nrefs=nrefs,
                              version=f"evalcore-{__version__}", metric=self.meta.id)

    def _ngrams(self, toks: Sequence[str]) -> Counter:
        c: Counter = Counter()
        for n in range(1, self.max_ngram_order + 1):
            for i in range(len(toks) - n + 1):
                c[tuple(toks[i:i + n])] += 1
        return c

    def _stats_one(self, cand: str, refs: Sequence[str]) -> list[float]:
        N = self.max_ngram_order
        ref_counts: Counter = Counter()
        ref_lens = []
        for r in refs:
            rt = self.tokens(r)
            ref_lens.append(len(rt))
            for g, k in self._ngrams(rt).items():
                if k > ref_counts[g]:
                    ref_counts[g] = k
        ht = self.tokens(cand)
        correct, total = [0] * N, [0] * N
        for g, k in self._ngrams(ht).items():
            total[len(g) - 1] += k
            if g in ref_counts:
                correct[len(g) - 1] += min(k, ref_counts[g])
        return [len(ht), closest_len(len(ht), ref_lens)] + correct + total

    # -- Metric API
    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """sacreBLEU's per-segment vector [hyp_len, ref_len, correct_1..N, total_1..N]: computed
        by :meth:`family_segment_stats` (one compiled run over all the segments passed);
        identical values to the per-item Counter loop (``_stats_one``, Papineni et al. 2002
        §2.1; sacreBLEU)."""
        return self.family_segment_stats([self], cands, refs)[0]

    @classmethod
    def family_segment_stats(cls, metrics: Sequence["BLEU"], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of a chunk of segments
        (:func:`evalcore.metrics.levels.family_stats`). Candidates sharing their reference list
        (a segment's outputs) form a group; the clipped matches of orders 1..max N of every
        candidate against its group's maximum reference counts come from one compiled run over
        flat token ids (:func:`_maxref_matches`), shared by the metrics with the same tokens
        (bleu, bleu-1..4, bleus); the closest reference length breaks ties to the shorter
        reference (sacreBLEU). Items without a reference get the loop's row."""
        out: list = [None] * len(metrics)
        by_tokens: dict = {}
        for k, m in enumerate(metrics):
            by_tokens.setdefault((m.tokenize, m.lowercase), []).append(k)
        for ks in by_tokens.values():
            first = metrics[ks[0]]
            order = max(metrics[k].max_ngram_order for k in ks)
            texts, r_lo, r_hi, g_cand, cand_text, items = chunk_texts(cands, refs, first.tokens)
            flat, offs = ids_and_offsets(texts)
            lens = np.diff(offs)
            hyp = lens[cand_text]
            correct = _maxref_matches(_dense_ngram_ids(flat, offs, order), offs, r_lo, r_hi, g_cand, cand_text)
            total = np.maximum(hyp[:, None] - np.arange(order)[None, :], 0)
            closest = np.zeros(len(items), dtype=np.int64)
            for q, (lo, hi) in enumerate(zip(r_lo.tolist(), r_hi.tolist())):
                rl = lens[lo:hi]
                h = hyp[g_cand[q]:g_cand[q + 1]]
                key = np.abs(h[:, None] - rl[None, :]) * (int(rl.max()) + 1) + rl[None, :]
                closest[g_cand[q]:g_cand[q + 1]] = rl[np.argmin(key, axis=1)]
            for k in ks:
                m = metrics[k]
                n = m.max_ngram_order
                rows = np.zeros((len(cands), 2 + 2 * n))
                done = np.zeros(len(cands), dtype=bool)
                done[items] = True
                for i in np.flatnonzero(~done):  # no reference: sacreBLEU-style row of the loop
                    rows[i] = m._stats_one(cands[i], [])
                rows[items, 0] = hyp
                rows[items, 1] = closest
                rows[items, 2:2 + n] = correct[:, :n]
                rows[items, 2 + n:] = total[:, :n]
                out[k] = rows
        return out

    def score_from_stats(self, stats: np.ndarray) -> float:
        """Corpus BLEU from summed statistics (corpus_bleu defaults unless options say otherwise)."""
        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 2:
            if len(stats) == 0:
                return float("nan")
            stats = stats.sum(axis=0)
        return float(bleu_from_stats(stats, self.max_ngram_order, self.smooth_method, self.smooth_value,
                                     self._eff(False)))

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Corpus BLEU of every row of summed statistics (one vectorised call)."""
        return bleu_from_stats(np.atleast_2d(np.asarray(sums, dtype=np.float64)), self.max_ngram_order,
                               self.smooth_method, self.smooth_value, self._eff(False))

    def sentence_scores_from_stats(self, stats: np.ndarray) -> np.ndarray:
        """Sentence BLEU of every row of statistics (sentence_bleu defaults)."""
        return bleu_from_stats(stats, self.max_ngram_order, self.smooth_method, self.smooth_value, self._eff(True))

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        if len(refs) == 0:
            return float("nan")
        return float(self.sentence_scores_from_stats(np.array(self._stats_one(cand, refs), dtype=float)))

    def sentence_scores(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return self.sentence_scores_of(self.segment_stats(cands, refs), refs)

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats` (NaN without a reference), so a
        score table computes the statistics once for corpus and segment scores."""
        if not len(stats):
            return np.zeros(0)
        out = self.sentence_scores_from_stats(stats)
        empty = np.array([len(r) == 0 for r in refs], dtype=bool)
        return np.where(empty, np.nan, out)

    def _layers(self, cands: Sequence[str], refs: Sequence[str]):
        return self._layers_many([(cands, refs)])[0]

    def _layers_many(self, blocks, memo: bool = True):
        """Per block (candidate rows, reference rows, n-gram layers of orders 1..max(4, N),
        lengths), memoised for the last blocks (bleu, bleu-1..4 and bleus share them); the
        blocks not in the memo get their layers from one :func:`ngram_layers_groups` call.
        ``memo=False`` neither reads nor fills the memo (a pass over a whole dataset)."""
        order = max(4, self.max_ngram_order)
        keys = [(self.tokenize, self.lowercase, order, tuple(c), tuple(r)) for c, r in blocks] if memo else []
        out = [_LAYER_CACHE.get(k) for k in keys] if memo else [None] * len(blocks)
        miss = [i for i, o in enumerate(out) if o is None]
        if miss:
            parts, groups = [], []
            for i in miss:
                cands, refs = blocks[i]
                uniq: dict[str, int] = {}
                for t in list(cands) + list(refs):
                    uniq.setdefault(t, len(uniq))
                toks = [self.tokens(t) for t in uniq]
                lens = [len(x) for x in toks]
                flat = [w for x in toks for w in x]
                vocab = {w: j for j, w in enumerate(dict.fromkeys(flat))}
                allids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
                bounds = np.cumsum([0] + lens)
                groups.append([allids[bounds[j]:bounds[j + 1]] for j in range(len(toks))])
                parts.append((np.array([uniq[t] for t in cands], dtype=np.int64),
                              np.array([uniq[t] for t in refs], dtype=np.int64), np.array(lens, dtype=np.float64)))
            layers = ngram_layers_groups(groups, order)
            for i, (ci, ri, lens), lay in zip(miss, parts, layers):
                out[i] = (ci, ri, lay, lens)
                if not memo:
                    continue
                _LAYER_CACHE[keys[i]] = out[i]
        return out

    def _block_stats(self, cands: Sequence[str], refs: Sequence[str], pre=None) -> tuple[np.ndarray, np.ndarray | None]:
        """Sufficient statistics of every (candidate, single reference) pair and of every
        (candidate, all references but one) pair, shapes (nc, nr, 2 + 2N)."""
        N = self.max_ngram_order
        nc, nr = len(cands), len(refs)
        ci, ri, layers, lens = pre if pre is not None else self._layers(cands, refs)
        hyp_len, ref_len = lens[ci], lens[ri]
        sim_stats = np.zeros((nc, nr, 2 + 2 * N))
        sim_stats[..., 0] = hyp_len[:, None]
        sim_stats[..., 1] = ref_len[None, :]
        loo_stats = sim_stats.copy() if nr > 1 else None
        if nr > 1:
            # closest length among refs other than j: rank refs by (|h-L|, L) and take the best
            # one that is not j (sacreBLEU's tie rule: the shorter reference wins).
            key = np.abs(hyp_len[:, None] - ref_len[None, :]) * (ref_len.max() + 1) + ref_len[None, :]
            order = np.argsort(key, axis=1, kind="stable")
            first, second = order[:, 0], order[:, 1]
            best = np.where(first[:, None] == np.arange(nr)[None, :], second[:, None], first[:, None])
            loo_stats[..., 1] = ref_len[best]
        for n, (X, totals) in enumerate(layers[:N]):
            Xc, Xr = X[ci], X[ri]
            tot = totals[ci][:, None]
            sim_stats[..., 2 + N + n] = tot
            if nr > 1:
                others = ((Xr.sum(axis=0)[None, :] - Xr) > 0).astype(np.float64)
                both = Xc @ np.vstack([Xr, others]).T
                sim_stats[..., 2 + n] = both[:, :nr]
                loo_stats[..., 2 + n] = both[:, nr:]
                loo_stats[..., 2 + N + n] = tot
            else:
                sim_stats[..., 2 + n] = Xc @ Xr.T
        return sim_stats, loo_stats

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``Metric.segment_block`` (identical values): every candidate against every
        single reference (``sim``) and against all references but one (``loo``)."""
        return self.segment_blocks([(cands, refs)])[0]

    def segment_blocks(self, blocks) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`segment_block` of several segments: the statistics of all their pairs are
        scored by one vectorised :func:`bleu_from_stats` call (row-wise, so identical values)."""
        k = 2 + 2 * self.max_ngram_order
        parts, shapes = [], []
        for (cands, refs), pre in zip(blocks, self._layers_many(blocks)):
            sim_stats, loo_stats = self._block_stats(cands, refs, pre)
            shapes.append((len(cands), len(refs), loo_stats is not None))
            parts.append(sim_stats.reshape(-1, k))
            if loo_stats is not None:
                parts.append(loo_stats.reshape(-1, k))
        scores = self.sentence_scores_from_stats(np.concatenate(parts)) if parts else np.zeros(0)
        out, pos = [], 0
        for nc, nr, has_loo in shapes:
            sim = scores[pos:pos + nc * nr].reshape(nc, nr)
            pos += nc * nr
            if has_loo:
                loo = scores[pos:pos + nc * nr].reshape(nc, nr)
                pos += nc * nr
            else:
                loo = np.full((nc, nr), np.nan)
            out.append((sim, loo))
        return out


_LAYER_CACHE = bounded_cache("bleu.layers", 64)  # the BLEU family's n-gram layers per block


register("bleu", lambda: BLEU())
for _n in range(1, 5):
    register(f"bleu-{_n}", (lambda n: lambda: BLEU(
        max_ngram_order=n, metric_id=f"bleu-{n}",
        description=f"cumulative BLEU-{n} (Amigó et al. 2006): sacreBLEU BLEU with max order {n}, 0-100; "
                    "sentence level exp smoothing + effective order"))(_n))
register("bleus", lambda: BLEU(
    smooth_method="add-k", smooth_value=1, metric_id="bleus", citation=CITATION_BLEUS,
    description="Lin & Och smoothed BLEU-4 (add 1 to hits and totals for n > 1) × BP, 0-100"))
