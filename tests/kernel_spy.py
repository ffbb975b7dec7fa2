"""Counting the quadratic work of the metrics (for tests: work done, never seconds).

:func:`spy_quadratic` replaces, in every metric module that names them, the Python-level entry
points of every kernel whose work grows with the product of two lengths (Levenshtein / LCS /
WLCS dynamic programmes, skip-bigram lists, GTM/METEOR greedy run searches, TER alignments) by a
wrapper that records the length of the longest token sequence each call does quadratic work on,
then calls the original. The entry points are called from Python only (no compiled kernel calls
them), so the compiled code is unchanged. ``Seen.longest`` over a run is the longest text any
alignment touched: a refusal "before any quadratic work" means it never exceeds the cap.

The ROUGE family kernel receives every text (its unigram and bigram overlaps are linear) with the
cap it must respect: the wrapper records the longest text at or under the ``cap`` argument (the
texts the kernel aligns; ``tests/test_long_segments.py`` checks the kernel leaves the others
alone).
"""
from __future__ import annotations

import importlib
from contextlib import contextmanager

import numpy as np

MODULES = ["evalcore.metrics.kernels.dp", "evalcore.metrics.kernels.plans", "evalcore.metrics.edit", "evalcore.metrics.rouge", "evalcore.metrics.gtm", "evalcore.metrics.meteor",
           "evalcore.metrics.ter", "evalcore.metrics.charngram", "evalcore.metrics.nist", "evalcore.metrics.bleu",
           "evalcore.metrics.chrf"]


def _lens(offs):
    return np.diff(np.asarray(offs))


def _plan(plan, *_):
    lens = _lens(plan.offs)
    return int(max(lens[plan.ph].max(initial=0), lens[plan.pr].max(initial=0))) if len(plan.ph) else 0


def _pairs_offs(flat, offs, hs, rs, *_):
    lens = _lens(offs)
    return int(max(lens[np.asarray(hs)].max(initial=0), lens[np.asarray(rs)].max(initial=0))) if len(hs) else 0


def _block_offs(flat, offs, *_):
    return int(_lens(offs).max(initial=0))


def _two(a, b, *_, **__):
    return max(len(a), len(b))


def _one(a, *_, **__):
    return len(a)


def _n(n, *_, **__):
    return int(n)


def _lists(cands, refs, *_, **__):
    return max([len(x) for x in list(cands) + list(refs)], default=0)


def _family(flat, offs, r_lo, r_hi, g_cand, cand_text, v, inc, cap):
    lens = _lens(offs)
    return int(lens[lens <= cap].max(initial=0))


#: entry point -> how its arguments give the longest sequence it aligns
ENTRY_POINTS = {
    "levenshtein_pairs": _plan, "runs_pairs": _plan,                       # chunk plans
    "ter_edits_many": _pairs_offs,                                         # distinct pairs
    "_dp_many": _block_offs, "_greedy_runs_many": _block_offs,             # candidate x reference blocks
    "levenshtein": _two, "lcs_length": _two, "wlcs": _two, "_greedy_runs": _two, "pair_edits": _two,
    "translation_edit_rate": _two,                                         # one pair
    "gtm_runs_block": _lists, "skip_bigrams": _one, "_pair_index": _n,
    "_family_kernel": _family,
}


class Seen:
    def __init__(self):
        self.calls: dict[str, int] = {}
        self.longest = 0

    def record(self, name: str, size: int) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1
        self.longest = max(self.longest, size)

    @property
    def n_calls(self) -> int:
        return sum(self.calls.values())


@contextmanager
def spy_quadratic():
    """Yield a :class:`Seen` recording every quadratic entry point's calls while the block runs
    (the originals are put back afterwards)."""
    seen = Seen()
    saved = []
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name, size_of in ENTRY_POINTS.items():
            orig = getattr(mod, name, None)
            if orig is None or not callable(orig):
                continue

            def wrapper(*args, _orig=orig, _name=name, _size=size_of, **kw):
                seen.record(_name, _size(*args, **kw))
                return _orig(*args, **kw)

            saved.append((mod, name, orig))
            setattr(mod, name, wrapper)
    try:
        yield seen
    finally:
        for mod, name, orig in reversed(saved):
            setattr(mod, name, orig)
