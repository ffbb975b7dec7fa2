"""The human error spans on the Divergence browser and the Learn tour (AppTest), on a small saved
dataset whose texts and spans carry HTML (everything must arrive escaped)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from conftest import ROOT

OUT = "<b>bold</b> cat sat & ran"


def _write(folder: Path, name, header, rows):
    with open(folder / name, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def _dataset(folder: Path) -> Path:
    folder.mkdir(parents=True)
    segs = [str(i) for i in range(1, 9)]
    _write(folder, "segments.tsv", ["seg_id", "source"], [[s, f"source {s}"] for s in segs])
    _write(folder, "references.tsv", ["seg_id", "ref_id", "text"], [[s, "refA", "the dog sat and ran"] for s in segs])
    outs, judg = [], []
    for k, s in enumerate(segs):
        outs.append(["sysA", s, OUT if s == "1" else f"the dog sat and ran {k}"])
        outs.append(["sysB", s, f"a cat {k} sat"])
        spans_a = [{"start_i": 0, "end_i": 11, "severity": "major", "error_type": "<i>Style</i>"}] if s == "1" else []
        spans_b = [{"start_i": 2, "end_i": 5, "severity": "minor", "error_type": None},
                   {"start_i": "missing", "end_i": "missing", "severity": "major", "error_type": None}]
        judg.append(["sysA", s, "r1", "esa", str(90 - k), json.dumps(spans_a)])
        judg.append(["sysB", s, "r1", "esa", str(40 + k), json.dumps(spans_b)])
        if s == "1":
            judg.append(["sysA", s, "r2", "esa", "70", json.dumps([{"start_i": 12, "end_i": 15, "severity": "minor",
                                                                     "error_type": None}])])
    _write(folder, "outputs.tsv", ["system", "seg_id", "text"], outs)
    _write(folder, "judgements.tsv", ["system", "seg_id", "rater", "judgement", "score", "esa_spans_json"], judg)
    return folder


def _open(tmp_path, monkeypatch, page: str, state: dict) -> AppTest:
    from evalcore.io import workspace
    from evalcore.io import load_collection

    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    coll = load_collection(_dataset(tmp_path / "esa"))
    workspace.save(coll, "esa-spans")
    back = workspace.load_saved("esa-spans")
    ds = next(iter(back.values()))
    assert len(ds.extras["esa_spans"]) == 17  # the spans survive the saved dataset
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for k, v in {"dataset_label": label, "dataset_select": label, **state}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_divergence_shows_spans_escaped_and_profiles(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch, "divergence", {"div_metrics": ["bleu", "chrf"]})
    # pick sysA segment 1 (two raters, HTML in the text and in a category)
    labels = at.selectbox(key="div_pick").options
    assert any(lab.startswith("sysA · segment 1 ") for lab in labels)
    at.selectbox(key="div_pick").set_value(("sysA", "1")).run()  # options are (system, segment)
    assert not at.exception, [e.message for e in at.exception]
    boxes = [m.value for m in at.markdown if "r1 &#40;ESA&#41;" in m.value]
    assert len(boxes) == 1
    html = boxes[0]
    assert "<b>" not in html and "&lt;b&gt;bold" in html
    assert "<i>" not in html and "&lt;i&gt;Style" in html  # the category, escaped, in the title
    assert "r2 &#40;ESA&#41;" in html  # the second rater stacked under the first
    assert html.count("border-bottom:2px solid #d62728") == 1  # r1's one major span
    assert "border-bottom:2px double" in html  # a metric's marks on the same text
    prf = next(df.value for df in at.dataframe if "marker" in df.value.columns and "recall" in df.value.columns)
    assert set(prf["marker"]) == {"bleu", "chrf", "ter"} and len(prf) == 6  # 3 markers x 2 raters
    # profiles on request, narrowed by severity
    at.toggle(key="div_spans_profile").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    prof = next(df.value for df in at.dataframe if "errors_per_segment" in df.value.columns)
    # sysB: per segment one minor span and one major omission, in 8 annotations
    row = prof.set_index(["system", "severity"]).loc[("sysB", "minor")]
    assert row["errors_per_segment"] == 1.0 and row["items"] == 8
    at.multiselect(key="div_sp_sev").set_value(["major"]).run()
    prof = next(df.value for df in at.dataframe if "errors_per_segment" in df.value.columns)
    assert set(prof["severity"]) == {"major"}
    pen = next(df.value for df in at.dataframe if "spearman" in df.value.columns)
    assert set(pen["metric"]) <= {"bleu", "chrf"} and len(pen)
    at.radio(key="div_sp_value").set_value("weight").run()
    assert not at.exception, [e.message for e in at.exception]


def test_learn_tour_stop_picks_its_examples_from_the_data(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch, "learn", {"learn_stop": 6})
    texts = " ".join(m.value for m in at.markdown)
    assert "BLEU is high but a rater marked a major error" in texts
    # sysA segment 1 is the only output with a major span; sysA's clean outputs match the reference best
    assert "sysA, segment 1" in texts


def test_compare_page_shows_both_outputs_spans(tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch, "compare", {"cmp_a": "sysA", "cmp_b": "sysB", "cmp_metrics": ["bleu"],
                                                  "cmp_boot": 100, "cmp_ar": 100})
    boxes = [m.value for m in at.markdown if "error spans &#40;red solid major" in m.value]  # the label, escaped
    assert len(boxes) == 2 and "A &#61; sysA" in boxes[0] and "B &#61; sysB" in boxes[1]
    assert "border-bottom:2px dashed #f28e2b" in boxes[1]  # sysB's minor span on every segment


def test_learn_span_stop_on_data_without_spans_says_what_it_needs():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state["learn_stop"] = 6
    at.run()
    at.switch_page("pages/learn.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("needs a dataset with human error spans" in i.value for i in at.info)
