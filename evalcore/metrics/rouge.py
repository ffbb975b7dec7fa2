"""ROUGE for MT (Lin & Och 2004, ACL P04-1077; ROUGE-1.5.5.pl; methods §7.6).

Registered ids (0..1, higher is better; F1 by default): ``rouge-1``, ``rouge-2`` (n-gram
overlap), ``rouge-l`` (LCS), ``rouge-w`` (weighted LCS, w = 1.2), ``rouge-s*`` (skip-bigrams,
any gap), ``rouge-su*`` (skip-bigrams + unigrams).

With m = |r|, n = |c| and "hits" the clipped overlap (Σ_g min counts):

* ROUGE-N: R = hits / #ref n-grams, P = hits / #cand n-grams.
* ROUGE-L: R = LCS/m, P = LCS/n.
* ROUGE-W: R = f⁻¹(WLCS / f(m)), P = f⁻¹(WLCS / f(n)) with f(k) = k^w, f⁻¹(y) = y^(1/w) and
  WLCS from Lin's DP (:func:`evalcore.metrics.edit.wlcs`).
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
from :mod:`evalcore.metrics.edit`.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from .base import MetricMeta, MetricOption, register
from .edit import (PairwiseWordMetric, _njit, bag_overlap, clipped_overlap, encode_block, lcs_length, lcs_matrix,
                   ngram_keys, token_options, wlcs, wlcs_matrix)

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
    out = [(tokens[i], tokens[j]) for i in range(n) for j in range(i + 1, n)
           if max_skip is None or j - i - 1 <= max_skip]
    if unigrams:
        out += [(t,) for t in (tokens[:-1] if script else tokens)]
    return out


@lru_cache(maxsize=256)
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
        p = np.where(cd > 0, hits / np.where(cd > 0, 1 * cd, 1.0), 0.0)
        r = np.where(rd > 0, hits / np.where(rd > 0, rd, 1.0), 0.0)
        if self.measure == "p":
            return p
        if self.measure == "r":
            return r
        b2 = self.beta * self.beta
        ok = (p > 0) & (r > 0)
        return np.where(ok, (1 + b2) * p * r / np.where(ok, r + b2 * p, 1.0), 0.0)


register("rouge-1", lambda: ROUGE("n", n=1))
register("rouge-2", lambda: ROUGE("n", n=2))
register("rouge-l", lambda: ROUGE("l"))
register("rouge-w", lambda: ROUGE("w", w=1.2))
register("rouge-s*", lambda: ROUGE("s"))
register("rouge-su*", lambda: ROUGE("su"))
