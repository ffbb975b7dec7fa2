"""Loaders for plain text, Google MQM TSV and the mt-metrics-eval layout.

Expectations are written by hand from the fixtures in tests/fixtures/ (written for these
tests, invented sentences). Real data is read from ../shared/data and never copied; those
tests skip when the folder is absent.
"""
from __future__ import annotations

import io
import math
import os
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from evalcore.io import FileSource, detect_format, load_collection, load_dataset, write_tidy
from evalcore.io.mqm import (DEFAULT_WEIGHTS, error_weight, human_ref_id, lp_from_filename, mqm_scores,
                             parse_weights, strip_markers)
from evalcore.core.problems import DataError

from conftest import SHARED_DATA, shared  # noqa: E402

FIX = Path(__file__).parent / "fixtures"
PLAIN = FIX / "plaintext_tiny"
MTME = FIX / "mtme_tiny"
MQM = FIX / "mqm_tiny"
SHARED = SHARED_DATA
needs_shared = pytest.mark.skipif(not SHARED.is_dir() and os.environ.get("CI") != "true",
                                  reason=f"real data folder {SHARED} is absent (research-use data, not shipped with the project)")


def rows(df: pd.DataFrame, cols: list[str]) -> list[tuple]:
    return [tuple(r) for r in df[cols].itertuples(index=False)]


def errors_of(exc: pytest.ExceptionInfo) -> list:
    return exc.value.report.errors


def zip_bytes(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return buf.getvalue()


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_fixture(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst


# =====================================================================================
# plain text
# =====================================================================================
PLAIN_SRC = ["El gato duerme junto a la ventana.", "Mañana lloverá en la costa.",
             "La biblioteca abre a las nueve.", "¿Dónde está la estación de tren?"]
PLAIN_REFS = {"A": ["The cat sleeps by the window.", "It will rain on the coast tomorrow.",
                    "The library opens at nine.", "Where is the train station?"],
              "B": ["The cat is sleeping next to the window.", "Tomorrow it will rain on the coast.",
                    "The library opens at nine o'clock.", "Where is the railway station?"]}
PLAIN_SYS = {"literal": ["The cat sleeps near the window.", "Tomorrow will rain in the coast.",
                         "The library opens at nine.", "Where is the station of train?"],
             "near_human": ["The cat sleeps by the window.", "It will rain on the coast tomorrow.",
                            "The bookshop opens at nine.", "Where is the train station?"]}


def test_plaintext_fixture_exact_content():
    assert detect_format(FileSource.from_path(PLAIN)) == "plaintext"
    coll = load_collection(PLAIN)
    assert list(coll) == ["es-en"]
    ds = coll["es-en"]
    assert ds.lp == "es-en" and ds.name == "plaintext_tiny"
    assert rows(ds.segments, ["seg_id", "doc_id", "source"]) == [
        ("1", "doc1", PLAIN_SRC[0]), ("2", "doc1", PLAIN_SRC[1]), ("3", "doc2", PLAIN_SRC[2]), ("4", "doc2", PLAIN_SRC[3])]
    assert ds.ref_ids == ["A", "B"] and ds.systems == ["literal", "near_human"]
    assert ds.ref_texts() == PLAIN_REFS
    assert ds.sys_texts() == PLAIN_SYS
    assert rows(ds.judgements, ["system", "seg_id", "rater", "judgement", "score"]) == [
        ("literal", "1", "r1", "adequacy", 4.0), ("literal", "2", "r1", "adequacy", 3.0),
        ("near_human", "1", "r1", "adequacy", 5.0), ("near_human", "3", "r2", "adequacy", 2.0),
        ("B", "4", "r2", "fluency", 5.0)]
    assert rows(ds.tags, ["system", "seg_id", "tag"]) == [("literal", "4", "literal"),
                                                         ("near_human", "3", "wrong_word_sense")]
    assert ds.warnings == []


def test_plaintext_final_newline_adds_no_segment_and_crlf_bom_accepted(tmp_path):
    base = load_dataset(PLAIN)
    folder = copy_fixture(PLAIN, tmp_path)
    # no final newline in src, CRLF + BOM in a reference, CRLF in a system, BOM in lp.txt
    (folder / "src.txt").write_text("\n".join(PLAIN_SRC), encoding="utf-8")
    (folder / "ref.A.txt").write_bytes(b"\xef\xbb\xbf" + "\r\n".join(PLAIN_REFS["A"]).encode() + b"\r\n")
    (folder / "sys.literal.txt").write_bytes("\r\n".join(PLAIN_SYS["literal"]).encode())
    (folder / "lp.txt").write_bytes(b"\xef\xbb\xbfes-en\r\n")
    ds = load_dataset(folder, name="plaintext_tiny")
    assert ds.content_hash() == base.content_hash()
    assert ds.ref_texts()["A"][0] == "The cat sleeps by the window."  # no BOM kept in the text


def test_plaintext_extra_blank_final_line_is_a_segment(tmp_path):
    folder = copy_fixture(PLAIN, tmp_path)
    (folder / "sys.literal.txt").write_text("\n".join(PLAIN_SYS["literal"]) + "\n\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    (err,) = errors_of(exc)
    assert err.file == "sys.literal.txt" and "5 lines" in err.message and "src.txt has 4" in err.message


def test_plaintext_mismatched_line_counts_all_reported(tmp_path):
    folder = copy_fixture(PLAIN, tmp_path)
    (folder / "ref.B.txt").write_text("\n".join(PLAIN_REFS["B"][:3]) + "\n", encoding="utf-8")
    (folder / "sys.near_human.txt").write_text("\n".join(PLAIN_SYS["near_human"] + ["extra"]) + "\n", encoding="utf-8")
    (folder / "docs.txt").write_text("doc1\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    by_file = {e.file: e.message for e in errors_of(exc)}
    assert set(by_file) == {"ref.B.txt", "sys.near_human.txt", "docs.txt"}
    assert "has 3 lines but src.txt has 4" in by_file["ref.B.txt"]
    assert "has 5 lines but src.txt has 4" in by_file["sys.near_human.txt"]
    assert "has 1 line but src.txt has 4" in by_file["docs.txt"]
    assert "ref.B.txt" in str(exc.value) and "sys.near_human.txt" in str(exc.value)


def test_plaintext_invalid_utf8_cp1252_and_nul(tmp_path):
    folder = copy_fixture(PLAIN, tmp_path)
    text = "Line one.\nLine two.\nThe café is open.\nLine four.\n"
    (folder / "sys.cp.txt").write_bytes(text.encode("cp1252"))
    (folder / "sys.nul.txt").write_bytes(b"one\ntwo\nthree\x00\nfour\n")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    by_file = {e.file: e for e in errors_of(exc)}
    assert set(by_file) == {"sys.cp.txt", "sys.nul.txt"}
    cp = by_file["sys.cp.txt"]
    assert cp.line == 3 and "not valid UTF-8" in cp.message and "Windows-1252" in cp.message
    assert "0xe9" in cp.message
    nul = by_file["sys.nul.txt"]
    assert nul.line == 3 and "NUL" in nul.message
    assert "sys.cp.txt, line 3" in str(exc.value)


def test_plaintext_empty_output_kept_with_warning(tmp_path):
    folder = copy_fixture(PLAIN, tmp_path)
    lines = list(PLAIN_SYS["literal"])
    lines[1] = "   "
    (folder / "sys.literal.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ds = load_dataset(folder)
    assert ds.sys_texts()["literal"][1] == "   "
    (w,) = ds.warnings
    assert w.file == "sys.literal.txt" and w.line == 2 and "'literal'" in w.message


def test_plaintext_bad_judgements_named_by_file_and_line(tmp_path):
    folder = copy_fixture(PLAIN, tmp_path)
    (folder / "judgements.tsv").write_text(
        "system\tseg_id\trater\tjudgement\tscore\nliteral\t1\tr1\tadequacy\t4\n"
        "literal\t9\tr1\tadequacy\t3\nliteral\t2\tr1\tadequacy\tgood\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    errs = errors_of(exc)
    assert all(e.file == "judgements.tsv" for e in errs) and len(errs) == 2
    unknown = next(e for e in errs if "segment id" in e.message)
    assert unknown.line == 3 and "'9'" in unknown.message
    non_num = next(e for e in errs if "non-numeric" in e.message)
    assert non_num.line == 4 and "'good'" in non_num.message


def test_plaintext_missing_source_and_nothing_to_evaluate(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "sys.x.txt").write_text("one\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(tmp_path / "a")
    assert "src.txt" in str(exc.value)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "src.txt").write_text("one\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(tmp_path / "b", fmt="plaintext")
    assert "nothing to evaluate" in str(exc.value)


def test_plaintext_zip_upload_same_content():
    base = load_dataset(PLAIN)
    files = folder_bytes(PLAIN)
    flat = FileSource.from_uploads({"plaintext_tiny.zip": zip_bytes(files)})
    nested = FileSource.from_uploads({"x.zip": zip_bytes({f"plaintext_tiny/{n}": d for n, d in files.items()})})
    loose = FileSource.from_uploads(files)  # several uploaded files, no zip
    for src in (flat, nested, loose):
        assert load_dataset(src, name="plaintext_tiny").content_hash() == base.content_hash()


def test_zip_with_escaping_member_refused():
    files = folder_bytes(PLAIN)
    files["../evil.txt"] = b"x\n"
    with pytest.raises(DataError) as exc:
        FileSource.from_uploads({"bad.zip": zip_bytes(files)})
    (err,) = errors_of(exc)
    assert err.file == "bad.zip" and "'../evil.txt'" in err.message and "escapes" in err.message


def test_zip_bomb_refused():
    # a highly compressible member: 2 MB of zeros, about 2 KB compressed (> 200x ratio)
    data = zip_bytes({"src.txt": b"a\n", "sys.x.txt": b"\0" * 2_000_000})
    assert len(data) < 20_000
    with pytest.raises(DataError) as exc:
        FileSource.from_uploads({"bomb.zip": data})
    assert any("zip bomb" in e.message and "sys.x.txt" in e.message for e in errors_of(exc))
    # the expanded-size limit (lowered so that the test stays small)
    small = zip_bytes({"src.txt": b"a\n" * 50_000})
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(small, "big.zip", max_total_bytes=10_000)
    assert any("over the 10,000-byte limit" in e.message for e in errors_of(exc))
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(small, "big.zip", max_file_bytes=10_000)
    assert any("'src.txt'" in e.message and "limit per file" in e.message for e in errors_of(exc))


def test_over_limit_upload_refused():
    files = folder_bytes(PLAIN)
    with pytest.raises(DataError) as exc:
        FileSource.from_uploads(files, max_file_bytes=100)
    named = {e.file for e in errors_of(exc)}
    assert named == {n for n, d in files.items() if len(d) > 100} and named
    assert all("upload limit" in e.message for e in errors_of(exc))


def test_plaintext_round_trip_through_tidy(tmp_path):
    ds = load_dataset(PLAIN)
    write_tidy(ds, tmp_path / "tidy")
    back = load_dataset(tmp_path / "tidy", name="plaintext_tiny")
    assert detect_format(FileSource.from_path(tmp_path / "tidy")) == "tidy"
    assert back.content_hash() == ds.content_hash()


# =====================================================================================
# Google MQM TSV
# =====================================================================================
def test_mqm_weights_spec_0_8():
    """Spec §0.8: Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Major Non-translation 25."""
    assert error_weight("Accuracy/Mistranslation", "Major") == 5
    assert error_weight("Style/Awkward", "minor") == 1
    assert error_weight("Fluency/Punctuation", "Minor") == 0.1
    assert error_weight("Fluency/Punctuation", "Major") == 5
    assert error_weight("Non-translation!", "Major") == 25
    assert error_weight("Non-translation", "Major") == 25
    assert error_weight("Other", "Neutral") == 0
    assert error_weight("No-error", "No-error") == 0
    assert error_weight("Other", "Critical") is None
    assert parse_weights("major:5 minor:1 No-error:0 minor/Fluency/Punctuation:0.1") == {
        "major": 5.0, "minor": 1.0, "no-error": 0.0, "minor/fluency/punctuation": 0.1}
    assert error_weight("Fluency/Punctuation", "Minor", "major:5 minor:1 minor/fluency/punctuation:0.5") == 0.5


def test_mqm_scores_by_hand_and_custom_weights():
    err = pd.DataFrame({
        "system": ["s", "s", "s", "t", "t"], "seg_id": ["1", "1", "2", "1", "1"],
        "rater": ["a", "a", "a", "a", "b"],
        "category": ["Accuracy/Omission", "Fluency/Punctuation", "No-error", "Non-translation!", "Other"],
        "severity": ["Major", "Minor", "No-error", "Major", "Neutral"],
        "weight": ["999", "999", "999", "999", "999"]})  # a precomputed column is ignored
    got = mqm_scores(err)
    assert list(got.columns) == ["system", "seg_id", "rater", "judgement", "score"]
    expect = [("s", "1", "a", "mqm", -5.1), ("s", "2", "a", "mqm", 0.0),
              ("t", "1", "a", "mqm", -25.0), ("t", "1", "b", "mqm", 0.0)]
    for g, e in zip(rows(got, list(got.columns)), expect):
        assert g[:4] == e[:4] and g[4] == pytest.approx(e[4], abs=1e-12)
    custom = mqm_scores(err, weights={**DEFAULT_WEIGHTS, "major": 10, "neutral": 0.5})
    assert custom["score"].tolist() == pytest.approx([-10.1, 0.0, -25.0, -0.5])
    with pytest.raises(ValueError, match="'Critical'"):
        mqm_scores(err.assign(severity=["Critical"] * 5))


def test_mqm_helpers():
    assert strip_markers('<v>"Hola"</v>, said the girl.') == ('"Hola", said the girl.', (0, 6))
    assert strip_markers("no marks") == ("no marks", None)
    assert [human_ref_id(n) for n in ["ref", "refB", "ref-b", "Human-A.0", "Online-W", "reference"]] == [
        "ref-A", "ref-B", "ref-B", "Human-A.0", None, None]
    assert [lp_from_filename(n) for n in ["mqm_ted_ende.tsv", "mqm_x_zh-en.tsv", "errors.tsv"]] == [
        "en-de", "zh-en", ""]


def test_mqm_raw_fixture_end_to_end():
    assert detect_format(FileSource.from_path(MQM)) == "mqm"
    coll = load_collection(MQM)
    assert list(coll) == ["es-en"]  # from the file name mqm_toy_esen.tsv
    ds = coll["es-en"]
    assert rows(ds.segments, ["seg_id", "doc_id", "source"]) == [
        ("1", "d1", "El tren sale a las ocho."), ("2", "d1", '"Hola", dijo la niña.')]
    assert ds.ref_texts() == {"ref-A": ["The train departs at eight.", '"Hello," the girl said.'],
                              "ref-B": ["The train goes at eight.", None]}
    assert ds.sys_texts() == {"sysA": ["The train leaves at eight.", '"Hola", said the girl.'],
                              "sysB": ["The train leave at eight.", '"Hello," said the girl.']}
    # hand-computed: sysA/2/r1 = Major Non-translation (25) + Minor Fluency/Punctuation (0.1)
    expect = {("sysA", "1", "r1"): 0.0, ("sysA", "1", "r2"): -1.0, ("sysA", "2", "r1"): -25.1,
              ("sysB", "1", "r1"): -5.0,  # Major grammar 5 + Neutral 0
              ("sysB", "2", "r1"): -1.0,  # Minor source error
              ("ref-A", "1", "r2"): 0.0, ("ref-A", "2", "r2"): -1.0, ("ref-B", "1", "r1"): 0.0}
    got = {(s, g, r): v for s, g, r, v in rows(ds.judgements, ["system", "seg_id", "rater", "score"])}
    assert set(got) == set(expect)
    assert all(abs(got[k] - expect[k]) < 1e-12 for k in expect)
    assert set(ds.judgements["judgement"]) == {"mqm"}
    err = ds.extras["mqm_errors"]
    assert len(err) == 10
    spans = rows(err, ["system", "seg_id", "span_in", "span_start", "span_end", "span_text"])
    assert ("sysA", "2", "target", 0, 6, '"Hola"') in spans
    assert ("sysA", "1", "target", 17, 25, "at eight") in spans
    assert ("sysB", "2", "source", 0, 6, '"Hola"') in spans
    assert ("ref-A", "2", "none", "", "", "") in spans
    (w,) = ds.warnings
    assert "'ref-B'" in w.message and "1 of 2" in w.message
    # the same file uploaded alone, and inside a zip
    data = (MQM / "mqm_toy_esen.tsv").read_bytes()
    for src in (FileSource.from_uploads({"mqm_toy_esen.tsv": data}),
                FileSource.from_uploads({"m.zip": zip_bytes({"mqm_toy_esen.tsv": data})})):
        assert load_dataset(src, name="mqm_tiny").content_hash() == ds.content_hash()


def test_mqm_raw_bad_rows_named(tmp_path):
    text = (MQM / "mqm_toy_esen.tsv").read_text(encoding="utf-8").splitlines()
    text[3] = text[3].replace("Major", "Critical")          # line 4
    text[5] = text[5] + "\textra"                           # line 6
    (tmp_path / "mqm_toy_esen.tsv").write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(tmp_path)
    errs = {e.line: e for e in errors_of(exc)}
    assert set(errs) == {4, 6} and all(e.file == "mqm_toy_esen.tsv" for e in errs.values())
    assert "'Critical'" in errs[4].message and "10 fields" in errs[6].message


def _shared_mqm() -> Path:
    return shared("wmt21_ted_mqm")


def _tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, dtype=str)


@needs_shared
def test_mqm_annotations_reproduce_ted_judgements():
    folder = _shared_mqm()
    ann = _tsv(folder / "mqm_annotations.tsv")
    jud = _tsv(folder / "judgements.tsv")
    ours = mqm_scores(ann)
    keys = ["lp", "system", "seg_id", "rater"]
    m = jud.merge(ours, on=keys, how="outer", suffixes=("_ref", "_ours"), indicator=True)
    assert (m["_merge"] == "both").all() and len(m) == len(jud)
    diff = (m["score_ref"].astype(float) - m["score_ours"]).abs()
    assert diff.max() <= 1e-9
    # the same through the loader: the annotation file alone is an MQM dataset
    coll = load_collection(folder / "mqm_annotations.tsv")
    assert sorted(coll) == sorted(set(jud["lp"]))
    for lp, ds in coll.items():
        sub = jud[jud["lp"] == lp]
        got = {(s, g, r): v for s, g, r, v in rows(ds.judgements, ["system", "seg_id", "rater", "score"])}
        assert len(got) == len(sub)
        assert all(abs(got[(s, g, r)] - float(v)) <= 1e-9
                   for s, g, r, v in sub[["system", "seg_id", "rater", "score"]].itertuples(index=False))


@needs_shared
def test_mqm_raw_reader_on_rebuilt_google_rows(tmp_path):
    """Rebuild Google's raw rows (markers re-inserted) from the tidy TED folder, read them back."""
    folder = _shared_mqm()
    ann = _tsv(folder / "mqm_annotations.tsv")
    seg = _tsv(folder / "segments.tsv")
    texts = pd.concat([_tsv(folder / "outputs.tsv"),
                       _tsv(folder / "references.tsv").rename(columns={"ref_id": "system"})])
    raw_name = {"ref-A": "ref", "ref-B": "refB"}
    src_of = {(lp, s): (d, t) for lp, s, d, t in seg[["lp", "seg_id", "doc", "source"]].itertuples(index=False)}
    tgt_of = {(lp, sy, s): t for lp, sy, s, t in texts[["lp", "system", "seg_id", "text"]].itertuples(index=False)}

    def mark(text, a, b):
        a, b = int(a), int(b)
        return text[:a] + "<v>" + text[a:b] + "</v>" + text[b:]

    for lp, code in (("en-de", "ende"), ("zh-en", "zhen")):
        lines = ["\t".join(["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"])]
        for r in ann[ann["lp"] == lp].itertuples(index=False):
            doc, source = src_of[(lp, r.seg_id)]
            target = tgt_of[(lp, r.system, r.seg_id)]
            if r.span_in == "target":
                target = mark(target, r.span_start, r.span_end)
            elif r.span_in == "source":
                source = mark(source, r.span_start, r.span_end)
            lines.append("\t".join([raw_name.get(r.system, r.system), doc, "0", r.seg_id, r.rater, source, target,
                                    r.category, r.severity]))
        (tmp_path / f"mqm_ted_{code}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    coll = load_collection(tmp_path)
    ref = load_collection(folder)
    assert sorted(coll) == ["en-de", "zh-en"]
    for lp in coll:
        a, b = coll[lp], ref[lp]
        assert a.seg_ids == sorted(a.seg_ids, key=int)
        rated = set(a.seg_ids)
        assert set(b.seg_ids) == rated
        bs = b.segments.set_index("seg_id")
        assert all(bs.loc[s, "source"] == t and bs.loc[s, "doc_id"] == d
                   for s, d, t in a.segments[["seg_id", "doc_id", "source"]].itertuples(index=False))
        for attr, key in (("outputs", ["system", "seg_id", "text"]), ("references", ["ref_id", "seg_id", "text"])):
            assert sorted(rows(getattr(a, attr), key)) == sorted(rows(getattr(b, attr), key))
        ja = {k[:3]: k[3] for k in rows(a.judgements, ["system", "seg_id", "rater", "score"])}
        jb = {k[:3]: k[3] for k in rows(b.judgements, ["system", "seg_id", "rater", "score"])}
        assert ja.keys() == jb.keys() and all(abs(ja[k] - jb[k]) <= 1e-9 for k in ja)
        spans = a.extras["mqm_errors"]
        assert len(spans) == (ann["lp"] == lp).sum()
        src_ann = ann[ann["lp"] == lp]
        assert spans["span_in"].tolist() == src_ann["span_in"].tolist()
        assert spans["span_text"].tolist() == src_ann["span_text"].tolist()


# =====================================================================================
# mt-metrics-eval layout
# =====================================================================================
DE_SRC = ["Der Hund bellt laut.", "Wir treffen uns am Bahnhof.", "Das Museum ist montags geschlossen.",
          "Sie trinkt ihren Kaffee ohne Zucker."]
DE_REFS = {"refA": ["The dog barks loudly.", "We meet at the station.", "The museum is closed on Mondays.",
                    "She drinks her coffee without sugar."],
           "refB": ["The dog is barking loudly.", "We will meet at the train station.", "The museum is shut on Mondays.",
                    "She takes her coffee without sugar."]}
DE_SYS = {"sysA": ["The dog barks loud.", "We meet us at the station.", "The museum is closed Mondays.",
                   "She drinks her coffee without sugar."],
          "sysB": ["The dog barks loudly.", "We are meeting at the station.", "The museum is closed on Monday.",
                   "She drinks her coffee with no sugar."],
          "sysC": ["The hound barks.", "We meet on the station.", "Museum closed.", "She drinks coffee."]}


def test_mtme_fixture_exact_content():
    assert detect_format(FileSource.from_path(MTME)) == "mtme"
    coll = load_collection(MTME)
    assert sorted(coll) == ["de-en", "fr-en"]
    de = coll["de-en"]
    assert rows(de.segments, ["seg_id", "doc_id", "source"]) == [
        ("1", "doc1", DE_SRC[0]), ("2", "doc1", DE_SRC[1]), ("3", "doc2", DE_SRC[2]), ("4", "doc2", DE_SRC[3])]
    assert de.ref_texts() == DE_REFS
    assert de.sys_texts() == DE_SYS  # system-outputs/de-en/refB.txt is the reference refB, not a system
    assert de.warnings == []
    seg = {"sysA": [-1, -5, -1, 0], "sysB": [0, -1, -1.1, None], "sysC": [-5, -6, -25, -5], "refB": [0, 0, -1, 0]}
    expect = [(s, str(i + 1), "mtme", "mqm", v) for s, vs in seg.items() for i, v in enumerate(vs) if v is not None]
    assert rows(de.judgements, ["system", "seg_id", "rater", "judgement", "score"]) == expect
    assert de.is_reference("refB") and "refB" in de.judged
    assert rows(de.extras["system_scores"], ["scorer", "system", "score"]) == [
        ("mqm", "sysA", -1.75), ("mqm", "sysB", -0.7), ("mqm", "refB", -0.25)]  # sysC None = unrated
    assert rows(de.extras["metric_scores"], ["metric", "refset", "level", "system", "seg_id", "score"]) == [
        ("BLEU", "refA", "sys", "sysA", "", 35.2), ("BLEU", "refA", "sys", "sysB", "", 41.0),
        ("BLEU", "refA", "sys", "sysC", "", 12.5), ("BLEU", "refA", "sys", "refB", "", 30.1)]
    assert rows(de.extras["segment_domains"], ["seg_id", "domain"]) == [
        ("1", "news"), ("2", "news"), ("3", "travel"), ("4", "travel")]
    fr = coll["fr-en"]
    assert rows(fr.segments, ["seg_id", "doc_id", "source"]) == [
        ("1", "", "Il fait beau aujourd'hui."), ("2", "", "Le magasin ferme à midi.")]
    assert fr.ref_texts() == {"refA": ["The weather is nice today.", "The shop closes at noon."]}
    assert fr.sys_texts() == {"sysA": ["It makes beautiful today.", "The shop closes at midday."]}
    assert fr.judgements.empty and fr.extras == {}
    assert load_dataset(MTME, lp="fr-en").content_hash() == fr.content_hash()
    with pytest.raises(ValueError, match="several language pairs"):
        load_dataset(MTME)


def test_mtme_zip_with_top_folder_same_content():
    files = folder_bytes(MTME)
    src = FileSource.from_uploads({"wmt_tiny.zip": zip_bytes({f"wmt_tiny/{n}": d for n, d in files.items()})})
    coll = load_collection(src, name="mtme_tiny")
    base = load_collection(MTME)
    assert {k: v.content_hash() for k, v in coll.items()} == {k: v.content_hash() for k, v in base.items()}


def test_mtme_bad_inputs_named(tmp_path):
    folder = copy_fixture(MTME, tmp_path)
    (folder / "system-outputs/de-en/sysB.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (folder / "references/fr-en.refA.txt").write_bytes("Caf\xe9 one\nCaf\xe9 two\n".encode("cp1252"))
    seg_lines = (folder / "human-scores/de-en.mqm.seg.score").read_text(encoding="utf-8").splitlines()
    del seg_lines[5]  # sysB has 3 scores now
    (folder / "human-scores/de-en.mqm.seg.score").write_text("\n".join(seg_lines) + "\n", encoding="utf-8")
    (folder / "human-scores/de-en.mqm.sys.score").write_text("sysA\t-1.75\nsysB\tbad\nsysA\t-2\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    errs = errors_of(exc)
    by = {(e.file, e.line): e.message for e in errs}
    assert "has 3 lines but sources/de-en.txt has 4" in by[("system-outputs/de-en/sysB.txt", None)]
    assert "not valid UTF-8" in by[("references/fr-en.refA.txt", 1)]
    assert "'sysB' has 3 scores but the source has 4" in by[("human-scores/de-en.mqm.seg.score", 5)]
    assert "'bad' is not a number" in by[("human-scores/de-en.mqm.sys.score", 2)]
    assert "appears twice" in by[("human-scores/de-en.mqm.sys.score", 3)]
    assert len(errs) == 5


def test_mtme_non_numeric_seg_score_named(tmp_path):
    folder = copy_fixture(MTME, tmp_path)
    p = folder / "human-scores/de-en.mqm.seg.score"
    lines = p.read_text(encoding="utf-8").splitlines()
    lines[2] = "sysA\tn/a"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    (err,) = errors_of(exc)
    assert err.file == "human-scores/de-en.mqm.seg.score" and err.line == 3 and "'n/a'" in err.message


# =====================================================================================
# every shared dataset loads (all language pairs)
# =====================================================================================
EXPECTED_SHARED = ["mlqe_pe_subset", "wmt20_mqm_scores", "wmt21_news_mqm", "wmt21_ted_mqm"]
SHARED_FOLDERS = sorted({p.name for p in SHARED.iterdir() if p.is_dir()} | set(EXPECTED_SHARED)) \
    if SHARED.is_dir() else EXPECTED_SHARED


@needs_shared
@pytest.mark.parametrize("folder", SHARED_FOLDERS)
def test_shared_dataset_loads(folder):
    """Every folder of the shared data (at least tidy, plain text, MQM and mt-metrics-eval) loads, all lps."""
    path = SHARED / folder
    assert path.is_dir(), f"{path} is missing from the shared data"
    coll = load_collection(path)
    seg = _tsv(path / "segments.tsv")
    jud = _tsv(path / "judgements.tsv")
    assert sorted(coll) == sorted(set(seg["lp"]))
    for lp, ds in coll.items():
        assert ds.n_segments == (seg["lp"] == lp).sum() > 0
        assert len(ds.judgements) == (jud["lp"] == lp).sum()
        assert not math.isnan(ds.judgements["score"].sum())
        if (path / "outputs.tsv").is_file():
            out = _tsv(path / "outputs.tsv")
            assert len(ds.outputs) == (out["lp"] == lp).sum()


def test_content_hash_is_the_whole_tables_csv_hash_above_one_chunk():
    """content_hash hashes each table's CSV 50,000 rows at a time: the same digest as the whole
    table's ``to_csv`` at once (so caches keyed on it stay valid)."""
    import hashlib

    from evalcore.io.synth import make_synthetic

    ds = make_synthetic(6000, 2, 10, seed=1)  # 60,000 output rows: two chunks
    assert len(ds.outputs) > 50_000
    h = hashlib.sha256()
    h.update(f"{ds.lp}\n".encode())
    tables = [("segments", ds.segments), ("references", ds.references), ("outputs", ds.outputs),
              ("judgements", ds.judgements), ("tags", ds.tags)] + sorted(ds.extras.items())
    for name, frame in tables:
        h.update(f"\x00{name}\x00".encode())
        h.update(frame.to_csv(sep="\t", index=False, lineterminator="\n").encode())
    assert ds.content_hash() == h.hexdigest()
