"""mt-metrics-eval's current (2025) layout read by evalcore.io.mtme, compared with mt-metrics-eval's
own reader (``data.EvalSet``) on a root the test writes: ``.jsonl`` sources, references and outputs
beside ``.txt``, the per-system ``metadata/`` folder, several test sets read as one collection,
and paragraph segments whose line breaks are escaped in ``.txt`` while error-span offsets count
the characters of the unescaped text.
"""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from mtme_build import write_testset
from test_metatask import _oracle

LP25 = "en-cs_CZ"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("mtme25") / "mt-metrics-eval-v2"
    written = {
        "wmt25": write_testset(root, "wmt25", LP25, n_seg=6, systems=["sysA", "sysB", "sysC"], gold="esa-human1",
                               metrics={"chrF": "ref", "COMETKiwi22": "src"}, seed=1, ratings=True,
                               missing=[("sysC", 2)]),
        "wmt24": write_testset(root, "wmt24", "en-de", n_seg=4, systems=["s1", "s2"], gold="mqm",
                               metrics={"BLEU": "ref"}, seed=2, jsonl=False),
    }
    # a missing translation, as mt-metrics-eval marks it in a .txt file
    f = root / "wmt24" / "system-outputs" / "en-de" / "s2.txt"
    lines = f.read_text(encoding="utf-8").splitlines()
    f.write_text("\n".join(["[No translation supplied]"] + lines[1:]) + "\n", encoding="utf-8")
    return root, written


def _evalset(root, test_set, lp, gold):
    data, _, _ = _oracle()
    from mt_metrics_eval import meta_info

    info = meta_info.MetaInfo("refA", {"sys": gold, "seg": gold}, set(), set())
    return data.EvalSet(test_set, lp, read_stored_metric_scores=True, info=info, path=str(root))


@pytest.mark.parametrize("test_set,lp,gold", [("wmt25", LP25, "esa-human1"), ("wmt24", "en-de", "mqm")])
def test_layout_equals_mtme_evalset(root, test_set, lp, gold):
    from evalcore.io import load_collection

    path, _ = root
    evs = _evalset(path, test_set, lp, gold)
    coll = load_collection(path)
    ds = coll[f"{test_set}/{lp}"]
    assert ds.lp == lp and ds.name == test_set

    def unescaped(x):  # mt-metrics-eval leaves a .txt file's "\n" as two characters; None: no translation
        return "" if x is None else x.replace("\\n", "\n")

    assert list(ds.segments["source"]) == [unescaped(t) for t in evs.src]
    assert list(ds.segments["doc_id"]) == evs.DocsPerSeg()
    refs = ds.ref_texts()
    assert set(refs) == set(evs.all_refs)
    for r, texts in evs.all_refs.items():
        assert refs[r] == [unescaped(t) for t in texts]
    outs = ds.sys_texts()
    assert set(outs) == set(evs.sys_outputs)
    for s, texts in evs.sys_outputs.items():
        assert outs[s] == [unescaped(t) for t in texts]
    if test_set == "wmt24":  # mt-metrics-eval's "no translation" marker: None there, an empty text here
        assert evs.sys_outputs["s2"][0] is None and outs["s2"][0] == ""
    # human scores: the segment block of every system, None = not rated
    gold_seg = evs.Scores("seg", gold)
    j = ds.judgements[ds.judgements["judgement"] == gold]
    for s, vals in gold_seg.items():
        got = dict(zip(j[j["system"] == s]["seg_id"], j[j["system"] == s]["score"]))
        assert [got.get(str(k + 1)) for k in range(len(vals))] == vals
    # stored metric scores
    ms = ds.extras["metric_scores"]
    for name in evs.metric_names:
        for s, vals in evs.Scores("seg", name).items():
            sub = ms[(ms["metric"] + "-" + ms["refset"] == name) & (ms["level"] == "seg") & (ms["system"] == s)]
            assert list(sub["score"]) == vals
    # the per-system metadata folder
    meta = ds.extras["metadata"]
    assert set(meta["system"]) == set(evs.metadata)
    for s, records in evs.metadata.items():
        assert [json.loads(x) for x in meta[meta["system"] == s]["metadata"]] == records
    # domains
    dom = ds.extras["segment_domains"]
    assert list(dom["domain"]) == evs.DomainsPerSeg()


def test_paragraph_spans_stay_aligned_with_unescaped_text(root):
    from evalcore.io import load_collection

    path, written = root
    ds = load_collection(path)[f"wmt25/{LP25}"]
    r = ds.extras["ratings"]
    outs = ds.sys_texts()
    spans = r[r["category"] != "no-error"]
    assert len(spans) == len(written["wmt25"]["spans"]) > 0
    for _, row in spans.iterrows():
        text = outs[row["system"]][int(row["seg_id"]) - 1]
        # the span marks what the writer marked, after a line break that a .txt file escapes
        assert text[row["start"]:row["end"]] == written["wmt25"]["spans"][(row["system"], int(row["seg_id"]) - 1)]
        assert row["severity"] == "major" and row["side"] == "target"
    # at least one of the spanned texts came from a .txt file (escaped line break)
    txt_systems = {p.stem for p in (path / "wmt25" / "system-outputs" / LP25).glob("*.txt")}
    assert txt_systems & set(spans["system"])
    # a rated segment without errors is a row of its own, an unrated one none
    clean = r[r["category"] == "no-error"]
    assert len(clean) and clean["start"].isna().all()
    assert len(r) == len(spans) + len(clean)


def test_escaped_line_breaks_are_counted_in_a_warning(root):
    from evalcore.io import load_collection

    path, _ = root
    ds = load_collection(path)[f"wmt25/{LP25}"]
    msgs = [str(w) for w in ds.warnings]
    assert any("escaped line breaks" in m and "sysB.txt" in m for m in msgs), msgs


def test_root_as_one_collection_with_a_test_set_column(root, tmp_path):
    from evalcore.cli import main
    from evalcore.io import load_dataset

    path, _ = root
    assert load_dataset(path, lp="en-de").name == "wmt24"  # a bare pair held by one test set
    out = tmp_path / "overview.tsv"
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(["score", str(path), "--lp", "all", "--metrics", "chrf", "--level", "system",
                   "--out", str(out)])
    assert rc == 0, err.getvalue()
    t = pd.read_csv(out, sep="\t")
    assert list(t.columns[:2]) == ["test_set", "lp"]
    assert sorted(set(zip(t["test_set"], t["lp"]))) == [("wmt24", "en-de"), ("wmt25", LP25)]


def _bad_root(tmp_path):
    root = tmp_path / "bad"
    write_testset(root, "wmt25", LP25, n_seg=3, systems=["sysA", "sysB"], gold="esa-human1",
                  metrics={"chrF": "ref"}, seed=3, ratings=True)
    d = root / "wmt25"
    (d / "references" / f"{LP25}.refA.jsonl").write_text('{"target": "a"}\nnot json\n{"text": "c"}\n')
    (d / "metadata" / LP25 / "sysA.jsonl").write_text('{"a": 1}\n')
    rating = d / "human-scores" / f"{LP25}.esa-human1.seg.rating"
    lines = rating.read_text().splitlines()
    lines[0] = "sysA\t" + json.dumps({"errors": [{"start": 0, "end": 999}]})
    rating.write_text("\n".join(lines) + "\n")
    return root


def test_layout_problems_come_together_with_file_and_line(tmp_path):
    from evalcore.core.problems import DataError
    from evalcore.io import load_collection

    with pytest.raises(DataError) as exc:
        load_collection(_bad_root(tmp_path) / "wmt25")
    text = str(exc.value)
    assert "references/en-cs_CZ.refA.jsonl, line 2" in text and "is not JSON" in text
    assert "metadata/en-cs_CZ/sysA.jsonl" in text and "one JSON object per segment" in text
    assert "en-cs_CZ.esa-human1.seg.rating, line 1" in text and "outside its target text" in text


def test_jsonl_reader_rejects_a_missing_text_field(tmp_path):
    from evalcore.core.problems import DataError
    from evalcore.io import load_collection

    root = tmp_path / "r"
    write_testset(root, "wmt25", LP25, n_seg=2, systems=["sysA"], gold="esa-human1", metrics={}, seed=4)
    (root / "wmt25" / "system-outputs" / LP25 / "sysA.jsonl").write_text('{"hyp": "x"}\n{"hypothesis": "y"}\n')
    with pytest.raises(DataError, match=r"sysA.jsonl, line 1.*without a text field 'hypothesis'"):
        load_collection(root / "wmt25")


def test_jsonl_texts_score_like_txt(root):
    """The same texts from .jsonl and from .txt give the same metric scores (nothing of the
    file kind leaks into the data)."""
    from evalcore.io import load_collection
    from evalcore.metrics.engine import score_table

    path, _ = root
    ds = load_collection(path)[f"wmt25/{LP25}"]
    t = score_table(ds, ["chrf"], level="segment")
    assert len(t) == len(ds.systems) * ds.n_segments
    assert np.isfinite(t["score"]).all()
