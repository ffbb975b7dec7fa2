"""Appraise CSV exports: reading (every problem at once, QC rows set apart), writing, round
trips, the CLI, and agreement of imported judgements against a hand-worked example.

The fixture tests/fixtures/appraise/esa_small.csv is written by hand in the layout of
Appraise's ExportSystemScoresToCSV (headerless; userID, systemID, itemID, itemType,
sourceLanguage, targetLanguage, score, documentID, isCompleteDocument, mqm, startTime, endTime),
the layout of WMT24's humeval/esa_generalMT2024_wave*.csv.
"""
from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from evalcore.io.appraise import appraise_csv, read_appraise, read_appraise_file
from evalcore.core.problems import DataError

FIXTURE = ROOT / "tests" / "fixtures" / "appraise" / "esa_small.csv"

DA_ROWS = (
    "u1,sysA,10,TGT,deu,eng,71,docA,False,1600000000.5,1600000010.0\n"
    "u1,sysB,10,TGT,deu,eng,42,docA,False,1600000020.0,1600000031.0\n"
    "u2,sysA,10,TGT,deu,eng,66,docA,False,1600000100.0,1600000120.0\n"
)


def errors(data: str) -> list[str]:
    with pytest.raises(DataError) as exc:
        read_appraise(data.encode("utf-8"), "export.csv")
    return [str(p) for p in exc.value.report.errors]


def test_esa_export_reads_into_tidy_judgements_with_qc_set_apart():
    imp = read_appraise_file(FIXTURE)
    j = imp.judgements
    assert list(j.columns[:6]) == ["lp", "system", "seg_id", "rater", "judgement", "score"]
    assert len(j) == 12 and set(j["judgement"]) == {"esa"} and set(j["lp"]) == {"eng-ces"}
    row = j[(j["rater"] == "ben02") & (j["system"] == "sysB") & (j["seg_id"] == "1")].iloc[0]
    assert row["score"] == 50.0 and row["doc_id"] == "doc1" and row["start_time"] == "1724877020.0"
    assert '"start_i":0,"end_i":4' in row["esa_spans_json"]
    # the line of the fixture each judgement came from (1-based; no header)
    assert imp.lines == list(range(1, 13))
    aside = imp.set_aside
    assert list(aside["item_type"]) == ["BAD", "CHK", "REF"] and list(aside["line"]) == [13, 14, 15]
    # QC scores never enter the judgements: sysB/2 by ben02 is the TGT 75, not the BAD 10
    assert j[(j["rater"] == "ben02") & (j["system"] == "sysB") & (j["seg_id"] == "2")]["score"].tolist() == [75.0]
    assert "refA" not in set(j["system"])
    text = "\n".join(map(str, imp.warnings))
    assert "line 13" in text and "BAD" in text and "CHK" in text and "REF" in text


def test_da_layout_and_document_scores_set_aside():
    data = DA_ROWS + "u2,sysA,docA,TGT,deu,eng,80,docA,True,1600000200.0,1600000260.0\n"
    imp = read_appraise(data.encode(), "da.csv")
    assert set(imp.judgements["judgement"]) == {"da"} and "esa_spans_json" not in imp.judgements
    assert imp.judgements["score"].tolist() == [71.0, 42.0, 66.0]
    assert imp.set_aside["item_type"].tolist() == ["document"] and imp.set_aside["line"].tolist() == [4]
    assert any("isCompleteDocument" in str(w) and "line 4" in str(w) for w in imp.warnings)


def test_header_row_is_recognised_and_lp_can_be_renamed():
    header = "userID,systemID,itemID,itemType,sourceLanguage,targetLanguage,score,documentID," \
             "isCompleteDocument,startTime,endTime\n"
    imp = read_appraise((header + DA_ROWS).encode(), "da.csv", lp="de-en", judgement="adequacy")
    assert set(imp.judgements["lp"]) == {"de-en"} and set(imp.judgements["judgement"]) == {"adequacy"}
    assert imp.lines == [2, 3, 4]


def test_missing_column_is_reported_with_the_expected_layout():
    short = "\n".join(",".join(r.split(",")[:10]) for r in DA_ROWS.strip().split("\n")) + "\n"
    errs = errors(short)
    assert len(errs) == 1 and "line 1" in errs[0] and "has 10 fields" in errs[0] and "isCompleteDocument" in errs[0]


def test_every_problem_is_reported_at_once_with_its_line():
    data = (DA_ROWS
            + "u3,sysA,10,TGT,deu,eng,abc,docA,False,1600000300.0,1600000310.0\n"      # line 4
            + "u3,sysB,10,TGT,deu,eng,150,docA,False,1600000320.0,1600000330.0\n"      # line 5
            + "u3,sysC,10,XYZ,deu,eng,50,docA,False,1600000340.0,1600000350.0\n"       # line 6
            + "u3,sysD,10,TGT,deu,eng,50,docA,maybe,1600000360.0,1600000370.0\n"       # line 7
            + "u3,,10,TGT,deu,eng,50,docA,False,1600000380.0,1600000390.0\n"           # line 8
            + "u3,sysE,10,TGT,deu,eng,50,docA,False,yesterday,1600000400.0\n"          # line 9
            + "u3,sysF,10,TGT,deu,eng,50,docA,False,1600000410.0\n"                    # line 10
            + "u1,sysB,10,TGT,deu,eng,42,docA,False,1600000020.0,1600000031.0\n")      # line 11 = line 2
    errs = errors(data)
    joined = "\n".join(errs)
    assert "line 4: score 'abc' is not a number" in joined
    assert "line 5: score '150' is outside 0-100" in joined
    assert "line 6: unknown item type 'XYZ'" in joined
    assert "line 7: isCompleteDocument is 'maybe'" in joined
    assert "line 8: empty systemID" in joined
    assert "line 9: startTime 'yesterday' is not a number" in joined
    assert "line 10: has 10 fields but the first row has 11" in joined
    assert "line 11: repeats line 2" in joined
    assert len(errs) == 8


def test_broken_error_span_json_is_reported():
    row = 'u1,sysA,1,TGT,eng,ces,90,d,False,"[{""start_i"": 3,",1.0,2.0\n'
    row2 = 'u1,sysB,1,TGT,eng,ces,90,d,False,"{""start_i"": 3}",1.0,2.0\n'
    errs = errors(row + row2)
    assert "line 1: the error-span field (mqm) is not a JSON list" in errs[0]
    assert "line 2" in errs[1] and "JSON dict" in errs[1]


def test_repeated_rating_at_other_times_is_kept_with_a_warning():
    data = DA_ROWS + "u1,sysA,10,TGT,deu,eng,75,docA,False,1600000500.0,1600000510.0\n"
    imp = read_appraise(data.encode(), "da.csv")
    assert imp.judgements[(imp.judgements["rater"] == "u1") & (imp.judgements["system"] == "sysA")]["score"] \
        .tolist() == [71.0, 75.0]
    assert any("rated more than once" in str(w) and "lines 1, 4" in str(w) for w in imp.warnings)


def test_several_language_pairs_cannot_share_one_lp():
    data = DA_ROWS + "u1,sysA,10,TGT,eng,deu,71,docA,False,1600000600.0,1600000610.0\n"
    assert sorted(set(read_appraise(data.encode()).judgements["lp"])) == ["deu-eng", "eng-deu"]
    with pytest.raises(DataError, match="several language pairs"):
        read_appraise(data.encode(), lp="de-en")


def test_write_then_read_gives_the_same_tables_and_the_same_bytes():
    raw = FIXTURE.read_bytes()
    imp = read_appraise(raw, "esa_small.csv")
    text = appraise_csv(imp.judgements, imp.set_aside.drop(columns=["line"]))
    assert text.encode("utf-8") == raw  # judgements first, then the QC rows: the fixture's order
    back = read_appraise(text.encode("utf-8"), "esa_small.csv")
    pd.testing.assert_frame_equal(back.judgements, imp.judgements)
    pd.testing.assert_frame_equal(back.set_aside, imp.set_aside)
    # a bare tidy table (no Appraise fields): written with empty times and read back equal
    bare = imp.judgements[["lp", "system", "seg_id", "rater", "judgement", "score"]]
    again = read_appraise(appraise_csv(bare).encode("utf-8"), "x.csv", judgement="esa").judgements
    pd.testing.assert_frame_equal(again[bare.columns.tolist()], bare)


def test_cli_import_load_export_round_trip(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "segments.tsv").write_text("lp\tseg_id\tsource\nen-cs\t1\tHello\nen-cs\t2\tDay\nen-cs\t3\tBye\n")
    (ds / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"en-cs\t{s}\t{i}\t{s} {i}\n" for s in ("sysA", "sysB") for i in (1, 2, 3)))
    out = tmp_path / "judgements.tsv"
    run = [sys.executable, "-m", "evalcore", "import-judgements", str(FIXTURE), "--format", "appraise",
           "--out", str(out), "--lp", "en-cs", "--dataset", str(ds)]
    r = subprocess.run(run, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "set aside (BAD 1, CHK 1, REF 1)" in r.stderr
    aside = pd.read_csv(tmp_path / "judgements.set_aside.tsv", sep="\t", dtype=str)
    assert aside["item_type"].tolist() == ["BAD", "CHK", "REF"]
    (ds / "judgements.tsv").write_bytes(out.read_bytes())
    from evalcore.io import load_dataset

    loaded = load_dataset(ds)
    assert len(loaded.judgements) == 12 and set(loaded.judgements["rater"]) == {"anna01", "ben02"}
    assert "esa_spans" in loaded.extras  # the error spans travel with the tidy table
    back = tmp_path / "back.csv"
    r = subprocess.run([sys.executable, "-m", "evalcore", "export-judgements", str(ds), "--out", str(back)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    fixture_tgt = FIXTURE.read_text().splitlines()[:12]
    assert back.read_text().splitlines() == [ln.replace("eng,ces", "en,cs") for ln in fixture_tgt]


def test_cli_import_against_a_dataset_names_unknown_segments(tmp_path):
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "segments.tsv").write_text("lp\tseg_id\tsource\nen-cs\t1\tHello\nen-cs\t2\tDay\n")
    (ds / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\nen-cs\tsysA\t1\tx\n")
    r = subprocess.run([sys.executable, "-m", "evalcore", "import-judgements", str(FIXTURE), "--format",
                        "appraise", "--out", str(tmp_path / "j.tsv"), "--dataset", str(ds)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "language pair 'eng-ces' is not in" in r.stderr and "--lp" in r.stderr
    r = subprocess.run([sys.executable, "-m", "evalcore", "import-judgements", str(FIXTURE), "--format",
                        "appraise", "--out", str(tmp_path / "j.tsv"), "--dataset", str(ds), "--lp", "en-cs"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "segment id(s) not in" in r.stderr and "'3'" in r.stderr
    assert "lines 5, 6, 11, 12" in r.stderr
    assert not (tmp_path / "j.tsv").exists()  # nothing written on errors


def test_imported_judgements_give_the_hand_worked_agreement():
    """Two raters, three segments, systems A and B (fixture TGT rows):

    anna01: seg1 90 vs 60 -> '>', seg2 100 vs 70 -> '>', seg3 80 vs 85 -> '<'
    ben02:  seg1 95 vs 50 -> '>', seg2 75 vs 75 -> '=', seg3 60 vs 90 -> '<'
    Inter-rater pairs: seg1 agree, seg2 disagree, seg3 agree -> P(A) = 2/3.
    Uniform chance P(E) = 1/3 -> kappa = (2/3 - 1/3) / (2/3) = 1/2.
    Empirical chance over the 6 labels (3 '>', 2 '<', 1 '='): (1/2)^2 + (1/3)^2 + (1/6)^2 = 7/18
    -> kappa = (2/3 - 7/18) / (11/18) = 5/11 (methods §5.3).
    """
    from evalcore.human.agreement import agreement, pairwise_labels

    labels = pairwise_labels(read_appraise_file(FIXTURE).judgements)
    uni = agreement(labels, "inter", "uniform")
    assert uni["n_pairs"] == 3
    assert uni["p_agree"] == pytest.approx(2 / 3, abs=1e-12) and uni["kappa"] == pytest.approx(0.5, abs=1e-12)
    emp = agreement(labels, "inter", "empirical")
    assert emp["p_chance"] == pytest.approx(7 / 18, abs=1e-12) and emp["kappa"] == pytest.approx(5 / 11, abs=1e-12)


def test_imported_judgements_alpha_matches_the_krippendorff_package():
    krippendorff = pytest.importorskip("krippendorff", reason="the krippendorff package is the reference")
    import numpy as np

    from evalcore.human.agreement import alpha_of_judgements

    j = read_appraise_file(FIXTURE).judgements
    items = [("sysA", "1"), ("sysB", "1"), ("sysA", "2"), ("sysB", "2"), ("sysA", "3"), ("sysB", "3")]
    data = np.array([[j[(j["rater"] == r) & (j["system"] == s) & (j["seg_id"] == g)]["score"].iloc[0]
                      for s, g in items] for r in ("anna01", "ben02")])
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert alpha_of_judgements(j).value == pytest.approx(want, abs=1e-9)


def _tidy_without_judgements(folder, lp="en-cs"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "segments.tsv").write_text(f"lp\tseg_id\tsource\n{lp}\t1\tHello\n{lp}\t2\tDay\n{lp}\t3\tBye\n")
    (folder / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"{lp}\t{s}\t{i}\t{s} {i}\n" for s in ("sysA", "sysB") for i in (1, 2, 3)))
    return folder


def test_an_uploaded_appraise_export_becomes_the_datasets_judgements(tmp_path):
    from evalcore.io import FileSource, load_collection
    from evalcore.io.judgement_io import with_platform_judgements

    folder = _tidy_without_judgements(tmp_path / "up")
    (folder / "campaign.csv").write_bytes(FIXTURE.read_bytes())
    src, notes = with_platform_judgements(FileSource.from_path(folder))
    coll = load_collection(src)
    ds = coll["en-cs"]
    assert len(ds.judgements) == 12 and ds.extras["judgements_set_aside"]["item_type"].tolist() == ["BAD", "CHK", "REF"]
    assert any("read as language pair 'en-cs'" in str(n) for n in notes)
    assert any("BAD" in str(n) and "line 13" in str(n) for n in notes)
    (folder / "judgements.tsv").write_text("lp\tsystem\tseg_id\trater\tjudgement\tscore\n")
    with pytest.raises(ValueError, match="both judgements.tsv and the export"):
        with_platform_judgements(FileSource.from_path(folder))


def test_data_page_saves_an_appraise_export_with_the_tidy_files(workspace_home, tmp_path):
    from streamlit.testing.v1 import AppTest

    from evalcore.io import workspace

    folder = _tidy_without_judgements(tmp_path / "campaign")
    (folder / "wave.csv").write_bytes(FIXTURE.read_bytes())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.text_input(key="import_path").input(str(folder))
    at.text_input(key="save_name").input("appraise-upload")
    at.button(key="do_import").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Saved as" in s.value for s in at.success), [e.value for e in at.error]
    ds = workspace.load_saved("appraise-upload")["en-cs"]
    assert len(ds.judgements) == 12 and len(ds.extras["judgements_set_aside"]) == 3


def test_other_csv_files_of_an_upload_are_left_alone(tmp_path):
    from evalcore.io import FileSource
    from evalcore.io.judgement_io import platform_export, with_platform_judgements

    folder = _tidy_without_judgements(tmp_path / "up")
    (folder / "notes.csv").write_text("system,comment\nsysA,fine\n")
    (folder / "log.jsonl").write_text('{"event": "upload"}\n')
    src = FileSource.from_path(folder)
    assert platform_export(src) is None
    assert with_platform_judgements(src) == (src, [])
    (folder / "a.csv").write_bytes(FIXTURE.read_bytes())
    (folder / "b.csv").write_bytes(FIXTURE.read_bytes())
    with pytest.raises(ValueError, match="several annotation exports"):
        platform_export(FileSource.from_path(folder))


def test_export_says_when_platform_fields_cannot_be_matched(tmp_path):
    ds = _tidy_without_judgements(tmp_path / "ds")
    (ds / "judgements.tsv").write_text(
        "lp\tsystem\tseg_id\trater\tjudgement\tscore\tdoc_id\n"
        "en-cs\tsysA\t1\tr1\tda\t70\td1\n"
        "en-cs\tsysA\t\tgiven\tda\t65\t\n")  # a system-level row: the judgements lose a row
    out = tmp_path / "x.csv"
    r = subprocess.run([sys.executable, "-m", "evalcore", "export-judgements", str(ds), "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "could not be matched row by row" in r.stderr and "doc_id" in r.stderr
    assert out.read_text() == "r1,sysA,1,TGT,en,cs,70,,False,,\n"
