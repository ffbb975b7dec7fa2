"""A full save of a saved dataset (workspace.update: the teacher's settings on the Annotate/Class
page, any read-modify-write) keeps what it does not rewrite itself: the CoNLL-U parses kept with
the dataset, the rows of the journals (merged into the new TSVs), a snapshot of the new TSVs; a
parse uploaded while a save runs is never lost (both writers hold the dataset's name lock)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalcore.analysis import annotate as A
from evalcore.io import journal

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"
PARSE = "# sent_id = {sid}\n1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"


@pytest.fixture
def saved(workspace_home):
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    name = workspace.save(coll, "class")
    return name, next(iter(coll)), coll


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_full_save_keeps_the_parses_the_journals_rows_and_a_snapshot(saved, monkeypatch):
    from evalcore import io as evio
    from evalcore.io import workspace

    name, lp, coll = saved
    parses = {"mine.conllu": PARSE.format(sid="A:1").encode(), "meta.json": PARSE.format(sid="B:2").encode()}
    for fname, data in parses.items():  # "meta.json" is a legal upload name inside parses/
        workspace.save_parses(name, lp, fname, data)
    workspace.save_parses(name, "", "other.conllu", b"x\n")  # another pair's folder
    seq = A.task_sequence(coll[lp], A.Plan(items_per_student=4, overlap=1.0, qc=False), "ana")
    A.save_judgement(name, lp, "ana", "da", seq[0], 70)  # a journal line
    folder = workspace.datasets_dir() / name
    before = {k: v for k, v in _files(folder / "parses").items()}
    assert [p.name for p in folder.iterdir() if journal.is_journal(p.name)]

    A.save_plan(name, lp, A.Plan(items_per_student=5, overlap=0.4, qc=True))  # a full save (update)

    assert _files(folder / "parses") == before
    assert sorted(workspace.saved_parses(name, lp)) == sorted((v, k) for k, v in parses.items())
    assert workspace.saved_parses(name, "") == [(b"x\n", "other.conllu")]
    # the journal's rows are in the new TSVs (a full save merges them, by design), none lost
    assert not [p.name for p in folder.iterdir() if journal.is_journal(p.name)]
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert not [f for f in meta["files"] if journal.is_journal(f)]
    # the snapshot of the new TSVs was built by the save: the next load does not parse them

    def refuse(*a, **k):
        raise AssertionError("the TSVs were parsed again: the full save left no snapshot")

    monkeypatch.setattr(evio, "load_collection", refuse)
    ds = workspace.load_saved(name)[lp]
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert list(zip(cls["rater"], cls["score"])) == [("ana", 70.0)]
    assert A.plan_of(ds).items_per_student == 5
    assert [p.name for p in folder.iterdir() if p.name.startswith(".snap-")]


_SAVER = """
import os, sys, time
sys.path.insert(0, {root!r})
from evalcore.analysis import annotate as A
from evalcore.io import workspace
name, lp, go, signal, rounds = sys.argv[1:6]
if signal != "-":  # widen the window between carrying the parses and the swap, and say when it opens
    real = workspace._carry_folders
    def slow(old, new):
        real(old, new)
        open(signal, "w").close()
        time.sleep(1.0)
    workspace._carry_folders = slow
while not os.path.exists(go):
    time.sleep(0.005)
for k in range(int(rounds)):
    A.save_plan(name, lp, A.Plan(items_per_student=3 + k, overlap=0.5, qc=False))
"""
_PARSER = """
import os, sys, time
sys.path.insert(0, {root!r})
from evalcore.io import workspace
name, lp, go, rounds = sys.argv[1:5]
while not os.path.exists(go):
    time.sleep(0.005)
for k in range(int(rounds)):
    workspace.save_parses(name, lp, f"p{{k}}.conllu", ("# sent_id = A:%d\\n1\\tHi\\thi\\tINTJ\\tUH\\t_\\t0\\troot\\t_\\t_\\n\\n" % k).encode())
"""


@pytest.mark.parametrize("widened", [True, False], ids=["upload-inside-the-save", "together"])
def test_a_parse_uploaded_during_a_save_is_kept(saved, tmp_path, widened):
    """Two processes: one saves the teacher's settings (a full save), the other uploads parses.
    ``upload-inside-the-save``: the upload starts once the save has carried the parses into its
    new version and before its swap (the window widened to 1 s): without the name lock the
    upload went into the folder about to be replaced and was lost. ``together``: three of each
    at once. Both writers' results survive."""
    from evalcore.io import workspace

    name, lp, _ = saved
    saver, parser = tmp_path / "saver.py", tmp_path / "parser.py"
    saver.write_text(_SAVER.format(root=str(ROOT)))
    parser.write_text(_PARSER.format(root=str(ROOT)))
    go, signal = tmp_path / "go", tmp_path / "carried"
    rounds = "1" if widened else "3"
    a = subprocess.Popen([sys.executable, str(saver), name, lp, str(go), str(signal) if widened else "-", rounds],
                         env=dict(os.environ))
    # the uploader starts with the saver (widened: once the saver has carried the parses)
    b = subprocess.Popen([sys.executable, str(parser), name, lp, str(signal if widened else go), rounds],
                         env=dict(os.environ))
    time.sleep(0.5)
    go.touch()
    assert [a.wait(timeout=300), b.wait(timeout=300)] == [0, 0]
    assert signal.exists() == widened
    n = int(rounds)
    assert sorted(workspace.saved_parses(name, lp)) == sorted(
        (("# sent_id = A:%d\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n" % k).encode(), f"p{k}.conllu") for k in range(n))
    assert A.plan_of(workspace.load_saved(name)[lp]).items_per_student == 3 + n - 1
    assert not [p.name for p in workspace.datasets_dir().iterdir() if p.name.startswith((".tmp", ".old"))]
