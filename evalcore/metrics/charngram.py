"""Character n-gram precision, recall and F1 for n = 1..6: the lexical features of BEER 1.x
(Stanojević & Sima'an 2014; methods §6.1).

Registered ids ``charngram-p1`` .. ``charngram-p6``, ``charngram-r1`` .. ``charngram-r6``,
``charngram-f1`` .. ``charngram-f6`` (0..1, higher is better).

* Each side is the string of its tokens joined by single spaces (spaces are characters of
  the n-grams); characters are Unicode code points, so Devanagari vowel signs and CJK
  ideographs are characters of their own.
* hits = Σ_g min(c_h(g), c_r(g)) over character n-grams g;
  P_n = hits / (|h_str| − n + 1), R_n = hits / (|r_str| − n + 1), F_n = 2PR/(P+R).
* Degenerate values (a string shorter than n, 0/0, NaN) are 0 — so an empty candidate or an
  empty reference scores 0.
* Several references: the maximum over references (BEER scores each reference and keeps the
  best). Corpus level: the mean of the segment scores (BEER's corpus score is a mean).

Default text: 13a tokens, **case kept** (``lowercase=False``, as chrF); ``tokenize`` and
``lowercase`` are options. :func:`char_ngram_prf` is the plain function (token lists in,
``(p, r, f)`` out) for the BEER implementation.
"""
from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Sequence, cast

import numpy as np

from .base import Metric, MetricMeta, MetricOption, group_by_refs, register
from .edit import PairwiseWordMetric, token_options
from ._caches import bounded_cache
from .kernels.ngram import code_point_ids, ngram_layers, ngram_layers_groups
from .kernels.overlap import block_overlaps

CITATION = ("Stanojević & Sima'an (2014), BEER: BEtter Evaluation as Ranking, WMT; "
            "Stanojević & Sima'an (2014), Fitting sentence level translation evaluation with many dense "
            "features, EMNLP")

MAX_N = 6


def char_string(tokens: Sequence[str]) -> str:
    """The tokens joined by single spaces (methods §6.1)."""
    return " ".join(tokens)


def _prf(hits: int, len_h: int, len_r: int, n: int) -> tuple[float, float, float]:
    dh, dr = len_h - n + 1, len_r - n + 1
    p = hits / dh if dh > 0 else 0.0
    r = hits / dr if dr > 0 else 0.0
    f = 2 * p * r / (p + r) if p > 0 and r > 0 else 0.0
    return float(p), float(r), float(f)


def char_ngram_prf(hyp_tokens: Sequence[str], ref_tokens: Sequence[str], n: int) -> tuple[float, float, float]:
    """BEER character n-gram (precision, recall, F1) of order n on the space-joined token
    strings; degenerate values are 0 (methods §6.1)."""
    h, r = char_string(hyp_tokens), char_string(ref_tokens)
    ch = Counter(h[i:i + n] for i in range(len(h) - n + 1))
    cr = Counter(r[i:i + n] for i in range(len(r) - n + 1))
    hits = sum(min(k, cr[g]) for g, k in ch.items() if g in cr)
    return _prf(hits, len(h), len(r), n)


# A (candidates × references) block is shared by the 18 ids (p/r/f × n): cache the hits of
# all six orders per block, keyed on the token tuples.
_BLOCK_CACHE = bounded_cache("charngram.blocks", 1024)


def _block_hits(cands: list[tuple], refs: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hits[n−1, c, k] for n = 1..6, string lengths of cands, of refs)."""
    key = (tuple(cands), tuple(refs))
    hit = _BLOCK_CACHE.get(key)
    if hit is not None:
        return hit
    strings = [char_string(t) for t in list(cands) + list(refs)]
    seqs = code_point_ids(strings)
    nc = len(cands)
    # clipped overlaps of every order: count-layer matrices, one product per order (exact integers)
    hits = np.stack([np.rint(X[:nc] @ X[nc:].T).astype(np.int64).reshape(nc, len(refs))
                     for X, _ in ngram_layers(seqs, MAX_N)])
    lens = np.array([len(s) for s in strings], dtype=np.int64)
    out = (hits, lens[:nc], lens[nc:])
    _BLOCK_CACHE[key] = out
    return out


_CP = 0x110000  # Unicode code points are below this


def _block_hits_many(blocks: Sequence[tuple[list[tuple], list[tuple]]]) -> list:
    """:func:`_block_hits` of several blocks (the segments of a chunk) with one batched count:
    character ids ranked within each block from one ``np.unique`` over (block, code point), the
    count layers of every block from one :func:`~evalcore.metrics.kernels.ngram.ngram_layers_groups`
    call (the same columns as per block), so the hits — integer sums of clipped counts — are
    those of :func:`_block_hits`."""
    strings, owner = [], []
    for b, (cands, refs) in enumerate(blocks):
        for t in list(cands) + list(refs):
            strings.append(char_string(t))
            owner.append(b)
    cps = [np.frombuffer(x.encode("utf-32-le"), dtype=np.uint32).astype(np.int64) for x in strings]
    lens = np.array([len(c) for c in cps], dtype=np.int64)
    allcp = np.concatenate(cps) if len(cps) else np.zeros(0, np.int64)
    code = np.repeat(np.asarray(owner, dtype=np.int64), lens) * _CP + allcp
    uniq, inv = np.unique(code, return_inverse=True)
    first = np.searchsorted(uniq, np.arange(len(blocks), dtype=np.int64) * _CP)  # each block's rank 0
    inv = inv.reshape(-1) - np.repeat(first[np.asarray(owner, dtype=np.int64)], lens) if len(cps) else inv
    bounds = np.cumsum(np.r_[0, lens])
    groups, at = [], 0
    for cands, refs in blocks:
        k = len(cands) + len(refs)
        groups.append([inv[bounds[i]:bounds[i + 1]] for i in range(at, at + k)])
        at += k
    fast = block_overlaps(groups, [len(c) for c, _ in blocks], MAX_N, True)  # ranked: sort-free counts
    if fast is not None:  # compiled two-pointer counts (same integers as the count layers)
        out, g0 = [], 0
        for (cands, refs), (hits, _) in zip(blocks, fast):
            nc = len(cands)
            out.append((hits, lens[g0:g0 + nc], lens[g0 + nc:g0 + nc + len(refs)]))
            g0 += nc + len(refs)
        return out
    out = []
    for (cands, refs), layers, g0 in zip(blocks, ngram_layers_groups(groups, MAX_N),
                                         np.cumsum([0] + [len(c) + len(r) for c, r in blocks])):
        nc = len(cands)
        hits = np.stack([np.rint(X[:nc] @ X[nc:].T).astype(np.int64).reshape(nc, len(refs)) for X, _ in layers])
        out.append((hits, lens[g0:g0 + nc], lens[g0 + nc:g0 + nc + len(refs)]))
    return out


class CharNgram(PairwiseWordMetric):
    """One BEER character n-gram feature (module docstring)."""

    stats_mode = "mean"

    def __init__(self, n: int = 1, measure: str = "f", tokenize: str = "13a", lowercase: bool = False,
                 metric_id: str | None = None):
        super().__init__(tokenize, lowercase)
        if not 1 <= int(n) <= MAX_N:
            raise ValueError(f"n must be in 1..{MAX_N}")
        if measure not in ("p", "r", "f"):
            raise ValueError("measure must be 'p', 'r' or 'f'")
        self.n, self.measure = int(n), measure
        self._which = "prf".index(measure)
        name = {"p": "precision", "r": "recall", "f": "F1"}[measure]
        self.meta = MetricMeta(
            id=metric_id or f"charngram-{measure}{self.n}", family="char-ngram",
            description=(f"BEER character {self.n}-gram {name} on the space-joined tokens (spaces included); "
                         "best reference; corpus = mean"),
            citation=CITATION, higher_is_better=True,
            options=(MetricOption("n", self.n, "character n-gram order", tuple(range(1, MAX_N + 1))),
                     MetricOption("measure", measure, "precision, recall or F1", ("p", "r", "f")))
            + token_options(False))

    def _signature_extra(self):
        return [f"n:{self.n}", f"m:{self.measure}", "space:yes"]

    def _pair(self, c, r):
        v = char_ngram_prf(c, r, self.n)[self._which]
        return v, (v,)

    def _block(self, cands, refs):
        """Vectorised :func:`_prf` (the same IEEE operations in the same order, so identical)."""
        hits, lc, lr = _block_hits(cands, refs)
        return self._values(hits[self.n - 1], lc[:, None], lr[None, :])

    @staticmethod
    def family_segment_stats(metrics: Sequence[Metric], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """``[m.segment_stats(cands, refs) for m in metrics]`` (same tokenizer and case) with the
        overlaps of each segment counted once for all 18 features and each feature's values
        computed for every segment at once: per item the (padded) row of its values against its
        references, the best (first maximum) kept, as :meth:`segment_stats` does per group
        (identical values; :func:`evalcore.metrics.levels.family_stats` calls this)."""
        metrics = cast("Sequence[CharNgram]", metrics)  # a family pass hands a class its own members
        m0 = metrics[0]
        out = [np.full((len(cands), 1), np.nan) for _ in metrics]
        rows, texts = [], []
        for key, idx in group_by_refs(refs):
            if not key:
                continue
            texts.append(([m0.tok(cands[i]) for i in idx], [m0.tok(r) for r in key]))
            rows.append(idx)
        blocks = _block_hits_many(texts) if texts else []
        if not blocks:
            return out
        width = max(b[0].shape[2] for b in blocks)
        n_items = sum(len(i) for i in rows)
        H = np.zeros((MAX_N, n_items, width), dtype=np.int64)
        LC = np.zeros((n_items, 1), dtype=np.int64)
        LR = np.zeros((n_items, width), dtype=np.int64)
        valid = np.zeros((n_items, width), dtype=bool)
        at = 0
        for (hits, lc, lr), idx in zip(blocks, rows):
            nc, nr = len(idx), hits.shape[2]
            H[:, at:at + nc, :nr] = hits
            LC[at:at + nc, 0] = lc
            LR[at:at + nc, :nr] = lr[None, :]
            valid[at:at + nc, :nr] = True
            at += nc
        order = np.concatenate([np.asarray(i) for i in rows])
        for m, o in zip(metrics, out):
            vals = np.where(valid, m._values(H[m.n - 1], LC, LR), -np.inf)
            pick = np.argmax(vals, axis=1)
            o[order, 0] = vals[np.arange(n_items), pick]
        return out

    def _values(self, hits, lc, lr) -> np.ndarray:
        """:func:`_prf`'s measure elementwise from hits and broadcastable string lengths."""
        h = hits.astype(np.float64)
        dh = np.broadcast_to((lc - self.n + 1).astype(np.float64), h.shape)
        dr = np.broadcast_to((lr - self.n + 1).astype(np.float64), h.shape)
        p = np.where(dh > 0, h / np.where(dh > 0, dh, 1.0), 0.0)
        r = np.where(dr > 0, h / np.where(dr > 0, dr, 1.0), 0.0)
        if self.measure == "p":
            return p
        if self.measure == "r":
            return r
        ok = (p > 0) & (r > 0)
        return np.where(ok, 2 * p * r / np.where(ok, p + r, 1.0), 0.0)


for _n in range(1, MAX_N + 1):
    for _m in "prf":
        register(f"charngram-{_m}{_n}", partial(CharNgram, n=_n, measure=_m))
