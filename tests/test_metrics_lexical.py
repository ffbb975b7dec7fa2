"""Lexical metric families other than BLEU/chrF/TER: NIST, GTM, mWER/mPER, ROUGE, BEER
character n-grams, METEOR-style exact matching.

Every expected value is independent of the code under test: the hand-worked examples of
spec §8.1, or a literal brute-force implementation written inside this file (recursion,
plain DP tables, itertools enumeration, collections.Counter, the mteval-v13a procedure).
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.metrics import get_metric, metric_ids
from evalcore.metrics.base import Metric
from evalcore.metrics.charngram import char_ngram_prf
from evalcore.metrics.edit import best_of_others
from evalcore.metrics.kernels.dp import (lcs_length, lcs_matrix, lcs_matrix_np, levenshtein, levenshtein_matrix,
                                         levenshtein_matrix_np, wlcs, wlcs_matrix, wlcs_matrix_np)
from evalcore.metrics.kernels.ngram import encode_block
from evalcore.metrics.kernels.overlap import bag_overlap, clipped_overlap
from evalcore.metrics.gtm import gtm_f, gtm_mms, gtm_runs
from evalcore.metrics.meteor import meteor_exact
from evalcore.metrics.nist import NIST, nist_bp
from evalcore.metrics.rouge import ROUGE

C = "he walked the dog"
R = "he took the dog for a walk"

LEXICAL = ([f"nist-{n}" for n in range(1, 6)] + ["gtm-1", "gtm-2", "gtm-3", "wer", "per", "rouge-1", "rouge-2",
           "rouge-l", "rouge-w", "rouge-s*", "rouge-su*", "meteor"]
           + [f"charngram-{m}{n}" for m in "prf" for n in range(1, 7)])

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = ["a", "b", "c", "the", "dog", "walk"]
token_lists = st.lists(st.sampled_from(WORDS), max_size=8)
sentences = token_lists.map(" ".join)


def f1(p, r):
    return 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)


# ---------------------------------------------------------------------------------------------
# registry and metadata
# ---------------------------------------------------------------------------------------------


def test_all_ids_registered_with_metadata():
    ids = set(metric_ids())
    for mid in LEXICAL:
        assert mid in ids
        m = get_metric(mid)
        assert m.id == mid
        assert m.meta.family and m.meta.description and m.meta.citation
        sig = m.signature()
        assert sig.startswith(mid + "|") and "tok:13a" in sig and "version:evalcore-" in sig
        assert {o.name for o in m.meta.options} >= {"tokenize", "lowercase"}
    assert get_metric("wer").meta.higher_is_better is False
    assert get_metric("per").meta.higher_is_better is False
    assert get_metric("gtm-1").meta.higher_is_better is True
    assert "exact" in get_metric("meteor").meta.description.lower()
    assert "synonym" in get_metric("meteor").meta.description.lower()


# ---------------------------------------------------------------------------------------------
# spec §8.1 worked example
# ---------------------------------------------------------------------------------------------


def test_spec_gtm():
    assert get_metric("gtm-1").sentence_score(C, [R]) == pytest.approx(6 / 11, abs=1e-12)
    assert get_metric("gtm-2").sentence_score(C, [R]) == pytest.approx(2 * math.sqrt(5) / 11, abs=1e-12)
    assert get_metric("gtm-2").sentence_score(C, [R]) == pytest.approx(0.406558, abs=1e-6)
    assert get_metric("gtm-3").sentence_score(C, [R]) == pytest.approx(0.378197, abs=1e-6)
    assert gtm_mms(C.split(), R.split(), 2) == pytest.approx(math.sqrt(5))
    assert sorted(gtm_runs(C.split(), R.split())) == [1, 2]


def test_spec_wer_per():
    assert levenshtein(C.split(), R.split()) == 4
    assert get_metric("wer").sentence_score(C, [R]) == pytest.approx(4 / 7)
    assert get_metric("per").sentence_score(C, [R]) == pytest.approx(4 / 7)


def test_spec_rouge():
    ev = {}
    for mid in ["rouge-l", "rouge-w", "rouge-s*", "rouge-su*"]:
        base = get_metric(mid)
        kw = dict(variant=base.variant, w=base.w)
        ev[mid] = (ROUGE(measure="p", **kw).similarity(C, R), ROUGE(measure="r", **kw).similarity(C, R),
                   base.similarity(C, R))
    assert ev["rouge-l"] == pytest.approx((3 / 4, 3 / 7, 0.545455), abs=1e-6)
    assert wlcs(C.split(), R.split(), 1.2) == pytest.approx(3.297397, abs=1e-6)
    assert ev["rouge-w"] == pytest.approx((0.675693, 0.386110, 0.491413), abs=1e-6)
    assert ev["rouge-s*"] == pytest.approx((0.5, 0.142857, 0.222222), abs=1e-6)
    assert ev["rouge-su*"] == pytest.approx((6 / 10, 6 / 28, 0.315789), abs=1e-6)


def test_spec_nist_pair_as_corpus():
    assert nist_bp(4, 7) == pytest.approx(0.267034, abs=1e-6)
    assert 3 * math.log2(7) / 4 == pytest.approx(2.105516, abs=1e-6)
    for n in range(1, 6):  # bigram "the dog" has information log2(1/1) = 0: every order agrees
        m = get_metric(f"nist-{n}")
        assert m.sentence_score(C, [R]) == pytest.approx(0.562245, abs=1e-6)
        assert m.corpus_score([C], [[R]]) == pytest.approx(0.562245, abs=1e-6)
        m.fit([[R]])
        assert m.sentence_score(C, [R]) == pytest.approx(0.562245, abs=1e-6)


def test_spec_meteor_by_hand():
    p, r = 3 / 4, 3 / 7  # matches he, the, dog; chunks {he} {the dog}
    expected = 10 * p * r / (r + 9 * p) * (1 - 0.5 * (2 / 3) ** 3)
    assert get_metric("meteor").sentence_score(C, [R]) == pytest.approx(expected, abs=1e-12)


def test_spec_char_ngrams_by_hand():
    # unigrams of "he walked the dog" vs "he took the dog for a walk", spaces included
    hs, rs = C, R
    for n in range(1, 7):
        ch = Counter(hs[i:i + n] for i in range(len(hs) - n + 1))
        cr = Counter(rs[i:i + n] for i in range(len(rs) - n + 1))
        hits = sum((ch & cr).values())
        p, r = hits / (len(hs) - n + 1), hits / (len(rs) - n + 1)
        for m, v in zip("prf", (p, r, f1(p, r))):
            assert get_metric(f"charngram-{m}{n}").sentence_score(C, [R]) == pytest.approx(v, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# literal brute-force implementations
# ---------------------------------------------------------------------------------------------


def lcs_recursive(a, b):
    if not a or not b:
        return 0
    if a[0] == b[0]:
        return 1 + lcs_recursive(a[1:], b[1:])
    return max(lcs_recursive(a[1:], b), lcs_recursive(a, b[1:]))


def levenshtein_table(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return d[len(a)][len(b)]


def wlcs_lin(x, y, w=1.2):
    """Lin & Och 2004's WLCS pseudo-code with full c and w tables."""
    f = lambda k: k ** w  # noqa: E731
    m, n = len(x), len(y)
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    ww = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if x[i - 1] == y[j - 1]:
                k = ww[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + f(k + 1) - f(k)
                ww[i][j] = k + 1
            elif c[i - 1][j] > c[i][j - 1]:
                c[i][j] = c[i - 1][j]
            else:
                c[i][j] = c[i][j - 1]
    return c[m][n]


def greedy_runs_literal(c, r):
    """Repeatedly take the longest common run of unaligned tokens (earliest candidate position,
    then earliest reference position, on ties) by scanning every start pair."""
    used_c, used_r, out = set(), set(), []
    while True:
        best = None
        for i in range(len(c)):
            for j in range(len(r)):
                k = 0
                while (i + k < len(c) and j + k < len(r) and c[i + k] == r[j + k]
                       and i + k not in used_c and j + k not in used_r):
                    k += 1
                if k and (best is None or k > best[0]):
                    best = (k, i, j)
        if best is None:
            return out
        k, i, j = best
        used_c.update(range(i, i + k))
        used_r.update(range(j, j + k))
        out.append(k)


def skip_bigram_counter(toks, unigrams=False):
    out = Counter(itertools.combinations(toks, 2))
    if unigrams:
        out.update((t,) for t in toks)
    return out


@FAST
@given(st.lists(st.sampled_from("abc"), max_size=7), st.lists(st.sampled_from("abc"), max_size=7))
def test_lcs_levenshtein_wlcs_against_literal(a, b):
    assert lcs_length(a, b) == lcs_recursive(a, b)
    assert levenshtein(a, b) == levenshtein_table(a, b)
    assert wlcs(a, b) == pytest.approx(wlcs_lin(a, b), abs=1e-12)
    assert bag_overlap(a, b) == sum((Counter(a) & Counter(b)).values())


@FAST
@given(st.lists(token_lists, min_size=1, max_size=4), st.lists(token_lists, min_size=1, max_size=4))
def test_block_dps_against_literal(cs, rs):
    ids, _ = encode_block(cs + rs)
    a, b = ids[:len(cs)], ids[len(cs):]
    assert levenshtein_matrix(a, b).tolist() == [[levenshtein_table(x, y) for y in rs] for x in cs]
    assert lcs_matrix(a, b).tolist() == [[lcs_recursive(x, y) if len(x) + len(y) < 12 else lcs_length(x, y)
                                          for y in rs] for x in cs]
    assert clipped_overlap(a, b).tolist() == [[sum((Counter(x) & Counter(y)).values()) for y in rs] for x in cs]
    wm = wlcs_matrix(a, b)
    assert np.allclose(wm, [[wlcs_lin(x, y) for y in rs] for x in cs], atol=1e-12)
    assert np.array_equal(wm, [[wlcs(x, y) for y in rs] for x in cs])  # scalar and block agree exactly
    # the numpy versions (used when numba is missing) agree with the compiled ones
    assert np.array_equal(levenshtein_matrix_np(a, b), levenshtein_matrix(a, b))
    assert np.array_equal(lcs_matrix_np(a, b), lcs_matrix(a, b))
    assert np.array_equal(wlcs_matrix_np(a, b), wm)


@FAST
@given(st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, float("nan")]), min_size=1, max_size=5),
                min_size=1, max_size=4), st.sampled_from(["max", "min"]))
def test_best_of_others_equals_delete_loop(rows, best):
    width = min(len(r) for r in rows)
    v = np.array([r[:width] for r in rows], dtype=float)
    red = np.max if best == "max" else np.min
    want = np.full(v.shape, np.nan)
    if width > 1:
        for j in range(width):
            want[:, j] = red(np.delete(v, j, axis=1), axis=1)
    assert np.array_equal(best_of_others(v, best), want, equal_nan=True)


@FAST
@given(token_lists, token_lists)
def test_gtm_against_literal(c, r):
    runs = gtm_runs(c, r)
    assert list(runs) == greedy_runs_literal(c, r)
    overlap = sum((Counter(c) & Counter(r)).values())
    assert sum(runs) == overlap  # greedy aligns every alignable word: e = 1 MMS is exact
    for e in (1, 2, 3):
        mms = sum(k ** e for k in greedy_runs_literal(c, r)) ** (1 / e)
        p = mms / len(c) if c else 0.0
        rr = mms / len(r) if r else 0.0
        assert gtm_f(c, r, e) == pytest.approx(f1(p, rr), abs=1e-12)
        assert get_metric(f"gtm-{e}").similarity(" ".join(c), " ".join(r)) == pytest.approx(f1(p, rr), abs=1e-12)


@FAST
@given(token_lists, token_lists)
def test_wer_per_against_literal(c, r):
    cs, rs = " ".join(c), " ".join(r)
    edits = levenshtein_table(c, r)
    m = sum((Counter(c) & Counter(r)).values())
    if r:
        wer, per = edits / len(r), 1 - (m - max(0, len(c) - len(r))) / len(r)
    else:  # documented convention for an empty reference
        wer = per = 0.0 if not c else 1.0
    assert get_metric("wer").similarity(cs, rs) == pytest.approx(wer, abs=1e-12)
    assert get_metric("per").similarity(cs, rs) == pytest.approx(per, abs=1e-12)


@FAST
@given(token_lists, token_lists)
def test_rouge_against_literal(c, r):
    cs, rs = " ".join(c), " ".join(r)

    def prf(hits, nr, nc):
        return f1(hits / nc if nc else 0.0, hits / nr if nr else 0.0)

    for n, mid in ((1, "rouge-1"), (2, "rouge-2")):
        gc = Counter(tuple(c[i:i + n]) for i in range(len(c) - n + 1))
        gr = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        expect = prf(sum((gc & gr).values()), sum(gr.values()), sum(gc.values()))
        assert get_metric(mid).similarity(cs, rs) == pytest.approx(expect, abs=1e-12)
    sc, sr = skip_bigram_counter(c), skip_bigram_counter(r)
    assert len(list(itertools.combinations(r, 2))) == math.comb(len(r), 2)
    expect = prf(sum((sc & sr).values()), math.comb(len(r), 2), math.comb(len(c), 2))
    assert get_metric("rouge-s*").similarity(cs, rs) == pytest.approx(expect, abs=1e-12)
    uc, ur = skip_bigram_counter(c, True), skip_bigram_counter(r, True)
    expect = prf(sum((uc & ur).values()), sum(ur.values()), sum(uc.values()))
    assert get_metric("rouge-su*").similarity(cs, rs) == pytest.approx(expect, abs=1e-12)
    expect = prf(lcs_recursive(c, r) if len(c) + len(r) < 12 else lcs_length(c, r), len(r), len(c))
    assert get_metric("rouge-l").similarity(cs, rs) == pytest.approx(expect, abs=1e-12)
    wl = wlcs_lin(c, r)
    p = (wl / len(c) ** 1.2) ** (1 / 1.2) if c else 0.0
    rr = (wl / len(r) ** 1.2) ** (1 / 1.2) if r else 0.0
    assert get_metric("rouge-w").similarity(cs, rs) == pytest.approx(f1(p, rr), abs=1e-12)


def test_rouge_su_script_quirk():
    # the script's -u mode drops the last token's unigram: hits 3 + {he, the} = 5 of 21+6, 6+3
    m = ROUGE("su", su_script=True)
    assert m.similarity(C, R) == pytest.approx(f1(5 / 9, 5 / 27), abs=1e-12)


@FAST
@given(st.text(alphabet="ab cdéक्ष", max_size=12), st.text(alphabet="ab cdéक्ष", max_size=12),
       st.integers(1, 6))
def test_char_ngrams_against_counter(h, r, n):
    ht, rt = h.split(), r.split()
    hs, rs = " ".join(ht), " ".join(rt)
    ch = Counter(hs[i:i + n] for i in range(len(hs) - n + 1))
    cr = Counter(rs[i:i + n] for i in range(len(rs) - n + 1))
    hits = sum((ch & cr).values())
    p = hits / (len(hs) - n + 1) if len(hs) >= n else 0.0
    rr = hits / (len(rs) - n + 1) if len(rs) >= n else 0.0
    assert char_ngram_prf(ht, rt, n) == pytest.approx((p, rr, f1(p, rr)), abs=1e-12)
    m = get_metric(f"charngram-f{n}")
    m.tokenize = "none"
    assert m.similarity(h, r) == pytest.approx(f1(p, rr), abs=1e-12)


@FAST
@given(token_lists, token_lists)
def test_meteor_against_literal(c, r):
    runs = greedy_runs_literal(c, r)
    m = sum(runs)
    if m == 0:
        expect = 0.0
    else:
        p, rr = m / len(c), m / len(r)
        expect = 10 * p * rr / (rr + 9 * p) * (1 - 0.5 * (len(runs) / m) ** 3)
    assert meteor_exact(c, r) == pytest.approx(expect, abs=1e-12)
    assert get_metric("meteor").similarity(" ".join(c), " ".join(r)) == pytest.approx(expect, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# NIST against a literal mteval-v13a procedure
# ---------------------------------------------------------------------------------------------


def mteval_nist(cands, refs_per_seg, max_n, info_refs=None):
    """mteval-v13a: compute_ngram_info over all references, score_segment, nist_score."""
    cnt, tot = Counter(), 0
    for rs in (info_refs if info_refs is not None else refs_per_seg):
        for r in rs:
            tot += len(r)
            for n in range(1, max_n + 1):
                cnt.update(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
    info = {g: -math.log(k / (tot if len(g) == 1 else cnt[g[:-1]])) / math.log(2) for g, k in cnt.items()}
    tst_info, tst_cnt = [0.0] * (max_n + 1), [0] * (max_n + 1)
    sys_len = ref_len = 0.0
    for c, rs in zip(cands, refs_per_seg):
        for n in range(1, max_n + 1):
            tst_cnt[n] += max(0, len(c) - n + 1)
            refmax = Counter()
            for r in rs:
                for g, k in Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1)).items():
                    refmax[g] = max(refmax[g], k)
            for g, k in Counter(tuple(c[i:i + n]) for i in range(len(c) - n + 1)).items():
                if g in refmax:
                    tst_info[n] += info.get(g, 0.0) * min(k, refmax[g])
        sys_len += len(c)
        ref_len += sum(len(r) for r in rs) / len(rs)
    score = sum(tst_info[n] / max(tst_cnt[n], 1) for n in range(1, max_n + 1))
    ratio = sys_len / ref_len if ref_len else 1.0
    beta = -math.log(0.5) / math.log(1.5) / math.log(1.5)
    bp = 1.0 if ratio >= 1 else (0.0 if ratio <= 0 else math.exp(-beta * math.log(ratio) * math.log(ratio)))
    return score * bp


corpora = st.lists(st.tuples(token_lists, st.lists(token_lists.filter(len), min_size=1, max_size=3)),
                   min_size=1, max_size=5)


@FAST
@given(corpora, st.integers(1, 5))
def test_nist_against_mteval(corpus, max_n):
    cands = [c for c, _ in corpus]
    refs = [rs for _, rs in corpus]
    cs = [" ".join(c) for c in cands]
    rss = [[" ".join(r) for r in rs] for rs in refs]
    m = NIST(max_n=max_n)
    expect = mteval_nist(cands, refs, max_n)
    assert m.corpus_score(cs, rss) == pytest.approx(expect, abs=1e-9)  # unfitted: refs of the call
    m.fit(rss)
    assert m.corpus_score(cs, rss) == pytest.approx(expect, abs=1e-9)
    # sentence level: fitted weights from the whole corpus; unfitted: the segment's references
    for c, rs, r_s in zip(cands, refs, rss):
        assert m.sentence_score(" ".join(c), r_s) == pytest.approx(mteval_nist([c], [rs], max_n, refs), abs=1e-9)
        assert NIST(max_n=max_n).sentence_score(" ".join(c), r_s) == pytest.approx(
            mteval_nist([c], [rs], max_n), abs=1e-9)


def test_nist_fit_changes_signature_and_weights():
    m = NIST(max_n=2)
    assert "info:refs" in m.signature() and not m.is_fitted
    big = [[R], ["the dog is here"], ["a dog and the cat"]]
    assert m.fit(big) is m and m.is_fitted
    assert "info:fit-" in m.signature()
    toks = [[r.split() for r in seg] for seg in big]
    assert m.sentence_score(C, [R]) == pytest.approx(mteval_nist([C.split()], [[R.split()]], 2, toks), abs=1e-12)
    assert m.unfit().sentence_score(C, [R]) == pytest.approx(0.562245, abs=1e-6)


# ---------------------------------------------------------------------------------------------
# multi-reference semantics, corpus statistics, segment_block
# ---------------------------------------------------------------------------------------------

BEST_OF = [m for m in LEXICAL if not m.startswith("nist")]


@FAST
@given(sentences, st.lists(sentences, min_size=1, max_size=4))
def test_multi_reference_is_best_single(c, refs):
    for mid in BEST_OF:
        m = get_metric(mid)
        sims = [m.similarity(c, r) for r in refs]
        want = max(sims) if m.meta.higher_is_better else min(sims)
        assert m.sentence_score(c, refs) == want


def test_nist_multi_reference_is_max_count_clipping():
    refs = ["the dog the dog", "the cat"]
    # "the the the" : 'the' clipped by max count over refs = 2 (not 2 + 1), L_ref = average = 3
    toks = [r.split() for r in refs]
    expect = mteval_nist([["the", "the", "the"]], [toks], 1)
    assert get_metric("nist-1").sentence_score("the the the", refs) == pytest.approx(expect, abs=1e-12)


def test_rouge_sum_mode_literal():
    m = ROUGE("n", n=1, multiref="sum")
    refs = ["he took the dog", "a dog walked"]
    hits = 3 + 2
    p, r = hits / (2 * 4), hits / (4 + 3)
    assert m.sentence_score(C, refs) == pytest.approx(f1(p, r), abs=1e-12)
    sim, loo = m.segment_block([C, "dog"], refs)
    assert np.array_equal(loo, Metric.segment_block(m, [C, "dog"], refs)[1], equal_nan=True)


@FAST
@given(st.lists(st.tuples(sentences, st.lists(sentences, min_size=1, max_size=3)), min_size=1, max_size=4))
def test_corpus_statistics(corpus):
    cands = [c for c, _ in corpus]
    refs = [rs for _, rs in corpus]
    # mWER / mPER: Σ errors of the best reference / Σ its length
    for mid, err in (("wer", lambda c, r: levenshtein_table(c, r)),
                     ("per", lambda c, r: max(len(c), len(r)) - sum((Counter(c) & Counter(r)).values()))):
        e = n = 0
        for c, rs in corpus:
            rates = [(err(c.split(), r.split()) / len(r.split())) if r.split() else
                     (1.0 if err(c.split(), r.split()) else 0.0) for r in rs]
            k = int(np.argmin(rates))
            e += err(c.split(), rs[k].split())
            n += len(rs[k].split())
        want = e / n if n else (1.0 if e else 0.0)
        assert get_metric(mid).corpus_score(cands, refs) == pytest.approx(want, abs=1e-12)
    # GTM: bitext MMS over the best references
    for e in (1, 2, 3):
        s = lc = lr = 0
        for c, rs in corpus:
            fs = [gtm_f(c.split(), r.split(), e) for r in rs]
            r = rs[int(np.argmax(fs))].split()
            s += sum(k ** e for k in greedy_runs_literal(c.split(), r))
            lc += len(c.split())
            lr += len(r)
        mms = s ** (1 / e)
        want = f1(mms / lc if lc else 0.0, mms / lr if lr else 0.0)
        assert get_metric(f"gtm-{e}").corpus_score(cands, refs) == pytest.approx(want, abs=1e-12)
    # ROUGE and character n-grams: mean of segment scores
    for mid in ("rouge-l", "rouge-su*", "charngram-f3"):
        m = get_metric(mid)
        assert m.corpus_score(cands, refs) == pytest.approx(np.mean([m.sentence_score(c, r) for c, r in corpus]))
    # per-segment statistics sum: a subset's corpus score = score of the summed subset rows
    m = get_metric("meteor")
    stats = m.segment_stats(cands, refs)
    assert m.score_from_stats(stats[:1]) == pytest.approx(m.sentence_score(cands[0], refs[0]), abs=1e-12)


@FAST
@given(st.lists(sentences, min_size=1, max_size=3), st.lists(sentences, min_size=1, max_size=4),
       st.booleans())
def test_segment_block_equals_default_loop(systems, refs, fitted):
    cands = systems + refs
    for mid in LEXICAL:
        m = get_metric(mid)
        if fitted and mid.startswith("nist"):
            m.fit([refs, systems])
        sim, loo = m.segment_block(cands, refs)
        sim0, loo0 = Metric.segment_block(m, cands, refs)
        assert sim.shape == loo.shape == (len(cands), len(refs))
        assert np.array_equal(sim, sim0), mid
        assert np.array_equal(loo, loo0, equal_nan=True), mid


# ---------------------------------------------------------------------------------------------
# scripts and empty inputs
# ---------------------------------------------------------------------------------------------


def test_hindi():
    c, r = "मैं घर जा रहा हूँ", "मैं अपने घर जा रहा हूँ"
    assert get_metric("wer").sentence_score(c, [r]) == pytest.approx(1 / 6)
    assert get_metric("per").sentence_score(c, [r]) == pytest.approx(1 / 6)
    assert get_metric("gtm-1").sentence_score(c, [r]) == pytest.approx(10 / 11)
    assert get_metric("gtm-2").sentence_score(c, [r]) == pytest.approx(f1(math.sqrt(17) / 5, math.sqrt(17) / 6))
    assert get_metric("rouge-l").sentence_score(c, [r]) == pytest.approx(f1(1.0, 5 / 6))
    hs, rs = c, r
    ch = Counter(hs[i:i + 2] for i in range(len(hs) - 1))
    cr = Counter(rs[i:i + 2] for i in range(len(rs) - 1))
    hits = sum((ch & cr).values())
    p, rr = hits / (len(hs) - 1), hits / (len(rs) - 1)
    assert get_metric("charngram-f2").sentence_score(c, [r]) == pytest.approx(f1(p, rr))
    sim, loo = get_metric("nist-2").segment_block([c, r], [r, c])
    assert np.isfinite(sim).all() and sim[1, 0] > sim[0, 0]


def test_chinese_with_zh_tokenizer():
    from evalcore.metrics.edit import WER
    from evalcore.metrics.gtm import GTM
    c, r = "我喜欢猫。", "我很喜欢猫。"
    # one token per character with zh; with 13a the whole sentence is ~1 token
    assert WER(tokenize="zh").sentence_score(c, [r]) == pytest.approx(1 / 6)
    assert WER(tokenize="13a").sentence_score(c, [r]) == pytest.approx(1.0)
    assert GTM(e=1, tokenize="zh").sentence_score(c, [r]) == pytest.approx(10 / 11)
    assert ROUGE("l", tokenize="zh").sentence_score(c, [r]) == pytest.approx(f1(1.0, 5 / 6))
    assert NIST(max_n=2, tokenize="zh").sentence_score(c, [r]) > 0
    assert "tok:zh" in WER(tokenize="zh").signature()


@pytest.mark.parametrize("mid", LEXICAL)
def test_empty_inputs(mid):
    m = get_metric(mid)
    worst = 1.0 if mid in ("wer", "per") else 0.0
    assert m.similarity("", R) == worst  # empty candidate
    assert m.similarity(C, "") == worst  # empty reference
    assert m.sentence_score(C, [""]) == worst
    assert math.isnan(m.sentence_score(C, []))  # no reference at all
    both = m.similarity("", "")
    assert both == 0.0
    sim, loo = m.segment_block(["", C], ["", R])
    sim0, loo0 = Metric.segment_block(m, ["", C], ["", R])
    assert np.array_equal(sim, sim0) and np.array_equal(loo, loo0, equal_nan=True)
    assert np.isfinite(m.corpus_score(["", C], [[R], [""]]))
