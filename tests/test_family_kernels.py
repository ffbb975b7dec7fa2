"""The compiled family runs of one chunk of segments (issue 12 item 4): ROUGE's
``family_segment_stats`` against the per-segment matrices it replaces and the scalar literal
implementations (Counter overlaps, the plain-Python LCS / weighted-LCS DPs) on random inputs and
edge cases (empty candidate, empty reference, one-token texts, no reference, unequal reference
counts, a candidate over the alignment cap)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.metrics.base import MAX_ALIGN_TOKENS, get_metric
from evalcore.metrics.edit import PairwiseWordMetric
from evalcore.metrics.rouge import ROUGE

ROUGE_IDS = ["rouge-1", "rouge-2", "rouge-l", "rouge-w", "rouge-s*", "rouge-su*"]
words = st.lists(st.sampled_from(["a", "b", "c", "d", "B", "é", "."]), max_size=8).map(" ".join)
segments = st.lists(st.tuples(st.lists(words, max_size=4), st.lists(words, min_size=1, max_size=5)),
                    min_size=1, max_size=6)


def _flat(segs):
    cands = [c for refs, cs in segs for c in cs]
    refs = [list(refs) for refs, cs in segs for _ in cs]
    return cands, refs


def _literal_best(m, cand, refs):
    """The best reference's value from the scalar ``_pair`` (Counter overlaps, Python DPs)."""
    if not refs:
        return np.nan
    c, rt = m.tok(cand), [m.tok(r) for r in refs]
    if m.refuses(c, rt):
        return np.nan
    return max(m._pair(c, r)[0] for r in rt)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(segments)
def test_rouge_family_run_equals_per_segment_matrices_and_literal(segs):
    cands, refs = _flat(segs)
    ms = [get_metric(i) for i in ROUGE_IDS] + [ROUGE("n", n=2, measure="p"), ROUGE("w", w=1.5, measure="r"),
                                               ROUGE("l", beta=2.0), ROUGE("s", max_skip=1)]
    fam = ROUGE.family_segment_stats(ms, cands, refs)
    for m, got in zip(ms, fam):
        old = PairwiseWordMetric.segment_stats(m, cands, refs)  # one _block matrix per segment
        np.testing.assert_array_equal(got, old, err_msg=m.meta.id)
        np.testing.assert_array_equal(m.segment_stats(cands, refs), old, err_msg=m.meta.id)
        lit = np.array([_literal_best(m, c, r) for c, r in zip(cands, refs)])
        np.testing.assert_allclose(got[:, 0], lit, rtol=1e-12, atol=0, err_msg=m.meta.id)


def test_rouge_family_run_edge_cases():
    long_text = " ".join(["w"] * (MAX_ALIGN_TOKENS + 1))
    cands = ["", "a", "a b a b", long_text, "a b", "x y z", "b a"]
    refs = [["a b"], ["a"], ["", "b a b a", "a"], ["a b"], [long_text, "a b"], [], ["a b", "b a", "a", "c"]]
    ms = [get_metric(i) for i in ROUGE_IDS]
    for m, got in zip(ms, ROUGE.family_segment_stats(ms, cands, refs)):
        np.testing.assert_array_equal(got, PairwiseWordMetric.segment_stats(m, cands, refs), err_msg=m.meta.id)
        lit = np.array([_literal_best(m, c, r) for c, r in zip(cands, refs)])
        np.testing.assert_array_equal(got[:, 0], lit, err_msg=m.meta.id)
    # by hand: "a" vs "a" is 1 except ROUGE-2 and ROUGE-S* (no bigram, no pair: 0/0 = 0); SU* has
    # the unigram unit (1 hit of 1)
    assert [float(g[1, 0]) for g in ROUGE.family_segment_stats(ms, cands, refs)] == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
