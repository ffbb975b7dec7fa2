"""Long segments: the quadratic alignment metrics (TER, WER, ROUGE-L/W/S)
refuse a segment with a text over MAX_ALIGN_TOKENS tokens (NaN, left out of the corpus score,
named in a warning) instead of running for minutes; below the cap nothing changes (sacreBLEU's
TER and a literal Levenshtein computed here)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from sacrebleu.metrics import TER as SacreTER

import evalcore.metrics.base as base
from evalcore.cli import main
from evalcore.metrics.base import MAX_ALIGN_TOKENS, get_metric

CAP = 40  # the semantic tests lower the cap (same code path, fast); one test uses the real one


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr(base, "MAX_ALIGN_TOKENS", CAP)
    return CAP

random.seed(16)
SHORT = {  # seg_id -> (source, reference A, reference B, sysA, sysB)
    "1": ("uno", "the cat sat on the mat", "a cat was on the mat", "the cat is on the mat", "cat mat"),
    "3": ("tres", "it rains in spring", "spring brings rain", "it rains in the spring", "rain spring it"),
}


def _long(n: int) -> str:
    return " ".join(f"w{random.randrange(300)}" for _ in range(n))


def _write(folder, long_words: int):
    """A tidy dataset: segment 2's output of sysA has ``long_words`` words."""
    folder.mkdir()
    segs = dict(SHORT)
    segs["2"] = ("dos", "short reference two", "another reference two", _long(long_words), "short output two")
    order = ["1", "2", "3"]
    (folder / "segments.tsv").write_text("lp\tseg_id\tsource\n" + "".join(f"es-en\t{s}\t{segs[s][0]}\n" for s in order))
    (folder / "references.tsv").write_text("lp\tseg_id\tref_id\ttext\n" + "".join(
        f"es-en\t{s}\t{r}\t{segs[s][k]}\n" for s in order for r, k in (("refA", 1), ("refB", 2))))
    (folder / "outputs.tsv").write_text("lp\tsystem\tseg_id\ttext\n" + "".join(
        f"es-en\t{y}\t{s}\t{segs[s][k]}\n" for y, k in (("sysA", 3), ("sysB", 4)) for s in order))
    return segs, order


def _levenshtein(a, b) -> int:
    """Literal dynamic programme (unit costs)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def test_20000_words_are_refused_before_any_alignment(tmp_path):
    """The real cap: a 20,000-word output (minutes and gigabytes per pair before the cap) is
    refused without any quadratic kernel touching it: the work is counted (tests/kernel_spy.py),
    the seconds and megabytes are measured by benchmarks/bench_long_segments.py."""
    from kernel_spy import spy_quadratic

    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_result, similarity_tensors_many

    _write(tmp_path / "d", 20000)
    ds = load_dataset(str(tmp_path / "d"))
    ids = ["ter", "wer", "rouge-l", "rouge-1", "rouge-s*", "meteor", "gtm-2"]
    with spy_quadratic() as seen:
        res = score_result(ds, ids, level="segment")
        seg = res.table
        similarity_tensors_many(ds, ids, cache_dir=False)
    assert seen.n_calls > 0 and seen.longest <= MAX_ALIGN_TOKENS  # the short texts were aligned, not the long one
    long = seg[(seg.system == "sysA") & (seg.seg_id == "2")].set_index("metric")["score"]
    assert long.drop("rouge-1").isna().all() and np.isfinite(long["rouge-1"])  # ROUGE-1 is linear: scored
    (w,) = res.warnings
    assert w.startswith("ter, wer, rouge-l, rouge-s*, meteor, gtm-2: 1 segment(s) refused") and "sysA: 20000 tokens" in w
    assert f"longer than {MAX_ALIGN_TOKENS} tokens" in w


def test_rouge_family_kernel_leaves_texts_over_the_cap_unaligned():
    """The ROUGE family run computes the linear overlaps of every pair but no skip-bigram list
    and no LCS/WLCS programme for a pair with a text over ``cap`` (those columns stay 0, where
    the true LCS is not); under the cap every column equals the scalar definitions."""
    from collections import Counter

    from evalcore.metrics.kernels.dp import lcs_length
    from evalcore.metrics.rouge import _family_kernel, skip_bigrams
    from evalcore.metrics.kernels.dp import _wlcs_increments

    c = [1, 2, 3, 1, 2, 4, 5, 1] * 5  # 40 tokens
    r = [2, 3, 1, 2, 5, 4, 1, 1] * 5
    flat = np.asarray(r + c, np.int64)
    offs = np.asarray([0, len(r), len(r) + len(c)], np.int64)
    args = (flat, offs, np.asarray([0], np.int64), np.asarray([1], np.int64), np.asarray([0, 1], np.int64),
            np.asarray([1], np.int64), 10, _wlcs_increments(41, 1.2))
    uni = sum((Counter(c) & Counter(r)).values())
    bi = sum((Counter(zip(c, c[1:])) & Counter(zip(r, r[1:]))).values())
    full = _family_kernel(*args, 1000)[0]
    capped = _family_kernel(*args, 39)[0]
    assert full[0] == capped[0] == uni and full[1] == capped[1] == bi
    assert full[2] == sum((Counter(skip_bigrams(c)) & Counter(skip_bigrams(r))).values())
    assert full[3] == lcs_length(c, r) > 0
    assert capped[2] == capped[3] == capped[4] == 0  # refused before the quadratic work


@pytest.mark.parametrize("metric_id", ["ter", "wer", "rouge-l", "rouge-w", "rouge-s*"])
def test_long_segment_refused_and_reported(metric_id, tmp_path, small_cap):
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_result, similarity_tensors

    _write(tmp_path / "d", CAP + 1)
    ds = load_dataset(str(tmp_path / "d"))
    seg_res, sys_res = score_result(ds, [metric_id], level="segment"), score_result(ds, [metric_id], level="system")
    seg, sys_ = seg_res.table, sys_res.table
    tens = similarity_tensors(ds, metric_id, cache_dir=False)
    a2 = seg[(seg.system == "sysA") & (seg.seg_id == "2")]["score"]
    assert len(a2) == 1 and np.isnan(a2.iloc[0])
    others = seg[~((seg.system == "sysA") & (seg.seg_id == "2"))]["score"]
    assert np.isfinite(others).all()  # the other output of that segment is still scored
    assert np.isfinite(sys_["score"]).all()
    # the similarity tensors (QARLA pages) refuse the same output: its row of segment 2 is NaN
    a, k = tens.systems.index("sysA"), tens.seg_ids.index("2")
    assert np.isnan(tens.sys_ref[a, k]).all() and np.isnan(tens.loo_sys[a, k]).all()
    assert np.isfinite(tens.sys_ref[tens.systems.index("sysB"), k]).all()
    for res in (seg_res, sys_res):
        (w,) = res.warnings
        assert metric_id in w and "segment 2" in w and f"sysA: {CAP + 1} tokens" in w and f"{CAP} tokens" in w


def test_corpus_ter_leaves_refused_segment_out_like_sacrebleu(tmp_path, small_cap):
    """System-level TER of sysA = sacreBLEU's corpus TER over the segments that were not refused."""
    from evalcore.io import load_dataset
    from evalcore.metrics.engine import score_table

    segs, order = _write(tmp_path / "d", CAP + 1)
    ds = load_dataset(str(tmp_path / "d"))
    got = score_table(ds, ["ter"], level="system").set_index("system")["score"]
    kept = [s for s in order if s != "2"]
    ref = SacreTER().corpus_score([segs[s][3] for s in kept], [[segs[s][1] for s in kept], [segs[s][2] for s in kept]])
    assert got["sysA"] == pytest.approx(ref.score, abs=1e-9)
    ref_b = SacreTER().corpus_score([segs[s][4] for s in order], [[segs[s][1] for s in order], [segs[s][2] for s in order]])
    assert got["sysB"] == pytest.approx(ref_b.score, abs=1e-9)


@pytest.mark.parametrize("metric_id", ["ter", "wer"])
def test_reference_over_cap_refuses_segment_for_everyone(metric_id, small_cap):
    m = get_metric(metric_id)
    long_ref = _long(CAP + 5)
    assert np.isnan(m.sentence_score("a b c", ["a b", long_ref]))
    sim, loo = m.segment_block(["a b c", "a b"], ["a b", long_ref])
    assert np.isnan(sim).all() and np.isnan(loo).all()


def test_at_the_cap_values_unchanged(small_cap):
    """Exactly the cap: scored, and equal to sacreBLEU's TER / a literal WER; one more: NaN."""
    words = _long(CAP).split()
    cand = " ".join(words)
    ref = " ".join(words[: CAP // 2] + _long(CAP // 2).split())
    assert get_metric("ter").sentence_score(cand, [ref]) == pytest.approx(
        SacreTER().sentence_score(cand, [ref]).score, abs=1e-9)
    assert get_metric("wer").sentence_score(cand, [ref]) == pytest.approx(
        _levenshtein(cand.split(), ref.split()) / len(ref.split()), abs=1e-12)
    for mid in ("ter", "wer", "rouge-l"):
        assert np.isnan(get_metric(mid).sentence_score(cand + " extra", [ref]))
    assert np.isfinite(get_metric("per").sentence_score(cand + " extra", [ref]))  # linear: no cap


def test_cli_prints_the_refused_segments(tmp_path, capsys, small_cap):
    _write(tmp_path / "d", CAP + 1)
    assert main(["score", str(tmp_path / "d"), "--metrics", "ter,wer,bleu", "--level", "system"]) == 0
    err = capsys.readouterr().err
    assert "warning: ter, wer: 1 segment(s) refused" in err and "segment 2 (sysA" in err
    refused = next(line for line in err.splitlines() if "refused" in line)  # not the tokenizer note
    assert "bleu" not in refused.split("refused")[0]


def test_systems_page_says_which_segments_were_refused(tmp_path, workspace_home, small_cap):
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT
    from evalcore.io import workspace
    from evalcore.io import load_collection

    _write(tmp_path / "d", CAP + 1)
    workspace.save(load_collection(tmp_path / "d"), "long-seg")
    label = next(f"{m['name']} (saved {m.get('saved_at', '?')})" for m in workspace.list_saved())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in {"dataset_label": label, "dataset_select": label, "sys_metrics": ["ter", "bleu"], "sys_boot": 0}.items():
        at.session_state[k] = v
    at.run()
    at.switch_page("pages/systems.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    notes = [w.value for w in at.warning if "refused" in w.value]
    assert len(notes) == 1 and notes[0].startswith("ter") and "segment 2" in notes[0] and "sysA" in notes[0]


def test_ter_on_characters_refuses_a_paragraph_before_aligning():
    """``--tokenize char``: TER counts characters, so a paragraph over the cap is refused (NaN)
    without any alignment of it; a short text is still scored like sacreBLEU's TER on the same
    character tokens."""
    from kernel_spy import spy_quadratic

    ter = get_metric("ter", tokenize="char")
    para = " ".join(_long(400).split())  # about 1,600 characters
    ref = " ".join(_long(400).split())
    assert len(ter.tokens(para)) > MAX_ALIGN_TOKENS
    with spy_quadratic() as seen:
        assert np.isnan(ter.sentence_score(para, [ref]))
        assert np.isnan(ter.segment_stats([para], [[ref]])).all()
        sim, _ = ter.segment_block([para, "w1 w2"], [ref])
    assert seen.longest <= MAX_ALIGN_TOKENS and np.isnan(sim).all()
    short_c, short_r = "the cat sat", "a cat sat down"
    want = SacreTER().sentence_score(" ".join(ter.tokens(short_c)), [" ".join(ter.tokens(short_r))]).score
    assert ter.sentence_score(short_c, [short_r]) == pytest.approx(want, abs=1e-9)
