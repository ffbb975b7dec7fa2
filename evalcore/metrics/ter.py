"""TER (Snover et al. 2006) exactly as sacreBLEU 2.x computes it (methods §5.6).

Registered id ``ter``: sacreBLEU's **0-100 scale** (100 × edits / reference length), an error
rate, so ``higher_is_better=False`` and the oriented similarity is −TER (methods §0).

Tokenisation is sacreBLEU's ``TercomTokenizer`` (options ``case_sensitive``, ``normalized``,
``no_punct``, ``asian_support``; default: lowercase, no normalisation). ``with_tokenize(name)``
splits the text with a sacreBLEU tokenizer first (``zh``, ``ja-mecab``, ``char``, ``intl``...;
``13a`` and ``none`` keep sacreBLEU's TER exactly): the result equals sacreBLEU's TER on the
pre-split text, and the signature says ``tok:<name>+tercom``. The number of edits of
one (hypothesis, reference) pair – shifts found by Tercom's greedy search plus the beam edit
distance – is computed by a compiled (numba) line-by-line port of sacreBLEU's
``sacrebleu.metrics.lib_ter.translation_edit_rate`` (same beam, tie-breaking and candidate
limits; tests compare it with sacreBLEU's routine), or by sacreBLEU's routine itself when numba
is not installed. Around it: each text is tokenised once, each distinct token pair is aligned
once (memoised), identical pairs are short-cut to 0 edits, and the multi-reference and
leave-one-out scores are derived from the single-pair results instead of re-aligning:

* multi-reference (sacreBLEU): edits = **minimum** over the references, length = **mean**
  reference length; per-segment statistics ``[edits, mean_ref_len]``; corpus TER =
  Σ edits / Σ mean_ref_len.
* empty reference(s) with a non-empty hypothesis: 100; both empty: 0. No reference: NaN.
* long segments: a hypothesis or reference over ``MAX_ALIGN_TOKENS`` (1000) tokens is refused
  (NaN, left out of the corpus score and reported by the engine): the shift search costs
  about half a minute per 20,000-token pair. Below it, sacreBLEU's values.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sacrebleu.metrics.lib_ter import translation_edit_rate
from sacrebleu.tokenizers.tokenizer_ter import TercomTokenizer

from ._jit import HAVE_NUMBA, lazy_njit
from .base import Metric, MetricMeta, MetricOption, Signature, group_by_refs, make_signature, register, too_long, valid_stats
from .edit import best_of_others
from .kernels.plans import encode_flat, sequence_index
from .tokenize import tokenize as _pretokenize
from ._caches import lru_memo

CITATION = ("Snover, Dorr, Schwartz, Micciulla & Makhoul (2006), A study of translation edit rate "
            "with targeted human annotation, AMTA; sacreBLEU's Tercom re-implementation")


@lru_memo("ter.pair_edits", 1 << 14)
def pair_edits(hyp: tuple[str, ...], ref: tuple[str, ...]) -> int:
    """Tercom edits (shifts + beam edit distance) turning ``hyp`` into ``ref``, as sacreBLEU's
    ``translation_edit_rate`` counts them: the compiled port below when numba is installed,
    else sacreBLEU's routine itself."""
    if hyp == ref:
        return 0
    if _nb is not None:
        vocab: dict[str, int] = {}
        h = np.array([vocab.setdefault(w, len(vocab)) for w in hyp], dtype=np.int64)
        r = np.array([vocab.setdefault(w, len(vocab)) for w in ref], dtype=np.int64)
        edits, ok = ter_edits(h, r)
        if ok:
            return int(edits)
    return int(translation_edit_rate(list(hyp), list(ref))[0])


def pair_edits_sacrebleu(hyp: Sequence[str], ref: Sequence[str]) -> int:
    """sacreBLEU's own routine (the oracle used by the tests)."""
    return int(translation_edit_rate(list(hyp), list(ref))[0])


def ter_from_stats(edits, ref_len) -> np.ndarray:
    """sacreBLEU ``TER._compute_score_from_stats``: 100·edits/len; 100 if len = 0 < edits; 0 if both 0."""
    edits = np.asarray(edits, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(ref_len > 0, edits / np.where(ref_len > 0, ref_len, 1),
                        np.where(edits > 0, 1.0, 0.0))
    return 100 * rate


class TER(Metric):
    """sacreBLEU-exact TER with shifts (see module docstring)."""

    def __init__(self, normalized: bool = False, no_punct: bool = False, asian_support: bool = False,
                 case_sensitive: bool = False, metric_id: str = "ter"):
        self.normalized, self.no_punct = normalized, no_punct
        self.asian_support, self.case_sensitive = asian_support, case_sensitive
        self._tok = TercomTokenizer(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
                                    case_sensitive=case_sensitive)
        self._cache: dict[str, tuple[str, ...]] = {}
        self.pretokenize: str | None = None  # a sacreBLEU tokenizer applied before Tercom's
        self.meta = MetricMeta(
            id=metric_id, family="edit",
            description="sacreBLEU TER with shifts (Tercom), 0-100 error rate: edits / mean reference length",
            citation=CITATION, higher_is_better=False,
            options=(
                MetricOption("case_sensitive", False, "do not lowercase"),
                MetricOption("normalized", False, "Tercom normalisation of punctuation and XML entities"),
                MetricOption("no_punct", False, "remove punctuation"),
                MetricOption("asian_support", False, "split CJK characters / remove CJK punctuation (with the above)"),
            ))

    uses_tokenizer = True
    serves_segments = True
    stats_mode = "sum"  # corpus score from summed statistics
    #: tokenizer names that leave TER to Tercom's own word splitting (sacreBLEU's TER)
    TERCOM_ONLY = ("13a", "none")

    def with_tokenize(self, name: str) -> "TER":
        """TER with the text first split by sacreBLEU tokenizer ``name`` and then by Tercom.
        ``13a`` (the default for most languages) and ``none`` keep sacreBLEU's TER exactly
        (Tercom's own splitting); e.g. ``zh`` or ``ja-mecab`` split Chinese / Japanese words,
        which sacreBLEU's TER leaves unsplit."""
        import copy

        from .tokenize import check_tokenizer

        new = copy.copy(self)
        new.pretokenize = None if check_tokenizer(name) in self.TERCOM_ONLY else name
        new._cache = {}
        return new

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        """sacreBLEU's own signature string (``TER.get_signature().format()``), e.g.
        ``nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0``. With a
        pre-tokenizer (see :meth:`with_tokenize`) the ``tok:`` value names both, e.g.
        ``tok:zh+tercom`` (not a sacreBLEU option: sacreBLEU's TER has no tokenizer choice)."""
        import sacrebleu

        from .tokenize import tokenizer_signature

        tok = self._tok.signature()
        if self.pretokenize:
            tok = f"{tokenizer_signature(self.pretokenize)}+{tok}"
        return make_signature([("case", "mixed" if self.case_sensitive else "lc"), ("tok", tok),
                               ("norm", self.normalized), ("punct", not self.no_punct), ("asian", self.asian_support)],
                              nrefs=nrefs, version=sacrebleu.__version__)

    #: texts whose tokens are kept (the cache is emptied when full: a 100k-segment campaign has
    #: 1.4 M texts, about 1 KB of tokens each)
    CACHE_MAX = 1 << 16

    def tokens(self, text: str) -> tuple[str, ...]:
        toks = self._cache.get(text)
        if toks is None:
            pre = " ".join(_pretokenize(text, self.pretokenize)) if self.pretokenize else text
            toks = tuple(self._tok(pre.rstrip()).split())
            if len(self._cache) >= self.CACHE_MAX:
                self._cache.clear()
            self._cache[text] = toks
        return toks

    quadratic = True  # refuses segments over MAX_ALIGN_TOKENS tokens (Metric.refuses)

    def _stats_one(self, cand: str, refs: Sequence[str]) -> list[float]:
        h = self.tokens(cand)
        if self.refuses(h, [self.tokens(r) for r in refs]):
            return [float("nan"), float("nan")]
        best, total_len = None, 0
        for r in refs:
            rt = self.tokens(r)
            e = pair_edits(h, rt)
            total_len += len(rt)
            if best is None or e < best:
                best = e
        mean_len = total_len / len(refs)
        assert best is not None  # refs is not empty (the division above)
        return [best, mean_len]

    # -- Metric API
    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per segment ``[min edits over references, mean reference length]`` (sacreBLEU); NaN
        rows for refused segments and without a reference.

        Every text is tokenised once, every distinct (hypothesis, reference) token pair of all
        the items is aligned once, all in one compiled call (:func:`ter_edits_many`); identical
        pairs are 0 edits. Without numba: :meth:`_stats_one` per item (sacreBLEU's routine)."""
        out = np.full((len(cands), 2), np.nan)
        if _nb is None:
            for i, (c, r) in enumerate(zip(cands, refs)):
                if len(r):
                    out[i] = self._stats_one(c, r)
            return out
        ix, seqs = sequence_index(self.tokens)

        rows, counts, ph, pr = [], [], [], []
        for key, idx in group_by_refs(refs):
            if not key:
                continue
            rix = [ix(r) for r in key]
            if too_long(*(seqs[t] for t in rix)):  # a reference over the cap: the group is refused
                continue
            for i in idx:
                h = ix(cands[i])
                if too_long(seqs[h]):
                    continue
                rows.append(i)
                counts.append(len(rix))
                ph.extend([h] * len(rix))
                pr.extend(rix)
        if not rows:
            return out
        lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
        ph_a, pr_a = np.asarray(ph, dtype=np.int64), np.asarray(pr, dtype=np.int64)
        edits = np.zeros(len(ph_a), dtype=np.int64)
        code = ph_a * len(seqs) + pr_a
        uniq, inv = np.unique(code, return_inverse=True)
        uh, ur = uniq // len(seqs), uniq % len(seqs)
        todo = np.flatnonzero(uh != ur)  # identical token sequences: 0 edits
        if len(todo):
            offs = np.zeros(len(seqs) + 1, dtype=np.int64)
            np.cumsum(lens, out=offs[1:])
            flat, _ = encode_flat(seqs)
            e_u = np.zeros(len(uniq), dtype=np.int64)
            e, ok = ter_edits_many(flat, offs, uh[todo], ur[todo])
            e_u[todo] = e
            for k in np.flatnonzero(~ok).tolist():
                e_u[todo[k]] = pair_edits_sacrebleu(seqs[uh[todo[k]]], seqs[ur[todo[k]]])
            edits = e_u[inv.reshape(-1)]
        po = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(np.asarray(counts, dtype=np.int64), out=po[1:])
        starts = po[:-1]
        best = np.minimum.reduceat(edits, starts)
        total = np.add.reduceat(lens[pr_a], starts)
        rows_a = np.asarray(rows, dtype=np.int64)
        out[rows_a, 0] = best
        out[rows_a, 1] = total / np.asarray(counts, dtype=np.int64)
        return out

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Corpus TER of every row of summed ``[edits, reference length]`` (one vectorised call)."""
        sums = np.atleast_2d(np.asarray(sums, dtype=np.float64))
        return ter_from_stats(sums[:, 0], sums[:, 1])

    def score_from_stats(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 2:
            stats = valid_stats(stats)  # refused (long) segments have NaN rows
            if len(stats) == 0:
                return float("nan")
            stats = stats.sum(axis=0)
        return float(ter_from_stats(stats[0], stats[1]))

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        if len(refs) == 0:
            return float("nan")
        e, L = self._stats_one(cand, refs)
        return float("nan") if np.isnan(e) else float(ter_from_stats(e, L))

    def sentence_scores(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array([self.sentence_score(c, r) for c, r in zip(cands, refs)], dtype=float)

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats` (``ter_from_stats`` of the row,
        as :meth:`sentence_score` computes it; NaN for refused segments and without a
        reference), so a score table computes the alignments once."""
        stats = np.asarray(stats, dtype=float).reshape(-1, 2)
        if not len(stats):
            return np.zeros(0)
        e = stats[:, 0]
        fin = np.isfinite(e)
        out = np.full(len(stats), np.nan)
        out[fin] = ter_from_stats(e[fin], stats[fin, 1])  # elementwise: the same operations per row
        return np.where(np.array([len(r) == 0 for r in refs], dtype=bool), np.nan, out)

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``Metric.segment_block`` (identical values): one alignment per distinct
        (candidate, reference) token pair; leave-one-out = min edits over the other references
        divided by their mean length (sums of integers, so exact)."""
        nc, nr = len(cands), len(refs)
        ct = [self.tokens(c) for c in cands]
        rt = [self.tokens(r) for r in refs]
        if self.refuses((), rt):  # a reference over the cap: the whole segment is refused
            return np.full((nc, nr), np.nan), np.full((nc, nr), np.nan)
        long_c = np.array([too_long(c) for c in ct], dtype=bool)
        edits = edits_block([() if x else c for c, x in zip(ct, long_c)], rt)
        edits[long_c] = np.nan  # a candidate over the cap: its row
        rlen = np.array([len(r) for r in rt], dtype=np.float64)
        sim = ter_from_stats(edits, rlen[None, :])
        loo = np.full((nc, nr), np.nan)
        if nr > 1:
            total = rlen.sum()
            rest = best_of_others(edits, "min")
            loo = ter_from_stats(rest, (total - rlen[None, :]) / (nr - 1))
        sim[long_c], loo[long_c] = np.nan, np.nan
        return sim, loo


def edits_block(ct: Sequence[tuple], rt: Sequence[tuple]) -> np.ndarray:
    """Tercom edits of every (candidate, reference) token-tuple pair, shape (len ct, len rt):
    each distinct pair aligned once, identical pairs 0, all pairs of the block handed to the
    compiled kernel in one call (:func:`ter_edits_many`); pairs the kernel declines (and every
    pair when numba is missing) go through :func:`pair_edits`."""
    nc, nr = len(ct), len(rt)
    uniq: dict[tuple, int] = {}
    for t in list(ct) + list(rt):
        uniq.setdefault(t, len(uniq))
    texts = list(uniq)
    ci = np.array([uniq[t] for t in ct], dtype=np.int64)
    ri = np.array([uniq[t] for t in rt], dtype=np.int64)
    uc, ur = np.unique(ci), np.unique(ri)
    table = np.zeros((len(texts), len(texts)), dtype=np.float64)
    hs = np.repeat(uc, len(ur))
    rs = np.tile(ur, len(uc))
    keep = hs != rs
    hs, rs = hs[keep], rs[keep]
    if len(hs):
        if _nb is not None:
            vocab: dict[str, int] = {}
            lens = np.array([len(t) for t in texts], dtype=np.int64)
            offs = np.zeros(len(texts) + 1, dtype=np.int64)
            np.cumsum(lens, out=offs[1:])
            flat = np.fromiter((vocab.setdefault(w, len(vocab)) for t in texts for w in t), dtype=np.int64,
                               count=int(offs[-1]))
            e, ok = ter_edits_many(flat, offs, hs, rs)
            table[hs, rs] = e
            for k in np.flatnonzero(~ok).tolist():
                table[hs[k], rs[k]] = pair_edits_sacrebleu(texts[hs[k]], texts[rs[k]])
        else:
            for h, r in zip(hs.tolist(), rs.tolist()):
                table[h, r] = pair_edits(texts[h], texts[r])
    return table[np.ix_(ci, ri)].reshape(nc, nr)




# ---- compiled Tercom kernel (numba) ------------------------------------------------------
# A line-by-line port of sacreBLEU 2.x ``lib_ter`` (beam edit distance with Tercom's
# tie-breaking, greedy shift search, at most 1000 shift candidates, shifts of ≤ 10 words
# within 50 positions) to integer arrays. The row cache of sacreBLEU is replaced by reusing the
# rows of the current hypothesis for the unchanged prefix of each shifted candidate; both are
# pure optimisations (the edit distance of a word sequence does not depend on them).
_NOP, _SUB, _INS, _DEL, _UNDEF = 0, 1, 2, 3, 4
_INF = 10 ** 16

# numba is optional: without it the sacreBLEU routine is used (same values, slower). It is
# imported when a kernel first runs, not here (_jit.py); ``_nb is not None`` = numba is installed.
_nb = True if HAVE_NUMBA else None
_njit = lazy_njit


@_njit
def ed_rows(h, r, cost, ops, first):
    """Fill rows first..n_h of the beam edit-distance matrix; rows < first are valid."""
    n_h, n_r = len(h), len(r)
    if first == 0:
        for j in range(n_r + 1):
            cost[0, j] = j
            ops[0, j] = _INS
        first = 1
    ratio = n_r / n_h if n_h > 0 else 1.0
    beam = 25
    if 25 < ratio / 2:
        beam = int(np.ceil(ratio / 2 + 25))
    for i in range(first, n_h + 1):
        for j in range(n_r + 1):
            cost[i, j] = _INF
            ops[i, j] = _UNDEF
        pd = int(np.floor(i * ratio))
        min_j = max(0, pd - beam)
        max_j = min(n_r + 1, pd + beam)
        if i == n_h:
            max_j = n_r + 1
        for j in range(min_j, max_j):
            if j == 0:
                cost[i, 0] = cost[i - 1, 0] + 1
                ops[i, 0] = _DEL
            else:
                if h[i - 1] == r[j - 1]:
                    c, o = cost[i - 1, j - 1], _NOP
                else:
                    c, o = cost[i - 1, j - 1] + 1, _SUB
                if cost[i, j] > c:
                    cost[i, j] = c
                    ops[i, j] = o
                c = cost[i - 1, j] + 1
                if cost[i, j] > c:
                    cost[i, j] = c
                    ops[i, j] = _DEL
                c = cost[i, j - 1] + 1
                if cost[i, j] > c:
                    cost[i, j] = c
                    ops[i, j] = _INS
    return cost[n_h, n_r]

@_njit
def perform_shift(w, start, length, target, out):
    n = len(w)
    k = 0
    if target < start:
        segs = ((0, target), (start, start + length), (target, start), (start + length, n))
    elif target > start + length:
        segs = ((0, start), (start + length, target), (start, start + length), (target, n))
    else:
        segs = ((0, start), (start + length, length + target), (start, start + length), (length + target, n))
    for a, b in segs:
        a2 = min(max(a, 0), n)
        b2 = min(max(b, 0), n)
        for x in range(a2, b2):
            if k < n:
                out[k] = w[x]
            k += 1
    return k == n

@_njit
def shift_src(n, start, length, target, q0, src):
    """Where perform_shift(w, start, length, target, out) takes out[x] from: src[x] for
    q0 <= x < n (out[:q0] = w[:q0] when q0 <= min(start, target)); the same clamped segments in
    the same order. Returns perform_shift's validity (the segments fill exactly n places)."""
    if target < start:
        segs = ((0, target), (start, start + length), (target, start), (start + length, n))
    elif target > start + length:
        segs = ((0, start), (start + length, target), (start, start + length), (target, n))
    else:
        segs = ((0, start), (start + length, length + target), (start, start + length), (length + target, n))
    k = 0
    for a, b in segs:
        a2 = min(max(a, 0), n)
        b2 = min(max(b, 0), n)
        if b2 <= a2:
            continue
        if k + (b2 - a2) <= q0:
            k += b2 - a2
            continue
        for x in range(a2, b2):
            if q0 <= k < n:
                src[k] = x
            k += 1
    return k == n


@_njit
def _myers_step(eq, pv, mv, score, top):
    """One hypothesis word of Myers (1999) / Hyyrö (2001) bit-parallel Levenshtein, global
    version: the column state (pv, mv, score) after a word whose reference match mask is ``eq``
    (bit y set where reference word y equals it; ``top`` = the bit of the last reference word).
    Exact unit-cost edit distance (reference ≤ 62 words)."""
    xv = eq | mv
    xh = (((eq & pv) + pv) ^ pv) | eq
    ph = mv | ~(xh | pv)
    mh = pv & xh
    if ph & top:
        score += 1
    elif mh & top:
        score -= 1
    ph = (ph << np.uint64(1)) | np.uint64(1)
    mh = mh << np.uint64(1)
    return mh | ~(xv | ph), ph & xv, score


@_njit
def _bits_run_src(eqm, src, start, stop, pv, mv, score, top):
    """:func:`_myers_step` over the hypothesis words src[start..stop−1] (a shifted candidate
    given by its source positions, see :func:`shift_src`)."""
    for x in range(start, stop):
        pv, mv, score = _myers_step(eqm[src[x]], pv, mv, score, top)
    return pv, mv, score


@_njit
def _myers_blocks_step(eq, pv, mv, score, top):
    """:func:`_myers_step` for a reference of any length, its bits in 64-bit blocks (Myers 1999,
    the blocks-based version; Hyyrö 2003; as in edlib): ``eq``, ``pv``, ``mv`` hold one word per block, low
    reference words first; each block passes its last row's horizontal delta (+1, 0, −1) to the
    next (the first gets +1: row 0 of the global distance grows by one per column); ``top`` is
    the bit of the last reference word in the last block. ``pv``/``mv`` are updated in place;
    returns the new score (the distance to the whole reference)."""
    one = np.uint64(1)
    high = np.uint64(1) << np.uint64(63)
    hin = 1
    last = len(pv) - 1
    for b in range(last + 1):
        e = eq[b]
        p = pv[b]
        m = mv[b]
        xv = e | m
        if hin < 0:
            e |= one
        xh = (((e & p) + p) ^ p) | e
        ph = m | ~(xh | p)
        mh = p & xh
        hout = 0
        if b == last:
            if ph & top:
                score += 1
            elif mh & top:
                score -= 1
        elif ph & high:
            hout = 1
        elif mh & high:
            hout = -1
        ph = ph << one
        mh = mh << one
        if hin < 0:
            mh |= one
        elif hin > 0:
            ph |= one
        pv[b] = mh | ~(xv | ph)
        mv[b] = ph & xv
        hin = hout
    return score


@_njit
def _beam_margin(n_h, n_r):
    """Smallest number of insertions + deletions any path through a cell *outside* ed_rows'
    beam needs (|i − j| + |(n_h − i) − (n_r − j)|), or a huge number when the beam covers
    every cell. A candidate whose exact Levenshtein distance is below it has an optimal path
    inside the beam, so the beam cost equals that distance."""
    ratio = n_r / n_h if n_h > 0 else 1.0
    beam = 25
    if 25 < ratio / 2:
        beam = int(np.ceil(ratio / 2 + 25))
    best = _INF
    if beam > n_r:  # 0 <= pd <= n_r: every row's band is [0, n_r + 1), no cell outside
        return best
    for i in range(1, n_h + 1):
        pd = int(np.floor(i * ratio))
        lo = max(0, pd - beam)
        hi = min(n_r + 1, pd + beam)
        if i == n_h:
            hi = n_r + 1
        for j in range(0, n_r + 1):
            if j < lo or j >= hi:
                lb = abs(i - j) + abs((n_h - i) - (n_r - j))
                if lb < best:
                    best = lb
    return best


@_njit
def ter_edits(h0, r):
    """(edits, ok): sacreBLEU ``translation_edit_rate`` edits; ok False = fall back."""
    n_h, n_r = len(h0), len(r)
    if n_r == 0:
        return n_h, True
    cost = np.empty((n_h + 1, n_r + 1), np.int64)
    ops = np.empty((n_h + 1, n_r + 1), np.int8)
    wcost = np.empty((n_h + 1, n_r + 1), np.int64)
    wops = np.empty((n_h + 1, n_r + 1), np.int8)
    cur = h0.copy()
    cand = np.empty(n_h, h0.dtype)
    src = np.empty(n_h, np.int64)
    best_words = np.empty(n_h, h0.dtype)
    hyp_err = np.empty(n_h, np.int64)
    ref_err = np.empty(n_r, np.int64)
    align = np.empty(n_r, np.int64)
    has_align = np.empty(n_r, np.bool_)
    # The cost of a shifted candidate is only compared, never traced: compute its exact
    # Levenshtein distance bit-parallel from the state after the common prefix; when it is
    # below the beam margin (always, for references of ≤ 24 words) it equals ed_rows' beam
    # cost, otherwise ed_rows is run (identical integers either way).
    margin = _beam_margin(n_h, n_r)
    use_bits = 0 < n_r <= 62
    eqm = np.zeros(n_h, np.uint64)
    pv_pre = np.zeros(n_h + 1, np.uint64)
    mv_pre = np.zeros(n_h + 1, np.uint64)
    sc_pre = np.zeros(n_h + 1, np.int64)
    top = np.uint64(1) << np.uint64(max(n_r - 1, 0))
    # longer references: the same, 64 reference words per block (_myers_blocks_step)
    use_blocks = n_r > 62
    nb = (n_r + 63) // 64 if use_blocks else 1
    eqb = np.zeros((n_h if use_blocks else 0, nb), np.uint64)
    pvb_pre = np.zeros((n_h + 1 if use_blocks else 0, nb), np.uint64)
    mvb_pre = np.zeros((n_h + 1 if use_blocks else 0, nb), np.uint64)
    pvw = np.zeros(nb, np.uint64)
    mvw = np.zeros(nb, np.uint64)
    topb = np.uint64(1) << np.uint64((n_r - 1) % 64 if n_r > 0 else 0)
    shifts = 0
    checked = 0
    trace = np.empty(n_h + n_r, np.int8)
    pre = 0
    while True:
        pre = ed_rows(cur, r, cost, ops, 0)
        if use_bits:
            for x in range(n_h):
                m = np.uint64(0)
                for y in range(n_r):
                    if r[y] == cur[x]:
                        m |= np.uint64(1) << np.uint64(y)
                eqm[x] = m
            pv = (np.uint64(1) << np.uint64(n_r)) - np.uint64(1)
            mv = np.uint64(0)
            sc0 = n_r
            pv_pre[0], mv_pre[0], sc_pre[0] = pv, mv, sc0
            for x in range(n_h):
                pv, mv, sc0 = _myers_step(eqm[x], pv, mv, sc0, top)
                pv_pre[x + 1], mv_pre[x + 1], sc_pre[x + 1] = pv, mv, sc0
        if use_blocks:
            for x in range(n_h):
                for b in range(nb):
                    eqb[x, b] = np.uint64(0)
                for y in range(n_r):
                    if r[y] == cur[x]:
                        eqb[x, y >> 6] |= np.uint64(1) << np.uint64(y & 63)
            for b in range(nb):
                pvw[b] = ~np.uint64(0)
                mvw[b] = np.uint64(0)
            sc0 = n_r
            pvb_pre[0], mvb_pre[0], sc_pre[0] = pvw, mvw, sc0
            for x in range(n_h):
                sc0 = _myers_blocks_step(eqb[x], pvw, mvw, sc0, topb)
                pvb_pre[x + 1], mvb_pre[x + 1], sc_pre[x + 1] = pvw, mvw, sc0
        # trace -> alignment (sacreBLEU flips the trace, then trace_to_alignment)
        i, j = n_h, n_r
        n_ops = 0
        while i > 0 or j > 0:
            o = ops[i, j]
            trace[n_ops] = o
            n_ops += 1
            if o == _SUB or o == _NOP:
                i -= 1
                j -= 1
            elif o == _INS:
                j -= 1
            elif o == _DEL:
                i -= 1
            else:
                return 0, False
        ph, pr, nh, nr = -1, -1, 0, 0
        for x in range(n_r):
            has_align[x] = False
        for t in range(n_ops - 1, -1, -1):
            o = trace[t]
            if o == _NOP or o == _SUB:
                ph += 1
                pr += 1
                align[pr] = ph
                has_align[pr] = True
                e = 0 if o == _NOP else 1
                hyp_err[nh] = e
                ref_err[nr] = e
                nh += 1
                nr += 1
            elif o == _DEL:  # flipped: insertion -> hypothesis word
                ph += 1
                hyp_err[nh] = 1
                nh += 1
            else:  # _INS flipped to deletion -> reference word
                pr += 1
                align[pr] = ph
                has_align[pr] = True
                ref_err[nr] = 1
                nr += 1
        found = False
        b0, b1, b2, b3 = 0, 0, 0, 0
        valid = -1  # rows of wcost equal to cost up to this row
        stop = False
        for sh in range(n_h):
            if stop:
                break
            for sr in range(n_r):
                if stop:
                    break
                if abs(sr - sh) > 50:
                    continue
                length = 0
                while cur[sh + length] == r[sr + length] and length < 10:
                    length += 1
                    # ---- consume (sh, sr, length)
                    s1 = 0
                    for x in range(sh, min(sh + length, n_h)):
                        s1 += hyp_err[x]
                    s2 = 0
                    for x in range(sr, min(sr + length, n_r)):
                        s2 += ref_err[x]
                    skip = s1 == 0 or s2 == 0
                    if not skip and has_align[sr] and sh <= align[sr] < sh + length:
                        skip = True
                    if not skip:
                        prev_idx = -1
                        for off in range(-1, length):
                            if sr + off == -1:
                                idx = 0
                            elif 0 <= sr + off < n_r and has_align[sr + off]:
                                idx = align[sr + off] + 1
                            else:
                                break
                            if idx == prev_idx:
                                continue
                            prev_idx = idx
                            # the shifted candidate is cur[src[x]] for x >= q0 and cur[:q0]
                            # before (perform_shift's segments; not materialised unless needed)
                            q0 = min(sh, idx)
                            if not shift_src(n_h, sh, length, idx, q0, src):
                                return 0, False
                            p = q0
                            while p < n_h and cur[src[p]] == cur[p]:
                                p += 1
                            sc = _INF
                            if use_bits:
                                _, _, sc = _bits_run_src(eqm, src, p, n_h, pv_pre[p], mv_pre[p], sc_pre[p], top)
                                if sc >= margin:
                                    sc = _INF
                            elif use_blocks:
                                pvw[:] = pvb_pre[p]
                                mvw[:] = mvb_pre[p]
                                sc = sc_pre[p]
                                for x in range(p, n_h):
                                    sc = _myers_blocks_step(eqb[src[x]], pvw, mvw, sc, topb)
                                if sc >= margin:
                                    sc = _INF
                            if sc == _INF:
                                for x in range(q0):
                                    cand[x] = cur[x]
                                for x in range(q0, n_h):
                                    cand[x] = cur[src[x]]
                                # rows 0..p of the matrix depend only on cand[:p] == cur[:p]
                                if valid < p:
                                    for x in range(valid + 1, p + 1):
                                        for y in range(n_r + 1):
                                            wcost[x, y] = cost[x, y]
                                            wops[x, y] = ops[x, y]
                                valid = p
                                sc = ed_rows(cand, r, wcost, wops, p + 1)
                            checked += 1
                            d0, d1, d2, d3 = pre - sc, length, -sh, -idx
                            better = not found
                            if found:
                                if d0 != b0:
                                    better = d0 > b0
                                elif d1 != b1:
                                    better = d1 > b1
                                elif d2 != b2:
                                    better = d2 > b2
                                else:
                                    better = d3 > b3
                            if better:
                                found = True
                                b0, b1, b2, b3 = d0, d1, d2, d3
                                for x in range(q0):
                                    best_words[x] = cur[x]
                                for x in range(q0, n_h):
                                    best_words[x] = cur[src[x]]
                        if checked >= 1000:
                            stop = True
                            break
                    # ---- end consume
                    if n_h == sh + length or n_r == sr + length:
                        break
        if checked >= 1000:
            break
        if not found or b0 <= 0:
            break
        shifts += 1
        cur[:] = best_words
    # every exit leaves cur as it was when ``pre = ed_rows(cur, ...)`` was computed this round
    return shifts + pre, True



@_njit
def ter_edits_many(flat, offs, hs, rs):
    """``ter_edits`` of the pairs (text hs[k], text rs[k]) of texts stored back to back in
    ``flat`` (text t = flat[offs[t]:offs[t + 1]]): one compiled call for a whole block."""
    n = len(hs)
    out = np.zeros(n, np.int64)
    ok = np.zeros(n, np.bool_)
    for k in range(n):
        h = flat[offs[hs[k]]:offs[hs[k] + 1]]  # ter_edits copies the hypothesis, reads r
        r = flat[offs[rs[k]]:offs[rs[k] + 1]]
        e, good = ter_edits(h, r)
        out[k] = e
        ok[k] = good
    return out, ok


def kernel_available() -> bool:
    return _nb is not None


register("ter", lambda: TER())
