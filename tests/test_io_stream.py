"""A TSV read from an open file (scanned in blocks, split by Arrow from the file) against the same
bytes read from memory, and both against Python's csv module: the same path taken (columnar or
row by row), the same header, rows, line numbers and problems. The scan block is made tiny so
that every boundary case (a BOM, the header's line break, two line breaks in a row, a quotation
mark, a NUL or CR byte, non-ASCII bytes) falls across blocks."""
from __future__ import annotations

import csv
import io
import random

import pytest

from evalcore.core.problems import Report
from evalcore.io import FileSource, load_collection
from evalcore.io import text as text_mod
from evalcore.io.text import read_tsv

PIECES = ["a", "b c", "ünï", "中文", "x'y", 'mid"quote', '"opens', "  ", "", "1.5", "\r", "\x00", "\n", "\t"]


def _random_file(rng: random.Random) -> bytes:
    n_cols = rng.randint(1, 4)
    head = "\t".join(f"h{j}" for j in range(n_cols))
    lines = [head] + ["\t".join(rng.choice(PIECES[:10]) for _ in range(n_cols)) for _ in range(rng.randint(0, 12))]
    text = "\n".join(lines) + rng.choice(["\n", "", "\n\n"])
    if rng.random() < 0.35:  # a stray character somewhere: CR, NUL, blank line, tab, quote
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(PIECES[6:]) + text[at:]
    data = text.encode("utf-8")
    if rng.random() < 0.1:
        data = data.replace("ü".encode(), b"\xfc")  # Latin-1: not UTF-8
    return (b"\xef\xbb\xbf" if rng.random() < 0.2 else b"") + data


def _read(data, quoting):
    report = Report()
    table = read_tsv(data, "f.tsv", report, [], quoting=quoting)
    if table is None:
        return None, [str(p) for p in report.problems]
    return (table._arrays is not None, table.columns, table.rows, table.lines), [str(p) for p in report.problems]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 22])
def test_an_open_file_reads_as_its_bytes_do(tmp_path, monkeypatch, block):
    monkeypatch.setattr(text_mod, "_SCAN_BLOCK", block)
    rng = random.Random(block)
    columnar = 0
    for trial in range(120):
        data = _random_file(rng)
        quoting = rng.choice(["csv", "none"])
        want = _read(data, quoting)
        path = tmp_path / "f.tsv"
        path.write_bytes(data)
        with path.open("rb", buffering=0) as fh:
            assert _read(fh, quoting) == want, (trial, data)
        assert _read(io.BytesIO(data), quoting) == want, (trial, data)
        columnar += bool(want[0] and want[0][0])
    assert columnar > 20  # the columnar path was taken often enough to be tested


@pytest.mark.parametrize("data", [
    b"h1\th2\nx\ty\n",                    # one row
    b"h1\th2\n",                          # a header only
    b"h1\th2",                            # a header without a line break
    b"\xef\xbb\xbfh1\th2\nx\ty\n",        # a byte-order mark
    b"h1\th2\n\t\nx\ty\n",                # a row of empty fields: kept (not a blank line)
    b"h1\th2\nx\ty\n\n1\t2\n",            # a blank line: row by row, skipped
    b"h1\th2\nx\ty\n\n",                  # a blank line at the end
])
def test_edge_files_read_as_csv_reads_them(tmp_path, monkeypatch, data):
    monkeypatch.setattr(text_mod, "_SCAN_BLOCK", 3)
    text = data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t", quotechar='"', strict=False))
    body = [(r, i + 1) for i, r in enumerate(rows) if i and r and not (len(r) == 1 and not r[0].strip())]
    path = tmp_path / "e.tsv"
    path.write_bytes(data)
    with path.open("rb", buffering=0) as fh:
        report = Report()
        table = read_tsv(fh, "e.tsv", report, [])
    assert report.problems == [] and table is not None
    assert table.columns == rows[0]
    assert table.rows == [r for r, _ in body]
    assert table.lines == [ln for _, ln in body]


def test_a_folder_loads_as_the_same_files_from_memory(tmp_path):
    """The tidy loader reads a folder's files from disk in blocks; the same files given as
    bytes (an upload) give the same datasets, content hashes and warnings."""
    rng = random.Random(5)
    segs = [f"s{i}" for i in range(40)]
    files = {
        "segments.tsv": "seg_id\tsource\n" + "".join(f"{s}\tsrc {s}\n" for s in segs),
        "references.tsv": "seg_id\tref_id\ttext\n" + "".join(f"{s}\tA\tref ü {s}\n" for s in rng.sample(segs, 40)),
        "outputs.tsv": "system\tseg_id\ttext\n" + "".join(f"{m}\t{s}\t{rng.choice(['out', '', ' x '])}\n"
                                                          for m in ("m1", "m2") for s in rng.sample(segs, 40)),
        "judgements.tsv": "system\tseg_id\tjudgement\tscore\n" + "".join(
            f"{m}\t{s}\tesa\t{rng.randint(0, 100)}\n" for m in ("m1", "m2") for s in rng.sample(segs, 38)),
    }
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    from_disk = load_collection(tmp_path)
    from_memory = load_collection(FileSource({k: v.encode() for k, v in files.items()}, "upload"))
    assert list(from_disk) == list(from_memory)
    for lp, ds in from_disk.items():
        other = from_memory[lp]
        assert ds.content_hash() == other.content_hash()
        assert [str(w) for w in ds.warnings] == [str(w) for w in other.warnings]
        assert len(ds.outputs) == 80 and len(ds.judgements) == 76


def test_longest_field_in_bytes_as_arrow_measures_it():
    """The field-length test of the columnar read (from each chunk's offsets) against Arrow's
    own ``binary_length``: chunked, sliced, empty, missing values, both string types."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from evalcore.io.text import _bytes_reach

    rng = random.Random(9)
    for trial in range(300):
        typ = rng.choice([pa.large_string(), pa.string()])
        chunks = []
        for _ in range(rng.randint(1, 4)):
            values = [rng.choice([None, "", "é" * rng.randint(0, 6), "x" * rng.randint(0, 12)])
                      for _ in range(rng.randint(0, 8))]
            arr = pa.array(values, typ)
            if len(arr) > 2 and rng.random() < 0.4:
                arr = arr.slice(1, len(arr) - 2)
            chunks.append(arr)
        col = pa.chunked_array(chunks, type=typ)
        longest = max([pc.max(pc.binary_length(c)).as_py() or 0 for c in chunks] + [0])
        for limit in (1, 5, 8, 12, 13):
            assert _bytes_reach(col, limit) == (longest >= limit), (trial, limit)


def test_arrow_reads_a_folder_through_its_own_file(tmp_path, monkeypatch):
    """A file on disk goes to Arrow's CSV reader as Arrow's own OSFile (never a Python file
    object nor wrapped Python bytes, which a pool thread may release at interpreter exit:
    evalcore.core.arrowfiles)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    seen, real = [], pacsv.read_csv
    monkeypatch.setattr(pacsv, "read_csv", lambda src, *a, **k: seen.append(src) or real(src, *a, **k))
    monkeypatch.setattr(pa, "py_buffer", lambda *a, **k: pytest.fail("Python bytes wrapped for Arrow"))
    (tmp_path / "segments.tsv").write_text("seg_id\tsource\n1\tuno\n2\tdos\n", encoding="utf-8")
    (tmp_path / "outputs.tsv").write_text("system\tseg_id\ttext\nm\t1\tone\nm\t2\ttwo\n", encoding="utf-8")
    coll = load_collection(tmp_path)
    assert len(next(iter(coll.values())).outputs) == 2
    assert len(seen) == 2 and all(isinstance(src, pa.OSFile) for src in seen), seen


def test_a_file_replaced_after_opening_is_read_as_opened(tmp_path):
    """The scan reads the file opened; when its path names another file by the time Arrow
    opens it (an atomic save in between), the opened file's bytes are read instead."""
    path = tmp_path / "f.tsv"
    path.write_bytes(b"a\tb\n1\t2\n3\t4\n")
    other = tmp_path / "g.tsv"
    other.write_bytes(b"a\tb\n9\t9\n")
    with path.open("rb", buffering=0) as fh:
        other.replace(path)  # the path names the new file; fh still reads the old one
        table = read_tsv(fh, "f.tsv", Report(), ["a", "b"])
    assert table is not None and table.rows == [["1", "2"], ["3", "4"]]


def test_a_file_changed_in_place_while_read_is_read_again_whole(tmp_path, monkeypatch):
    """A file written over in place after its scan (same inode, new size and time) is not split
    by Arrow from what the scan did not see: its bytes are read again, once, and parsed."""
    path = tmp_path / "f.tsv"
    path.write_bytes(b"a\tb\n1\t2\n")
    real = text_mod._scan_file

    def scan_then_change(fh):
        found = real(fh)
        with open(path, "r+b") as w:  # the same file, its header longer now
            w.write(b"abcd\tb\n5\t6\n7\t8\n")
        return found

    monkeypatch.setattr(text_mod, "_scan_file", scan_then_change)
    with path.open("rb", buffering=0) as fh:
        table = read_tsv(fh, "f.tsv", Report(), [])
    assert table is not None and table.columns == ["abcd", "b"] and table.rows == [["5", "6"], ["7", "8"]]
