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

The pairwise engine uses :meth:`BLEU.segment_block`, a vectorised version built on the count
layers of :mod:`evalcore.metrics.kernels.ngram`: a clipped count min(a, b) equals the number of
thresholds t ≥ 1 with a ≥ t and b ≥ t, so with one binary column per (n-gram, t) the clipped
matches of every candidate against every reference are one matrix product, and clipping against
the maximum over "all references but r_j" is a product with the column-wise OR of the other
references.
"""
from __future__ import annotations

from collections import Counter
import threading
from itertools import chain
from typing import Any, Sequence, cast

import numpy as np

from .. import __version__
from .base import Metric, MetricMeta, MetricOption, Signature, make_signature, register
from .tokenize import TOKENIZERS
from .tokenize import tokenize as _tokenize
from ._caches import bounded_cache
from .kernels.ngram import dense_ngram_ids, ids_and_offsets, ngram_layers_groups
from .kernels.overlap import maxref_matches
from .kernels.plans import chunk_texts

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


class _WordIds:
    """The numbering behind :func:`token_ids_13a`: every whitespace-separated word seen gets an
    index (``wid``), its 13a tokens ids (``tid``: token -> id), laid out back to back in
    ``flat`` (word i's ids are ``flat[start[i]:start[i+1]]``). Words are only ever added."""

    __slots__ = ("wid", "tid", "flat", "start")

    def __init__(self):
        self.wid: dict[str, int] = {}
        self.tid: dict[str, int] = {}
        self.flat = np.zeros(0, dtype=np.int64)
        self.start = np.zeros(1, dtype=np.int64)

    def add(self, words) -> None:
        """Number ``words`` (none of them numbered yet) and their tokens."""
        memo, tid = _WORD_13A, self.tid
        ids: list[int] = []
        lens = np.zeros(len(words), dtype=np.int64)
        for i, w in enumerate(words):
            if w[0] == "\n":
                toks: tuple[str, ...] = (w[1:],)
            else:
                got = memo.get(w)
                if got is None:
                    got = memo[w] = (w,) if _SPECIAL_13A.isdisjoint(w) else _tokenize(w, "13a", False)
                toks = got
            lens[i] = len(toks)
            ids.extend([tid.setdefault(t, len(tid)) for t in toks])
            self.wid[w] = len(self.wid)
        self.flat = np.concatenate([self.flat, np.asarray(ids, dtype=np.int64)])
        self.start = np.concatenate([self.start, self.start[-1] + np.cumsum(lens)])


#: the numbering of :func:`token_ids_13a`, kept between calls (one entry; started afresh when it
#: holds :data:`WORD_IDS_MAX` words, and by ``clear_caches``)
_WORD_IDS = bounded_cache("bleu.word_ids_13a", 1)
WORD_IDS_MAX = 1 << 20
_WORD_IDS_LOCK = threading.Lock()


def token_ids_13a(texts: Sequence[str], lowercase: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(flat, offs)``: the 13a tokens of every text (:func:`tokenize_13a_words`, i.e. sacreBLEU's
    ``Tokenizer13a``, Post 2018) as integer ids back to back, text t's ids being
    ``flat[offs[t]:offs[t+1]]``; equal tokens have equal ids (ids in no particular order), as
    :func:`~evalcore.metrics.kernels.ngram.ids_and_offsets` of the token tuples gives them.

    Tokenising and numbering both work on whitespace-separated words (the reason
    :func:`tokenize_13a_words` is exact: 13a never joins two words): a word is tokenised and its
    tokens numbered once, when first seen (:class:`_WordIds`, kept between calls: the systems of
    one test set share most words), and every occurrence becomes its ids by one gather over
    arrays, so no Python work is done per token, nor per known word beyond a dict look-up. Texts
    holding a newline or carriage return are tokenised whole (13a deletes ``-\n``), their tokens
    then standing for themselves. tests/test_metrics_sacrebleu.py compares the ids with the
    tokens of sacreBLEU's tokenizer on random and real texts."""
    units: list[list[str]] = []
    for text in texts:
        if lowercase:
            text = text.lower()
        text = text.rstrip()
        if "\n" in text or "\r" in text:  # "\n" + token: never a whitespace-free word
            units.append(["\n" + t for t in _tokenize(text, "13a", False)])
        else:
            units.append(text.split())
    words = list(chain.from_iterable(units))
    with _WORD_IDS_LOCK:
        state = _WORD_IDS.get(0)
        if state is None or len(state.wid) >= WORD_IDS_MAX:
            state = _WORD_IDS[0] = _WordIds()
        try:  # every word known (the usual case after the first system): one pass
            occ = np.fromiter(map(state.wid.__getitem__, words), dtype=np.int64, count=len(words))
        except KeyError:
            state.add(sorted(set(words).difference(state.wid)))
            occ = np.fromiter(map(state.wid.__getitem__, words), dtype=np.int64, count=len(words))
        wflat, wstart = state.flat, state.start
    lens = wstart[occ + 1] - wstart[occ]
    cl = np.zeros(len(occ) + 1, dtype=np.int64)
    np.cumsum(lens, out=cl[1:])
    total = int(cl[-1])
    # token k of the output is token (k − start of its word occurrence) of that word's ids
    flat = wflat[np.repeat(wstart[occ] - cl[:-1], lens) + np.arange(total, dtype=np.int64)]
    woffs = np.zeros(len(units) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, units), dtype=np.int64, count=len(units)), out=woffs[1:])
    return flat, cl[woffs]


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
                assert smooth_value is not None  # SMOOTH_DEFAULTS["floor"] is a number
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

    tokenize: str  # always set (the base's None means "no text options")
    lowercase: bool

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

    def _stats_one(self, cand: str, refs: Sequence[str]) -> list[int]:
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
    def family_segment_stats(cls, metrics: Sequence[Metric], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of a chunk of segments
        (:func:`evalcore.metrics.levels.family_stats`). Candidates sharing their reference list
        (a segment's outputs) form a group; the clipped matches of orders 1..max N of every
        candidate against its group's maximum reference counts come from one compiled run over
        flat token ids (:func:`~evalcore.metrics.kernels.overlap.maxref_matches`), shared by the metrics with the same tokens
        (bleu, bleu-1..4, bleus); the closest reference length breaks ties to the shorter
        reference (sacreBLEU). Items without a reference get the loop's row."""
        metrics = cast("Sequence[BLEU]", metrics)  # a family pass hands a class its own members
        out: list = [None] * len(metrics)
        by_tokens: dict = {}
        for k, m in enumerate(metrics):
            by_tokens.setdefault((m.tokenize, m.lowercase), []).append(k)
        for ks in by_tokens.values():
            first = metrics[ks[0]]
            order = max(metrics[k].max_ngram_order for k in ks)
            if first.tokenize == "13a":  # the texts as they are, tokenised and numbered at once
                texts, r_lo, r_hi, g_cand, cand_text, items = chunk_texts(cands, refs, str)
                flat, offs = token_ids_13a(texts, first.lowercase)
            else:
                texts, r_lo, r_hi, g_cand, cand_text, items = chunk_texts(cands, refs, first.tokens)
                flat, offs = ids_and_offsets(texts)
            lens = np.diff(offs)
            hyp = lens[cand_text]
            correct = maxref_matches(dense_ngram_ids(flat, offs, order), offs, r_lo, r_hi, g_cand, cand_text)
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
                    rows[i] = m._stats_one(cands[int(i)], [])
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
        blocks not in the memo get their layers from one
        :func:`~evalcore.metrics.kernels.ngram.ngram_layers_groups` call.
        ``memo=False`` neither reads nor fills the memo (a pass over a whole dataset)."""
        order = max(4, self.max_ngram_order)
        keys = [(self.tokenize, self.lowercase, order, tuple(c), tuple(r)) for c, r in blocks] if memo else []
        out: list[Any] = [_LAYER_CACHE.get(k) for k in keys] if memo else [None] * len(blocks)
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
            for i, (ci, ri, plens), lay in zip(miss, parts, layers):
                out[i] = (ci, ri, lay, plens)
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
        loo_stats = sim_stats.copy()  # filled (and returned) only when nr > 1
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
        return sim_stats, (loo_stats if nr > 1 else None)

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
