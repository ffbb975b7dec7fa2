"""Neural scores computed elsewhere (COMET --to_json, MetricX JSONL, pymarian TSV): validated
with file, line and problem, and matched to a dataset's outputs by their texts. Needs no torch."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import ROOT

TINY = ROOT / "tests" / "fixtures" / "plaintext_tiny"


def _lines(name):
    return (TINY / name).read_text().splitlines()


def _score(args, capsys):
    from evalcore.cli import main

    rc = main(["score", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(autouse=True)
def _fresh_external():
    yield
    from evalcore.metrics.byo import unregister_external

    unregister_external()


def test_comet_json_imported_and_matched_by_texts(tmp_path, capsys):
    src, ref, hyp = _lines("src.txt"), _lines("ref.A.txt"), _lines("sys.literal.txt")
    data = {"sys.literal.txt": [{"src": s, "mt": h, "ref": r, "COMET": 0.5 + i / 10}
                                for i, (s, h, r) in enumerate(zip(src, hyp, ref))]}
    f = tmp_path / "comet.json"
    f.write_text(json.dumps(data, indent=4, ensure_ascii=False))
    out = tmp_path / "s.tsv"
    rc, _, err = _score([TINY, "--import-scores", f"comet-json:{f}@mycomet", "--metrics", "mycomet", "--refs", "A",
                         "--out", out], capsys)
    assert rc == 0, err
    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str}, keep_default_na=False)
    lit = t[t.system == "literal"].set_index("seg_id").score
    assert [lit[str(i + 1)] for i in range(len(hyp))] == pytest.approx([0.5 + i / 10 for i in range(len(hyp))])
    assert (t[t.system == "near_human"].score == "").all() or t[t.system == "near_human"].score.isna().all()


def test_comet_json_problems_all_reported_with_lines(tmp_path):
    from evalcore.neural.imports import read_external
    from evalcore.core.problems import DataError

    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"a.txt": [{"src": "x", "mt": "y", "ref": "z", "COMET": 0.1},
                                       {"src": "x", "mt": 3, "COMET": "nan"}]}, indent=4))
    with pytest.raises(DataError) as e:
        read_external(f"comet-json:{f}")
    msgs = [str(p) for p in e.value.report.errors]
    assert any("bad.json, line 9" in m and "'mt' missing or not text" in m for m in msgs), msgs
    assert any("line 9" in m and "'COMET' 'nan' is not a finite number" in m for m in msgs), msgs
    (tmp_path / "broken.json").write_text('{"a": [\n{"src": }\n]}')
    with pytest.raises(DataError, match="line 2"):
        read_external(f"comet-json:{tmp_path / 'broken.json'}")


def test_metricx_jsonl_problems_and_import(tmp_path, capsys):
    from evalcore.neural.imports import read_external
    from evalcore.core.problems import DataError

    src, ref, hyp = _lines("src.txt"), _lines("ref.B.txt"), _lines("sys.near_human.txt")
    good = [json.dumps({"source": s, "hypothesis": h, "reference": r, "prediction": float(i)})
            for i, (s, h, r) in enumerate(zip(src, hyp, ref))]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(good[:1] + ['{"hypothesis": "x"}', "not json"]) + "\n")
    with pytest.raises(DataError) as e:
        read_external(f"metricx-jsonl:{bad}")
    msgs = [str(p) for p in e.value.report.errors]
    assert any("line 2" in m and "'prediction'" in m for m in msgs) and any("line 3" in m for m in msgs), msgs
    f = tmp_path / "mx.jsonl"
    f.write_text("\n".join(good + [json.dumps({"hypothesis": "unknown", "prediction": 1.0})]) + "\n")
    out = tmp_path / "s.tsv"
    rc, _, err = _score([TINY, "--import-scores", f"metricx-jsonl:{f}", "--metrics", "ext-metricx-mx", "--out", out],
                        capsys)
    assert rc == 0, err
    assert "1 of 5 imported rows match no output" in err and "mx.jsonl, line 5" in err
    t = pd.read_csv(out, sep="\t", dtype={"seg_id": str})
    nh = t[t.system == "near_human"].set_index("seg_id").score
    assert [nh[str(i + 1)] for i in range(len(hyp))] == pytest.approx([float(i) for i in range(len(hyp))])


def test_pymarian_tsv_needs_its_input_and_aligns_lines(tmp_path):
    from evalcore.neural.imports import read_external
    from evalcore.core.problems import DataError

    inp = tmp_path / "in.tsv"
    inp.write_text("s1\tm1\tr1\ns2\tm2\n")
    sc = tmp_path / "scores.txt"
    sc.write_text("0.25\nabc\n")
    with pytest.raises(DataError, match=r"scores.txt, line 2: score 'abc' is not a number"):
        read_external(f"pymarian-tsv:{sc}={inp}")
    sc.write_text("0.25\n")
    with pytest.raises(DataError, match="1 score lines but 2 input lines"):
        read_external(f"pymarian-tsv:{sc}={inp}")
    sc.write_text("0.25\n-1.5\n")
    name, rows = read_external(f"pymarian-tsv:{sc}={inp}@pm")
    assert name == "pm" and rows[["src", "mt", "ref", "score"]].values.tolist() == [["s1", "m1", "r1", 0.25],
                                                                                     ["s2", "m2", "", -1.5]]
    with pytest.raises(ValueError, match="needs the input it scored"):
        read_external(f"pymarian-tsv:{sc}")
