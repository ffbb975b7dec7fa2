"""The metric-detective lab (evalcore.analysis.detective, ``evalcore detective``): every family on a
hand-made example, its skips with their reasons, scores against sacreBLEU, catch rates by hand,
and the lab on WMT24 ESA (shared data)."""
from __future__ import annotations

import contextlib
import io
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import shared
from evalcore.analysis import detective as D
from evalcore.scoring.settings import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _p(family, out, src="", tgt="en", srcl="es", seed=0, refs=()):
    return D.perturb(family, out, src, tgt, srcl, seed=seed, segment_refs=refs)


# ------------------------------------------------------------------ each family, by hand
def test_copy_source_and_its_skips():
    assert _p("copy_source", "The house is red.", "La casa es roja.") == ("La casa es roja.", "")
    assert _p("copy_source", "la casa  es roja.", "La casa es roja.") == (None, "the output already is the source")
    assert _p("copy_source", "@user47 yes", "@user47 sí", refs=["@User47  SÍ"])[0] is None  # nothing to translate
    assert _p("copy_source", "Yes", "")[1] == "empty source"


def test_omit_clause_leaves_out_one_whole_clause():
    text = "Anna came home, Bob cooked dinner; we ate late."
    got, why = _p("omit_clause", text)
    options = {"Bob cooked dinner; we ate late.", "Anna came home, we ate late.", "Anna came home, Bob cooked dinner;"}
    assert why == "" and got in options
    seen = {_p("omit_clause", text, seed=s)[0] for s in range(30)}
    assert seen == options  # every clause can go, and nothing else happens
    assert _p("omit_clause", "One clause only") == (None, "one clause only (no comma, semicolon, colon or sentence "
                                                          "break)")
    zh, _ = _p("omit_clause", "我们回家了，他做了饭。", tgt="zh")
    assert zh in {"他做了饭。", "我们回家了，"}


def test_hallucinate_inserts_a_phrase_at_a_boundary():
    text = "The town hall approved the budget, and the mayor spoke."
    got, _ = _p("hallucinate", text)
    phrase = next(p for p in D.HALLUCINATIONS["en"] if p in got)
    assert got.replace(phrase, "").split() == text.split()  # the original words, in order, plus the phrase
    before = got[:got.index(phrase)].strip()
    assert before == "" or before.endswith(",") or before.endswith(".")
    assert _p("hallucinate", text, tgt="xx") == (None, "no hallucinated phrase for language xx")
    cs, _ = _p("hallucinate", "Radnice schválila rozpočet.", tgt="cs")
    assert any(p in cs for p in D.HALLUCINATIONS["cs"])


def test_change_number_changes_one_number_by_one_to_nine():
    got, _ = _p("change_number", "He paid 100 euros on 3 May.")
    a, b = got.split(), "He paid 100 euros on 3 May.".split()
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    assert len(diff) == 1 and 1 <= int(diff[0][0]) - int(diff[0][1]) <= 9
    assert _p("change_number", "No digits here.") == (None, "no number")
    wide, _ = _p("change_number", "価格は１２円です。", tgt="ja")  # full-width digits read as 12
    assert wide.startswith("価格は") and 13 <= int(wide[3:-4]) <= 21


@pytest.mark.parametrize("lang,text,negated", [
    ("en", "The door is open.", "The door is not open."),
    ("de", "Die Tür ist offen.", "Die Tür ist nicht offen."),
    ("es", "La puerta está abierta.", "La puerta no está abierta."),
    ("cs", "Dveře jsou otevřené.", "Dveře nejsou otevřené."),
    ("cs", "Je to pravda.", "Není to pravda."),
    ("zh", "他是学生。", "他不是学生。"),
    ("zh", "我有书。", "我没有书。"),
    ("ja", "これは本です。", "これは本ではありません。"),
    ("ja", "行きました。", "行きませんでした。"),
    ("ru", "Он был дома.", "Он не был дома."),
])
def test_negate_by_language(lang, text, negated):
    assert _p("negate", text, tgt=lang) == (negated, "")


def test_negate_skips_with_a_reason():
    assert _p("negate", "The door, open.", tgt="en") == (None, "no verb the en negation rule knows")
    assert _p("negate", "Ovi je tekst.", tgt="hr") == (None, "no negation rule for language hr")
    assert _p("negate", "他不是学生。", tgt="zh")[0] is None  # already negated: no second negation


def test_swap_entities_swaps_two_names():
    text = "Yesterday Alice met Bob in Paris."
    got, _ = _p("swap_entities", text)
    a, b = got.split(), text.split()
    changed = [i for i in range(len(a)) if a[i] != b[i]]
    assert len(changed) == 2 and Counter(a) == Counter(b)
    assert {b[changed[0]], b[changed[1]].rstrip(".")} <= {"Alice", "Bob", "Paris"}
    assert "Yesterday" in a  # a sentence-initial capital is not a name
    assert _p("swap_entities", "Only Alice is here.")[0] is None
    assert _p("swap_entities", "Dennis M. Kelleher spoke.")[0] is None  # an initial is not a name


def test_shuffle_keeps_the_words_and_changes_the_order():
    text = "the cat sat on the mat today"
    got, _ = _p("shuffle_words", text)
    assert got != text and Counter(got.split()) == Counter(text.split())
    assert got == _p("shuffle_words", text)[0]  # deterministic
    assert len({_p("shuffle_words", text, seed=s)[0] for s in range(5)}) > 1  # the seed matters
    zh, _ = _p("shuffle_words", "我们今天去公园玩", tgt="zh")
    assert zh != "我们今天去公园玩" and Counter(zh) == Counter("我们今天去公园玩")
    assert _p("shuffle_words", "a a b")[1] == "fewer than three different words"


def test_untranslated_word_puts_a_source_word_in():
    got, _ = _p("untranslated_word", "The town hall approved the budget", "El ayuntamiento aprobó el presupuesto")
    a, b = got.split(), "The town hall approved the budget".split()
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    assert len(a) == len(b) and len(diff) == 1 and a[diff[0]] in {"ayuntamiento", "aprobó", "presupuesto"}
    assert _p("untranslated_word", "Yes it is", "Sí es")[1] == "no source word of four or more letters"


def test_punctuation_casing_only():
    assert _p("punctuation_casing", "Hello, World! It's 3.5 km.") == ("hello world it's 3.5 km", "")
    assert _p("punctuation_casing", "all lower case") == (None, "no punctuation or casing to change")
    assert _p("punctuation_casing", "我们回家了，他做了饭。", tgt="zh") == ("我们回家了他做了饭", "")


def test_repetition_repeats_a_stretch_right_after_itself():
    text = "one two three four five six"
    got, _ = _p("repetition", text)
    a, w = got.split(), text.split()
    k = len(a) - len(w)
    assert 2 <= k <= 5
    # some stretch a[i:i+k] is followed by itself, and removing the copy gives the original
    assert any(a[i:i + k] == a[i + k:i + 2 * k] and a[:i + k] + a[i + 2 * k:] == w for i in range(len(w)))
    assert _p("repetition", "two words")[1] == "fewer than three words"


def test_graphemes_never_split_a_character():
    text = "e\u0301te\u0301 नमस्ते 👩\u200d💻 กำลัง"
    g = D.graphemes(text)
    assert "".join(g) == text
    assert "e\u0301" in g and "👩\u200d💻" in g and "กำ" in g  # accent, emoji sequence, Thai vowel sign
    assert not [x for x in g if unicodedata.category(x[0]).startswith("M")]  # no cluster starts with a mark
    units = D.units("กำลังไป", "th")  # two graphemes per unit in scripts without spaces
    assert units == ["กำลั", "งไ", "ป"]


def test_unknown_family_and_empty_output():
    with pytest.raises(ValueError, match="unknown perturbation"):
        D.perturb("nonsense", "x", "y", "en")
    assert D.perturb("copy_source", "  ", "y", "en") == (None, "empty output")


# ------------------------------------------------------------------ Δ, catch rates, leaderboard
def test_delta_for_defaults_and_the_calibration_hook():
    assert D.delta_for("bleu") == (1.0, "default (1 % of the metric's scale)")
    assert D.delta_for("chrf++")[0] == 1.0 and D.delta_for("ter")[0] == 1.0 and D.delta_for("bleu-2")[0] == 1.0
    assert D.delta_for("nist-4")[0] == 0.1 and D.delta_for("meteor")[0] == 0.01
    assert D.delta_for("bleu", {"bleu": 3.5}) == (3.5, "given")
    with pytest.raises(ValueError):
        D.delta_for("bleu", {"bleu": -1})


def test_catch_table_by_hand():
    scored = pd.DataFrame({"perturbation": ["a"] * 3 + ["b"] * 2 + ["a"] * 3,
                           "metric": ["bleu"] * 5 + ["meteor"] * 3,
                           "drop": [0.5, 2.0, 1.0, 3.0, -4.0, 0.02, 0.005, 0.5]})
    t = D.catch_table(scored, families=["a", "b", "c"])
    got = {(r.perturbation, r.metric): (r.catch_rate, r.n) for r in t.itertuples()}
    assert got[("a", "bleu")] == (1 / 3, 3)  # only 2.0 > Δ 1 (1.0 is not more than Δ)
    assert got[("b", "bleu")] == (0.5, 2)
    assert got[("a", "meteor")] == (2 / 3, 3)  # Δ 0.01
    assert np.isnan(got[("c", "bleu")][0]) and got[("c", "bleu")][1] == 0  # listed, never dropped
    assert list(t.columns) == ["perturbation", "metric", "catch_rate", "n"]
    t2 = D.catch_table(scored, {"bleu": 0.4})
    assert t2.set_index(["perturbation", "metric"]).loc[("a", "bleu"), "catch_rate"] == 1.0


def test_fooled_board_by_hand():
    subs = pd.DataFrame({"metric": ["bleu", "bleu", "chrf", "chrf", "bleu"], "drop": [0.5, 5.0, 0.2, 0.9, 0.0],
                         "meaning_changed": [True, True, True, True, False]})
    b = D.fooled_board(subs)
    assert list(b["metric"]) == ["chrf", "bleu"]  # chrf fooled 2 of 2, bleu 1 of 2 (the kept-meaning row left out)
    assert list(b["fooled"]) == [2, 1] and list(b["n"]) == [2, 2]


def test_scores_equal_sacrebleu_and_ter_is_oriented():
    import sacrebleu

    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    pert = D.perturb_outputs(ds, DEFAULTS, ["shuffle_words", "copy_source"], sample=12, seed=3)
    scored = D.score_perturbations(ds, pert, ["bleu", "chrf", "ter"], DEFAULTS)
    pos = {str(s): i for i, s in enumerate(ds.seg_ids)}
    refs = ds.ref_texts()
    done = pert[pert["skipped"] == ""].set_index(["system", "seg_id", "perturbation"])
    ter = sacrebleu.metrics.TER()
    for r in scored.itertuples():
        row = done.loc[(r.system, r.seg_id, r.perturbation)]
        rr = [refs[x][pos[r.seg_id]] for x in ds.ref_ids if refs[x][pos[r.seg_id]]]
        if r.metric == "bleu":
            o, p = (sacrebleu.sentence_bleu(t, rr).score for t in (row.original, row.perturbed))
        elif r.metric == "chrf":
            o, p = (sacrebleu.sentence_chrf(t, rr).score for t in (row.original, row.perturbed))
        else:
            o, p = (ter.sentence_score(t, rr).score for t in (row.original, row.perturbed))
        assert r.original_score == pytest.approx(o, abs=1e-9) and r.perturbed_score == pytest.approx(p, abs=1e-9)
        assert r.drop == pytest.approx((p - o) if r.metric == "ter" else (o - p), abs=1e-9)
    assert set(scored["metric"]) == {"bleu", "chrf", "ter"} and len(scored) == 3 * len(done)


def test_sample_is_deterministic_and_judged_only_follows_the_settings():
    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    a = D.sample_outputs(ds, DEFAULTS, 10, seed=1)
    assert a == D.sample_outputs(ds, DEFAULTS, 10, seed=1) and len(a) == 10
    assert a != D.sample_outputs(ds, DEFAULTS, 10, seed=2)
    judged = set(zip(ds.judgements["system"].astype(str), ds.judgements["seg_id"].astype(str)))
    assert set(D.sample_outputs(ds, DEFAULTS, None)) <= judged
    every = D.sample_outputs(ds, DEFAULTS.with_(judged_only=False), None)
    texts = ds.sys_texts()
    assert len(every) == sum(1 for s in ds.systems for t in texts[s] if isinstance(t, str) and t.strip())


# ------------------------------------------------------------------ the command
def _cli(*args):
    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["detective", *args])
    return rc, out.getvalue(), err.getvalue()


def test_command_writes_the_catch_table_and_refuses_bad_options(tmp_path):
    out, pert = tmp_path / "catch.tsv", tmp_path / "pert.tsv"
    rc, shown, err = _cli(str(SAMPLE), "--sample", "15", "--seed", "2", "--metrics", "bleu,chrf", "--delta", "bleu=2",
                      "--out", str(out), "--perturbations-out", str(pert))
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t")
    assert list(t.columns) == ["lp", "perturbation", "metric", "catch_rate", "n"]
    assert set(t["perturbation"]) == set(D.FAMILIES) and set(t["metric"]) == {"bleu", "chrf"}
    p = pd.read_csv(pert, sep="\t", keep_default_na=False)
    assert len(p) == 15 * len(D.FAMILIES)
    # the rates follow from the perturbations written beside them (sacreBLEU, Δ 2 for BLEU)
    import sacrebleu

    from evalcore.io import load_dataset

    ds = load_dataset(SAMPLE)
    refs, pos = ds.ref_texts(), {str(s): i for i, s in enumerate(ds.seg_ids)}
    sh = p[(p["perturbation"] == "shuffle_words") & (p["skipped"] == "")]
    caught = [sacrebleu.sentence_bleu(r.original, rr).score - sacrebleu.sentence_bleu(r.perturbed, rr).score > 2
              for r in sh.itertuples()
              for rr in [[refs[x][pos[str(r.seg_id)]] for x in ds.ref_ids if refs[x][pos[str(r.seg_id)]]]]]
    row = t[(t["perturbation"] == "shuffle_words") & (t["metric"] == "bleu")].iloc[0]
    assert row["n"] == len(sh) and row["catch_rate"] == pytest.approx(np.mean(caught), abs=1e-6)
    assert "skipped" in shown and "# Δ bleu: 2 (given)" in shown  # the notes after the table
    for bad in (["--delta", "bleu=x"], ["--perturbations", "nope"], ["--sample", "-1"]):
        rc, _, err = _cli(str(SAMPLE), *bad)
        assert rc == 2 and "Traceback" not in err, (bad, err)


def test_detective_on_wmt24_esa_en_cs():
    """≥ 8 families apply, every rate in [0, 1], copying the source caught by BLEU and chrF for ≥ 90 %."""
    from evalcore.io import load_dataset

    ds = load_dataset(shared("wmt24_esa"), lp="en-cs")
    res = D.run_lab(ds, ["bleu", "chrf"], DEFAULTS, sample=150, seed=0)
    c = res.catch
    applied = c[c["n"] > 0]
    assert applied["perturbation"].nunique() >= 8
    assert applied["catch_rate"].between(0, 1).all()
    cs = c[c["perturbation"] == "copy_source"].set_index("metric")
    assert cs.loc["bleu", "catch_rate"] >= 0.9 and cs.loc["chrf", "catch_rate"] >= 0.9
    assert cs.loc["bleu", "n"] >= 140
    # nothing dropped silently: every sampled output is either perturbed or skipped with a reason, per family
    per = res.perturbed.groupby("perturbation").size()
    assert (per == 150).all()
    assert ((res.perturbed["perturbed"].isna()) == (res.perturbed["skipped"] != "")).all()
