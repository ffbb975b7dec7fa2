"""WMT human-evaluation JSONL (evalcore.io.wmtjsonl): three hand-written files holding the same
annotations in WMT24's annotation-per-line layout, WMT24's unified segment-per-line layout and
WMT25's segment-per-line layout with numbered waves, checked against the files read with the
json module alone, plus a file with one problem per line."""
from __future__ import annotations

import json
import pytest

from evalcore.analysis import spans as S
from evalcore.io import FileSource, load_collection, load_dataset
from evalcore.io.spans import dataset_spans
from evalcore.io.tidy import write_tidy
from evalcore.core.problems import DataError

from conftest import ROOT

FIX = ROOT / "tests" / "fixtures" / "wmt_jsonl"
LAYOUTS = {"annotations": "wmt24_esa.jsonl", "segments24": "wmt24-genmt-humeval.jsonl",
           "waves25": "wmt25-genmt-humeval.jsonl"}


def _raw_annotations(layout: str) -> list[tuple]:
    """(system, tgt, annotator number, score, spans) straight from the file (json module only)."""
    out = []
    for line in (FIX / layout / LAYOUTS[layout]).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        o = json.loads(line)
        if layout == "annotations":
            out.append((o["system"], o["tgt"], o["annotator"][-1], float(o["esa_score"]), o["esa_spans"]))
        elif layout == "segments24":
            for s, anns in o["scores"].items():
                out += [(s, o["tgt_text"][s], a["annotator"][-1], float(a["score"]), a["errors"]) for a in anns]
        else:
            for s, v in o["scores"].items():
                waves = sorted(k[len("human"):] for k in v if k.startswith("human"))
                out += [(s, o["tgt_text"][s], v[f"annotator{w}"][-1], float(v[f"human{w}"]), v[f"errors{w}"])
                        for w in waves]
    return out


def _span_key(sp: dict) -> tuple:
    return (sp["start_i"], sp["end_i"], sp["severity"])


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_each_layout_loads_the_annotations_as_written(layout):
    ds = load_dataset(FIX / layout)
    raw = _raw_annotations(layout)
    assert len(raw) == 6
    got = sorted((r.system, r.rater[-1], r.score) for r in ds.judgements.itertuples())
    assert got == sorted((s, a, sc) for s, _, a, sc, _ in raw)
    # refA is a reference set (judged like a system), the others are outputs
    assert set(ds.references["ref_id"]) == {"refA"} and set(ds.outputs["system"]) == {"sysA", "sysB"}
    st = dataset_spans(ds)
    text = {(r.system, r.seg_id): r.text for r in ds.outputs.itertuples()}
    text.update({(r.ref_id, r.seg_id): r.text for r in ds.references.itertuples()})
    want = sorted((s, a, *_span_key(sp)) for s, _, a, _, sps in raw for sp in sps)
    spans = st.spans
    have = sorted((r.system, r.rater[-1], "missing" if r.status == "omission" else int(r.start),
                   "missing" if r.status == "omission" else int(r.end), r.severity) for r in spans.itertuples())
    assert have == want
    # statuses from the raw offsets and texts: [4,7) and [14,20) inside, one omission, [3,40) past 9 characters
    assert sorted(spans["status"]) == ["ok", "ok", "omission", "out_of_range"]
    ok = spans[spans["status"] == "ok"]
    assert sorted(text[(r.system, r.seg_id)][int(r.start):int(r.end)] for r in ok.itertuples()) == ["cat", "loudly"]
    warned = [str(w) for w in ds.warnings]
    assert any("4 error spans read: 1 omission(s)" in w and "1 out of range" in w for w in warned), warned
    assert any("span [3, 40) ends beyond the text (9 characters)" in w for w in warned), warned


def test_lp_from_langs_or_from_a_wmt25_doc_id():
    assert list(load_collection(FIX / "annotations")) == ["de-en"]
    assert list(load_collection(FIX / "waves25")) == ["de-en"]
    assert list(load_collection(FIX / "segments24")) == [""]  # the unified WMT24 file names no pair


def test_span_scores_on_a_jsonl_dataset_hand_worked():
    ds = load_dataset(FIX / "waves25")
    counts = S.item_counts(ds, ["bleu"], ["major"])
    row = counts[(counts.system == "sysB") & (counts.rater.str.endswith("1"))].iloc[0]
    # "The cat barks loudly." against "The dog is barking.": BLEU matches "The" and "." only, so it
    # marks cat (3), barks (5), loudly (6) = 14 characters; the rater's major error is "cat"
    assert (row.tp, row.marked, row.errors) == (3, 14, 3)


def test_an_uploaded_jsonl_file_loads_like_the_folder():
    data = (FIX / "annotations" / "wmt24_esa.jsonl").read_bytes()
    up = load_collection(FileSource.from_uploads({"wmt24_esa.jsonl": data}), name="up")["de-en"]
    folder = load_dataset(FIX / "annotations")
    assert up.judgements.equals(folder.judgements) and up.outputs.equals(folder.outputs)


def test_saved_and_reloaded_the_spans_are_the_same(tmp_path):
    ds = load_dataset(FIX / "waves25")
    back = load_dataset(write_tidy(ds, tmp_path / "saved"))
    cols = ["system", "seg_id", "rater", "start", "end", "severity", "status", "file", "line"]
    assert dataset_spans(back).spans[cols].equals(dataset_spans(ds).spans[cols])


def test_broken_lines_are_all_reported_with_file_and_line():
    with pytest.raises(DataError) as exc:
        load_collection(FIX / "broken")
    errors = [(p.file, p.line, p.message) for p in exc.value.report.errors]
    expected = {
        2: "not valid JSON",
        3: "each line must be one JSON object, got list",
        4: "missing field(s) tgt",
        5: "the score must be a number, got 'high'",
        6: "unknown severity 'catastrophic'",
        7: "inverted or negative span [5, 2)",
        8: "the source of segment '1' (de-en) differs from the one at broken.jsonl, line 1",
        9: "hold a control character",
        10: "a segment line in a file of annotation lines",
        11: "start_i and end_i must be integers",
    }
    for line, text in expected.items():
        assert any(f == "broken.jsonl" and ln == line and text in m for f, ln, m in errors), (line, errors)
    assert any(ln == 11 and "1e+300" in m for _, ln, m in errors)
    assert not any(ln == 1 for _, ln, _ in errors)  # the good line is not blamed
    assert not any("without a score" in str(w) for w in exc.value.report.warnings)  # 'high' is an error only


def test_not_a_jsonl_is_not_taken_for_one(tmp_path):
    (tmp_path / "notes.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(tmp_path)
    assert any("holds no JSON lines" in str(p) for p in exc.value.report.errors)



def test_wmt24_en_cs_as_annotation_jsonl_gives_the_tidy_spans(tmp_path):
    """WMT24 ESA en-cs (../shared/data/wmt24_esa) written, with the csv and json modules only, as
    WMT24's annotation-per-line JSONL: the same judgements and the same span table as the tidy
    folder (real size: 4,767 annotations)."""
    import csv

    from conftest import shared

    folder = shared("wmt24_esa")

    def rows(name):
        with open(folder / name, encoding="utf-8", newline="") as f:
            return [r for r in csv.DictReader(f, delimiter="\t") if r["lp"] == "en-cs"]
    src = {r["seg_id"]: r["source"] for r in rows("segments.tsv")}
    tgt = {(r["system"], r["seg_id"]): r["text"] for r in rows("outputs.tsv")}
    tgt.update({(r["ref_id"], r["seg_id"]): r["text"] for r in rows("references.tsv")})
    lines = [json.dumps({"langs": "en-cs", "line_id": int(r["seg_id"]), "src": src[r["seg_id"]],
                         "tgt": tgt[(r["system"], r["seg_id"])], "doc_id": "d", "system": r["system"],
                         "annotator": r["rater"], "esa_score": r["score"], "esa_spans": json.loads(r["esa_spans_json"])},
                        ensure_ascii=False)
             for r in rows("judgements.tsv")]
    assert len(lines) == 4767
    (tmp_path / "wmt24_esa.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = load_dataset(tmp_path, lp="en-cs")
    want = load_dataset(folder, lp="en-cs")
    key = ["system", "seg_id", "rater", "judgement", "score"]
    assert got.judgements[key].sort_values(key).reset_index(drop=True).equals(
        want.judgements[key].sort_values(key).reset_index(drop=True))
    cols = ["system", "seg_id", "rater", "start", "end", "severity", "status", "line"]
    a, b = dataset_spans(got).spans, dataset_spans(want).spans
    # the JSONL line of an annotation is its judgements.tsv line minus the header
    b = b.assign(line=b["line"].astype(int) - 1)
    a = a.assign(line=a["line"].astype(int))
    assert a[cols].sort_values(cols).reset_index(drop=True).equals(b[cols].sort_values(cols).reset_index(drop=True))


def test_json_nested_too_deeply_is_a_line_error_not_a_crash(tmp_path):
    (tmp_path / "deep.jsonl").write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    with pytest.raises(DataError) as exc:
        load_collection(tmp_path)
    assert [(p.file, p.line) for p in exc.value.report.errors] == [("deep.jsonl", 1)]
    assert "nested too deeply" in exc.value.report.errors[0].message
