"""ROUGE for MT (Lin & Och 2004, ACL P04-1077; ROUGE-1.5.5.pl; methods §7.6).

Registered ids (0..1, higher is better; F1 by default): ``rouge-1``, ``rouge-2`` (n-gram
overlap), ``rouge-l`` (LCS), ``rouge-w`` (weighted LCS, w = 1.2), ``rouge-s*`` (skip-bigrams,
any gap), ``rouge-su*`` (skip-bigrams + unigrams).

With m = |r|, n = |c| and "hits" the clipped overlap (Σ_g min counts):

* ROUGE-N: R = hits / #ref n-grams, P = hits / #cand n-grams.
* ROUGE-L: R = LCS/m, P = LCS/n.
* ROUGE-W: R = f⁻¹(WLCS / f(m)), P = f⁻¹(WLCS / f(n)) with f(k) = k^w, f⁻¹(y) = y^(1/w) and
  WLCS from Lin's DP (:func:`evalcore.metrics.kernels.dp.wlcs`).
* ROUGE-S(d): skip-bigrams = ordered pairs (i < j) with gap j − i − 1 ≤ d (S* = no limit):
  R = hits / C(m, 2), P = hits / C(n, 2) for S*.
* ROUGE-SU: S plus every unigram (the paper's form: hits 6, R 6/28 in methods §8).
  ``su_script=True`` reproduces ROUGE-1.5.5's ``-u`` quirk instead (the last token's unigram is
  not added).
* F = (1+β²)PR/(R+β²P) (β = 1: F1; ``beta`` option); ``measure`` selects f, p or r. Any 0/0
  is 0, so an empty candidate, an empty reference, or a one-word sentence under S* scores 0.
* Several references: ``multiref="best"`` (default, the script's ``-f B``): the maximum over
  references of the single-reference score. ``multiref="sum"`` (``-f A`` as methods §7.6 reads
  it): hits and reference counts summed over references, candidate counts multiplied by the
  number of references (for W the sums are of WLCS and f(m)).
* Corpus level: the mean of the segment scores (ROUGE-1.5.5 averages per-segment scores).

Default text: 13a tokens of lower-cased text (``tokenize``, ``lowercase``). Plain functions:
:func:`rouge_n_hits`, :func:`skip_bigrams`, :func:`rouge_prf`, plus ``lcs_length`` and ``wlcs``
from :mod:`evalcore.metrics.kernels.dp`.
"""
from __future__ import annotations

from typing import Sequence, cast

import numpy as np

from . import base as _base
from ._caches import lru_memo
from .base import Metric, MetricMeta, MetricOption, group_by_refs, register
from ._jit import lazy_njit as _njit
from .edit import PairwiseWordMetric, token_options
from .kernels.dp import _wlcs_increments, lcs_length, lcs_matrix, wlcs, wlcs_matrix
from .kernels.ngram import encode_block, ngram_keys
from .kernels.overlap import bag_overlap, clipped_overlap

CITATION = ("Lin & Och (2004), Automatic evaluation of machine translation quality using longest common "
            "subsequence and skip-bigram statistics, ACL; Lin (2004), ROUGE: a package for automatic "
            "evaluation of summaries (ROUGE-1.5.5)")


def rouge_prf(p: float, r: float, beta: float = 1.0) -> float:
    """F = (1+β²)PR/(R+β²P), 0 when P·R = 0 (methods §7.6)."""
    if p <= 0 or r <= 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * p * r / (r + b2 * p)


def ngrams(tokens: Sequence, n: int) -> list[tuple]:
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def rouge_n_hits(c: Sequence, r: Sequence, n: int) -> int:
    """Clipped n-gram overlap Σ_g min(count_c(g), count_r(g))."""
    return bag_overlap(ngrams(c, n), ngrams(r, n))


def skip_bigrams(tokens: Sequence, max_skip: int | None = None, unigrams: bool = False,
                 script: bool = False) -> list[tuple]:
    """The skip-bigrams (t_i, t_j), i < j, j − i − 1 ≤ max_skip (None = any gap), in order;
    with ``unigrams`` also (t_i,) for every token (all but the last with ``script``)."""
    n = len(tokens)
    out: list[tuple] = [(tokens[i], tokens[j]) for i in range(n) for j in range(i + 1, n)
           if max_skip is None or j - i - 1 <= max_skip]
    if unigrams:
        out += [(t,) for t in (tokens[:-1] if script else tokens)]
    return out


@lru_memo("rouge.pair_index", 256)
def _pair_index(n: int, max_skip: int | None) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n, 1)
    if max_skip is not None:
        keep = j - i - 1 <= max_skip
        i, j = i[keep], j[keep]
    return i, j


@_njit
def _w_values(hits, rden, cden, inv_w, measure, beta):
    """``ROUGE._value`` for ROUGE-W over arrays (the same operations in the same order;
    measure 0 = F, 1 = P, 2 = R)."""
    out = np.zeros(len(hits), np.float64)
    for t in range(len(hits)):
        p = hits[t] / cden[t] if cden[t] > 0 else 0.0
        r = hits[t] / rden[t] if rden[t] > 0 else 0.0
        p, r = p ** inv_w, r ** inv_w
        if measure == 1:
            out[t] = p
        elif measure == 2:
            out[t] = r
        elif p > 0 and r > 0:
            b2 = beta * beta
            out[t] = (1 + b2) * p * r / (r + b2 * p)
    return out


@_njit
def _sorted_overlap(x, y):
    """Σ_g min(count_x(g), count_y(g)) of two sorted integer arrays (a merge)."""
    i = j = h = 0
    while i < len(x) and j < len(y):
        if x[i] < y[j]:
            i += 1
        elif x[i] > y[j]:
            j += 1
        else:
            h += 1
            i += 1
            j += 1
    return h


@_njit
def _units_sorted(a, v, skips):
    """Sorted unit codes of one token-id sequence: unigrams, bigrams (a_i·v + a_i+1) and, when
    ``skips``, skip-bigrams with any gap (a_i·v + a_j, i < j: n(n−1)/2 of them; none otherwise)."""
    n = len(a)
    uni = np.sort(a)
    bi = np.empty(max(0, n - 1), np.int64)
    for i in range(n - 1):
        bi[i] = a[i] * v + a[i + 1]
    if not skips:
        return uni, np.sort(bi), np.empty(0, np.int64)
    sk = np.empty(n * (n - 1) // 2, np.int64)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            sk[k] = a[i] * v + a[j]
            k += 1
    return uni, np.sort(bi), np.sort(sk)


@_njit
def _family_kernel(flat, offs, r_lo, r_hi, g_cand, cand_text, v, inc, cap):
    """Per (candidate, reference of its group) pair: the clipped unigram, bigram and skip-bigram
    overlaps, the LCS length and Lin's weighted LCS (increments ``inc``), shape (P, 5), pairs
    candidate by candidate with the group's references in order. The DPs are those of
    :func:`evalcore.metrics.kernels.dp.lcs_length` / :func:`~evalcore.metrics.kernels.dp.wlcs` (candidate
    rows), the overlaps exact integers: identical to the per-segment matrices.

    The quadratic parts (skip-bigrams, whose number grows with n², and the two DPs, |c|·|r|)
    are computed only for texts and pairs of at most ``cap`` tokens (the long-segment cap,
    :data:`evalcore.metrics.base.MAX_ALIGN_TOKENS`; −1: for none, when no quadratic variant is
    asked for): a longer pair gets 0 in columns 2-4 and is refused by the caller, while its
    unigram and bigram overlaps (ROUGE-1/-2, linear) are still exact."""
    npairs = 0
    for q in range(len(r_lo)):
        npairs += (g_cand[q + 1] - g_cand[q]) * (r_hi[q] - r_lo[q])
    out = np.zeros((npairs, 5), np.float64)
    width = 1
    for t in range(len(offs) - 1):
        width = max(width, offs[t + 1] - offs[t] + 1)
    prev = np.zeros(width, np.float64)
    cur = np.zeros(width, np.float64)
    prev_l = np.zeros(width, np.int64)
    cur_l = np.zeros(width, np.int64)
    prev_w = np.zeros(width, np.int64)
    cur_w = np.zeros(width, np.int64)
    p = 0
    for q in range(len(r_lo)):
        nr = r_hi[q] - r_lo[q]
        r_units = []
        for t in range(r_lo[q], r_hi[q]):
            r_units.append(_units_sorted(flat[offs[t]:offs[t + 1]], v, offs[t + 1] - offs[t] <= cap))
        for c in range(g_cand[q], g_cand[q + 1]):
            ct = cand_text[c]
            a = flat[offs[ct]:offs[ct + 1]]
            n = len(a)
            cu = _units_sorted(a, v, n <= cap)
            for k in range(nr):
                rt = r_lo[q] + k
                b = flat[offs[rt]:offs[rt + 1]]
                ru = r_units[k]
                out[p, 0] = _sorted_overlap(cu[0], ru[0])
                out[p, 1] = _sorted_overlap(cu[1], ru[1])
                m = len(b)
                if n > cap or m > cap:  # refused before any quadratic work
                    p += 1
                    continue
                out[p, 2] = _sorted_overlap(cu[2], ru[2])
                for j in range(m + 1):
                    prev[j] = 0.0
                    prev_w[j] = 0
                    prev_l[j] = 0
                for i in range(n):
                    cur[0] = 0.0
                    cur_w[0] = 0
                    cur_l[0] = 0
                    ai = a[i]
                    for j in range(1, m + 1):
                        if ai == b[j - 1]:
                            kk = prev_w[j - 1]
                            cur[j] = prev[j - 1] + inc[kk]
                            cur_w[j] = kk + 1
                            cur_l[j] = prev_l[j - 1] + 1
                        else:
                            cur[j] = prev[j] if prev[j] > cur[j - 1] else cur[j - 1]
                            cur_w[j] = 0
                            cur_l[j] = prev_l[j] if prev_l[j] > cur_l[j - 1] else cur_l[j - 1]
                    prev, cur = cur, prev
                    prev_w, cur_w = cur_w, prev_w
                    prev_l, cur_l = cur_l, prev_l
                out[p, 3] = prev_l[m]
                out[p, 4] = prev[m]
                p += 1
    return out


VARIANTS = {"n", "l", "w", "s", "su"}


class ROUGE(PairwiseWordMetric):
    """ROUGE-N / L / W / S / SU (module docstring)."""

    stats_mode = "mean"

    def __init__(self, variant: str = "l", n: int = 1, w: float = 1.2, max_skip: int | None = None,
                 beta: float = 1.0, measure: str = "f", multiref: str = "best", su_script: bool = False,
                 tokenize: str = "13a", lowercase: bool = True, metric_id: str | None = None):
        super().__init__(tokenize, lowercase)
        if variant not in VARIANTS:
            raise ValueError(f"unknown ROUGE variant {variant!r}; choose one of {sorted(VARIANTS)}")
        if measure not in ("f", "p", "r"):
            raise ValueError("measure must be 'f', 'p' or 'r'")
        if multiref not in ("best", "sum"):
            raise ValueError("multiref must be 'best' or 'sum'")
        self.variant, self.n, self.w, self.max_skip = variant, int(n), float(w), max_skip
        self.beta, self.measure, self.multiref, self.su_script = float(beta), measure, multiref, bool(su_script)
        skip = "*" if max_skip is None else str(max_skip)
        default_id = {"n": f"rouge-{self.n}", "l": "rouge-l", "w": "rouge-w", "s": f"rouge-s{skip}",
                      "su": f"rouge-su{skip}"}[variant]
        what = {"n": f"{self.n}-gram overlap", "l": "longest common subsequence",
                "w": f"weighted LCS (w={self.w:g})", "s": f"skip-bigrams (max gap {skip})",
                "su": f"skip-bigrams (max gap {skip}) plus unigrams"}[variant]
        opts = [MetricOption("beta", 1.0, "F-measure β (R weighted β² times P)"),
                MetricOption("measure", "f", "reported value: F, precision or recall", ("f", "p", "r")),
                MetricOption("multiref", "best", "several references: best single score or summed counts",
                             ("best", "sum"))]
        if variant == "w":
            opts.append(MetricOption("w", 1.2, "weight exponent of f(k) = k^w"))
        if variant in ("s", "su"):
            opts.append(MetricOption("max_skip", None, "maximum gap between the two words (None = any)"))
        if variant == "su":
            opts.append(MetricOption("su_script", False, "ROUGE-1.5.5 -u quirk: omit the last token's unigram"))
        self.meta = MetricMeta(
            id=metric_id or default_id, family="ROUGE",
            description=f"ROUGE {what}: {self._measure_name()}, best reference, corpus = mean of segment scores",
            citation=CITATION, higher_is_better=True, options=tuple(opts) + token_options(True))

    @property
    def quadratic(self) -> bool:
        """LCS, weighted LCS and skip-bigrams cost |c|·|r|: segments over MAX_ALIGN_TOKENS
        tokens are refused (ROUGE-N is linear)."""
        return self.variant != "n"

    def _measure_name(self):
        return {"f": f"F (β={self.beta:g})", "p": "precision", "r": "recall"}[self.measure]

    def _signature_extra(self):
        out = [f"m:{self.measure}"]
        if self.measure == "f":
            out.append(f"beta:{self.beta:g}")
        if self.variant == "w":
            out.append(f"w:{self.w:g}")
        if self.variant == "su":
            out.append(f"su:{'script' if self.su_script else 'paper'}")
        out.append(f"mref:{self.multiref}")
        return out

    # -- counts ----------------------------------------------------------------------------
    def _units(self, tokens) -> list:
        if self.variant == "n":
            return ngrams(tokens, self.n)
        return skip_bigrams(tokens, self.max_skip, unigrams=self.variant == "su", script=self.su_script)

    def _counts(self, c, r) -> tuple[float, float, float]:
        """(hits, reference denominator, candidate denominator) of one pair."""
        if self.variant == "l":
            return float(lcs_length(c, r)), float(len(r)), float(len(c))
        if self.variant == "w":
            return wlcs(c, r, self.w), float(len(r)) ** self.w, float(len(c)) ** self.w
        uc, ur = self._units(c), self._units(r)
        return float(bag_overlap(uc, ur)), float(len(ur)), float(len(uc))

    def _value(self, hits, rden, cden, k: int = 1) -> float:
        """Score from (summed) counts; k = number of references summed (``multiref="sum"``)."""
        p = hits / (k * cden) if cden > 0 else 0.0
        r = hits / rden if rden > 0 else 0.0
        if self.variant == "w":
            p, r = p ** (1.0 / self.w), r ** (1.0 / self.w)
        if self.measure == "p":
            return float(p)
        if self.measure == "r":
            return float(r)
        return float(rouge_prf(p, r, self.beta))

    def _pair(self, c, r):
        v = self._value(*self._counts(c, r))
        return v, (v,)

    # -- multi-reference "sum" mode ----------------------------------------------------------
    def sentence_score(self, cand, refs):
        if self.multiref == "best" or len(refs) == 0:
            return super().sentence_score(cand, refs)
        c = self.tok(cand)
        rt = [self.tok(r) for r in refs]
        if self.refuses(c, rt):
            return float("nan")
        counts = [self._counts(c, r) for r in rt]
        return self._value(sum(x[0] for x in counts), sum(x[1] for x in counts), counts[0][2], k=len(refs))

    def _stats_one(self, cand, refs):
        if self.multiref == "best":
            return super()._stats_one(cand, refs)
        return [self.sentence_score(cand, refs)]

    def segment_block(self, cands, refs):
        if self.multiref == "sum":  # not a best-of rule: the reference loop
            return super(PairwiseWordMetric, self).segment_block(cands, refs)
        return super().segment_block(cands, refs)

    # -- the whole family over a chunk of segments --------------------------------------------
    @property
    def _in_family_kernel(self) -> bool:
        """Whether :meth:`family_segment_stats` computes this metric in its compiled run
        (best-reference ROUGE-1/-2/-L/-W/-S*/-SU* as the paper defines them)."""
        return (self.multiref == "best" and self.max_skip is None and not self.su_script
                and (self.variant != "n" or self.n in (1, 2)))

    def segment_stats(self, cands, refs):
        """:meth:`PairwiseWordMetric.segment_stats` (the best reference's value per segment),
        computed by :meth:`family_segment_stats`'s compiled run when it covers this variant."""
        if self._in_family_kernel:
            return self.family_segment_stats([self], cands, refs)[0]
        return super().segment_stats(cands, refs)

    @classmethod
    def family_segment_stats(cls, metrics: Sequence[Metric], cands, refs) -> list[np.ndarray]:
        """Each metric's :meth:`segment_stats` of one chunk of segments
        (:func:`evalcore.metrics.levels.family_stats`): the unigram, bigram and skip-bigram
        overlaps, LCS and WLCS of every (candidate, reference) pair come from one compiled run
        over flat token ids (:func:`_family_kernel`) shared by rouge-1, -2, -l, -w, -s*, -su*;
        then each metric's values are ``_block``'s arithmetic on those counts (identical values)
        and the best reference's value is kept (Lin & Och 2004; methods §7.6). Metrics the run
        does not cover (summed references, a gap limit, the -u quirk, n > 2) and metrics with
        other text options than the first are computed on their own."""
        metrics = cast("Sequence[ROUGE]", metrics)  # a family pass hands a class its own members
        out: list = [None] * len(metrics)
        first = next((m for m in metrics if m._in_family_kernel), None)
        mine = [k for k, m in enumerate(metrics) if first is not None and m._in_family_kernel
                and (m.tokenize, m.lowercase) == (first.tokenize, first.lowercase)]
        for k, m in enumerate(metrics):
            if k not in mine:
                out[k] = super(ROUGE, m).segment_stats(cands, refs)
        if not mine:
            return out
        assert first is not None  # mine is empty without it
        tok = first.tok
        nc = len(cands)
        texts: list[tuple] = []
        r_lo, r_hi, g_cand, cand_text, cand_item = [], [], [0], [], []
        refused_group: list[bool] = []
        for key, idx in group_by_refs(refs):
            if not key:
                continue
            rt = [tok(r) for r in key]
            r_lo.append(len(texts))
            texts.extend(rt)
            r_hi.append(len(texts))
            refused_group.append(_base.too_long(*rt))
            for i in idx:
                cand_text.append(len(texts))
                cand_item.append(i)
                texts.append(tok(cands[i]))
            g_cand.append(len(cand_item))
        stats = [np.full((nc, 1), np.nan) for _ in mine]
        if not cand_item:
            for k, st in zip(mine, stats):
                out[k] = st
            return out
        vocab: dict = {}
        flat = np.fromiter((vocab.setdefault(w, len(vocab)) for t in texts for w in t), dtype=np.int64)
        lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        offs = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lens, out=offs[1:])
        longest = int(lens.max()) if len(lens) else 0
        ws = sorted({metrics[k].w for k in mine if metrics[k].variant == "w"}) or [1.2]
        # the cap of the quadratic parts: -1 (none computed) when only ROUGE-1/-2 are asked for
        cap = _base.MAX_ALIGN_TOKENS if any(metrics[k].quadratic for k in mine) else -1
        counts = {}
        for w in ws:  # the WLCS column depends on w (one run per distinct w; the others repeat)
            counts[w] = _family_kernel(flat, offs, np.asarray(r_lo, np.int64), np.asarray(r_hi, np.int64),
                                       np.asarray(g_cand, np.int64), np.asarray(cand_text, np.int64),
                                       max(len(vocab), 1), _wlcs_increments(longest + 1, w), cap)
        # pair p -> (candidate item, its group's reference count); group sizes
        n_refs = np.asarray(r_hi, np.int64) - np.asarray(r_lo, np.int64)
        g_sizes: np.ndarray = np.diff(np.asarray(g_cand, np.int64))  # candidates per group
        per_cand_refs = np.repeat(n_refs, g_sizes)
        pair_cand = np.repeat(np.arange(len(cand_item)), per_cand_refs)
        pair_ref = np.arange(len(pair_cand)) - np.repeat(np.cumsum(per_cand_refs) - per_cand_refs, per_cand_refs)
        ref_text = np.repeat(np.asarray(r_lo, np.int64), g_sizes)[pair_cand] + pair_ref
        clen = lens[np.asarray(cand_text, np.int64)][pair_cand].astype(float)
        rlen = lens[ref_text].astype(float)
        # refused pairs (quadratic variants): a group with a long reference, a long candidate
        long_pair = (np.repeat(np.asarray(refused_group, bool), g_sizes)
                     | _base.over_cap(lens[np.asarray(cand_text, np.int64)]))[pair_cand]
        items = np.asarray(cand_item, np.int64)
        for k, st in zip(mine, stats):
            m = metrics[k]
            vals = m._values_from_counts(counts[m.w if m.variant == "w" else ws[0]], clen, rlen)
            if m.quadratic:
                vals = np.where(long_pair, -np.inf, vals)
            best = np.full(len(cand_item), -np.inf)
            np.maximum.at(best, pair_cand, vals)
            st[items, 0] = np.where(np.isneginf(best), np.nan, best)
            out[k] = st
        return out


    def _measure_of(self, hits, cden, rden):
        """Precision, recall or F (``self.measure``) of overlap counts ``hits`` over the
        candidate's and the reference's unit counts, elementwise (NumPy broadcasting): the
        IEEE operations of the scalar formula, in the same order."""
        p = np.where(cden > 0, hits / np.where(cden > 0, 1 * cden, 1.0), 0.0)
        r = np.where(rden > 0, hits / np.where(rden > 0, rden, 1.0), 0.0)
        if self.measure == "p":
            return p
        if self.measure == "r":
            return r
        b2 = self.beta * self.beta
        ok = (p > 0) & (r > 0)
        return np.where(ok, (1 + b2) * p * r / np.where(ok, r + b2 * p, 1.0), 0.0)

    def _values_from_counts(self, counts: np.ndarray, clen: np.ndarray, rlen: np.ndarray) -> np.ndarray:
        """This variant's value of every pair from :func:`_family_kernel`'s counts and the token
        lengths: the arithmetic of :meth:`_block` on the same numbers."""
        if self.variant == "w":
            pw = {x: x ** self.w for x in set(clen.tolist()) | set(rlen.tolist())}  # Python pow, as _block
            cden = np.array([pw[x] for x in clen.tolist()], dtype=np.float64)
            rden = np.array([pw[x] for x in rlen.tolist()], dtype=np.float64)
            return _w_values(np.ascontiguousarray(counts[:, 4]), rden, cden, 1.0 / self.w,
                             "fpr".index(self.measure), self.beta)
        if self.variant == "l":
            hits, cden, rden = counts[:, 3], clen, rlen
        elif self.variant == "n":
            hits = counts[:, self.n - 1]
            cden, rden = np.maximum(clen - (self.n - 1), 0), np.maximum(rlen - (self.n - 1), 0)
        else:
            hits, cden, rden = counts[:, 2], clen * (clen - 1) // 2, rlen * (rlen - 1) // 2
            if self.variant == "su":
                hits, cden, rden = hits + counts[:, 0], cden + clen, rden + rlen
        return self._measure_of(hits, cden, rden)

    # -- vectorised (candidates × references) values ----------------------------------------
    def _block(self, cands, refs):
        nc = len(cands)
        ids, vsize = encode_block(list(cands) + list(refs))
        a, b = ids[:nc], ids[nc:]
        if self.variant == "l":
            hits = lcs_matrix(a, b).astype(float)
            cden = np.array([len(c) for c in cands], float)
            rden = np.array([len(r) for r in refs], float)
        elif self.variant == "w":
            hits = wlcs_matrix(a, b, self.w)
            cden = np.array([float(len(c)) ** self.w for c in cands])
            rden = np.array([float(len(r)) ** self.w for r in refs])
        else:
            if self.variant == "n":
                keys = ngram_keys(ids, self.n)
            else:
                keys = []
                for s in ids:
                    i, j = _pair_index(len(s), self.max_skip)
                    k = s[i] * vsize + s[j]
                    if self.variant == "su":
                        k = np.concatenate([k, vsize * vsize + (s[:-1] if self.su_script else s)])
                    keys.append(k)
            hits = clipped_overlap(keys[:nc], keys[nc:]).astype(float)
            cden = np.array([len(k) for k in keys[:nc]], float)
            rden = np.array([len(k) for k in keys[nc:]], float)
        if self.variant == "w":  # powers with C's pow, as the scalar code path
            nk = len(refs)
            return _w_values(np.ascontiguousarray(hits, dtype=np.float64).ravel(), np.tile(rden, nc),
                             np.repeat(cden, nk), 1.0 / self.w, "fpr".index(self.measure),
                             self.beta).reshape(nc, nk)
        # vectorised _value (same IEEE operations in the same order, hence identical values)
        cd = np.broadcast_to(cden[:, None], hits.shape)
        rd = np.broadcast_to(rden[None, :], hits.shape)
        return self._measure_of(hits, cd, rd)


register("rouge-1", lambda: ROUGE("n", n=1))
register("rouge-2", lambda: ROUGE("n", n=2))
register("rouge-l", lambda: ROUGE("l"))
register("rouge-w", lambda: ROUGE("w", w=1.2))
register("rouge-s*", lambda: ROUGE("s"))
register("rouge-su*", lambda: ROUGE("su"))
