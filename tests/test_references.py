"""Reference quality (Callison-Burch 2009, §5.1): leave-one-out scores against sacreBLEU's
multi-reference corpus BLEU computed here, and the Detect MT check on a constructed case."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from conftest import shared

from evalcore.core.dataset import Dataset
from evalcore.io import load_dataset
from evalcore.analysis.references import detect_mt, leave_one_out


def _head(ds: Dataset, n: int) -> Dataset:
    keep = set(ds.seg_ids[:n])
    sel = lambda f: f[f["seg_id"].astype(str).isin(keep)].reset_index(drop=True)
    return Dataset(ds.name, ds.lp, sel(ds.segments), sel(ds.references), sel(ds.outputs), sel(ds.judgements))


@pytest.fixture(scope="module")
def news_ende():
    return _head(load_dataset(shared("wmt21_news_mqm"), lp="en-de"), 120)


@pytest.fixture(scope="module")
def mlqe_eten():
    return _head(load_dataset(shared("mlqe_pe_subset"), lp="et-en"), 150)


def _sacre_loo(ds: Dataset):
    """held-out r -> {candidate: sacreBLEU corpus BLEU against the other reference sets}."""
    refs, syss = ds.ref_texts(), ds.sys_texts()
    keep = [s for s in range(ds.n_segments) if all(refs[r][s] for r in ds.ref_ids)]
    out = {}
    for r in ds.ref_ids:
        streams = [[refs[o][s] for s in keep] for o in ds.ref_ids if o != r]
        out[r] = {r: sacrebleu.corpus_bleu([refs[r][s] for s in keep], streams).score}
        for name, texts in syss.items():
            assert all(texts[s] is not None for s in keep)
            out[r][name] = sacrebleu.corpus_bleu([texts[s] for s in keep], streams).score
    return out


@pytest.mark.parametrize("fixture", ["news_ende", "mlqe_eten"])
def test_leave_one_out_equals_sacrebleu_multi_reference(fixture, request):
    ds = request.getfixturevalue(fixture)
    assert len(ds.ref_ids) >= 2
    scores, summary = leave_one_out(ds, ["bleu"])
    want = _sacre_loo(ds)
    for held, cands in want.items():
        for cand, v in cands.items():
            got = scores[(scores["held_out"] == held) & (scores["candidate"] == cand)]["score"]
            assert len(got) == 1
            assert got.iloc[0] == pytest.approx(v, abs=1e-9), (held, cand)
    # MT rows: mean / sd / min / max over the held-out reference sets
    for name in ds.systems:
        vals = np.array([want[r][name] for r in ds.ref_ids])
        row = summary[summary["candidate"] == name].iloc[0]
        assert row["kind"] == "mt" and row["n_held_out"] == len(ds.ref_ids)
        assert row["mean"] == pytest.approx(vals.mean(), abs=1e-9)
        assert row["min"] == pytest.approx(vals.min(), abs=1e-9)
        assert row["max"] == pytest.approx(vals.max(), abs=1e-9)
        assert row["sd"] == pytest.approx(vals.std(ddof=1), abs=1e-9)
    for r in ds.ref_ids:
        row = summary[summary["candidate"] == r].iloc[0]
        assert row["kind"] == "human" and row["mean"] == pytest.approx(want[r][r], abs=1e-9)


def test_bootstrap_ci_brackets_the_score(mlqe_eten):
    _, summary = leave_one_out(mlqe_eten, ["bleu"], n_boot=50, seed=3)
    hum = summary[summary["kind"] == "human"]
    assert len(hum) == 2
    assert (hum["ci_lo"] <= hum["mean"] + 1e-9).all() and (hum["mean"] <= hum["ci_hi"] + 1e-9).all()
    assert (hum["ci_hi"] > hum["ci_lo"]).all()
    assert summary.loc[summary["kind"] == "mt", "ci_lo"].isna().all()
    # literal bootstrap of the first translation's corpus BLEU with the same draws, by sacreBLEU
    ds = mlqe_eten
    refs = ds.ref_texts()
    a, b = ds.ref_ids
    draws = np.random.default_rng(3).integers(0, ds.n_segments, size=(50, ds.n_segments))
    vals = [sacrebleu.corpus_bleu([refs[a][i] for i in d], [[refs[b][i] for i in d]]).score for d in draws]
    lo, hi = np.quantile(vals, [0.025, 0.975])
    row = hum.set_index("candidate").loc[a]
    assert row["ci_lo"] == pytest.approx(lo, abs=1e-9) and row["ci_hi"] == pytest.approx(hi, abs=1e-9)


def _tiny() -> Dataset:
    seg = pd.DataFrame({"seg_id": ["1", "2", "3"], "source": ["a", "b", "c"]})
    human_a = ["the cat sat quietly on the old mat", "it rained all day in the town",
               "she gave him a small red book"]
    human_b = ["a cat was sitting on the old rug", "rain fell the whole day over the city",
               "she handed him a little red book"]
    mt = ["the cat is sitting on the old carpet today", "all day it was raining in the city centre",
          "she has given to him the small book red"]
    human_c = [mt[0], mt[1], human_a[2].replace("gave", "offered")]  # C copied MT for segments 1 and 2
    refs = pd.DataFrame([(s, r, t) for r, texts in (("A", human_a), ("B", human_b), ("C", human_c))
                         for s, t in zip(["1", "2", "3"], texts)], columns=["seg_id", "ref_id", "text"])
    outs = pd.DataFrame([(n, s, t) for n, texts in (("mt1", mt), ("mt2", human_b[::-1]))
                         for s, t in zip(["1", "2", "3"], texts)], columns=["system", "seg_id", "text"])
    return Dataset("tiny", "xx-en", seg, refs, outs)


def test_detect_mt_flags_a_copied_reference_with_evidence():
    ds = _tiny()
    segs, overall = detect_mt(ds, "bleu", gap=20, share=0.5)
    c = segs[segs["ref_id"] == "C"].set_index("seg_id")
    for s, i in (("1", 0), ("2", 1)):
        assert c.loc[s, "closest_system"] == "mt1" and c.loc[s, "flagged"]
        assert c.loc[s, "to_mt"] == pytest.approx(100.0)
        want = max(sacrebleu.sentence_bleu(ds.ref_texts()["C"][i], [ds.ref_texts()[o][i]]).score for o in ("A", "B"))
        assert c.loc[s, "to_refs"] == pytest.approx(want, abs=1e-9)
        assert c.loc[s, "gap"] == pytest.approx(100.0 - want, abs=1e-9)
        assert c.loc[s, "mt_output"] == c.loc[s, "reference"]
    over = overall.set_index("ref_id")
    assert over.loc["C", "segments_flagged"] == 2 and over.loc["C", "flagged"]
    assert not over.loc["A", "flagged"] and not over.loc["B", "flagged"]
    # a higher threshold than any gap flags nothing
    segs2, overall2 = detect_mt(ds, "bleu", gap=101, share=0.5)
    assert not segs2["flagged"].any() and not overall2["flagged"].any()


def test_one_reference_set_is_a_clear_error():
    ds = _tiny().with_references(["A"])
    with pytest.raises(ValueError, match="at least two reference sets"):
        leave_one_out(ds)


def test_cli_references(tmp_path, capsys):
    from evalcore.cli import main
    from evalcore.io import write_tidy

    folder = write_tidy(_tiny(), tmp_path / "tiny")
    out = tmp_path / "loo.tsv"
    assert main(["references", str(folder), "--bootstrap", "0", "--share", "0.5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Detect MT" in text and "leave-one-out" in text
    table = pd.read_csv(out, sep="\t")
    assert set(table["candidate"]) == {"A", "B", "C", "mt1", "mt2"}
    assert table["signature"].str.contains("tok:13a").all() and table["signature"].str.contains("nrefs:2").all()
    assert main(["references", str(folder), "--out", str(tmp_path / "nope" / "x.tsv")]) == 2  # checked first


def test_leave_one_out_metric_by_metric_equals_all_at_once(news_ende):
    """The page draws the figure's metric first and scores the others after: the results of each
    metric alone, combined, equal one call with every metric (bootstrap CIs included)."""
    from evalcore.analysis.references import combine_loo

    ms = ["chrf", "bleu", "ter"]
    scores, summary = leave_one_out(news_ende, ms, n_boot=30)
    s2, m2 = combine_loo([leave_one_out(news_ende, [m], n_boot=30) for m in ms])
    pd.testing.assert_frame_equal(s2, scores)
    pd.testing.assert_frame_equal(m2, summary)
    assert m2.attrs == summary.attrs and summary.attrs["segments"]


def test_detect_mt_sentence_and_corpus_values_equal_sacrebleu(news_ende):
    """Detect MT reads sentence and corpus scores off one statistics pass per (reference,
    system) pair: both equal sacreBLEU's single-reference sentence and corpus BLEU."""
    ds = news_ende
    segs, overall = detect_mt(ds, "bleu", gap=20)
    refs, syss = ds.ref_texts(), ds.sys_texts()
    pos = {s: i for i, s in enumerate(ds.seg_ids)}
    for row in segs.head(12).itertuples():
        i = pos[row.seg_id]
        want = sacrebleu.sentence_bleu(refs[row.ref_id][i], [syss[row.closest_system][i]]).score
        assert row.to_mt == pytest.approx(want, abs=1e-9)
    keep = sorted(pos[s] for s in set(segs["seg_id"]))
    for row in overall.itertuples():
        texts = syss[row.closest_system]
        idx = [i for i in keep if texts[i] is not None]
        hyp = [refs[row.ref_id][i] for i in idx]
        assert row.corpus_to_mt == pytest.approx(sacrebleu.corpus_bleu(hyp, [[texts[i] for i in idx]]).score, abs=1e-9)
        best = max(sacrebleu.corpus_bleu(hyp, [[refs[o][i] for i in idx]]).score for o in ds.ref_ids if o != row.ref_id)
        assert row.corpus_to_refs == pytest.approx(best, abs=1e-9)
