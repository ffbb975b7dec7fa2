"""The local workspace: saved datasets, trained models and the computation cache.

Location: ``$EVALCORE_HOME`` if set, else ``$XDG_DATA_HOME/evalcore`` (default
``~/.local/share/evalcore``; ``%APPDATA%\\evalcore`` on Windows), defined in
:mod:`evalcore.paths`. Layout::

    datasets/<name>/            one tidy TSV folder per saved dataset (all language pairs)
    datasets/<name>/meta.json   name, saved_at, language pairs, content hashes, counts
    cache/                      computation results keyed by content hash + parameters
    models/                     trained metrics

Saving is atomic: the dataset is written to a temporary folder beside the target and then
renamed into place; an existing dataset of the same name is replaced only after the new
one is complete, so a crash mid-write never corrupts or loses what was saved before.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from .dataset import Dataset
from .paths import cache_dir, datasets_dir, home, models_dir  # noqa: F401  (the folders: evalcore/paths.py)

_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str) -> str:
    """A file-system-safe dataset name (letters, digits, . _ -), never empty or hidden."""
    cleaned = re.sub(r"\.{2,}", "_", _NAME_RE.sub("_", name.strip())).strip("._") or "dataset"
    return cleaned[:80]


def save(datasets: dict[str, Dataset] | Dataset, name: str, source: str = "") -> str:
    """Save one or several language pairs under ``name`` atomically; returns the stored name."""
    from .io.tidy import write_tidy

    if isinstance(datasets, Dataset):
        datasets = {datasets.lp: datasets}
    name = safe_name(name)
    root = datasets_dir()
    final = root / name
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=f".{name}.", suffix=".tmp"))
    try:
        write_tidy(list(datasets.values()), tmp)
        meta = {
            "name": name,
            "saved_at": time.strftime("%Y-%m-%d %H:%M:%S"),
            "source": source,
            "language_pairs": list(datasets),
            "hashes": {lp: d.content_hash() for lp, d in datasets.items()},
            "counts": {lp: {"segments": d.n_segments, "references": len(d.ref_ids),
                            "systems": len(d.systems), "judgements": len(d.judgements)}
                       for lp, d in datasets.items()},
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
        if final.exists():
            trash = root / f".{name}.old-{os.getpid()}-{time.time_ns()}"
            os.replace(final, trash)
            os.replace(tmp, final)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return name


def list_saved() -> list[dict]:
    """Metadata of every saved dataset, newest first (incomplete temporary folders are skipped)."""
    out = []
    for d in datasets_dir().iterdir():
        if d.name.startswith(".") or not d.is_dir():
            continue
        meta_file = d / "meta.json"
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        out.append(meta)
    return sorted(out, key=lambda m: m.get("saved_at", ""), reverse=True)


def load_saved(name: str) -> dict[str, Dataset]:
    from .io import load_collection

    path = datasets_dir() / safe_name(name)
    if not (path / "meta.json").exists():
        raise FileNotFoundError(f"no saved dataset named {name!r} in {datasets_dir()}")
    return load_collection(path, name=safe_name(name), fmt="tidy")


def _parses_dir(name: str, lp: str) -> Path:
    return datasets_dir() / safe_name(name) / "parses" / (safe_name(lp) if lp else "_")


def save_parses(name: str, lp: str, filename: str, data: bytes) -> Path:
    """Keep an uploaded CoNLL-U file with a saved dataset (atomic write), so the syntactic
    metrics can use it again after a restart."""
    folder = _parses_dir(name, lp)
    if not (datasets_dir() / safe_name(name) / "meta.json").exists():
        raise FileNotFoundError(f"no saved dataset named {name!r}")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / safe_name(Path(filename).name)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return target


def saved_parses(name: str, lp: str) -> list[tuple[bytes, str]]:
    """(content, file name) of every CoNLL-U file kept with a saved dataset's language pair."""
    folder = _parses_dir(name, lp)
    if not folder.is_dir():
        return []
    return [(p.read_bytes(), p.name) for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")]


def delete(name: str) -> None:
    path = datasets_dir() / safe_name(name)
    if not path.exists():
        raise FileNotFoundError(f"no saved dataset named {name!r}")
    trash = datasets_dir() / f".{path.name}.deleted-{time.time_ns()}"
    os.replace(path, trash)  # disappears from the list at once, even if removal is interrupted
    shutil.rmtree(trash, ignore_errors=True)
