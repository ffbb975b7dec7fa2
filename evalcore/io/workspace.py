"""The local workspace: saved datasets, trained models and the computation cache.

Location: ``$EVALCORE_HOME`` if set, else ``$XDG_DATA_HOME/evalcore`` (default
``~/.local/share/evalcore``; ``%APPDATA%\\evalcore`` on Windows), defined in
:mod:`evalcore.core.paths`. Layout::

    datasets/<name>/            one tidy TSV folder per saved dataset (all language pairs)
    datasets/<name>/meta.json   name, saved_at, language pairs, content and file hashes, counts
    datasets/.locks/            one lock file per dataset name, and one for the workspace
    cache/                      computation results keyed by content hash + parameters
    models/                     trained metrics

Names: any Unicode letters and digits are kept (``日本語``, ``données``); every other
character becomes ``_``; names are cut at 100 UTF-8 bytes with a hash suffix of the full
name, so that distinct long names stay distinct. Saving never overwrites by default: a
taken name gets a ``-2``, ``-3``, ... suffix unless ``replace=True`` is passed.

Saving is atomic and crash-safe. The dataset is written to a hidden ``.tmp.*`` folder beside
the target and renamed into place; an existing dataset is replaced by two renames (old ->
hidden ``.old.*``, new -> name) done under the workspace lock, so readers (which list and
load under the same lock, shared) see the old or the new version, never neither. Writers of
one name are serialised by that name's lock file (``fcntl.flock`` on POSIX, ``msvcrt`` on
Windows). A crash between the two renames is recovered by the next list, load or save: the
swap is finished when the new folder is complete (every file matches meta.json), else the
old folder is restored; orphaned temporary folders are removed.

Loading checks every file against the sizes and SHA-256 hashes in meta.json and reports
every problem at once; a dataset whose meta.json is unreadable stays in the list, marked
broken, so it can be repaired (:func:`repair`) or deleted.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import time
import unicodedata
from pathlib import Path
from typing import Mapping

from ..core.dataset import Dataset
from ..core.export import atomic_write
from ..core.paths import cache_dir, datasets_dir, home, models_dir  # noqa: F401  (the folders: evalcore/core/paths.py)
from ..core.problems import DataError, Report
from . import journal

MAX_NAME_BYTES = 100
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_HIDDEN_RE = re.compile(r"^\.(tmp|old|del)\.(\d+)\.(\d+)\.(.+)$")
_LEGACY_RE = [(re.compile(r"^\.(.+)\.old-\d+-\d+$"), "old"), (re.compile(r"^\.(.+)\.deleted-\d+$"), "del"),
              (re.compile(r"^\.(.+)\.[^.]+\.tmp$"), "tmp")]
LOCK_TIMEOUT = 120.0  # seconds a writer waits for another writer of the same name


def _cut(text: str, max_bytes: int) -> str:
    out = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return out


def safe_name(name: str) -> str:
    """A file-system-safe dataset name, never empty or hidden, Unicode letters kept.

    NFC-normalised; characters other than letters, marks and digits (any script), ``_``, ``.``, ``-``
    (path separators, control characters, spaces, ``?``...) become ``_``; runs of dots become
    ``_``; leading/trailing dots and underscores go; Windows device names get a ``_``. Names
    over :data:`MAX_NAME_BYTES` UTF-8 bytes are cut and end with ``-`` and 8 hex digits of
    the SHA-256 of the full name. Idempotent: ``safe_name(safe_name(x)) == safe_name(x)``.
    """
    text = unicodedata.normalize("NFC", str(name).strip())
    # letters, marks (the vowel signs of Devanagari, ...) and digits of every script are kept
    kept = "".join(c if c in "._-" or unicodedata.category(c)[0] in "LMN" else "\0" for c in text)
    kept = re.sub("\0+", "_", kept)
    cleaned = re.sub(r"\.{2,}", "_", kept).strip("._") or "dataset"
    if cleaned.split(".")[0].lower() in _RESERVED:
        cleaned += "_"
    if len(cleaned.encode("utf-8")) > MAX_NAME_BYTES:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        cleaned = _cut(cleaned, MAX_NAME_BYTES - 9).rstrip("._") + "-" + digest
    return cleaned


# ---------------------------------------------------------------------------------- locks
try:
    import fcntl  # POSIX
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no POSIX locks here: msvcrt's are used
try:
    import msvcrt  # Windows
except ImportError:
    msvcrt = None  # type: ignore[assignment]  # not Windows: fcntl's locks are used


@contextlib.contextmanager
def _lock(path: Path, shared: bool = False, blocking: bool = True, timeout: float = LOCK_TIMEOUT):
    """Hold an advisory lock on ``path`` (created if needed); yields whether it was acquired
    (always True when blocking). POSIX: ``flock`` (shared or exclusive; released by the
    kernel if the process dies). Windows: ``msvcrt.locking`` (always exclusive)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    acquired = False
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                elif msvcrt is not None:  # pragma: no cover
                    msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                acquired = True
                break
            except OSError:
                if not blocking:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{path.name}: another process has held this lock for over {timeout:.0f} s; "
                                       "try again later") from None
                time.sleep(0.01)
        yield acquired
    finally:
        if acquired:
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                elif msvcrt is not None:  # pragma: no cover
                    os.lseek(fd, 0, 0)
                    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
            except OSError:
                pass
        os.close(fd)


def _locks_dir() -> Path:
    return datasets_dir() / ".locks"


def _name_lock(name: str, blocking: bool = True):
    return _lock(_locks_dir() / f"n-{name}.lock", blocking=blocking)


def _workspace_lock(shared: bool = False):
    return _lock(_locks_dir() / "workspace.lock", shared=shared)


# ------------------------------------------------------------------------------ hashing
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _data_files(folder: Path) -> list[Path]:
    """The dataset's own files: top-level, not hidden, not meta.json (parses/ are extras)."""
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".") and p.name != "meta.json")


def _file_table(folder: Path) -> dict[str, dict]:
    return {p.name: {"bytes": p.stat().st_size, "sha256": _sha256(p)} for p in _data_files(folder)}


def _write_json_atomic(path: Path, obj) -> None:
    atomic_write(path, lambda fh: json.dump(obj, fh, indent=2, ensure_ascii=False))


def _meta_for(datasets: dict[str, Dataset], name: str, source: str, folder: Path) -> dict:
    return {
        "name": name,
        "saved_at": time.strftime("%Y-%m-%d %H:%M:%S"),
        "source": source,
        "language_pairs": list(datasets),
        "hashes": {lp: d.content_hash() for lp, d in datasets.items()},
        "files": _file_table(folder),
        "counts": _counts(datasets),
    }


def _counts(datasets: dict[str, Dataset]) -> dict:
    """meta.json's ``counts``: what the dataset loads as (journal rows included)."""
    return {lp: {"segments": d.n_segments, "references": len(d.ref_ids),
                 "systems": len(d.systems), "judgements": len(d.judgements)}
            for lp, d in datasets.items()}


def _file_problems(folder: Path, meta: dict, report: Report, deep: bool, current: dict | None = None) -> None:
    """Compare the folder with meta.json's file table: missing, resized, changed (with
    ``deep``, by SHA-256) files; all reported. ``current``: the folder's :func:`_file_table`
    when already computed (its hashes are used instead of reading the files again)."""
    table = meta.get("files")
    if not isinstance(table, dict):
        if not (folder / "segments.tsv").is_file():
            report.error("segments.tsv", None, f"missing from the saved dataset {folder.name!r}")
        return
    for path in _data_files(folder):
        if path.name not in table:
            report.error(path.name, None, f"is in the saved dataset {folder.name!r} but not in its meta.json "
                                          "(added or planted after saving: it would change what loads); "
                                          "accept it (repair), remove it, or delete the dataset")
    for fname, info in sorted(table.items()):
        path = folder / fname
        if not path.is_file():
            report.error(fname, None, f"missing from the saved dataset {folder.name!r} (it held "
                                      f"{info.get('bytes', '?'):,} bytes when saved); restore the file, or "
                                      "delete the dataset and save it again")
        elif path.stat().st_size != info.get("bytes"):
            report.error(fname, None, f"changed since it was saved ({path.stat().st_size:,} bytes, saved with "
                                      f"{info.get('bytes', '?'):,}); accept the change (repair) or delete the dataset")
        elif deep and (current[fname]["sha256"] if current and fname in current else _sha256(path)) != info.get("sha256"):
            report.error(fname, None, "changed since it was saved (its SHA-256 differs from meta.json); "
                                      "accept the change (repair) or delete the dataset")


def meta_problems(meta) -> list[str]:
    """What is wrong with the shape of a parsed meta.json (empty list: fine). The one place
    that says what meta.json holds, so that a hand-edited file (a number where a name or a
    table should be, ``{}``) marks its own dataset broken instead of breaking the listing of
    every dataset. A file table (``files``) or, for datasets saved before it existed, the
    content hashes of the language pairs (``hashes``) is required: without either nothing
    could be checked."""
    if not isinstance(meta, dict):
        return [f"is not a JSON object but {type(meta).__name__}"]
    out = []
    for key in ("name", "saved_at", "source", "repaired_at", "updated_at"):
        if key in meta and not isinstance(meta[key], str):
            out.append(f"{key!r} must be a string, not {json.dumps(meta[key])[:40]}")
    lps = meta.get("language_pairs", [])
    if not (isinstance(lps, list) and all(isinstance(x, str) for x in lps)):
        out.append("'language_pairs' must be a list of strings")
    hashes = meta.get("hashes", {})
    if not (isinstance(hashes, dict) and all(isinstance(v, str) for v in hashes.values())):
        out.append("'hashes' must map language pairs to SHA-256 strings")
    counts = meta.get("counts", {})
    if not (isinstance(counts, dict) and all(isinstance(v, dict) for v in counts.values())):
        out.append("'counts' must map language pairs to objects")
    if "files" in meta:
        files = meta["files"]
        if not isinstance(files, dict):
            out.append("'files' must map file names to {\"bytes\": integer, \"sha256\": string}")
        else:
            for fname, info in files.items():
                if not (isinstance(info, dict) and type(info.get("bytes")) is int and info["bytes"] >= 0
                        and isinstance(info.get("sha256"), str)):
                    out.append(f"'files' entry {fname!r} must be {{\"bytes\": integer, \"sha256\": string}}, "
                               f"not {json.dumps(info)[:60]}")
                elif "/" in fname or "\\" in fname or fname.startswith(".") or fname == "meta.json":
                    out.append(f"'files' entry {fname!r} is not a file name of the dataset folder")
    elif not (isinstance(hashes, dict) and hashes):
        out.append("holds neither a file table ('files') nor content hashes ('hashes'): nothing can be checked")
    return out


def _read_meta(folder: Path, report: Report) -> dict | None:
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        bad = meta_problems(meta)
        if bad:
            report.error("meta.json", None, f"of the saved dataset {folder.name!r} is not a valid meta.json: "
                                            f"{'; '.join(bad)}; repair it (rebuilt from the files if they still "
                                            "validate) or delete it")
            return None
        return meta
    except FileNotFoundError:
        report.error("meta.json", None, f"missing from the saved dataset {folder.name!r}; repair it "
                                        "(rebuilt from the files if they still validate) or delete it")
    except (OSError, ValueError) as exc:
        report.error("meta.json", None, f"of the saved dataset {folder.name!r} is unreadable ({exc}); repair it "
                                        "(rebuilt from the files if they still validate) or delete it")
    return None


# ----------------------------------------------------------------------------- recovery
def _hidden_entries(root: Path) -> list[tuple[str, str, Path]]:
    """(kind, name, path) of every temporary/old/deleted folder, current and legacy layout."""
    out = []
    for entry in root.iterdir():
        if not entry.name.startswith(".") or entry.name == ".locks":
            continue
        m = _HIDDEN_RE.match(entry.name)
        if m:
            out.append((m.group(1), m.group(4), entry))
            continue
        for rx, kind in _LEGACY_RE:
            m = rx.match(entry.name)
            if m:
                out.append((kind, m.group(1), entry))
                break
    return out


def _complete(folder: Path) -> bool:
    report = Report()
    meta = _read_meta(folder, report)
    if meta is None or not isinstance(meta.get("files"), dict):
        return False
    _file_problems(folder, meta, report, deep=True)
    return report.ok


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def recover() -> list[str]:
    """Finish or undo interrupted saves and remove orphaned temporary folders.

    For each name with hidden folders and no live writer (its lock is free): when the
    dataset folder is missing after a crash between the two renames of a replacement, the
    new folder is moved into place if it is complete, else the old one is restored. Every
    other temporary, old or deleted folder is removed. Returns what was done (for logs)."""
    root = datasets_dir()
    done: list[str] = []
    by_name: dict[str, list[tuple[str, Path]]] = {}
    for kind, name, path in _hidden_entries(root):
        by_name.setdefault(name, []).append((kind, path))
    for name, entries in by_name.items():
        with _name_lock(name, blocking=False) as free:
            if not free:
                continue  # a writer of this name is at work: its folders are not orphans
            trash: list[Path] = []
            with _workspace_lock():
                final = root / name
                olds = sorted((p for k, p in entries if k == "old" and p.exists()), key=lambda p: p.stat().st_mtime)
                tmps = sorted((p for k, p in entries if k == "tmp" and p.exists()), key=lambda p: p.stat().st_mtime)
                if not final.exists() and olds:
                    new = next((t for t in reversed(tmps) if _complete(t)), None)
                    if new is not None:
                        os.replace(new, final)
                        done.append(f"{name}: finished an interrupted replacement")
                    else:
                        os.replace(olds[-1], final)
                        done.append(f"{name}: restored the previous version after an interrupted save")
                for kind, path in entries:
                    if path.exists() and path != final:
                        moved = root / f".del.{os.getpid()}.{time.time_ns()}.{name}"
                        try:
                            os.replace(path, moved)
                            trash.append(moved)
                        except OSError:
                            trash.append(path)
            for path in trash:
                _remove(path)
                done.append(f"{name}: removed {path.name}")
    return done


# ----------------------------------------------------------------------------- datasets
def _taken(root: Path) -> set[str]:
    names = {d.name for d in root.iterdir() if not d.name.startswith(".")}
    names |= {name for kind, name, _ in _hidden_entries(root) if kind == "old"}
    return names


def _unique(root: Path, name: str) -> str:
    taken = _taken(root)
    if name not in taken:
        return name
    k = 2
    while True:
        suffix = f"-{k}"
        cand = _cut(name, MAX_NAME_BYTES - len(suffix)).rstrip("._") + suffix
        if cand not in taken:
            return cand
        k += 1


def exists(name: str) -> bool:
    return (datasets_dir() / safe_name(name)).exists()


def save(datasets: dict[str, Dataset] | Dataset, name: str, source: str = "", *, replace: bool = False) -> str:
    """Save one or several language pairs under ``name`` atomically; returns the stored name.

    Without ``replace`` a taken name is never overwritten: the dataset is stored as
    ``name-2``, ``name-3``, ... (the returned name says which). With ``replace`` an existing
    dataset of that name is replaced only once the new one is complete."""
    if isinstance(datasets, Dataset):
        datasets = {datasets.lp: datasets}
    name = safe_name(name)
    recover()
    with _name_lock(name):  # writers of one name, one at a time
        return _write_locked(datasets, name, source, replace)


def _carry_folders(old: Path, new: Path) -> None:
    """Give the new version ``new`` of a dataset being replaced every sub-folder of its current
    version ``old`` that a full save does not write itself (``parses/``: the CoNLL-U files kept
    with the dataset, :func:`save_parses`), as hard links (:func:`_link_tree`). What a full save
    does not carry, and why: the top-level files (the TSVs, extra tables and meta.json are
    written anew from the collection; a table the collection no longer has is gone from the
    data on purpose); the row journals (their rows are in the collection, loaded with them
    merged, so the new TSVs hold them); the hidden snapshot ``.snap-*`` (a cache keyed by the TSVs'
    hashes, rebuilt from the verified new files right after the swap)."""
    for entry in old.iterdir():
        target = new / entry.name
        if entry.name.startswith(".") or not entry.is_dir() or entry.is_symlink() or target.exists():
            continue
        target.mkdir()
        _link_tree(entry, target, set(), top=False)


def _staging_folder(root: Path, name: str) -> Path:
    """A new hidden temporary folder in ``root`` for the next version of dataset ``name``
    (:func:`recover` removes one left by a crash)."""
    tmp = root / f".tmp.{os.getpid()}.{time.time_ns()}.{name}"
    tmp.mkdir()
    return tmp


def _swap_in(root: Path, tmp: Path, final: Path) -> Path | None:
    """Put the folder ``tmp`` in place of ``final`` by two renames (the caller holds the
    workspace lock, so readers never see the gap); the old version is moved aside and
    returned for removal (None when there was none), and put back if the second rename fails."""
    if not final.exists():
        os.replace(tmp, final)
        return None
    trash = root / f".old.{os.getpid()}.{time.time_ns()}.{final.name}"
    os.replace(final, trash)
    try:
        os.replace(tmp, final)
    except BaseException:
        os.replace(trash, final)  # put the old one back
        raise
    return trash


@contextlib.contextmanager
def _next_version(root: Path, path: Path):
    """A staging folder for the next version of the saved dataset at ``path``: yielded to be
    filled, then swapped into place under the workspace lock (:func:`_swap_in`) and the old
    version removed; removed itself if the block fails. The caller holds the name's lock."""
    tmp = _staging_folder(root, path.name)
    trash = None
    try:
        yield tmp
        with _workspace_lock():  # the renames: invisible to readers, who hold it shared
            trash = _swap_in(root, tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)


def _write_locked(datasets: dict[str, Dataset], name: str, source: str, replace: bool,
                  saved_at: str | None = None) -> str:
    """The body of :func:`save` and :func:`update`, run while holding ``name``'s lock: write to a
    hidden temporary folder, verify that it loads back the same tables, then rename it into place
    (two renames under the workspace lock when it replaces a dataset). A replaced dataset's
    sub-folders (its parses) are carried into the new version (:func:`_carry_folders`).
    Returns the stored name."""
    from .tidy import write_tidy

    root = datasets_dir()
    trash = None
    tmp = _staging_folder(root, name)
    try:
        write_tidy(list(datasets.values()), tmp)
        reloaded = _verify_round_trip(datasets, tmp)  # before anything is replaced
        meta = _meta_for(datasets, name, source, tmp)
        if saved_at:  # an update keeps the dataset's identity (the sidebar's label shows saved_at)
            meta["saved_at"], meta["updated_at"] = saved_at, meta["saved_at"]
        _write_json_atomic(tmp / "meta.json", meta)
        if replace and (root / name).is_dir():  # its parses; save_parses holds the name lock too
            _carry_folders(root / name, tmp)
        with _workspace_lock():  # the renames: invisible to readers, who hold it shared
            target = name if replace else _unique(root, name)
            if target != name:
                meta["name"] = target
                _write_json_atomic(tmp / "meta.json", meta)
            trash = _swap_in(root, tmp, root / target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if trash is not None:
        shutil.rmtree(trash, ignore_errors=True)
    with contextlib.suppress(Exception):  # the snapshot of the saved TSVs: later loads skip parsing them
        from . import snapshot

        snapshot.write_snapshot(root / target, snapshot.snapshot_key(meta["files"], reading="tidy;quoting=csv"),
                                reloaded)
    return target


def update(name: str, change) -> str:
    """Read-modify-write a saved dataset: under its name lock (so two writers of one dataset
    never both start from the same version and one of them lose its rows), load the current
    version (every file checked against meta.json), call ``change(collection)`` -> the new
    collection (language pair -> Dataset), and save that in place exactly as :func:`save` does
    (temporary folder, verified load-back, atomic renames; the source text and ``saved_at`` are
    kept, ``updated_at`` says when it last changed; the parses are carried over, the journals'
    rows go into the new TSVs and the snapshot is rebuilt: :func:`_carry_folders`). A
    ``change`` that raises leaves the dataset untouched. Returns the stored name; raises
    :class:`FileNotFoundError` when no dataset has that name."""
    stored = safe_name(name)
    recover()
    with _name_lock(stored):
        path = datasets_dir() / stored
        if not path.is_dir():
            raise FileNotFoundError(f"no saved dataset named {name!r} in {datasets_dir()}")
        old = _read_meta(path, Report()) or {}
        current = load_saved(stored)
        new = change(current)
        return _write_locked(new, stored, old.get("source", ""), replace=True, saved_at=old.get("saved_at"))


def _link_tree(src: Path, dst: Path, skip: set[str], top: bool = True) -> None:
    """Give ``dst`` (an empty folder) every entry of ``src`` but meta.json and ``skip``: files as
    hard links (no data copied; a copy where the file system has none), folders (parses,
    snapshots) recreated and filled the same way. Files of a saved dataset are never changed in
    place (every write is a new file renamed over the old), so sharing them is safe."""
    for entry in src.iterdir():
        if entry.name in skip or (top and entry.name == "meta.json") or entry.name.startswith((".tmp", ".snaptmp-")):
            continue
        target = dst / entry.name
        if entry.name.startswith(".snap"):  # a cache a reader may be replacing now: never fail a save for it
            try:
                target.mkdir()
                _link_tree(entry, target, set())
            except OSError:
                shutil.rmtree(target, ignore_errors=True)
            continue
        if entry.is_dir() and not entry.is_symlink():
            target.mkdir()
            _link_tree(entry, target, set(), top=False)
        elif entry.is_file() and not entry.is_symlink():
            try:
                os.link(entry, target)
            except OSError:
                shutil.copy2(entry, target)


#: (dataset folder, snapshot key of its TSVs per meta.json) -> the collection of those TSVs, checked
#: in full when it was loaded; the last few, for :func:`append` (never handed to a caller to keep)
_BASE_CACHE: dict[tuple[str, str], dict[str, Dataset]] = {}
_BASE_CACHE_SIZE = 2


def _current_for_append(path: Path, stored: str, meta: dict | None) -> dict[str, Dataset]:
    """The dataset as it is now, for :func:`append`'s check, at a cost that does not grow with the
    TSVs once they were checked: the collection of the TSVs comes from :data:`_BASE_CACHE` when
    meta.json names the same files (same SHA-256 table) and their sizes still match — else from
    :func:`_load_parts`, which checks every file in full — and the journals are read, checked
    against meta.json (size and SHA-256: the writer's own journal is rehashed into the new
    meta.json, so a changed one must never pass) and merged. The TSVs are never rewritten by an
    append and their entries in meta.json stay as they are, so every load still checks them."""
    from . import current_mqm_weights, snapshot

    files = meta.get("files") if meta else None
    if not isinstance(files, dict) or current_mqm_weights() is not None:
        return load_saved(stored)
    base_table = {k: v for k, v in files.items() if not journal.is_journal(k)}
    ck = (str(path), snapshot.snapshot_key(base_table, reading="tidy;quoting=csv"))
    base = _BASE_CACHE.get(ck)
    try:
        if base is not None and any((path / f).stat().st_size != info.get("bytes") for f, info in base_table.items()):
            base = None
    except OSError:
        base = None
    if base is None:
        base, _ = _load_parts(stored)
        _BASE_CACHE.pop(ck, None)
        _BASE_CACHE[ck] = base
        while len(_BASE_CACHE) > _BASE_CACHE_SIZE:
            _BASE_CACHE.pop(next(iter(_BASE_CACHE)))
    report = Report()
    jfiles = {p.name: p.read_bytes() for p in _data_files(path) if journal.is_journal(p.name)}
    for fname in sorted(set(jfiles) | {f for f in files if journal.is_journal(f)}):
        info, data = files.get(fname), jfiles.get(fname)
        if info is None:
            report.error(fname, None, f"is in the saved dataset {path.name!r} but not in its meta.json")
        elif data is None:
            report.error(fname, None, f"missing from the saved dataset {path.name!r}")
        elif len(data) != info.get("bytes") or hashlib.sha256(data).hexdigest() != info.get("sha256"):
            report.error(fname, None, "changed since it was saved (its size or SHA-256 differs from meta.json); "
                                      "accept the change (repair) or delete the dataset")
    if not report.ok:
        raise DataError(report)
    return journal.merge(base, journal.parse(jfiles), repr(stored))


def append(name: str, key: str, lp: str, rows: Mapping, check=None) -> str:
    """Append ``rows`` (table -> list of rows: :mod:`evalcore.io.journal`) to language pair ``lp``
    of the saved dataset ``name``, as writer ``key`` (a rater), at a cost that grows with the rows
    and the writer's own journal, not with the dataset; returns the stored name.

    Under the dataset's name lock, as :func:`update`: the newest version is loaded
    (:func:`_current_for_append`: the TSVs checked in full once, then kept in memory while
    meta.json names the same files; the journals checked every time) and ``check(collection)``
    may refuse the rows by raising (nothing is written then). The rows become one line of the writer's journal file; the new version is a
    hidden temporary folder holding hard links to every other file of the dataset (no data
    copied), the writer's journal with the line added (written, fsynced, read back) and a new
    meta.json (that file's size and SHA-256, the record's ``seq``; every other file's entry kept),
    swapped into place by the same two renames under the workspace lock as a full save, with the
    same recovery after a crash. Another writer's journal is never written. A dataset saved
    before meta.json had a file table is saved in full instead (:func:`update`)."""
    stored = safe_name(name)
    recover()
    with _name_lock(stored):
        root = datasets_dir()
        path = root / stored
        if not path.is_dir():
            raise FileNotFoundError(f"no saved dataset named {name!r} in {datasets_dir()}")
        meta = _read_meta(path, Report())
        current = _current_for_append(path, stored, meta)
        if check is not None:
            check(current)
        if meta is None or not isinstance(meta.get("files"), dict):  # an old save: no file table to extend
            new = journal.merge(current, [{"seq": 1, "lp": lp, "key": key, "rows": rows}], repr(stored))
            return _write_locked(new, stored, (meta or {}).get("source", ""), replace=True,
                                 saved_at=(meta or {}).get("saved_at"))
        if lp not in current:
            raise ValueError(f"the saved dataset {name!r} has no language pair {lp!r}")
        seqs = [r["seq"] for r in journal.parse({p.name: p.read_bytes() for p in _data_files(path)
                                                 if journal.is_journal(p.name)})]
        seq = max([int(meta.get("journal_seq") or 0)] + seqs) + 1  # meta.json's, unless a repair dropped it
        line = journal.record_line(seq, lp, key, rows)
        fname = journal.file_name(key)
        old = path / fname
        data = (old.read_bytes() if old.is_file() else b"") + line
        if journal.parse({fname: data})[-1]["seq"] != seq:  # the line reads back as the last record
            raise RuntimeError(f"refusing to save: the journal {fname} would not read back")
        with _next_version(root, path) as tmp:
            _link_tree(path, tmp, {fname})
            atomic_write(tmp / fname, lambda fh: fh.write(data), mode="wb")
            if (tmp / fname).read_bytes() != data:
                raise OSError(f"the journal {fname} did not read back as written")
            files = dict(meta["files"])
            files[fname] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            counts = {k: dict(v) for k, v in (meta.get("counts") or {}).items()}
            if lp in counts and isinstance(counts[lp].get("judgements"), int):
                counts[lp]["judgements"] += len(rows.get("judgements", ()))
            new_meta = {**meta, "files": files, "counts": counts, "journal_seq": seq,
                        "updated_at": time.strftime("%Y-%m-%d %H:%M:%S")}
            _write_json_atomic(tmp / "meta.json", new_meta)
        return stored


_TABLES = ("segments", "references", "outputs", "judgements", "tags")


def _table_text(df) -> str:
    return df.to_csv(sep="\t", index=False, lineterminator="\n")


def _verify_round_trip(datasets: dict[str, Dataset], folder: Path) -> dict[str, Dataset]:
    """Load the freshly written ``folder`` exactly as :func:`load_saved` will, and check that it
    gives back the same tables as ``datasets`` (the content hash of every language pair, which
    covers every table and extra table). A save that would not load back, or would load back
    different data, raises :class:`DataError` naming the tables, and nothing is replaced.
    Returns the loaded collection (its snapshot is then built from it)."""
    from . import load_collection, mqm_weights_in_force

    try:
        with mqm_weights_in_force(None):
            coll = load_collection(folder, name=folder.name, fmt="tidy", quoting="csv")
    except DataError as exc:
        report = Report()
        report.error(folder.name, None, "the dataset was not saved: the written files would not load back "
                                        "(nothing was replaced); the problems in the written copy:")
        report.extend(exc.report.errors)
        raise DataError(report) from None
    report = Report()
    for lp, ds in datasets.items():
        back = coll.get(lp)
        if back is None:
            report.error(folder.name, None, f"the dataset was not saved: language pair {lp or '-'} did not load "
                                            "back from the written files (nothing was replaced)")
        elif back.content_hash() != ds.content_hash():
            differ = [t for t in _TABLES if _table_text(getattr(back, t)) != _table_text(getattr(ds, t))]
            differ += [f"extra table {k}" for k in sorted(set(back.extras) | set(ds.extras))
                       if k not in back.extras or k not in ds.extras
                       or _table_text(back.extras[k]) != _table_text(ds.extras[k])]
            report.error(folder.name, None, f"the dataset was not saved: the written files load back different "
                                            f"data for language pair {lp or '-'} ({', '.join(differ) or 'order'}); "
                                            "nothing was replaced")
    if not report.ok:
        raise DataError(report)
    return coll


def content_key(meta: dict) -> str:
    """A key that changes whenever a saved dataset's content does: the SHA-256 of meta.json's
    file table (each file's size and hash; content hashes for older saves). Caches of loaded
    datasets use it, never the name and ``saved_at`` (a repair keeps ``saved_at``)."""
    table = meta.get("files") if isinstance(meta.get("files"), dict) else meta.get("hashes")
    return hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()


def list_saved() -> list[dict]:
    """Metadata of every saved dataset, newest first.

    A dataset whose meta.json is unreadable, or whose files are missing or resized, is
    listed too, with ``"problems"`` (a list of messages) and ``"broken": True``; the full
    hash check runs when it is loaded."""
    recover()
    root = datasets_dir()
    out = []
    with _workspace_lock(shared=True):
        for d in root.iterdir():
            if d.name.startswith(".") or not d.is_dir():
                continue
            report = Report()
            try:
                meta = _read_meta(d, report)
                if meta is not None:
                    _file_problems(d, meta, report, deep=False)
            except OSError as exc:  # one unreadable folder never hides the others
                report.error(d.name, None, f"cannot be read ({exc}); check its permissions or delete it")
                meta = None
            if meta is not None:
                meta["name"] = d.name  # the folder is the identity
                meta["content_key"] = content_key(meta)
            else:
                meta = {"name": d.name, "saved_at": "", "language_pairs": [], "content_key": ""}
            if not report.ok:
                meta["problems"] = [str(p) for p in report.errors]
                meta["broken"] = True
            out.append(meta)
    return sorted(out, key=lambda m: m.get("saved_at", ""), reverse=True)


def load_saved(name: str) -> dict[str, Dataset]:
    """Load a saved dataset after checking every file against meta.json (sizes and SHA-256)
    and the content hash of every language pair; raises :class:`DataError` with every
    problem, or :class:`FileNotFoundError` when no dataset has that name.

    The TSVs are parsed and validated only when the dataset has no up-to-date snapshot
    (:mod:`evalcore.io.snapshot`: Arrow tables of exactly what reading these TSV bytes with
    this version of the loaders assembles); the snapshot is then built for the next load.
    The row journals (:mod:`evalcore.io.journal`) are merged on top."""
    coll, records = _load_parts(name)
    return journal.merge(coll, records, repr(safe_name(name)))


def _load_parts(name: str) -> tuple[dict[str, Dataset], list[dict]]:
    """The body of :func:`load_saved`: (the collection of the TSVs, the journals' records)."""
    from . import FileSource, current_mqm_weights, load_collection
    from . import snapshot

    recover()
    stored = safe_name(name)
    path = datasets_dir() / stored
    report = Report()
    coll = key = None
    with _workspace_lock(shared=True):  # read everything while no swap can happen
        if not path.is_dir():
            raise FileNotFoundError(f"no saved dataset named {name!r} in {datasets_dir()}")
        meta = _read_meta(path, report)
        current = _file_table(path)
        if meta is not None:
            _file_problems(path, meta, report, deep=True, current=current)
        base = {k: v for k, v in current.items() if not journal.is_journal(k)}  # the TSVs; journals merged below
        if report.ok and current_mqm_weights() is None:  # MQM weights of the CLI change what loads
            key = snapshot.snapshot_key(base, reading="tidy;quoting=csv")
            coll = snapshot.read_snapshot(path, key, stored)
        files: dict[str, bytes | Path] | None = (None if coll is not None else
                                                  {p.name: p.read_bytes() for p in _data_files(path)
                                                   if not journal.is_journal(p.name)})
        journals = {p.name: p.read_bytes() for p in _data_files(path) if journal.is_journal(p.name)}
    if not report.ok:
        raise DataError(report)
    records = journal.parse(journals)  # before any parsing of the TSVs: a bad journal names its line
    if coll is None:
        assert files is not None  # read above whenever there is no snapshot
        coll = load_collection(FileSource(files, str(path)), name=stored, fmt="tidy", quoting="csv")
    else:
        key = None  # nothing to build
    meta = meta or {}
    for lp, expected in (meta.get("hashes") or {}).items():
        if lp not in coll:
            report.error("meta.json", None, f"language pair {lp or '-'} was saved but is no longer in the files")
        elif "files" not in meta and coll[lp].content_hash() != expected:  # older saves: no file table
            report.error("meta.json", None, f"the data of language pair {lp or '-'} changed since it was saved "
                                            "(content hash differs); accept the change (repair) or delete the dataset")
    if not report.ok:
        raise DataError(report)
    if key is not None:  # the key names the files' hashes: a folder swapped meanwhile never matches it
        snapshot.write_snapshot(path, key, coll)
    return coll, records  # the snapshot holds the TSVs only


def repair(name: str) -> dict:
    """Accept a saved dataset's files as they are now: validate them (raises DataError with
    every problem if they do not load) and rewrite meta.json with their hashes."""
    from . import load_collection

    stored = safe_name(name)
    path = datasets_dir() / stored
    with _name_lock(stored):
        if not path.is_dir():
            raise FileNotFoundError(f"no saved dataset named {name!r} in {datasets_dir()}")
        old = _read_meta(path, Report()) or {}
        coll = load_collection(path, name=stored, fmt="tidy", quoting="csv", journals=False)  # merged below
        records = journal.parse({p.name: p.read_bytes() for p in _data_files(path) if journal.is_journal(p.name)})
        merged = journal.merge(coll, records, repr(stored))  # the journals must load too
        meta = _meta_for(coll, stored, old.get("source", ""), path)  # hashes: of the TSVs
        meta["counts"] = _counts(merged)  # what loads, as append keeps them
        meta["saved_at"] = old.get("saved_at") or meta["saved_at"]
        if records:
            meta["journal_seq"] = records[-1]["seq"]
        meta["repaired_at"] = time.strftime("%Y-%m-%d %H:%M:%S")
        with _workspace_lock():
            _write_json_atomic(path / "meta.json", meta)
    return meta


def _parses_dir(name: str, lp: str) -> Path:
    return datasets_dir() / safe_name(name) / "parses" / (safe_name(lp) if lp else "_")


def save_parses(name: str, lp: str, filename: str, data: bytes) -> Path:
    """Keep an uploaded CoNLL-U file with a saved dataset, so the syntactic metrics can use it
    again after a restart; returns its path.

    Written as every other write of a saved dataset: under the dataset's name lock (so a save
    running meanwhile, which carries the parses into its new version, never drops it: the
    upload waits for the save, or the save for the upload), into a hidden temporary folder of
    hard links to the current version (:func:`_link_tree`; meta.json unchanged: parses are not
    among the dataset's checked files) with the new file written atomically, swapped into place
    by the same two renames under the workspace lock, with the same recovery after a crash."""
    stored = safe_name(name)
    recover()
    with _name_lock(stored):
        root = datasets_dir()
        path = root / stored
        if not (path / "meta.json").is_file():
            raise FileNotFoundError(f"no saved dataset named {name!r}")
        rel = _parses_dir(stored, lp).relative_to(path) / safe_name(Path(filename).name)
        with _next_version(root, path) as tmp:
            _link_tree(path, tmp, set())
            shutil.copy2(path / "meta.json", tmp / "meta.json")
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(tmp / rel, lambda fh: fh.write(data), mode="wb")  # replaces a link, not its file
    return path / rel


def saved_parses(name: str, lp: str) -> list[tuple[bytes, str]]:
    """(content, file name) of every CoNLL-U file kept with a saved dataset's language pair (read
    under the shared workspace lock: never between the two renames of a save)."""
    folder = _parses_dir(name, lp)
    with _workspace_lock(shared=True):
        if not folder.is_dir():
            return []
        return [(p.read_bytes(), p.name) for p in sorted(folder.iterdir())
                if p.is_file() and not p.name.startswith(".")]


def delete(name: str) -> None:
    stored = safe_name(name)
    root = datasets_dir()
    path = root / stored
    with _name_lock(stored):
        with _workspace_lock():
            if not path.exists():
                raise FileNotFoundError(f"no saved dataset named {name!r}")
            trash = root / f".del.{os.getpid()}.{time.time_ns()}.{stored}"
            os.replace(path, trash)  # disappears from the list at once, even if removal is interrupted
        shutil.rmtree(trash, ignore_errors=True)


# ----------------------------------------------------------------------------- exposure
ALLOW_PATH_IMPORT_ENV = "EVALCORE_ALLOW_PATH_IMPORT"


def is_loopback(address: str | None) -> bool:
    """True when a server bound to ``address`` is reachable only from this machine. An empty
    address means every network interface (Streamlit's default when none is configured)."""
    import ipaddress

    addr = (address or "").strip().strip("[]")
    if not addr:
        return False
    if addr.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


SHARED_ENV = "EVALCORE_SHARED"

#: Request headers a proxy adds (RFC 7239 ``Forwarded``, the de-facto ``X-Forwarded-*``, ``Via``,
#: nginx's ``X-Real-IP``, Cloudflare's ``CF-Connecting-IP``...): their presence means the visitor is
#: not on this machine, even though the connection itself comes from the proxy on 127.0.0.1.
PROXY_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port",
                 "x-forwarded-server", "x-real-ip", "x-client-ip", "x-original-forwarded-for", "via",
                 "cf-connecting-ip", "true-client-ip", "x-cluster-client-ip", "fastly-client-ip")


def _host_is_loopback(value: str) -> bool:
    """Whether a Host / Origin value names this machine (localhost, 127.x.x.x, ::1), port ignored."""
    v = value.strip().lower()
    if "://" in v:
        v = v.split("://", 1)[1]
    v = v.split("/", 1)[0]
    if v.startswith("["):
        v = v[1:v.find("]")] if "]" in v else v[1:]
    elif v.count(":") == 1:
        v = v.split(":", 1)[0]
    return v == "localhost" or v.endswith(".localhost") or is_loopback(v)


def remote_visitor(headers: Mapping[str, str] | None, address: str | None) -> str | None:
    """Why the request may come from another machine, or None when everything it shows says this
    machine: a pure function of the request's headers (``st.context.headers`` on a page) and the
    server's ``server.address``. Remote when the server listens beyond loopback, when the request
    carries a proxy's header (:data:`PROXY_HEADERS`: a reverse proxy on this machine connects from
    127.0.0.1, but says whom it forwards), or when its Host or Origin names another machine. An SSH
    tunnel shows nothing of the kind: declare a shared server with ``EVALCORE_SHARED=1``."""
    if not is_loopback(address):
        return f"the dashboard listens on {address or 'every network interface'}, so others may reach it"
    h = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
    proxy = [k for k in PROXY_HEADERS if h.get(k, "").strip()]
    if proxy:
        return f"the request came through a proxy (its {proxy[0]} header), so the visitor may be on another machine"
    for k in ("host", "origin"):
        if h.get(k, "").strip() and h[k].strip().lower() != "null" and not _host_is_loopback(h[k]):
            return f"the request's {k.capitalize()} is not this machine, so the visitor may be on another machine"
    return None


def path_import_allowed(address: str | None, environ: Mapping[str, str] | None = None,
                        headers: Mapping[str, str] | None = None) -> tuple[bool, str]:
    """Whether the dashboard may read folders and files of the server's machine by path.

    Off for a shared server: when the operator says the server is shared
    (``EVALCORE_SHARED=1``, e.g. behind an SSH tunnel, which no request shows) or when the request
    may come from another machine (:func:`remote_visitor`: the listening address, a proxy's
    headers, a foreign Host). On for a dashboard used on this machine only, and wherever
    ``EVALCORE_ALLOW_PATH_IMPORT=1`` enables it deliberately. Returns (allowed, why)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    if env.get(ALLOW_PATH_IMPORT_ENV, "").strip() == "1":
        return True, f"allowed by {ALLOW_PATH_IMPORT_ENV}=1"
    how = (f"set {ALLOW_PATH_IMPORT_ENV}=1 before starting it to allow it for every visitor, or upload the "
           "files instead")
    if env.get(SHARED_ENV, "").strip() == "1":
        return False, f"the dashboard is shared ({SHARED_ENV}=1): importing a path on the server is off ({how})"
    why = remote_visitor(headers, address)
    if why:
        return False, f"{why}: importing a path on the server is off ({how})"
    return True, f"the dashboard listens on {address} only and this request comes from this machine"


LISTEN_ALL_ENV = "EVALCORE_LISTEN_ALL"


def binding_refusal(address: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """Why the dashboard refuses to serve, or None. A server with no ``server.address`` listens
    on every network interface: that happens when Streamlit finds no configuration (started
    with another config file, or an edited one), so the app refuses to show anything unless an
    address was chosen (``--server.address ADDRESS``, config.toml) or ``EVALCORE_LISTEN_ALL=1``
    says that every interface is meant."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    if (address or "").strip() or env.get(LISTEN_ALL_ENV, "").strip() == "1":
        return None
    return ("The dashboard is listening on every network interface because no server address is set "
            "(the project's .streamlit/config.toml was not read), so anyone who can reach this port could "
            "see and change your data. It shows nothing. Start it with "
            "`streamlit run app.py --server.address 127.0.0.1` (this machine only), or choose an address "
            f"deliberately; set {LISTEN_ALL_ENV}=1 to serve every interface on purpose.")
