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
