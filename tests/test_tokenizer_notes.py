"""What the CLI and the pages say about the tokenizer: the danda warning for Hindi (and the
other languages written with ।) under 13a, TER named apart (13a is a no-op for Tercom's
TER), and the SentencePiece (spBLEU) tokenizers of sacreBLEU 2.6 listed, refused with the
reason when their model is not on this machine (never downloaded)."""
from __future__ import annotations

import importlib.util
import os

import pytest
from sacrebleu.metrics import BLEU as SBLEU

from evalcore.cli import main
from evalcore.metrics.tokenize import SPM_TOKENIZERS, TOKENIZERS, check_tokenizer, tokenize

HYP = ["यह एक परीक्षण है।", "बारिश हो रही है।"]
REF = ["यह एक परीक्षण है।", "आज बारिश हो रही है।"]


def _hindi(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "segments.tsv").write_text("lp\tseg_id\tsource\nen-hi\t1\tThis is a test.\nen-hi\t2\tIt rains.\n",
                                           encoding="utf-8")
    (tmp_path / "references.tsv").write_text(
        "lp\tseg_id\tref_id\ttext\n" + "".join(f"en-hi\t{i}\tref\t{t}\n" for i, t in enumerate(REF, 1)),
        encoding="utf-8")
    (tmp_path / "outputs.tsv").write_text(
        "lp\tsystem\tseg_id\ttext\n" + "".join(f"en-hi\tsys\t{i}\t{t}\n" for i, t in enumerate(HYP, 1)),
        encoding="utf-8")
    return tmp_path


def test_13a_glues_the_danda_and_intl_splits_it():
    # the reason for the note, from sacreBLEU's own tokenizers
    assert tokenize("परीक्षण है।", "13a") == ("परीक्षण", "है।")
    assert tokenize("परीक्षण है।", "intl") == ("परीक्षण", "है", "।")
    assert SBLEU(tokenize="13a").corpus_score(HYP, [REF]).score != SBLEU(tokenize="intl").corpus_score(HYP, [REF]).score


def test_hindi_note_on_stderr_and_on_the_page(tmp_path, capsys):
    from evalcore.core.dataset import Dataset  # noqa: F401  (the page note takes a dataset)
    from evalcore.io import load_collection
    from evalcore.scoring.defaults import tokenizer_note

    data = _hindi(tmp_path / "d")
    out = tmp_path / "s.tsv"
    assert main(["score", str(data), "--metrics", "bleu,ter", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "danda" in err and "intl" in err, err
    line = next(x for x in err.splitlines() if "tokenizer 13a" in x)
    assert "for bleu" in line and "for bleu, ter" not in line and "ter: Tercom" in line
    ds = load_collection(data)["en-hi"]
    assert "danda" in tokenizer_note(ds) and "intl" in tokenizer_note(ds)
    assert "danda" not in tokenizer_note(ds, "intl")
    assert main(["score", str(data), "--metrics", "bleu", "--tokenize", "intl", "--out", str(out)]) == 0
    assert "danda" not in capsys.readouterr().err


def test_ter_alone_is_not_said_to_use_13a(tmp_path, capsys):
    data = _hindi(tmp_path / "d")
    assert main(["score", str(data), "--metrics", "ter", "--out", str(tmp_path / "s.tsv")]) == 0
    err = capsys.readouterr().err
    assert "for ter" not in err and "Tercom's own word splitting" in err


def test_spbleu_tokenizers_listed_and_refused_offline_with_the_reason(tmp_path, capsys):
    assert {"flores101", "flores200", "spm", "spBLEU-1K"} <= set(TOKENIZERS) == set(TOKENIZERS) | set(SPM_TOKENIZERS)
    if importlib.util.find_spec("sentencepiece") is None:
        pytest.skip("sentencepiece is not installed: the model-file message needs it")
    from evalcore.metrics.tokenize import _spm_model_path

    for name in SPM_TOKENIZERS:
        if os.path.exists(_spm_model_path(name)):
            continue  # the model is here: the tokenizer works (sacreBLEU's own code)
        with pytest.raises(ValueError, match="does not download"):
            check_tokenizer(name)
    if not os.path.exists(_spm_model_path("spm")):
        assert main(["score", str(_hindi(tmp_path / "d")), "--metrics", "bleu", "--tokenize", "spm",
                     "--out", str(tmp_path / "s.tsv")]) == 2
        assert "does not download" in capsys.readouterr().err


def test_compare_says_it_too(tmp_path, capsys):
    data = _hindi(tmp_path / "d")
    with open(data / "outputs.tsv", "a", encoding="utf-8") as fh:
        fh.write("".join(f"en-hi\tsys2\t{i}\t{t}\n" for i, t in enumerate(REF, 1)))
    assert main(["compare", str(data), "--a", "sys", "--b", "sys2", "--metrics", "bleu", "--human", "none",
                 "--out", str(tmp_path / "cmp")]) == 0
    err = capsys.readouterr().err
    assert "danda" in err and "intl" in err
