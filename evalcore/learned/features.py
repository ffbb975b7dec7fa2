"""Feature extraction for the learned metrics.

BEER-style features of one (hypothesis, reference) pair, methods §6.1 (Stanojević & Sima'an 2015 §2.3-2.4):

* ``char{n}_{p,r,f}``, n = 1..6: character n-grams on the tokens joined by single spaces
  (spaces included); P_n = Σ_g min(c_h(g), c_r(g))/(|h_str| − n + 1), R_n the same over
  |r_str| − n + 1, F = 2PR/(P + R); 0/0 and negative denominators give 0.
* ``word_{all,func,content}_{p,r,f}``: precision/recall/F1 of aligned words, overall and
  split into function and content words (:mod:`.funcwords`). P = aligned hypothesis words
  of the class / hypothesis words of the class; R likewise on the reference side.
* ``kendall``, ``kendall_scaled_{25,50,75}``, ``pet_count``, ``pet_mono``, ``pet_inv``,
  ``pet_arity4``, ``pet_arity_gt4``: word order of the permutation the alignment induces
  (:mod:`.pet`).

The alignment ([A], methods §6.1: "differs from BEER") is **not** METEOR's: it is a greedy,
exact (case-insensitive), one-to-one alignment that prefers monotone links. Hypothesis
tokens are visited left to right; each takes, among the still unaligned reference tokens
with the same lower-cased form, the first one *after* the previously linked reference
position, or, if there is none, the closest one before it. METEOR instead searches for the
alignment with the fewest crossing links among all maximal ones, and adds stem, synonym and
paraphrase matches; on sentences with repeated words the two can differ.

Human-likeness features of one hypothesis against a set of references, Kulesza 2004 §3.2
("basic" set): ``len_ratio_min``, ``len_ratio_max`` (|h|/|r_i| over the references),
``prec1..prec5`` (n-gram precision as Kulesza 2004 §1.2.3 describes it: each hypothesis n-gram
matches at most as many times as it occurs in some reference, i.e. clipped by the maximum
reference count, no brevity penalty, no smoothing; 0 when |h| < n), ``wer`` (min over
references of Levenshtein/|r|, methods §7.3 mWER) and ``per`` (min over references of
1 − (m − max(0, |h| − |r|))/|r|, methods §7.3 mPER).

The character n-gram P/R/F, the Levenshtein distance and the WER / PER error rates are the
metric modules' own functions (:func:`evalcore.metrics.charngram.char_ngram_prf`,
:mod:`evalcore.metrics.edit`), so a feature equals the value of the metric of the same name
(``charngram-p3``, ``wer``, ``per`` with case kept) on the same tokens.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

import numpy as np

from ..metrics._caches import lru_memo
from ..metrics.charngram import char_ngram_prf
from ..metrics.edit import error_rate, per_errors
from ..metrics.kernels.dp import levenshtein
from ..metrics.tokenize import tokenize
from .funcwords import function_words, is_function_word
from .pet import kendall, kendall_scaled, pet_features

CHAR_ORDERS = (1, 2, 3, 4, 5, 6)
KENDALL_ALPHAS = (0.25, 0.5, 0.75)

BEER_FEATURES: tuple[str, ...] = (
    tuple(f"char{n}_{k}" for n in CHAR_ORDERS for k in ("p", "r", "f"))
    + tuple(f"word_{c}_{k}" for c in ("all", "func", "content") for k in ("p", "r", "f"))
    + ("kendall",) + tuple(f"kendall_scaled_{int(a * 100)}" for a in KENDALL_ALPHAS)
    + ("pet_count", "pet_mono", "pet_inv", "pet_arity4", "pet_arity_gt4")
)

HUMANLIKE_FEATURES: tuple[str, ...] = (
    ("len_ratio_min", "len_ratio_max") + tuple(f"prec{n}" for n in range(1, 6)) + ("wer", "per")
)


def _div(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


# ---- alignment -------------------------------------------------------------------------------
def greedy_align(hyp_tokens: Sequence[str], ref_tokens: Sequence[str]) -> list[tuple[int, int]]:
    """Greedy exact one-to-one monotone-preferring alignment (see the module docstring).

    Returns (hyp position, ref position) links sorted by hypothesis position.
    """
    positions: dict[str, list[int]] = {}
    for j, t in enumerate(ref_tokens):
        positions.setdefault(t.lower(), []).append(j)
    used: set[int] = set()
    links: list[tuple[int, int]] = []
    last = -1
    for i, t in enumerate(hyp_tokens):
        cands = [j for j in positions.get(t.lower(), ()) if j not in used]
        if not cands:
            continue
        after = [j for j in cands if j > last]
        j = min(after) if after else max(cands)
        used.add(j)
        links.append((i, j))
        last = j
    return links


def alignment_permutation(links: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """Reference positions of the links in hypothesis order, renormalised to ranks 1..m
    (unaligned words are ignored, methods §6.1)."""
    refs = [j for _, j in sorted(links)]
    order = {j: k for k, j in enumerate(sorted(refs), start=1)}
    return tuple(order[j] for j in refs)


def word_prf(hyp_tokens: Sequence[str], ref_tokens: Sequence[str], links: Sequence[tuple[int, int]],
             fwords: frozenset[str]) -> dict[str, float]:
    """Aligned-word P/R/F1 overall and for function / content words (methods §6.1)."""
    h_func = [is_function_word(t, fwords) for t in hyp_tokens]
    r_func = [is_function_word(t, fwords) for t in ref_tokens]
    a_h = {i for i, _ in links}
    a_r = {j for _, j in links}
    out: dict[str, float] = {}
    for cls, want in (("all", None), ("func", True), ("content", False)):
        h_idx = [i for i, f in enumerate(h_func) if want is None or f == want]
        r_idx = [j for j, f in enumerate(r_func) if want is None or f == want]
        p = _div(sum(1 for i in h_idx if i in a_h), len(h_idx))
        r = _div(sum(1 for j in r_idx if j in a_r), len(r_idx))
        out[f"word_{cls}_p"], out[f"word_{cls}_r"], out[f"word_{cls}_f"] = p, r, _f1(p, r)
    return out


def beer_features(hyp: str, ref: str, lang: str = "en", tokenizer: str = "13a") -> np.ndarray:
    """φ(h, r): the BEER feature vector in :data:`BEER_FEATURES` order (methods §6.1)."""
    return _beer_features_cached(hyp, ref, lang, tokenizer).copy()


@lru_memo("learned.beer_features", 1 << 15)
def _beer_features_cached(hyp: str, ref: str, lang: str, tokenizer: str) -> np.ndarray:
    ht, rt = tokenize(hyp, tokenizer), tokenize(ref, tokenizer)
    vals: dict[str, float] = {}
    for n in CHAR_ORDERS:
        vals[f"char{n}_p"], vals[f"char{n}_r"], vals[f"char{n}_f"] = char_ngram_prf(ht, rt, n)
    fwords, _ = function_words(lang)
    links = greedy_align(ht, rt)
    vals.update(word_prf(ht, rt, links, fwords))
    perm = alignment_permutation(links)
    k = kendall(perm)
    r_words = _div(len(links), len(rt))
    vals["kendall"] = k
    for a in KENDALL_ALPHAS:
        vals[f"kendall_scaled_{int(a * 100)}"] = kendall_scaled(k, r_words, a)
    vals.update(pet_features(perm))
    arr = np.array([vals[name] for name in BEER_FEATURES], dtype=float)
    arr.flags.writeable = False
    return arr


# ---- human-likeness (Kulesza 2004 §3.2) ---------------------------------------------------------
def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def humanlike_features(hyp: str, refs: Sequence[str], tokenizer: str = "13a") -> np.ndarray:
    """The Kulesza 2004 §3.2 basic features of ``hyp`` against ``refs`` (:data:`HUMANLIKE_FEATURES`)."""
    if not refs:
        raise ValueError("human-likeness features need at least one reference")
    ht = tokenize(hyp, tokenizer)
    rts = [tokenize(r, tokenizer) for r in refs]
    ratios = [len(ht) / len(rt) for rt in rts if len(rt) > 0]
    vals = [min(ratios) if ratios else 0.0, max(ratios) if ratios else 0.0]
    for n in range(1, 6):
        hc = _ngrams(ht, n)
        total = sum(hc.values())
        if total == 0:
            vals.append(0.0)
            continue
        maxref: Counter = Counter()
        for rt in rts:
            for g, c in _ngrams(rt, n).items():
                if c > maxref[g]:
                    maxref[g] = c
        vals.append(sum(min(c, maxref[g]) for g, c in hc.items()) / total)
    # mWER and mPER as the ``wer`` / ``per`` metrics compute them, on these tokens (case kept)
    wers = [error_rate(levenshtein(ht, rt), len(rt)) for rt in rts]
    pers = [error_rate(per_errors(ht, rt), len(rt)) for rt in rts]
    vals += [min(wers), min(pers)]
    return np.array(vals, dtype=float)
