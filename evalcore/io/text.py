"""Decoding and TSV parsing with file/line-precise problems.

``decode`` accepts UTF-8 with or without BOM and CRLF line ends; it rejects NUL bytes and
invalid UTF-8 with the line number and a guess of the encoding the file looks like.
``read_tsv`` parses RFC-4180-style TSV (a field is quoted only when it contains a tab, quote
or newline: the convention of ../shared/data) and returns rows with their physical line
numbers, checking required columns and field counts.

Runaway quotes: real TSVs often hold unquoted texts that begin with a quotation mark. Read
as RFC 4180, such a field swallows every following line up to the next quotation mark (or
the end of the file). A quoted field that spans several physical lines is therefore an
error when it never closes, or when a line it swallowed holds a tab (a row of its own); the
problem names the line where the quote opened. ``quoting="none"`` reads every field
literally instead (no quote character at all): the fix for files whose texts are not quoted.
The default comes from :data:`QUOTING` (set by the CLI's ``--quoting``).
"""
from __future__ import annotations

import contextvars
import csv
import io
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..core.arrowfiles import arrow_owned
from ..core.problems import Report

QUOTING_MODES = ("csv", "none")
#: The longest field (characters) a TSV may hold. Python's csv module stops at 131,072 by
#: default; a longer field is reported with its line, and the rest of the file is still checked.
MAX_FIELD_CHARS = 1_000_000
if csv.field_size_limit() < MAX_FIELD_CHARS:
    csv.field_size_limit(MAX_FIELD_CHARS)
#: The quoting used when a loader is not told: "csv" (RFC 4180) or "none" (fields literal).
QUOTING: contextvars.ContextVar[str] = contextvars.ContextVar("evalcore_quoting", default="csv")


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


#: A header field longer than this, or a header of one field without a tab, is not shown in a
#: message: a file that is no TSV at all (a key, a password file) is never echoed.
SHOWN_HEADER_CHARS = 24
SHOWN_HEADER_FIELDS = 12


def header_summary(header: Sequence[str]) -> str:
    """The header fields for a message, never a file's content: a one-field header without a tab
    (not a TSV) is described by its length only; otherwise at most :data:`SHOWN_HEADER_FIELDS`
    column names, each cut to :data:`SHOWN_HEADER_CHARS` characters."""
    if not header or (len(header) == 1 and not header[0]):
        return "nothing"
    if len(header) == 1:
        return f"one field of {len(header[0]):,} characters and no tab (not shown: is this a TSV file?)"
    shown = [h if len(h) <= SHOWN_HEADER_CHARS else h[:SHOWN_HEADER_CHARS] + "..." for h in header[:SHOWN_HEADER_FIELDS]]
    more = f" and {len(header) - SHOWN_HEADER_FIELDS} more" if len(header) > SHOWN_HEADER_FIELDS else ""
    return ", ".join(shown) + more


class Table:
    """A parsed TSV: its header, and its rows with the physical line number each starts on.

    A clean file (every row one line of exactly the header's field count, no field opening with
    a quotation mark) is held by column (:meth:`array`: one Arrow string array per column, no
    Python object per row); :attr:`rows` and :attr:`lines` are then made on first use."""

    def __init__(self, name: str, columns: list[str], rows: list[list[str]] | None = None,
                 lines: list[int] | None = None, *, arrays: dict[str, Any] | None = None, first_line: int = 2):
        self.name = name
        self.columns = columns
        self._rows = rows
        self._lines = lines
        self._arrays = arrays  # column -> pyarrow string array (the columnar form)
        self._first_line = first_line

    def __len__(self) -> int:
        if self._rows is not None:
            return len(self._rows)
        assert self._arrays is not None
        return len(next(iter(self._arrays.values()))) if self._arrays else 0

    @property
    def rows(self) -> list[list[str]]:
        if self._rows is None:
            cols = [self.array(c).to_pylist() for c in self.columns]
            self._rows = [list(r) for r in zip(*cols)] if cols else []
        return self._rows

    @property
    def lines(self) -> list[int]:
        """The physical line number of each row's start."""
        if self._lines is None:
            self._lines = list(range(self._first_line, self._first_line + len(self)))
        return self._lines

    def line_array(self) -> np.ndarray:
        """:attr:`lines` as an int64 array (made without a Python list for a columnar table)."""
        if self._lines is None:
            return np.arange(self._first_line, self._first_line + len(self), dtype=np.int64)
        return np.asarray(self._lines, dtype=np.int64)

    def array(self, column: str) -> Any:
        """The column as a pyarrow ``large_string`` array (converted from the rows when the file
        was read row by row)."""
        import pyarrow as pa

        if self._arrays is not None:
            return self._arrays[column]
        i = self.columns.index(column)
        return pa.array([r[i] for r in self.rows], type=pa.large_string())

    def col(self, column: str) -> list[str]:
        if self._arrays is not None and self._rows is None:
            return cast(list[str], self.array(column).to_pylist())
        i = self.columns.index(column)
        return [r[i] for r in self.rows]

    def has(self, column: str) -> bool:
        return column in self.columns


def _columnar(data: bytes, quoting: str) -> tuple[list[str], list[Any]] | None:
    """The header fields and the columns (pyarrow string arrays) of a TSV that needs no
    row-by-row reading, or None: Arrow's CSV reader splits it, with no quote character.

    It answers only where :mod:`csv` (after :func:`decode`) would read the same rows without a
    problem: UTF-8 (Arrow checks it; a file of ASCII bytes is UTF-8 already), no NUL, no carriage return, no field opening with a
    quotation mark (csv quoting), no blank line, a header of two or more fields, every later line
    exactly the header's field count (a ragged row makes Arrow fail), and every field under
    :data:`MAX_FIELD_CHARS` characters. Each row is then one line (line numbers 2, 3, ...).
    Anything else (None) goes to the row-by-row reader, which reports each problem as it
    always has."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data or b"\r" in data:
        return None
    quotes = quoting == "csv" and b'"' in data  # then no field may open with one (checked below)
    end = data.find(b"\n")
    try:
        first = (data if end < 0 else data[:end]).decode("utf-8")
    except UnicodeDecodeError:
        return None
    header = first.split("\t")
    if len(header) < 2 or not first.strip() or (quotes and any(h.startswith('"') for h in header)):
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.compute as pc

    names = [f"c{i}" for i in range(len(header))]
    if end < 0 or end + 1 == len(data):
        return header, [pa.array([], type=pa.large_string()) for _ in names]
    body = arrow_owned(data, end + 1)  # not Python memory: see evalcore.core.arrowfiles
    # UTF-8 is checked by Arrow, field by field; a file of ASCII bytes only (one fast pass: often
    # a judgements file, ids and numbers) is UTF-8 as a whole, and needs no check
    check_utf8 = not data.isascii()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(body),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False,
                                             newlines_in_values=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.large_string() for n in names},
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 check_utf8=check_utf8))
    except (pa.ArrowInvalid, pa.ArrowException):
        return None
    cols = [table.column(n) for n in names]
    del table
    # Arrow reads a blank line as a row of empty fields: only when such a row is there (rare:
    # a line of tabs is one too) are the bytes searched for a blank line
    # (a first column without an empty field has no such row: the others are not looked at)
    empty = pc.equal(pc.binary_length(cols[0]), 0)
    if pc.any(empty).as_py():
        for c in cols[1:]:
            empty = pc.and_(empty, pc.equal(pc.binary_length(c), 0))
        if pc.any(empty).as_py() and b"\n\n" in data:
            return None
    # a field has at most as many characters as bytes: counting characters is needed only
    # in a column with a field of MAX_FIELD_CHARS bytes or more
    if any((pc.max(pc.binary_length(c)).as_py() or 0) >= MAX_FIELD_CHARS
           and (pc.max(pc.utf8_length(c)).as_py() or 0) >= MAX_FIELD_CHARS for c in cols):
        return None
    if quotes and any(pc.any(pc.starts_with(c, '"')).as_py() for c in cols):
        return None
    return header, cols


def _runaway(text_lines: list[str], start: int, end: int, row: list[str]) -> str | None:
    """Why the row of physical lines start..end (1-based) is a runaway quote, or None.

    Only rows with a field holding a line break are suspects. A row that runs to the end of
    the file without a closing quotation mark never closed its quote; a swallowed line
    holding a tab was a row of its own.
    """
    if not any("\n" in f for f in row):
        return None
    last = len(text_lines) - (1 if text_lines and text_lines[-1] == "" else 0)
    if end >= last and not text_lines[end - 1].rstrip().endswith('"'):
        return (f"a quotation mark \" opens a field here and is never closed: it swallows lines {start + 1}-{end} "
                "(to the end of the file)")
    if any("\t" in ln for ln in text_lines[start:end]):
        return (f"a quotation mark \" opens a field here and is only closed on line {end}: lines {start + 1}-{end} "
                "are swallowed into one field")
    return None


RUNAWAY_FIX = ("quote the text properly (\"...\" with inner quotes doubled), or read the file unquoted "
               "(CLI: --quoting none; Data page: 'texts are not quoted') when its texts may begin with \"")


def _checked_header(header: list[str], name: str, report: Report, required: list[str], optional: Sequence[str],
                    aliases: dict[str, str] | None) -> list[str] | None:
    """The column names (stripped, aliases applied), or None after reporting missing or
    duplicate columns."""
    header = [h.strip() for h in header]
    if aliases:
        header = [aliases.get(h, h) for h in header]
    missing = [c for c in required if c not in header]
    if missing:
        report.error(name, 1, f"missing column(s) {', '.join(missing)}; the header has {header_summary(header)} "
                              f"(columns must be separated by tabs; expected {', '.join(required + list(optional))})")
        return None
    dup = duplicates(header)
    if dup:
        report.error(name, 1, f"duplicate column name(s) {', '.join(dup)}")
        return None
    return header


def read_tsv(data: bytes, name: str, report: Report, required: list[str],
             optional: Sequence[str] = (), aliases: dict[str, str] | None = None,
             quoting: str | None = None) -> Table | None:
    """Parse a TSV with a header; report missing columns, bad field counts and runaway
    quotes (all of them). ``quoting``: "csv" (RFC 4180, the default) or "none" (literal)."""
    quoting = quoting or QUOTING.get()
    if quoting not in QUOTING_MODES:
        raise ValueError(f"quoting must be one of {', '.join(QUOTING_MODES)}, not {quoting!r}")
    fast = _columnar(data, quoting)
    if fast is not None:
        header = _checked_header(fast[0], name, report, required, optional, aliases)
        if header is None:
            return None
        if len(set(header)) == len(header):
            return Table(name, header, arrays=dict(zip(header, fast[1])))
        del fast  # two unnamed columns: the rows are read one by one below
    text = decode(data, name, report)
    del data  # (the caller's bytes go as soon as it lets them: the text replaces them)
    if text is None:
        return None
    if not text.strip():
        report.error(name, None, "file is empty; it needs a header line"
                                 + (" with columns " + ", ".join(required) if required else " naming its columns"))
        return None
    if quoting == "none":
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"',
                            doublequote=True, strict=False)
    try:
        header = next(reader)
    except csv.Error as exc:
        report.error(name, 1, f"cannot parse the header: {exc}")
        return None
    header = _checked_header(header, name, report, required, optional, aliases)
    if header is None:
        return None
    text_lines: list[str] = []  # the physical lines, split when a runaway quote is suspected
    rows, lines = [], []
    bad = 0
    prev_line = reader.line_num
    while True:
        start = prev_line + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. a field over MAX_FIELD_CHARS: report it, check the rest
            prev_line = max(reader.line_num, start)
            bad += 1
            why = (f"a field is longer than {MAX_FIELD_CHARS:,} characters, the limit per field"
                   if "field limit" in str(exc) else f"cannot parse: {exc}")
            report.error(name, start, f"{why}; this row is skipped, the rest of the file is checked")
            continue
        prev_line = reader.line_num
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank line
        if quoting == "csv" and prev_line > start:
            if not text_lines:
                text_lines = text.split("\n")
            runaway = _runaway(text_lines, start, prev_line, row)
            if runaway:
                report.error(name, start, f"{runaway}; {RUNAWAY_FIX}")
                bad += 1
                continue
        if len(row) != len(header):
            bad += 1
            if bad <= 20:
                report.error(name, start, f"has {len(row)} fields but the header has {len(header)} "
                                          "(a stray tab, or a quote \" that opens a field but never closes?)")
            continue
        rows.append(row)
        lines.append(start)
    if bad > 20:
        report.error(name, None, f"{bad - 20} more lines with the wrong number of fields not listed")
    return Table(name, header, rows, lines)


def duplicates(names: list[str]) -> list[str]:
    """The non-empty names that occur more than once, sorted; one pass (linear in the number
    of names: a header of 100,000 columns takes milliseconds, not minutes)."""
    from collections import Counter

    return sorted(h for h, n in Counter(names).items() if n > 1 and h)


def describe_lines(lines: list[int], limit: int = 8) -> str:
    """'lines 3, 5, 9 and 4 more'."""
    shown = ", ".join(str(x) for x in lines[:limit])
    more = f" and {len(lines) - limit} more" if len(lines) > limit else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"
