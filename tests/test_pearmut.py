"""Pearmut annotation logs: reading (spans converted to evalcore's ESA convention, QC items
set apart), every problem at once, writing, round trips through the CLI.

tests/fixtures/pearmut/annotations.jsonl is written by hand in the layout of Pearmut's
annotation log (one JSON line per submitted document: user_id, item_i, item[], annotation[]).
Span convention checked by hand: Pearmut's end_i is inclusive and an omission sits on the
[missing] token at index len(text); "Hezký den." span 0..3 inclusive = "Hezk" = ESA 0..4.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from evalcore.io.pearmut import pearmut_jsonl, read_pearmut, read_pearmut_file
from evalcore.core.problems import DataError

FIXTURE = ROOT / "tests" / "fixtures" / "pearmut" / "annotations.jsonl"


def line(user, item_i, items, anns):
    return json.dumps({"user_id": user, "item_i": item_i, "item": items, "annotation": anns}) + "\n"


def test_reads_scores_spans_and_sets_qc_apart():
    imp = read_pearmut_file(FIXTURE, lp="en-cs")
    j = imp.judgements
    assert list(j.columns[:6]) == ["lp", "system", "seg_id", "rater", "judgement", "score"]
    assert len(j) == 10 and set(j["judgement"]) == {"esa"} and set(j["lp"]) == {"en-cs"}
    a = j[(j["rater"] == "alice") & (j["seg_id"] == "d1_#_0")].set_index("system")
    assert a.loc["sysA", "score"] == 85.0
    span = json.loads(a.loc["sysA", "esa_spans_json"])[0]
    assert (span["start_i"], span["end_i"], span["severity"]) == (0, 4, "minor")
    assert "Hezký den."[span["start_i"]:span["end_i"]] == "Hezk"
    assert json.loads(a.loc["sysB", "esa_spans_json"])[0]["start_i"] == "missing"  # the [missing] token of "Den."
    kinds = dict(zip(imp.set_aside["item_type"], imp.set_aside["line"]))
    assert kinds == {"tutorial": 1, "attention": 4, "unscored": 5, "superseded": 6}
    # the resubmitted document counts once, with its last score (line 7), like Pearmut's own ranking
    assert j[(j["rater"] == "alice") & (j["seg_id"] == "d2_#_0")]["score"].tolist() == [55.0]
    assert 20.0 not in set(j["score"])  # the attention check's score is not a system score
    assert imp.lines == [2, 2, 2, 2, 3, 3, 3, 3, 5, 7]
    assert dict(zip(zip(imp.texts["system"], imp.texts["seg_id"]), imp.texts["text"]))[("sysB", "d1_#_0")] == "Den."


def test_every_problem_is_reported_at_once_with_its_line():
    good_item = [{"item_id": "s1", "tgt": {"m": "Abc."}}]
    data = (line("u1", 0, good_item, [{"m": {"score": 50, "error_spans": []}}])            # 1 ok
            + "{not json\n"                                                                 # 2
            + line("", 1, good_item, [{"m": {"score": 50}}])                                # 3
            + line("u1", 2, [{"tgt": {"m": "x"}}], [{"m": {"score": 50}}])                  # 4 no item_id
            + line("u1", 3, good_item, [{"m": {"score": "high"}}])                          # 5
            + line("u1", 4, good_item, [{"m": {"score": 50, "error_spans": [{"start_i": 3, "end_i": 1}]}}])  # 6
            + line("u1", 5, good_item, []))                                                 # 7
    with pytest.raises(DataError) as exc:
        read_pearmut(data.encode(), "log.jsonl")
    errs = [str(p) for p in exc.value.report.errors]
    joined = "\n".join(errs)
    assert "line 2: is not valid JSON" in joined
    assert "line 3: has no user_id" in joined
    assert "line 4: an item has no item_id" in joined
    assert "line 5: score 'high'" in joined
    assert "line 6: error spans of model 'm', item 's1': span 3..1 runs backwards" in joined
    assert "line 7: 'item' and 'annotation' must be lists of the same length" in joined
    assert len(errs) == 6


def test_older_layout_and_sliders():
    old = json.dumps({"user_id": "carol", "item_i": 0, "annotation": {"Gemini": {"score": 82, "error_spans": []},
                                                                       "Llama": {"score": 85, "error_spans": []}}})
    imp = read_pearmut((old + "\n").encode())
    assert imp.judgements[["system", "seg_id", "score", "judgement"]].values.tolist() == \
        [["Gemini", "0", 82.0, "da"], ["Llama", "0", 85.0, "da"]]
    sl = line("u", 0, [{"item_id": "s", "tgt": {"m": "x"}}], [{"m": {"sliders": {"Fluency": 4, "Adequacy": 70}}}])
    j = read_pearmut(sl.encode()).judgements
    assert dict(zip(j["judgement"], j["score"])) == {"Fluency": 4.0, "Adequacy": 70.0}


def test_write_then_read_gives_the_same_judgements():
    imp = read_pearmut_file(FIXTURE, lp="en-cs")
    text = pearmut_jsonl(imp.judgements, imp.texts, imp.sources)
    back = read_pearmut(text.encode("utf-8"), "back.jsonl", lp="en-cs")
    pd.testing.assert_frame_equal(back.judgements, imp.judgements)
    assert back.set_aside.empty
    # an omission cannot be placed without the output's text
    with pytest.raises(ValueError, match="missing"):
        pearmut_jsonl(imp.judgements)


def test_cli_import_then_export_round_trip(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    imp = read_pearmut_file(FIXTURE, lp="en-cs")
    segs = imp.sources[imp.sources["seg_id"].str.startswith("d")]
    (ds / "segments.tsv").write_text("lp\tseg_id\tsource\n" + "".join(f"en-cs\t{g}\t{s}\n" for g, s in
                                                                      zip(segs["seg_id"], segs["source"])))
    outs = imp.texts[imp.texts["seg_id"].str.startswith("d")]
    (ds / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"en-cs\t{s}\t{g}\t{t}\n" for s, g, t in zip(outs["system"], outs["seg_id"], outs["text"])))
    out = tmp_path / "j.tsv"
    r = subprocess.run([sys.executable, "-m", "evalcore", "import-judgements", str(FIXTURE), "--format", "pearmut",
                        "--lp", "en-cs", "--dataset", str(ds), "--out", str(out)], capture_output=True, text=True,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    (ds / "judgements.tsv").write_bytes(out.read_bytes())
    back = tmp_path / "back.jsonl"
    r = subprocess.run([sys.executable, "-m", "evalcore", "export-judgements", str(ds), "--format", "pearmut",
                        "--out", str(back)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    again = read_pearmut(back.read_bytes(), "back.jsonl", lp="en-cs")
    pd.testing.assert_frame_equal(again.judgements, imp.judgements)
