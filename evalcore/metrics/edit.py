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
* the chunk plans (:class:`~evalcore.metrics.kernels.plans.ChunkPairs`) the pairwise metrics
  score a chunk through are in :mod:`evalcore.metrics.kernels.plans`.

The kernels they run on are in :mod:`evalcore.metrics.kernels`: token and n-gram ids in
:mod:`~evalcore.metrics.kernels.ngram`, clipped overlaps in :mod:`~evalcore.metrics.kernels.overlap`,
the dynamic programmes (Levenshtein, LCS, WLCS) in :mod:`~evalcore.metrics.kernels.dp`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import __version__
from ._jit import HAVE_NUMBA
from .base import Metric, MetricMeta, MetricOption, Signature, group_by_refs, make_signature, register, valid_stats
from .tokenize import TOKENIZERS, check_tokenizer, tokenize
from .kernels.dp import levenshtein, levenshtein_matrix
from .kernels.ngram import encode_block
from .kernels.plans import ChunkPairs, chunk_pairs, levenshtein_pairs, overlap_pairs
from .kernels.overlap import bag_overlap, clipped_overlap

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
    tokenize: str  # always set (the base's None means "no text options")
    lowercase: bool

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
        fields += [(k, v) for k, v in (x.split(":", 1) for x in self._signature_extra())]
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
                pairs = self._pairs_stats(plan)
                assert pairs is not None  # overridden (checked above)
                vals, stats = pairs
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
