"""Saved datasets are never lost, overwritten unasked or silently broken.

Crashes are real: a child process saves and kills itself (``os._exit``) between the two
renames of a replacement, or in the middle of writing; concurrent writers are real processes.
Expectations are the datasets' own content hashes computed in the test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from evalcore.io import workspace
from evalcore.io import load_collection
from evalcore.core.problems import DataError

SEG = "lp\tseg_id\tsource\nes-en\t1\tHola\nes-en\t2\tAdiós\nes-en\t3\tGracias\n"
REF = "lp\tseg_id\tref_id\ttext\nes-en\t1\tA\tHello\nes-en\t2\tA\tBye\nes-en\t3\tA\tThanks\n"


def out_tsv(tag: str) -> str:
    return "lp\tsystem\tseg_id\ttext\n" + "".join(f"es-en\ts1\t{i}\t{tag} {i}\n" for i in (1, 2, 3))


def make(tmp_path, tag="v1"):
    folder = tmp_path / f"data-{tag}"
    folder.mkdir(exist_ok=True)
    for n, t in (("segments.tsv", SEG), ("references.tsv", REF), ("outputs.tsv", out_tsv(tag))):
        (folder / n).write_text(t, encoding="utf-8")
    return load_collection(folder)


def child(code: str, home, check=True):
    env = dict(os.environ, EVALCORE_HOME=str(home), EVALCORE_CACHE=str(home / "cache"), OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=check)


def hidden(home):
    return sorted(p.name for p in (home / "datasets").iterdir() if p.name.startswith(".") and p.name != ".locks")


# =====================================================================================
# item 2: no silent overwrites; Unicode names kept
# =====================================================================================
def test_same_name_saved_twice_gets_a_unique_name(tmp_path, workspace_home):
    a, b = make(tmp_path, "v1"), make(tmp_path, "v2")
    assert workspace.save(a, "upload") == "upload"
    assert workspace.save(b, "upload") == "upload-2"
    assert workspace.save(b, "upload") == "upload-3"
    assert workspace.load_saved("upload")["es-en"].content_hash() == a["es-en"].content_hash()
    assert workspace.load_saved("upload-2")["es-en"].content_hash() == b["es-en"].content_hash()
    assert sorted(m["name"] for m in workspace.list_saved()) == ["upload", "upload-2", "upload-3"]
    # replacing is explicit
    assert workspace.save(b, "upload", replace=True) == "upload"
    assert workspace.load_saved("upload")["es-en"].content_hash() == b["es-en"].content_hash()
    assert len(workspace.list_saved()) == 3


@pytest.mark.parametrize("raw, expected", [
    ("日本語", "日本語"), ("中文", "中文"), ("हिन्दी", "हिन्दी"), ("العربية", "العربية"), ("données", "données"), ("donn?es", "donn_es"),
    ("de/../x", "de___x"), ("a\x00b\nc", "a_b_c"), ("..hidden", "hidden"), ("CON", "CON_"),
    ("  my data  ", "my_data"), ("", "dataset"), ("données".replace("é", "e\u0301"), "données"),
])
def test_safe_name_keeps_unicode_and_stays_safe(raw, expected):
    assert workspace.safe_name(raw) == expected
    assert workspace.safe_name(expected) == expected  # idempotent


def test_safe_name_long_names_cut_with_hash_stay_distinct():
    import hashlib

    a, b = "é" * 90 + "A", "é" * 90 + "B"
    na, nb = workspace.safe_name(a), workspace.safe_name(b)
    assert na != nb
    for raw, n in ((a, na), (b, nb)):
        assert len(n.encode("utf-8")) <= workspace.MAX_NAME_BYTES
        assert n.endswith("-" + hashlib.sha256(raw.encode()).hexdigest()[:8])
        assert workspace.safe_name(n) == n


def test_unicode_names_saved_distinct(tmp_path, workspace_home):
    coll = make(tmp_path)
    names = [workspace.save(coll, n) for n in ("日本語", "中文", "données", "donn?es")]
    assert names == ["日本語", "中文", "données", "donn_es"]
    assert sorted(m["name"] for m in workspace.list_saved()) == sorted(names)
    assert workspace.load_saved("日本語")["es-en"].n_segments == 3


# =====================================================================================
# item 3: a crash between the two renames, or mid-write, is recovered
# =====================================================================================
CRASH_BETWEEN = """
import os, sys
from evalcore.io import workspace
from evalcore.io import load_collection
coll = load_collection(sys.argv[1] if len(sys.argv) > 1 else {folder!r})
real = os.replace
def replace(a, b):
    real(a, b)
    if {crash_old} and os.path.basename(b).startswith(".old."):
        os._exit(9)  # killed right after the first rename: no cleanup, no finally
os.replace = replace
{before_write}
workspace.save(coll, "keep", replace=True)
"""


def test_crash_between_renames_finishes_the_swap(tmp_path, workspace_home):
    old, new = make(tmp_path, "old"), make(tmp_path, "new")
    workspace.save(old, "keep")
    code = CRASH_BETWEEN.format(folder=str(tmp_path / "data-new"), crash_old=True, before_write="")
    res = child(code, workspace_home, check=False)
    assert res.returncode == 9, res.stderr
    left = hidden(workspace_home)
    assert not (workspace_home / "datasets" / "keep").exists()  # the crash left it mid-swap
    assert any(n.startswith(".old.") for n in left) and any(n.startswith(".tmp.") for n in left)
    # the next listing (e.g. after a restart) finishes the swap: the complete new version
    assert [m["name"] for m in workspace.list_saved()] == ["keep"]
    assert workspace.load_saved("keep")["es-en"].content_hash() == new["es-en"].content_hash()
    assert hidden(workspace_home) == []


def test_crash_between_renames_with_incomplete_new_restores_old(tmp_path, workspace_home):
    old = make(tmp_path, "old")
    make(tmp_path, "new")
    workspace.save(old, "keep")
    code = CRASH_BETWEEN.format(folder=str(tmp_path / "data-new"), crash_old=True, before_write="")
    child(code, workspace_home, check=False)
    tmp = next(p for p in (workspace_home / "datasets").iterdir() if p.name.startswith(".tmp."))
    (tmp / "outputs.tsv").unlink()  # the new version is not complete
    assert workspace.load_saved("keep")["es-en"].content_hash() == old["es-en"].content_hash()
    assert hidden(workspace_home) == []


def test_crash_mid_write_leaves_old_and_cleans_tmp(tmp_path, workspace_home):
    old = make(tmp_path, "old")
    make(tmp_path, "new")
    workspace.save(old, "keep")
    # killed after writing the first TSV (write_tidy's own os.replace is in another module)
    code = CRASH_BETWEEN.format(folder=str(tmp_path / "data-new"), crash_old=False, before_write=(
        "import evalcore.io.tidy as t\n"
        "orig = t._atomic_write_tsv\n"
        "def w(df, path):\n"
        "    orig(df, path)\n"
        "    os._exit(9)\n"
        "t._atomic_write_tsv = w"))
    assert child(code, workspace_home, check=False).returncode == 9
    assert any(n.startswith(".tmp.") for n in hidden(workspace_home))
    assert [m["name"] for m in workspace.list_saved()] == ["keep"]
    assert workspace.load_saved("keep")["es-en"].content_hash() == old["es-en"].content_hash()
    assert hidden(workspace_home) == []


def test_legacy_leftovers_recovered(tmp_path, workspace_home):
    """Folders left by the previous layout: ``.<name>.old-<pid>-<ns>`` is restored when the
    dataset is missing; ``.tmp`` and ``.deleted-`` folders are removed."""
    coll = make(tmp_path)
    workspace.save(coll, "legacy")
    root = workspace_home / "datasets"
    os.replace(root / "legacy", root / ".legacy.old-123-456")
    (root / ".legacy.abc123.tmp").mkdir()
    (root / ".gone.deleted-789").mkdir()
    assert [m["name"] for m in workspace.list_saved()] == ["legacy"]
    assert hidden(workspace_home) == []


# =====================================================================================
# item 4: saved datasets checked when loaded
# =====================================================================================
def test_deleted_file_reported_and_dataset_stays_listed(tmp_path, workspace_home):
    coll = make(tmp_path)
    name = workspace.save(coll, "tampered")
    folder = workspace_home / "datasets" / name
    (folder / "outputs.tsv").unlink()
    (folder / "segments.tsv").unlink()
    (meta,) = workspace.list_saved()
    assert meta["broken"] and len(meta["problems"]) == 2
    with pytest.raises(DataError) as exc:
        workspace.load_saved(name)
    assert sorted(p.file for p in exc.value.report.errors) == ["outputs.tsv", "segments.tsv"]
    assert all("missing" in p.message for p in exc.value.report.errors)


def test_changed_file_detected_by_hash(tmp_path, workspace_home):
    coll = make(tmp_path)
    name = workspace.save(coll, "tampered")
    path = workspace_home / "datasets" / name / "outputs.tsv"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("v1 2", "v9 2"), encoding="utf-8")  # same size, other content
    with pytest.raises(DataError) as exc:
        workspace.load_saved(name)
    (err,) = exc.value.report.errors
    assert err.file == "outputs.tsv" and "SHA-256" in err.message
    # repair accepts the files as they are now
    workspace.repair(name)
    assert workspace.load_saved(name)["es-en"].sys_texts()["s1"][1] == "v9 2"


def test_corrupt_meta_json_stays_listed_and_repairs(tmp_path, workspace_home):
    coll = make(tmp_path)
    name = workspace.save(coll, "metabroken")
    (workspace_home / "datasets" / name / "meta.json").write_text("{not json", encoding="utf-8")
    (meta,) = workspace.list_saved()
    assert meta["name"] == name and meta["broken"] and "meta.json" in meta["problems"][0]
    with pytest.raises(DataError):
        workspace.load_saved(name)
    workspace.repair(name)
    assert workspace.load_saved(name)["es-en"].content_hash() == coll["es-en"].content_hash()
    assert "broken" not in workspace.list_saved()[0]
    workspace.delete(name)
    assert workspace.list_saved() == []


# =====================================================================================
# item 5: concurrent writers and a reader
# =====================================================================================
BARRIER = """
import os, sys, time
open(sys.argv[-1] + ".ready-" + str(os.getpid()), "w").close()
t0 = time.time()
while not os.path.exists(sys.argv[-1]) and time.time() - t0 < 60:  # start together
    time.sleep(0.005)
"""
def test_reader_waits_out_the_swap_window(tmp_path, workspace_home, monkeypatch):
    """A reader that comes between the two renames of a replacement sees the new version
    (it waits for the workspace lock), not a missing dataset. The window is widened to 0.5 s."""
    import threading

    a, b = make(tmp_path, "a"), make(tmp_path, "b")
    workspace.save(a, "shared")
    real, entered = os.replace, threading.Event()

    def slow(src, dst):
        real(src, dst)
        if os.path.basename(dst).startswith(".old."):
            entered.set()
            time.sleep(0.5)
    monkeypatch.setattr(os, "replace", slow)
    writer = threading.Thread(target=workspace.save, args=(b, "shared"), kwargs={"replace": True})
    writer.start()
    assert entered.wait(30)
    names = [m["name"] for m in workspace.list_saved()]  # inside the window
    loaded = workspace.load_saved("shared")
    writer.join()
    assert names == ["shared"]
    assert loaded["es-en"].content_hash() == b["es-en"].content_hash()


WRITER = """
import sys
from evalcore.io import workspace
from evalcore.io import load_collection
coll = load_collection(sys.argv[1])
""" + BARRIER + """
for i in range(int(sys.argv[2])):
    workspace.save(coll, "shared", replace=sys.argv[3] == "replace")
"""
READER = """
import os, sys, time
from evalcore.io import workspace
""" + BARRIER + """
missing = loads = 0
deadline = time.time() + 60  # bounded; normally stopped by the test once the writers are done
while time.time() < deadline and not (loads > 0 and os.path.exists(sys.argv[1])):
    names = [m["name"] for m in workspace.list_saved()]
    if "shared" not in names:
        missing += 1
    workspace.load_saved("shared")  # raises if it is ever missing or half there
    loads += 1
print(missing, loads)
"""


def test_concurrent_writers_and_reader(tmp_path, workspace_home):
    make(tmp_path, "a")
    make(tmp_path, "b")
    workspace.save(make(tmp_path, "a"), "shared")
    env = dict(os.environ, EVALCORE_HOME=str(workspace_home), EVALCORE_CACHE=str(workspace_home / "cache"),
               OPENBLAS_NUM_THREADS="1")
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / f"data-{t}"), "2", mode, str(go)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for t, mode in (("a", "replace"), ("b", "replace"), ("a", "unique"))]
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, "-c", READER, str(stop), str(go)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while len(list(tmp_path.glob("go.ready-*"))) < 4 and time.time() - t0 < 60:
        time.sleep(0.01)
    go.touch()  # all four start at once
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    stop.touch()
    out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err
    missing, loads = map(int, out.split())
    assert missing == 0 and loads > 0
    names = sorted(m["name"] for m in workspace.list_saved())
    # the unique-mode writer stored 2 new datasets, never replacing the others
    assert names == ["shared", "shared-2", "shared-3"]
    assert hidden(workspace_home) == []
    assert all("broken" not in m for m in workspace.list_saved())


def test_older_save_without_file_table_checked_by_content_hash(tmp_path, workspace_home):
    """Datasets saved before meta.json held file hashes: the per-pair content hash catches a
    deleted outputs.tsv (which would otherwise load with 0 systems)."""
    coll = make(tmp_path)
    name = workspace.save(coll, "older")
    folder = workspace_home / "datasets" / name
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    del meta["files"]
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert workspace.load_saved(name)["es-en"].content_hash() == coll["es-en"].content_hash()
    (folder / "outputs.tsv").unlink()
    with pytest.raises(DataError) as exc:
        workspace.load_saved(name)
    (err,) = exc.value.report.errors
    assert err.file == "meta.json" and "content hash differs" in err.message
