"""Decoding and TSV parsing with file/line-precise problems.

``decode`` accepts UTF-8 with or without BOM and CRLF line ends; it rejects NUL bytes and
invalid UTF-8 with the line number and a guess of the encoding the file looks like.
``read_tsv`` parses RFC-4180-style TSV (a field is quoted only when it contains a tab, quote
or newline: the convention of ../shared/data) and returns rows with their physical line
numbers, checking required columns and field counts.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ..problems import Report


def _guess_encoding(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 (it starts with a UTF-16 byte-order mark)"
    if data[:2000].count(b"\x00") > len(data[:2000]) // 4:
        return "UTF-16 without a byte-order mark"
    try:
        data.decode("cp1252")
        return "Windows-1252 / Latin-1"
    except UnicodeDecodeError:
        return "Latin-1 or another single-byte encoding"


def decode(data: bytes, name: str, report: Report) -> str | None:
    """UTF-8 text of ``data`` (BOM stripped, CRLF -> LF) or None after reporting the problem."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        report.error(name, None, f"file is encoded as {_guess_encoding(data)}; save it as UTF-8")
        return None
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        report.error(name, line, "contains a NUL byte (binary data or UTF-16?); save the file as plain UTF-8 text")
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report.error(name, line, f"is not valid UTF-8 (byte 0x{data[exc.start]:02x}); it looks like "
                                 f"{_guess_encoding(data)}: re-save it as UTF-8")
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class Table:
    name: str
    columns: list[str]
    rows: list[list[str]]
    lines: list[int]  # physical line number of each row's start

    def col(self, column: str) -> list[str]:
        i = self.columns.index(column)
        return [r[i] for r in self.rows]

    def has(self, column: str) -> bool:
        return column in self.columns


def read_tsv(data: bytes, name: str, report: Report, required: list[str],
             optional: list[str] = (), aliases: dict[str, str] | None = None) -> Table | None:
    """Parse a TSV with a header; report missing columns and bad field counts (all of them)."""
    text = decode(data, name, report)
    if text is None:
        return None
    if not text.strip():
        report.error(name, None, "file is empty; it needs a header line with columns " + ", ".join(required))
        return None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"',
                        doublequote=True, strict=False)
    try:
        header = next(reader)
    except csv.Error as exc:
        report.error(name, 1, f"cannot parse the header: {exc}")
        return None
    header = [h.strip() for h in header]
    if aliases:
        header = [aliases.get(h, h) for h in header]
    missing = [c for c in required if c not in header]
    if missing:
        report.error(name, 1, f"missing column(s) {', '.join(missing)}; the header has {', '.join(header) or 'nothing'} "
                              f"(columns must be separated by tabs; expected {', '.join(required + list(optional))})")
        return None
    dup = sorted({h for h in header if header.count(h) > 1 and h})
    if dup:
        report.error(name, 1, f"duplicate column name(s) {', '.join(dup)}")
        return None
    rows, lines = [], []
    bad = 0
    prev_line = reader.line_num
    try:
        for row in reader:
            start = prev_line + 1
            prev_line = reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            if len(row) != len(header):
                bad += 1
                if bad <= 20:
                    report.error(name, start, f"has {len(row)} fields but the header has {len(header)} "
                                              "(a stray tab, or a quote \" that opens a field but never closes?)")
                continue
            rows.append(row)
            lines.append(start)
    except csv.Error as exc:
        report.error(name, prev_line + 1, f"cannot parse: {exc}")
    if bad > 20:
        report.error(name, None, f"{bad - 20} more lines with the wrong number of fields not listed")
    return Table(name, header, rows, lines)


def describe_lines(lines: list[int], limit: int = 8) -> str:
    """'lines 3, 5, 9 and 4 more'."""
    shown = ", ".join(str(x) for x in lines[:limit])
    more = f" and {len(lines) - limit} more" if len(lines) > limit else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"
