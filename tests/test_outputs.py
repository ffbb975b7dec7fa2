"""Outputs: every command checks its output paths before any work
and exits 2 with a clear message; writes are atomic; CSV cells that a spreadsheet would run as
formulas are neutralised with a leading ' (OWASP), numbers and tool TSVs stay exact."""
from __future__ import annotations

import csv
import io
import os

import pandas as pd
import pytest

from conftest import SAMPLE
from evalcore.cli import main

# every command that writes files, with the option(s) naming them; {o} is the output path
COMMANDS = {
    "score": ["score", str(SAMPLE), "--metrics", "bleu", "--out", "{o}"],
    "correlate": ["correlate", str(SAMPLE), "--metrics", "bleu", "--human", "adequacy", "--out", "{o}"],
    "qarla": ["qarla", str(SAMPLE), "--metrics", "bleu", "--out", "{o}"],
    "qarla-cases": ["qarla", str(SAMPLE), "--metrics", "bleu", "--cases", "{o}"],
    "queen": ["queen", str(SAMPLE), "--set", "bleu", "--out", "{o}"],
    "queen-loo": ["queen", str(SAMPLE), "--set", "bleu", "--loo", "{o}"],
    "search": ["search", str(SAMPLE), "--metrics", "bleu,chrf", "--out", "{o}"],
    "judges": ["judges", str(SAMPLE), "--criterion", "adequacy", "--out-prefix", "{o}"],
    "learn": ["learn", str(SAMPLE), "--kind", "beer", "--no-save", "--json", "{o}"],
    "references": ["references", str(SAMPLE), "--out", "{o}"],
    "references-flags": ["references", str(SAMPLE), "--flags-out", "{o}"],
    "comprehension": ["comprehension", str(SAMPLE), "--out", "{o}"],
    "experts": ["experts", str(SAMPLE), "--gold", "expert", "--out-prefix", "{o}"],
}


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a command starts loading data."""
    import evalcore.io

    def boom(*a, **k):
        raise AssertionError("the command started its work before checking its outputs")
    monkeypatch.setattr(evalcore.io, "load_dataset", boom)
    monkeypatch.setattr(evalcore.io, "load_collection", boom)


def _bad_paths(tmp_path):
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    (tmp_path / "adir").mkdir()
    return {
        "missing folder": (str(tmp_path / "nope" / "out.tsv"), "does not exist"),
        "a folder": (str(tmp_path / "adir"), "is a folder"),
        "parent is a file": (str(a_file / "out.tsv"), "is not a folder"),
        "unwritable": ("/proc/evalcore-out.tsv", "cannot write"),
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", ["missing folder", "a folder", "parent is a file", "unwritable"])
def test_outputs_checked_before_any_work(command, case, tmp_path, no_work, capsys):
    path, expected = _bad_paths(tmp_path)[case]
    if case == "a folder" and command in ("judges", "experts"):
        path += os.sep  # a prefix naming a folder writes into it; a folder named like a file is the error
        os.mkdir(path + ("agreement.tsv" if command == "judges" else "raters.tsv"))
        expected = "is a folder"
    if case == "unwritable" and not os.path.isdir("/proc"):
        pytest.skip("needs /proc (Linux) for a folder nobody can write in")
    argv = [a.replace("{o}", path) for a in COMMANDS[command]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert "ERROR:" in err


def test_read_only_folder_is_refused_when_not_root(tmp_path, no_work, capsys):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root can write into read-only folders")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main(["score", str(SAMPLE), "--out", str(ro / "x.tsv")]) == 2
        assert "cannot write" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


def test_all_problems_listed_at_once(tmp_path, no_work, capsys):
    argv = ["queen", str(SAMPLE), "--set", "bleu", "--out", str(tmp_path / "a" / "o.tsv"),
            "--loo", str(tmp_path / "b" / "l.tsv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "2 problems with the output path(s); nothing was computed" in err
    assert str(tmp_path / "a") in err and str(tmp_path / "b") in err


def test_failed_write_leaves_old_file_and_no_temporary(tmp_path):
    from evalcore.core.export import atomic_write

    target = tmp_path / "out.tsv"
    target.write_text("old complete content\n")

    def half(fh):
        fh.write("half a ")
        raise RuntimeError("disk full")
    with pytest.raises(RuntimeError):
        atomic_write(target, half)
    assert target.read_text() == "old complete content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.tsv"]


def test_score_writes_same_tsv_as_before_and_csv_for_spreadsheets(tmp_path):
    """TSV outputs stay exact (pandas' own TSV of the same table, computed here); a .csv name
    gets comma-separated values."""
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_table

    tsv, csvp = tmp_path / "s.tsv", tmp_path / "s.csv"
    assert main(["score", str(SAMPLE), "--metrics", "bleu", "--level", "system", "--out", str(tsv)]) == 0
    assert main(["score", str(SAMPLE), "--metrics", "bleu", "--level", "system", "--out", str(csvp)]) == 0
    ds = load_dataset(str(SAMPLE))
    expected = score_table(ds, ["bleu"], level="system")
    expected.insert(0, "lp", ds.lp)  # every CLI table starts with the language pair
    assert tsv.read_text() == expected.to_csv(sep="\t", index=False)
    back = pd.read_csv(csvp)
    assert list(back.columns) == list(expected.columns)
    assert back["score"].tolist() == pytest.approx(expected["score"].tolist())


# ---------------------------------------------------------------------------------------------
# CSV formula neutralisation (OWASP "CSV Injection")
# ---------------------------------------------------------------------------------------------
HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)",
           "\t=1+1", "\r=1+1"]


def test_neutralise_cells_literal():
    from evalcore.core.export import neutralise_cell

    for s in HOSTILE:  # the OWASP rule written out literally: a ' before the text
        assert neutralise_cell(s) == "'" + s
    for s in ["plain", "a=b", " =1", "", "'=already"]:
        assert neutralise_cell(s) == s
    for s in ["-1", "+2.5", "-3e-4", "-.5"]:  # text that is a plain number: a number, not a formula
        assert neutralise_cell(s) == s
    for v in [-1, -0.5, float("nan"), None, True]:
        assert neutralise_cell(v) is v


def test_csv_download_neutralises_text_but_keeps_numbers():
    from pages.common import table_csv

    df = pd.DataFrame({"system": HOSTILE + ["ok"], "score": [-0.5, 1.0, -2.0, 0.0, 3.0, -1e-3, 7.0],
                       "=name": ["a"] * 7})
    text = table_csv(df).decode("utf-8")
    assert not text.startswith("#")  # the signatures are a download of their own
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == ["system", "score", "'=name"]
    for row, s, v in zip(rows[1:], df["system"], df["score"]):
        assert row[0] == ("'" + s if s != "ok" else "ok")
        assert float(row[1]) == v and not row[1].startswith("'")
    # no cell of the file begins with a formula character any more (except plain numbers)
    for row in rows[1:]:
        for cell in row:
            if cell[:1] in "=+-@\t\r":
                float(cell)


def test_cli_csv_output_neutralised_tsv_exact(tmp_path):
    from evalcore.core.export import write_table

    df = pd.DataFrame({"system": ["=1+1", "@x", "fine"], "score": [-1.5, 2.0, 0.25]})
    write_table(df, tmp_path / "t.csv")
    write_table(df, tmp_path / "t.tsv")
    rows = list(csv.reader(open(tmp_path / "t.csv", newline="", encoding="utf-8")))
    assert rows == [["system", "score"], ["'=1+1", "-1.5"], ["'@x", "2.0"], ["fine", "0.25"]]
    assert (tmp_path / "t.tsv").read_text() == "system\tscore\n=1+1\t-1.5\n@x\t2.0\nfine\t0.25\n"
