"""evalcore.io.synth: deterministic synthetic datasets (story in the module docstring)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalcore.core.dataset import Dataset
from evalcore.io.synth import main, make_synthetic


@pytest.fixture(scope="module")
def medium() -> Dataset:
    return make_synthetic(400, 4, 8, seed=3)


def test_same_seed_same_content_hash_other_seed_differs():
    a = make_synthetic(60, 3, 4, seed=7)
    b = make_synthetic(60, 3, 4, seed=7)
    c = make_synthetic(60, 3, 4, seed=8)
    assert a.content_hash() == b.content_hash()
    assert a.content_hash() != c.content_hash()
    pd.testing.assert_frame_equal(a.outputs, b.outputs)
    pd.testing.assert_frame_equal(a.judgements, b.judgements)


def test_references_do_not_depend_on_the_number_of_systems():
    a = make_synthetic(50, 3, 2, seed=1)
    b = make_synthetic(50, 3, 6, seed=1)
    pd.testing.assert_frame_equal(a.references, b.references)
    pd.testing.assert_frame_equal(a.segments, b.segments)
    # the systems' hidden qualities are spread over the same range, so outputs do change
    assert not a.outputs["text"].equals(b.outputs["text"].iloc[:100].reset_index(drop=True))


def test_shapes(medium):
    d = medium
    assert isinstance(d, Dataset) and d.n_segments == 400
    assert d.seg_ids == [str(i) for i in range(1, 401)]
    assert d.ref_ids == ["ref-01", "ref-02", "ref-03", "ref-04"]
    assert d.systems == [f"sys-{k:02d}" for k in range(1, 9)]
    assert len(d.references) == 400 * 4 and (d.refs_per_segment() == 4).all()
    assert len(d.outputs) == 400 * 8
    assert len(d.judgements) == 400 * 8 * 2
    assert d.criteria == ["da"] and d.raters == ["rater1", "rater2"]
    assert d.judgements["score"].between(0, 100).all()
    for frame in (d.segments.rename(columns={"source": "text"}), d.references, d.outputs):
        assert (frame["text"].str.len() > 0).all()
        assert not frame["text"].str.contains(r"[\t\n]").any()
    assert set(d.extras["system_quality"]["system"]) == set(d.systems)
    # every cell a Python str (seg_id is str everywhere)
    assert all(isinstance(s, str) for s in d.outputs["seg_id"])


def test_mean_length_and_no_judgements_option():
    d = make_synthetic(500, 2, 1, seed=0, mean_len=12, judgements=False)
    lengths = d.references["text"].str.split().str.len()
    assert abs(lengths.mean() - 12) < 1.0
    assert lengths.min() >= 3
    assert d.judgements.empty and list(d.judgements.columns) == ["system", "seg_id", "rater", "judgement", "score"]


def test_vocab_size_bounds_the_vocabulary():
    d = make_synthetic(300, 2, 3, seed=0, vocab_size=90)
    words = set(" ".join(pd.concat([d.references["text"], d.outputs["text"]])).split())
    assert len(words) <= 90


def test_missing_ref_rate():
    d = make_synthetic(2000, 4, 1, seed=5, missing_ref_rate=0.3, judgements=False)
    per_seg = d.refs_per_segment()
    assert per_seg.min() >= 1 and per_seg.max() == 4
    missing = 1 - len(d.references) / (2000 * 4)
    # a segment losing all four (p = 0.3**4) gets one back: expected rate 0.3 - 0.3**4 / 4
    assert abs(missing - (0.3 - 0.3 ** 4 / 4)) < 0.02
    assert (d.refs_per_segment() < 4).any()
    assert len(make_synthetic(50, 4, 1, missing_ref_rate=0.0).references) == 200


def test_references_are_paraphrases_not_copies(medium):
    refs = [medium.ref_texts()[r] for r in medium.ref_ids]
    for a, b in itertools.combinations(refs, 2):
        score = sacrebleu.corpus_bleu(a, [b]).score
        assert 10 < score < 60
        assert np.mean([x != y for x, y in zip(a, b)]) > 0.9


def test_better_systems_get_higher_bleu_and_higher_human_scores(medium):
    d = medium
    quality = d.extras["system_quality"].set_index("system")["quality"]
    refs = [d.ref_texts()[r] for r in d.ref_ids]
    bleu = pd.Series({s: sacrebleu.corpus_bleu(t, refs).score for s, t in d.sys_texts().items()})
    human = d.judgements.groupby("system")["score"].mean()
    assert stats.spearmanr(quality[bleu.index], bleu).statistic > 0.9
    assert stats.spearmanr(quality[human.index], human).statistic > 0.9
    # pairwise: a system clearly better (quality + 0.1) always has the higher corpus BLEU
    for a, b in itertools.permutations(quality.index, 2):
        if quality[a] >= quality[b] + 0.1:
            assert bleu[a] > bleu[b], (a, b)
    # segment level: sentence BLEU agrees with the synthetic DA, as real metrics do, imperfectly
    sys0 = d.systems[0]
    sb = [sacrebleu.sentence_bleu(h, [r[i] for r in refs]).score for i, h in enumerate(d.sys_texts()[sys0])]
    da = d.judgements[(d.judgements["system"] == sys0) & (d.judgements["rater"] == "rater1")]["score"]
    assert 0.2 < stats.pearsonr(sb, da).statistic < 0.95


def test_raters_differ_in_bias(medium):
    m = medium.judgements.groupby("rater")["score"].mean()
    assert 2 < m["rater1"] - m["rater2"] < 8


def test_bad_arguments_raise():
    for kwargs in ({"n_segments": 0, "n_refs": 1, "n_systems": 1}, {"n_segments": 5, "n_refs": 1, "n_systems": 1,
                                                                     "missing_ref_rate": 1.0},
                   {"n_segments": 5, "n_refs": 1, "n_systems": 1, "vocab_size": 10}):
        with pytest.raises(ValueError):
            make_synthetic(**kwargs)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 30), r=st.integers(0, 5), s=st.integers(0, 4), seed=st.integers(0, 2**31),
       rate=st.sampled_from([0.0, 0.5, 0.9]))
def test_shapes_property(n, r, s, seed, rate):
    d = make_synthetic(n, r, s, seed=seed, missing_ref_rate=rate, mean_len=5)
    assert d.n_segments == n and len(d.outputs) == n * s and len(d.judgements) == 2 * n * s
    if r:
        assert (d.refs_per_segment() >= 1).all() and (d.refs_per_segment() <= r).all()
    else:
        assert d.references.empty
    assert d.content_hash() == make_synthetic(n, r, s, seed=seed, missing_ref_rate=rate, mean_len=5).content_hash()


def test_cli_writes_tidy_tsvs(tmp_path, capsys):
    assert main(["--segments", "20", "--refs", "3", "--systems", "2", "--out", str(tmp_path), "--seed", "4"]) == 0
    d = make_synthetic(20, 3, 2, seed=4)
    for name, frame in (("segments", d.segments), ("references", d.references), ("outputs", d.outputs)):
        got = pd.read_csv(tmp_path / f"{name}.tsv", sep="\t", keep_default_na=False, dtype=str)
        assert set(got["lp"]) == {"xx-en"}
        pd.testing.assert_frame_equal(got.drop(columns="lp"), frame.astype(str), check_dtype=False)
    j = pd.read_csv(tmp_path / "judgements.tsv", sep="\t", keep_default_na=False, dtype={"seg_id": str})
    assert len(j) == len(d.judgements) and np.allclose(j["score"], d.judgements["score"])
    assert main(["--segments", "0", "--refs", "1", "--systems", "1", "--out", str(tmp_path / "x")]) == 2
    try:
        from evalcore.io import load_dataset
    except ImportError:
        return
    loaded = load_dataset(str(tmp_path))
    assert loaded.n_segments == 20 and len(loaded.outputs) == 40 and len(loaded.judgements) == 80
