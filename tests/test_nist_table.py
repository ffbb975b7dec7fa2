"""NIST's information-weight table in compact arrays (evalcore.metrics.nist.InfoTable,
methods §7.4, Doddington 2002): every weight exactly equal to a literal dict of n-gram tuples
computed here, look-ups of absent n-grams give 0, and fitted scores equal a literal
mteval-v13a procedure on a slice of real WMT24 references."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.metrics.nist import NIST, InfoTable, ngram_info

from conftest import shared


def literal_info(refs, max_n):
    """compute_ngram_info of mteval-v13a, literally: a dict over n-gram tuples."""
    cnt, tot = Counter(), 0
    for r in refs:
        r = tuple(r)
        tot += len(r)
        for n in range(1, max_n + 1):
            cnt.update(r[i:i + n] for i in range(len(r) - n + 1))
    return {g: math.log2((tot if len(g) == 1 else cnt[g[:-1]]) / k) for g, k in cnt.items()}


def test_hand_worked_weights():
    # refs "the cat" / "the dog": 4 words; the ×2, cat ×1, dog ×1
    t = ngram_info([("the", "cat"), ("the", "dog")], 2)
    assert isinstance(t, InfoTable)
    assert t.get(("the",)) == 1.0              # log2(4/2)
    assert t.get(("cat",)) == 2.0              # log2(4/1)
    assert t.get(("the", "cat")) == 1.0        # log2(count(the)=2 / 1)
    assert t.get(("cat", "the")) == 0.0        # absent n-gram
    assert t.get(("bird",)) == 0.0             # absent token
    assert t.get(("the", "cat", "x"), 0.5) == 0.5  # order beyond the table
    assert len(t) == 5


tokens = st.lists(st.sampled_from(list("abcde")), max_size=9)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(tokens, max_size=6), st.integers(1, 5))
def test_table_equals_literal_dict(refs, max_n):
    t = ngram_info(refs, max_n)
    assert t.as_dict() == literal_info(refs, max_n)  # exact float equality, every n-gram


@pytest.fixture(scope="module")
def wmt_slice():
    from evalcore.io import load_collection
    ds = load_collection(shared("wmt24_esa"))["en-cs"]
    return ds.subset(seg_ids=ds.seg_ids[:40])


def test_real_references_exact_and_lookup(wmt_slice):
    m = NIST(max_n=5)
    texts = list(wmt_slice.ref_texts().values())
    toks = [m.tok(t[s]) for t in texts for s in range(wmt_slice.n_segments) if isinstance(t[s], str)]
    t = ngram_info(toks, 5)
    lit = literal_info(toks, 5)
    assert t.as_dict() == lit
    # vectorised look-up of every reference n-gram and of n-grams absent from the table
    inv = t.vocab
    for n in (1, 3, 5):
        grams = [g for g in lit if len(g) == n]
        ids = np.array([[inv[w] for w in g] for g in grams])
        assert t.lookup(ids).tolist() == [lit[g] for g in grams]
    absent = np.array([[inv[toks[0][0]], -1], [inv[toks[0][0]], inv[toks[0][0]]]])
    expect = [0.0, lit.get((toks[0][0], toks[0][0]), 0.0)]
    assert t.lookup(absent).tolist() == expect
    assert t.nbytes() == 16 * len(lit)


def test_fitted_scores_equal_literal_mteval(wmt_slice):
    """Fitted on every reference of the slice, segment scores of one system against all its
    references equal a literal mteval-v13a (dict weights, Counter clipping), 1e-12 relative."""
    ds = wmt_slice
    texts = list(ds.ref_texts().values())
    refs = [[t[s] for t in texts if isinstance(t[s], str)] for s in range(ds.n_segments)]
    m = NIST(max_n=4).fit(refs)
    tok_refs = [[m.tok(r) for r in rs] for rs in refs]
    info = literal_info([r for rs in tok_refs for r in rs], 5)
    cands = ds.sys_texts()[ds.systems[0]]
    got = m.segment_stats(cands, refs)
    assert np.nansum(got[:, :4] > 0) > 20  # real matches, not a vacuous comparison
    for i, (c, rs) in enumerate(zip(cands, tok_refs)):
        if not isinstance(c, str) or not rs:
            continue
        c = m.tok(c)
        for n in range(1, 5):
            refmax = Counter()
            for r in rs:
                for g, k in Counter(tuple(r[j:j + n]) for j in range(len(r) - n + 1)).items():
                    refmax[g] = max(refmax[g], k)
            want = sum(info.get(g, 0.0) * min(k, refmax[g])
                       for g, k in sorted(Counter(tuple(c[j:j + n]) for j in range(len(c) - n + 1)).items())
                       if g in refmax)
            assert got[i, n - 1] == pytest.approx(want, rel=1e-12, abs=1e-12)


# ---- the chunk kernel (one compiled run per chunk of segments) against the literal rule ---------
def literal_rows(m, cands, refs):
    """NIST statistics rows of mteval-v13a, literally: weights from every reference passed
    (``literal_info``), Counter clipping by the maximum reference count, matched information
    summed in the n-grams' lexicographic order, L_ref the mean reference length."""
    n_max = m.max_n
    tok_refs = [[m.tok(r) for r in rs if isinstance(r, str)] for rs in refs]
    info = literal_info([r for rs in tok_refs for r in rs], n_max)
    rows = []
    for c, rs in zip(cands, tok_refs):
        if not rs:
            rows.append([math.nan] * (2 * n_max + 2))
            continue
        c = m.tok(c)
        row, counts = [], []
        for n in range(1, n_max + 1):
            refmax = Counter()
            for r in rs:
                for g, k in Counter(tuple(r[j:j + n]) for j in range(len(r) - n + 1)).items():
                    refmax[g] = max(refmax[g], k)
            cc = Counter(tuple(c[j:j + n]) for j in range(len(c) - n + 1))
            row.append(sum(info[g] * min(k, refmax[g]) for g, k in sorted(cc.items()) if g in refmax))
            counts.append(max(0, len(c) - n + 1))
        rows.append(row + counts + [len(c), sum(len(r) for r in rs) / len(rs)])
    return np.array(rows, dtype=float).reshape(len(cands), 2 * n_max + 2)


words = st.lists(st.sampled_from(["a", "b", "c", "d", "B", "é"]), max_size=7).map(" ".join)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.lists(words, max_size=4), st.lists(words, min_size=1, max_size=5)), min_size=1,
                max_size=6), st.integers(1, 5))
def test_chunk_kernel_equals_literal_mteval_exactly(segs, max_n):
    """Random segments (empty candidates and references, one-token texts, no reference, unequal
    reference counts): the chunk kernel's rows equal the literal rule bit for bit, and each
    metric's rows in a family run equal its own ``segment_stats``."""
    cands = [c for refs, cs in segs for c in cs]
    refs = [list(refs) for refs, cs in segs for _ in cs]
    m = NIST(max_n=max_n)
    got = m.segment_stats(cands, refs)  # unfitted: weights from every reference passed
    np.testing.assert_array_equal(got, literal_rows(m, cands, refs))
    ms = [NIST(max_n=k) for k in range(1, 6)]
    ms[0].fit(refs)
    for x in ms[1:]:
        x._table, x._fit_hash = ms[0]._table, ms[0]._fit_hash
    fam = NIST.family_segment_stats(ms, cands, refs)
    for x, f in zip(ms, fam):
        np.testing.assert_array_equal(f, x.segment_stats(cands, refs))
        np.testing.assert_array_equal(f, literal_rows(x, cands, refs))


def test_chunk_kernel_real_segments_exact(wmt_slice):
    """Fitted on the slice, every system's rows equal the literal rule exactly (real text)."""
    ds = wmt_slice
    texts = list(ds.ref_texts().values())
    refs = [[t[s] for t in texts if isinstance(t[s], str)] for s in range(ds.n_segments)]
    m = NIST(max_n=5).fit(refs)
    cands = [c for s in ds.systems[:4] for c in ds.sys_texts()[s]]
    rr = [r for _ in ds.systems[:4] for r in refs]
    keep = [i for i, c in enumerate(cands) if isinstance(c, str)]
    cands, rr = [cands[i] for i in keep], [rr[i] for i in keep]
    got = m.segment_stats(cands, rr)
    assert np.nansum(got[:, 1] > 0) > 5  # real matches of weighted bigrams
    np.testing.assert_array_equal(got, literal_rows(m, cands, rr))


def test_log2_ratio_chunks_give_math_log2_exactly():
    """The weights are ``math.log2(den / k)`` bit for bit, whatever the chunking."""
    from evalcore.metrics.nist import _log2_ratio

    rng = np.random.default_rng(3)
    k = rng.integers(1, 50, size=5000)
    den = k * rng.integers(1, 40, size=5000) + rng.integers(0, 3, size=5000)
    want = np.array([math.log2(a / b) for a, b in zip(den.tolist(), k.tolist())])
    for chunk in (1, 7, 1000, 1 << 18):
        np.testing.assert_array_equal(_log2_ratio(den, k, chunk=chunk), want)


def test_table_pickles_as_one_flat_array_and_scores_the_same():
    """A worker gets the table by pickle: the weights arrive as one array with the per-order
    views on it, and NIST statistics computed with the copy equal the original's."""
    import pickle

    refs = [tuple(f"w{(i * 7 + j) % 13} w{j % 5} x{i % 3}".split()) for i in range(40) for j in range(3)]
    t = ngram_info(refs, 5)
    back = pickle.loads(pickle.dumps(t))
    assert back.as_dict() == t.as_dict()
    assert all(np.shares_memory(i, back.flat) for i in back.info if len(i))
    np.testing.assert_array_equal(back.flat, np.concatenate(t.info))
    # the keys too: one array, and to_arrays hands it out without a copy
    assert all(np.shares_memory(k, t.flat_keys) for k in t.keys if len(k))
    assert t.to_arrays()["keys"] is t.flat_keys
    np.testing.assert_array_equal(back.flat_keys, np.concatenate(t.keys))
    m = NIST(5)
    m.fit([[" ".join(r)] for r in refs])
    cands = [" ".join(r[::-1]) for r in refs[:30]]
    rr = [[" ".join(r)] for r in refs[:30]]
    before = m.segment_stats(cands, rr)
    m._table = pickle.loads(pickle.dumps(m._table))
    np.testing.assert_array_equal(m.segment_stats(cands, rr), before)
