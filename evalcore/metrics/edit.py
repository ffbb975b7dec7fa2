"""Word error rates mWER and mPER (methods §7.3), plus the token plumbing shared by evalcore's
word-level lexical metrics (NIST, GTM, ROUGE, character n-grams, METEOR-style).

Registered ids (error rates, **lower is better**, reported as rates 0..∞, not percentages):

* ``wer`` – mWER (Nießen et al. 2000): WER(c, r) = Levenshtein(c, r) / |r| with unit costs
  on tokens; x(c, R) = min over r ∈ R of WER(c, r).
* ``per`` – mPER (Tillmann et al. 1997; Leusch et al. 2003): PER(c, r) =
  1 − (m − max(0, |c| − |r|)) / |r| = (max(|c|, |r|) − m) / |r|, with m = Σ_w min(n_c(w), n_r(w))
  the bag-of-words overlap; x(c, R) = min over r ∈ R.

Corpus level (methods §7.3): for every segment the reference with the lowest rate is chosen
(the first on ties); the corpus rate is Σ_s errors(c_s, r*_s) / Σ_s |r*_s|. The per-segment
sufficient statistics are ``[errors, |r*|]``.

Defaults: sacreBLEU's 13a tokeniser on **lower-cased** text (as the QARLA experiments of
Amigó et al. 2006 score lower-cased tokenised text); ``tokenize`` and ``lowercase`` are options
(``tokenize="zh"`` for Chinese). Empty reference: the rate is 0 when the candidate is empty
too and 1 otherwise (sacreBLEU's TER convention); an empty candidate against a non-empty
reference has rate 1 (WER: |r| deletions; PER: nothing matched). No reference: NaN.

Shared pieces defined here and imported by the sibling modules:

* :class:`WordMetric` – options ``tokenize`` / ``lowercase``, signature, tokenisation;
* :class:`PairwiseWordMetric` – metrics whose multi-reference score is the best (max, or min
  for error rates) single-reference value; gives ``sentence_score``, ``similarity``,
  ``segment_stats`` (statistics of the best reference), ``score_from_stats`` and a
  ``segment_block`` built from one vectorised (candidates × references) matrix, with
  ``loo[c, j]`` = best of ``sim[c, k]`` over k ≠ j (identical to the default loop);
* :class:`ChunkPairs` / :func:`chunk_pairs` – the (candidate, reference) pairs of a chunk as
  token ids, with :func:`levenshtein_pairs` and :func:`overlap_pairs` over them.

The kernels they run on are in :mod:`evalcore.metrics.kernels`: token and n-gram ids in
:mod:`~evalcore.metrics.kernels.ngram`, clipped overlaps in :mod:`~evalcore.metrics.kernels.overlap`,
the dynamic programmes (Levenshtein, LCS, WLCS) in :mod:`~evalcore.metrics.kernels.dp`.
"""
from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np

from .. import __version__
from ._jit import HAVE_NUMBA
from .base import Metric, MetricMeta, MetricOption, Signature, group_by_refs, make_signature, register, too_long, valid_stats
from .tokenize import TOKENIZERS, check_tokenizer, tokenize
from ._caches import bounded_cache
from .kernels.dp import _dp_pairs, levenshtein, levenshtein_matrix
from .kernels.ngram import encode_block
from .kernels.overlap import bag_overlap, bag_overlap_pairs, clipped_overlap

# numba is optional: without it the numpy block versions below are used (same values). It is
# imported when a kernel first runs, not here (_jit.py); ``_nb is not None`` = numba is installed.
_nb = True if HAVE_NUMBA else None

VERSION = f"evalcore-{__version__}"

# ---------------------------------------------------------------------------------------------
# shared metric plumbing
# ---------------------------------------------------------------------------------------------


def token_options(lowercase_default: bool = True) -> tuple[MetricOption, ...]:
    """The two text options every word-level lexical metric has."""
    return (
        MetricOption("tokenize", "13a", "sacreBLEU tokenizer applied before matching (zh for Chinese, ja-mecab for Japanese)",
                     TOKENIZERS),
        MetricOption("lowercase", lowercase_default, "lower-case both sides before tokenising", (True, False)),
    )


class WordMetric(Metric):
    """Base of the token-level lexical metrics: options ``tokenize`` (a sacreBLEU tokenizer
    name) and ``lowercase``; ``signature()`` in sacreBLEU style."""

    uses_tokenizer = True

    def __init__(self, tokenize: str = "13a", lowercase: bool = True):
        self.tokenize = check_tokenizer(tokenize)
        self.lowercase = bool(lowercase)

    def with_tokenize(self, name: str) -> "WordMetric":
        import copy

        new = copy.copy(self)
        new.tokenize = check_tokenizer(name)
        new._retokenized()
        return new

    def _retokenized(self) -> None:
        """Hook: drop state derived from the old tokenizer (NIST's fitted table)."""

    def tok(self, text: str) -> tuple[str, ...]:
        return tokenize(text, self.tokenize, self.lowercase)

    def tokens(self, text: str) -> tuple[str, ...]:
        """:meth:`Metric.tokens`: the sacreBLEU tokens the metric matches."""
        return self.tok(text)

    def _signature_extra(self) -> list[str]:
        return []

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        """evalcore signature: metric id, ``nrefs`` (``var`` unless given), case, sacreBLEU's
        ``tok:`` value of the tokenizer, the metric's options, ``version:evalcore-X``."""
        from .tokenize import tokenizer_signature

        fields = [("case", "lc" if self.lowercase else "mixed"), ("tok", tokenizer_signature(self.tokenize))]
        fields += [tuple(x.split(":", 1)) for x in self._signature_extra()]
        return make_signature(fields, nrefs="var" if nrefs is None else nrefs, version=VERSION, metric=self.meta.id)


class PairwiseWordMetric(WordMetric):
    """A metric whose multi-reference score is the best single-reference value.

    Subclasses implement ``_pair(c, r) -> (value, stats)`` on token tuples (``stats`` a tuple of
    ``n_stats`` numbers whose column sums are the corpus sufficient statistics), the corpus
    score ``_score_stats(summed)`` and, for speed, ``_block(cands, refs) -> (C, K) values``
    whose entries must equal ``_pair(c, r)[0]`` exactly. ``best = "max"`` (similarities) or
    ``"min"`` (error rates). With ``stats_mode = "mean"`` the statistics are the sentence value
    and the corpus score is their mean (ROUGE, BEER features).
    """

    best = "max"
    n_stats = 1
    stats_mode = "sum"
    serves_segments = True

    # -- to implement --------------------------------------------------------------------
    def _pair(self, c: tuple[str, ...], r: tuple[str, ...]) -> tuple[float, tuple]:
        raise NotImplementedError

    def _score_stats(self, s: np.ndarray) -> float:
        return float(s[0])

    def _block(self, cands: list[tuple[str, ...]], refs: list[tuple[str, ...]]) -> np.ndarray:
        return np.array([[self._pair(c, r)[0] for r in refs] for c in cands], dtype=float).reshape(len(cands), len(refs))

    # -- Metric API ----------------------------------------------------------------------
    def _pick(self, values: Sequence[float]) -> int:
        arr = np.asarray(values, dtype=float)
        return int(np.argmax(arr) if self.best == "max" else np.argmin(arr))

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        if len(refs) == 0:
            return float("nan")
        c = self.tok(cand)
        rt = [self.tok(r) for r in refs]
        if self.refuses(c, rt):
            return float("nan")
        vals = [self._pair(c, r)[0] for r in rt]
        return float(max(vals) if self.best == "max" else min(vals))

    def similarity(self, cand: str, ref: str) -> float:
        c, r = self.tok(cand), self.tok(ref)
        return float("nan") if self.refuses(c, [r]) else float(self._pair(c, r)[0])

    def _stats_one(self, cand: str, refs: Sequence[str]) -> list[float]:
        if len(refs) == 0:
            return [float("nan")] * self.n_stats
        c = self.tok(cand)
        rt = [self.tok(r) for r in refs]
        if self.refuses(c, rt):
            return [float("nan")] * (1 if self.stats_mode == "mean" else self.n_stats)
        pairs = [self._pair(c, r) for r in rt]
        value, stats = pairs[self._pick([p[0] for p in pairs])]
        return [float(value)] if self.stats_mode == "mean" else [float(x) for x in stats]

    def _block_stats(self, cands: list[tuple[str, ...]], refs: list[tuple[str, ...]]) -> np.ndarray | None:
        """Optional: the ``_pair`` statistics of every (candidate, reference) pair, shape
        (C, K, n_stats), computed with :meth:`_block` (WER, PER). None: ``_pair`` per item."""
        return None

    def _pairs_stats(self, plan: "ChunkPairs") -> tuple[np.ndarray, np.ndarray] | None:
        """Optional (compiled chunk path): for every (candidate, reference) pair of ``plan``
        (:func:`chunk_pairs`) its ``_pair`` value and statistics, shapes (P,) and (P, n_stats),
        equal to ``_pair``'s exactly. None (the default): :meth:`segment_stats` uses the
        per-group :meth:`_block` path."""
        return None

    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per segment the statistics of the best reference (first on ties); NaN rows for
        segments without references (left out of the corpus score) and for refused ones.

        Compiled chunk path (WER, PER, GTM, METEOR with numba): every text tokenised once, every
        (candidate, reference) pair of all the items in one compiled call (:meth:`_pairs_stats`
        on :func:`chunk_pairs`), the best reference of each item picked as below.
        Otherwise vectorised per group: items are grouped by their reference list (a segment's
        outputs together) and each group's values are one :meth:`_block` matrix (whose entries
        equal ``_pair``'s values exactly), so the same reference is picked as by the per-item loop."""
        if _nb is not None and type(self)._pairs_stats is not PairwiseWordMetric._pairs_stats:
            plan = chunk_pairs(self, cands, refs)
            out = np.full((len(cands), self.n_stats), np.nan)
            if len(plan.ph):
                vals, stats = self._pairs_stats(plan)
                chosen = plan.pick(vals, self.best)
                out[plan.rows] = np.asarray(stats, dtype=float)[chosen]
            return out
        return self._segment_stats_blocks(cands, refs)

    def _segment_stats_blocks(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """:meth:`segment_stats` by one :meth:`_block` matrix per group of items sharing their
        references (the path without compiled chunk kernels; the tests' second reference)."""
        k = 1 if self.stats_mode == "mean" else self.n_stats
        out = np.full((len(cands), k), np.nan)
        for key, idx in group_by_refs(refs):
            if not key:
                continue
            rt = [self.tok(r) for r in key]
            if self.refuses((), rt):  # a reference over the cap: the whole group is refused
                continue
            ct = [self.tok(cands[i]) for i in idx]
            ok = [j for j, c in enumerate(ct) if not self.refuses(c, [])]
            if not ok:
                continue
            cts = [ct[j] for j in ok]
            vals = np.asarray(self._block(cts, rt), dtype=float).reshape(len(cts), len(rt))
            pick = np.argmax(vals, axis=1) if self.best == "max" else np.argmin(vals, axis=1)
            rows = np.asarray(idx)[ok]
            if self.stats_mode == "mean":
                out[rows, 0] = vals[np.arange(len(cts)), pick]
                continue
            bst = self._block_stats(cts, rt)
            if bst is not None:
                out[rows] = np.asarray(bst, dtype=float)[np.arange(len(cts)), pick]
            else:
                out[rows] = [[float(x) for x in self._pair(c, rt[p])[1]] for c, p in zip(cts, pick)]
        return out

    def score_from_stats(self, stats: np.ndarray) -> float:
        stats = valid_stats(stats)
        if len(stats) == 0:
            return float("nan")
        if self.stats_mode == "mean":
            return float(np.mean(stats[:, 0]))
        return float(self._score_stats(stats.sum(axis=0)))

    def sentence_scores(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return np.array([self.sentence_score(c, r) for c, r in zip(cands, refs)], dtype=float)

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats`: the statistics are those of
        the best reference, so the score is the value (``mean``) or ``_score_stats`` of the row
        (``sum``), the same function of the same numbers as ``_pair`` (identical values; NaN for
        refused segments and without a reference). A score table computes the statistics once."""
        stats = np.asarray(stats, dtype=float)
        if not len(stats):
            return np.zeros(0)
        if self.stats_mode == "mean":
            out = stats[:, 0].copy()
        else:
            out = np.array([float(self._score_stats(r)) if np.isfinite(r).all() else np.nan for r in stats])
        return np.where(np.array([len(r) == 0 for r in refs], dtype=bool), np.nan, out)

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``Metric.segment_block`` with identical values: ``sim`` from one
        (candidates × references) matrix, ``loo[c, j]`` the best of ``sim[c, k]``, k ≠ j."""
        nc, nr = len(cands), len(refs)
        if nc == 0 or nr == 0:
            return np.zeros((nc, nr)), np.full((nc, nr), np.nan)
        ct, rt = [self.tok(c) for c in cands], [self.tok(r) for r in refs]
        long_c = [self.refuses(c, []) for c in ct]
        if self.refuses((), rt):  # a reference over the cap: the whole segment is refused
            return np.full((nc, nr), np.nan), np.full((nc, nr), np.nan)
        sim = np.asarray(self._block([() if x else c for c, x in zip(ct, long_c)], rt), dtype=float)
        sim[np.asarray(long_c, dtype=bool)] = np.nan  # a candidate over the cap: its row
        return sim, best_of_others(sim, self.best)


class ChunkPairs:
    """Every (candidate, reference) pair of a chunk of items, the texts tokenised and encoded
    once (:func:`chunk_pairs`).

    ``flat``/``offs``: token ids of the distinct token sequences back to back (sequence t =
    ``flat[offs[t]:offs[t+1]]``; ids are only compared for equality); ``rows``: the items that
    have pairs, in order; item ``rows[q]`` owns pairs ``po[q]:po[q+1]``, one per reference in
    the order given; ``ph``/``pr``: sequence index of each pair's candidate and reference;
    ``lc``/``lr``: their lengths (int64); ``long_rows``: rows a quadratic metric refuses (a
    candidate or reference over :data:`~evalcore.metrics.base.MAX_ALIGN_TOKENS` tokens)."""

    __slots__ = ("flat", "offs", "rows", "po", "ph", "pr", "lc", "lr", "n_vocab", "long_rows", "memo")

    def pick(self, values: np.ndarray, best: str = "max") -> np.ndarray:
        """Index of the chosen pair of every row: the first maximum (``best="max"``) or first
        minimum of the row's values, as ``np.argmax`` / ``np.argmin`` over its references."""
        n = len(self.rows)
        k = np.diff(self.po)
        width = int(k.max()) if n else 0
        pad = np.full((n, width), -np.inf if best == "max" else np.inf)
        row_of = np.repeat(np.arange(n), k)
        pad[row_of, np.arange(len(values)) - self.po[row_of]] = values
        arg = np.argmax(pad, axis=1) if best == "max" else np.argmin(pad, axis=1)
        return self.po[:-1] + arg


_CHUNK_MEMO = bounded_cache("edit.chunk_pairs", 4)


def chunk_pairs(metric: "PairwiseWordMetric", cands: Sequence[str], refs: Sequence[Sequence[str]]) -> ChunkPairs:
    """The :class:`ChunkPairs` of ``metric``'s tokens for items ``(cands[i], refs[i])``. Items
    without references have no pairs; for a quadratic metric (``refuses``) an item whose
    candidate or one of whose references is over the cap has none either (NaN rows, as the
    block path). Within a family pass (:func:`evalcore.metrics._pass.shared_blocks`) the last
    chunks are memoised per tokenizer and case, so the metrics of one family (wer/per,
    gtm-1..3) tokenise and encode a chunk once; ``plan.memo`` holds blocks they share."""
    from . import _pass

    key = None
    plan = None
    if _pass.SHARED:
        key = (metric.tokenize, metric.lowercase, tuple(cands), tuple(map(tuple, refs)))
        plan = _CHUNK_MEMO.get(key)
    if plan is None:
        plan = _chunk_pairs(metric.tok, cands, refs)
        if key is not None:
            _CHUNK_MEMO[key] = plan
    if metric.quadratic and plan.long_rows.any():
        sub = plan.memo.get("quadratic")
        if sub is None:
            sub = plan.memo["quadratic"] = _without_rows(plan, plan.long_rows)
        return sub
    return plan


def _chunk_pairs(tok, cands, refs) -> ChunkPairs:
    seq_of: dict[tuple, int] = {}
    seqs: list[tuple] = []
    text_of: dict[str, int] = {}

    def ix(text: str) -> int:
        t = text_of.get(text)
        if t is None:
            tt = tok(text)
            t = seq_of.get(tt)
            if t is None:
                t = seq_of[tt] = len(seqs)
                seqs.append(tt)
            text_of[text] = t
        return t

    rows: list[int] = []
    counts: list[int] = []
    ph: list[int] = []
    pr: list[int] = []
    long_rows: list[bool] = []
    for key_refs, idx in group_by_refs(refs):
        if not key_refs:
            continue
        rix = [ix(r) for r in key_refs]
        ref_long = too_long(*(seqs[t] for t in rix))
        nk = len(rix)
        for i in idx:
            c = ix(cands[i])
            rows.append(i)
            counts.append(nk)
            long_rows.append(ref_long or too_long(seqs[c]))
            ph.extend([c] * nk)
            pr.extend(rix)
    lens = np.fromiter(map(len, seqs), dtype=np.int64, count=len(seqs))
    offs = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    plan = ChunkPairs()
    plan.flat, plan.n_vocab = encode_flat(seqs)
    plan.offs = offs
    plan.rows = np.asarray(rows, dtype=np.int64)
    plan.po = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.asarray(counts, dtype=np.int64), out=plan.po[1:])
    plan.ph = np.asarray(ph, dtype=np.int64)
    plan.pr = np.asarray(pr, dtype=np.int64)
    plan.lc, plan.lr = lens[plan.ph], lens[plan.pr]
    plan.long_rows = np.asarray(long_rows, dtype=bool)
    plan.memo = {}
    return plan


def encode_flat(seqs: Sequence[Sequence[str]]) -> tuple[np.ndarray, int]:
    """The tokens of ``seqs`` back to back as int64 ids (in order of first appearance; only
    equality of ids is meaningful) and the number of distinct tokens."""
    allt = list(chain.from_iterable(seqs))
    ids = {w: i for i, w in enumerate(dict.fromkeys(allt))}
    return np.fromiter(map(ids.__getitem__, allt), dtype=np.int64, count=len(allt)), len(ids)


def _without_rows(plan: ChunkPairs, drop: np.ndarray) -> ChunkPairs:
    """``plan`` without the rows ``drop`` (a boolean mask over its rows) and their pairs."""
    k = np.diff(plan.po)
    keep_pair = np.repeat(~drop, k)
    sub = ChunkPairs()
    sub.flat, sub.offs, sub.n_vocab = plan.flat, plan.offs, plan.n_vocab
    sub.rows = plan.rows[~drop]
    sub.po = np.zeros(len(sub.rows) + 1, dtype=np.int64)
    np.cumsum(k[~drop], out=sub.po[1:])
    sub.ph, sub.pr = plan.ph[keep_pair], plan.pr[keep_pair]
    sub.lc, sub.lr = plan.lc[keep_pair], plan.lr[keep_pair]
    sub.long_rows = np.zeros(len(sub.rows), dtype=bool)
    sub.memo = {}
    return sub


def best_of_others(values: np.ndarray, best: str = "max") -> np.ndarray:
    """``out[c, j]`` = max (``best="max"``) or min over k ≠ j of ``values[c, k]`` (NaN when there
    is a single column): the leave-one-reference-out value of a best-reference metric. Uses the
    best and second-best entry of each row, so it picks exactly the element the literal
    ``np.delete`` + reduction would (NaNs propagate the same way)."""
    values = np.asarray(values, dtype=float)
    nc, nr = values.shape
    out = np.full((nc, nr), np.nan)
    if nr < 2 or nc == 0:
        return out
    arg = np.argmax(values, axis=1) if best == "max" else np.argmin(values, axis=1)
    rows = np.arange(nc)
    first = values[rows, arg]
    rest = values.copy()
    rest[rows, arg] = -np.inf if best == "max" else np.inf
    second = rest.max(axis=1) if best == "max" else rest.min(axis=1)
    return np.where(np.arange(nr)[None, :] == arg[:, None], second[:, None], first[:, None])


# ---------------------------------------------------------------------------------------------
# pair kernels of a chunk plan
# ---------------------------------------------------------------------------------------------


def levenshtein_pairs(plan: ChunkPairs) -> np.ndarray:
    """Edit distance of every pair of a :class:`ChunkPairs` (int64; compiled, one call)."""
    return np.rint(_dp_pairs(plan.flat, plan.offs, plan.ph, plan.pr, 0, np.zeros(1))).astype(np.int64)


def overlap_pairs(plan: ChunkPairs) -> np.ndarray:
    """Bag overlap of every pair of a :class:`ChunkPairs` (int64), memoised in ``plan.memo``
    (PER and GTM-1 of one tokenizer and case share it)."""
    hit = plan.memo.get("overlap")
    if hit is None:
        hit = plan.memo["overlap"] = bag_overlap_pairs(plan.flat, plan.offs, plan.ph, plan.pr, plan.n_vocab)
    return hit


# ---------------------------------------------------------------------------------------------
# mWER / mPER
# ---------------------------------------------------------------------------------------------


def error_rate(errors: float, ref_len: float) -> float:
    """errors / |r|; with an empty reference 0 if there is no error, else 1 (methods §7.3;
    sacreBLEU's TER convention)."""
    if ref_len > 0:
        return errors / ref_len
    return 1.0 if errors > 0 else 0.0


def error_rate_array(errors: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """:func:`error_rate` elementwise (integer errors and lengths; the same division)."""
    errors, ref_len = np.broadcast_arrays(np.asarray(errors, dtype=np.int64), np.asarray(ref_len, dtype=np.int64))
    ok = ref_len > 0
    rate = errors.astype(np.float64) / np.where(ok, ref_len, 1).astype(np.float64)
    return np.where(ok, rate, np.where(errors > 0, 1.0, 0.0))


def per_errors(c: Sequence, r: Sequence, overlap: int | None = None) -> int:
    """PER error count max(|c|, |r|) − m = |r| − (m − max(0, |c| − |r|)) (methods §7.3)."""
    m = bag_overlap(c, r) if overlap is None else overlap
    return max(len(c), len(r)) - m


CITE_WER = ("Nießen, Och, Leusch & Ney (2000), An evaluation tool for machine translation: fast evaluation "
            "for MT research, LREC (mWER)")
CITE_PER = ("Tillmann, Vogel, Ney, Zubiaga & Sawaf (1997), Accelerated DP based search for statistical "
            "translation, Eurospeech; Leusch, Ueffing & Ney (2003), A novel string-to-string distance measure "
            "with applications to machine translation evaluation, MT Summit (mPER)")


class WER(PairwiseWordMetric):
    """mWER (module docstring)."""

    best = "min"
    n_stats = 2
    quadratic = True  # Levenshtein alignment: segments over MAX_ALIGN_TOKENS are refused

    def __init__(self, tokenize: str = "13a", lowercase: bool = True):
        super().__init__(tokenize, lowercase)
        self.meta = MetricMeta(
            id="wer", family="edit",
            description=("mWER: token Levenshtein distance / reference length, minimum over references "
                         "(a rate, lower is better; corpus = Σ edits / Σ lengths of the chosen references)"),
            citation=CITE_WER, higher_is_better=False, options=token_options(True))

    def _pair(self, c, r):
        e = levenshtein(c, r)
        return error_rate(e, len(r)), (e, len(r))

    def _score_stats(self, s):
        return error_rate(s[0], s[1])

    def _block(self, cands, refs):
        ids, _ = encode_block(list(cands) + list(refs))
        d = levenshtein_matrix(ids[:len(cands)], ids[len(cands):])
        return error_rate_array(d, np.array([len(r) for r in refs], dtype=np.int64)[None, :])

    def _pairs_stats(self, plan):
        """Rates and ``[edits, |r|]`` of every pair of a chunk (methods §7.3; one compiled DP call)."""
        d = levenshtein_pairs(plan)
        return error_rate_array(d, plan.lr), np.stack([d.astype(float), plan.lr.astype(float)], axis=1)

    def _block_stats(self, cands, refs):
        ids, _ = encode_block(list(cands) + list(refs))
        d = levenshtein_matrix(ids[:len(cands)], ids[len(cands):])
        lr = np.broadcast_to(np.array([len(r) for r in refs], dtype=float)[None, :], d.shape)
        return np.stack([np.asarray(d, dtype=float), lr], axis=2)


class PER(PairwiseWordMetric):
    """mPER (module docstring)."""

    best = "min"
    n_stats = 2

    def __init__(self, tokenize: str = "13a", lowercase: bool = True):
        super().__init__(tokenize, lowercase)
        self.meta = MetricMeta(
            id="per", family="edit",
            description=("mPER: position-independent error rate (max(|c|,|r|) − bag overlap) / |r|, minimum over "
                         "references (a rate, lower is better)"),
            citation=CITE_PER, higher_is_better=False, options=token_options(True))

    def _pair(self, c, r):
        e = per_errors(c, r)
        return error_rate(e, len(r)), (e, len(r))

    def _score_stats(self, s):
        return error_rate(s[0], s[1])

    def _block(self, cands, refs):
        ids, _ = encode_block(list(cands) + list(refs))
        m = clipped_overlap(ids[:len(cands)], ids[len(cands):])
        lc = np.array([len(c) for c in cands], dtype=np.int64)[:, None]
        lr = np.array([len(r) for r in refs], dtype=np.int64)[None, :]
        return error_rate_array(np.maximum(lc, lr) - m, lr)

    def _pairs_stats(self, plan):
        """Rates and ``[errors, |r|]`` of every pair of a chunk (methods §7.3; compiled bag overlaps)."""
        e = np.maximum(plan.lc, plan.lr) - overlap_pairs(plan)
        return error_rate_array(e, plan.lr), np.stack([e.astype(float), plan.lr.astype(float)], axis=1)

    def _block_stats(self, cands, refs):
        ids, _ = encode_block(list(cands) + list(refs))
        m = clipped_overlap(ids[:len(cands)], ids[len(cands):])
        lc = np.array([len(c) for c in cands], dtype=np.int64)[:, None]
        lr = np.array([len(r) for r in refs], dtype=np.int64)[None, :]
        e = np.maximum(lc, lr) - m
        return np.stack([e.astype(float), np.broadcast_to(lr, e.shape).astype(float)], axis=2)


register("wer", WER)
register("per", PER)
