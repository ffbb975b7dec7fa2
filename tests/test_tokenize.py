"""Tokenisers and signatures: sacreBLEU's own signature strings, sacreBLEU
parity with the zh / ja-mecab / char tokenizers on real WMT24 data, ``--tokenize`` and the
per-target-language default on the CLI, the signature column of score / correlate / qarla.
Every expected value is computed here with sacreBLEU (and scipy for correlations)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from conftest import SAMPLE, shared
from evalcore.cli import main
from evalcore.metrics.base import get_metric
from evalcore.metrics.engine import tensors_cache_key
from evalcore.metrics.tokenize import default_tokenizer, resolve_tokenizer

TOL = 1e-9
SACRE_TOK = {"zh": TokenizerZh, "ja-mecab": TokenizerJaMecab, "char": TokenizerChar}


# ---- signatures: sacreBLEU's own strings ---------------------------------------------------------
def _sacre_sig(metric, refs_per_seg: int, sentence: bool) -> str:
    hyp, refs = "a b c", ["a b d"] * refs_per_seg
    if sentence:
        metric.sentence_score(hyp, refs)
    else:
        metric.corpus_score([hyp], [[r] for r in refs])
    return metric.get_signature().format()


@pytest.mark.parametrize("nrefs", [1, 3])
@pytest.mark.parametrize("tok", ["13a", "zh", "ja-mecab", "ko-mecab", "char", "intl", "none"])
def test_bleu_signature_is_sacrebleus(tok, nrefs):
    ours = get_metric("bleu", tokenize=tok)
    # corpus level = corpus_bleu defaults (eff:no); segment level = sentence_bleu defaults (eff:yes)
    assert ours.output_signature(nrefs, "system") == _sacre_sig(SBLEU(tokenize=tok), nrefs, False)
    assert ours.output_signature(nrefs, "segment") == _sacre_sig(SBLEU(tokenize=tok, effective_order=True), nrefs, True)


def test_other_bleu_chrf_ter_signatures_are_sacrebleus():
    bleus = get_metric("bleus")
    assert bleus.output_signature(1, "system") == _sacre_sig(SBLEU(smooth_method="add-k", smooth_value=1), 1, False)
    assert get_metric("chrf").output_signature(2, "system") == _sacre_sig(SCHRF(), 2, False)
    assert get_metric("chrf++").output_signature(1, "segment") == _sacre_sig(SCHRF(word_order=2), 1, True)
    assert get_metric("ter").output_signature(1, "system") == _sacre_sig(STER(), 1, False)
    assert get_metric("ter", tokenize="13a").output_signature(4, "segment") == _sacre_sig(STER(), 4, True)
    from evalcore.metrics.ter import TER

    odd = TER(normalized=True, no_punct=True, asian_support=True, case_sensitive=True)
    assert odd.output_signature(1, "system") == _sacre_sig(
        STER(normalized=True, no_punct=True, asian_support=True, case_sensitive=True), 1, False)
    # a tokenizer does not change chrF (characters); bleu-2 says its order (sacreBLEU's does not)
    assert get_metric("chrf", tokenize="zh").output_signature(1, "system") == _sacre_sig(SCHRF(), 1, False)
    assert "ngram:2" in get_metric("bleu-2").output_signature(1, "system")
    # variable numbers of references: sacreBLEU's "var"
    m = SBLEU()
    m.corpus_score(["a", "b"], [["a", "b"], ["a", ""]])
    assert "nrefs:2|" in m.get_signature().format()  # sacreBLEU counts "" as a reference...
    assert get_metric("bleu").output_signature("var", "system").startswith("nrefs:var|")


def test_tokenizer_choice_changes_signature_and_cache_key():
    from evalcore.core.dataset import Dataset

    seg = pd.DataFrame({"seg_id": ["1"], "doc_id": "", "source": "x"})
    ref = pd.DataFrame({"seg_id": ["1"], "ref_id": "r", "text": "我们今天去北京了。"})
    out = pd.DataFrame({"seg_id": ["1"], "system": "s", "text": "我们今天去上海了。"})
    ds = Dataset("t", "en-zh", seg, ref, out)
    keys = {tensors_cache_key(ds, get_metric(m, tokenize=t)) for m in ("bleu", "wer", "ter") for t in ("13a", "zh")}
    assert len(keys) == 6  # each metric: one key per tokenizer
    # TER under 13a is sacreBLEU's TER (Tercom's own splitting): the same key as the plain metric
    assert tensors_cache_key(ds, get_metric("ter", tokenize="13a")) == tensors_cache_key(ds, get_metric("ter"))
    assert get_metric("wer", tokenize="zh").signature() != get_metric("wer").signature()
    # the registered metric is untouched by a tokenizer copy
    assert get_metric("bleu", tokenize="char").tokenize == "char" and get_metric("bleu").tokenize == "13a"


def test_language_defaults_follow_sacrebleu():
    from sacrebleu.metrics.bleu import BLEU as B

    for lp in ["en-zh", "en-ja", "en-ko", "en-cs", "en-hi", "de-en"]:
        trg = lp.split("-")[1]
        assert default_tokenizer(lp) == B._TOKENIZER_MAP.get(trg, B.TOKENIZER_DEFAULT)
    assert default_tokenizer(None) == "13a"
    tok, note = resolve_tokenizer(None, "en-ja")
    assert tok == "ja-mecab" and "default" in note and "ja" in note
    assert resolve_tokenizer("char", "en-ja")[0] == "char"


def test_flores_is_refused_with_the_reason(capsys):
    import importlib.util

    from evalcore.metrics.tokenize import check_tokenizer

    if importlib.util.find_spec("sentencepiece") is not None:
        pytest.skip("sentencepiece installed here; the model-download message is tested only without it")
    with pytest.raises(ValueError, match="sentencepiece.*download"):
        check_tokenizer("flores200")
    assert main(["score", str(SAMPLE), "--metrics", "bleu", "--tokenize", "flores101"]) == 2
    assert "does not download" in capsys.readouterr().err


# ---- real data: WMT24 en-zh / en-ja slices ------------------------------------------------------
def _slice(lp: str, n: int) -> dict:
    """The first ``n`` judged and the first 15 unjudged segments of one language pair (tidy frames)."""
    root = shared("wmt24_esa")
    f = {k: pd.read_csv(root / f"{k}.tsv", sep="\t", dtype=str, keep_default_na=False)
         for k in ("segments", "references", "outputs", "judgements")}
    f = {k: v[v["lp"] == lp] for k, v in f.items()}
    judged = sorted(set(f["judgements"]["seg_id"]), key=int)[:n]
    # plus the first 15 segments nobody judged, so that --judged-only changes the metric scores
    unjudged = [s for s in f["segments"]["seg_id"] if s not in set(f["judgements"]["seg_id"])][:15]
    keep = set(judged) | set(unjudged)
    return {k: v[v["seg_id"].isin(keep)] for k, v in f.items()}


@pytest.fixture(scope="module")
def wmt24(tmp_path_factory):
    """A tidy folder with 60 judged (+ 15 unjudged) segments each of en-zh and en-ja (all systems)."""
    root = shared("wmt24_esa")
    folder = tmp_path_factory.mktemp("wmt24_slice")
    parts = [_slice("en-zh", 60), _slice("en-ja", 60)]
    for k in ("segments", "references", "outputs", "judgements"):
        pd.concat([p[k] for p in parts]).to_csv(folder / f"{k}.tsv", sep="\t", index=False)
    assert (root / "README.md").exists()
    return folder, {"en-zh": parts[0], "en-ja": parts[1]}


@pytest.mark.parametrize("lp,tok", [("en-zh", "zh"), ("en-zh", "char"), ("en-ja", "ja-mecab"), ("en-ja", "char")])
def test_bleu_ter_parity_with_sacrebleu_tokenizers(wmt24, lp, tok):
    _, parts = wmt24
    p = parts[lp]
    ref = p["references"].set_index("seg_id")["text"]
    systems = sorted(set(p["outputs"]["system"]))[:2]
    bleu, ter = get_metric("bleu", tokenize=tok), get_metric("ter", tokenize=tok)
    pre = SACRE_TOK[tok]()
    for name in systems:
        o = p["outputs"][p["outputs"]["system"] == name]
        hyps, refs = list(o["text"]), [ref[s] for s in o["seg_id"]]
        # BLEU: sacreBLEU with the same tokenizer, corpus and sentence level
        assert bleu.corpus_score(hyps, [[r] for r in refs]) == pytest.approx(
            SBLEU(tokenize=tok).corpus_score(hyps, [refs]).score, abs=TOL)
        sb = SBLEU(tokenize=tok, effective_order=True)
        ours = bleu.sentence_scores(hyps, [[r] for r in refs])
        want = [sb.sentence_score(h, [r]).score for h, r in zip(hyps, refs)]
        np.testing.assert_allclose(ours, want, rtol=0, atol=TOL)
        # TER: sacreBLEU's TER on the text split by sacreBLEU's tokenizer (shortest 12 segments:
        # character-split paragraphs make Tercom's shift search slow)
        short = np.argsort([len(r) for r in refs])[:12]
        th = [pre(hyps[i].rstrip()) for i in short]
        tr = [pre(refs[i].rstrip()) for i in short]
        assert ter.corpus_score([hyps[i] for i in short], [[refs[i]] for i in short]) == pytest.approx(
            STER().corpus_score(th, [tr]).score, abs=TOL)
        for k, i in enumerate(short[:6]):
            assert ter.sentence_score(hyps[i], [refs[i]]) == pytest.approx(
                STER().sentence_score(th[k], [tr[k]]).score, abs=TOL)


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("lp,tok", [("en-zh", "zh"), ("en-ja", "ja-mecab")])
def test_correlate_system_bleu_vs_esa(wmt24, tmp_path, capsys, lp, tok, judged_only):
    folder, parts = wmt24
    p = parts[lp]
    out = tmp_path / "corr.tsv"
    assert main(["correlate", str(folder), "--lp", lp, "--metrics", "bleu", "--human", "esa",
                 "--tokenize", tok, "--out", str(out)] + (["--judged-only"] if judged_only else ["--all-segments"])) == 0
    assert f"tokenizer {tok} (chosen)" in capsys.readouterr().err
    got = pd.read_csv(out, sep="\t", keep_default_na=False)
    # expected: MT systems with text (refA is the reference), sacreBLEU corpus BLEU over every
    # segment of the slice; ESA averaged per (system, segment) first, then per system
    ref = p["references"].set_index("seg_id")["text"]
    j = p["judgements"].assign(score=lambda d: d["score"].astype(float))
    esa = j.groupby(["system", "seg_id"])["score"].mean().groupby("system").mean()
    systems = sorted(set(p["outputs"]["system"]) & set(esa.index))
    sb = SBLEU(tokenize=tok)
    bleu = []
    n_segs = []
    for name in systems:
        o = p["outputs"][p["outputs"]["system"] == name]
        if judged_only:  # the metric over the segments the humans judged for this system only
            o = o[o["seg_id"].isin(set(j.loc[j["system"] == name, "seg_id"]))]
        n_segs.append(len(o))
        bleu.append(sb.corpus_score(list(o["text"]), [[ref[s] for s in o["seg_id"]]]).score)
    want = scipy.stats.pearsonr(bleu, esa[systems].to_numpy()).statistic
    row = got.iloc[0]
    assert row["n"] == len(systems) and row["value"] == pytest.approx(want, abs=1e-9)
    assert row["signature"] == sb.get_signature().format()
    assert "human:esa" in row["settings"]
    if judged_only:
        assert min(n_segs) < len(p["segments"])  # the slice has unjudged segments: the switch matters


def test_score_default_tokenizer_is_stated_and_signed(wmt24, tmp_path, capsys):
    folder, parts = wmt24
    out = tmp_path / "s.tsv"
    assert main(["score", str(folder), "--lp", "en-ja", "--metrics", "bleu,chrf,wer", "--level", "system",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "tokenizer ja-mecab (sacreBLEU's default for target language ja)" in err and "bleu, wer" in err
    tab = pd.read_csv(out, sep="\t", keep_default_na=False)
    p = parts["en-ja"]
    ref = p["references"].set_index("seg_id")["text"]
    o = p["outputs"][p["outputs"]["system"] == tab.system.iloc[0]]
    sb = SBLEU(tokenize="ja-mecab")
    v = sb.corpus_score(list(o["text"]), [[ref[s] for s in o["seg_id"]]]).score
    b = tab[tab.metric == "bleu"]
    assert b.score.iloc[0] == pytest.approx(v, abs=TOL)
    assert set(b.signature) == {sb.get_signature().format()}
    c = SCHRF()
    c.corpus_score(["x"], [["y"]])
    assert set(tab[tab.metric == "chrf"].signature) == {c.get_signature().format()}
    assert set(tab[tab.metric == "wer"].signature) == {"wer|nrefs:1|case:lc|tok:ja-mecab-0.996-IPA|version:evalcore-"
                                                       + __import__("evalcore").__version__}


def test_qarla_tsv_has_signature_column(tmp_path, capsys):
    out = tmp_path / "q.tsv"
    assert main(["qarla", str(SAMPLE), "--metrics", "bleu,chrf,ter", "--out", str(out)]) == 0
    assert "tokenizer 13a" in capsys.readouterr().err
    tab = pd.read_csv(out, sep="\t", keep_default_na=False).set_index("metric")
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    k = len(ds.ref_ids) - 1  # every comparison scores against the other references
    assert tab.loc["bleu", "signature"] == _sacre_sig(SBLEU(effective_order=True), k, True)
    assert tab.loc["chrf", "signature"] == _sacre_sig(SCHRF(), k, True)
    assert tab.loc["ter", "signature"] == _sacre_sig(STER(), k, True)


def test_hindi_danda_glued_under_13a_split_under_intl():
    """docs/formats.md: 13a leaves the danda on the word before it; intl splits it off
    (checked against sacreBLEU's tokenizers themselves)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

    from evalcore.metrics.tokenize import tokenize

    text = "यह एक ज़रूरत है। बारिश हो रही है।"
    assert tokenize(text, "13a") == tuple(Tokenizer13a()(text).split())
    assert "है।" in tokenize(text, "13a")
    assert tokenize(text, "intl") == tuple(TokenizerV14International()(text).split())
    assert "।" in tokenize(text, "intl") and "है।" not in tokenize(text, "intl")


# ---- the sidebar's cheap listing (every page paid for importing sacreBLEU) ----------
def test_installed_tokenizers_are_exactly_the_loadable_ones():
    """The listing found by package lookups equals loading every tokenizer (the reference)."""
    from evalcore.metrics.tokenize import available_tokenizers, installed_tokenizers

    assert installed_tokenizers() == available_tokenizers()


def test_sidebar_listing_and_choice_import_no_sacrebleu():
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys\nfrom evalcore.metrics.tokenize import installed_tokenizers, check_installed\n"
            "names = installed_tokenizers()\n"
            "print(names, check_installed('ja-mecab'), 'sacrebleu' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("ja-mecab False")


def test_page_tokenizer_check_unknown_name_still_refused():
    from evalcore.metrics.tokenize import check_installed

    with pytest.raises(ValueError, match="unknown tokenizer"):
        check_installed("no-such")


# ---- the tokenizer is an argument, never a hidden per-session setting ----------------------------
def test_no_hidden_session_tokenizer():
    """No ContextVar (or set/get pair) carries a tokenizer to get_metric behind the caller's back:
    pages and commands pass ``tokenize=`` explicitly. Scans the package and the pages."""
    import re

    from conftest import ROOT

    banned = re.compile(r"set_session_tokenizer|session_tokenizer|apply_tokenizer|_SESSION\b")
    offenders = []
    for path in sorted([*(ROOT / "evalcore").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), ROOT / "app.py"]):
        text = path.read_text(encoding="utf-8")
        for i, line in enumerate(text.splitlines(), 1):
            if banned.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
            # a ContextVar may hold other per-run settings (CSV quoting, MQM weights), never a tokenizer
            if "ContextVar(" in line and "tok" in line.lower():
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    tok_src = (ROOT / "evalcore" / "metrics" / "tokenize.py").read_text(encoding="utf-8")
    base_src = (ROOT / "evalcore" / "metrics" / "base.py").read_text(encoding="utf-8")
    assert "ContextVar" not in tok_src and "contextvars" not in tok_src
    assert "contextvars" not in base_src
    assert not offenders, "\n".join(offenders)
    import evalcore.metrics.tokenize as T

    assert not hasattr(T, "set_session_tokenizer") and not hasattr(T, "session_tokenizer")


def test_two_tokenizers_in_one_thread_give_sacrebleu_values():
    """Two tokenizers passed explicitly in one thread, interleaved: each call gets sacreBLEU's
    BLEU for its own tokenizer (13a vs char), at corpus and sentence level, whatever was
    asked just before."""
    import sacrebleu

    from evalcore.metrics.base import get_metric

    hyps = ["The cat sat on the mat.", "Ein Hund, der bellt!", "it's 3-4 o'clock"]
    refs = ["The cat is sitting on the mat.", "Ein Hund bellt.", "it is 3 - 4 o'clock"]
    got = {}
    for tok in ("13a", "char", "13a", "char"):  # interleaved: nothing carries over between calls
        m = get_metric("bleu", tokenize=tok)
        got.setdefault(tok, []).append((m.corpus_score(hyps, [[r] for r in refs]),
                                        [m.sentence_score(h, [r]) for h, r in zip(hyps, refs)]))
    for tok in ("13a", "char"):
        want_corpus = sacrebleu.BLEU(tokenize=tok).corpus_score(hyps, [refs]).score
        want_sent = [sacrebleu.BLEU(tokenize=tok, effective_order=True).sentence_score(h, [r]).score
                     for h, r in zip(hyps, refs)]
        for corpus, sent in got[tok]:
            assert corpus == pytest.approx(want_corpus, abs=1e-9)
            assert sent == pytest.approx(want_sent, abs=1e-9)
    assert got["13a"][0][0] != pytest.approx(got["char"][0][0], abs=1e-6)  # the two really differ
    assert get_metric("bleu").signature().get("tok") == "13a"  # no argument: the metric's own default


# ---- evalcore's 13a split against sacreBLEU's Tokenizer13a ------------------------------------------
_TRICKY = list("ab1 9.,-&;<>/\n\t\"'{}[]`~^_@:?!()+*=%$#\u00a0é中–—’\r") + [
    "&quot;", "&amp;", "&lt;", "&gt;", "<skipped>", "-\n", "3.5", "1,000", "9-"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_TRICKY), max_size=25).map("".join), st.booleans())
def test_13a_split_equals_sacrebleu_on_random_text(text, lower):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from evalcore.metrics.tokenize import _split_13a

    if lower:
        text = text.lower()
    text = text.rstrip()
    assert _split_13a(text) == tuple(Tokenizer13a()(text).split())


def test_13a_tokens_equal_sacrebleu_on_wmt24():
    """Every output and reference of 60 WMT24 segments of each pair (real punctuation, numbers,
    entities, CJK), mixed and lower case: the tokens equal sacreBLEU's."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from evalcore.metrics.tokenize import _split_13a, tokenize

    sacre = Tokenizer13a()
    root = shared("wmt24_esa")
    texts = []
    for k in ("outputs", "references"):
        f = pd.read_csv(root / f"{k}.tsv", sep="\t", dtype=str, keep_default_na=False)
        texts += list(f["text"][f["seg_id"].astype(int) <= 60])
    n = 0
    for text in texts:
        for t in (text, text.lower()):
            assert _split_13a(t.rstrip()) == tuple(sacre(t.rstrip()).split()), t
            assert tokenize(t, "13a", False) == tuple(sacre(t.rstrip()).split())
            n += 1
    assert n > 3000


def test_spm_model_files_are_sacrebleus():
    """The SentencePiece model paths evalcore checks without importing sacreBLEU are the ones
    sacreBLEU itself loads (its SPM_MODELS table and model folder)."""
    import os

    from sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS
    from sacrebleu.utils import SACREBLEU_DIR

    from evalcore.metrics.tokenize import SPM_MODEL_FILES, SPM_TOKENIZERS, _spm_model_path

    assert set(SPM_TOKENIZERS) == set(SPM_MODELS) == set(SPM_MODEL_FILES)
    for name, spec in SPM_MODELS.items():
        assert _spm_model_path(name) == os.path.join(SACREBLEU_DIR, "models", os.path.basename(spec["url"]))


# ---- evalcore's zh split against sacreBLEU's TokenizerZh --------------------------------------------
def test_zh_character_map_is_sacrebleus_chinese_test():
    """Every BMP code point and every 7th above it: the map spaces out exactly the characters
    sacreBLEU's ``_is_chinese_char`` accepts (including its two-character range bounds)."""
    from evalcore.metrics.tokenize import _zh_table

    table = _zh_table()
    points = list(range(0x10000)) + list(range(0x10000, 0x110000, 7))
    wrong = [hex(c) for c in points if (table.get(c) == f"   {chr(c)}   ") != TokenizerZh._is_chinese_char(chr(c))]
    assert not wrong
    assert sum(table.get(c) == f"   {chr(c)}   " for c in points) > 30000  # the ideographs are in it


_TRICKY_ZH = _TRICKY + list("中文。，、“”‘’—…：；（）！？１２ｆ\u2000\u2001\u2a6d\u2a6e\u2f80\u2f81\u3400\u4db5\u4db6"
                            "\u9fbb\u9fbc\ufa2d\ufa2e\uffef\U00020000\U0002a6d6　")


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_TRICKY_ZH), max_size=25).map("".join), st.booleans())
def test_zh_split_equals_sacrebleu_on_random_text(text, lower):
    from evalcore.metrics.tokenize import _split_zh

    if lower:
        text = text.lower()
    text = text.rstrip()
    assert _split_zh(text) == tuple(TokenizerZh()(text).split())


def test_zh_tokens_equal_sacrebleu_on_wmt24():
    """Every output and reference of WMT24 en-zh and en-ja (Chinese and Japanese text, full-width
    punctuation, curly quotes, numbers): the zh tokens equal sacreBLEU's."""
    from evalcore.metrics.tokenize import _split_zh, tokenize

    sacre = TokenizerZh()
    root = shared("wmt24_esa")
    texts = []
    for k in ("outputs", "references"):
        f = pd.read_csv(root / f"{k}.tsv", sep="\t", dtype=str, keep_default_na=False)
        texts += list(f["text"][f["lp"].isin(["en-zh", "en-ja"])])
    texts = sorted(set(texts))
    for t in texts:
        assert _split_zh(t.rstrip()) == tuple(sacre(t.rstrip()).split()), t
        assert tokenize(t, "zh", False) == tuple(sacre(t.rstrip()).split())
    assert len(texts) > 20000
