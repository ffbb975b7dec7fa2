"""Reading comprehension (Callison-Burch 2009, §5.3): a hand-worked example, the validation of
comprehension.tsv (file, line, problem, all at once), the round trip and the sample's lesson."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import SAMPLE
from evalcore.analysis.comprehension import correlations, results
from evalcore.io import load_dataset, write_tidy
from evalcore.core.problems import DataError

SEGMENTS = "lp\tseg_id\tdoc_id\tsource\nxx-en\t1\td1\ta\nxx-en\t2\td1\tb\nxx-en\t3\td2\tc\n"
REFS = "lp\tseg_id\tref_id\ttext\n" + "".join(f"xx-en\t{i}\tref\tr{i}\n" for i in (1, 2, 3))
OUTS = "lp\tsystem\tseg_id\ttext\n" + "".join(f"xx-en\t{s}\t{i}\t{s}{i}\n" for s in ("A", "B") for i in (1, 2, 3))
# Hand-worked: A: q1 = (1 + 0)/2 = 0.5, q2 = 1, q3 = 0.5  -> (0.5 + 1 + 0.5)/3 = 66.67 %
#              B: q1 = 0, q2 = (1 + 1)/2 = 1, q3 unanswered -> (0 + 1)/2 = 50 %
#              ref (control): 1, 1, 1 -> 100 %
COMP = """lp\tsystem\tdoc_id\tquestion_id\trater\tcorrect\tquestion\tanswer
xx-en\tA\td1\tq1\tr1\t1\tWho?\tthe mayor
xx-en\tA\td1\tq1\tr2\t0\tWho?\tthe king
xx-en\tA\td1\tq2\tr1\t1\tWhy?\train
xx-en\tA\td2\tq3\tr3\t0.5\tWhere?\tnear town
xx-en\tB\td1\tq1\tr3\t0\tWho?\tnobody
xx-en\tB\td1\tq2\tr4\t1\tWhy?\train
xx-en\tB\td1\tq2\tr5\t1\tWhy?\tthe rain
xx-en\tref\td1\tq1\tr6\t1\tWho?\tthe mayor
xx-en\tref\td1\tq2\tr6\t1\tWhy?\train
xx-en\tref\td2\tq3\tr7\t1\tWhere?\tin town
"""


def _folder(tmp_path, comp: str = COMP):
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    for name, text in (("segments", SEGMENTS), ("references", REFS), ("outputs", OUTS), ("comprehension", comp)):
        (d / f"{name}.tsv").write_text(text, encoding="utf-8")
    return d


def test_hand_worked_percentages(tmp_path):
    ds = load_dataset(_folder(tmp_path))
    t = results(ds, n_boot=0).set_index("system")
    assert t.loc["A", "pct_correct"] == pytest.approx(200 / 3)
    assert t.loc["B", "pct_correct"] == pytest.approx(50.0)
    assert t.loc["ref", "pct_correct"] == pytest.approx(100.0)
    assert t.loc["ref", "kind"] == "reference" and t.loc["A", "kind"] == "system"
    assert (t.loc["A", "n_questions"], t.loc["A", "n_answers"]) == (3, 4)
    assert (t.loc["B", "n_questions"], t.loc["B", "n_answers"]) == (2, 3)
    # Table 3 layout: the control row first, then systems by % correct
    assert list(results(ds, n_boot=0)["system"]) == ["ref", "A", "B"]


def test_bootstrap_over_questions_matches_a_literal_resampling(tmp_path):
    ds = load_dataset(_folder(tmp_path))
    t = results(ds, n_boot=400, seed=7).set_index("system")
    # literal: questions q1, q2, q3 with per-question grades; resample question indices
    grades = {"A": [0.5, 1.0, 0.5], "B": [0.0, 1.0, np.nan]}
    draws = np.random.default_rng(7).integers(0, 3, size=(400, 3))
    for s, g in grades.items():
        g = np.array(g)
        means = [np.nanmean(g[d]) if np.isfinite(g[d]).any() else np.nan for d in draws]
        lo, hi = np.nanquantile(means, [0.025, 0.975])
        assert t.loc[s, "ci_lo"] == pytest.approx(100 * lo) and t.loc[s, "ci_hi"] == pytest.approx(100 * hi)
    assert t.loc["ref", "ci_lo"] == t.loc["ref", "ci_hi"] == 100.0


def test_validation_reports_every_problem_with_lines(tmp_path):
    bad = COMP.replace("xx-en\tA\td1\tq2\tr1\t1\t", "xx-en\tA\td1\tq2\tr1\tyes\t") \
              .replace("xx-en\tB\td1\tq1\tr3\t0\t", "xx-en\tB\td9\tq1\tr3\t0\t") \
              .replace("xx-en\tB\td1\tq2\tr4\t1\t", "xx-en\tZ\td1\tq2\tr4\t1.5\t")
    bad += "xx-en\tA\td1\tq1\tr1\t1\tWho?\tagain\n"
    with pytest.raises(DataError) as err:
        load_dataset(_folder(tmp_path, bad))
    msgs = [(p.file, p.line, p.message) for p in err.value.report.errors]
    text = "\n".join(f"{f}:{line}: {m}" for f, line, m in msgs)
    assert all(f == "comprehension.tsv" for f, _, _ in msgs), text
    assert any(line == 4 and "non-numeric" in m and "'yes'" in m for _, line, m in msgs), text
    assert any(line == 7 and "outside 0..1" in m for _, line, m in msgs), text
    assert any(line == 6 and "'d9'" in m for _, line, m in msgs), text
    assert any(line == 7 and "'Z'" in m for _, line, m in msgs), text
    assert any(line == 12 and "duplicate answer" in m and "line 2" in m for _, line, m in msgs), text


def test_missing_columns_and_round_trip(tmp_path):
    with pytest.raises(DataError, match="missing column"):
        load_dataset(_folder(tmp_path, "system\tdoc_id\tcorrect\nA\td1\t1\n"))
    ds = load_dataset(_folder(tmp_path))
    out = write_tidy(ds, tmp_path / "copy")
    back = load_dataset(out)
    a = results(ds, n_boot=0)
    b = results(back, n_boot=0)
    pd.testing.assert_frame_equal(a, b)


def test_correlations_against_scipy(tmp_path):
    ds = load_dataset(SAMPLE)
    t = results(ds, n_boot=0)
    corr = correlations(ds, t, ["bleu"]).set_index("measure")
    mt = t[t["kind"] == "system"].set_index("system")["pct_correct"]
    # adequacy: mean over segments of the mean over raters, computed here from the raw rows
    j = ds.judgements[ds.judgements["judgement"] == "adequacy"]
    adq = j.groupby(["system", "seg_id"])["score"].mean().groupby("system").mean()
    x = mt.to_numpy(float)
    assert corr.loc["adequacy", "pearson"] == pytest.approx(stats.pearsonr(x, adq[mt.index].to_numpy())[0])
    assert corr.loc["adequacy", "kendall"] == pytest.approx(stats.kendalltau(x, adq[mt.index].to_numpy())[0])
    import sacrebleu

    refs = ds.ref_texts()
    bleu = {s: sacrebleu.corpus_bleu(texts, [refs[r] for r in ds.ref_ids]).score for s, texts in ds.sys_texts().items()}
    assert corr.loc["bleu", "spearman"] == pytest.approx(stats.spearmanr(x, [bleu[s] for s in mt.index])[0])
    assert corr.loc["bleu", "n_systems"] == len(mt) == 7


def test_sample_high_bleu_wrong_meaning_scores_low():
    ds = load_dataset(SAMPLE)
    t = results(ds, n_boot=0).set_index("system")
    assert t.loc["ref-A", "kind"] == "reference" and t.loc["ref-A", "pct_correct"] == 100
    assert t["n_questions"].min() == 9  # three documents x three questions, every system answered
    import sacrebleu

    refs = ds.ref_texts()
    bleu = {s: sacrebleu.corpus_bleu(texts, [refs[r] for r in ds.ref_ids]).score for s, texts in ds.sys_texts().items()}
    # pleonastic has the second-highest BLEU but its readers get most questions wrong
    assert bleu["pleonastic"] > bleu["literal"] + 30 and bleu["pleonastic"] > bleu["synonyms"] + 60
    assert t.loc["pleonastic", "pct_correct"] < 35 < t.loc["literal", "pct_correct"]
    assert t.loc["synonyms", "pct_correct"] == 100


def test_cli_comprehension(tmp_path, capsys):
    from evalcore.cli import main

    out = tmp_path / "t3.tsv"
    assert main(["comprehension", str(_folder(tmp_path)), "--bootstrap", "50", "--metrics", "", "--out", str(out)]) == 0
    assert "Table 3" in capsys.readouterr().out
    assert list(pd.read_csv(out, sep="\t")["system"]) == ["ref", "A", "B"]
    (tmp_path / "nocomp").mkdir()
    for name, text in (("segments", SEGMENTS), ("outputs", OUTS)):
        (tmp_path / "nocomp" / f"{name}.tsv").write_text(text, encoding="utf-8")
    assert main(["comprehension", str(tmp_path / "nocomp")]) == 2
    assert "no reading-comprehension answers" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["comprehension", "--help"], ["references", "--help"],
                                  ["experts", "--help"]])
def test_help_texts_format(argv, capsys):
    """argparse %-formats help texts: a bare % in one command's help breaks every --help."""
    from evalcore.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0 and "usage" in capsys.readouterr().out
