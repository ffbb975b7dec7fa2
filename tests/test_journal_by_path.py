"""A saved dataset's folder loaded by path (``evalcore correlate ~/.evalcore/.../datasets/NAME``,
``judges``, ``export-judgements``, ...: :func:`evalcore.io.load_collection`) includes the rows the
Annotate page appended to its raters' journals since the last full save, with a note saying how
many; ``workspace.repair`` (which loads the TSVs and merges the journals itself) keeps every row once."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evalcore.analysis import annotate as A
from evalcore.cli import main
from evalcore.io import journal

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "teaching_es_en"


@pytest.fixture
def saved(workspace_home):
    """A saved dataset and two raters' class judgements appended as the Annotate page does
    (:func:`evalcore.analysis.annotate.save_judgement` -> :func:`evalcore.io.workspace.append`)."""
    from evalcore.io import load_collection, workspace

    coll = load_collection(SAMPLE, name="s")
    name = workspace.save(coll, "class")
    lp = next(iter(coll))
    plan = A.Plan(items_per_student=6, overlap=1.0, qc=False)
    for rater, base in (("ana", 70), ("bo", 20)):
        for k, t in enumerate(A.task_sequence(coll[lp], plan, rater)[:4]):
            A.save_judgement(name, lp, rater, "da", t, base + k)
    path = workspace.datasets_dir() / name
    assert not (pd.read_csv(path / "judgements.tsv", sep="\t")["judgement"] == "class_da").any()  # journals only
    return name, lp, path


def _journal_rows(path: Path) -> list[dict]:
    """The class_da rows of the folder's journal files, read straight from their JSON lines."""
    rows = []
    for f in sorted(path.iterdir()):
        if journal.is_journal(f.name):
            for line in f.read_text(encoding="utf-8").splitlines():
                rows += [r for r in json.loads(line)["rows"].get("judgements", []) if r["judgement"] == "class_da"]
    return rows


def test_load_collection_by_path_merges_the_journals_with_a_note(saved, capsys):
    from evalcore.io import load_collection, workspace

    name, lp, path = saved
    want = _journal_rows(path)
    assert len(want) == 8
    ds = load_collection(path)[lp]
    err = capsys.readouterr().err
    assert "note: 8 saved row record(s) of 2 rater journal file(s) merged" in err
    got = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert sorted(zip(got["system"], got["seg_id"].astype(str), got["rater"], got["score"])) == \
        sorted((r["system"], r["seg_id"], r["rater"], float(r["score"])) for r in want)
    assert ds.content_hash() == workspace.load_saved(name)[lp].content_hash()  # what the workspace loads
    tsvs = load_collection(path, journals=False)[lp]
    assert not (tsvs.judgements["judgement"] == "class_da").any()
    assert "merged" not in capsys.readouterr().err


def test_judges_on_the_folder_path_counts_the_journal_rows(saved, tmp_path, capsys):
    name, lp, path = saved
    want = pd.Series([r["rater"] for r in _journal_rows(path)]).value_counts().sort_index()
    assert main(["judges", str(path), "--lp", lp, "--criterion", "class_da", "--out-prefix", str(tmp_path / "j-")]) == 0
    assert "8 saved row record(s)" in capsys.readouterr().err
    raters = pd.read_csv(tmp_path / "j-raters.tsv", sep="\t")
    raters = raters[raters["judgement"] == "class_da"].set_index("rater")["n"].sort_index()
    assert raters.to_dict() == want.to_dict() == {"ana": 4, "bo": 4}


def test_correlate_on_the_folder_path_is_correlate_on_the_merged_dataset(saved, tmp_path, capsys):
    """The same table as correlate on a tidy folder written from the workspace's own merged load."""
    from evalcore.io import workspace, write_tidy

    name, lp, path = saved
    merged = tmp_path / "merged"
    write_tidy(list(workspace.load_saved(name).values()), merged)
    outs = []
    for src in (path, merged):
        out = tmp_path / f"c-{src.name}.tsv"
        assert main(["correlate", str(src), "--lp", lp, "--human", "class_da", "--metrics", "chrf",
                     "--level", "segment", "--group", "none", "--out", str(out)]) == 0
        outs.append(pd.read_csv(out, sep="\t"))
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert len(outs[0]) == 1 and pd.notna(outs[0]["value"].iloc[0])


def test_repair_still_gives_every_journal_row_once(saved):
    from evalcore.io import load_collection, workspace

    name, lp, path = saved
    meta = workspace.repair(name)
    tsvs = load_collection(path, journals=False)
    assert meta["hashes"] == {k: d.content_hash() for k, d in tsvs.items()}  # of the TSVs: the journals stay journals
    assert meta["journal_seq"] == 8
    ds = workspace.load_saved(name)[lp]
    cls = ds.judgements[ds.judgements["judgement"] == "class_da"]
    assert len(cls) == len(_journal_rows(path)) == 8
    assert meta["counts"][lp]["judgements"] == len(ds.judgements)  # the journal rows counted once, as append does
    workspace.update(name, lambda c: c)  # a full save writes the journals' rows into the TSVs, once
    assert not [p for p in path.iterdir() if journal.is_journal(p.name)]
    back = load_collection(path)[lp].judgements
    assert (back["judgement"] == "class_da").sum() == 8
