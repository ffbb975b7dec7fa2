"""Learned metrics: PETs, features, BEER-style ranker, human-likeness classifier,
saving/loading and the CLI. Expected values are hand-derived (seed 002 Fig. 1, spec §8.1,
seed 004 §1.2) or come from brute-force / scipy / scikit-learn references written here."""
from __future__ import annotations

import itertools
import json
import random
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.core.dataset import Dataset
from evalcore.learned import pet
from evalcore.learned.features import (BEER_FEATURES, HUMANLIKE_FEATURES, alignment_permutation, beer_features,
                                       char_ngram_prf, greedy_align, humanlike_features, levenshtein, word_prf)
from evalcore.learned.funcwords import function_words


# ---- PETs --------------------------------------------------------------------------------
def test_pet_seed002_fig1a():
    # ⟨2,5,6,4,1,3⟩: 5,6 merge monotonically, then with 4 inverted ([4..6]); 2,[4..6],1,3
    # is the simple pattern ⟨2,4,1,3⟩ -> one prime root of arity 4.
    root = pet.canonical_pet((2, 5, 6, 4, 1, 3))
    assert root.kind == "prime" and root.pattern == (2, 4, 1, 3)
    kinds = [c.kind for c in root.children]
    assert kinds == ["leaf", "inv", "leaf", "leaf"]
    inv = root.children[1]
    assert [c.kind for c in inv.children] == ["mono", "leaf"]
    assert (inv.children[0].lo, inv.children[0].hi) == (5, 6)
    assert pet.count_pets((2, 5, 6, 4, 1, 3)) == 1
    f = pet.pet_features((2, 5, 6, 4, 1, 3))
    assert f == pytest.approx({"pet_count": 0.0, "pet_mono": 1 / 3, "pet_inv": 1 / 3,
                               "pet_arity4": 1 / 3, "pet_arity_gt4": 0.0})
    # discordant pairs: (2,1) (5,4)(5,1)(5,3) (6,4)(6,1)(6,3) (4,1)(4,3) = 9 of 15
    assert pet.kendall((2, 5, 6, 4, 1, 3)) == pytest.approx(1 - 9 / 15)


def test_pet_seed002_fig1bc_4321():
    # every binary bracketing of 4 leaves is a valid inverted tree: Catalan(3) = 5 PETs
    # (seed 002 shows 2 of them as Fig. 1b/1c).
    p = (4, 3, 2, 1)
    assert pet.count_pets(p) == 5
    root = pet.canonical_pet(p)  # canonical = left-branching
    assert root.bracketed() == "⟨2,1⟩(⟨2,1⟩(⟨2,1⟩(4 3) 2) 1)"
    assert pet.collapse(root).bracketed() == "⟨4,3,2,1⟩(4 3 2 1)"
    assert pet.pet_features(p) == pytest.approx({"pet_count": 1.0, "pet_mono": 0.0, "pet_inv": 1.0,
                                                 "pet_arity4": 0.0, "pet_arity_gt4": 0.0})
    assert pet.kendall(p) == 0.0


def test_pet_special_cases_and_small():
    assert pet.pet_count_feature((1,)) == 1.0
    assert pet.pet_count_feature((1, 2)) == 1.0
    assert pet.pet_count_feature((2, 1)) == 0.0
    assert pet.pet_count_feature(()) == 0.0
    assert pet.kendall(()) == 0.0
    # ⟨1,3,2,4⟩: collapsed mono(1, inv(3,2), 4) -> Catalan(2) = 2 PETs; (2-1)/(C(3)-1) = 1/4
    assert pet.count_pets((1, 3, 2, 4)) == 2
    assert pet.pet_count_feature((1, 3, 2, 4)) == pytest.approx(0.25)
    # ⟨2,4,1,3⟩ is simple: one prime node of arity 4
    assert pet.node_type_ratios((2, 4, 1, 3))["pet_arity4"] == 1.0
    # a simple permutation of arity 5
    assert pet.node_type_ratios((2, 5, 3, 1, 4))["pet_arity_gt4"] == 1.0
    with pytest.raises(ValueError):
        pet.canonical_pet((1, 1, 2))


def _is_range(vals) -> bool:
    return max(vals) - min(vals) + 1 == len(vals)


def _brute_pet_count(p) -> int:
    """Count permutation trees literally: every internal node covers a span whose values form
    a contiguous range, and its children either are 2 or form a simple pattern (no proper run
    of 2..k-1 consecutive children covers a contiguous range)."""
    n = len(p)

    def count(i, j):
        if j - i == 1:
            return 1
        total = 0
        for cuts in itertools.product([0, 1], repeat=j - i - 1):
            bounds = [i] + [i + 1 + k for k, c in enumerate(cuts) if c] + [j]
            blocks = [p[a:b] for a, b in zip(bounds, bounds[1:])]
            if len(blocks) < 2 or not all(_is_range(b) for b in blocks):
                continue
            k = len(blocks)
            if k > 2:
                if any(_is_range([v for b in blocks[s:s + L] for v in b])
                       for L in range(2, k) for s in range(0, k - L + 1)):
                    continue
            prod = 1
            for a, b in zip(bounds, bounds[1:]):
                prod *= count(a, b)
            total += prod
        return total

    return count(0, n) if n else 1


def _brute_binary_bracketings(p) -> int:
    """Binary bracketings whose every node merges two contiguous value ranges."""
    def count(i, j):
        if j - i == 1:
            return 1
        if not _is_range(p[i:j]):
            return 0
        return sum(count(i, k) * count(k, j) for k in range(i + 1, j)
                   if _is_range(p[i:k]) and _is_range(p[k:j]))
    return count(0, len(p))


def _strong_intervals(p) -> set:
    n = len(p)
    ivs = [(a, b) for a in range(n) for b in range(a + 2, n + 1) if _is_range(p[a:b])]
    def overlap(x, y):
        return x[0] < y[0] < x[1] < y[1] or y[0] < x[0] < y[1] < x[1]
    return {x for x in ivs if not any(overlap(x, y) for y in ivs)}


def test_pet_count_matches_brute_force_on_random_permutations():
    rng = random.Random(7)
    perms = [tuple(rng.sample(range(1, n + 1), n)) for n in range(1, 8) for _ in range(12)]
    perms += [(1, 2, 3, 4, 5, 6), (6, 5, 4, 3, 2, 1), (2, 4, 1, 3, 6, 5), (3, 1, 4, 2, 5, 7, 6)]
    for p in perms:
        assert pet.count_pets(p) == _brute_pet_count(p), p
        if _brute_binary_bracketings(p):  # binarisable: the count is the binary bracketings
            assert pet.count_pets(p) == _brute_binary_bracketings(p), p
        root = pet.canonical_pet(p)
        if len(p) >= 2:
            # the collapsed canonical PET's nodes are exactly the strong intervals
            assert pet.collapse(root).spans() == _strong_intervals(p), p
            # the canonical tree is a valid PET: every node's children tile a value range
            for node in root.internal_nodes():
                assert _is_range(p[node.start:node.end])
                assert node.kind in ("mono", "inv") or node.arity >= 4
        # Kendall = 1 - D/P = (1 + tau)/2 without ties (scipy reference)
        if len(p) >= 2:
            tau = stats.kendalltau(range(len(p)), p)[0]
            assert pet.kendall(p) == pytest.approx((1 + tau) / 2)
        n = len(p)
        if n >= 3:
            assert pet.pet_count_feature(p) == pytest.approx((_brute_pet_count(p) - 1) / (comb(2 * n - 2, n - 1) / n - 1))


def test_identity_has_catalan_many_pets():
    for n in range(1, 9):
        assert pet.count_pets(tuple(range(1, n + 1))) == comb(2 * (n - 1), n - 1) // n


# ---- features ------------------------------------------------------------------------------
def test_char_ngrams_by_hand():
    # "a b" vs "a c": unigrams {a, ' ', b} vs {a, ' ', c}: 2 matches of 3
    assert char_ngram_prf(["a", "b"], ["a", "c"], 1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # bigrams {"a ", " b"} vs {"a ", " c"}: 1 of 2
    assert char_ngram_prf(["a", "b"], ["a", "c"], 2) == pytest.approx((0.5, 0.5, 0.5))
    # "aa" vs "aaa": unigram counts a:2 vs a:3 -> P 2/2, R 2/3, F 0.8
    assert char_ngram_prf(["aa"], ["aaa"], 1) == pytest.approx((1.0, 2 / 3, 0.8))
    # n longer than the string: 0 (degenerate)
    assert char_ngram_prf(["ab"], ["ab"], 3) == (0.0, 0.0, 0.0)


def test_greedy_alignment_and_permutation_by_hand():
    hyp, ref = "the cat the dog".split(), "the dog the cat".split()
    links = greedy_align(hyp, ref)
    # the->0 (first after -1), cat->3, the->2 (none after 3: closest before), dog->1
    assert links == [(0, 0), (1, 3), (2, 2), (3, 1)]
    assert alignment_permutation(links) == (1, 4, 3, 2)
    # case-insensitive, one-to-one, unaligned words ignored
    assert greedy_align("A x a".split(), "a b".split()) == [(0, 0)]
    assert alignment_permutation([(0, 5), (2, 1), (3, 9)]) == (2, 1, 3)


def test_word_prf_spec_8_1():
    hyp, ref = "he walked the dog".split(), "he took the dog for a walk".split()
    links = greedy_align(hyp, ref)
    assert links == [(0, 0), (2, 2), (3, 3)]
    f = word_prf(hyp, ref, links, function_words("en")[0])
    assert f["word_all_p"] == pytest.approx(3 / 4) and f["word_all_r"] == pytest.approx(3 / 7)
    assert f["word_all_f"] == pytest.approx(6 / 11)
    # function words: hyp {he, the} both aligned; ref {he, the, for, a}: 2 of 4
    assert f["word_func_p"] == 1.0 and f["word_func_r"] == 0.5
    # content: hyp {walked, dog}: 1 of 2; ref {took, dog, walk}: 1 of 3
    assert f["word_content_p"] == 0.5 and f["word_content_r"] == pytest.approx(1 / 3)
    phi = dict(zip(BEER_FEATURES, beer_features("he walked the dog", "he took the dog for a walk")))
    assert phi["kendall"] == 1.0
    assert phi["kendall_scaled_50"] == pytest.approx((3 / 7) ** 0.5)
    assert phi["pet_count"] == 1.0 and phi["pet_mono"] == 1.0  # ⟨1,2,3⟩
    # φ(r, r): every P/R/F is 1 where defined
    rr = dict(zip(BEER_FEATURES, beer_features("a cat sat", "a cat sat")))
    assert all(rr[f"char{n}_f"] == 1.0 for n in range(1, 7))
    assert rr["word_all_f"] == 1.0 and rr["kendall"] == 1.0


def test_humanlike_features_seed004_example():
    # seed 004 §1.2: p1 = 3/4, p2 = 1/3, WER 4 edits / 7; spec §8.1: PER 4/7
    f = dict(zip(HUMANLIKE_FEATURES, humanlike_features("he walked the dog", ["he took the dog for a walk"])))
    assert f["prec1"] == pytest.approx(3 / 4) and f["prec2"] == pytest.approx(1 / 3)
    assert f["prec3"] == f["prec4"] == f["prec5"] == 0.0
    assert f["wer"] == pytest.approx(4 / 7) and f["per"] == pytest.approx(4 / 7)
    assert f["len_ratio_min"] == f["len_ratio_max"] == pytest.approx(4 / 7)
    g = dict(zip(HUMANLIKE_FEATURES, humanlike_features("a a b", ["a b", "a a b c"])))
    assert g["len_ratio_min"] == pytest.approx(3 / 4) and g["len_ratio_max"] == pytest.approx(3 / 2)
    assert g["prec1"] == 1.0  # a clipped by max ref count 2
    assert g["wer"] == pytest.approx(min(1 / 2, 1 / 4))
    # PER vs "a b": m = 2, |c|-|r| = 1 -> 1 - (2-1)/2 = 1/2; vs "a a b c": m = 3 -> 1 - 3/4
    assert g["per"] == pytest.approx(1 / 4)


def _lev_reference(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return d[-1][-1]


def test_levenshtein_matches_textbook_dp():
    rng = random.Random(3)
    for _ in range(200):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        assert levenshtein(a, b) == _lev_reference(a, b)


def test_features_equal_the_metrics_of_the_same_name():
    """The features use the metric modules' functions (no second Levenshtein / char n-gram /
    WER / PER): each feature equals the registered metric's value on the same text, case kept."""
    from evalcore.metrics.charngram import CharNgram
    from evalcore.metrics.edit import PER, WER

    rng = random.Random(11)
    vocab = ["The", "the", "cat", "sat", "on", "a", "mat", "Mat", ",", "dog.", "ran"]
    wer, per = WER(lowercase=False), PER(lowercase=False)
    char = {(n, m): CharNgram(n=n, measure=m) for n in range(1, 7) for m in "prf"}
    for _ in range(60):
        hyp = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 8)))
        refs = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(1, 3))]
        h = dict(zip(HUMANLIKE_FEATURES, humanlike_features(hyp, refs)))
        assert h["wer"] == wer.sentence_score(hyp, refs) and h["per"] == per.sentence_score(hyp, refs)
        b = dict(zip(BEER_FEATURES, beer_features(hyp, refs[0])))
        for (n, m), metric in char.items():
            assert b[f"char{n}_{m}"] == metric.sentence_score(hyp, refs[:1]), (hyp, refs[0], n, m)
    # the literal definitions too (textbook DP; |r| − (m − max(0, |h| − |r|)) errors for PER)
    h = dict(zip(HUMANLIKE_FEATURES, humanlike_features("The cat sat", ["the cat sat on", "A cat"])))
    assert h["wer"] == min(_lev_reference("The cat sat".split(), "the cat sat on".split()) / 4, 2 / 2) == 0.5
    assert h["per"] == min((4 - (2 - 0)) / 4, (2 - (1 - 1)) / 2) == 0.5


# ---- toy datasets -------------------------------------------------------------------------
WORDS = ("river mountain house garden window teacher market orange silver yellow morning evening "
         "bridge forest letter doctor kitchen summer winter island castle ocean pencil ticket").split()


def _sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _corrupt(rng, text, k):
    toks = text.split()
    for pos in rng.sample(range(len(toks)), k):  # k distinct positions
        toks[pos] = rng.choice(["zzz", "qqq", "xxx", "www"])
    return " ".join(toks)


def toy_ranking_dataset(n_seg=40, seed=0) -> Dataset:
    """Each segment: one reference; 'good' changes 1 word, 'mid' 3, 'bad' 6; humans agree."""
    rng = random.Random(seed)
    segs, refs, outs, jud = [], [], [], []
    for s in range(n_seg):
        sid = str(s + 1)
        ref = _sentence(rng, 10)
        segs.append({"seg_id": sid, "source": ""})
        refs.append({"seg_id": sid, "ref_id": "ref-A", "text": ref})
        for name, k, score in (("good", 1, 90.0), ("mid", 3, 60.0), ("bad", 6, 20.0)):
            outs.append({"system": name, "seg_id": sid, "text": _corrupt(rng, ref, k)})
            jud.append({"system": name, "seg_id": sid, "rater": "r1", "judgement": "da", "score": score})
    return Dataset("toyrank", "en-en", pd.DataFrame(segs), pd.DataFrame(refs), pd.DataFrame(outs), pd.DataFrame(jud))


def toy_humanlike_dataset(n_seg=40, seed=1) -> Dataset:
    """Three references per segment (full sentences of 12-14 words); machine outputs are
    truncated to 5-6 words, so length ratios separate the classes."""
    rng = random.Random(seed)
    segs, refs, outs, jud = [], [], [], []
    for s in range(n_seg):
        sid = str(s + 1)
        base = _sentence(rng, 13)
        segs.append({"seg_id": sid, "source": ""})
        for rid in ("ref-A", "ref-B", "ref-C"):
            toks = base.split()
            toks = toks[: rng.randint(12, 13)]
            refs.append({"seg_id": sid, "ref_id": rid, "text": _corrupt(rng, " ".join(toks), 2)})
        for name in ("sysA", "sysB"):
            n = rng.randint(5, 6)
            outs.append({"system": name, "seg_id": sid, "text": " ".join(base.split()[:n])})
            jud.append({"system": name, "seg_id": sid, "rater": "r1", "judgement": "da", "score": float(n)})
    return Dataset("toyhl", "en-en", pd.DataFrame(segs), pd.DataFrame(refs), pd.DataFrame(outs), pd.DataFrame(jud))


# ---- BEER -----------------------------------------------------------------------------------
def test_beer_learns_to_rank_separable_toy_data():
    from evalcore.learned.beer import beer_scores, preference_pairs, train_beer
    from evalcore.learned.evaluate import human_table, scoring_frame, split_segments

    ds = toy_ranking_dataset()
    train, test = split_segments(ds.seg_ids, 0.5, seed=0)
    assert not set(train) & set(test)
    model = train_beer(ds, "toy-beer", seg_ids=train)
    assert model.scores["train_pairs"] == 3 * len(train)
    frame = scoring_frame(ds, human_table(ds), test)
    s = beer_scores(model, list(frame["text"]), list(frame["refs"]))
    assert np.all((s > 0) & (s < 2))
    frame["beer"] = s
    wide = frame.pivot(index="seg_id", columns="system", values="beer")
    assert (wide["good"] > wide["mid"]).all() and (wide["mid"] > wide["bad"]).all()
    # the reference itself scores exactly 1 (2σ(0)); max over references
    ref = ds.references["text"].iloc[0]
    assert beer_scores(model, [ref], [[ref]])[0] == pytest.approx(1.0)
    h = frame["text"].iloc[0]
    one = beer_scores(model, [h], [[frame["refs"].iloc[0][0]]])[0]
    both = beer_scores(model, [h], [[frame["refs"].iloc[0][0], "zzz qqq"]])[0]
    assert both == pytest.approx(max(one, beer_scores(model, [h], [["zzz qqq"]])[0]))
    # pairs: only differences above the threshold
    toy = pd.DataFrame({"seg_id": ["1", "1", "1"], "human": [1.0, 1.5, 3.0]})
    assert sorted(preference_pairs(toy, threshold=0.0)) == [(1, 0), (2, 0), (2, 1)]
    assert sorted(preference_pairs(toy, threshold=1.0)) == [(2, 0), (2, 1)]


def test_beer_lower_is_better_rankings():
    from evalcore.learned.beer import beer_scores, train_beer

    ds = toy_ranking_dataset(n_seg=20, seed=4)
    j = ds.judgements.copy()
    j["judgement"] = "rank"
    j["score"] = j["system"].map({"good": 1.0, "mid": 2.0, "bad": 3.0})
    ranked = Dataset("r", "en-en", ds.segments, ds.references, ds.outputs, j)
    model = train_beer(ranked, "toy-rank", higher_is_better=False)
    refs = [[ds.references["text"].iloc[0]]]
    good = ds.outputs[(ds.outputs.system == "good") & (ds.outputs.seg_id == "1")]["text"].iloc[0]
    bad = ds.outputs[(ds.outputs.system == "bad") & (ds.outputs.seg_id == "1")]["text"].iloc[0]
    assert beer_scores(model, [good], refs)[0] > beer_scores(model, [bad], refs)[0]


# ---- human-likeness -------------------------------------------------------------------------
def test_humanlike_examples_never_score_a_reference_against_itself():
    from evalcore.learned.humanlike import build_examples

    ds = toy_humanlike_dataset(n_seg=6)
    for mode in ("loo", "single"):
        ex = build_examples(ds, balance="none", train_refs=mode)
        for y, hyp, subset, who, held in zip(ex.y, ex.hyps, ex.ref_sets, ex.who, ex.held_out):
            assert hyp not in subset
            if y == 1:
                assert who == held
        per_seg = 3 * (1 if mode == "loo" else 2)
        assert int(ex.y.sum()) == 6 * per_seg and int((ex.y == 0).sum()) == 6 * per_seg * 2
    bal = build_examples(ds, balance="pair")
    assert int(bal.y.sum()) == int((bal.y == 0).sum()) == 18


def test_humanlike_separable_toy_data_no_leakage_and_decision_matches_sklearn():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from evalcore.learned.humanlike import build_examples, decision, train_humanlike

    ds = toy_humanlike_dataset()
    model, rep = train_humanlike(ds, "toy-hl", C_grid=(1.0, 10.0), gamma_grid=(0.1, 1.0), n_folds=3, seed=0)
    # no segment on both sides of the held-out split or of any CV fold
    assert rep.train_segments and rep.test_segments
    assert not set(rep.train_segments) & set(rep.test_segments)
    assert len(rep.folds) == 3
    for tr, te in rep.folds:
        assert not set(tr) & set(te)
        assert set(tr) | set(te) == set(rep.train_segments)
    assert rep.accuracy["overall"] >= 0.9 and rep.roc["learned"]["auc"] >= 0.95
    assert len(rep.grid) == 4 and set(rep.grid.columns) >= {"C", "gamma", "cv_accuracy", "test_accuracy", "pearson"}
    # decision values from the saved arrays equal scikit-learn's decision_function
    ex = build_examples(ds, rep.train_segments, "pair", 0)
    pipe = make_pipeline(StandardScaler(), SVC(C=rep.best["C"], gamma=rep.best["gamma"])).fit(ex.X, ex.y)
    np.testing.assert_allclose(decision(model.arrays, ex.X), pipe.decision_function(ex.X), rtol=1e-6, atol=1e-8)
    # human translations score higher than truncated machine outputs
    refs = ds.references[ds.references.seg_id == rep.test_segments[0]]["text"].tolist()
    mt = ds.outputs[ds.outputs.seg_id == rep.test_segments[0]]["text"].iloc[0]
    assert model.score(refs[0], refs[1:]) > model.score(mt, refs[1:])
    # logistic-regression baseline
    lr, rep2 = train_humanlike(ds, "toy-lr", estimator="logreg", C_grid=(0.1, 1.0, 10.0))
    assert rep2.accuracy["overall"] >= 0.9 and rep2.grid["gamma"].isna().all()


def test_humanlike_needs_two_references():
    from evalcore.learned.humanlike import train_humanlike
    from evalcore.core.problems import DataError

    with pytest.raises(DataError, match="at least two references"):
        train_humanlike(toy_ranking_dataset(n_seg=8), "x")


# ---- evaluation statistics ------------------------------------------------------------------
def test_darr_and_acc23_by_hand():
    from evalcore.learned.evaluate import acc23, darr_kendall, system_pearson

    f = pd.DataFrame({"seg_id": ["1"] * 3 + ["2"] * 3, "system": list("abcabc"),
                      "human": [3.0, 2.0, 2.0, 1.0, 2.0, 3.0], "m": [0.9, 0.5, 0.5, 0.1, 0.2, 0.2]})
    # seg 1: pairs with human difference: (a,b) conc, (a,c) conc; (b,c) human tie -> skipped
    # seg 2: (a,b) conc, (a,c) conc, (b,c) metric tie -> discordant
    assert darr_kendall(f, "m") == (pytest.approx((4 - 1) / 5), 5)
    # acc23: seg 1: 3/3 (b,c tie both); seg 2: 2/3
    assert acc23(f, "m") == pytest.approx((1 + 2 / 3) / 2)
    r, n = system_pearson(f, "m")
    means = f.groupby("system")[["human", "m"]].mean()
    assert n == 3 and r == pytest.approx(stats.pearsonr(means["m"], means["human"])[0])


# ---- store -------------------------------------------------------------------------------------
def test_save_load_roundtrip_and_registered_metric(tmp_path, monkeypatch):
    from evalcore.learned.beer import train_beer
    from evalcore.learned.humanlike import train_humanlike
    from evalcore.learned.store import list_models, load_model, models_dir, save_model
    from evalcore.metrics.base import get_metric

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path))
    assert models_dir() == tmp_path / "models"
    ds = toy_ranking_dataset(n_seg=12)
    hl_ds = toy_humanlike_dataset(n_seg=12)
    beer = train_beer(ds, "RT-Beer")
    hl, _ = train_humanlike(hl_ds, "rt-hl", C_grid=(1.0,), gamma_grid=(0.1,), test_fraction=0.25)
    cands = ds.outputs["text"].tolist()[:9]
    refs = [[t] for t in ds.references["text"].tolist()[:3] for _ in range(3)]
    hl_refs = [hl_ds.references[hl_ds.references.seg_id == "1"]["text"].tolist()] * len(cands)
    for model, rr in ((beer, refs), (hl, hl_refs)):
        before = model.score_many(cands, rr)
        path = save_model(model)
        assert path.parent == tmp_path / "models"
        meta = json.loads(path.read_text())
        assert meta["features"] == model.features and meta["data_hash"] == model.data_hash
        assert not [p for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp files left
        again = load_model(model.name)
        np.testing.assert_array_equal(again.score_many(cands, rr), before)
        metric = get_metric(f"learned:{model.name}")
        np.testing.assert_array_equal([metric.sentence_score(c, r) for c, r in zip(cands, rr)], before)
        assert metric.signature().startswith(f"learned:{model.name}|kind:{model.kind}")
    assert beer.name == "rt-beer" and list_models() == ["rt-beer", "rt-hl"]
    with pytest.raises(KeyError):
        get_metric("learned:no-such-model")
    with pytest.raises(ValueError):
        save_model(type(beer)(name="../evil", kind="beer", features=[], params={}, arrays={}))


def test_lazy_registration_from_disk(tmp_path, monkeypatch):
    """A model saved in another process (not registered here) is found by get_metric."""
    from evalcore.learned.beer import train_beer
    from evalcore.learned.store import save_model
    from evalcore.metrics.base import get_metric, unregister

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path))
    model = train_beer(toy_ranking_dataset(n_seg=10), "lazy-one")
    save_model(model, register_it=False)
    unregister("learned:lazy-one")
    m = get_metric("learned:lazy-one")
    assert m.meta.family == "learned"
    assert m.sentence_score("river house", ["river house"]) == pytest.approx(1.0)


# ---- CLI ------------------------------------------------------------------------------------------
def test_cli_learn_beer_and_humanlike(tmp_path, monkeypatch, capsys):
    from evalcore.cli import main
    from evalcore.io.tidy import write_tidy

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    rank_dir, hl_dir = tmp_path / "rank", tmp_path / "hl"
    write_tidy(toy_ranking_dataset(n_seg=30), rank_dir)
    write_tidy(toy_humanlike_dataset(n_seg=30), hl_dir)
    out_json = tmp_path / "beer.json"
    assert main(["learn", str(rank_dir), "--kind", "beer", "--out", "cli-beer", "--json", str(out_json),
                 "--eval", str(rank_dir)]) == 0
    res = json.loads(out_json.read_text())
    learned = [r for r in res["heldout"] if r["metric"] == "learned:cli-beer"][0]
    assert learned["seg_darr"] == pytest.approx(1.0)  # the toy ranking is perfectly learnable
    assert (tmp_path / "home" / "models" / "cli-beer.json").exists()
    assert main(["learn", str(hl_dir), "--kind", "humanlike", "--out", "cli-hl", "--C", "1", "--gamma", "0.1"]) == 0
    assert "ROC AUC" in capsys.readouterr().out
    # a single-reference dataset cannot give human examples: a clear error, exit 2
    assert main(["learn", str(rank_dir), "--kind", "humanlike", "--no-save"]) == 2
    assert "at least two references" in capsys.readouterr().err


def test_cli_learn_runs_the_pipeline(tmp_path, monkeypatch):
    """``learn`` is the dashboard's pipeline plus printing: the command's held-out table and
    weights equal ``train_and_compare`` called directly with the same options."""
    from evalcore.cli import main
    from evalcore.io.tidy import write_tidy
    from evalcore.learned import pipeline

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    ds = toy_ranking_dataset(n_seg=24)
    write_tidy(ds, tmp_path / "rank")
    calls = []
    real = pipeline.train_and_compare
    monkeypatch.setattr(pipeline, "train_and_compare", lambda *a, **k: calls.append(k) or real(*a, **k))
    out_json = tmp_path / "r.json"
    assert main(["learn", str(tmp_path / "rank"), "--kind", "beer", "--no-save", "--seed", "3", "--C", "10",
                 "--json", str(out_json)]) == 0
    assert len(calls) == 1 and calls[0]["seed"] == 3 and calls[0]["C"] == 10.0
    monkeypatch.setattr(pipeline, "train_and_compare", real)
    direct = real(ds, "beer", "x", None, seed=3, C=10.0)
    got = json.loads(out_json.read_text())
    want = direct.heldout.assign(metric=direct.heldout["metric"].str.replace("learned:x", got["model"]))
    pd.testing.assert_frame_equal(pd.DataFrame(got["heldout"]), want.reset_index(drop=True), check_dtype=False)
    assert got["train"]["train_pairs"] == direct.model.scores["train_pairs"]


# ---- real data (skipped when ../shared/data is absent) ----------------------------------------
def test_real_news_examples_are_group_disjoint():
    from conftest import shared
    from evalcore.io import load_dataset
    from evalcore.learned.evaluate import split_segments
    from evalcore.learned.humanlike import build_examples

    ds = load_dataset(shared("wmt21_news_mqm"), lp="en-de")
    train, test = split_segments(ds.seg_ids[:30], 1 / 3, seed=0)
    a = build_examples(ds, train)
    b = build_examples(ds, test)
    assert not set(a.groups) & set(b.groups)
    assert int(a.y.sum()) == 3 * len(train) and int((a.y == 0).sum()) == 3 * len(train)
    for hyp, subset in zip(a.hyps, a.ref_sets):
        assert len(subset) == 2 and hyp not in subset


def test_decision_of_one_row_equals_the_same_row_in_a_batch():
    """A candidate scored alone gets the same bits as in a batch (BLAS products change their
    blocking, and so the last bit, with the batch shape; a fresh machine's CPU showed it)."""
    from evalcore.learned.humanlike import decision

    rng = np.random.default_rng(0)
    for _ in range(100):
        n, d, k = (int(x) for x in (rng.integers(2, 60), rng.integers(1, 30), rng.integers(1, 300)))
        X = rng.normal(size=(n, d))
        base = dict(mean=rng.normal(size=d), scale=rng.uniform(0.5, 2, d), intercept=np.array([0.1]))
        for arr in (dict(base, support_vectors=rng.normal(size=(k, d)), dual_coef=rng.normal(size=k),
                         gamma=np.array([0.05])),
                    dict(base, coef=rng.normal(size=d))):
            one_by_one = np.array([decision(arr, X[i:i + 1])[0] for i in range(n)])
            np.testing.assert_array_equal(decision(arr, X), one_by_one)
            # and the values are the textbook formula's (to rounding)
            Z = (X - arr["mean"]) / arr["scale"]
            if "coef" in arr:
                ref = Z @ arr["coef"] + 0.1
            else:
                K = np.exp(-0.05 * ((Z[:, None, :] - arr["support_vectors"][None]) ** 2).sum(2))
                ref = K @ arr["dual_coef"] + 0.1
            np.testing.assert_allclose(decision(arr, X), ref, rtol=1e-10, atol=1e-12)
