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
