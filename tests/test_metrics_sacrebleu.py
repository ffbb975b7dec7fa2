"""sacreBLEU parity (spec §0.9) of bleu / bleu-n / bleus / chrf / chrf++ / ter, the spec §8.1
worked values and the n-gram breakdown. sacreBLEU 2.x is the oracle throughout."""
from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER
from sacrebleu.metrics.lib_ter import translation_edit_rate

from conftest import shared
from evalcore.metrics.base import Metric, get_metric
from evalcore.metrics.bleu import BLEU, tokenize_13a_words
from evalcore.metrics.chrf import CHRF
from evalcore.metrics.engine import ngram_breakdown
from evalcore.metrics.ter import TER, edits_block, kernel_available, pair_edits

TOL = 1e-9

LATIN = ["the", "The", "dog", "dogs", "walked", "a", "cat,", "(it)", "is", "raining.", "he", "took", "for",
         "walk", "don't", "U.S.", "3.5", "x-y", "\"quoted\"", "Walk!"]
HINDI = ["रोटी", "कपड़ा", "और", "मकान", "एक", "मनुष्य", "की", "बुनियादी", "ज़रूरत", "है", "।", "बारिश", "हो",
         "रही", "५४५", "सदस्य"]
CHINESE = ["我", "们", "今天", "去", "北京", "了", "。", "你好", "世界", "，", "中国", "人民", "dog", "3"]


def sentences(words, max_len=14):
    return st.lists(st.sampled_from(words), min_size=0, max_size=max_len).map(" ".join)


ANY_WORDS = LATIN + HINDI + CHINESE


def case(words, n_refs, max_len=14):
    """(candidate, refs) with the given number of references; empty texts happen."""
    return st.tuples(sentences(words, max_len), st.lists(sentences(words, max_len), min_size=n_refs, max_size=n_refs))


def corpus(words, n_refs):
    return st.lists(case(words, n_refs), min_size=1, max_size=6)


# ---- sentence level ------------------------------------------------------------------------
BLEU_CONFIGS = [
    dict(),
    dict(tokenize="intl"), dict(tokenize="char"), dict(tokenize="zh"), dict(tokenize="none"),
    dict(lowercase=True),
    dict(smooth_method="none"), dict(smooth_method="floor"), dict(smooth_method="floor", smooth_value=0.3),
    dict(smooth_method="add-k"), dict(smooth_method="add-k", smooth_value=2),
    dict(max_ngram_order=2), dict(max_ngram_order=6),
]


@pytest.mark.parametrize("cfg", BLEU_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_bleu_sentence_and_corpus_match_sacrebleu(cfg, data):
    n_refs = data.draw(st.integers(1, 3))
    cand, refs = data.draw(case(ANY_WORDS, n_refs))
    ours = BLEU(**cfg)
    # sentence level: sacreBLEU's sentence_bleu defaults = effective order on
    oracle = SBLEU(effective_order=True, **cfg)
    assert ours.sentence_score(cand, refs) == pytest.approx(oracle.sentence_score(cand, refs).score, abs=TOL)
    # corpus level: corpus_bleu defaults = effective order off
    rows = data.draw(corpus(ANY_WORDS, n_refs))
    hyps = [h for h, _ in rows]
    streams = [[r[k] for _, r in rows] for k in range(n_refs)]
    want = SBLEU(**cfg).corpus_score(hyps, streams).score
    assert ours.corpus_score(hyps, [r for _, r in rows]) == pytest.approx(want, abs=TOL)
    # sufficient statistics are sacreBLEU's own
    got_stats = ours.segment_stats(hyps, [r for _, r in rows])
    want_stats = np.array(SBLEU(**cfg)._extract_corpus_statistics(hyps, streams), dtype=float)
    np.testing.assert_array_equal(got_stats, want_stats)


@pytest.mark.parametrize("mid,oracle", [
    ("bleu", dict()), ("bleu-1", dict(max_ngram_order=1)), ("bleu-2", dict(max_ngram_order=2)),
    ("bleu-3", dict(max_ngram_order=3)), ("bleu-4", dict()),
    ("bleus", dict(smooth_method="add-k", smooth_value=1)),
])
@settings(max_examples=20, deadline=None)
@given(c=case(ANY_WORDS, 2))
def test_registered_bleu_variants(mid, oracle, c):
    cand, refs = c
    want = SBLEU(effective_order=True, **oracle).sentence_score(cand, refs).score
    assert get_metric(mid).sentence_score(cand, refs) == pytest.approx(want, abs=TOL)


CHRF_CONFIGS = [dict(), dict(word_order=2), dict(lowercase=True), dict(whitespace=True), dict(eps_smoothing=True),
                dict(beta=1), dict(char_order=4, word_order=1), dict(word_order=2, eps_smoothing=True)]


@pytest.mark.parametrize("cfg", CHRF_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_chrf_sentence_and_corpus_match_sacrebleu(cfg, data):
    n_refs = data.draw(st.integers(1, 3))
    cand, refs = data.draw(case(ANY_WORDS, n_refs))
    ours, oracle = CHRF(**cfg), SCHRF(**cfg)
    assert ours.sentence_score(cand, refs) == pytest.approx(oracle.sentence_score(cand, refs).score, abs=TOL)
    rows = data.draw(corpus(ANY_WORDS, n_refs))
    hyps = [h for h, _ in rows]
    streams = [[r[k] for _, r in rows] for k in range(n_refs)]
    assert ours.corpus_score(hyps, [r for _, r in rows]) == pytest.approx(
        SCHRF(**cfg).corpus_score(hyps, streams).score, abs=TOL)


TER_CONFIGS = [dict(), dict(case_sensitive=True), dict(normalized=True), dict(no_punct=True),
               dict(normalized=True, asian_support=True), dict(no_punct=True, asian_support=True)]


@pytest.mark.parametrize("cfg", TER_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default")
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_ter_sentence_and_corpus_match_sacrebleu(cfg, data):
    n_refs = data.draw(st.integers(1, 3))
    cand, refs = data.draw(case(ANY_WORDS, n_refs))
    ours, oracle = TER(**cfg), STER(**cfg)
    assert ours.sentence_score(cand, refs) == pytest.approx(oracle.sentence_score(cand, refs).score, abs=TOL)
    rows = data.draw(corpus(ANY_WORDS, n_refs))
    hyps = [h for h, _ in rows]
    streams = [[r[k] for _, r in rows] for k in range(n_refs)]
    assert ours.corpus_score(hyps, [r for _, r in rows]) == pytest.approx(
        STER(**cfg).corpus_score(hyps, streams).score, abs=TOL)


needs_kernel = pytest.mark.skipif(not kernel_available(), reason="numba not installed: TER uses sacreBLEU's routine")


@needs_kernel
@settings(max_examples=60, deadline=None)
@given(h=st.lists(st.sampled_from("abcdefg"), max_size=60), r=st.lists(st.sampled_from("abcdefg"), max_size=60))
def test_compiled_tercom_equals_sacrebleu_routine(h, r):
    """Small alphabets and long sequences exercise shifts, ties and the beam."""
    assert pair_edits.__wrapped__(tuple(h), tuple(r)) == translation_edit_rate(h, r)[0]


@needs_kernel
def test_tercom_long_degenerate_pairs():
    rng = random.Random(7)
    for h_len, r_len in [(1, 110), (2, 120), (30, 0), (30, 2), (60, 45), (45, 60), (70, 70), (1, 1)]:
        h = [f"w{rng.randrange(4)}" for _ in range(h_len)]
        r = [f"w{rng.randrange(4)}" for _ in range(r_len)]
        assert pair_edits.__wrapped__(tuple(h), tuple(r)) == translation_edit_rate(h, r)[0]


@needs_kernel
def test_edits_block_equals_sacrebleu_routine():
    """The batched kernel (bit-parallel costs inside the beam, beam DP outside it) on long and
    very unequal lengths, against sacreBLEU's routine."""
    rng = random.Random(3)
    cs = [tuple(f"w{rng.randrange(5)}" for _ in range(n)) for n in (0, 5, 24, 31, 62)]
    rs = [tuple(f"w{rng.randrange(5)}" for _ in range(n)) for n in (3, 26, 58)]
    got = edits_block(cs, rs)
    for i, c in enumerate(cs):
        for j, r in enumerate(rs):
            assert got[i, j] == translation_edit_rate(list(c), list(r))[0], (len(c), len(r))


TOK_ALPHABET = list("ab1 2.,-&;<>\"'()!?:/[]{}~^_`@#$%*+=|\\\t\xa0\u3000\n") + ["&amp;", "&quot;", "&lt;",
                                                                                 "<skipped>", "ΟΔΟΣ", "0.5"]


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(TOK_ALPHABET), max_size=40).map("".join), lowercase=st.booleans())
def test_13a_word_by_word_equals_sacrebleu_tokenizer(text, lowercase):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    t = text.lower() if lowercase else text
    assert tokenize_13a_words(text, lowercase) == tuple(Tokenizer13a()(t.rstrip()).split())


def test_empty_candidate_and_reference():
    for mid, oracle in [("bleu", SBLEU(effective_order=True)), ("chrf", SCHRF()), ("chrf++", SCHRF(word_order=2)),
                        ("ter", STER())]:
        m = get_metric(mid)
        for cand, refs in [("", ["a b c"]), ("a b c", [""]), ("", [""]), ("", ["", "a"]), ("a b", ["", "a b"])]:
            assert m.sentence_score(cand, refs) == pytest.approx(oracle.sentence_score(cand, refs).score, abs=TOL)
        assert math.isnan(m.sentence_score("a b", []))
    # documented values: empty candidate scores 0 (BLEU, chrF) and 100 (TER, non-empty reference)
    assert get_metric("bleu").sentence_score("", ["a b c"]) == 0.0
    assert get_metric("chrf").sentence_score("", ["a b c"]) == 0.0
    assert get_metric("ter").sentence_score("", ["a b c"]) == 100.0


# ---- spec §8.1 -------------------------------------------------------------------------------
C, R = "he walked the dog", "he took the dog for a walk"


def test_spec_8_1_bleu2_and_bleus():
    bp = math.exp(1 - 7 / 4)
    assert bp == pytest.approx(0.472367, abs=1e-6)
    # BLEU with n <= 2: sqrt(3/4 · 1/3) = 0.5, × BP = 0.236183 (0-100 scale here)
    assert get_metric("bleu-2").sentence_score(C, [R]) == pytest.approx(100 * 0.5 * bp, abs=1e-9)
    assert get_metric("bleu-2").sentence_score(C, [R]) == pytest.approx(23.6183, abs=1e-4)
    # BLEUS-4: precisions 3/4, 2/4, 1/3, 1/2 -> geometric mean 0.5, × BP
    gm = (3 / 4 * 2 / 4 * 1 / 3 * 1 / 2) ** 0.25
    assert gm == pytest.approx(0.5)
    assert get_metric("bleus").sentence_score(C, [R]) == pytest.approx(100 * gm * bp, abs=1e-9)
    assert get_metric("ter").sentence_score(C, [R]) == pytest.approx(100 * 4 / 7, abs=1e-9)


def test_ngram_breakdown_against_sacrebleu_statistics():
    rng = random.Random(3)
    for _ in range(30):
        cand = " ".join(rng.choice(LATIN[:8]) for _ in range(rng.randint(0, 12)))
        refs = [" ".join(rng.choice(LATIN[:8]) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 3))]
        b = ngram_breakdown(cand, refs)
        sb = SBLEU(effective_order=True).sentence_score(cand, refs)
        assert [o["matched"] for o in b["orders"]] == list(sb.counts)
        assert [o["total"] for o in b["orders"]] == list(sb.totals)
        assert b["brevity_penalty"] == pytest.approx(sb.bp, abs=1e-12)
        assert b["ref_len"] == sb.ref_len and b["hyp_len"] == sb.sys_len
        p = [c / t if t else 0.0 for c, t in zip(sb.counts, sb.totals)]
        assert b["average_precision"] == pytest.approx(sum(p) / 4)
        assert b["bleu"] == pytest.approx(sb.score, abs=TOL)
        toks = b["cand_tokens"]
        for pr in b["per_reference"]:
            rt = b["ref_tokens"][pr["ref_index"]]
            rgrams = {tuple(rt[i:i + n]) for n in range(1, 5) for i in range(len(rt) - n + 1)}
            for n, spans in pr["matched_spans"].items():
                for a, e in spans:
                    assert e - a == n and tuple(toks[a:e]) in rgrams


def test_ngram_breakdown_seed_001_example():
    """Seed 001 §5.5 ("It is raining"): 4/5, 3/4, 2/3, 1/2 -> P = mean = 0.6792 (tokens as given)."""
    ref = "बारिश हो रही है"
    cand = "यह बारिश हो रही है"
    b = ngram_breakdown(cand, [ref])
    assert [(o["matched"], o["total"]) for o in b["orders"]] == [(4, 5), (3, 4), (2, 3), (1, 2)]
    assert b["average_precision"] == pytest.approx((4 / 5 + 3 / 4 + 2 / 3 + 1 / 2) / 4)
    assert b["per_reference"][0]["token_spans"] == [(1, 5)]


# ---- real data ------------------------------------------------------------------------------
def _wmt21(n=200):
    root = shared("wmt21_news_mqm")
    refs = pd.read_csv(root / "references.tsv", sep="\t", keep_default_na=False, dtype=str)
    outs = pd.read_csv(root / "outputs.tsv", sep="\t", keep_default_na=False, dtype=str)
    refs, outs = refs[refs["lp"] == "en-de"], outs[outs["lp"] == "en-de"]
    ref_w = refs.pivot(index="seg_id", columns="ref_id", values="text")
    sys_name = sorted(outs["system"].unique())[0]
    hyp = outs[outs["system"] == sys_name].set_index("seg_id")["text"]
    segs = [s for s in ref_w.index if s in hyp.index and all(ref_w.loc[s, r] != "" for r in ["ref-A", "ref-C", "ref-D"])]
    segs = sorted(segs, key=int)[:n]
    return [hyp[s] for s in segs], [[ref_w.loc[s, r] for s in segs] for r in ["ref-A", "ref-C", "ref-D"]]


@pytest.mark.parametrize("mid,oracle_sent,oracle_corp", [
    ("bleu", lambda: SBLEU(effective_order=True), lambda: SBLEU()),
    ("chrf", lambda: SCHRF(), lambda: SCHRF()),
    ("chrf++", lambda: SCHRF(word_order=2), lambda: SCHRF(word_order=2)),
    ("ter", lambda: STER(), lambda: STER()),
])
def test_wmt21_news_parity(mid, oracle_sent, oracle_corp):
    hyps, streams = _wmt21(200 if mid != "ter" else 80)
    m = get_metric(mid)
    refs = [list(r) for r in zip(*streams)]
    for k in (1, 3):
        got = m.sentence_scores(hyps, [r[:k] for r in refs])
        o = oracle_sent()
        want = [o.sentence_score(h, r[:k]).score for h, r in zip(hyps, refs)]
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
        assert m.corpus_score(hyps, [r[:k] for r in refs]) == pytest.approx(
            oracle_corp().corpus_score(hyps, streams[:k]).score, abs=TOL)


def test_wmt21_segment_block_equals_slow_loop():
    hyps, streams = _wmt21(12)
    for mid in ["bleu", "chrf++", "ter"]:
        m = get_metric(mid)
        for s in range(len(hyps)):
            refs = [st_[s] for st_ in streams]
            fast = m.segment_block([hyps[s]] + refs, refs)
            slow = Metric.segment_block(m, [hyps[s]] + refs, refs)
            np.testing.assert_allclose(fast[0], slow[0], rtol=0, atol=TOL)
            np.testing.assert_allclose(fast[1], slow[1], rtol=0, atol=TOL)
