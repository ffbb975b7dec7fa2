"""docs/findings.md reproduces: scripts/check_findings.py re-runs the commands quoted there
and requires the numbers the document prints. Every quoted command is re-run by a check or
listed with the reason it is not. The WMT20 checks (Mathur et al. 2020, Tables 5-7, seconds)
run always; the compare section (about a minute) is marked slow and runs in CI too."""
from __future__ import annotations

import importlib.util
import sys

import pandas as pd
import pytest

from conftest import ROOT, shared


def _script():
    spec = importlib.util.spec_from_file_location("check_findings", ROOT / "scripts" / "check_findings.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_findings"] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


F = _script()


def test_quoted_commands_are_read_as_a_shell_would():
    doc = ("text\n```bash\nD=../data/x\nS=\"--metrics a,b --level system\"\n"
           "python -m evalcore correlate $D --lp en-de $S \\\n    --exclude A,B     # comment: 0.5\n"
           "# a comment line\nN=n; T=t\npython -m evalcore learn $N --eval $T\n```\n")
    assert F.quoted_commands(doc) == [
        "python -m evalcore correlate ../data/x --lp en-de --metrics a,b --level system --exclude A,B",
        "python -m evalcore learn n --eval t"]


def test_every_quoted_command_is_checked_or_has_a_reason():
    where, orphans = F.coverage()
    assert not orphans, orphans
    checked = {w for w in where.values() if w.startswith("checked")}
    assert {"checked: compare", "checked: mathur-t7", "checked: human-systems-cell", "checked: qarla-cases",
            "checked: metatask-wmt24", "checked: references-ende", "checked: human-systems-table",
            "checked: spans-encs", "checked: beer-news-ende", "checked: beer-ted-ende", "checked: qarla-26",
            "checked: search-ende", "checked: humanlike-news-ende", "checked: humanlike-news-ende-single",
            "checked: humanlike-news-ende-lr", "checked: search-ted-syntax"} <= checked
    # what is left unchecked: the neural runs (torch), a command that exits 2 by design, the syntactic searches
    left = [c for c, w in where.items() if w.startswith("not re-run")]
    assert all("minilm" in c or "humanlike" in c or "syntax" in c or c.startswith("python -c") for c in left), left


def test_a_changed_number_is_caught():
    shared("wmt20_mqm_scores")
    check = next(c for c in F.CHECKS if c.name == "mathur-t7")
    text = F.FINDINGS.read_text(encoding="utf-8")  # (unchanged, it passes: test_wmt20_tables_reproduce)
    assert F.run_check(check, text.replace("BLEU 0.672, sentBLEU 0.639", "BLEU 0.672, sentBLEU 0.640")) != []


@pytest.mark.parametrize("name", [c.name for c in F.CHECKS if c.data == "wmt20_mqm_scores"])
def test_wmt20_tables_reproduce(name):
    shared("wmt20_mqm_scores")
    check = next(c for c in F.CHECKS if c.name == name)
    assert F.run_check(check) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["compare", "human-systems-cell", "references-ende", "human-systems-table"])
# (about a minute each; the checks that take minutes run in the script only: check_findings.py --all)
def test_wmt21_sections_reproduce(name):
    shared("wmt21_news_mqm")
    check = next(c for c in F.CHECKS if c.name == name)
    assert F.run_check(check) == []


def test_neural_check_is_opt_in_and_reads_the_whole_da_program(capsys):
    """The neural findings are re-run only with --neural (torch, ~23 min the first time; CI does
    not run them): without it the script skips them, saying why; the DA program is found whole."""
    check = next(c for c in F.CHECKS if c.name == "neural-zhen")
    assert check.neural and check.runner is not None
    where, _ = F.coverage()
    assert all(w == "checked: neural-zhen (only with --neural; CI does not run it)"
               for c, w in where.items() if "minilm" in c or c.startswith("python -c"))
    code = F._da_snippet()
    assert code.startswith("import pandas as pd; from scipy import stats\n") and "/tmp/zhen_scores.tsv" in code
    compile(code, "<findings DA program>", "exec")  # the whole program, not its first line
    assert F.main(["--only", "neural-zhen"]) == 0
    assert "SKIP neural-zhen: a neural check, run only with --neural" in capsys.readouterr().out


def test_neural_check_fragments_find_the_table_they_were_made_from():
    """The neural check's sentences and table rows, built from synthetic command outputs holding
    findings.md's own numbers, are found in findings.md; one changed number is not."""
    import re

    text = F.FINDINGS.read_text(encoding="utf-8").replace("**", "")
    section = text.split("## Neural metrics out of the box")[1].split("\n## ")[0]
    rows = {m: [float(x.replace("−", "-")) for x in re.search(
        rf"^\| {re.escape(label)} \| (.*) \|$", section, re.M).group(1).split(" | ")]
        for m, label in F._NZ_LABELS.items()}

    def corr(i, n, groups=0):
        t = pd.DataFrame({"metric": list(rows), "value": [rows[m][i] for m in rows], "n": n, "n_groups": groups})
        return F.Run(t.to_csv(sep="\t", index=False), "", None)

    def runs(tmp, table):
        scores = tmp / "s.tsv"
        pd.DataFrame({"metric": ["bertscore:minilm"], "signature": [re.search(
            r"`(nrefs:1\|model:minilm@[^`]*)`", text).group(1)]}).to_csv(scores, sep="\t", index=False)
        score = F.Run("", "note: --judged-only: segments judged for mqm (650 of 1948 per system)\n", scores)
        da = F.Run("".join(f"{m} {table[m][4]} {table[m][5]}\n" for m in table), "", None)
        return [score, corr(0, 8), corr(1, 8), corr(2, 5200), corr(3, 5200, 634), da]

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        frags = F._neural(runs(Path(tmp), rows))
        flat = " ".join(text.split())
        assert [f for f in frags if " ".join(f.split()) not in flat] == []
        rows["chrf"][4] += 0.001
        frags = F._neural(runs(Path(tmp), rows))
        assert [f for f in frags if " ".join(f.split()) not in flat] != []
