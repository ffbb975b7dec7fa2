"""Compare two systems: significance equals sacreBLEU's paired tests; bucket tables,
word F-measure by frequency and characteristic n-grams equal literal implementations written
here; the length-bias partial correlation equals a regression-residual computation with
scipy; the sample's teaching phenomena show up; user text is escaped; the CLI writes every
table; the command runs on WMT21 en-de and WMT24 en-cs slices."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from conftest import ROOT, SAMPLE, shared

from evalcore.analysis import compare as C
from evalcore.core.dataset import Dataset
from evalcore.scoring.settings import DEFAULTS


@pytest.fixture(scope="module")
def sample():
    from evalcore.io import load_dataset

    return load_dataset(SAMPLE)


# ---------------------------------------------------------------------------------------------
# a tiny dataset for the literal checks
# ---------------------------------------------------------------------------------------------
SRC = ["el gato come pescado", "la casa es grande y vieja", "hoy llueve mucho en la ciudad",
       "el perro duerme", "la casa del gato es roja", "mañana iremos a la playa con el perro"]
REF1 = ["the cat eats fish", "the house is big and old", "today it rains a lot in the city",
        "the dog sleeps", "the cat 's house is red", "tomorrow we will go to the beach with the dog"]
REF2 = ["the cat is eating fish", "the house is large and old", "it is raining hard in the city today",
        "the dog is sleeping", "the house of the cat is red", "tomorrow we go to the beach with the dog"]
OUT_A = ["the cat eats fish", "the house is big and old", "today rains much in the city",
         "the dog sleeps sleeps", "the house of cat is red", "tomorrow we will go to beach"]
OUT_B = ["cat eat the fish", "the home is large and ancient", "it is raining a lot in the city today",
         "the dog sleeps", "the cat house red", "tomorrow we will go to the beach with the dog"]
HUMAN_A = [5, 5, 3, 3, 4, 3]
HUMAN_B = [3, 4, 5, 5, 2, 5]


def _tiny() -> Dataset:
    segs = pd.DataFrame({"seg_id": [str(i + 1) for i in range(6)],
                         "doc_id": ["d1", "d1", "d1", "d2", "d2", "d2"], "source": SRC})
    refs = pd.DataFrame([(str(i + 1), rid, t) for rid, texts in (("r1", REF1), ("r2", REF2))
                         for i, t in enumerate(texts)], columns=["seg_id", "ref_id", "text"])
    outs = pd.DataFrame([(name, str(i + 1), t) for name, texts in (("A", OUT_A), ("B", OUT_B))
                         for i, t in enumerate(texts)], columns=["system", "seg_id", "text"])
    jud = pd.DataFrame([(name, str(i + 1), "r", "adequacy", float(v)) for name, vals in (("A", HUMAN_A), ("B", HUMAN_B))
                        for i, v in enumerate(vals)], columns=["system", "seg_id", "rater", "judgement", "score"])
    tags = pd.DataFrame([("A", "4", "pleonasm"), ("A", "6", "omission"), ("B", "1", "word-order"),
                         ("B", "5", "omission")], columns=["system", "seg_id", "tag"])
    return Dataset("tiny", "es-en", segs, refs, outs, jud, tags)


@pytest.fixture(scope="module")
def tiny():
    ds = _tiny()
    return C.build(ds, "A", "B", ["bleu", "ter"], ["adequacy"])


def _tok(text):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()(text).split()


# ---------------------------------------------------------------------------------------------
# headline: significance equals sacreBLEU's paired tests
# ---------------------------------------------------------------------------------------------
def test_headline_equals_sacrebleu_paired_tests(sample):
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    a, b = "pleonastic", "near-human"
    cmp = C.build(sample, a, b, ["bleu", "chrf"], [])
    texts = sample.sys_texts()
    refs = [sample.ref_texts()[r] for r in sample.ref_ids]
    assert all(t is not None for r in refs for t in r)
    for test_type, col, n in (("bs", "p_bootstrap", 200), ("ar", "p_ar", 250)):
        if test_type == "bs":
            head = C.headline(cmp, n_bootstrap=n, n_ar=0).set_index("signal")
        else:
            head = C.headline(cmp, n_bootstrap=0, n_ar=n).set_index("signal")
        _, res = PairedTest([(a, texts[a]), (b, texts[b])], {"BLEU": BLEU(), "chrF": CHRF()}, refs,
                            test_type=test_type, n_samples=n)()
        assert list(res) == ["System", "BLEU", "chrF2"]  # sacreBLEU names chrF by its beta
        for ours, theirs in (("metric:bleu", "BLEU"), ("metric:chrf", "chrF2")):
            ref_a, ref_b = res[theirs]
            assert head.loc[ours, "score_a"] == pytest.approx(ref_a.score, abs=1e-9)
            assert head.loc[ours, "score_b"] == pytest.approx(ref_b.score, abs=1e-9)
            assert head.loc[ours, col] == pytest.approx(ref_b.p_value, abs=1e-12)


def test_metrics_added_to_a_human_comparison_equal_one_build(sample):
    """The page shows the human comparison first and adds the metrics (with_metrics): the same
    columns, statistics and headline as one build; sentence scores equal the metric's own
    sentence_scores (computed from the same statistics, not twice)."""
    from evalcore.metrics.base import get_metric

    a, b = "pleonastic", "near-human"
    one = C.build(sample, a, b, ["bleu", "chrf", "ter"], sample.criteria)
    first = C.build(sample, a, b, [], sample.criteria)
    assert first.metrics == [] and first.signals == [f"human:{c}" for c in sample.criteria]
    two = C.with_metrics(first, ["bleu", "chrf", "ter"])
    assert two.signals == one.signals
    pd.testing.assert_frame_equal(two.segments[one.segments.columns], one.segments)
    for m in one.metrics:
        for x, y in zip(one.stats[m], two.stats[m]):
            np.testing.assert_array_equal(x, y)
        metric = get_metric(m)
        f = one.segments[one.segments["has_ref"]]
        refs = [[sample.ref_texts()[r][sample.seg_ids.index(s)] for r in sample.ref_ids
                 if sample.ref_texts()[r][sample.seg_ids.index(s)] is not None] for s in f["seg_id"]]
        np.testing.assert_allclose(f[f"a|metric:{m}"], metric.sentence_scores(list(f["text_a"]), refs), atol=1e-9)
    pd.testing.assert_frame_equal(C.headline(two, 50, 50), C.headline(one, 50, 50))


def test_headline_of_a_mean_metric_is_the_mean_sentence_score(sample):
    """ROUGE-L's corpus score is the mean of its sentence scores: the headline and the buckets
    show that mean (they showed the sum over the segments before)."""
    from evalcore.metrics.base import get_metric

    a, b = "pleonastic", "near-human"
    cmp = C.build(sample, a, b, ["rouge-l"], [])
    f = cmp.segments[cmp.segments["has_ref"]]
    refs = [[sample.ref_texts()[r][sample.seg_ids.index(s)] for r in sample.ref_ids
             if sample.ref_texts()[r][sample.seg_ids.index(s)] is not None] for s in f["seg_id"]]
    want = get_metric("rouge-l").sentence_scores(list(f["text_b"]), refs).mean()
    head = C.headline(cmp, 20, 20).set_index("signal")
    assert head.loc["metric:rouge-l", "score_b"] == pytest.approx(want, abs=1e-12)


def test_headline_human_scores_and_winner(tiny):
    head = C.headline(tiny, n_bootstrap=200, n_ar=200).set_index("signal")
    assert head.loc["human:adequacy", "score_a"] == pytest.approx(np.mean(HUMAN_A))
    assert head.loc["human:adequacy", "score_b"] == pytest.approx(np.mean(HUMAN_B))
    # TER: lower is better, so "ahead" is the system with the lower TER
    ter = head.loc["metric:ter"]
    assert ter["ahead"] == ("A" if ter["score_a"] < ter["score_b"] else "B")
    assert set(head["winner"]) <= {"A", "B", "no significant difference"}
    # 6 segments: nothing is significant at 0.05 with AR of 200 trials for adequacy (2 vs 4 wins)
    assert head.loc["human:adequacy", "winner"] == "no significant difference"


# ---------------------------------------------------------------------------------------------
# buckets vs a literal implementation
# ---------------------------------------------------------------------------------------------
def _literal_bucket_rows(ds, rows, a_out, b_out):
    """corpus BLEU with sacreBLEU on the bucket's segments; wins by sacreBLEU sentence BLEU."""
    import sacrebleu

    ra = [REF1[i] for i in rows]
    rb = [REF2[i] for i in rows]
    sa = sacrebleu.corpus_bleu([a_out[i] for i in rows], [ra, rb]).score
    sb = sacrebleu.corpus_bleu([b_out[i] for i in rows], [ra, rb]).score
    aw = bw = 0
    for i in rows:
        x = sacrebleu.sentence_bleu(a_out[i], [REF1[i], REF2[i]]).score
        y = sacrebleu.sentence_bleu(b_out[i], [REF1[i], REF2[i]]).score
        aw += x > y
        bw += y > x
    return sa, sb, aw, bw


def test_length_buckets_equal_literal(tiny):
    cutoffs = (5, 7, 9)
    # literal: mean 13a length of the two references, then the bucket by explicit comparisons
    lens = [(len(_tok(REF1[i])) + len(_tok(REF2[i]))) / 2 for i in range(6)]

    def lab(x):
        if x < 5:
            return "< 5"
        if x < 7:
            return "[5, 7)"
        if x < 9:
            return "[7, 9)"
        return "≥ 9"
    expect = {}
    for i, x in enumerate(lens):
        expect.setdefault(lab(x), []).append(i)
    assert len(expect) >= 3  # the fixture spans several buckets
    table = C.bucket_table(tiny, C.length_buckets(tiny, cutoffs), "reference length")
    bleu = table[table["signal"] == "metric:bleu"].set_index("bucket")
    assert set(bleu.index) == set(expect)
    for label, rows in expect.items():
        sa, sb, aw, bw = _literal_bucket_rows(tiny.dataset, rows, OUT_A, OUT_B)
        r = bleu.loc[label]
        assert r["n_segments"] == len(rows)
        assert r["score_a"] == pytest.approx(sa) and r["score_b"] == pytest.approx(sb)
        assert (r["a_wins"], r["b_wins"]) == (aw, bw)
        assert r["a_win_rate"] == pytest.approx((aw + (len(rows) - aw - bw) / 2) / len(rows))
    hum = table[table["signal"] == "human:adequacy"].set_index("bucket")
    for label, rows in expect.items():
        assert hum.loc[label, "score_a"] == pytest.approx(np.mean([HUMAN_A[i] for i in rows]))
        assert hum.loc[label, "a_wins"] == sum(HUMAN_A[i] > HUMAN_B[i] for i in rows)


def test_source_frequency_tag_and_document_buckets_equal_literal(tiny):
    # literal median frequency of the lower-cased source tokens over the whole test set
    counts = Counter(t.lower() for s in SRC for t in _tok(s))
    med = [float(np.median([counts[t.lower()] for t in _tok(s)])) for s in SRC]
    got = C.source_frequency(tiny)
    assert got.tolist() == med
    buckets = dict((k, v.nonzero()[0].tolist()) for k, v in C.source_frequency_buckets(tiny, (2, 3)))
    want: dict = {}
    for i, m in enumerate(med):
        want.setdefault("< 2" if m < 2 else ("[2, 3)" if m < 3 else "≥ 3"), []).append(i)
    assert buckets == want
    tags = dict((k, v.nonzero()[0].tolist()) for k, v in C.tag_buckets(tiny))
    assert tags == {"A: omission": [5], "A: pleonasm": [3], "B: omission": [4], "B: word-order": [0]}
    docs = C.bucket_table(tiny, C.document_buckets(tiny), "document")
    d2 = docs[(docs["bucket"] == "d2") & (docs["signal"] == "metric:bleu")].iloc[0]
    sa, sb, aw, bw = _literal_bucket_rows(tiny.dataset, [3, 4, 5], OUT_A, OUT_B)
    assert (d2["score_a"], d2["score_b"], d2["a_wins"], d2["b_wins"]) == (pytest.approx(sa), pytest.approx(sb), aw, bw)
    # TER is an error rate: a win is a lower sentence TER
    import sacrebleu

    ter = docs[(docs["bucket"] == "d1") & (docs["signal"] == "metric:ter")].iloc[0]
    t = [(sacrebleu.sentence_ter(OUT_A[i], [REF1[i], REF2[i]]).score,
          sacrebleu.sentence_ter(OUT_B[i], [REF1[i], REF2[i]]).score) for i in range(3)]
    assert ter["a_wins"] == sum(x < y for x, y in t) and ter["b_wins"] == sum(y < x for x, y in t)


def test_word_f_by_frequency_equals_literal(tiny):
    cutoffs = (1, 2, 4)
    freq = Counter(t for r in REF1 + REF2 for t in _tok(r))

    def lab(f):
        if f == 0:
            return "0 (not in any reference)"
        return "< 1" if f < 1 else "[1, 2)" if f < 2 else "[2, 4)" if f < 4 else "≥ 4"
    want = {}
    for side, outs in (("A", OUT_A), ("B", OUT_B)):
        acc: dict = {}
        for i in range(6):
            o = _tok(outs[i])
            for ref in (REF1[i], REF2[i]):
                r = _tok(ref)
                for w in set(o) | set(r):
                    cell = acc.setdefault(lab(freq[w]), [0, 0, 0])
                    cell[0] += min(o.count(w), r.count(w))
                    cell[1] += o.count(w)
                    cell[2] += r.count(w)
        for k, (m, no, nr) in acc.items():
            p = m / no if no else float("nan")
            rc = m / nr if nr else float("nan")
            f = float("nan") if (math.isnan(p) or math.isnan(rc)) else (2 * p * rc / (p + rc) if p + rc else 0.0)
            want[(side, k)] = (m, no, nr, p, rc, f)
    got = C.word_f_by_frequency(tiny, cutoffs)
    assert len(got) == len(want)
    for r in got.itertuples():
        m, no, nr, p, rc, f = want[(r.side, r.frequency)]
        assert (r.matched, r.output_words, r.reference_words) == (m, no, nr)
        for x, y in ((r.precision, p), (r.recall, rc), (r.f_measure, f)):
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y)


def test_characteristic_ngrams_equal_literal(tiny):
    # literal: every n-gram as a tuple, counted with list.count, clipped by the max reference count
    def grams(toks, n):
        return [tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)]
    ma: Counter = Counter()
    mb: Counter = Counter()
    for i in range(6):
        refs = [_tok(REF1[i]), _tok(REF2[i])]
        for n in range(1, 5):
            rg = [grams(r, n) for r in refs]
            for outs, acc in ((OUT_A, ma), (OUT_B, mb)):
                og = grams(_tok(outs[i]), n)
                for g in set(og):
                    best = max(r.count(g) for r in rg)
                    if best:
                        acc[g] += min(og.count(g), best)
    keys = [g for g in set(ma) | set(mb) if ma[g] + mb[g] > 0]
    s = {g: (ma[g] + 1) / (ma[g] + mb[g] + 2) for g in keys}
    top_a = sorted(keys, key=lambda g: (-s[g], -(ma[g] + mb[g]), " ".join(g)))[:5]
    top_b = sorted(keys, key=lambda g: (s[g], -(ma[g] + mb[g]), " ".join(g)))[:5]
    got = C.characteristic_ngrams(tiny, top=5)
    ga = got[got["favours"] == "A"]
    gb = got[got["favours"] == "B"]
    assert len(ga) == 5 and len(gb) == 5
    assert ga["ngram"].tolist() == [" ".join(g) for g in top_a if s[g] > 0.5]
    assert gb["ngram"].tolist() == [" ".join(g) for g in top_b if s[g] < 0.5]
    for r in got.itertuples():
        g = tuple(r.ngram.split(" "))
        assert (r.matches_a, r.matches_b) == (ma[g], mb[g])
        assert r.score == pytest.approx(s[g])
    # "the beach with the" is matched by B (segment 6) only
    row = got[got["ngram"] == "the beach with the"]
    assert len(row) == 0 or (row["favours"].iloc[0] == "B" and row["examples"].iloc[0] == "6")


# ---------------------------------------------------------------------------------------------
# length bias: partial correlation vs regression residuals + scipy
# ---------------------------------------------------------------------------------------------
def _residual_partial(x, y, z):
    X = np.c_[np.ones_like(z), z]
    rx = x - X @ np.linalg.lstsq(X, x, rcond=None)[0]
    ry = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
    return scipy.stats.pearsonr(rx, ry)[0]


def test_partial_correlation_equals_regression_residuals():
    rng = np.random.default_rng(3)
    z = rng.normal(size=80)
    x = 0.6 * z + rng.normal(size=80)
    y = -0.4 * z + 0.3 * x + rng.normal(size=80)
    r, p, n = C.partial_correlation(x, y, z)
    assert n == 80 and r == pytest.approx(_residual_partial(x, y, z), abs=1e-10)
    # p equals the t test of x's coefficient in the regression of y on (1, x, z) (n − 3 df)
    X = np.c_[np.ones(80), x, z]
    beta, rss, *_ = np.linalg.lstsq(X, y, rcond=None)
    s2 = rss[0] / (80 - 3)
    se = math.sqrt(s2 * np.linalg.inv(X.T @ X)[1, 1])
    assert p == pytest.approx(2 * scipy.stats.t.sf(abs(beta[1] / se), 80 - 3), rel=1e-8)


def test_length_bias_equals_residual_partial_correlation(sample):
    cmp = C.build(sample, "dropped-content", "pleonastic", ["bleu", "chrf"], ["adequacy"])
    lb = C.length_bias(cmp, "adequacy").set_index("metric")
    f = cmp.segments
    ratio = np.r_[f["len_a"] / f["ref_len"], f["len_b"] / f["ref_len"]]
    hum = np.r_[f["a|human:adequacy"], f["b|human:adequacy"]]
    for m in ("bleu", "chrf"):
        score = np.r_[f[f"a|metric:{m}"], f[f"b|metric:{m}"]]
        assert lb.loc[m, "n_points"] == 66
        assert lb.loc[m, "partial_r"] == pytest.approx(_residual_partial(score, ratio, hum), abs=1e-10)
        assert lb.loc[m, "r_length"] == pytest.approx(scipy.stats.pearsonr(score, ratio)[0], abs=1e-10)
    lr = C.length_ratios(cmp).set_index("system")
    toks = lambda t: len(_tok(t))
    out_tokens = sum(toks(t) for t in sample.sys_texts()["dropped-content"])
    assert lr.loc["dropped-content", "output_tokens"] == out_tokens
    # dropped-content omits clauses: its outputs are shorter than the references'
    assert lr.loc["dropped-content", "length_ratio"] < lr.loc["pleonastic", "length_ratio"]


# ---------------------------------------------------------------------------------------------
# the sample's teaching phenomena (sample_data/README.md)
# ---------------------------------------------------------------------------------------------
def test_sample_phenomena_show_up(sample):
    # synonyms: lowest BLEU yet better adequacy than literal -> metrics and humans disagree
    cmp = C.build(sample, "synonyms", "literal", ["bleu"], ["adequacy"])
    head = C.headline(cmp, n_bootstrap=200, n_ar=200).set_index("signal")
    assert head.loc["metric:bleu", "winner"] == "literal"
    assert head.loc["human:adequacy", "winner"] == "synonyms"
    tag = C.bucket_table(cmp, C.tag_buckets(cmp), "tag").set_index(["bucket", "signal"])
    row = ("A: synonym-absent-from-refs", "human:adequacy")
    assert tag.loc[row, "a_win_rate"] > 0.5 > tag.loc[("A: synonym-absent-from-refs", "metric:bleu"), "a_win_rate"]
    dres = C.disagreements(cmp, "metric:bleu", "human:adequacy")
    dis = dres.table
    f = cmp.segments[[f"{s}|{x}" for s in "ab" for x in ("metric:bleu", "human:adequacy")]].to_numpy(float)
    assert dres.n_compared == int(np.isfinite(f).all(axis=1).sum()) >= len(dis)  # segments with both signals
    assert len(dis) > 5 and set(dis["metric_prefers"]) == {"literal"}
    # pleonastic: inserted negations keep n-gram overlap but lose every human comparison
    cmp2 = C.build(sample, "pleonastic", "near-human", ["chrf"], ["adequacy"])
    t2 = C.bucket_table(cmp2, C.tag_buckets(cmp2), "tag").set_index(["bucket", "signal"])
    assert t2.loc[("A: negation-inserted", "human:adequacy"), "a_win_rate"] == 0.0
    h2 = C.headline(cmp2, n_bootstrap=200, n_ar=200).set_index("signal")
    assert h2.loc["metric:chrf", "ahead"] == "pleonastic" and h2.loc["human:adequacy", "winner"] == "near-human"


# ---------------------------------------------------------------------------------------------
# side by side: word diff and escaping
# ---------------------------------------------------------------------------------------------
def test_word_diff_and_escaped_html():
    from evalcore.present.highlight import diff_html

    da, db = C.word_diff("the cat <script>alert(1)</script> sat", "the dog sat")
    assert [t for t, same in da if not same] == ["cat", "<script>alert(1)</script>"]
    assert [t for t, same in db if not same] == ["dog"]
    html = diff_html(da, C.COLOURS["a"], "A <b>")
    assert "<script>" not in html and "&lt;script&gt;" in html and "<b>" not in html
    assert html.count("<span") == 2


def test_side_by_side_on_hostile_text():
    from evalcore.io import load_dataset

    ds = load_dataset(ROOT / "sample_data" / "xss_es_en")
    a, b = ds.systems[:2]
    cmp = C.build(ds, a, b, ["bleu"], [])
    sbs = C.side_by_side(cmp, cmp.segments["seg_id"].iloc[0])
    assert sbs["detail_a"]["references"] and sbs["scores"]["signal"].tolist() == ["metric:bleu"]


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------
class _Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _cli(*args):
    """``python -m evalcore compare ...`` in-process (the CLI's own entry point, no interpreter start-up)."""
    import contextlib
    import io

    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["compare", *args])
    return _Run(rc, out.getvalue(), err.getvalue())


def test_cli_writes_every_table(tmp_path):
    out = tmp_path / "cmp"
    r = _cli(str(SAMPLE), "--a", "synonyms", "--b", "literal", "--metrics", "bleu,chrf", "--human", "adequacy",
             "--bootstrap", "100", "--ar", "100", "--out", str(out))
    assert r.returncode == 0, r.stderr
    head = pd.read_csv(pd.io.common.StringIO(r.stdout), sep="\t")
    assert head["signal"].tolist() == ["metric:bleu", "metric:chrf", "human:adequacy"]
    for name in ("headline", "segments", "disagreements", "buckets", "word_f_by_frequency", "characteristic_ngrams",
                 "length_ratios", "length_bias"):
        t = pd.read_csv(out / f"{name}.tsv", sep="\t", keep_default_na=False)
        assert len(t) and "signature" in t.columns, name
        assert "tok:13a" in t["signature"].iloc[0]
    b = pd.read_csv(out / "buckets.tsv", sep="\t")
    assert {"reference length", "source-word frequency", "phenomenon tag", "document"} <= set(b["bucket_type"])


def test_cli_tokenize_reaches_the_metrics(tmp_path):
    r = _cli(str(SAMPLE), "--a", "synonyms", "--b", "literal", "--metrics", "bleu", "--human", "none",
             "--bootstrap", "0", "--ar", "0", "--tokenize", "char")
    assert r.returncode == 0, r.stderr
    import sacrebleu

    head = pd.read_csv(pd.io.common.StringIO(r.stdout), sep="\t")
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    refs = [ds.ref_texts()[x] for x in ds.ref_ids]
    want = sacrebleu.corpus_bleu(ds.sys_texts()["synonyms"], refs, tokenize="char").score
    assert head["score_a"].iloc[0] == pytest.approx(want, abs=1e-5)
    assert "tok:char" in head["signature"].iloc[0]
    # without --tokenize: chosen from the target language, and said so
    assert [C.default_tokenizer(lp)[0] for lp in ("en-zh", "en-ja", "en-ko", "en-de", "")] == [
        "zh", "ja-mecab", "ko-mecab", "13a", "13a"]  # sacreBLEU's BLEU._TOKENIZER_MAP
    r = _cli(str(SAMPLE), "--a", "synonyms", "--b", "literal", "--metrics", "bleu", "--human", "none",
             "--bootstrap", "0", "--ar", "0")
    assert r.returncode == 0 and "note: tokenizer 13a" in r.stderr


def test_cli_bad_input_exits_2(tmp_path):
    r = _cli(str(SAMPLE), "--a", "nope", "--b", "literal")
    assert r.returncode == 2 and "'nope' has no outputs" in r.stderr
    f = tmp_path / "file.txt"
    f.write_text("x")
    r = _cli(str(SAMPLE), "--a", "synonyms", "--b", "literal", "--out", str(f))
    assert r.returncode == 2 and "not a folder" in r.stderr
    assert f.read_text() == "x"


# ---------------------------------------------------------------------------------------------
# real data (small slices)
# ---------------------------------------------------------------------------------------------
def _slice(ds, n):
    from evalcore.scoring.defaults import scoped

    return scoped(ds, n)


def test_wmt21_news_en_de():
    from evalcore.io import load_dataset

    ds = _slice(load_dataset(shared("wmt21_news_mqm"), lp="en-de"), 50)
    a, b = ds.systems[:2]
    cmp = C.build(ds, a, b, ["bleu", "chrf"], ["mqm"])
    assert len(ds.ref_ids) >= 2 and cmp.segments["n_refs"].max() >= 2  # several references per segment
    head = C.headline(cmp, n_bootstrap=100, n_ar=100)
    assert head["signal"].tolist() == ["metric:bleu", "metric:chrf", "human:mqm"]
    assert np.isfinite(head["p_bootstrap"]).all()
    assert len(C.length_bias(cmp, "mqm")) == 2


def test_wmt24_esa_en_cs_domains():
    from evalcore.io import load_dataset

    ds = _slice(load_dataset(shared("wmt24_esa"), lp="en-cs"), 120)
    a, b = ds.systems[:2]
    cmp = C.build(ds, a, b, ["chrf"], ["esa"])
    b_ = C.all_buckets(cmp)
    assert "domain" in set(b_["bucket_type"])
    assert set(b_[b_["bucket_type"] == "domain"]["bucket"]) <= {"news", "social", "speech", "literary"}
    assert any("judged for both" in n for n in cmp.notes) or cmp.segments["a|human:esa"].notna().all()


# ---------------------------------------------------------------------------------------------
# the page (Streamlit AppTest)
# ---------------------------------------------------------------------------------------------
FAST_PAGE = {"cmp_boot": 100, "cmp_ar": 100}


def test_compare_page_on_the_sample():
    from test_pages import _charts, _frame, _open

    at = _open("compare", {**FAST_PAGE, "cmp_a": "synonyms", "cmp_b": "literal", "cmp_metrics": ["bleu", "chrf"]})
    assert at.title[0].value == "Compare two systems"
    head = _frame(at, "winner").set_index("signal")
    assert head.loc["metric:bleu", "winner"] == "literal" and head.loc["human:adequacy", "winner"] == "synonyms"
    assert len(_charts(at)) >= 6  # win rates, scatter, histogram, buckets, word F, length bias
    # the disagreement table opens the side-by-side view: both outputs, every reference for each
    dis = _frame(at, "humans_prefer")
    assert len(dis) == 20 and set(dis["metric_prefers"]) == {"literal"}
    pick = dis["seg_id"].iloc[3]
    at.selectbox(key="cmp_dis_pick").set_value(pick).run()
    assert not at.exception
    assert any(f"Source &#40;segment {pick}&#41;" in m.value for m in at.markdown)  # escaped label
    assert sum("output vs " in m.value for m in at.markdown) == 12  # 6 references × 2 systems
    # buckets by phenomenon tag
    at.selectbox(key="cmp_bucket_kind").set_value("phenomenon tag").run()
    assert not at.exception
    buckets = _frame(at, "a_win_rate")
    assert "A: synonym-absent-from-refs" in set(buckets["bucket"])
    # changing the signal of the scatter changes the figure
    at.selectbox(key="cmp_signal").set_value("human:adequacy").run()
    assert not at.exception
    assert any("human:adequacy per segment" in json_title(c) for c in _charts(at))
    # the same system twice: a warning, not an error
    at.selectbox(key="cmp_b").set_value("synonyms").run()
    assert not at.exception and any("two different" in w.value for w in at.warning)


def test_compare_page_shows_the_headline_before_scoring_the_metrics(monkeypatch, tmp_path):
    """The human rows of the headline are drawn before any metric is scored, then the
    table grows metric by metric; the other tables are computed only after the headline."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))  # nothing kept on disk by an earlier test
    import streamlit as st
    from streamlit.delta_generator import DeltaGenerator

    from test_pages import _open

    events = []
    real_with, real_table, real_df = C.with_metrics, C.table, DeltaGenerator.dataframe

    def with_metrics(cmp, metrics, *a, **k):
        events.append(("score", tuple(metrics)))
        return real_with(cmp, metrics, *a, **k)

    def table(cmp, name, *a, **k):
        events.append(("table", name))
        return real_table(cmp, name, *a, **k)

    def dataframe(self, data=None, *a, **k):
        if isinstance(data, pd.DataFrame) and "winner" in data.columns:
            events.append(("headline shown", tuple(data["signal"])))
        return real_df(self, data, *a, **k)

    monkeypatch.setattr(C, "with_metrics", with_metrics)
    monkeypatch.setattr(C, "table", table)
    monkeypatch.setattr(DeltaGenerator, "dataframe", dataframe)
    st.cache_data.clear()
    st.cache_resource.clear()
    _open("compare", {**FAST_PAGE, "cmp_a": "synonyms", "cmp_b": "literal", "cmp_metrics": ["bleu", "chrf"]})
    shown = [e for e in events if e not in (("table", "headline"), ("score", ()))]  # (build adds no metric)
    humans = ("human:adequacy", "human:fluency")
    assert shown[:5] == [("headline shown", humans), ("score", ("bleu",)),
                         ("headline shown", ("metric:bleu", *humans)), ("score", ("chrf",)),
                         ("headline shown", ("metric:bleu", "metric:chrf", *humans))], events
    first_other = next(i for i, e in enumerate(events) if e[0] == "table" and e[1] != "headline")
    assert all(e[0] != "score" for e in events[first_other:])


def json_title(chart: dict) -> str:
    t = chart.get("layout", {}).get("title", {})
    return t.get("text", "") if isinstance(t, dict) else str(t)


def test_compare_page_escapes_user_text(tmp_path, monkeypatch):
    from test_pages import _open

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    from evalcore.io import workspace
    from evalcore.io import load_collection

    workspace.save(load_collection(ROOT / "sample_data" / "xss_es_en"), "xss-cmp")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = _open("compare", {**FAST_PAGE, "dataset_label": label, "dataset_select": label})
    html = [m.value for m in at.markdown]
    assert any("&lt;script&gt;" in v for v in html)
    assert not any("<script" in v or "<img" in v for v in html)



def test_left_out_segments_and_missing_references_are_reported(sample):
    from evalcore.commands.compare import tables

    o = sample.outputs
    part = Dataset("p", sample.lp, sample.segments, sample.references,
                   o[~((o["system"] == "literal") & (o["seg_id"].astype(int) < 10))], sample.judgements, sample.tags)
    cmp = C.build(part, "synonyms", "literal", ["bleu"], ["adequacy"], DEFAULTS.with_(judged_only=False))  # (the notes of every segment)
    assert cmp.notes == ["9 of 33 segments left out: at least one of the two systems has no output there"]
    assert C.headline(cmp, 50, 50)["n_segments"].tolist() == [24, 24]
    bare = Dataset("n", sample.lp, sample.segments, outputs=sample.outputs, judgements=sample.judgements)
    cmp = C.build(bare, "synonyms", "literal", [], ["adequacy"])
    assert any("no compared segment has a reference" in n for n in cmp.notes)
    t = tables(cmp, 20, 20, "bootstrap", 0.05, 5)
    assert t["headline"]["signal"].tolist() == ["human:adequacy"]
    assert t["characteristic_ngrams"].empty and list(t["length_bias"].columns)[:2] == ["metric", "criterion"]


def test_judged_only_restricts_every_signal_to_the_same_segments():
    from evalcore.io import load_dataset

    ds = _slice(load_dataset(shared("wmt24_esa"), lp="en-cs"), 400)
    a, b = ds.systems[:2]
    cmp = C.build(ds, a, b, ["chrf"], ["esa"], require_judged=True)
    j = ds.judgements
    both = set(j[j["system"] == a]["seg_id"].astype(str)) & set(j[j["system"] == b]["seg_id"].astype(str))
    assert set(cmp.segments["seg_id"]) == both and len(both) < ds.n_segments
    assert any(n.startswith(f"judged segments only: {len(both)} of the") for n in cmp.notes)
    head = C.headline(cmp, 0, 0).set_index("signal")
    assert head.loc["metric:chrf", "n_segments"] == head.loc["human:esa", "n_segments"] == len(both)


def test_figures_use_webgl_for_big_scatters_and_escape_names():
    from evalcore.present import plots_compare as PC

    n = 1500
    seg = pd.DataFrame({"seg_id": [str(i) for i in range(n)], "metric:bleu A": np.linspace(0, 1, n),
                        "metric:bleu B": np.linspace(1, 0, n), "Δ metric:bleu": np.linspace(1, -1, n)})
    big = PC.scatter_ab(seg, "metric:bleu", "<b>x</b>", "y")
    assert big.data[0].type == "scattergl" and "<b>" not in big.layout.xaxis.title.text
    small = PC.scatter_ab(seg.head(50), "metric:bleu", "x", "y")
    assert small.data[0].type == "scatter"
    head = pd.DataFrame({"signal": ["metric:bleu"], "winner": ["y"]})
    wins = pd.DataFrame({"signal": ["metric:bleu"], "a_win_rate": [0.2], "a_wins": [1], "b_wins": [4], "ties": [0],
                         "n_segments": [5]})
    fig = PC.win_rates(wins, head, "x", "y")
    # each bar is in the colour of the system whose rate it shows, whoever won (B here)
    assert fig.data[0].marker.color == C.COLOURS["a"] and list(fig.data[0].x) == [0.2]
    assert fig.data[1].marker.color == C.COLOURS["b"] and abs(fig.data[1].x[0] - 0.8) < 1e-12
    assert list(fig.data[1].text) == ["y"] and fig.layout.barmode == "stack"


def test_segments_a_metric_refuses_are_left_out_for_both_systems():
    import sacrebleu

    from evalcore.metrics.base import MAX_ALIGN_TOKENS

    ds = _tiny()
    long = " ".join(["fish"] * (MAX_ALIGN_TOKENS + 5))
    outs = ds.outputs.copy()
    outs.loc[(outs["system"] == "A") & (outs["seg_id"] == "1"), "text"] = long
    ds = Dataset("long", ds.lp, ds.segments, ds.references, outs, ds.judgements, ds.tags)
    cmp = C.build(ds, "A", "B", ["ter", "bleu"], ["adequacy"])
    assert any(n.startswith("ter: 1 segment(s) left out for both systems") for n in cmp.notes)
    head = C.headline(cmp, 50, 50).set_index("signal")
    assert head.loc["metric:ter", "n_segments"] == 5 and head.loc["metric:bleu", "n_segments"] == 6
    # TER of B over the 5 kept segments, by sacreBLEU
    want = sacrebleu.corpus_ter(OUT_B[1:], [REF1[1:], REF2[1:]]).score
    assert head.loc["metric:ter", "score_b"] == pytest.approx(want, abs=1e-9)
    b = C.bucket_table(cmp, C.document_buckets(cmp), "document")
    assert b[(b["bucket"] == "d1") & (b["signal"] == "metric:ter")]["n_segments"].iloc[0] == 2
