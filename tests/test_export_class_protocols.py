"""export-judgements with the Annotate page's protocols: DA and ESA judgements of a class go to
Appraise's CSV and Pearmut's JSONL and import back as the same judgements; MQM-lite
(``class_mqm``) and relative ranking (``class_rank``) fit neither layout (one 0-100 score per
output, read back as DA/ESA) and are refused with a message naming the protocol and what is
supported, nothing written."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evalcore.analysis import annotate as A
from evalcore.cli import main
from evalcore.io.appraise import NOT_EXPORTABLE, appraise_csv, read_appraise
from evalcore.io.pearmut import pearmut_jsonl, read_pearmut

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


@pytest.fixture
def folder(workspace_home):
    """A saved dataset of the sample with class judgements of every protocol, written into its
    TSVs by a full save (the teacher's settings)."""
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    name = workspace.save(coll, "class")
    lp = next(iter(coll))
    ds = coll[lp]
    plan = A.Plan(items_per_student=4, overlap=0.5, qc=False, rank_outputs=3)
    for t in A.rank_sequence(ds, plan, "bo")[:2]:
        A.save_ranking(name, lp, "bo", t, [1, 2, 2])
    for k, t in enumerate(A.task_sequence(ds, plan, "ana")[:2]):
        A.save_judgement(name, lp, "ana", "mqm", t, None, [A.words_to_span(t.text, 0, 0, "minor") | {"category": "Style"}])
        A.save_judgement(name, lp, "cy", "da", t, 40 + k)
        A.save_judgement(name, lp, "dee", "esa", t, 70 - k, [A.words_to_span(t.text, 1, 1, "major")])
    A.save_plan(name, lp, plan)
    return workspace.datasets_dir() / name, lp, workspace.load_saved(name)[lp]


def test_the_refused_kinds_are_the_annotate_pages_rank_and_mqm_criteria():
    assert set(NOT_EXPORTABLE) == {A.CRITERIA["rank"], A.CRITERIA["mqm"]}


@pytest.mark.parametrize("fmt", ["appraise", "pearmut"])
@pytest.mark.parametrize("protocol, words", [("rank", "relative ranking"), ("mqm", "MQM-lite")])
def test_ranking_and_mqm_lite_are_refused_with_a_clear_message(folder, tmp_path, capsys, fmt, protocol, words):
    path, lp, ds = folder
    crit = A.CRITERIA[protocol]
    assert (ds.judgements["judgement"] == crit).sum() > 0  # there is something to refuse
    out = tmp_path / f"out.{fmt}"
    rc = main(["export-judgements", str(path), "--format", fmt, "--out", str(out), "--judgement", crit])
    err = capsys.readouterr().err
    assert rc == 2
    assert f"'{crit}'" in err and words in err and "supported: direct assessment" in err and "ESA" in err
    assert "Nothing was written" in err and not out.exists()


@pytest.mark.parametrize("protocol", ["da", "esa"])
def test_class_da_and_esa_round_trip_through_both_platforms(folder, tmp_path, protocol):
    path, lp, ds = folder
    crit = A.CRITERIA[protocol]
    j = ds.judgements[ds.judgements["judgement"] == crit]
    assert len(j) == 2
    key = ["system", "seg_id", "rater", "judgement", "score"]
    want = j[key].astype({"seg_id": str}).sort_values(key).reset_index(drop=True)
    for fmt in ("appraise", "pearmut"):
        out = tmp_path / f"out.{fmt}"
        assert main(["export-judgements", str(path), "--format", fmt, "--out", str(out), "--judgement", crit]) == 0
        read = read_appraise if fmt == "appraise" else read_pearmut
        back = read(out.read_bytes(), out.name, judgement=crit, lp=lp).judgements
        got = back[key].astype({"seg_id": str}).sort_values(key).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
        if protocol == "esa":  # the spans come back in evalcore's ESA convention
            spans = ds.extras[A.ESA_EXTRA].set_index(["system", "seg_id", "rater"])["esa_spans_json"]
            for r in back.to_dict("records"):
                assert r["esa_spans_json"].replace(" ", "") == spans[(r["system"], r["seg_id"], r["rater"])].replace(" ", "")


def test_the_writers_refuse_them_too_and_appraise_refuses_scores_outside_0_100():
    rows = pd.DataFrame({"lp": ["es-en"] * 2, "system": ["a", "b"], "seg_id": ["1", "1"], "rater": ["r", "r"],
                         "judgement": ["class_rank"] * 2, "score": [1.0, 2.0]})
    with pytest.raises(ValueError, match="relative ranking"):
        appraise_csv(rows)
    with pytest.raises(ValueError, match="relative ranking"):
        pearmut_jsonl(rows)
    mqm = rows.assign(judgement="mqm", score=[-5.0, 0.0])  # the experts' MQM scores: negative
    with pytest.raises(ValueError, match=r"1 score\(s\) of the judgements 'mqm' are not numbers from 0 to 100"):
        appraise_csv(mqm)


def test_rows_still_in_the_raters_journals_are_exported(folder, tmp_path, capsys):
    """Saves after the last full save are lines of the raters' journals in the dataset folder:
    an export of that folder includes them (and says so)."""
    from evalcore.io import journal, workspace

    path, lp, ds = folder
    plan = A.Plan(items_per_student=4, overlap=0.5, qc=False, rank_outputs=3)
    t = A.task_sequence(ds, plan, "ana")[2]
    A.save_judgement(path.name, lp, "cy", "da", t, 17)
    assert [p.name for p in path.iterdir() if journal.is_journal(p.name)]
    want = workspace.load_saved(path.name)[lp].judgements
    want = want[want["judgement"] == "class_da"]
    assert len(want) == 3
    out = tmp_path / "out.csv"
    assert main(["export-judgements", str(path), "--out", str(out), "--judgement", "class_da"]) == 0
    assert "journal file(s) merged" in capsys.readouterr().err
    back = read_appraise(out.read_bytes(), out.name, judgement="class_da", lp=lp).judgements
    assert sorted(zip(back["system"], back["seg_id"], back["rater"], back["score"])) == \
        sorted(zip(want["system"], want["seg_id"].astype(str), want["rater"], want["score"]))
