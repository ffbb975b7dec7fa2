"""A binary columnar snapshot of a loaded collection: what reading a tidy TSV folder assembles,
stored as Arrow IPC files (Feather v2, lz4, written and read by pyarrow; they read about five
times faster than Parquet here), so that a saved dataset loads without parsing and validating
its TSVs again.

A snapshot is a cache, never the data: the TSV files stay the saved dataset, are checked
against meta.json on every load (:mod:`evalcore.io.workspace`), and a snapshot is used only when
its *key* matches — the SHA-256 of every TSV file it was built from, the source code of the
loaders (``evalcore/io/*.py``, ``evalcore/core/dataset.py`` and ``evalcore/core/problems.py``), the pandas and pyarrow versions and
:data:`VERSION`. Anything else (a missing, stale, corrupt or unreadable snapshot) makes the
caller read the TSVs as before and build a new one. No pickle: Arrow tables plus a JSON
manifest that also holds each table's column dtypes, the validation warnings, the content
hash of every language pair and the SHA-256 of every Arrow file (checked before reading).

Layout inside the dataset folder (hidden, so never one of the dataset's own files)::

    .snap-<key prefix>/manifest.json   written last: a snapshot without it is incomplete
    .snap-<key prefix>/<n>.arrow       one per table
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd

from ..core.arrowfiles import read_feather
from ..core.dataset import Dataset
from ..core.problems import Problem

#: Bump when the snapshot layout changes.
VERSION = 1
PREFIX = ".snap-"
TMP_PREFIX = ".snaptmp-"
TABLES = ("segments", "references", "outputs", "judgements", "tags")
_STALE_TMP_SECONDS = 3600


def _loader_fingerprint() -> str:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    loaders = [p for p in sorted(here.glob("*.py")) if p.name not in ("workspace.py", "synth.py")]
    for p in loaders + [here.parent / "core" / "dataset.py", here.parent / "core" / "problems.py"]:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def snapshot_key(file_table: dict[str, dict], reading: str = "") -> str:
    """The key of a snapshot of the TSV files ``file_table`` (name -> {"bytes", "sha256"}) read
    with the options ``reading`` (e.g. the quoting)."""
    import pyarrow

    h = hashlib.sha256()
    h.update(json.dumps({"version": VERSION, "pandas": pd.__version__, "pyarrow": pyarrow.__version__,
                         "loaders": _loader_fingerprint(), "reading": reading,
                         "files": {k: [v.get("bytes"), v.get("sha256")] for k, v in sorted(file_table.items())}},
                        sort_keys=True).encode())
    return h.hexdigest()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _folder(root: Path, key: str) -> Path:
    return root / f"{PREFIX}{key[:32]}"


def read_snapshot(root: str | os.PathLike, key: str, name: str) -> dict[str, Dataset] | None:
    """The collection stored in ``root``'s snapshot for ``key`` (datasets named ``name``), or
    None when there is none, it is stale or it does not check out (then read the TSVs)."""
    return _read(_folder(Path(root), key), key, name)


def _read(folder: Path, key: str, name: str) -> dict[str, Dataset] | None:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("key") != key or manifest.get("version") != VERSION:
            return None
        for fname, digest in manifest["files"].items():
            if _sha256(folder / fname) != digest:
                return None

        def table(spec: dict) -> pd.DataFrame:
            df = read_feather(folder / spec["file"])  # Arrow's own file: evalcore.core.arrowfiles
            df = df[spec["columns"]] if list(df.columns) != spec["columns"] else df
            wrong = {c: t for c, t in spec["dtypes"].items() if str(df[c].dtype) != t}
            return df.astype({c: (object if t == "object" else t) for c, t in wrong.items()}) if wrong else df

        out: dict[str, Dataset] = {}
        for entry in manifest["pairs"]:
            tables = {t: table(entry["tables"][t]) for t in TABLES}
            extras = {k: table(spec) for k, spec in entry["extras"]}
            warnings = [Problem(*w) for w in entry["warnings"]]
            ds = Dataset(name=name, lp=entry["lp"], extras=extras, warnings=warnings, **tables)
            ds._cache["hash"] = entry["content_hash"]  # of the very TSVs the key names, computed when built
            out[entry["lp"]] = ds
        return out
    except (OSError, ValueError, KeyError, TypeError, ImportError):
        return None
    except Exception:  # a damaged Arrow file raises pyarrow's own errors: read the TSVs instead
        return None


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(a, b, check_dtype=True, check_exact=True)
        return True
    except AssertionError:
        return False


def write_snapshot(root: str | os.PathLike, key: str, coll: dict[str, Dataset]) -> bool:
    """Store ``coll`` (as read from the TSVs the key names) in ``root``; True when written.

    Written to a temporary folder, read back and compared table by table (dtypes and values);
    only an exact round trip is renamed into place, atomically. Other snapshots of ``root`` are
    then removed. Never raises for an unwritable folder or a table Arrow cannot hold (the
    dataset then simply loads from its TSVs)."""
    root = Path(root)
    final = _folder(root, key)
    if final.exists() and _read(final, key, "") is not None:
        return True  # another process built it meanwhile
    tmp = root / f"{TMP_PREFIX}{os.getpid()}-{time.time_ns()}"
    try:
        tmp.mkdir()
        files: dict[str, str] = {}
        n = 0

        def put(df: pd.DataFrame) -> dict:
            nonlocal n
            fname = f"{n}.arrow"
            n += 1
            df.to_feather(tmp / fname, compression="lz4")
            files[fname] = _sha256(tmp / fname)
            return {"file": fname, "columns": [str(c) for c in df.columns],
                    "dtypes": {str(c): str(t) for c, t in df.dtypes.items()}}

        pairs = []
        for lp, ds in coll.items():
            if any(not isinstance(c, str) for t in TABLES for c in getattr(ds, t).columns):
                return False
            pairs.append({"lp": lp, "content_hash": ds.content_hash(),
                          "tables": {t: put(getattr(ds, t)) for t in TABLES},
                          "extras": [[k, put(v)] for k, v in ds.extras.items()],
                          "warnings": [[p.severity, p.file, p.line, p.message] for p in ds.warnings]})
        manifest = {"version": VERSION, "key": key, "files": files, "pairs": pairs}
        with open(tmp / "manifest.json", "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        back = _read(tmp, key, next(iter(coll.values())).name if coll else "")
        if back is None or list(back) != list(coll) or not all(
                _same(getattr(back[lp], t), getattr(ds, t)) for lp, ds in coll.items() for t in TABLES) or not all(
                list(back[lp].extras) == list(ds.extras) and all(_same(back[lp].extras[k], v) for k, v in ds.extras.items())
                and back[lp].warnings == ds.warnings for lp, ds in coll.items()):
            return False
        if final.exists():  # a damaged or incomplete one: out of the way (readers of it fall back to the TSVs)
            broken = root / f"{TMP_PREFIX}{os.getpid()}-{time.time_ns()}-broken"
            with contextlib.suppress(OSError):
                os.rename(final, broken)
                shutil.rmtree(broken, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:  # another process built the same snapshot first
            return (final / "manifest.json").is_file()
        _prune(root, keep=final)
        return True
    except Exception:
        return False
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _prune(root: Path, keep: Path) -> None:
    """Remove other (stale) snapshots and temporary folders left by a crash over an hour ago."""
    now = time.time()
    for entry in root.iterdir():
        if entry == keep or not entry.is_dir():
            continue
        if entry.name.startswith(PREFIX) or (entry.name.startswith(TMP_PREFIX)
                                             and now - entry.stat().st_mtime > _STALE_TMP_SECONDS):
            with contextlib.suppress(OSError):
                shutil.rmtree(entry)
