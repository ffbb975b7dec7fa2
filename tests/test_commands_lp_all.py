"""``--lp all`` and ``--tokenize`` on the references, comprehension and experts commands
(every command runs over a whole campaign, with an ``lp`` column; the tokenizer follows the target
language unless chosen, and is in the signatures).

Oracle: sacreBLEU's multi-reference corpus BLEU with the tokenizer named here (Post 2018's
recommendation: ja → ja-mecab, else 13a), computed in the test.
"""
from __future__ import annotations

import io

import pandas as pd
import pytest
import sacrebleu
from conftest import SAMPLE, shared

from evalcore.cli import main
from evalcore.io import load_collection, write_tidy

N = 15  # segments per language pair: enough for corpus BLEU, fast


@pytest.fixture(scope="module")
def two_pairs(tmp_path_factory):
    """en-cs and en-ja slices of WMT24, each with a second reference set (one MT system's output
    renamed 'refB', so leave-one-out has two human-reference sets to hold out)."""
    coll = load_collection(shared("wmt24_esa"))
    folder = write_tidy([coll[lp].subset(seg_ids=coll[lp].seg_ids[:N]) for lp in ("en-cs", "en-ja")],
                        tmp_path_factory.mktemp("camp"))
    keep = {name: pd.read_csv(folder / f"{name}.tsv", sep="\t", dtype=str, keep_default_na=False)
            for name in ("references", "outputs")}
    outs = keep["outputs"]
    first = outs.groupby("lp")["system"].first()
    extra = outs[[s == first[lp] for lp, s in zip(outs["lp"], outs["system"])]]
    keep["references"] = pd.concat([keep["references"], extra.drop(columns="system").assign(ref_id="refB")])
    keep["outputs"] = outs[[s != first[lp] for lp, s in zip(outs["lp"], outs["system"])]]
    for name, df in keep.items():
        df.to_csv(folder / f"{name}.tsv", sep="\t", index=False)
    return folder


def _loo_bleu(ds, held: str, tok: str) -> float:
    """sacreBLEU corpus BLEU of reference set ``held`` against the other reference sets."""
    refs = {r: dict(zip(g["seg_id"], g["text"])) for r, g in ds.references.groupby("ref_id")}
    segs = ds.seg_ids
    others = [[refs[r][s] for s in segs] for r in refs if r != held]
    return sacrebleu.corpus_bleu([refs[held][s] for s in segs], others, tokenize=tok).score


def test_references_lp_all_follows_each_target_language(two_pairs, tmp_path, capsys):
    out = tmp_path / "loo.tsv"
    assert main(["references", str(two_pairs), "--lp", "all", "--bootstrap", "0", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "en-ja: tokenizer ja-mecab" in err and "en-cs: tokenizer 13a" in err
    table = pd.read_csv(out, sep="\t", keep_default_na=False)
    assert table.columns[0] == "lp" and list(dict.fromkeys(table["lp"])) == ["en-cs", "en-ja"]
    coll = load_collection(two_pairs)
    for lp, tok in (("en-cs", "13a"), ("en-ja", "ja-mecab")):
        rows = table[(table["lp"] == lp) & (table["kind"] == "human")].set_index("candidate")
        assert rows["signature"].str.contains(f"tok:{tok}").all()
        for held in ("refA", "refB"):
            assert rows.loc[held, "mean"] == pytest.approx(_loo_bleu(coll[lp], held, tok), abs=1e-4)
    # one pair alone gives the same rows; --tokenize overrides the default and says so
    one = tmp_path / "ja.tsv"
    assert main(["references", str(two_pairs), "--lp", "en-ja", "--bootstrap", "0", "--tokenize", "char",
                 "--out", str(one)]) == 0
    assert "tokenizer char (chosen" in capsys.readouterr().err
    ja = pd.read_csv(one, sep="\t", keep_default_na=False).set_index("candidate")
    assert ja["signature"].str.contains("tok:char").all()
    assert ja.loc["refA", "mean"] == pytest.approx(_loo_bleu(coll["en-ja"], "refA", "char"), abs=1e-4)


def test_experts_and_comprehension_take_lp_all_and_tokenize(capsys, tmp_path):
    # the sample is one language pair: --lp all runs it once, with the lp column and the same rows
    assert main(["experts", str(SAMPLE), "--lp", "all", "--gold", "expert", "--criterion", "adequacy",
                 "--out-prefix", str(tmp_path / "all_")]) == 0
    assert main(["experts", str(SAMPLE), "--gold", "expert", "--criterion", "adequacy",
                 "--out-prefix", str(tmp_path / "one_")]) == 0
    for name in ("raters", "curves", "rankings"):
        a = pd.read_csv(tmp_path / f"all_{name}.tsv", sep="\t", keep_default_na=False)
        b = pd.read_csv(tmp_path / f"one_{name}.tsv", sep="\t", keep_default_na=False)
        assert a.columns[0] == "lp" and set(a["lp"]) == {"es-en"}
        pd.testing.assert_frame_equal(a, b)
    capsys.readouterr()
    assert main(["comprehension", str(SAMPLE), "--lp", "all", "--bootstrap", "50", "--metrics", "bleu",
                 "--tokenize", "char"]) == 0
    out = capsys.readouterr().out
    corr = pd.read_csv(io.StringIO(out.split("\n\n")[-1]), sep="\t", comment="#", keep_default_na=False)
    assert corr.columns[0] == "lp"
    assert corr.loc[corr["measure"] == "bleu", "signature"].str.contains("tok:char").all()
    assert (corr.loc[corr["kind"] == "human", "signature"] == "human").all()
