"""METEOR-style exact-match score (Banerjee & Lavie 2005 §2; Lavie & Agarwal 2007 parameters).

Registered id ``meteor`` (0..1, higher is better). **Exact word matching only: no stemming,
no WordNet synonyms, no paraphrase tables** — so it is not the official METEOR.

* Alignment: one-to-one exact token matches found by the greedy longest-run matcher of GTM
  (:func:`evalcore.metrics.gtm.gtm_runs`: the longest common run of unaligned tokens first).
  It aligns the maximum number of tokens m (the bag overlap) and, by taking long runs
  first, few chunks — METEOR's own aligner searches for the fewest chunks among maximal
  alignments; on inputs with repeated words the two can differ.
* chunks = number of runs (groups of aligned tokens contiguous and in the same order in
  both sentences).
* P = m/|c|, R = m/|r|, Fmean = PR / (αP + (1−α)R) with α = 0.9, i.e. 10PR/(R + 9P);
  Penalty = γ·(chunks/m)^β with γ = 0.5, β = 3; score = Fmean·(1 − Penalty); 0 when m = 0
  (so an empty candidate or reference scores 0).
* Several references: the maximum over references. Corpus level (as METEOR's system score):
  per segment the statistics ``[m, |c|, |r*|, chunks]`` of the best reference are summed and
  the formula applied to the sums.

Default text: 13a tokens of lower-cased text (METEOR normalises case by default);
``tokenize`` and ``lowercase`` are options. Plain function :func:`meteor_exact`.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .base import MetricMeta, MetricOption, register
from .edit import PairwiseWordMetric, token_options
from ._jit import lazy_njit as _njit
from .gtm import _run_power_sums, gtm_runs, gtm_runs_arrays, runs_pairs

CITATION = ("Banerjee & Lavie (2005), METEOR: an automatic metric for MT evaluation with improved "
            "correlation with human judgments, ACL workshop; Lavie & Agarwal (2007), METEOR: an automatic "
            "metric for MT evaluation with high levels of correlation with human judgments, WMT")


def meteor_from_counts(m: float, nc: float, nr: float, chunks: float, alpha: float = 0.9, beta: float = 3.0,
                       gamma: float = 0.5) -> float:
    """Fmean·(1 − γ(chunks/m)^β) with Fmean = PR/(αP + (1−α)R); 0 when m = 0."""
    if m <= 0 or nc <= 0 or nr <= 0:
        return 0.0
    p, r = m / nc, m / nr
    fmean = p * r / (alpha * p + (1 - alpha) * r)
    return float(fmean * (1 - gamma * (chunks / m) ** beta))


@_njit
def _meteor_many(m, nc, nr, chunks, alpha, beta, gamma):
    """:func:`meteor_from_counts` over arrays (the same operations in the same order)."""
    out = np.zeros(len(m), np.float64)
    for t in range(len(m)):
        if m[t] <= 0 or nc[t] <= 0 or nr[t] <= 0:
            continue
        p, r = m[t] / nc[t], m[t] / nr[t]
        fmean = p * r / (alpha * p + (1 - alpha) * r)
        out[t] = fmean * (1 - gamma * (chunks[t] / m[t]) ** beta)
    return out


def meteor_exact(c: Sequence, r: Sequence, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """METEOR-style exact-match score of token sequences (module docstring)."""
    runs = gtm_runs(c, r)
    return meteor_from_counts(sum(runs), len(c), len(r), len(runs), alpha, beta, gamma)


class Meteor(PairwiseWordMetric):
    """METEOR-style exact matching (module docstring)."""

    n_stats = 4
    #: the greedy run search visits every equal (candidate, reference) token pair, whose number
    #: grows with |c|·|r| (memory 0.34 / 0.64 / 1.81 GB at 2.5k / 5k / 10k words): capped
    quadratic = True

    def __init__(self, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5, tokenize: str = "13a",
                 lowercase: bool = True, metric_id: str = "meteor"):
        super().__init__(tokenize, lowercase)
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.meta = MetricMeta(
            id=metric_id, family="METEOR",
            description=("METEOR-style unigram Fmean (10PR/(R+9P)) × (1 − 0.5·(chunks/matches)^3) with EXACT "
                         "matching only (no stemming, synonyms or paraphrases; greedy longest-run alignment); "
                         "best reference"),
            citation=CITATION, higher_is_better=True,
            options=(MetricOption("alpha", 0.9, "Fmean = PR/(αP + (1−α)R)"),
                     MetricOption("beta", 3.0, "fragmentation penalty exponent"),
                     MetricOption("gamma", 0.5, "maximum fragmentation penalty")) + token_options(True))

    def _signature_extra(self):
        return [f"a:{self.alpha:g}", f"b:{self.beta:g}", f"g:{self.gamma:g}", "match:exact"]

    def _pair(self, c, r):
        runs = gtm_runs(c, r)
        m, ch = float(sum(runs)), float(len(runs))
        return meteor_from_counts(m, len(c), len(r), ch, self.alpha, self.beta, self.gamma), (m, len(c), len(r), ch)

    def _score_stats(self, s):
        return meteor_from_counts(s[0], s[1], s[2], s[3], self.alpha, self.beta, self.gamma)

    def _pairs_stats(self, plan):
        """Values and ``_pair`` statistics ``[m, |c|, |r|, chunks]`` of every pair of a chunk
        from its greedy runs (one compiled call; the operations of :meth:`_block`)."""
        runs, pos = runs_pairs(plan)
        _, chunks, m = _run_power_sums(runs, pos, 1.0)
        lc, lr = plan.lc.astype(np.float64), plan.lr.astype(np.float64)
        vals = _meteor_many(m, lc, lr, chunks, self.alpha, self.beta, self.gamma)
        return vals, np.stack([m, lc, lr, chunks], axis=1)

    def _block(self, cands, refs):
        nc, nk = len(cands), len(refs)
        runs, pos = gtm_runs_arrays(cands, refs)
        _, chunks, m = _run_power_sums(runs, pos, 1.0)
        return _meteor_many(m, np.repeat(np.array([len(c) for c in cands], dtype=np.float64), nk),
                            np.tile(np.array([len(r) for r in refs], dtype=np.float64), nc), chunks,
                            self.alpha, self.beta, self.gamma).reshape(nc, nk)


register("meteor", Meteor)
