"""A full save of a saved dataset (workspace.update: the teacher's settings on the Annotate/Class
page, any read-modify-write) keeps what it does not rewrite itself: the CoNLL-U parses kept with
the dataset, the rows of the journals (merged into the new TSVs), a snapshot of the new TSVs."""
from __future__ import annotations

import json
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

