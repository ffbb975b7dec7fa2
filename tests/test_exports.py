"""Table exports: LaTeX escaping of every special character (hand-written expectations)."""
import pandas as pd

from pages.common import latex_table


def test_latex_table_escapes_everything():
    df = pd.DataFrame({"sys_name": ["a&b", "50% {x}", "\\cmd $y$ #1 ~ ^"], "score": [1.0, 0.5, 0.12345]})
    tex = latex_table(df)
    lines = tex.strip().split("\n")
    assert lines[0] == r"\begin{tabular}{ll}" and lines[-1] == r"\end{tabular}"
    assert lines[2] == r"sys\_name & score \\"
    assert lines[4] == r"a\&b & 1.0000 \\"
    assert lines[5] == r"50\% \{x\} & 0.5000 \\"
    assert lines[6] == r"\textbackslash{}cmd \$y\$ \#1 \textasciitilde{} \textasciicircum{} & 0.1235 \\"
