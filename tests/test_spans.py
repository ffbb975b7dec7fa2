"""Error spans (ESA, MQM) as data and span-level meta-evaluation, against hand-worked examples
and counts taken independently from the raw files (csv + json modules)."""
from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from evalcore.analysis import spans as S
from evalcore.io import load_collection, load_dataset
from evalcore.io.spans import dataset_spans, severity_counts
from evalcore.core.problems import DataError
from evalcore.stats.bootstrap import percentile_ci, resample_indices

from conftest import shared


def _tidy(folder: Path, outputs, judgements, refs=None, segments=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)

    def write(name, header, rows):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter="\t", lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
    segs = segments or sorted({r[1] for r in outputs})
    write("segments.tsv", ["seg_id", "source"], [[s, f"source {s}"] for s in segs])
    write("references.tsv", ["seg_id", "ref_id", "text"], refs or [])
    write("outputs.tsv", ["system", "seg_id", "text"], outputs)
    write("judgements.tsv", ["system", "seg_id", "rater", "judgement", "score", "esa_spans_json"], judgements)
    return folder


def _esa(*spans):
    return json.dumps([{"start_i": a, "end_i": b, "severity": s, "error_type": None} for a, b, s in spans])


# ---------------------------------------------------------------- hand-worked P/R/F
def test_prf_hand_worked():
    # item A: tp 2 of 4 marked, 3 error characters; B: 2 marked, no error; C: nothing marked, 2 errors
    c = np.array([[2, 4, 3], [0, 2, 0], [0, 0, 2]])
    r = S.prf(c)
    assert r["micro_precision"] == pytest.approx(2 / 6, abs=1e-12)
    assert r["micro_recall"] == pytest.approx(2 / 5, abs=1e-12)
    assert r["micro_f1"] == pytest.approx(4 / 11, abs=1e-12)
    assert r["macro_precision"] == pytest.approx((0.5 + 0.0) / 2, abs=1e-12)    # items with marks
    assert r["macro_recall"] == pytest.approx((2 / 3 + 0.0) / 2, abs=1e-12)     # items with errors
    assert r["macro_f1"] == pytest.approx((4 / 7 + 0 + 0) / 3, abs=1e-12)


def test_prf_bootstrap_equals_the_literal_loop():
    rng = np.random.default_rng(3)
    m = rng.integers(0, 20, 40)
    h = rng.integers(0, 20, 40)
    tp = np.minimum(m, h) * rng.integers(0, 2, 40)
    c = np.stack([tp, m, h], 1)
    got = S.prf_bootstrap(c, n_boot=300, seed=7)
    idx = resample_indices(len(c), 300, 7)
    draws = [S.prf(c[i]) for i in idx]
    for k, (lo, hi) in got.items():
        want = percentile_ci(np.array([d[k] for d in draws if np.isfinite(d[k])]), 0.05)
        assert lo == pytest.approx(want[0], abs=1e-9) and hi == pytest.approx(want[1], abs=1e-9), k


def test_marks_hand_worked():
    text, ref = "the cat sat", "the dog sat"
    # BLEU: "cat" is the one token no n-gram of the reference matches
    assert S.bleu_marks(text, [ref]) == {4, 5, 6}
    # chrF, spaces removed: "thecatsat" vs "thedogsat"; clipped matches left to right cover every
    # character but 'c' (t,h,e / at / sa / sat ...), i.e. position 4 of the text
    assert S.chrf_marks(text, [ref]) == {4}
    # TER: one substitution (cat -> dog)
    assert S.ter_marks(text, [ref]) == {4, 5, 6}
    # TER shift: "c d a b" -> "a b c d" is one shift of a two-word block; nothing else is edited
    assert S.ter_marks("c d a b", ["a b c d"]) in ({0, 2}, {4, 6})
    # a second reference that matches everything leaves nothing marked (any reference counts)
    assert S.bleu_marks(text, [ref, text]) == set() and S.chrf_marks(text, [ref, text]) == set()
    assert S.ter_marks(text, [ref, text]) == set()


def test_span_scores_and_ceiling_on_a_tiny_dataset(tmp_path):
    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"], ["sysA", "2", "a dog ran"]],
                   [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"), (0, 3, "minor"))],
                    ["sysA", "1", "r2", "esa", "50", _esa((0, 7, "major"))],
                    ["sysA", "2", "r1", "esa", "100", "[]"]],
                   refs=[["1", "refA", "the dog sat"], ["2", "refA", "a dog ran"]])
    ds = load_dataset(folder)
    counts = S.item_counts(ds, ["bleu"], ["major", "minor", "all"])
    got = {(r.rater, r.seg_id, r.severity): (r.tp, r.marked, r.errors) for r in counts.itertuples()}
    assert got[("r1", "1", "major")] == (3, 3, 3)      # "cat" marked and marked major
    assert got[("r1", "1", "minor")] == (0, 3, 3)      # "the" is a minor error BLEU matched
    assert got[("r1", "1", "all")] == (3, 3, 6)
    assert got[("r2", "1", "major")] == (3, 3, 6)      # "the cat" (space not counted)
    assert got[("r1", "2", "all")] == (0, 0, 0)
    sc = S.span_scores(counts, n_boot=0)
    maj = sc[(sc.severity == "major") & (sc.average == "micro")].iloc[0]
    # Σtp = 6, Σ|M| = 3 + 3 + 0, Σ|H| = 3 + 6 + 0
    assert maj.precision == pytest.approx(1.0) and maj.recall == pytest.approx(6 / 9)
    assert maj.f1 == pytest.approx(12 / 15)
    pairs = S.rater_pairs(ds, ["major"])
    pg = {r.rater: (r.tp, r.marked, r.errors) for r in pairs.itertuples()}
    assert pg == {"r1→r2": (3, 3, 6), "r2→r1": (3, 6, 3)}
    ceil = S.span_scores(pairs, n_boot=0)
    row = ceil[ceil.average == "micro"].iloc[0]
    assert row.precision == pytest.approx(6 / 9) and row.f1 == pytest.approx(2 * 6 / 18)


def test_a_rater_annotating_twice_gives_the_intra_rater_ceiling(tmp_path):
    folder = _tidy(tmp_path / "s", [["sysA", "1", "the cat sat"]],
                   [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"))],
                    ["sysA", "1", "r1", "esa", "50", _esa((4, 11, "major"))]],
                   refs=[["1", "refA", "the dog sat"]])
    pairs = S.rater_pairs(load_dataset(folder), ["major"])
    assert set(pairs["marker"]) == {"rater-self"}
    # "cat" vs "cat sat" (6 characters without the space): both orders
    assert sorted(map(tuple, pairs[["tp", "marked", "errors"]].to_numpy().tolist())) == [(3, 3, 6), (3, 6, 3)]


def test_spans_of_a_judgements_file_without_lp_reach_the_one_pair(tmp_path):
    folder = _tidy(tmp_path / "l", [["sysA", "1", "the cat sat"]], [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"))]],
                   refs=[["1", "refA", "the dog sat"]])
    (folder / "segments.tsv").write_text("lp\tseg_id\tsource\nen-cs\t1\tsource 1\n", encoding="utf-8")
    ds = load_dataset(folder)
    assert ds.lp == "en-cs"
    assert severity_counts(dataset_spans(ds)) == {"major": 1}


def test_hostile_spans_are_listed_with_file_and_line(tmp_path):
    folder = _tidy(tmp_path / "h", [["s", "1", "abc def"], ["s", "2", "xyz"]],
                   [["s", "1", "r1", "esa", "50", "[{broken"],                                    # line 2
                    ["s", "1", "r2", "esa", "50", _esa((0, 3, "catastrophic"))],                 # line 3
                    ["s", "2", "r1", "esa", "50", _esa((3, 1, "major"))],                         # line 4
                    ["s", "2", "r2", "esa", "50", _esa((0, 99, "minor"), ("missing", "missing", "major"))],
                    ["s", "2", "r3", "esa", "50", json.dumps([{"start_i": "1", "end_i": 2, "severity": "minor"}])],
                    ["s", "1", "r4", "esa", "50", _esa((0, 3, "minor"), (2, 5, "major"))]])                 # line 7
    ds = load_dataset(folder)  # the spans do not stop the dataset from loading
    with pytest.raises(DataError) as exc:
        dataset_spans(ds)
    msg = str(exc.value)
    assert "judgements.tsv, line 2" in msg and "not valid JSON" in msg
    assert "judgements.tsv, line 3" in msg and "unknown severity 'catastrophic'" in msg
    assert "judgements.tsv, line 4" in msg and "inverted" in msg
    assert "judgements.tsv, line 6" in msg and "integers" in msg
    assert "judgements.tsv, line 5" in msg and "beyond the text" in msg  # a warning, listed too
    assert "judgements.tsv, line 7" in msg and "overlapping" in msg      # a warning: both kept
    st = dataset_spans(ds, strict=False)
    status = Counter(st.spans["status"])
    assert status == {"out_of_range": 1, "omission": 1, "ok": 2}  # nothing silently dropped: all kept
    # an annotation with a broken span is left out whole (it would claim "no error" elsewhere):
    # only r2's reading of segment 2 remains, with its two spans
    assert st.items[["seg_id", "rater", "n_spans"]].values.tolist() == [["2", "r2", 2], ["1", "r4", 2]]


def test_an_esa_integer_over_the_digit_limit_is_reported_not_a_crash(tmp_path):
    # json.loads raises a plain ValueError (no position) for an integer over Python's 4,300-digit
    # limit: it is listed with file, line and json's own reason, like any other broken JSON
    huge = '[{"start_i": 1' + "0" * 5000 + ', "end_i": 2, "severity": "minor"}]'
    folder = _tidy(tmp_path / "d", [["s", "1", "abc"], ["s", "2", "xyz"]],
                   [["s", "1", "r1", "esa", "50", huge], ["s", "2", "r1", "esa", "50", _esa((0, 1, "minor"))]])
    with pytest.raises(DataError) as exc:
        dataset_spans(load_dataset(folder))
    msg = str(exc.value)
    assert "judgements.tsv, line 2" in msg and "not valid JSON" in msg and "4300 digits" in msg
    st = dataset_spans(load_dataset(folder), strict=False)
    assert st.items[["seg_id", "n_spans"]].values.tolist() == [["2", 1]]  # the rest still read


def test_html_in_a_category_is_kept_as_text(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    rows = [["lp", "system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"],
            ["en-de", "sysA", "d", "1", "1", "r1", "a b", "<v>x</v> y", "<script>alert(1)</script>", "Major"]]
    with open(folder / "mqm_en-de.tsv", "w", encoding="utf-8") as f:
        f.write("\n".join("\t".join(r) for r in rows) + "\n")
    ds = load_dataset(folder)
    st = dataset_spans(ds)
    assert any("markup" in p.message for p in st.problems)
    sp = st.spans.iloc[0]
    assert (sp.start, sp.end, sp.category) == (0, 1, "<script>alert(1)</script>")
    from evalcore.present.highlight import char_spans_html

    html = char_spans_html("x y", [(0, 1, "major", sp.category)])
    assert "<script>" not in html and "&lt;script&gt;" in html


# ---------------------------------------------------------------- real data, counted independently
def _raw_esa_counts(path: Path, lp: str) -> tuple[Counter, int]:
    sev, omissions = Counter(), 0
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["lp"] != lp:
                continue
            for s in json.loads(row["esa_spans_json"]):
                sev[s["severity"]] += 1
                omissions += s["start_i"] == "missing"
    return sev, omissions


def test_wmt24_esa_en_cs_severity_counts():
    root = shared("wmt24_esa")
    ds = load_collection(root)["en-cs"]
    st = dataset_spans(ds)
    want, omissions = _raw_esa_counts(root / "judgements.tsv", "en-cs")
    assert severity_counts(st) == dict(want)
    assert int((st.spans["status"] == "omission").sum()) == omissions
    with open(root / "judgements.tsv", newline="", encoding="utf-8") as f:
        n_rows = sum(r["lp"] == "en-cs" for r in csv.DictReader(f, delimiter="\t"))
    assert len(st.items) == n_rows  # every judgement row is an annotation, with or without spans


def test_wmt21_ted_mqm_en_de_severity_counts():
    root = shared("wmt21_ted_mqm")
    ds = load_collection(root)["en-de"]
    st = dataset_spans(ds)
    want, keys = Counter(), set()
    with open(root / "mqm_annotations.tsv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["lp"] != "en-de":
                continue
            keys.add((row["system"], row["seg_id"], row["rater"]))
            if row["severity"] != "No-error":
                want[row["severity"].lower()] += 1
    assert severity_counts(st) == dict(want)
    assert len(st.items) == len(keys)


# ---------------------------------------------------------------- profiles
def test_error_profile_hand_worked(tmp_path):
    folder = _tidy(tmp_path / "p", [["A", "1", "aaaa"], ["A", "2", "bbbb"], ["B", "1", "cccc"]],
                   [["A", "1", "r", "esa", "1", _esa((0, 1, "major"), (1, 2, "minor"), (2, 3, "minor"))],
                    ["A", "2", "r", "esa", "1", "[]"],
                    ["B", "1", "r", "esa", "1", _esa((0, 1, "major"))]])
    st = dataset_spans(load_dataset(folder))
    prof = S.error_profile(st, "severity", n_boot=0)
    got = {(r.system, r.severity): (r.errors_per_segment, r.errors, r.items) for r in prof.itertuples()}
    assert got == {("A", "major"): (0.5, 1, 2), ("A", "minor"): (1.0, 2, 2), ("B", "major"): (1.0, 1, 1)}


def test_category_penalties_equal_numpy_correlations(tmp_path):
    import pandas as pd
    from scipy import stats

    def span(cat):
        return {"start_i": 0, "end_i": 1, "severity": "minor", "error_type": cat}
    outs = [["A", str(i), "xyz"] for i in range(1, 7)]
    cats = [["Acc"], ["Acc", "Acc"], [], ["Flu"], ["Acc", "Flu"], []]
    folder = _tidy(tmp_path / "c", outs, [["A", str(i + 1), "r", "esa", "1", json.dumps([span(c) for c in cs])]
                                          for i, cs in enumerate(cats)])
    ds = load_dataset(folder)
    scores = [10.0, 3.0, 20.0, 12.0, 5.0, 18.0]
    ms = pd.DataFrame({"system": "A", "seg_id": [str(i) for i in range(1, 7)], "metric": "m", "score": scores})
    pen = S.category_penalties(ds, ms).set_index("category")
    acc = [c.count("Acc") for c in cats]
    flu = [c.count("Flu") for c in cats]
    assert pen.loc["Acc", "pearson"] == pytest.approx(np.corrcoef(acc, scores)[0, 1], abs=1e-12)
    assert pen.loc["Flu", "spearman"] == pytest.approx(stats.spearmanr(flu, scores)[0], abs=1e-12)
    assert pen.loc["Acc", "with_category"] == 3 and pen.loc["Acc", "outputs"] == 6


def _cli(*args):
    import contextlib
    import io

    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["spans", *args])
    return rc, out.getvalue(), err.getvalue()


def test_cli_spans_writes_the_hand_worked_table_and_refuses_broken_spans(tmp_path):
    import pandas as pd

    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"]],
                   [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"), (0, 3, "minor"))],
                    ["sysA", "1", "r2", "esa", "50", _esa((0, 7, "major"))]],
                   refs=[["1", "refA", "the dog sat"]])
    out = tmp_path / "s.tsv"
    rc, stdout, err = _cli(str(folder), "--metrics", "bleu,ter", "--severity", "major", "--bootstrap", "0",
                           "--out", str(out))
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert list(t.columns[:4]) == ["lp", "marker", "severity", "average"] and "signature" in t.columns
    micro = t[t["average"] == "micro"].set_index("marker")
    # BLEU marks "cat": r1 (3, 3, 3), r2 (3, 3, 6) -> P 1, R 6/9; the raters: (3, 3, 6), (3, 6, 3)
    assert micro.loc["bleu", "precision"] == pytest.approx(1.0) and micro.loc["bleu", "recall"] == pytest.approx(6 / 9)
    assert micro.loc["rater", "precision"] == pytest.approx(6 / 9) and micro.loc["rater", "items"] == 2
    bad = _tidy(tmp_path / "b", [["s", "1", "abc"]], [["s", "1", "r", "esa", "1", "[{oops"]])
    rc, _, err = _cli(str(bad), "--out", str(tmp_path / "b.tsv"))
    assert rc == 2 and "judgements.tsv, line 2" in err and "not valid JSON" in err
    assert not (tmp_path / "b.tsv").exists()


def test_esa_spans_are_stored_once_and_old_saves_with_two_copies_still_load(tmp_path):
    from evalcore.io.tidy import write_tidy

    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"]],
                   [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"), (0, 3, "minor"))]],
                   refs=[["1", "refA", "the dog sat"]])
    ds = load_dataset(folder)
    want = dataset_spans(ds).spans[["system", "seg_id", "rater", "start", "end", "severity"]]
    saved = write_tidy(ds, tmp_path / "saved")
    names = sorted(p.name for p in saved.iterdir())
    assert names == ["extra_esa_spans.tsv", "judgements.tsv", "outputs.tsv", "references.tsv", "segments.tsv"]
    # a dataset saved the old way: the JSON both in extra_judgements_columns.tsv and extra_esa_spans.tsv
    raw = _esa((4, 7, "major"), (0, 3, "minor")).replace('"', '""')
    (saved / "extra_judgements_columns.tsv").write_text(
        "system\tseg_id\trater\tjudgement\tn_error_spans\tesa_spans_json\tlp\n"
        f"sysA\t1\tr1\tesa\t2\t\"{raw}\"\t\n", encoding="utf-8")
    old = load_dataset(saved)
    assert list(old.extras["judgements_columns"].columns) == ["system", "seg_id", "rater", "judgement",
                                                              "n_error_spans"]
    got = dataset_spans(old).spans[["system", "seg_id", "rater", "start", "end", "severity"]]
    assert got.to_dict("records") == want.to_dict("records")
    assert len(got) == 2
    again = write_tidy(old, tmp_path / "again")
    assert "esa_spans_json" not in (again / "extra_judgements_columns.tsv").read_text(encoding="utf-8")
    assert (again / "extra_esa_spans.tsv").read_text(encoding="utf-8").count("start_i") == 2


# ---------------------------------------------------------------- spans a metric returned (xCOMET-style)
def _metric_spans(folder: Path, rows) -> Path:
    with open(folder / "metric_spans.tsv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["metric", "system", "seg_id", "start", "end", "severity"])
        w.writerows(rows)
    return folder / "metric_spans.tsv"


def test_metric_spans_scored_like_marks_hand_worked(tmp_path):
    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"], ["sysA", "2", "a dog ran"], ["sysA", "3", "it rains"]],
                   [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"), (0, 3, "minor"))],
                    ["sysA", "1", "r2", "esa", "50", _esa((0, 7, "major"))],
                    ["sysA", "2", "r1", "esa", "100", "[]"],
                    ["sysA", "3", "r1", "esa", "90", "[]"]],
                   refs=[["1", "refA", "the dog sat"], ["2", "refA", "a dog ran"], ["3", "refA", "it rains"]])
    # a hand-made metric-span table: "cat sat" (major) on segment 1, nothing on segment 2, and
    # segment 3 not scored by the metric (no row): its annotation is left out of the metric's counts
    _metric_spans(folder, [["xm", "sysA", "1", "4", "11", "major"], ["xm", "sysA", "2", "", "", "no-error"]])
    ds = load_dataset(folder)
    c = S.metric_span_counts(ds, ["major", "all"])
    got = {(r.rater, r.seg_id, r.severity): (r.tp, r.marked, r.errors) for r in c.itertuples()}
    # marks "cat sat" = 6 non-space characters (severity of the metric's span does not filter)
    assert got == {("r1", "1", "major"): (3, 6, 3), ("r1", "1", "all"): (3, 6, 6),
                   ("r2", "1", "major"): (3, 6, 6), ("r2", "1", "all"): (3, 6, 6),
                   ("r1", "2", "major"): (0, 0, 0), ("r1", "2", "all"): (0, 0, 0)}
    assert set(c["marker"]) == {"xm"}
    sc = S.span_scores(c, n_boot=0)
    row = sc[(sc.severity == "major") & (sc.average == "micro")].iloc[0]
    assert row.precision == pytest.approx(6 / 12) and row.recall == pytest.approx(6 / 9)
    assert row.f1 == pytest.approx(12 / 21)
    # the same spans written as an xCOMET prediction's metadata.error_spans give the same table
    from evalcore.io.spans import metric_span_table, xcomet_spans_frame

    frame = xcomet_spans_frame("xm", [("sysA", "1"), ("sysA", "2")],
                               [[{"text": "cat sat", "confidence": 0.7, "severity": "major", "start": 4, "end": 11}], []])
    c2 = S.metric_span_counts(ds, ["major", "all"], metric_table=metric_span_table(ds, frame))
    assert c2[["item", "rater", "severity", "tp", "marked", "errors"]].equals(
        c[["item", "rater", "severity", "tp", "marked", "errors"]])


def test_metric_spans_on_the_divergence_layers_and_escaped(tmp_path):
    from evalcore.present import highlight as H
    from evalcore.views import spans as V

    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"]], [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"))]],
                   refs=[["1", "refA", "the dog sat"]])
    _metric_spans(folder, [["<b>xm</b>", "sysA", "1", "4", "7", "minor"]])
    ds = load_dataset(folder)
    layers = V.output_layers(ds, "sysA", "1", markers=["bleu"])
    assert layers["metric_spans"]["<b>xm</b>"]["spans"] == [(4, 7, "minor", "<b>xm</b>: minor")]
    row = layers["scores"][layers["scores"]["marker"] == "<b>xm</b>"].iloc[0]
    assert (row.marked_chars, row.error_chars, row.precision, row.recall) == (3, 3, 1.0, 1.0)
    html = H.span_layers_html(layers["text"], V.layers_for_html(layers))
    assert "&lt;b&gt;xm&lt;/b&gt;" in html and "error spans the metric returned" in html and "<b>xm</b>" not in html


def test_broken_metric_spans_listed_with_file_and_line(tmp_path):
    from evalcore.io.spans import metric_span_table

    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"]], [["sysA", "1", "r1", "esa", "60", "[]"]])
    _metric_spans(folder, [["xm", "sysA", "1", "4", "99", "major"],      # line 2: out of range (warning)
                           ["xm", "sysA", "1", "x", "7", "major"],       # line 3: not an integer
                           ["xm", "sysA", "1", "7", "4", "minor"],       # line 4: inverted
                           ["xm", "sysA", "1", "0", "3", "fatal"],       # line 5: unknown severity
                           ["", "sysA", "1", "0", "3", "minor"]])        # line 6: no metric name
    ds = load_dataset(folder)
    with pytest.raises(DataError) as exc:
        metric_span_table(ds)
    errs = [str(p) for p in exc.value.report.errors]
    for line, text in ((3, "must be integers"), (4, "inverted"), (5, "unknown severity 'fatal'"), (6, "metric name")):
        assert any(e.startswith(f"ERROR: metric_spans.tsv, line {line}:") and text in e for e in errs), (line, errs)
    assert any("metric_spans.tsv, line 2:" in str(w) and "beyond the text" in str(w) for w in exc.value.report.warnings)
    lenient = metric_span_table(ds, strict=False)
    assert lenient.items.empty  # the annotation with broken rows is left out whole, not read in part


def test_cli_spans_scores_a_metric_spans_file(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    folder = _tidy(tmp_path / "d", [["sysA", "1", "the cat sat"]], [["sysA", "1", "r1", "esa", "60", _esa((4, 7, "major"))]],
                   refs=[["1", "refA", "the dog sat"]])
    ms = _metric_spans(tmp_path, [["xm", "sysA", "1", "0", "7", "major"]])
    out = tmp_path / "s.tsv"
    r = subprocess.run([sys.executable, "-m", "evalcore", "spans", str(folder), "--metrics", "bleu",
                        "--severity", "major", "--bootstrap", "0", "--metric-spans", str(ms), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(out, encoding="utf-8"), delimiter="\t"))
    xm = next(x for x in rows if x["marker"] == "xm" and x["average"] == "micro")
    # marks "the cat" (6 characters), the rater's major error "cat" (3): P = 1/2, R = 1
    assert float(xm["precision"]) == pytest.approx(0.5) and float(xm["recall"]) == pytest.approx(1.0)
