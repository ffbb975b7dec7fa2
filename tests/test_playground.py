"""The metric playground: sentence scores equal sacreBLEU's, the matched n-grams are escaped,
and each ready-made challenge is performed here, as a student would, on the bundled sample."""
from __future__ import annotations

import pytest
import sacrebleu

from conftest import ROOT
from evalcore.io import load_collection
from evalcore.views import playground as P
from evalcore.scoring.settings import DEFAULTS


@pytest.fixture(scope="module")
def ds():
    return load_collection(ROOT / "sample_data" / "teaching_es_en")["es-en"]


def test_scores_equal_sacrebleu_with_every_reference_left_out(ds):
    item = P.item_from_dataset(ds, "2", "literal")
    refs = [t for _, t in item.references]
    assert len(refs) >= 3
    cand = "Torrential rains have forced three roads to close in the north of the province."
    table = P.score_candidate(cand, item.references, ["bleu", "chrf", "ter"], start=item.start).set_index("metric")
    expected = {"bleu": lambda c, r: sacrebleu.sentence_bleu(c, r).score,
                "chrf": lambda c, r: sacrebleu.sentence_chrf(c, r).score,
                "ter": lambda c, r: sacrebleu.sentence_ter(c, r).score}
    for m, f in expected.items():
        assert table.loc[m, "score"] == pytest.approx(f(cand, refs), abs=1e-9)
        assert table.loc[m, "start"] == pytest.approx(f(item.start, refs), abs=1e-9)
        assert table.loc[m, "change"] == pytest.approx(f(cand, refs) - f(item.start, refs), abs=1e-9)
        for j, (rid, _) in enumerate(item.references):
            rest = refs[:j] + refs[j + 1:]
            assert table.loc[m, f"without {rid}"] == pytest.approx(f(cand, rest), abs=1e-9), (m, rid)
    assert not table.loc["ter", "higher_is_better"] and table.loc["bleu", "higher_is_better"]


def test_single_reference_has_no_leave_one_out_columns():
    table = P.score_candidate("a b c", [("r", "a b d")], ["bleu"])
    assert [c for c in table.columns if c.startswith("without")] == []


def test_matches_are_marked_and_user_text_escaped():
    refs = P.parse_references("the cat sat on the mat\n\n<b>the</b> cat")
    assert [r for r, _ in refs] == ["ref-1", "ref-2"]
    view = P.match_view("the cat <script>x</script> sat", refs, DEFAULTS.with_(tokenizer="13a"))
    html = view["per_reference"][0]["html"]
    assert "<script" not in html and "&lt;" in html
    assert html.count("<mark") >= 1
    # clipped unigram matches over all references (Papineni et al. 2002 §2.1), counted here with
    # sacreBLEU's own 13a tokenizer
    from collections import Counter

    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    cand = Counter(tok("the cat <script>x</script> sat").split())
    ref_counts = [Counter(tok(t).split()) for _, t in refs]
    expected = sum(min(n, max(rc[w] for rc in ref_counts)) for w, n in cand.items())
    orders = view["orders"].set_index("order")
    tokens = view["tokens"]
    assert orders.loc[1, "matched"] == expected > 0
    assert orders.loc[1, "total"] == len(tokens)


def test_meaning_flips_count_negations_and_numbers():
    assert P.meaning_flips("He came.", "He didn't come.") == ["n't"]
    assert P.meaning_flips("3 roads", "three roads") == ["3"]
    assert P.meaning_flips("A b.", "b a.") == []


def test_challenge_raise_bleu_with_a_wrong_meaning(ds):
    ch = P.challenge("wrong-meaning")
    item = P.item_from_dataset(ds, "1", "untranslated")
    start = P.start_text(ch, item)
    assert start == item.start
    negated = "The city council did not approve the budget for next year yesterday."
    refs = [t for _, t in item.references]
    assert sacrebleu.sentence_bleu(negated, refs).score > sacrebleu.sentence_bleu(start, refs).score
    assert P.check_challenge(ch, item, start, negated).passed
    fixed = "The city council approved the budget for next year yesterday."  # better, but still true
    result = P.check_challenge(ch, item, start, fixed)
    assert not result.passed and "negation" in result.message


def test_challenge_keep_the_meaning_and_lower_bleu(ds):
    ch = P.challenge("same-meaning")
    item = P.item_from_dataset(ds, "1", "literal")
    start = P.start_text(ch, item)
    assert start == item.references[0][1]
    refs = [t for _, t in item.references]
    reworded = "Municipal leaders signed off on the coming year's spending plan yesterday."
    drop = sacrebleu.sentence_bleu(start, refs).score - sacrebleu.sentence_bleu(reworded, refs).score
    assert drop >= 30
    assert P.check_challenge(ch, item, start, reworded).passed
    # word order only: the meaning is kept but BLEU barely moves
    assert not P.check_challenge(ch, item, start, "Yesterday the city council approved the budget for next year.").passed
    # deleting most of the sentence is not a paraphrase
    assert "length" in P.check_challenge(ch, item, start, "Budget approved.").message
    # a negation is not keeping the meaning
    assert not P.check_challenge(ch, item, start, "The city council did not approve anything.").passed


def test_challenge_chrf_prefers_bleu_does_not(ds):
    ch = P.challenge("chrf-not-bleu")
    item = P.item_from_dataset(ds, "1", "synonyms")
    refs = [t for _, t in item.references]
    edit = "The municipality endorsed its budgets for the upcoming years yesterday."
    assert sacrebleu.sentence_chrf(edit, refs).score > sacrebleu.sentence_chrf(item.start, refs).score
    assert sacrebleu.sentence_bleu(edit, refs).score < sacrebleu.sentence_bleu(item.start, refs).score
    assert P.check_challenge(ch, item, item.start, edit).passed
    both_up = "The councils endorsed its budgets for the upcoming year yesterday."
    assert not P.check_challenge(ch, item, item.start, both_up).passed


def test_unknown_challenge_and_segment_are_named(ds):
    with pytest.raises(KeyError, match="no challenge 'x'"):
        P.challenge("x")
    with pytest.raises(KeyError, match="unknown segment"):
        P.item_from_dataset(ds, "999", "literal")


def test_playground_page_scores_the_edit_and_checks_a_challenge():
    """The page under AppTest: the table is the view-model's (hence sacreBLEU's) numbers for the
    edited text, and choosing a challenge then performing it turns the warning into a success."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.selectbox(key="pg_seg").set_value("1")
    at.selectbox(key="pg_sys").set_value("synonyms")
    at.run()
    box = next(t for t in at.text_area if t.key.startswith("pg_cand::"))
    assert box.value == "The municipality endorsed its spending plan for the upcoming year yesterday."
    edit = "The municipality endorsed its budgets for the upcoming years yesterday."
    box.set_value(edit)
    at.run()
    table = next(df.value for df in at.dataframe if "metric" in df.value.columns).set_index("metric")
    ds = load_collection(ROOT / "sample_data" / "teaching_es_en")["es-en"]
    refs = [t for _, t in P.item_from_dataset(ds, "1", "synonyms").references]
    assert table.loc["bleu", "score"] == pytest.approx(sacrebleu.sentence_bleu(edit, refs).score, abs=1e-3)
    assert table.loc["chrf", "score"] == pytest.approx(sacrebleu.sentence_chrf(edit, refs).score, abs=1e-3)
    at.selectbox(key="pg_challenge").set_value("chrf-not-bleu")
    at.run()
    assert not at.success and at.warning  # the box restarted from the output: nothing done yet
    box = next(t for t in at.text_area if t.key.startswith("pg_cand::"))
    box.set_value(edit)
    at.run()
    assert at.success and "chrF rose" in at.success[0].value
    assert not at.exception


def test_every_metric_states_its_scale():
    """The Playground labels each metric's scale (read off the metric: the score of a perfect
    match), so 0–100 and 0–1 scores are never read as one scale; sacreBLEU gives the BLEU, chrF
    and TER of a perfect match independently."""
    import sacrebleu

    t = P.score_candidate("the cat sat", [("r1", "the cat sat on the mat")], ["bleu", "chrf", "ter", "meteor"])
    scale = dict(zip(t["metric"], t["scale"]))
    same = "one two three four five"
    assert scale["bleu"] == f"0–{sacrebleu.sentence_bleu(same, [same]).score:g}, higher is better" == \
        "0–100, higher is better"
    assert scale["chrf"] == f"0–{sacrebleu.sentence_chrf(same, [same]).score:g}, higher is better"
    assert scale["ter"] == f"{sacrebleu.sentence_ter(same, [same]).score:g} and up, an error rate: lower is better"
    assert scale["meteor"] == "0–1, higher is better"
