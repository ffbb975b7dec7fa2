"""Hostile or careless input files: runaway quotes, hostile zips,
messages that name file and line.

Every expectation is worked out by hand from the small files written in each test; the
hostile zips are built here with :mod:`zipfile` and, where the standard library cannot write
them (encryption, a wrong CRC), by patching the bytes of a valid archive.
"""
from __future__ import annotations

import contextlib
import io
import struct
import zipfile

import pytest

from conftest import shared
from evalcore.io import FileSource, load_collection
from evalcore.io.text import read_tsv
from evalcore.core.problems import DataError, Report

SEG = "lp\tseg_id\tsource\n" + "".join(f"es-en\t{i}\tfuente {i}\n" for i in range(1, 7))
REF = "lp\tseg_id\tref_id\ttext\n" + "".join(f"es-en\t{i}\tA\tsource {i}\n" for i in range(1, 7))


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def run_cli(*args):
    """The CLI in this process (as ``python -m evalcore``): returncode, stdout, stderr."""
    from types import SimpleNamespace

    from evalcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


# =====================================================================================
# item 1: a quote that opens a field and never closes
# =====================================================================================
# line 4 holds an unquoted text that begins with a quotation mark (common in real TSVs)
RUNAWAY_OUT = ("lp\tsystem\tseg_id\ttext\n"
               "es-en\ts1\t1\tsource 1\n"
               "es-en\ts1\t2\tsource 2\n"
               "es-en\ts1\t3\t\"Quoted\" she said, and more\n"
               "es-en\ts1\t4\t\"Hello world\n"
               "es-en\ts1\t5\tsource 5\n"
               "es-en\ts1\t6\tsource 6\n")


def test_runaway_quote_reported_with_opening_line(tmp_path):
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": RUNAWAY_OUT})
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    errs = [p for p in exc.value.report.errors if p.file == "outputs.tsv"]
    assert len(errs) == 1, exc.value.report
    err = errs[0]
    # the quote opens on physical line 5 (header = line 1) and swallows lines 6-7
    assert err.line == 5
    assert "never closed" in err.message and "--quoting none" in err.message


def test_runaway_quote_closing_far_below_is_reported(tmp_path):
    # the quote on line 3 is closed by the first quote of line 5: lines 3-5 become one field
    out = ("lp\tsystem\tseg_id\ttext\n"
           "es-en\ts1\t1\tsource 1\n"
           "es-en\ts1\t2\t\"Hello\n"
           "es-en\ts1\t3\tsource 3\n"
           "es-en\ts1\t4\tsay \"hi\" now\n"
           "es-en\ts1\t5\tsource 5\n"
           "es-en\ts1\t6\tsource 6\n")
    rep = Report()
    read_tsv(out.encode(), "outputs.tsv", rep, ["system", "seg_id", "text"], ["lp"])
    (err,) = rep.errors
    assert err.line == 3 and "line 5" in err.message


def test_runaway_quote_read_unquoted_keeps_every_line(tmp_path):
    rep = Report()
    table = read_tsv(RUNAWAY_OUT.encode(), "outputs.tsv", rep, ["system", "seg_id", "text"], ["lp"],
                     quoting="none")
    assert rep.ok
    assert table.col("text") == ["source 1", "source 2", "\"Quoted\" she said, and more",
                                 "\"Hello world", "source 5", "source 6"]
    assert table.lines == [2, 3, 4, 5, 6, 7]
    # through the loader and the CLI
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": RUNAWAY_OUT})
    ds = load_collection(folder, quoting="none")["es-en"]
    assert ds.sys_texts()["s1"][3] == "\"Hello world"
    res = run_cli("validate", folder)
    assert res.returncode == 2 and "outputs.tsv, line 5" in res.stderr
    res = run_cli("validate", folder, "--quoting", "none")
    assert res.returncode == 0, res.stderr


def test_properly_quoted_fields_still_parse():
    # RFC 4180: a quoted field may hold tabs, doubled quotes and line breaks
    text = ("seg_id\ttext\n"
            "1\t\"a\tb\"\n"
            "2\t\"say \"\"hi\"\"\"\n"
            "3\t\"two\nlines\"\n"
            "4\tplain\n")
    rep = Report()
    table = read_tsv(text.encode(), "x.tsv", rep, ["seg_id", "text"])
    assert rep.ok, rep
    assert table.col("text") == ["a\tb", "say \"hi\"", "two\nlines", "plain"]
    assert table.lines == [2, 3, 4, 6]


@pytest.mark.parametrize("folder", ["wmt24_esa", "wmt21_ted_mqm"])
def test_shared_rfc4180_files_load_unchanged(folder):
    # these files hold legitimate quoted fields (a quote doubled inside, tabs in texts)
    path = shared(folder)
    import csv

    for fname in ("segments.tsv", "references.tsv"):
        raw = (path / fname).read_bytes()
        rep = Report()
        table = read_tsv(raw, fname, rep, ["seg_id"])
        assert rep.ok, rep
        with open(path / fname, encoding="utf-8", newline="") as fh:
            expected = list(csv.reader(fh, delimiter="\t"))[1:]
        assert table.rows == [r for r in expected if r]


# =====================================================================================
# item 7: hostile zips
# =====================================================================================
PLAIN_FILES = {"src.txt": b"uno\ndos\n", "ref.A.txt": b"one\ntwo\n", "sys.x.txt": b"one\ntoo\n"}


def zip_bytes(files, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return buf.getvalue()


def test_zip_with_corrupt_crc_is_a_clean_error(tmp_path):
    data = bytearray(zip_bytes(PLAIN_FILES, zipfile.ZIP_STORED))
    # flip one byte of sys.x.txt's stored content: its CRC no longer matches
    pos = data.index(b"one\ntoo\n")
    data[pos] ^= 0x20
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(bytes(data), "crc.zip")
    (err,) = exc.value.report.errors
    assert err.file == "crc.zip" and "'sys.x.txt'" in err.message and "CRC" in err.message
    (tmp_path / "crc.zip").write_bytes(bytes(data))
    res = run_cli("validate", tmp_path / "crc.zip")
    assert res.returncode == 2 and "Traceback" not in res.stderr and "sys.x.txt" in res.stderr


def test_zip_with_encrypted_member_is_a_clean_error():
    data = bytearray(zip_bytes(PLAIN_FILES))
    # set the "encrypted" flag bit of ref.A.txt in its local header and central directory entry
    for sig, flag_off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = 0
        while (pos := data.find(sig, start)) >= 0:
            name_len = struct.unpack_from("<H", data, pos + (26 if sig == b"PK\x03\x04" else 28))[0]
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if bytes(data[name_at:name_at + name_len]) == b"ref.A.txt":
                data[pos + flag_off] |= 0x01
            start = pos + 4
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(bytes(data), "enc.zip")
    (err,) = exc.value.report.errors
    assert "'ref.A.txt'" in err.message and "encrypted" in err.message


def test_zip_with_unsupported_compression_is_a_clean_error():
    data = bytearray(zip_bytes(PLAIN_FILES, zipfile.ZIP_STORED))
    # compression method 99 (AES, not readable by Python) for every member
    for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        start = 0
        while (pos := data.find(sig, start)) >= 0:
            struct.pack_into("<H", data, pos + off, 99)
            start = pos + 4
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(bytes(data), "aes.zip")
    errs = exc.value.report.errors
    assert {e.message.split("'")[1] for e in errs} == set(PLAIN_FILES)
    assert all("compression" in e.message for e in errs)


def test_zip_of_many_small_members_limited_by_overall_ratio():
    # 60 members of 100 KB of one repeated byte: each compresses ~1000x but is under 1 MB,
    # so a per-member check of large members never sees them; overall 6 MB from ~6 KB
    files = {"src.txt": b"a\n"} | {f"extra/m{i}.txt": b"x" * 100_000 for i in range(60)}
    data = zip_bytes(files)
    assert len(data) < 30_000
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(data, "many.zip")
    (err,) = exc.value.report.errors
    assert "zip bomb" in err.message and "overall" in err.message


def test_zip_declared_sizes_not_trusted():
    # a member that declares 10 bytes but expands to 3 MB: the bytes read are counted
    big = b"y" * 3_000_000
    data = bytearray(zip_bytes({"src.txt": b"a\n", "sys.x.txt": big}))
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (pos := data.find(sig, start)) >= 0:
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if bytes(data[name_at:name_at + 9]) == b"sys.x.txt":
                struct.pack_into("<I", data, pos + off, 10)
            start = pos + 4
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(bytes(data), "liar.zip", max_total_bytes=1_000_000)
    (err,) = exc.value.report.errors
    # Python stops unpacking at the declared size, so the lie surfaces as a CRC mismatch;
    # the pre-check that trusted declared sizes let it through
    assert "'sys.x.txt'" in err.message and "CRC" in err.message


def test_zip_total_counted_while_reading():
    files = {"src.txt": b"a\n"} | {f"m{i}.txt": bytes(range(256)) * 400 for i in range(5)}  # 5 x 102,400 B
    data = zip_bytes(files)
    FileSource.from_zip(data, "ok.zip", max_total_bytes=600_000)  # 512,002 bytes fit
    with pytest.raises(DataError) as exc:
        FileSource.from_zip(data, "big.zip", max_total_bytes=400_000)
    assert any("over the 400,000-byte limit" in e.message for e in exc.value.report.errors)


# =====================================================================================
# item 8: messages that name the file and the line
# =====================================================================================
def test_malformed_extra_file_names_file_and_line(tmp_path):
    good = {"segments.tsv": SEG, "references.tsv": REF}
    folder = write(tmp_path / "ok", good | {"extra_notes.tsv": "seg_id\tnote\n1\tfine\n2\talso fine\n"})
    ds = load_collection(folder)["es-en"]
    assert ds.extras["notes"].to_dict("records") == [{"seg_id": "1", "note": "fine"},
                                                     {"seg_id": "2", "note": "also fine"}]
    folder = write(tmp_path / "bad", good | {"extra_notes.tsv": "seg_id\tnote\n1\tfine\n2\tone\ttoo many\n"})
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    (err,) = exc.value.report.errors
    assert (err.file, err.line) == ("extra_notes.tsv", 3) and "3 fields" in err.message


def test_latin1_scores_file_gives_an_encoding_message(tmp_path):
    from evalcore.metrics.byo import read_scores

    f = tmp_path / "my_scores.tsv"
    f.write_bytes("metric\tsystem\tseg_id\tscore\nmétrica\ts1\t1\t0.5\n".encode("latin-1"))
    with pytest.raises(DataError) as exc:
        read_scores(f)
    (err,) = exc.value.report.errors
    assert (err.file, err.line) == ("my_scores.tsv", 2) and "UTF-8" in err.message
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF,
                                    "outputs.tsv": REF.replace("ref_id", "system")})
    res = run_cli("score", folder, "--scores", f, "--metrics", "bleu")
    assert res.returncode == 2 and "my_scores.tsv, line 2" in res.stderr and "Traceback" not in res.stderr


def test_score_prints_warnings_and_refuses_without_references(tmp_path):
    out = "lp\tsystem\tseg_id\ttext\n" + "".join(f"es-en\ts1\t{i}\tsource {i}\n" for i in range(1, 6))
    folder = write(tmp_path / "warn", {"segments.tsv": SEG, "references.tsv": REF, "outputs.tsv": out})
    res = run_cli("score", folder, "--metrics", "bleu", "--level", "system")
    assert res.returncode == 0, res.stderr
    assert "covers 5 of 6 segments" in res.stderr  # the loader's warning
    folder = write(tmp_path / "norefs", {"segments.tsv": SEG, "outputs.tsv": out})
    res = run_cli("score", folder, "--metrics", "bleu")
    assert res.returncode == 2 and "no reference" in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


JUD_HEAD = "lp\tsystem\tseg_id\trater\tjudgement\tscore\n"


def test_exact_duplicate_judgements_warned_repeats_kept(tmp_path):
    jud = JUD_HEAD + ("es-en\tA\t1\tr1\tda\t70\n"
                      "es-en\tA\t1\tr1\tda\t70\n"    # line 3: an exact copy of line 2
                      "es-en\tA\t1\tr1\tda\t80\n"    # a repeat with another score: legitimate
                      "es-en\tA\t2\tr2\tda\t50\n")
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "judgements.tsv": jud})
    ds = load_collection(folder)["es-en"]
    assert len(ds.judgements) == 4  # kept: identical rows may be real repeats
    dup = [w for w in ds.warnings if "identical" in w.message]
    assert len(dup) == 1 and dup[0].file == "judgements.tsv" and dup[0].line == 3
    assert "lines 2, 3" in dup[0].message


@pytest.mark.parametrize("bad", ["1e308", "-2e9", "inf", "nan"])
def test_absurd_or_non_finite_score_reported(tmp_path, bad):
    from evalcore.metrics.byo import read_scores
    from evalcore.core.problems import MAX_ABS_SCORE

    assert MAX_ABS_SCORE == 1e9
    jud = JUD_HEAD + f"es-en\tA\t1\tr1\tda\t70\nes-en\tA\t2\tr1\tda\t{bad}\n"
    folder = write(tmp_path / "d", {"segments.tsv": SEG, "references.tsv": REF, "judgements.tsv": jud})
    with pytest.raises(DataError) as exc:
        load_collection(folder)
    (err,) = exc.value.report.errors
    assert err.file == "judgements.tsv" and err.line == 3 and bad in err.message
    with pytest.raises(DataError) as exc:
        read_scores(f"metric\tsystem\tseg_id\tscore\nm\ts1\t1\t0.5\nm\ts1\t2\t{bad}\n")
    (err,) = exc.value.report.errors
    assert err.line == 3 and bad in err.message
    # the limit itself is accepted
    ok = JUD_HEAD + "es-en\tA\t1\tr1\tda\t1e9\nes-en\tA\t2\tr1\tda\t-1e9\n"
    load_collection(write(tmp_path / "ok", {"segments.tsv": SEG, "references.tsv": REF, "judgements.tsv": ok}))
