"""A saved dataset loads from its columnar snapshot (fast dataset load), and the
snapshot never changes what loads: every table, dtype, extra table, warning and content hash
equals a fresh parse of the saved TSV files (the reference, computed in each test by
``load_collection`` of the folder); a stale, corrupt or missing snapshot falls back to the
TSVs and is rebuilt; the file hash checks of saved datasets still run first.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import SAMPLE, shared
from evalcore.io import workspace
from evalcore.io import load_collection, mqm_weights_in_force
from evalcore.io import snapshot as snap
from evalcore.core.problems import DataError

TABLES = ("segments", "references", "outputs", "judgements", "tags")


def tsv_reference(folder: Path, name: str):
    """What reading the saved TSVs gives, without any snapshot (the folder's hidden entries
    are never read by a FileSource)."""
    return load_collection(folder, name=name, fmt="tidy", quoting="csv")


def assert_same(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for lp, w in want.items():
        g = got[lp]
        assert (g.name, g.lp) == (w.name, w.lp)
        for t in TABLES:
            pd.testing.assert_frame_equal(getattr(g, t), getattr(w, t), check_dtype=True, check_exact=True)
        assert list(g.extras) == list(w.extras)
        for k in w.extras:
            pd.testing.assert_frame_equal(g.extras[k], w.extras[k], check_dtype=True, check_exact=True)
        assert g.warnings == w.warnings
        assert g.content_hash() == w.content_hash()
        g._cache.pop("hash")  # recomputed from the loaded tables, not the stored value
        assert g.content_hash() == w.content_hash()


def snapshots(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith(snap.PREFIX))


def no_tsv_parsing(monkeypatch):
    """Make any TSV parse of a saved dataset fail loudly."""
    def boom(*a, **k):
        raise AssertionError("the TSVs were parsed")
    monkeypatch.setattr("evalcore.io.tidy.read_tsv", boom)


@pytest.fixture(scope="module")
def wmt24_slice():
    """The first 40 segments of each WMT24 language pair (3 pairs, StringDtype ids, a domain extra)."""
    coll = load_collection(shared("wmt24_esa"))
    return {lp: ds.subset(seg_ids=ds.seg_ids[:40]) for lp, ds in coll.items()}


@pytest.mark.parametrize("which", ["sample", "wmt24"])
def test_saved_dataset_loads_from_snapshot_equal_to_the_tsvs(which, workspace_home, monkeypatch, request):
    coll = load_collection(SAMPLE) if which == "sample" else request.getfixturevalue("wmt24_slice")
    name = workspace.save(coll, which)
    folder = workspace_home / "datasets" / name
    assert len(snapshots(folder)) == 1  # built when saved
    want = tsv_reference(folder, name)
    with monkeypatch.context() as m:
        no_tsv_parsing(m)
        got = workspace.load_saved(name)
    assert_same(got, want)
    # the snapshot is no file of the dataset: meta.json's file table and the listing ignore it
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert not any(f.startswith(".") for f in meta["files"])
    assert "broken" not in workspace.list_saved()[0]


def test_missing_snapshot_is_built_on_load(tmp_path, workspace_home, monkeypatch):
    """Datasets saved before snapshots existed: the first load reads the TSVs and builds one."""
    name = workspace.save(load_collection(SAMPLE), "older")
    folder = workspace_home / "datasets" / name
    for p in snapshots(folder):
        import shutil

        shutil.rmtree(p)
    want = tsv_reference(folder, name)
    assert_same(workspace.load_saved(name), want)
    assert len(snapshots(folder)) == 1
    with monkeypatch.context() as m:
        no_tsv_parsing(m)
        assert_same(workspace.load_saved(name), want)


def test_corrupt_snapshot_falls_back_to_the_tsvs_and_is_rebuilt(workspace_home, monkeypatch):
    name = workspace.save(load_collection(SAMPLE), "damaged")
    folder = workspace_home / "datasets" / name
    (snapshot_dir,) = snapshots(folder)
    victim = sorted(snapshot_dir.glob("*.arrow"))[2]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    victim.write_bytes(bytes(data))
    want = tsv_reference(folder, name)
    assert snap.read_snapshot(folder, json.loads((snapshot_dir / "manifest.json").read_text())["key"], name) is None
    assert_same(workspace.load_saved(name), want)
    (manifest := snapshot_dir / "manifest.json").unlink()  # incomplete: no manifest
    assert_same(workspace.load_saved(name), want)
    assert manifest.is_file()  # rebuilt


def test_changed_tsv_still_refused_and_repair_gives_a_new_snapshot(workspace_home, monkeypatch):
    """The saved dataset's hash check runs before any snapshot is used; a repaired dataset loads its
    new content (the old snapshot's key names the old file hashes, so it is never used)."""
    name = workspace.save(load_collection(SAMPLE), "edited")
    folder = workspace_home / "datasets" / name
    (old,) = snapshots(folder)
    path = folder / "outputs.tsv"
    lines = path.read_text(encoding="utf-8").split("\n")
    first = lines[1].split("\t")
    first[-1] = first[-1][::-1]  # same length, other text
    lines[1] = "\t".join(first)
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(DataError) as exc:
        workspace.load_saved(name)
    assert exc.value.report.errors[0].file == "outputs.tsv"
    workspace.repair(name)
    want = tsv_reference(folder, name)
    got = workspace.load_saved(name)
    assert_same(got, want)
    assert got[next(iter(got))].outputs["text"].iloc[0] == first[-1].strip('"')
    assert snapshots(folder) != [old] and len(snapshots(folder)) == 1  # the stale one is removed


def test_mqm_weights_in_force_read_the_tsvs(workspace_home, monkeypatch):
    """Weights given on the command line change what loads: the snapshot is not used then."""
    name = workspace.save(load_collection(SAMPLE), "weighted")
    used = []
    monkeypatch.setattr(snap, "read_snapshot", lambda *a, **k: used.append(1))
    with mqm_weights_in_force({"major": 5.0, "minor": 1.0}):
        workspace.load_saved(name)
    assert used == []
    workspace.load_saved(name)
    assert used == [1]


def test_snapshot_key_names_files_and_loaders():
    table = {"segments.tsv": {"bytes": 3, "sha256": "a" * 64}}
    k = snap.snapshot_key(table, "tidy")
    assert k == snap.snapshot_key(dict(table), "tidy")
    assert k != snap.snapshot_key({"segments.tsv": {"bytes": 3, "sha256": "b" * 64}}, "tidy")
    assert k != snap.snapshot_key(table, "tidy;quoting=none")
