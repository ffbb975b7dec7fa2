"""One atomic writer: the similarity cache, saved datasets' metadata and
parses, tidy TSVs, the pages' view cache and output tables all go through
``evalcore.core.export.atomic_write``, so each file is complete or absent (or still the old
version) after a failure mid-write.

Failures are simulated in-process (the writer raises after writing part of the data) and for
real (a child process is killed with ``os._exit`` halfway through writing the cache). The
expectations are the data computed in the test without the cache, the bytes written before,
and the permissions Python's own ``open()`` gives a file in the same folder.
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from evalcore.core import export
from evalcore.io import workspace
from evalcore.core.dataset import Dataset
from evalcore.io import load_collection
from evalcore.metrics import engine


def _dataset() -> Dataset:
    segs = pd.DataFrame({"seg_id": ["1", "2", "3"], "doc_id": "d", "source": ["uno", "dos", "tres"]})
    refs = pd.DataFrame([(s, r, f"{r} says {w}") for s, w in (("1", "one"), ("2", "two"), ("3", "three"))
                         for r in ("A", "B")], columns=["seg_id", "ref_id", "text"])
    outs = pd.DataFrame([(a, s, f"{a} the {w}") for s, w in (("1", "one"), ("2", "two"), ("3", "three"))
                         for a in ("s1", "s2")], columns=["system", "seg_id", "text"])
    return Dataset("t", "es-en", segs, refs, outs)


def _same(a, b) -> None:
    for x, y in ((a.sys_ref, b.sys_ref), (a.ref_ref, b.ref_ref), (a.loo_sys, b.loo_sys), (a.loo_ref, b.loo_ref)):
        np.testing.assert_array_equal(x, y)
    assert (a.seg_ids, a.systems, a.ref_ids) == (b.seg_ids, b.systems, b.ref_ids)


# ---- the similarity-tensor cache ---------------------------------------------------------
KILLED_MID_CACHE_WRITE = """
import os, sys
import numpy as np
sys.path.insert(0, "tests")
from test_atomic_writes import _dataset
from evalcore.metrics import engine

real = np.savez
def half_then_killed(fh, **arrays):
    import io
    buf = io.BytesIO()
    real(buf, **arrays)
    data = buf.getvalue()
    fh.write(data[: len(data) // 2])
    fh.flush()
    os._exit(9)  # killed mid-write: no cleanup, no finally
np.savez = half_then_killed
engine.similarity_tensors(_dataset(), "chrf", cache_dir=sys.argv[1])
"""


def test_similarity_cache_absent_after_a_kill_mid_write_then_complete(tmp_path):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-c", KILLED_MID_CACHE_WRITE, str(tmp_path)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 9, res.stderr[-2000:]
    folder = tmp_path / "simtensors"
    left = list(folder.iterdir())
    # half a file was written, but only under a hidden temporary name: no cache entry exists
    assert len(left) == 1 and left[0].name.startswith(".") and left[0].name.endswith(".tmp")
    assert left[0].stat().st_size > 0 and not list(folder.glob("*.npz"))

    fresh = engine.similarity_tensors(_dataset(), "chrf", cache_dir=False)
    first = engine.similarity_tensors(_dataset(), "chrf", cache_dir=tmp_path)
    assert first.meta.get("cached") is False  # the half file was never taken for a cache entry
    again = engine.similarity_tensors(_dataset(), "chrf", cache_dir=tmp_path)
    assert again.meta.get("cached") is True
    _same(again, fresh)


def test_similarity_cache_failed_rewrite_keeps_the_complete_file(tmp_path, monkeypatch):
    ds = _dataset()
    t = engine.similarity_tensors(ds, "chrf", cache_dir=tmp_path)
    (path,) = (tmp_path / "simtensors").glob("*.npz")
    before = path.read_bytes()
    real = np.savez

    def half_then_full_disk(fh, **arrays):
        real(fh, **{k: v for k, v in list(arrays.items())[:2]})
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as m, pytest.raises(OSError, match="No space"):
        m.setattr(np, "savez", half_then_full_disk)
        engine._save_npz(path, t)
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # the temporary is gone
    _same(engine._load_npz(path), engine.similarity_tensors(ds, "chrf", cache_dir=False))


# ---- saved datasets: metadata and parses ------------------------------------------------
def _fsync_fails(fd):
    """The data are written in full to the temporary file, then the disk fails (fsync raises)
    before the rename that would publish them."""
    raise OSError(5, "Input/output error")


def test_saved_parses_and_metadata_stay_whole_when_a_write_fails(tmp_path, workspace_home, monkeypatch):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "segments.tsv").write_text("lp\tseg_id\tsource\nes-en\t1\tHola\n", encoding="utf-8")
    (folder / "references.tsv").write_text("lp\tseg_id\tref_id\ttext\nes-en\t1\tA\tHello\n", encoding="utf-8")
    (folder / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\nes-en\ts1\t1\tHi\n", encoding="utf-8")
    coll = load_collection(folder)
    name = workspace.save(coll, "keep")
    v1 = b"# sent_id = 1\n1\tHello\thello\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"
    target = workspace.save_parses(name, "es-en", "mine.conllu", v1)
    meta = workspace_home / "datasets" / name / "meta.json"
    meta_before = meta.read_bytes()

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", _fsync_fails)
        with pytest.raises(OSError, match="Input/output"):
            workspace.save_parses(name, "es-en", "mine.conllu", b"a new version that never lands\n")
        with pytest.raises(OSError, match="Input/output"):
            workspace._write_json_atomic(meta, {"name": "half"})

    assert workspace.saved_parses(name, "es-en") == [(v1, "mine.conllu")]
    assert sorted(p.name for p in target.parent.iterdir()) == ["mine.conllu"]
    assert meta.read_bytes() == meta_before
    # no temporary file left (the .snap-* folder is the dataset's load snapshot, not a leftover)
    assert not [p.name for p in meta.parent.iterdir() if p.name.startswith(".") and not p.name.startswith(".snap-")]
    assert workspace.load_saved(name)["es-en"].content_hash() == coll["es-en"].content_hash()


# ---- the writer itself ------------------------------------------------------------------
@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_new_files_get_the_permissions_open_gives(tmp_path, umask):
    """Not 0o600 like tempfile.mkstemp: a saved dataset or an output table is as readable as
    a file written with open() under the same umask."""
    old = os.umask(umask)
    try:
        with open(tmp_path / "by_open.txt", "w") as fh:
            fh.write("x")
        export.atomic_write(tmp_path / "by_atomic_write.txt", lambda fh: fh.write("x"))
        export.atomic_write(tmp_path / "binary.bin", lambda fh: fh.write(b"\x00\x01"), mode="wb", fsync=False)
    finally:
        os.umask(old)
    want = (tmp_path / "by_open.txt").stat().st_mode & 0o777
    assert want == 0o666 & ~umask
    assert (tmp_path / "by_atomic_write.txt").stat().st_mode & 0o777 == want
    assert (tmp_path / "binary.bin").stat().st_mode & 0o777 == want
    assert (tmp_path / "binary.bin").read_bytes() == b"\x00\x01"


def test_text_is_utf8_and_newlines_are_written_as_given(tmp_path):
    export.atomic_write(tmp_path / "t.tsv", lambda fh: fh.write("naïve\t北京\r\nnext\n"))
    assert (tmp_path / "t.tsv").read_bytes() == "naïve\t北京\r\nnext\n".encode("utf-8")


def test_fsync_before_the_rename_unless_told_not_to(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        calls.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b)))
    export.atomic_write(tmp_path / "a", lambda fh: fh.write("x"))
    # the data before the rename, the folder (the rename itself) after it
    assert calls == ["fsync file", "replace", "fsync folder"]
    calls.clear()
    export.atomic_write(tmp_path / "b", lambda fh: fh.write("x"), fsync=False)
    assert calls == ["replace"]


# ---- the pages' view cache (evalcore/scoring/scores.py) ------------------------------------
def test_view_cache_two_sessions_write_one_entry_at_once(tmp_path, monkeypatch):
    """Two sessions of the app (threads of one process) write the same cache entry at the same
    moment: each writes its own temporary file, both renames succeed and the entry reads back
    whole (a temporary name fixed per process made the second rename fail)."""
    import threading

    from evalcore.scoring import scores as scores_view

    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    frame = pd.DataFrame({"system": ["s1", "s2"], "score": [0.25, 0.5]})
    both_written = threading.Barrier(2, timeout=60)
    real = pd.DataFrame.to_parquet

    def write_then_wait(self, fh, *a, **k):
        real(self, fh, *a, **k)
        both_written.wait()  # both temporary files are complete before either is renamed
    monkeypatch.setattr(pd.DataFrame, "to_parquet", write_then_wait)
    base = scores_view._cache_dir() / "t-entry"
    errors = []

    def session():
        try:
            scores_view._write_cache(base, frame)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=session) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    monkeypatch.undo()
    assert errors == []
    assert sorted(p.name for p in base.parent.iterdir()) == ["t-entry.parquet"]
    pd.testing.assert_frame_equal(pd.read_parquet(base.with_suffix(".parquet")), frame)


def test_view_cache_failed_write_leaves_no_entry(tmp_path, monkeypatch):
    from evalcore.scoring import scores as scores_view

    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    stats = {"bleu": (["1", "2"], np.array([[1.0, 2.0], [3.0, 4.0]]))}
    real = np.savez

    def half_then_full_disk(fh, **arrays):
        real(fh, names=arrays["names"])
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as m:
        m.setattr(np, "savez", half_then_full_disk)
        got = scores_view.disk_cached("t", ("k",), lambda: stats)  # computed, not cached
    assert got is stats and list(scores_view._cache_dir().iterdir()) == []
    scores_view.disk_cached("t", ("k",), lambda: stats)  # computed again, now written whole
    again = scores_view.disk_cached("t", ("k",), lambda: pytest.fail("recomputed although cached"))
    assert list(again) == ["bleu"] and again["bleu"][0] == ["1", "2"]
    np.testing.assert_array_equal(again["bleu"][1], stats["bleu"][1])
