"""MQM-lite on the Annotate page: errors with a category and a severity, the score computed by the
project's MQM scorer (hand-worked values, Freitag et al. 2021 weights), saved as judgement and
error rows that the Class page's agreement uses (α against the krippendorff package), and both
pages driven under AppTest."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from class_pages import open_page as _open, saved_label as _label
from evalcore.analysis import annotate as A
from evalcore.scoring.settings import DEFAULTS

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


def _err(text, first, last, severity, category):
    span = A.words_to_span(text, first, last, severity)
    return {"start_i": span["start_i"], "end_i": span["end_i"], "severity": severity, "category": category}


def test_mqm_lite_scores_by_hand():
    text = "one two three four five"
    assert A.mqm_lite_score([]) == 0.0
    # minor 1 + major 5 (methods §5.7)
    assert A.mqm_lite_score([_err(text, 0, 0, "minor", "Fluency"), _err(text, 1, 2, "major", "Accuracy")]) == -6.0
    assert A.mqm_lite_score([_err(text, 0, 4, "major", "Non-translation")]) == -25.0  # the non-translation rule
    assert A.mqm_lite_score([_err(text, 0, 0, "minor", "Locale convention")] * 3) == -3.0
    with pytest.raises(ValueError, match="always a major"):
        A.check_mqm_spans([_err(text, 0, 0, "minor", "Non-translation")], text)
    with pytest.raises(ValueError, match="error 1: category.*error 2: severity"):
        A.check_mqm_spans([_err(text, 0, 0, "minor", "Grammar"), {**_err(text, 0, 0, "minor", "Style"),
                                                                  "severity": "critical"}], text)
    with pytest.raises(ValueError, match="not a span"):
        A.check_mqm_spans([{"start_i": 3, "end_i": 99, "severity": "minor", "category": "Style"}], text)


@pytest.fixture
def mqm_class(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    plan = A.Plan(items_per_student=8, overlap=1.0, qc=False, seed=3)
    A.save_plan(name, lp, plan)
    ds = workspace.load_saved(name)[lp]
    expected = {}
    for r, rater in enumerate(("ana", "bo", "cy")):
        for k, t in enumerate(A.task_sequence(ds, plan, rater)):
            errs = []  # a different, deterministic set of errors per (rater, item)
            if (k + r) % 3 >= 1:
                errs.append(_err(t.text, 0, 0, "minor", A.MQM_CATEGORIES[(k + r) % 5]))
            if (k * (r + 1)) % 4 == 1:
                errs.append(_err(t.text, 1, 1, "major", "Accuracy"))
            if (k + 2 * r) % 7 == 0 and k:
                errs.append(_err(t.text, 0, 1, "major", "Non-translation"))
            expected[(rater, t.system, t.seg_id)] = -(sum({"minor": 1, "major": 5}[e["severity"]]
                                                          for e in errs if e["category"] != "Non-translation")
                                                      + 25 * sum(e["category"] == "Non-translation" for e in errs))
            A.save_judgement(name, lp, rater, "mqm", t, None, errs)
    return name, lp, workspace.load_saved(name)[lp], expected


def test_mqm_rows_are_saved_and_scored_by_the_project_scorer(mqm_class):
    from evalcore.human.mqm import mqm_scores

    name, lp, ds, expected = mqm_class
    j = ds.judgements[ds.judgements["judgement"] == "class_mqm"]
    got = {(r.rater, r.system, r.seg_id): r.score for r in j.itertuples()}
    assert got == {k: float(v) for k, v in expected.items()}  # the hand count
    assert len(set(got.values())) > 3
    errs = ds.extras[A.MQM_EXTRA]
    again = mqm_scores(errs)  # the rows alone give the same scores back
    assert {(r.rater, r.system, r.seg_id): r.score for r in again.itertuples()} == got
    spans = errs[errs["span_in"] == "target"]
    texts = ds.sys_texts()
    for r in spans.itertuples():  # span_text is the marked words of the output
        out = texts[r.system][ds.seg_ids.index(r.seg_id)]
        assert out[int(r.span_start):int(r.span_end)] == r.span_text
    with pytest.raises(ValueError, match="computed from the errors"):
        t = A.task_sequence(ds, A.plan_of(ds), "dee")[0]
        A.save_judgement(name, lp, "dee", "mqm", t, 50, [])


def test_class_agreement_on_mqm_equals_krippendorff(mqm_class):
    import krippendorff
    from evalcore.views import classroom as V

    name, lp, ds, expected = mqm_class
    o = V.overview(ds, "mqm", None, [], settings=DEFAULTS.with_(tokenizer="13a"))
    units = sorted({(s, g) for _, s, g in expected})
    data = [[float(expected[(r, *u)]) if (r, *u) in expected else np.nan for u in units] for r in ("ana", "bo", "cy")]
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert o["class_alpha"].value == pytest.approx(ref, abs=1e-9)
    for row in o["pairs"].itertuples():
        sub = [data[["ana", "bo", "cy"].index(row.rater_a)], data[["ana", "bo", "cy"].index(row.rater_b)]]
        assert row.alpha == pytest.approx(krippendorff.alpha(reliability_data=sub, level_of_measurement="interval"),
                                          abs=1e-9)
        assert row.shared_items == 8
    assert list(o["progress"]["rater"]) == ["ana", "bo", "cy"] and list(o["progress"]["saved"]) == [8, 8, 8]




def test_the_page_saves_two_mqm_judgements_and_the_class_page_shows_agreement(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    lp = next(iter(coll))
    name = workspace.save(coll, "class")
    plan = A.Plan(items_per_student=4, overlap=1.0, qc=False)
    A.save_plan(name, lp, plan)
    ds = workspace.load_saved(name)[lp]
    seq = A.task_sequence(ds, plan, "zoé")
    for t in seq[:2]:  # a classmate judged the same two items: one error each
        A.save_judgement(name, lp, "bo", "mqm", t, None, [_err(t.text, 0, 0, "minor", "Style")])
    at = _open("annotate", {"dataset_label": _label(name), "dataset_select": _label(name), "ann_rater": "zoé",
                            "ann_protocol": "mqm"})
    assert not at.error, [e.value for e in at.error]
    # item 1: words 1-2 a major Accuracy error, word 1 a minor Fluency one -> −6
    next(s for s in at.get("select_slider") if s.key.startswith("ann_words::")).set_value((0, 1)).run()
    next(r for r in at.radio if r.key.startswith("ann_sev::")).set_value("major").run()
    next(s for s in at.selectbox if s.key.startswith("ann_cat::")).set_value("Accuracy").run()
    next(b for b in at.button if b.key.startswith("ann_add::")).click().run()
    next(s for s in at.get("select_slider") if s.key.startswith("ann_words::")).set_value((0, 0)).run()
    next(r for r in at.radio if r.key.startswith("ann_sev::")).set_value("minor").run()
    next(s for s in at.selectbox if s.key.startswith("ann_cat::")).set_value("Fluency").run()
    next(b for b in at.button if b.key.startswith("ann_add::")).click().run()
    assert any("MQM score of your errors: -6" in m.value for m in at.markdown)
    assert any("major error &#40;Accuracy&#41;" in m.value for m in at.markdown)  # the tip, escaped
    next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    # item 2: no error -> 0
    assert any("MQM score of your errors: 0" in m.value for m in at.markdown)
    next(b for b in at.button if b.key.startswith("ann_go::")).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("2 of 4 done" in m.value for m in at.markdown)
    back = workspace.load_saved(name)[lp]  # reload: both judgements are there
    mine = back.judgements[(back.judgements["judgement"] == "class_mqm") & (back.judgements["rater"] == "zoé")]
    assert list(zip(mine["system"], mine["seg_id"], mine["score"])) == [
        (seq[0].system, seq[0].seg_id, -6.0), (seq[1].system, seq[1].seg_id, 0.0)]
    errs = back.extras[A.MQM_EXTRA]
    errs = errs[errs["rater"] == "zoé"]
    assert list(zip(errs["category"], errs["severity"])) == [("Accuracy", "major"), ("Fluency", "minor"),
                                                             ("No-error", "no-error")]
    assert errs.iloc[0]["span_text"] == " ".join(seq[0].text.split()[:2])

    cls = _open("classroom", {"dataset_label": _label(name), "dataset_select": _label(name), "cls_protocol": "mqm"})
    assert not cls.error, [e.value for e in cls.error]
    prog = next(df.value for df in cls.dataframe if "assigned" in df.value.columns)
    assert sorted(prog["rater"]) == ["bo", "zoé"] and list(prog["saved"]) == [2, 2]
    pairs = next(df.value for df in cls.dataframe if "rater_a" in df.value.columns)
    assert len(pairs) == 1 and pairs.iloc[0]["shared_items"] == 2
    # bo: −1, −1; zoé: −6, 0 -> α of the two (interval) by the krippendorff package
    import krippendorff

    ref = krippendorff.alpha(reliability_data=[[-1.0, -1.0], [-6.0, 0.0]], level_of_measurement="interval")
    assert pairs.iloc[0]["alpha"] == pytest.approx(ref, abs=1e-9)
    assert any("Agreement between students" in h.value for h in cls.subheader)
