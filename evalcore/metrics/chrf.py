"""chrF (Popović 2015) and chrF++ (Popović 2017) exactly as sacreBLEU 2.x computes them.

Registered ids (sacreBLEU's **0-100 scale**, methods §0):

* ``chrf``   – character n-grams 1..6, β = 2, whitespace removed, sacreBLEU's effective-order
  averaging (default ``eps_smoothing=False``).
* ``chrf++`` – the same plus word uni- and bigrams (words split off leading/trailing
  punctuation as sacreBLEU does).

Per (candidate, reference) pair and order the statistics are ``[n_hyp, n_ref, n_match]``
(n_hyp is 0 when the reference has no n-gram of that order, as in sacreBLEU); the F-score
averages precision and recall over the orders where both sides have n-grams (Popović 2015 §2;
sacreBLEU ``CHRF._compute_f_score``). With several references the segment statistics are those
of the reference with the highest sentence F-score (first one on ties), so the multi-reference
sentence score is the maximum of the single-reference scores. Corpus chrF sums the chosen
statistics over segments. Empty candidate or empty reference: score 0. No reference: NaN.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence, cast

import numpy as np

from .. import __version__
from .base import Metric, MetricMeta, MetricOption, Signature, make_signature, register
from .edit import best_of_others
from ._caches import bounded_cache
from .kernels.ngram import code_point_ids, dense_ngram_ids, ngram_layers
from .kernels.overlap import block_overlaps, chunk_matches
from .kernels.plans import chunk_texts

_PUNCTS = set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
CITATION = ("Popović (2015), chrF: character n-gram F-score for automatic MT evaluation, WMT; "
            "Popović (2017), chrF++: words helping character n-grams, WMT")


def split_punct_words(text: str) -> list[str]:
    """chrF++ words: whitespace split, then one leading *or* trailing ASCII punctuation mark is
    split off a word longer than one character (trailing checked first), as sacreBLEU does."""
    out: list[str] = []
    for w in text.split():
        if len(w) == 1:
            out.append(w)
        elif w[-1] in _PUNCTS:
            out += [w[:-1], w[-1]]
        elif w[0] in _PUNCTS:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def chrf_from_stats(stats: np.ndarray, n_orders: int, beta: float = 2, eps_smoothing: bool = False) -> np.ndarray:
    """Vectorised sacreBLEU ``CHRF._compute_f_score`` over rows ``[..., 3 * n_orders]``
    (Popović 2015 §2: F_β of the averaged character n-gram precision and recall), 0-100."""
    stats = np.asarray(stats, dtype=np.float64)
    eps = 1e-16
    factor = beta ** 2
    shape = stats.shape[:-1]
    score = np.zeros(shape)
    avg_p, avg_r = np.zeros(shape), np.zeros(shape)
    eff = np.zeros(shape, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            nh, nref, nm = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
            prec = np.where(nh > 0, nm / np.where(nh > 0, nh, 1), eps)
            rec = np.where(nref > 0, nm / np.where(nref > 0, nref, 1), eps)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / np.where(denom > 0, denom, 1), eps)
            both = (nh > 0) & (nref > 0)
            avg_p = np.where(both, avg_p + prec, avg_p)
            avg_r = np.where(both, avg_r + rec, avg_r)
            eff = eff + both
        if eps_smoothing:
            return 100 * score / n_orders
        avg_p = np.where(eff > 0, avg_p / np.where(eff > 0, eff, 1), 0.0)
        avg_r = np.where(eff > 0, avg_r / np.where(eff > 0, eff, 1), 0.0)
        ok = (avg_p + avg_r) != 0
        f = (1 + factor) * avg_p * avg_r
        f = f / np.where(ok, (factor * avg_p) + avg_r, 1)
    return np.where(ok, 100 * f, 0.0)


#: any ASCII punctuation mark (:data:`_PUNCTS`): a text without one splits into chrF++ words as
#: ``str.split`` does
_HAS_PUNCT = None


def _chrfpp_words(text: str) -> list[str]:
    """:func:`split_punct_words` of ``text``; plain ``split`` when it holds no punctuation mark."""
    global _HAS_PUNCT
    if _HAS_PUNCT is None:
        import re

        _HAS_PUNCT = re.compile("[" + re.escape("".join(sorted(_PUNCTS))) + "]")
    return split_punct_words(text) if _HAS_PUNCT.search(text) else text.split()


class CHRF(Metric):
    """sacreBLEU-exact chrF / chrF++ (see module docstring)."""

    serves_segments = True
    stats_mode = "sum"  # corpus score from summed statistics

    def __init__(self, char_order: int = 6, word_order: int = 0, beta: int = 2, lowercase: bool = False,
                 whitespace: bool = False, eps_smoothing: bool = False, metric_id: str = "chrf"):
        self.char_order, self.word_order, self.beta = int(char_order), int(word_order), beta
        self.lowercase, self.whitespace, self.eps_smoothing = lowercase, whitespace, eps_smoothing
        self.order = self.char_order + self.word_order
        self.meta = MetricMeta(
            id=metric_id, family="chrF",
            description=(f"sacreBLEU chrF{'+' * self.word_order} (char n-grams 1..{char_order}"
                         + (f", word n-grams 1..{word_order}" if word_order else "") + f", beta {beta}), 0-100"),
            citation=CITATION, higher_is_better=True,
            options=(
                MetricOption("char_order", 6, "maximum character n-gram order"),
                MetricOption("word_order", word_order, "maximum word n-gram order (2 = chrF++)"),
                MetricOption("beta", 2, "recall weight β"),
                MetricOption("lowercase", False, "lowercase both sides"),
                MetricOption("whitespace", False, "keep whitespace in character n-grams"),
                MetricOption("eps_smoothing", False, "chrF++.py-style epsilon smoothing instead of effective order"),
            ))

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        """sacreBLEU's own signature string (``CHRF.get_signature().format()``), e.g.
        ``nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0``, when β = 2 (sacreBLEU's
        signature does not record β); otherwise an evalcore signature with the id and ``beta:``.
        chrF works on characters: no tokenizer applies (``level`` changes nothing)."""
        import sacrebleu

        fields = [("case", "lc" if self.lowercase else "mixed"), ("eff", not self.eps_smoothing),
                  ("nc", self.char_order), ("nw", self.word_order), ("space", self.whitespace)]
        if self.beta == 2:
            return make_signature(fields, nrefs=nrefs, version=sacrebleu.__version__)
        return make_signature(fields + [("beta", self.beta)], nrefs=nrefs, version=f"evalcore-{__version__}",
                              metric=self.meta.id)

    # -- text preparation
    def _prep(self, text: str) -> str:
        return text.lower() if self.lowercase else text

    def _chars(self, text: str) -> str:
        text = self._prep(text)
        return text if self.whitespace else "".join(text.split())

    def _counters(self, text: str) -> list[Counter]:
        chars = self._chars(text)
        out: list[Counter] = [Counter(chars[i:i + n] for i in range(len(chars) - n + 1)) for n in range(1, self.char_order + 1)]
        if self.word_order:
            words = split_punct_words(self._prep(text))
            out += [Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
                    for n in range(1, self.word_order + 1)]
        return out

    def _pair_stats(self, hyp: list[Counter], ref: list[Counter]) -> list[int]:
        row = []
        for h, r in zip(hyp, ref):
            match = sum(min(k, r[g]) for g, k in h.items() if g in r)
            row += [sum(h.values()) if r else 0, sum(r.values()), match]
        return row

    def _stats_one(self, cand: str, refs: Sequence[str]) -> list[int]:
        hyp = self._counters(cand)
        best, best_f = None, -1.0
        for r in refs:
            row = self._pair_stats(hyp, self._counters(r))
            f = float(chrf_from_stats(np.array(row, dtype=float), self.order, self.beta, self.eps_smoothing))
            if f > best_f:
                best, best_f = row, f
        assert best is not None  # refs is not empty (sentence_score answers NaN without one)
        return best

    # -- Metric API
    def segment_stats(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        """Per segment the ``[n_hyp, n_ref, n_match] × order`` row of the best reference: the
        first with the highest sentence F-score, as in the per-item loop ``_stats_one``
        (identical values). Computed by :meth:`family_segment_stats` (one compiled run for all
        the segments passed)."""
        return self.family_segment_stats([self], cands, refs)[0]

    @classmethod
    def family_segment_stats(cls, metrics: Sequence[Metric], cands: Sequence[str],
                             refs: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of a chunk of segments
        (:func:`evalcore.metrics.levels.family_stats`). Candidates sharing their reference list
        (a segment's outputs) form a group; the clipped character and word n-gram matches of
        every (candidate, reference) pair of the chunk come from one compiled run over flat
        symbol ids (:func:`.kernels.overlap.chunk_matches`), the character part shared by chrf
        and chrf++ (same case and whitespace options), and one :func:`chrf_from_stats` call scores every
        pair to pick each candidate's best reference (Popović 2015, 2017; sacreBLEU)."""
        metrics = cast("Sequence[CHRF]", metrics)  # a family pass hands a class its own members
        texts, *arrays, cand_item = chunk_texts(cands, refs, lambda t: t)
        n_refs = arrays[1] - arrays[0]
        sizes = np.diff(arrays[2])
        per_cand = np.repeat(n_refs, sizes)  # references of each candidate
        pair_cand = np.repeat(np.arange(len(cand_item)), per_cand)
        first = np.cumsum(per_cand) - per_cand
        pair_ref = np.repeat(np.repeat(arrays[0], sizes), per_cand) + np.arange(len(pair_cand)) - np.repeat(first, per_cand)
        pair_hyp = arrays[3][pair_cand]

        def side(seqs: list, orders: int) -> np.ndarray:
            """``[n_hyp, n_ref, n_match] × orders`` of every pair from per-text symbol ids."""
            lens = np.fromiter((len(x) for x in seqs), dtype=np.int64, count=len(seqs))
            offs = np.zeros(len(seqs) + 1, dtype=np.int64)
            np.cumsum(lens, out=offs[1:])
            flat = np.concatenate(seqs) if len(seqs) and offs[-1] else np.zeros(0, np.int64)
            hits = chunk_matches(dense_ngram_ids(flat, offs, orders), offs, *arrays)
            st = np.zeros((len(pair_cand), 3 * orders))
            for i in range(orders):
                tot = np.maximum(lens - i, 0).astype(np.float64)
                h_tot, r_tot = tot[pair_hyp], tot[pair_ref]
                st[:, 3 * i] = np.where(r_tot > 0, h_tot, 0.0)
                st[:, 3 * i + 1] = r_tot
                st[:, 3 * i + 2] = hits[:, i]
            return st

        char_parts: dict = {}
        out = []
        for m in metrics:
            k = 3 * m.order
            rows = np.full((len(cands), k), np.nan)
            if not len(cand_item):
                out.append(rows)
                continue
            ckey = (m.lowercase, m.whitespace, m.char_order)
            if ckey not in char_parts:
                chars = [m._chars(t) for t in texts]
                cps = np.frombuffer("".join(chars).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
                bounds = np.cumsum([0] + [len(x) for x in chars])
                char_parts[ckey] = side([cps[bounds[i]:bounds[i + 1]] for i in range(len(texts))], m.char_order)
            st = char_parts[ckey]
            if m.word_order:
                vocab: dict[str, int] = {}
                words = [_chrfpp_words(m._prep(t)) for t in texts]
                wid = np.fromiter((vocab.setdefault(w, len(vocab)) for ws in words for w in ws), dtype=np.int64)
                wb = np.cumsum([0] + [len(ws) for ws in words])
                st = np.concatenate([st, side([wid[wb[i]:wb[i + 1]] for i in range(len(texts))], m.word_order)],
                                    axis=1)
            f = chrf_from_stats(st, m.order, m.beta, m.eps_smoothing)
            best = np.zeros(len(cand_item), dtype=np.int64)  # first pair with the highest F per candidate
            top = np.full(len(cand_item), -np.inf)
            np.maximum.at(top, pair_cand, f)
            at = np.flatnonzero(f == top[pair_cand])
            cand_of, first_at = np.unique(pair_cand[at], return_index=True)
            best[cand_of] = at[first_at]
            rows[cand_item] = st[best]
            out.append(rows)
        return out

    def sentence_scores_of(self, stats: np.ndarray, refs: Sequence[Sequence[str]]) -> np.ndarray:
        """The sentence scores of rows of :meth:`segment_stats` (NaN without a reference)."""
        if not len(stats):
            return np.zeros(0)
        out = chrf_from_stats(np.nan_to_num(stats), self.order, self.beta, self.eps_smoothing)
        return np.where(np.array([len(r) == 0 for r in refs], dtype=bool), np.nan, out)

    def scores_from_sums(self, sums: np.ndarray) -> np.ndarray:
        """Corpus chrF of every row of summed statistics (one vectorised call)."""
        return chrf_from_stats(np.atleast_2d(np.asarray(sums, dtype=np.float64)), self.order, self.beta,
                               self.eps_smoothing)

    def score_from_stats(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=np.float64)
        if stats.ndim == 2:
            if len(stats) == 0:
                return float("nan")
            stats = stats.sum(axis=0)
        return float(chrf_from_stats(stats, self.order, self.beta, self.eps_smoothing))

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        if len(refs) == 0:
            return float("nan")
        return float(chrf_from_stats(np.array(self._stats_one(cand, refs), dtype=float), self.order,
                                     self.beta, self.eps_smoothing))

    def sentence_scores(self, cands: Sequence[str], refs: Sequence[Sequence[str]]) -> np.ndarray:
        return self.sentence_scores_of(self.segment_stats(cands, refs), refs)

    @staticmethod
    def _side_stats_from(ci, ri, hits, totals, n_orders) -> np.ndarray:
        """:meth:`_side_stats` from clipped overlaps ``hits[n−1, u, v]`` between the unique
        texts and their n-gram ``totals[u, n−1]`` (:func:`evalcore.metrics.kernels.overlap.block_overlaps`)."""
        nc, nr = len(ci), len(ri)
        stats = np.zeros((nc, nr, 3 * n_orders))
        for i in range(n_orders):
            h_tot, r_tot = totals[ci, i].astype(np.float64), totals[ri, i].astype(np.float64)
            stats[..., 3 * i] = np.where(r_tot[None, :] > 0, h_tot[:, None], 0.0)
            stats[..., 3 * i + 1] = r_tot[None, :]
            stats[..., 3 * i + 2] = hits[i][np.ix_(ci, ri)]
        return stats

    def _side_stats(self, texts, ci, ri, layers, n_orders) -> np.ndarray:
        nc, nr = len(ci), len(ri)
        stats = np.zeros((nc, nr, 3 * n_orders))
        for i, (X, totals) in enumerate(layers):
            h_tot, r_tot = totals[ci], totals[ri]
            stats[..., 3 * i] = np.where(r_tot[None, :] > 0, h_tot[:, None], 0.0)
            stats[..., 3 * i + 1] = r_tot[None, :]
            stats[..., 3 * i + 2] = X[ci] @ X[ri].T
        return stats

    def _block_stats(self, cands: Sequence[str], refs: Sequence[str], memo: bool = True) -> np.ndarray:
        """``[n_hyp, n_ref, n_match] × order`` of every (candidate, reference) pair, shape
        (nc, nr, 3·order). The character part is memoised per block (chrf and chrf++ share it)
        unless ``memo`` is False (a pass over a whole dataset)."""
        uniq: dict[str, int] = {}
        for t in list(cands) + list(refs):
            uniq.setdefault(t, len(uniq))
        texts = list(uniq)
        ci = np.array([uniq[t] for t in cands], dtype=np.int64)
        ri = np.array([uniq[t] for t in refs], dtype=np.int64)
        key = (self.lowercase, self.whitespace, self.char_order, tuple(cands), tuple(refs))
        char_stats = _CHAR_CACHE.get(key) if memo else None
        if char_stats is None:
            char_seqs = code_point_ids([self._chars(t) for t in texts])  # ranked within the segment
            fast = block_overlaps([char_seqs + char_seqs], [len(texts)], self.char_order)
            if fast is not None:  # compiled counts: the same integers as the count layers
                hits, totals = fast[0]
                char_stats = self._side_stats_from(ci, ri, hits, totals[:len(texts)], self.char_order)
            else:
                char_stats = self._side_stats(texts, ci, ri, ngram_layers(char_seqs, self.char_order),
                                              self.char_order)
            if memo:
                _CHAR_CACHE[key] = char_stats
        if not self.word_order:
            return char_stats
        vocab: dict[str, int] = {}
        word_seqs = [np.fromiter((vocab.setdefault(w, len(vocab)) for w in split_punct_words(self._prep(t))),
                                 dtype=np.int64) for t in texts]
        word_stats = self._side_stats(texts, ci, ri, ngram_layers(word_seqs, self.word_order), self.word_order)
        return np.concatenate([char_stats, word_stats], axis=2)

    def segment_block(self, cands: Sequence[str], refs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised ``Metric.segment_block`` (identical values). ``loo[c, j]`` is the maximum of
        ``sim[c, k]`` over k ≠ j, which is sacreBLEU's best-reference rule."""
        return self.segment_blocks([(cands, refs)])[0]

    def segment_blocks(self, blocks) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`segment_block` of several segments, the F-scores of all their pairs computed
        by one (row-wise, hence identical) :func:`chrf_from_stats` call."""
        k = 3 * self.order
        parts = [self._block_stats(c, r).reshape(-1, k) for c, r in blocks]
        scores = chrf_from_stats(np.concatenate(parts), self.order, self.beta, self.eps_smoothing) if parts \
            else np.zeros(0)
        out, pos = [], 0
        for cands, refs in blocks:
            nc, nr = len(cands), len(refs)
            sim = scores[pos:pos + nc * nr].reshape(nc, nr)
            pos += nc * nr
            out.append((sim, best_of_others(sim, "max")))
        return out


_CHAR_CACHE = bounded_cache("chrf.chars", 64)  # character statistics per block


register("chrf", lambda: CHRF())
register("chrf++", lambda: CHRF(word_order=2, metric_id="chrf++"))
