"""The compiled family runs of one chunk of segments: ROUGE's, chrF's and
BLEU's ``family_segment_stats`` against the per-segment matrices it replaces and the scalar literal
implementations (Counter overlaps, the plain-Python LCS / weighted-LCS DPs) on random inputs and
edge cases (empty candidate, empty reference, one-token texts, no reference, unequal reference
counts, a candidate over the alignment cap)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared
from evalcore.metrics.base import MAX_ALIGN_TOKENS, get_metric
from evalcore.metrics.bleu import BLEU
from evalcore.metrics.chrf import CHRF, _chrfpp_words, split_punct_words
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


@settings(max_examples=50, deadline=None, derandomize=True)
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


# ---- chrF / chrF++ ---------------------------------------------------------------------------------
text = st.lists(st.sampled_from(["a", "b", "ab", "ba", "é", "中", ".", "a,", "(b", " ", "  ", "A"]),
                max_size=8).map("".join)
chrf_segments = st.lists(st.tuples(st.lists(text, max_size=4), st.lists(text, min_size=1, max_size=5)),
                         min_size=1, max_size=6)
CHRF_VARIANTS = [lambda: get_metric("chrf"), lambda: get_metric("chrf++"),
                 lambda: CHRF(lowercase=True, whitespace=True), lambda: CHRF(char_order=3, word_order=2, beta=1),
                 lambda: CHRF(eps_smoothing=True, word_order=2)]


def _chrf_literal_rows(m, cands, refs):
    """sacreBLEU's rule literally: Counter statistics per pair, the first best reference."""
    return np.array([m._stats_one(c, r) if r else [np.nan] * (3 * m.order) for c, r in zip(cands, refs)],
                    dtype=float).reshape(len(cands), 3 * m.order)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(chrf_segments)
def test_chrf_family_run_equals_literal_statistics(segs):
    cands, refs = _flat(segs)
    ms = [f() for f in CHRF_VARIANTS]
    for m, got in zip(ms, CHRF.family_segment_stats(ms, cands, refs)):
        np.testing.assert_array_equal(got, _chrf_literal_rows(m, cands, refs), err_msg=m.meta.id)
        np.testing.assert_array_equal(m.segment_stats(cands, refs), got, err_msg=m.meta.id)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text)
def test_chrfpp_words_shortcut_equals_split_punct_words(t):
    assert _chrfpp_words(t) == split_punct_words(t)


def test_chrf_family_run_real_cjk_and_latin():
    """WMT24 en-zh and en-cs (a large CJK alphabet: the ranked n-gram ids; Latin: the packed
    ones), four systems of 15 segments: rows equal the literal statistics exactly, and the
    sentence scores equal sacreBLEU's sentence_chrf to 1e-9."""
    import pandas as pd
    from sacrebleu.metrics import CHRF as SCHRF

    root = shared("wmt24_esa")
    outs = pd.read_csv(root / "outputs.tsv", sep="\t", dtype=str, keep_default_na=False)
    refs_t = pd.read_csv(root / "references.tsv", sep="\t", dtype=str, keep_default_na=False)
    for lp in ("en-zh", "en-cs"):
        o = outs[(outs["lp"] == lp) & (outs["seg_id"].astype(int) <= 15)]
        r = refs_t[(refs_t["lp"] == lp) & (refs_t["seg_id"].astype(int) <= 15)]
        by_seg = r.groupby("seg_id")["text"].apply(list).to_dict()
        o = o[o["system"].isin(sorted(set(o["system"]))[:4])]
        cands, refs = list(o["text"]), [by_seg.get(s, []) for s in o["seg_id"]]
        ms = [get_metric("chrf"), get_metric("chrf++")]
        for m, got in zip(ms, CHRF.family_segment_stats(ms, cands, refs)):
            np.testing.assert_array_equal(got, _chrf_literal_rows(m, cands, refs), err_msg=(lp, m.meta.id))
            sacre = SCHRF(word_order=m.word_order)
            want = [sacre.sentence_score(c, rs).score for c, rs in zip(cands, refs)]
            np.testing.assert_allclose(m.sentence_scores_of(got, refs), want, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 3), max_size=9), min_size=1, max_size=6), st.integers(1, 6),
       st.booleans())
def test_dense_ngram_ids_identify_equal_ngrams(seqs, orders, big_alphabet):
    """Equal ids exactly for equal n-grams (brute force over all position pairs), −1 past the
    end of a text; with 2,000 symbols in play the ranked path runs (2000^6 > 2^62)."""
    from evalcore.metrics.kernels.ngram import dense_ngram_ids

    extra = [list(range(10, 2010))] if big_alphabet else []
    seqs = [[x * 7919 for x in s] for s in seqs] + extra
    lens = np.array([len(s) for s in seqs])
    offs = np.r_[0, np.cumsum(lens)]
    flat = np.array([x for s in seqs for x in s], dtype=np.int64)
    ids = dense_ngram_ids(flat, offs, orders)
    grams = {}
    for t, s in enumerate(seqs):
        for i in range(len(s)):
            for n in range(1, orders + 1):
                p = offs[t] + i
                if i + n <= len(s):
                    assert ids[n - 1, p] >= 0  # no int64 overflow into the "absent" range
                    grams.setdefault((n, tuple(s[i:i + n])), set()).add(int(ids[n - 1, p]))
                else:
                    assert ids[n - 1, p] == -1
    per_order: dict = {}
    for (n, _), got in grams.items():
        assert len(got) == 1  # one id per distinct n-gram
        per_order.setdefault(n, []).append(next(iter(got)))
    for n, vals in per_order.items():
        assert len(set(vals)) == len(vals)  # distinct n-grams, distinct ids


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.integers(0, 40), st.integers(0, 0x10FFFF), st.integers(-5, 2 ** 40)), min_size=1,
                max_size=60))
def test_symbol_ranks_are_np_unique_inverse(values):
    """The presence-table ranks equal ``np.unique``'s inverse and size (small ids, code points,
    and the fallback for negative or huge values)."""
    from evalcore.metrics.kernels.ngram import _symbol_ranks

    flat = np.array(values, dtype=np.int64)
    alphabet, inverse = np.unique(flat, return_inverse=True)
    sym, a = _symbol_ranks(flat)
    assert a == len(alphabet)
    np.testing.assert_array_equal(sym, inverse.reshape(-1))


# ---- BLEU family ---------------------------------------------------------------------------------
BLEU_IDS = ["bleu", "bleu-1", "bleu-2", "bleu-3", "bleu-4", "bleus"]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(segments)
def test_bleu_family_run_equals_counter_loop(segs):
    """Random segments (empty texts, no reference, unequal reference counts, equally close
    references of different lengths): every row equals the per-item Counter loop (``_stats_one``,
    sacreBLEU's rule) exactly, for the six BLEU metrics and a lower-cased variant."""
    cands, refs = _flat(segs)
    ms = [get_metric(i) for i in BLEU_IDS] + [BLEU(lowercase=True)]
    for m, got in zip(ms, BLEU.family_segment_stats(ms, cands, refs)):
        want = np.array([m._stats_one(c, r) for c, r in zip(cands, refs)], dtype=float)
        np.testing.assert_array_equal(got, want.reshape(got.shape), err_msg=m.meta.id)
        np.testing.assert_array_equal(m.segment_stats(cands, refs), got, err_msg=m.meta.id)


def test_bleu_family_run_real_text_equals_sacrebleu():
    """WMT24 en-cs (13a) and en-zh (zh tokens), four systems of 15 segments: sentence BLEU from
    the family rows equals sacreBLEU's sentence_bleu to 1e-9 and the rows equal the loop's."""
    import pandas as pd
    from sacrebleu.metrics import BLEU as SBLEU

    root = shared("wmt24_esa")
    outs = pd.read_csv(root / "outputs.tsv", sep="\t", dtype=str, keep_default_na=False)
    refs_t = pd.read_csv(root / "references.tsv", sep="\t", dtype=str, keep_default_na=False)
    for lp, tok in (("en-cs", "13a"), ("en-zh", "zh")):
        o = outs[(outs["lp"] == lp) & (outs["seg_id"].astype(int) <= 15)]
        r = refs_t[(refs_t["lp"] == lp) & (refs_t["seg_id"].astype(int) <= 15)]
        by_seg = r.groupby("seg_id")["text"].apply(list).to_dict()
        o = o[o["system"].isin(sorted(set(o["system"]))[:4])]
        cands, refs = list(o["text"]), [by_seg.get(s, []) for s in o["seg_id"]]
        ms = [get_metric(i, tokenize=tok) for i in BLEU_IDS]
        for m, got in zip(ms, BLEU.family_segment_stats(ms, cands, refs)):
            want = np.array([m._stats_one(c, rs) for c, rs in zip(cands, refs)], dtype=float)
            np.testing.assert_array_equal(got, want, err_msg=(lp, m.meta.id))
        sacre = SBLEU(tokenize=tok, effective_order=True)
        want = [sacre.sentence_score(c, rs).score for c, rs in zip(cands, refs)]
        np.testing.assert_allclose(ms[0].sentence_scores_of(BLEU.family_segment_stats([ms[0]], cands, refs)[0], refs),
                                   want, rtol=0, atol=1e-9)
