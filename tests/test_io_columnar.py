"""The columnar TSV read (Arrow, no Python object per row) against Python's csv module.

``evalcore.io.text.read_tsv`` splits a clean file with Arrow's CSV reader and reads any other
file row by row. Both must give what :mod:`csv` gives (the reference here: the standard
library's reader over the decoded text), the same line numbers, and the same problems.
"""
from __future__ import annotations

import csv
import io
import random

import pandas as pd
import pytest

from evalcore.core.problems import DataError, Report
from evalcore.io import FileSource, load_collection
from evalcore.io.text import MAX_FIELD_CHARS, read_tsv

WORDS = ["a", "b c", "ünï", "中文", "x'y", 'mid"quote', "  pad  ", "", "é\u3000", "\u2028sep", "tab-free", "1.5"]


def _reference(data: bytes) -> tuple[list[str], list[list[str]], list[int]]:
    """Header, rows and start lines as the csv module reads the decoded text (rows of one line)."""
    text = data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"', strict=False))
    body = [(r, i + 1) for i, r in enumerate(rows) if i and r and not (len(r) == 1 and not r[0].strip())]
    return rows[0], [r for r, _ in body], [ln for _, ln in body]


def _clean_file(rng: random.Random, n_rows: int, n_cols: int, bom: bool, final_newline: bool) -> bytes:
    head = "\t".join(f"col{j}" for j in range(n_cols))
    lines = [head] + ["\t".join(rng.choice(WORDS) for _ in range(n_cols)) for _ in range(n_rows)]
    text = "\n".join(lines) + ("\n" if final_newline else "")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


@pytest.mark.parametrize("seed", range(12))
def test_clean_files_are_read_by_column_as_csv_reads_them(seed):
    rng = random.Random(seed)
    data = _clean_file(rng, rng.randint(0, 60), rng.randint(2, 6), bom=seed % 3 == 0, final_newline=seed % 4 != 1)
    header, rows, lines = _reference(data)
    report = Report()
    table = read_tsv(data, "f.tsv", report, [])
    assert report.problems == []
    assert table is not None and table._arrays is not None  # the columnar path was taken
    assert table.columns == header
    assert table.rows == rows
    assert table.lines == lines
    assert table.line_array().tolist() == lines
    for j, c in enumerate(header):
        assert table.col(c) == [r[j] for r in rows]


@pytest.mark.parametrize("body", [
    "x\ty\n\n1\t2\n",              # a blank line: skipped, line numbers keep counting
    "x\ty\n   \n1\t2\n",           # a whitespace-only line
    '"q\tuoted"\ty\n1\t2\n',       # a quoted field holding a tab
    'x\t"a ""b"""\n1\t2\n',        # a quoted field with doubled quotes
    'x\t"two\nlines"\n1\t2\n',     # a quoted field over two lines (rows no longer = lines)
    "x\ty\r\n1\t2\r\n",            # CRLF line ends
])
def test_other_files_read_row_by_row_as_csv_reads_them(body):
    data = ("h1\th2\n" + body).encode("utf-8")
    report = Report()
    table = read_tsv(data, "f.tsv", report, [])
    assert report.problems == []
    assert table is not None and table._arrays is None
    ref_text = data.decode("utf-8").replace("\r\n", "\n")
    rows = [r for r in csv.reader(io.StringIO(ref_text, newline=""), delimiter="\t", strict=False)][1:]
    assert table.rows == [r for r in rows if r and not (len(r) == 1 and not r[0].strip())]


def test_problems_are_the_row_readers_whatever_the_file_looks_like():
    """Ragged rows, invalid UTF-8, NUL and an over-long field: the messages (file, line,
    problem) are those of the row-by-row reader, all of them."""
    ragged = b"a\tb\nx\ty\n1\t2\t3\nq\n"
    report = Report()
    table = read_tsv(ragged, "r.tsv", report, ["a"])
    assert [(p.file, p.line) for p in report.problems] == [("r.tsv", 3), ("r.tsv", 4)]
    assert "has 3 fields but the header has 2" in report.problems[0].message
    assert table is not None and table.rows == [["x", "y"]]
    for data, line, words in [(b"a\tb\nx\ty\n1\t\xff\n", 3, "not valid UTF-8"),
                              (b"a\tb\nx\ty\n1\t\x00\n", 3, "NUL byte")]:
        report = Report()
        assert read_tsv(data, "e.tsv", report, ["a"]) is None
        assert [(p.line, words in p.message) for p in report.problems] == [(line, True)]
    long = b"a\tb\nx\t" + b"y" * (MAX_FIELD_CHARS + 1) + b"\n1\t2\n"
    report = Report()
    table = read_tsv(long, "l.tsv", report, ["a"])
    assert [p.line for p in report.problems] == [2]
    assert table is not None and table.rows == [["1", "2"]] and table.lines == [3]


def test_missing_column_is_reported_once_on_either_path():
    for data in (b"x\ty\n1\t2\n", b'x\ty\n"1"\t2\n'):
        report = Report()
        assert read_tsv(data, "m.tsv", report, ["seg_id"], ["lp"]) is None
        assert len(report.problems) == 1
        assert report.problems[0].line == 1 and "missing column(s) seg_id" in report.problems[0].message


def _folder(outputs: str) -> FileSource:
    files = {"segments.tsv": b"lp\tseg_id\tsource\nen-de\t1\tHello\nen-de\t2\tWorld\n",
             "references.tsv": b"lp\tseg_id\tref_id\ttext\nen-de\t1\tA\tHallo\nen-de\t2\tA\tWelt\n",
             "outputs.tsv": outputs.encode("utf-8")}
    return FileSource(files, "mem")


def test_a_folder_loads_the_same_by_column_and_row_by_row():
    """The same campaign, once clean (columnar) and once with a quoted text (row by row): equal
    tables, Python strings as texts, and the same warnings."""
    clean = "lp\tsystem\tseg_id\ttext\nen-de\tS\t1\tHallo\nen-de\tS\t2\t \nen-de\tT\t1\tHi\n"
    quoted = "lp\tsystem\tseg_id\ttext\nen-de\tS\t1\t\"Hallo\"\nen-de\tS\t2\t \nen-de\tT\t1\tHi\n"
    a = load_collection(_folder(clean), journals=False)["en-de"]
    b = load_collection(_folder(quoted), journals=False)["en-de"]
    pd.testing.assert_frame_equal(a.outputs, b.outputs)
    pd.testing.assert_frame_equal(a.references, b.references)
    assert a.outputs["text"].dtype == object and all(type(v) is str for v in a.outputs["text"])
    assert [str(w) for w in a.warnings] == [str(w) for w in b.warnings]
    assert any("covers 1 of 2 segments" in str(w) for w in a.warnings)
    assert any("empty or whitespace-only" in str(w) for w in a.warnings)
    assert a.systems == ["S", "T"] and a.ref_ids == ["A"]


def test_unknown_segments_and_bad_scores_are_all_reported_from_columns():
    src = _folder("lp\tsystem\tseg_id\ttext\nen-de\tS\t1\tHallo\nen-de\tS\t9\tX\n")
    src._files["judgements.tsv"] = b"lp\tsystem\tseg_id\tjudgement\tscore\nen-de\tS\t1\tda\t1e300\nen-de\tS\t2\tda\tabc\n"
    with pytest.raises(DataError) as exc:
        load_collection(src, journals=False)
    msgs = [(p.file, p.line, p.message) for p in exc.value.report.problems if p.severity == "error"]
    assert ("outputs.tsv", 3) in [(f, ln) for f, ln, _ in msgs]
    assert any("segment id(s) not in the segments file" in m and "'9'" in m for _, _, m in msgs)
    assert any(ln == 3 and "non-numeric score(s) 'abc'" in m for _, ln, m in msgs)
    assert any(ln == 2 and "not finite or beyond" in m and "'1e300'" in m for _, ln, m in msgs)


def test_long_multibyte_fields_are_measured_in_characters():
    """A field of MAX_FIELD_CHARS bytes or more but fewer characters is read by column; one of
    more characters is the row reader's problem, as before."""
    under = "é" * (MAX_FIELD_CHARS - 1)  # 2 bytes each: over the limit in bytes, not in characters
    report = Report()
    table = read_tsv(f"a\tb\nx\t{under}\n1\t2\n".encode("utf-8"), "u.tsv", report, ["a"])
    assert report.problems == [] and table is not None and table._arrays is not None
    assert table.col("b") == [under, "2"]
    report = Report()
    table = read_tsv(("a\tb\nx\t" + "é" * (MAX_FIELD_CHARS + 1) + "\n1\t2\n").encode("utf-8"), "o.tsv", report, ["a"])
    assert [p.line for p in report.problems] == [2]
    assert table is not None and table.rows == [["1", "2"]]


@pytest.mark.parametrize("seed", range(6))
def test_scores_parsed_once_per_distinct_string_as_to_numeric_parses_the_column(seed):
    from evalcore.io.assemble import _numbers

    rng = random.Random(seed)
    pool = ["0", "1", "-0", "100", " 3 ", "1.5", "1e400", "nan", "-inf", "x", "1,5", "9007199254740993",
            "0.1", "2.50", "+7", "1e-320", ""]
    if seed % 2:
        pool = [p for p in pool if p.strip().lstrip("+-").isdigit()]  # integers only: int64 result
    values = [rng.choice(pool) for _ in range(rng.randint(1, 400))]
    for dtype in (object, str):
        col = pd.Series(values, dtype=dtype, index=range(5, 5 + len(values)), name="score")
        want = pd.to_numeric(col, errors="coerce")
        got = _numbers(col)
        assert got.dtype == want.dtype and got.index.equals(want.index) and got.name == want.name
        assert got.to_numpy().tobytes() == want.to_numpy().tobytes()
    with_missing = pd.Series(values[:3] + [None], dtype=object)
    assert _numbers(with_missing).equals(pd.to_numeric(with_missing, errors="coerce"))


@pytest.mark.parametrize("n_rows", [0, 1, 7])
def test_file_column_is_the_one_a_list_of_the_name_gives(n_rows):
    from evalcore.io.assemble import frame_from_table

    data = ("a\tb\n" + "x\ty\n" * n_rows).encode()
    table = read_tsv(data, "dir/f ü.tsv", Report(), ["a"])
    assert table is not None and (table._arrays is not None or n_rows == 0)
    df = frame_from_table(table, ["a", "b"])
    want = pd.DataFrame({"a": ["x"] * n_rows})
    want["_file"] = ["dir/f ü.tsv"] * n_rows
    assert df["_file"].dtype == want["_file"].dtype
    assert df["_file"].tolist() == want["_file"].tolist() and df["_line"].tolist() == list(range(2, 2 + n_rows))


@pytest.mark.parametrize("body, columnar", [
    ("x\ty\n\t\n1\t2\n", True),      # a row of empty fields (a line of tabs) is a row
    ("\t\n\t\n", True),
    ("x\ty\n\t\n\n1\t2\n", False),   # ... a blank line is not: the row reader skips it
    ("x\ty\n1\t2\n\n", False),
])
def test_rows_of_empty_fields_and_blank_lines(body, columnar):
    data = ("h1\th2\n" + body).encode("utf-8")
    header, rows, lines = _reference(data)
    report = Report()
    table = read_tsv(data, "f.tsv", report, [])
    assert report.problems == [] and table is not None
    assert (table._arrays is not None) == columnar
    assert table.rows == rows and table.lines == lines


@pytest.mark.parametrize("bad", [b"", b"\xe9", b"\xc3", b"\xed\xa0\x80"])
def test_ascii_files_are_read_by_column_and_invalid_utf8_still_reported(bad):
    """A file of ASCII bytes skips Arrow's UTF-8 check (it is UTF-8 as a whole) and reads as csv
    reads it; one invalid byte sequence anywhere still gets the row reader's message and line."""
    rng = random.Random(len(bad))
    ascii_words = [w for w in WORDS if w.isascii()]
    lines = ["a\tb\tc"] + ["\t".join(rng.choice(ascii_words) for _ in range(3)) for _ in range(50)]
    if bad:
        lines[30] = lines[30] + "x"
    data = "\n".join(lines).encode() + b"\n"
    if bad:
        at = data.index(b"x\n")
        data = data[:at] + bad + data[at + 1:]
    report = Report()
    table = read_tsv(data, "t.tsv", report, [])
    if not bad:
        assert table is not None and table._arrays is not None and report.ok
        header, rows, starts = _reference(data)
        assert table.columns == header and table.rows == rows and table.lines == starts
    else:
        assert table is None and not report.ok
        assert [(p.line, p.message.split(";")[0]) for p in report.errors] == [
            (31, f"is not valid UTF-8 (byte 0x{bad[0]:02x})")]
