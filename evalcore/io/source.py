"""Where input files come from: a folder, a zip archive, or uploaded bytes.

A :class:`FileSource` maps relative POSIX names to bytes. Zip archives are checked before
anything is read: members whose paths escape the archive root (absolute paths, ``..``),
archives expanding past ``max_total_bytes`` or with a member compressed more than
``max_ratio`` times are refused with a clear message (zip-bomb guard). Single files over
``max_file_bytes`` are refused too.
"""
from __future__ import annotations

import io
import os
import posixpath
import zipfile
from pathlib import Path

from .. problems import DataError, Report

MAX_FILE_BYTES = int(os.environ.get("EVALCORE_MAX_FILE_MB", "200")) * 1024 * 1024
MAX_TOTAL_BYTES = int(os.environ.get("EVALCORE_MAX_TOTAL_MB", "1000")) * 1024 * 1024
MAX_RATIO = 200


class FileSource:
    """Read-only mapping name -> bytes over a folder, a zip or an in-memory dict."""

    def __init__(self, files: dict[str, bytes | Path], label: str):
        self._files = files
        self.label = label

    # -- constructors ------------------------------------------------------------------
    @classmethod
    def from_path(cls, path: str | os.PathLike) -> "FileSource":
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
        if p.is_dir():
            files: dict[str, bytes | Path] = {}
            for f in sorted(p.rglob("*")):
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts):
                    files[f.relative_to(p).as_posix()] = f
            return cls(files, str(p))
        if zipfile.is_zipfile(p):
            return cls.from_zip(p.read_bytes(), p.name)
        # a single file: the folder is its parent, restricted to that file
        return cls({p.name: p}, str(p))

    @classmethod
    def from_zip(cls, data: bytes, label: str = "upload.zip", *, max_total_bytes: int = MAX_TOTAL_BYTES,
                 max_ratio: int = MAX_RATIO, max_file_bytes: int = MAX_FILE_BYTES) -> "FileSource":
        report = Report()
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            report.error(label, None, "not a valid zip archive (it may be truncated); re-create the zip and upload it again")
            raise DataError(report)
        infos = [i for i in zf.infolist() if not i.is_dir()]
        total = 0
        for info in infos:
            name = info.filename
            norm = posixpath.normpath(name)
            if name.startswith(("/", "\\")) or norm.startswith("..") or ":" in name.split("/")[0] or "\\" in name:
                report.error(label, None, f"member {name!r} has a path that escapes the archive folder; "
                                          "zip only relative paths inside one folder")
            total += info.file_size
            if info.file_size > max_file_bytes:
                report.error(label, None, f"member {name!r} expands to {info.file_size:,} bytes, over the "
                                          f"{max_file_bytes:,}-byte limit per file")
            if info.compress_size and info.file_size / max(info.compress_size, 1) > max_ratio and info.file_size > 1_000_000:
                report.error(label, None, f"member {name!r} is compressed {info.file_size // max(info.compress_size, 1)}×, "
                                          "which looks like a zip bomb; refused")
        if total > max_total_bytes:
            report.error(label, None, f"archive expands to {total:,} bytes, over the {max_total_bytes:,}-byte limit")
        if not report.ok:
            raise DataError(report)
        files: dict[str, bytes | Path] = {}
        for info in infos:
            parts = [x for x in posixpath.normpath(info.filename).split("/") if x]
            if any(x.startswith(".") or x == "__MACOSX" for x in parts):
                continue
            files["/".join(parts)] = zf.read(info)
        # a zip of one top-level folder: strip that folder
        tops = {n.split("/")[0] for n in files}
        if len(tops) == 1 and all("/" in n for n in files):
            top = tops.pop()
            files = {n[len(top) + 1:]: b for n, b in files.items()}
        return cls(files, label)

    @classmethod
    def from_uploads(cls, uploads: dict[str, bytes], label: str = "upload",
                     max_file_bytes: int = MAX_FILE_BYTES) -> "FileSource":
        """Several uploaded files (name -> bytes); a single zip is unpacked."""
        report = Report()
        for name, data in uploads.items():
            if len(data) > max_file_bytes:
                report.error(name, None, f"file is {len(data):,} bytes, over the upload limit of {max_file_bytes:,} bytes")
        if not report.ok:
            raise DataError(report)
        if len(uploads) == 1:
            (name, data), = uploads.items()
            if name.lower().endswith(".zip"):
                return cls.from_zip(data, name)
        return cls({posixpath.basename(n): d for n, d in uploads.items()}, label)

    # -- access ----------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._files)

    def __contains__(self, name: str) -> bool:
        return name in self._files

    def read(self, name: str) -> bytes:
        v = self._files[name]
        if isinstance(v, Path):
            size = v.stat().st_size
            if size > MAX_FILE_BYTES:
                report = Report()
                report.error(name, None, f"file is {size:,} bytes, over the limit of {MAX_FILE_BYTES:,} bytes "
                                         "(raise EVALCORE_MAX_FILE_MB to allow it)")
                raise DataError(report)
            return v.read_bytes()
        return v

    def find(self, *candidates: str) -> str | None:
        """The first existing name among candidates (case-insensitive)."""
        lower = {n.lower(): n for n in self._files}
        for c in candidates:
            if c.lower() in lower:
                return lower[c.lower()]
        return None
