"""Class saves as journal lines (evalcore.io.journal, evalcore.io.workspace.append): a save writes
only the rater's own journal, the loaded dataset is what a full save of the same rows gives, and a
damaged journal is reported with its file and line."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from evalcore.analysis import annotate as A
from evalcore.core.dataset import Dataset
from evalcore.core.problems import DataError
from evalcore.io import journal

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


@pytest.fixture
def saved(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    name = workspace.save(coll, "class")
    return name, next(iter(coll)), coll


def _saves(name, lp, ds):
    plan = A.Plan(items_per_student=10, overlap=0.5, qc=True)
    for rater, protocol in (("ana", "da"), ("<b>bo</b>", "esa"), ("ana", "esa")):
        for k, t in enumerate(A.task_sequence(ds, plan, rater)[:6]):
            spans = [A.words_to_span(t.text, 0, 0, "major")] if protocol == "esa" else None
            A.save_judgement(name, lp, rater, protocol, t, 10 * k + len(rater), spans)


def test_merged_journals_load_as_a_full_save_of_the_same_rows(saved):
    from evalcore.io import workspace

    name, lp, coll = saved
    _saves(name, lp, coll[lp])
    folder = workspace.datasets_dir() / name
    journals = sorted(p.name for p in folder.iterdir() if journal.is_journal(p.name))
    assert journals == sorted({journal.file_name("ana"), journal.file_name("<b>bo</b>")})
    merged = workspace.load_saved(name)[lp]
    assert len(A.log_of(merged)) == 18
    # a full save (it writes the merged rows into the TSVs, loads them back and refuses any difference)
    workspace.update(name, lambda c: c)
    assert not [p for p in folder.iterdir() if journal.is_journal(p.name)]  # written into the TSVs
    full = workspace.load_saved(name)[lp]
    assert full.content_hash() == merged.content_hash()
    for t in ("judgements",):
        pd.testing.assert_frame_equal(getattr(full, t), getattr(merged, t))
    assert sorted(full.extras) == sorted(merged.extras)
    for k in full.extras:
        pd.testing.assert_frame_equal(full.extras[k], merged.extras[k], check_dtype=False)
    # and saving goes on after it (seq starts again, nothing collides)
    t = A.task_sequence(full, A.Plan(items_per_student=10, overlap=0.5, qc=True), "cy")[0]
    A.save_judgement(name, lp, "cy", "da", t, 42)
    assert A.class_raters(workspace.load_saved(name)[lp]) == ["ana", "<b>bo</b>", "cy"]


def test_a_save_writes_only_the_raters_journal(saved):
    """The dataset's TSVs and another rater's journal are the very same files (same inode: hard
    links, nothing rewritten) after a save; the order of saves is kept across raters."""
    from evalcore.io import workspace

    name, lp, coll = saved
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=6, overlap=1.0, qc=False), "ana")
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)
    folder = workspace.datasets_dir() / name
    before = {p.name: (os.stat(p).st_ino, p.read_bytes()) for p in folder.iterdir() if p.is_file()}
    A.save_judgement(name, lp, "bo", "da", seq[0], 20)
    A.save_judgement(name, lp, "ana", "da", seq[1], 60)
    after = {p.name: (os.stat(p).st_ino, p.read_bytes()) for p in folder.iterdir() if p.is_file()}
    for fname in ("segments.tsv", "outputs.tsv", "references.tsv", "judgements.tsv"):
        assert after[fname] == before[fname]
    assert after[journal.file_name("ana")][1].startswith(before[journal.file_name("ana")][1])
    lines = [json.loads(x) for x in after[journal.file_name("ana")][1].decode().splitlines()]
    assert [r["seq"] for r in lines] == [1, 3] and {r["key"] for r in lines} == {"ana"}
    ds = workspace.load_saved(name)[lp]
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert list(zip(cls["rater"], cls["score"])) == [("ana", 70.0), ("bo", 20.0), ("ana", 60.0)]
    assert json.loads((folder / "meta.json").read_text())["journal_seq"] == 3


def test_a_save_reuses_the_snapshot_of_the_tsvs(saved, monkeypatch):
    """After a save the next load reads the TSVs' snapshot (the journals are merged on top): the
    TSV loader is not called again."""
    from evalcore import io as evio
    from evalcore.io import workspace

    name, lp, coll = saved
    workspace.load_saved(name)  # builds the snapshot
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=4, overlap=1.0, qc=False), "ana")

    def refuse(*a, **k):
        raise AssertionError("the TSVs were parsed again")

    monkeypatch.setattr(evio, "load_collection", refuse)
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)
    A.save_judgement(name, lp, "ana", "da", seq[1], 71)
    assert list(workspace.load_saved(name)[lp].judgements["score"].iloc[-2:]) == [70.0, 71.0]


def test_a_changed_or_broken_journal_is_reported_with_file_and_line(saved):
    from evalcore.io import workspace

    name, lp, coll = saved
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=4, overlap=1.0, qc=False), "ana")
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)
    path = workspace.datasets_dir() / name / journal.file_name("ana")
    good = path.read_bytes()
    path.write_bytes(good.replace(b'"score": 70.0', b'"score": 99.0'))  # same size, other content
    with pytest.raises(DataError, match=journal.file_name("ana")):
        workspace.load_saved(name)
    path.write_bytes(good + b'{"seq": 2, "lp": "' + lp.encode() + b'", "key": "bo", "rows": {"x": [{"a": "1"}]}}\n'
                     + b"not json\n")
    with pytest.raises(DataError) as err:
        journal.parse({path.name: path.read_bytes()})
    text = str(err.value)
    assert f"{path.name}, line 2" in text and f"{path.name}, line 3" in text
    assert "belongs in" in text and "not a JSON object" in text


def test_parse_and_merge_on_hand_made_records():
    ds = Dataset("d", "x-y", pd.DataFrame({"seg_id": ["1", "2"]}))
    other = Dataset("d", "x-z", pd.DataFrame({"seg_id": ["1"]}))
    a, b = journal.file_name("a"), journal.file_name("b")
    recs = journal.parse({
        a: journal.record_line(3, "x-y", "a", {"judgements": [{"system": "s", "seg_id": "2", "rater": "a",
                                                              "judgement": "j", "score": 5}]})
        + journal.record_line(1, "x-y", "a", {"log": [{"u": "1"}]}),
        b: journal.record_line(2, "x-y", "b", {"log": [{"u": "2", "v": "w"}],
                                               "judgements": [{"system": "s", "seg_id": "1", "rater": "b",
                                                               "judgement": "j", "score": 7.5}]})})
    assert [r["seq"] for r in recs] == [1, 2, 3]
    out = journal.merge({"x-y": ds, "x-z": other}, recs)
    j = out["x-y"].judgements
    assert list(zip(j["rater"], j["score"])) == [("b", 7.5), ("a", 5.0)] and j["score"].dtype == "float64"
    log = out["x-y"].extras["log"]
    assert log.to_dict("list") == {"u": ["1", "2"], "v": ["", "w"]}
    assert list(out["x-z"].extras["log"].columns) == ["u", "v"] and out["x-z"].extras["log"].empty
    with pytest.raises(ValueError, match="finite"):
        journal.record_line(4, "x-y", "a", {"judgements": [{"system": "s", "seg_id": "1", "rater": "a",
                                                            "judgement": "j", "score": float("nan")}]})
    with pytest.raises(DataError, match="seq 1 is also used"):
        journal.parse({a: journal.record_line(1, "x-y", "a", {"log": [{"u": "1"}]}),
                       b: journal.record_line(1, "x-y", "b", {"log": [{"u": "1"}]})})
    with pytest.raises(DataError, match="language pair q-r"):
        journal.merge({"x-y": ds}, journal.parse({a: journal.record_line(1, "q-r", "a", {"log": [{"u": "1"}]})}))


def test_repair_keeps_the_journals_and_saving_goes_on(saved):
    from evalcore.io import workspace

    name, lp, coll = saved
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=4, overlap=1.0, qc=False), "ana")
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)
    A.save_judgement(name, lp, "bo", "da", seq[0], 30)
    meta = workspace.repair(name)  # accepts the files as they are (the journals checked too)
    assert meta["journal_seq"] == 2 and journal.file_name("ana") in meta["files"]
    A.save_judgement(name, lp, "ana", "da", seq[1], 60)
    ds = workspace.load_saved(name)[lp]
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert list(zip(cls["rater"], cls["score"])) == [("ana", 70.0), ("bo", 30.0), ("ana", 60.0)]
    path = workspace.datasets_dir() / name / journal.file_name("bo")
    path.write_bytes(path.read_bytes() + b"{broken\n")
    with pytest.raises(DataError, match=journal.file_name("bo") + ", line 2"):
        workspace.repair(name)  # a broken journal is not accepted


def test_saves_read_the_tsvs_once_and_still_catch_changed_files(saved, monkeypatch):
    """After one save the TSVs are kept in memory while meta.json names the same files: further
    saves read neither the TSVs nor their snapshot. A TSV changed on disk is still caught: by the
    next save when its size changed, by every load in any case; a changed journal by the next save."""
    from evalcore import io as evio
    from evalcore.io import snapshot, workspace

    name, lp, coll = saved
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=6, overlap=1.0, qc=False), "ana")
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)

    def refuse(*a, **k):
        raise AssertionError("the TSVs or their snapshot were read again")

    with monkeypatch.context() as mp:
        mp.setattr(evio, "load_collection", refuse)
        mp.setattr(snapshot, "read_snapshot", refuse)
        A.save_judgement(name, lp, "bo", "da", seq[0], 20)
        A.save_judgement(name, lp, "ana", "da", seq[1], 60)
    folder = workspace.datasets_dir() / name
    tsv = folder / "outputs.tsv"
    good = tsv.read_bytes()
    tsv.write_bytes(good[:-2] + (b"X" if good[-2:-1] != b"X" else b"Y") + good[-1:])  # same size
    with pytest.raises(DataError, match="outputs.tsv"):
        workspace.load_saved(name)
    A.save_judgement(name, lp, "ana", "da", seq[2], 50)  # the append itself does not read the TSVs ...
    with pytest.raises(DataError, match="outputs.tsv"):
        workspace.load_saved(name)  # ... and the change is still caught: its entry in meta.json is unchanged
    tsv.write_bytes(good + b"x")  # another size: the next save checks every file again
    with pytest.raises(DataError, match="outputs.tsv"):
        A.save_judgement(name, lp, "ana", "da", seq[3], 40)
    tsv.write_bytes(good)
    bo = folder / journal.file_name("bo")
    data = bo.read_bytes()
    bo.write_bytes(data.replace(b'"score": 20.0', b'"score": 90.0'))
    with pytest.raises(DataError, match=journal.file_name("bo")):
        A.save_judgement(name, lp, "ana", "da", seq[3], 40)
    bo.write_bytes(data)
    A.save_judgement(name, lp, "ana", "da", seq[3], 40)
    ds = workspace.load_saved(name)[lp]
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert list(zip(cls["rater"], cls["score"])) == [("ana", 70.0), ("bo", 20.0), ("ana", 60.0), ("ana", 50.0),
                                                     ("ana", 40.0)]


_MIXED = """
import os, sys, time
sys.path.insert(0, {root!r})
from evalcore.analysis import annotate as A
from evalcore.io import workspace
name, lp, rater, protocol, go = sys.argv[1:6]
while not os.path.exists(go):
    time.sleep(0.01)
ds = workspace.load_saved(name)[lp]
plan = A.Plan(items_per_student=4, overlap=0.5, qc=False, rank_outputs=3)
if protocol == "rank":
    for t in A.rank_sequence(ds, plan, rater):
        A.save_ranking(name, lp, rater, t, [1, 2, 2])
else:
    for t in A.task_sequence(ds, plan, rater):
        A.save_judgement(name, lp, rater, "mqm", t, None, [A.words_to_span(t.text, 0, 0, "minor") | {{"category": "Style"}}])
"""


def test_concurrent_mqm_and_ranking_writers_keep_every_row(saved, tmp_path):
    import subprocess
    import sys
    import time

    from evalcore.io import workspace

    name, lp, coll = saved
    script = tmp_path / "child.py"
    script.write_text(_MIXED.format(root=str(ROOT)))
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(script), name, lp, r, p, str(go)], env=dict(os.environ))
             for r, p in (("ana", "mqm"), ("bo", "rank"), ("cy", "mqm"))]
    time.sleep(0.5)
    go.touch()
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    ds = workspace.load_saved(name)[lp]
    j = ds.judgements
    assert sorted(j[j["judgement"] == "class_mqm"].groupby("rater").size().items()) == [("ana", 4), ("cy", 4)]
    assert set(j.loc[j["judgement"] == "class_mqm", "score"]) == {-1.0}
    ranks = j[j["judgement"] == "class_rank"]
    assert len(ranks) == 12 and sorted(ranks.groupby("seg_id")["score"].apply(sorted).map(tuple)) == [(1.0, 2.0, 2.0)] * 4
    assert len(ds.extras[A.MQM_EXTRA]) == 8 and len(A.log_of(ds)) == 12
    meta = json.loads((workspace.datasets_dir() / name / "meta.json").read_text())
    assert meta["journal_seq"] == 12
