"""Where input files come from: a folder, a zip archive, or uploaded bytes.

A :class:`FileSource` maps relative POSIX names to bytes. Zip archives are checked before
anything is read: members whose paths escape the archive root (absolute paths, ``..``),
encrypted members and unreadable compression methods are refused; while reading, the bytes
actually produced are counted (declared sizes are never trusted) and archives expanding past
``max_total_bytes``, or more than ``max_ratio`` times overall or per member, are refused
with a clear message (zip-bomb guard), as are corrupt members (a wrong CRC). Single files
over ``max_file_bytes`` are refused too.
"""
from __future__ import annotations

import io
import os
import posixpath
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..core.problems import DataError, Report, shown

#: The largest input file (and zip) read, in bytes: ``EVALCORE_MAX_FILE_MB`` (default 1024 MB).
#: Set for real campaigns: a tidy campaign of 100,000 segments × 10 systems × 4 references
#: has files of up to ~110 MB (outputs.tsv), ~260 MB with segments of 50 words; loading costs
#: about 4.5 times a file's size in memory (benchmarks/bench_load.py). Browser uploads have
#: their own, lower limit (``server.maxUploadSize``).
def megabytes_setting(name: str, default: int) -> int:
    """The environment setting ``name`` in whole megabytes, as bytes. A value that is not a
    positive whole number is not used: a warning names the setting, the value and the default
    used instead (never a traceback at import, never a silent choice)."""
    raw = os.environ.get(name, "").strip()
    if raw:
        try:
            mb = int(raw)
            if mb > 0:
                return mb * 1024 * 1024
        except ValueError:
            pass
        import warnings

        warnings.warn(f"{name}={raw!r} is not a positive whole number of megabytes; using the default "
                      f"{default} MB", RuntimeWarning, stacklevel=2)
    return default * 1024 * 1024


MAX_FILE_BYTES = megabytes_setting("EVALCORE_MAX_FILE_MB", 1024)
MAX_TOTAL_BYTES = megabytes_setting("EVALCORE_MAX_TOTAL_MB", 1000)
MAX_RATIO = 200
_RATIO_FLOOR = 1_000_000  # the ratio limits apply past 1 MB expanded (tiny archives vary wildly)
_CHUNK = 1 << 20
_READABLE_COMPRESSION = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}


def over_file_limit(size: int) -> str:
    """The message for a file of ``size`` bytes over :data:`MAX_FILE_BYTES`: its size, the
    limit, and the setting that raises it, with a value that would admit the file."""
    need = -(-size // (1024 * 1024))
    return (f"file is {size:,} bytes, over the per-file limit of {MAX_FILE_BYTES:,} bytes "
            f"({MAX_FILE_BYTES // (1024 * 1024)} MB, the setting EVALCORE_MAX_FILE_MB); to read it, set "
            f"EVALCORE_MAX_FILE_MB={need} or more")


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
            if p.stat().st_size > MAX_FILE_BYTES:
                report = Report()
                report.error(p.name, None, f"zip {over_file_limit(p.stat().st_size)}, or unzip it and give the folder")
                raise DataError(report)
            return cls.from_zip(p.read_bytes(), p.name)
        # a single file: the folder is its parent, restricted to that file
        return cls({p.name: p}, str(p))

    @classmethod
    def from_zip(cls, data: bytes, label: str = "upload.zip", *, max_total_bytes: int = MAX_TOTAL_BYTES,
                 max_ratio: int = MAX_RATIO, max_file_bytes: int = MAX_FILE_BYTES) -> "FileSource":
        """Unpack a zip in memory, refusing hostile archives with a clear :class:`DataError`.

        Checked before reading: paths escaping the archive, encrypted members and compression
        methods Python cannot read. While reading, the bytes actually produced are counted
        (declared sizes are never trusted): a member over ``max_file_bytes`` or ratio
        ``max_ratio`` (when over 1 MB), an archive over ``max_total_bytes`` or over
        ``max_ratio`` times its own size overall (when over 1 MB) stops the reading. Corrupt
        data (a wrong CRC, a damaged stream) is reported by member name.
        """
        report = Report()
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
            infos = [i for i in zf.infolist() if not i.is_dir()]
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError):
            report.error(label, None, "not a valid zip archive (it may be truncated); re-create the zip and upload it again")
            raise DataError(report)
        for info in infos:
            name = info.filename
            norm = posixpath.normpath(name)
            if name.startswith(("/", "\\")) or norm.startswith("..") or ":" in name.split("/")[0] or "\\" in name:
                report.error(label, None, f"member {name!r} has a path that escapes the archive folder; "
                                          "zip only relative paths inside one folder")
            elif (info.external_attr >> 16) & 0o170000 == 0o120000:  # S_IFLNK in the Unix mode bits
                report.error(label, None, f"member {shown(name)} is a symbolic link; symlinks are refused (a link "
                                          "can point anywhere on the machine that unpacks it): zip the file itself")
            elif info.flag_bits & 0x1:
                report.error(label, None, f"member {name!r} is encrypted (password-protected); "
                                          "zip the files again without a password")
            elif info.compress_type not in _READABLE_COMPRESSION:
                report.error(label, None, f"member {name!r} uses compression method {info.compress_type}, "
                                          "which cannot be read; zip the files again with the usual "
                                          "compression (deflate)")
        seen: dict[str, str] = {}  # two members of one name (or differing only in case): which one is meant?
        for info in infos:
            key = posixpath.normpath(info.filename).casefold()
            if key in seen:
                report.error(label, None, f"members {seen[key]!r} and {info.filename!r} have the same name "
                                          f"{'' if seen[key] == info.filename else '(apart from upper/lower case) '}"
                                          "in the archive, so one would silently replace the other; keep one "
                                          "and zip the files again")
            else:
                seen[key] = info.filename
        if not report.ok:
            raise DataError(report)
        files: dict[str, bytes | Path] = {}
        total = 0
        overall_limit = max(max_ratio * len(data), _RATIO_FLOOR)
        for info in infos:
            parts = [x for x in posixpath.normpath(info.filename).split("/") if x]
            if any(x.startswith(".") or x == "__MACOSX" for x in parts):
                continue
            name = info.filename
            member_ratio_limit = max(max_ratio * max(info.compress_size, 1), _RATIO_FLOOR)
            chunks, size = [], 0
            try:
                with zf.open(info) as fh:
                    while chunk := fh.read(_CHUNK):
                        size += len(chunk)
                        total += len(chunk)
                        chunks.append(chunk)
                        if size > max_file_bytes:
                            report.error(label, None, f"member {name!r} expands to more than {max_file_bytes:,} bytes, "
                                                      "over the limit per file")
                            break
                        if size > member_ratio_limit:
                            report.error(label, None, f"member {name!r} is compressed more than {max_ratio}× "
                                                      f"({info.compress_size:,} bytes expand past {size:,}), which "
                                                      "looks like a zip bomb; refused")
                            break
                        if total > max_total_bytes:
                            report.error(label, None, f"archive expands to more than {total:,} bytes, over the "
                                                      f"{max_total_bytes:,}-byte limit (counted while reading)")
                            break
                        if total > overall_limit:
                            report.error(label, None, f"archive of {len(data):,} bytes expands past {total:,} bytes, "
                                                      f"more than {max_ratio}× overall, which looks like a zip bomb; "
                                                      "refused")
                            break
            except zipfile.BadZipFile as exc:
                what = "its CRC check failed" if "CRC" in str(exc) else f"it is damaged ({exc})"
                report.error(label, None, f"member {name!r} is corrupt: {what} (CRC mismatch or truncated "
                                          "archive); re-create the zip and upload it again")
            except (zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError) as exc:
                report.error(label, None, f"member {name!r} cannot be unpacked ({type(exc).__name__}: {exc}); "
                                          "re-create the zip with the usual compression and no password")
            if not report.ok:
                raise DataError(report)
            files["/".join(parts)] = b"".join(chunks)
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
                report.error(name, None, f"file is {len(data):,} bytes, over the upload limit of {max_file_bytes:,} bytes "
                                         f"({max_file_bytes // (1024 * 1024)} MB); zip it, import its folder by path, "
                                         "use the command line, or raise EVALCORE_MAX_FILE_MB")
        if not report.ok:
            raise DataError(report)
        if len(uploads) == 1:
            (name, data), = uploads.items()
            if name.lower().endswith(".zip"):
                return cls.from_zip(data, name)
        return cls({posixpath.basename(n): d for n, d in uploads.items()}, label)

    def sub(self, prefix: str, keep=None) -> "FileSource":
        """The files under folder ``prefix`` (names relative to it), optionally only those whose
        relative name ``keep(name)`` accepts; labelled ``<label>/<prefix>`` (a test set of an
        mt-metrics-eval root, read by the one-test-set reader)."""
        pre = prefix.rstrip("/") + "/"
        files = {n[len(pre):]: v for n, v in self._files.items()
                 if n.startswith(pre) and (keep is None or keep(n[len(pre):]))}
        return FileSource(files, f"{self.label}/{prefix.rstrip('/')}")

    # -- access ----------------------------------------------------------------------------
    def names(self) -> list[str]:
        return list(self._files)

    def __contains__(self, name: str) -> bool:
        return name in self._files

    def read(self, name: str) -> bytes:
        v = self._files[name]
        if isinstance(v, Path):
            self._check_size(name, v.stat().st_size)
            return v.read_bytes()
        return v

    @staticmethod
    def _check_size(name: str, size: int) -> None:
        if size > MAX_FILE_BYTES:
            report = Report()
            report.error(name, None, over_file_limit(size))
            raise DataError(report)

    @contextmanager
    def opened(self, name: str) -> Iterator[bytes | BinaryIO]:
        """Within: ``name``'s bytes when they are in memory (a zip, an upload), or the file on
        disk open for binary reading (closed on leaving), for a reader that takes either
        (:func:`evalcore.io.text.read_tsv`: it reads a clean file in blocks, with no copy of
        the whole file in memory). The size limit is checked as :meth:`read` checks it, on the
        open file."""
        v = self._files[name]
        if not isinstance(v, Path):
            yield v
            return
        with v.open("rb", buffering=0) as fh:
            self._check_size(name, os.fstat(fh.fileno()).st_size)
            yield fh

    def head(self, name: str, n: int) -> bytes:
        """The first ``n`` bytes of ``name`` (a peek at a header: the file is not read whole)."""
        v = self._files[name]
        if isinstance(v, Path):
            with v.open("rb") as f:
                return f.read(n)
        return v[:n]

    def find(self, *candidates: str) -> str | None:
        """The first existing name among candidates (case-insensitive). Two files whose names
        differ only in case (``outputs.tsv`` and ``OUTPUTS.TSV`` in one folder) are refused
        with a :class:`DataError` naming both: neither is chosen silently."""
        lower: dict[str, list[str]] = {}
        for n in self._files:
            lower.setdefault(n.lower(), []).append(n)
        for c in candidates:
            found = lower.get(c.lower())
            if found and len(found) > 1:
                report = Report()
                report.error(self.label, None, f"files {', '.join(map(repr, found))} have the same name apart from "
                                               "upper/lower case, so it is unclear which one is meant; keep one")
                raise DataError(report)
            if found:
                return found[0]
        return None
