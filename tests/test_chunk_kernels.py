"""Whole-chunk compiled kernels of the edit, GTM, METEOR and BEER character n-gram families
(CPU per cell at campaign scale).

Oracles computed here: a literal edit-distance DP and ``collections.Counter`` bag overlaps
written in this file, sacreBLEU's own ``translation_edit_rate`` for TER, the plain-Python
per-item path of each metric (``_stats_one``: ``levenshtein``, ``bag_overlap``, the pure-Python
greedy GTM matcher) and the per-group block path it replaces (``_segment_stats_blocks``);
literal n-gram ``Counter``s for the character n-gram counts. Values must be identical
(``==`` on floats), on derandomised random token sequences and edge cases: empty candidate,
empty reference, one-token segments, unequal numbers of references, items without
references, segments over the alignment cap.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate

from evalcore.metrics import edit, engine, levels
from evalcore.metrics.kernels import overlap
from evalcore.metrics.base import MAX_ALIGN_TOKENS, get_metric
from evalcore.io.synth import make_synthetic

pytestmark = pytest.mark.skipif(edit._nb is None, reason="numba is not installed (the chunk kernels need it)")

WORDS = ["a", "b", "c", "d", "e", "f"]
FAMILY = ("wer", "per", "gtm-1", "gtm-2", "gtm-3", "meteor")

# edge cases: (candidate, references)
EDGES = [
    ("", ["a b c", ""]),          # empty candidate; an empty reference
    ("a", [""]),                  # only an empty reference
    ("a", ["a"]),                 # one token, identical
    ("a", ["b"]),                 # one token, different
    ("", ["", ""]),               # everything empty
    ("x y", ["x", "y x", "x y"]),  # three references, the last identical
    ("b a b a", ["a b"]),
    ("q", []),                    # no reference: NaN row
]


def literal_lev(x, y) -> int:
    d = [[i + j if i == 0 or j == 0 else 0 for j in range(len(y) + 1)] for i in range(len(x) + 1)]
    for i in range(1, len(x) + 1):
        for j in range(1, len(y) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] != y[j - 1]))
    return d[len(x)][len(y)]


def literal_overlap(x, y) -> int:
    cx, cy = Counter(x), Counter(y)
    return sum(min(k, cy[w]) for w, k in cx.items())


def rate(e, n):
    return e / n if n > 0 else (1.0 if e > 0 else 0.0)


def literal_wer_per(metric_id, cand, refs):
    """[errors, |r*|] of the reference with the lowest rate (first on ties), written here."""
    if not refs:
        return [np.nan, np.nan]
    c = cand.lower().split()
    best = None
    for r in refs:
        rt = r.lower().split()
        e = literal_lev(c, rt) if metric_id == "wer" else max(len(c), len(rt)) - literal_overlap(c, rt)
        if best is None or rate(e, len(rt)) < rate(*best):
            best = (e, len(rt))
    return [float(best[0]), float(best[1])]


texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
items = st.lists(st.tuples(st.lists(texts, min_size=1, max_size=4),
                           st.lists(texts, min_size=0, max_size=3)), min_size=1, max_size=5)


def flatten(segments):
    """Segments (candidates, references) -> item lists (every candidate with its references)."""
    c, r = [], []
    for cands, refs in segments:
        for x in cands:
            c.append(x)
            r.append(list(refs))
    return c, r


def check_family(c, r):
    for mid in FAMILY:
        m = get_metric(mid)
        got = m.segment_stats(c, r)
        blocks = m._segment_stats_blocks(c, r)
        per_item = np.array([m._stats_one(x, y) for x, y in zip(c, r)], dtype=float).reshape(len(c), -1)
        assert np.array_equal(got, blocks, equal_nan=True), mid
        assert np.array_equal(got, per_item, equal_nan=True), mid
        if mid in ("wer", "per"):  # the 13a tokens of these words are the words themselves
            want = np.array([literal_wer_per(mid, x, y) for x, y in zip(c, r)], dtype=float)
            assert np.array_equal(got, want, equal_nan=True), mid


@settings(max_examples=60, derandomize=True, deadline=None)
@given(items)
def test_chunk_kernels_equal_literal_and_block_paths(segments):
    check_family(*flatten(segments))


def test_chunk_kernels_edge_cases():
    c = [x for x, _ in EDGES]
    r = [y for _, y in EDGES]
    check_family(c, r)
    out = get_metric("wer").segment_stats(c, r)
    assert np.isnan(out[-1]).all() and out[1].tolist() == [1.0, 0.0] and out[2].tolist() == [0.0, 1.0]


def test_quadratic_refusal_in_the_chunk_path():
    """WER refuses a candidate or a reference over the cap (NaN row, the group's other items
    too when a reference is long); PER, not quadratic, scores them: as the block path."""
    long = " ".join(["a"] * (MAX_ALIGN_TOKENS + 1))
    c = [long, "a b", "a", "b"]
    r = [["a b"], ["a b"], [long, "a"], [long, "a"]]
    wer, per = get_metric("wer"), get_metric("per")
    got = wer.segment_stats(c, r)
    assert np.isnan(got[[0, 2, 3]]).all() and got[1].tolist() == [0.0, 2.0]
    assert np.array_equal(got, wer._segment_stats_blocks(c, r), equal_nan=True)
    p = per.segment_stats(c, r)
    assert np.isfinite(p).all() and np.array_equal(p, per._segment_stats_blocks(c, r))


def sacrebleu_ter_stats(m, cand, refs):
    """[min Tercom edits over references, mean reference length] from sacreBLEU's routine."""
    h = list(m.tokens(cand))
    rts = [list(m.tokens(x)) for x in refs]
    edits = [translation_edit_rate(h, rt)[0] for rt in rts]
    return [float(min(edits)), sum(len(x) for x in rts) / len(rts)]


@settings(max_examples=40, derandomize=True, deadline=None)
@given(items)
def test_ter_chunk_equals_sacrebleu(segments):
    c, r = flatten(segments)
    m = get_metric("ter")
    got = m.segment_stats(c, r)
    for i, (x, y) in enumerate(zip(c, r)):
        want = sacrebleu_ter_stats(m, x, y) if y else [np.nan, np.nan]
        assert np.array_equal(got[i], want, equal_nan=True), (x, y)


def test_ter_chunk_edge_cases_and_long_segments():
    m = get_metric("ter")
    long = " ".join(["a"] * (MAX_ALIGN_TOKENS + 1))
    c = [x for x, _ in EDGES] + [long, "a"]
    r = [y for _, y in EDGES] + [["a"], [long]]
    got = m.segment_stats(c, r)
    for i, (x, y) in enumerate(zip(c, r)):
        if not y or i >= len(EDGES):
            assert np.isnan(got[i]).all()
        else:
            assert got[i].tolist() == sacrebleu_ter_stats(m, x, y), (x, y)
    scores = m.sentence_scores_of(got, r)
    want = [m.sentence_score(x, y) for x, y in zip(c, r)]
    assert np.array_equal(scores, want, equal_nan=True)


@pytest.mark.parametrize("chunk", [1, 3])
def test_family_pass_memo_equals_each_metric_alone(chunk):
    """In a family pass the chunk plan is memoised and shared (wer/per, gtm-1..3); every metric's
    rows equal its own whole-data call, also with a second tokenizer in the same pass."""
    ds = make_synthetic(8, 3, 3, seed=7, missing_ref_rate=0.25)
    cands_all, _ = engine.scoring_plan(ds, None, True)
    its, pos = levels.plan_items(ds, cands_all)
    c = [x for _, _, cs, _ in its for x in cs]
    r = [x for _, _, _, rs in its for x in rs]
    ms = [get_metric(m) for m in ("wer", "per", "gtm-1", "gtm-2", "gtm-3", "meteor", "ter")]
    ms += [get_metric("wer").with_tokenize("char"), get_metric("per").with_tokenize("char")]
    for group in (ms[:2], ms[2:5], ms[5:6], ms[6:7], ms[7:]):
        got = levels.family_stats(group, c, r, pos, chunk_segments=chunk)
        for m, st_ in zip(group, got):
            assert np.array_equal(st_, m.segment_stats(c, r), equal_nan=True), (m.id, chunk)
            assert np.array_equal(st_, np.array([m._stats_one(x, y) for x, y in zip(c, r)], dtype=float),
                                  equal_nan=True), (m.id, chunk)


def literal_hits(blk, nc, n):
    grams = [Counter(tuple(s[i:i + n]) for i in range(len(s) - n + 1)) for s in blk]
    return [[sum(min(k, grams[nc + r][g]) for g, k in grams[c].items()) for r in range(len(blk) - nc)]
            for c in range(nc)]


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 5), st.integers(0, 10 ** 6)),
                min_size=1, max_size=4))
def test_ranked_overlaps_equal_literal_counts(spec):
    """The sort-free counts (``ranked=True``) against literal n-gram Counters, and equal to the
    sorting kernel; ids ranked within each block, as the BEER features' are."""
    blocks, ncs = [], []
    for nc, nr, v, seed in spec:
        rng = np.random.default_rng(seed)
        blk = [rng.integers(0, v, size=int(rng.integers(0, 12))) for _ in range(nc + nr)]
        allv = np.concatenate(blk)
        u = np.unique(allv)
        blocks.append([np.searchsorted(u, x).astype(np.int64) for x in blk])
        ncs.append(nc)
    fast = overlap.block_overlaps(blocks, ncs, 6, True)
    sort = overlap.block_overlaps(blocks, ncs, 6)
    for blk, nc, (hits, totals), (h2, t2) in zip(blocks, ncs, fast, sort):
        assert np.array_equal(hits, h2) and np.array_equal(totals, t2)
        for n in range(1, 7):
            assert hits[n - 1].tolist() == literal_hits(blk, nc, n)
            assert list(totals[:, n - 1]) == [max(0, len(s) - n + 1) for s in blk]


def test_ranked_overlaps_table_cap_falls_back(monkeypatch):
    """Over the rank-table cap the sorting kernel counts: the same numbers."""
    blocks = [[np.array([0, 1, 1, 2]), np.array([], dtype=np.int64), np.array([1, 1, 2, 0, 1])]]
    want = overlap.block_overlaps(blocks, [2], 6, True)
    monkeypatch.setattr(overlap, "RANK_TABLE_MAX", 0)
    got = overlap.block_overlaps(blocks, [2], 6, True)
    assert all(np.array_equal(a, b) for a, b in zip(got[0], want[0]))
    assert got[0][0][:, 0, 0].tolist() == [4, 3, 1, 0, 0, 0]  # worked by hand: 0 1 1 2 vs 1 1 2 0 1
    assert got[0][0][:, 1, 0].tolist() == [0] * 6  # the empty candidate


def test_char_ngram_features_equal_literal_on_cjk_and_spaces():
    """The BEER features through the family hook (sort-free counts) against the literal
    :func:`char_ngram_prf` (Counters of substrings), CJK and repeated characters included."""
    from evalcore.metrics.charngram import char_ngram_prf

    c = ["日本 語 日本", "aa aa", "", "x", "日本"]
    r = [["日本語", "本 日"], ["a a a"], ["a"], [""], ["日本", "日本"]]
    ms = [get_metric(f"charngram-{k}{n}") for k in "prf" for n in (1, 2, 3, 6)]
    got = type(ms[0]).family_segment_stats(ms, c, r)
    for m, g in zip(ms, got):
        want = [max(char_ngram_prf(m.tok(x), m.tok(y), m.n)["prf".index(m.measure)] for y in ys)
                for x, ys in zip(c, r)]
        assert g[:, 0].tolist() == want, m.id


def _literal_chunk_matches(texts, r_lo, r_hi, g_cand, cand_text, orders):
    """Σ_g min(count_c(g), count_r(g)) per (candidate, reference of its group) pair and order,
    with literal n-gram ``Counter``s (the oracle of :func:`overlap.chunk_matches`)."""
    def grams(t, n):
        return Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
    rows = []
    for q in range(len(r_lo)):
        for c in range(g_cand[q], g_cand[q + 1]):
            cand = texts[cand_text[c]]
            for r in range(r_lo[q], r_hi[q]):
                rows.append([sum((grams(cand, n) & grams(texts[r], n)).values()) for n in range(1, orders + 1)])
    return np.array(rows, dtype=np.int64).reshape(-1, orders)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 4)), min_size=1, max_size=5),
       st.integers(1, 4), st.data())
def test_chunk_matches_equal_literal_counts(groups, orders, data):
    """The hashed chunk kernel against literal Counters: small alphabets (many repeated
    n-grams, so long probe chains and counts above 1), empty texts, groups without candidates."""
    from evalcore.metrics.kernels.ngram import dense_ngram_ids

    text = st.lists(st.integers(0, 3), min_size=0, max_size=12)
    texts, r_lo, r_hi, g_cand, cand_text = [], [], [], [0], []
    for n_refs, n_cands in groups:
        r_lo.append(len(texts))
        texts.extend(data.draw(text) for _ in range(n_refs))
        r_hi.append(len(texts))
        for _ in range(n_cands):
            cand_text.append(len(texts))
            texts.append(data.draw(text))
        g_cand.append(len(cand_text))
    lens = np.array([len(t) for t in texts], dtype=np.int64)
    offs = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    flat = np.array([x for t in texts for x in t], dtype=np.int64)
    arrays = [np.asarray(x, dtype=np.int64) for x in (r_lo, r_hi, g_cand, cand_text)]
    got = overlap.chunk_matches(dense_ngram_ids(flat, offs, orders), offs, *arrays)
    want = _literal_chunk_matches(texts, r_lo, r_hi, g_cand, cand_text, orders)
    assert got.shape == want.shape and np.array_equal(got, want)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(0, 4)), min_size=1, max_size=5),
       st.integers(1, 4), st.data())
def test_maxref_matches_equal_literal_counts(groups, orders, data):
    """BLEU's hashed clipping kernel against literal Counters: Σ_g min(count_c(g), max over the
    group's references of count_r(g)) (Papineni et al. 2002, §2.1), per candidate and order."""
    from evalcore.metrics.kernels.ngram import dense_ngram_ids

    def grams(t, n):
        return Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))

    text = st.lists(st.integers(0, 3), min_size=0, max_size=12)
    texts, r_lo, r_hi, g_cand, cand_text = [], [], [], [0], []
    want = []
    for n_refs, n_cands in groups:
        r_lo.append(len(texts))
        refs = [data.draw(text) for _ in range(n_refs)]
        texts.extend(refs)
        r_hi.append(len(texts))
        for _ in range(n_cands):
            cand = data.draw(text)
            cand_text.append(len(texts))
            texts.append(cand)
            row = []
            for n in range(1, orders + 1):
                most: Counter = Counter()
                for r in refs:
                    most |= grams(r, n)  # Counter union: the maximum count
                row.append(sum((grams(cand, n) & most).values()))
            want.append(row)
        g_cand.append(len(cand_text))
    lens = np.array([len(t) for t in texts], dtype=np.int64)
    offs = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    flat = np.array([x for t in texts for x in t], dtype=np.int64)
    arrays = [np.asarray(x, dtype=np.int64) for x in (r_lo, r_hi, g_cand, cand_text)]
    got = overlap.maxref_matches(dense_ngram_ids(flat, offs, orders), offs, *arrays)
    assert np.array_equal(got, np.array(want, dtype=np.int64).reshape(-1, orders))
