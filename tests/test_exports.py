"""Table exports: LaTeX escaping of every special character (hand-written expectations), a
booktabs table that pdflatex compiles (the Systems table's ▲/▼/≈ marks and missing values
included), numbers right-aligned; CSV downloads that pandas.read_csv reads as they are."""
import io
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from pages.common import latex_table


def _body(tex: str) -> list[str]:
    lines = tex.strip().split("\n")
    return lines[lines.index(next(x for x in lines if x.startswith(r"\begin{tabular}"))):]


def test_latex_table_escapes_everything():
    df = pd.DataFrame({"sys_name": ["a&b", "50% {x}", "\\cmd $y$ #1 ~ ^"], "score": [1.0, 0.5, 0.12345]})
    lines = _body(latex_table(df))
    assert lines[0] == r"\begin{tabular}{lr}" and lines[-1] == r"\end{tabular}"
    assert lines[1] == r"\toprule" and lines[3] == r"\midrule" and lines[-2] == r"\bottomrule"
    assert lines[2] == r"sys\_name & score \\"
    assert lines[4] == r"a\&b & 1.0000 \\"
    assert lines[5] == r"50\% \{x\} & 0.5000 \\"
    assert lines[6] == r"\textbackslash{}cmd \$y\$ \#1 \textasciitilde{} \textasciicircum{} & 0.1235 \\"


def _systems_like() -> pd.DataFrame:
    """The shape of the Systems page table: marks, NaN p-values, a missing CI, a hostile name."""
    return pd.DataFrame({
        "system": ["base_line", "sys-B", "Ünï & <x>\nrow"],
        "bleu": [30.1234, 31.5, np.nan],
        "bleu vs baseline": ["baseline", "▲ better", "≈ n.s."],
        "chrf vs baseline": ["baseline", "▼ worse", None],
        "p_value": [np.nan, 0.012, 0.4],
        "n_segments": [33, 33, 30],
        "note": ["nan", "ok", "ρ ≥ 0.5 ± 0.1 — “fine”"],
    })


def test_latex_systems_table_has_no_raw_unicode_marks_or_nan():
    tex = latex_table(_systems_like(), comment="bleu: nrefs:1|tok:13a\n\\end{document}")
    lines = _body(tex)
    assert lines[0] == r"\begin{tabular}{lrllrrl}"  # numbers right, text left
    for ch in "▲▼≈ρ≥±—“”":
        assert ch not in tex, ch
    assert "nan" not in tex.lower().replace("n.s.", "")
    assert r"$\blacktriangle$ better" in tex and r"$\blacktriangledown$ worse" in tex and r"$\approx$ n.s." in tex
    row3 = lines[6]
    assert row3.startswith(r"Ünï \& \textless{}x\textgreater{} row & -- & ")  # line break -> space, NaN -> --
    assert lines[4].split(" & ")[4] == "--" and lines[4].split(" & ")[6] == r"-- \\"
    # the comment cannot leave its % line (a line break in it would start live LaTeX)
    assert all(line.startswith("%") for line in tex.split("\n")[:2])
    assert "\\end{document}" not in "\n".join(x for x in tex.split("\n") if not x.startswith("%"))


def test_latex_table_compiles_with_pdflatex(tmp_path):
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no pdflatex (apt-get install texlive-latex-base texlive-latex-recommended); "
                    "the character checks above still run")
    doc = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n\\usepackage{amssymb}\n"
           "\\begin{document}\n" + latex_table(_systems_like(), comment="sig|tok:13a") + "\\end{document}\n")
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF-")
    assert "Missing character" not in (tmp_path / "t.log").read_text(errors="replace")


def test_csv_download_is_plain_csv_with_the_shape_shown():
    from pages.common import signatures_file, table_csv

    df = _systems_like()
    back = pd.read_csv(io.BytesIO(table_csv(df)))
    assert back.shape == df.shape and list(back.columns) == list(df.columns)
    assert back["bleu"].iloc[1] == 31.5 and back["system"].iloc[2] == df["system"].iloc[2]
    # a pivot with a named index and two-level columns: one header row, the index kept as columns
    wide = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=pd.Index(["=A1", "B"], name="system"),
                        columns=pd.MultiIndex.from_tuples([("bleu", "score"), ("chrf", "score")]))
    back = pd.read_csv(io.BytesIO(table_csv(wide)))
    assert back.shape == (2, 3) and list(back.columns) == ["system", "bleu / score", "chrf / score"]
    assert back["system"].tolist() == ["'=A1", "B"]
    sig = signatures_file("bleu: tok:13a\nchrf: nc:6", "x").decode()
    assert sig.splitlines() == ["Metric signatures of x.csv", "bleu: tok:13a", "chrf: nc:6"]


def test_whole_number_float_columns_print_without_decimals():
    df = pd.DataFrame({"system": ["a", "b", "c"], "rank": [1.0, 2.0, np.nan], "score": [1.0, 2.5, 3.0]})
    lines = _body(latex_table(df))
    assert lines[4:7] == [r"a & 1 & 1.0000 \\", r"b & 2 & 2.5000 \\", r"c & -- & 3.0000 \\"]
