"""Both levels from one statistics pass, metric by metric (``score --level both``).

Oracles: sacreBLEU's own corpus and sentence scores (BLEU, chrF, TER, 1e-9) computed here; each
metric's own ``segment_stats`` called alone on the whole data (the family pass in chunks must
give the same rows, exactly); the engine's level-by-level ``score_table`` (itself pinned to
sacreBLEU and literal implementations in test_engine.py and the metric tests) for every
lexical metric, bit-identical; and the command's single-level outputs for the streamed file.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER

from evalcore.io import write_tidy
from evalcore.scoring import defaults
from evalcore.metrics import engine, levels
from evalcore.metrics.base import get_metric, metric_ids
from evalcore.io.synth import make_synthetic


def _lexical():
    from evalcore.syntax.metrics import is_syntactic

    from evalcore.neural import PREFIXES as NEURAL

    # learned models (learned:NAME) are not lexical metrics, and other tests may register some;
    # nor are the neural ids (bertscore:minilm, cosine:minilm are listed by their provider)
    return [m for m in metric_ids() if not m.startswith(("learned:",) + NEURAL) and not is_syntactic(m)
            and get_metric(m).meta.needs_text]


@pytest.fixture(scope="module")
def synth():
    # some references missing, so reference lists differ between segments
    return make_synthetic(10, 3, 3, seed=3, missing_ref_rate=0.2)


def test_both_levels_equal_sacrebleu(synth):
    ref_t, sys_t = synth.ref_texts(), synth.sys_texts()
    out = {m.id: o for m, o in levels.iter_score_levels(synth, ["bleu", "chrf", "ter"])}
    for mid, S in (("bleu", SBLEU), ("chrf", SCHRF), ("ter", STER)):
        sysrows = out[mid]["system"].set_index("system")["score"]
        seg = out[mid]["segment"]
        for name, texts in sys_t.items():
            keep = [s for s in range(synth.n_segments)
                    if texts[s] is not None and any(ref_t[r][s] is not None for r in synth.ref_ids)]
            hyps = [texts[s] for s in keep]
            refs = [[ref_t[r][s] for r in synth.ref_ids if ref_t[r][s] is not None] for s in keep]
            if len({len(r) for r in refs}) == 1:  # sacreBLEU's corpus score needs equal reference counts
                streams = [list(x) for x in zip(*refs)]
                assert sysrows[name] == pytest.approx(S().corpus_score(hyps, streams).score, abs=1e-9)
            mine = seg[seg["system"] == name]["score"].to_numpy()
            want = [S().sentence_score(h, r).score for h, r in zip(hyps, refs)]
            np.testing.assert_allclose(mine, want, rtol=0, atol=1e-9)
            assert list(seg[seg["system"] == name]["seg_id"]) == [synth.seg_ids[s] for s in keep]


@pytest.mark.parametrize("chunk", [1, 3, 1000])
def test_family_pass_equals_each_metric_alone(synth, chunk):
    """The family pass in chunks of segments gives every metric's own whole-data rows."""
    cands_all, _ = engine.scoring_plan(synth, None, True)  # human translations too: other reference lists
    items, pos = levels.plan_items(synth, cands_all)
    c = [x for _, _, cs, _ in items for x in cs]
    r = [x for _, _, _, rs in items for x in rs]
    for family in (["bleu", "bleu-2", "bleus"], ["nist-1", "nist-3", "nist-5"], ["chrf", "chrf++"],
                   ["charngram-f1", "charngram-p6", "charngram-r3"], ["gtm-1", "gtm-2"]):
        ms = [get_metric(m) for m in family]
        for m in ms:
            engine._prepare(m, synth)
        got = levels.family_stats(ms, c, r, pos, chunk_segments=chunk)
        for m, st in zip(ms, got):
            want = np.asarray(m.segment_stats(c, r), dtype=float)
            assert np.array_equal(st, want, equal_nan=True), (m.id, chunk)


def test_every_lexical_metric_equals_engine_level_by_level(synth):
    ids = _lexical()
    assert len(ids) >= 40
    seen = []
    for m, out in levels.iter_score_levels(synth, ids, include_references=True):
        seen.append(m.id)
        for lv in ("system", "segment"):
            want = engine.score_table(synth, [m.id], level=lv, include_references=True)
            pd.testing.assert_frame_equal(out[lv], want, check_exact=True)
    assert seen == ids  # the order asked for, families interleaved or not


def test_single_level_and_order_with_repeats(synth):
    ids = ["ter", "bleu", "chrf", "bleu-2", "bleu"]  # a family split by other metrics, a repeat
    got = pd.concat([o["segment"] for _, o in levels.iter_score_levels(synth, ids, level="segment")],
                    ignore_index=True)
    pd.testing.assert_frame_equal(got, engine.score_table(synth, ids, level="segment"), check_exact=True)
    with pytest.raises(ValueError, match="both"):
        list(levels.iter_score_levels(synth, ids, level="corpus"))


def test_cli_level_both_streams_what_the_single_levels_write(synth, tmp_path, monkeypatch):
    from evalcore.cli import main

    folder = write_tidy(synth, tmp_path / "d")
    out = {}
    for lv in ("system", "segment", "both"):
        out[lv] = tmp_path / f"{lv}.tsv"
        assert main(["score", str(folder), "--metrics", "bleu,nist-2,rouge-l", "--level", lv,
                     "--out", str(out[lv])]) == 0
    both = pd.read_csv(out["both"], sep="\t", dtype=str, keep_default_na=False)
    sysd = pd.read_csv(out["system"], sep="\t", dtype=str, keep_default_na=False)
    segd = pd.read_csv(out["segment"], sep="\t", dtype=str, keep_default_na=False)
    want = pd.concat([pd.concat([sysd[sysd.metric == m], segd[segd.metric == m]])
                      for m in ("bleu", "nist-2", "rouge-l")], ignore_index=True)
    pd.testing.assert_frame_equal(both, want)
    assert list(both.columns) == ["lp", "metric", "system", "seg_id", "score", "n_segments", "signature"]
    # the BLEU system rows carry sacreBLEU's corpus signature (eff:no), its segment rows eff:yes
    b = both[both.metric == "bleu"]
    assert b[b.seg_id == ""]["signature"].str.contains("eff:no").all()
    assert b[b.seg_id != ""]["signature"].str.contains("eff:yes").all()
    # a .csv name: the spreadsheet CSV, same rows
    csv = tmp_path / "both.csv"
    assert main(["score", str(folder), "--metrics", "bleu,nist-2,rouge-l", "--level", "both", "--out", str(csv)]) == 0
    assert len(pd.read_csv(csv)) == len(both)


def test_interrupted_stream_keeps_the_old_file(synth, tmp_path, monkeypatch):
    """A failure after the first metric was written leaves the previous file untouched."""
    from evalcore.cli import main
    from evalcore.metrics.ter import TER

    folder = write_tidy(synth, tmp_path / "d")
    dest = tmp_path / "scores.tsv"
    dest.write_text("old\n")

    def boom(self, cands, refs):
        raise ValueError("disk on fire")

    monkeypatch.setattr(TER, "segment_stats", boom)
    assert main(["score", str(folder), "--metrics", "bleu,ter", "--level", "both", "--out", str(dest)]) != 0
    assert dest.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".scores")] == []


def test_char_ngram_hits_batched_equal_per_block():
    """The chunk-batched overlap counts equal the per-block ones (empty strings, no candidate
    n-gram, CJK, several references); the per-block counts are pinned to the literal
    Counter implementation in test_metrics_lexical.py."""
    from evalcore.metrics.charngram import _BLOCK_CACHE, _block_hits, _block_hits_many

    blocks = [([("a", "bc"), ("",), ("ab",)], [("abc", "d")]), ([("",)], [("",)]),
              ([("日本", "語"), ("本",)], [("日本語",), ("本",), ("x", "y")])]
    for b, got in zip(blocks, _block_hits_many(blocks)):
        _BLOCK_CACHE.clear()
        want = _block_hits(*b)
        assert all(np.array_equal(x, y) for x, y in zip(got, want)), b


def test_compiled_overlaps_equal_literal_counts():
    """``overlap.block_overlaps`` against a literal Counter of n-grams (Σ_g min of counts)."""
    from collections import Counter

    from evalcore.metrics.kernels import overlap

    if not overlap.AVAILABLE:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(0)
    blocks, ncs = [], []
    for nc, nr in ((3, 2), (1, 1), (2, 4), (4, 1)):
        blocks.append([rng.integers(0, 4, size=int(rng.integers(0, 9))) for _ in range(nc + nr)])
        ncs.append(nc)
    blocks[1] = [np.zeros(0, np.int64), np.array([1, 1, 1])]  # an empty candidate
    out = overlap.block_overlaps(blocks, ncs, 6)
    for blk, nc, (hits, totals) in zip(blocks, ncs, out):
        for n in range(1, 7):
            grams = [Counter(tuple(s[i:i + n]) for i in range(len(s) - n + 1)) for s in blk]
            for c in range(nc):
                for r in range(len(blk) - nc):
                    want = sum(min(k, grams[nc + r][g]) for g, k in grams[c].items())
                    assert hits[n - 1, c, r] == want
            assert list(totals[:, n - 1]) == [max(0, len(s) - n + 1) for s in blk]
    assert not overlap.fits(1449, 6) and overlap.fits(1400, 6)


def test_char_ngram_count_layer_fallback(synth, monkeypatch):
    """Without the compiled counts (no numba, or ids too many for exact codes) the BEER
    features come from the count layers: the same rows."""
    from evalcore.metrics import charngram

    ms = [get_metric(m) for m in ("charngram-f2", "charngram-p5")]
    cands_all, _ = engine.scoring_plan(synth)
    items, pos = levels.plan_items(synth, cands_all)
    c = [x for _, _, cs, _ in items for x in cs]
    r = [x for _, _, _, rs in items for x in rs]
    fast = levels.family_stats(ms, c, r, pos)
    monkeypatch.setattr(charngram, "block_overlaps", lambda *a: None)
    slow = levels.family_stats(ms, c, r, pos)
    for m, a, b in zip(ms, fast, slow):
        assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(a, m.segment_stats(c, r), equal_nan=True)


@pytest.mark.parametrize("compiled", [True, False])
def test_chrf_char_counts_both_paths_equal_sacrebleu(synth, monkeypatch, compiled):
    """chrF / chrF++ statistics from the compiled overlaps and from the count layers (the
    fallback without numba) both give sacreBLEU's sentence scores."""
    from evalcore.metrics import chrf as chrf_mod

    if not compiled:
        monkeypatch.setattr(chrf_mod, "block_overlaps", lambda *a: None)
    ref_t, sys_t = synth.ref_texts(), synth.sys_texts()
    name = synth.systems[0]
    keep = [s for s in range(synth.n_segments) if any(ref_t[r][s] is not None for r in synth.ref_ids)]
    hyps = [sys_t[name][s] for s in keep]
    refs = [[ref_t[r][s] for r in synth.ref_ids if ref_t[r][s] is not None] for s in keep]
    for mid, want in (("chrf", SCHRF()), ("chrf++", SCHRF(word_order=2))):
        m = get_metric(mid)
        got = m.sentence_scores(hyps, refs)
        np.testing.assert_allclose(got, [want.sentence_score(h, r).score for h, r in zip(hyps, refs)],
                                   rtol=0, atol=1e-9)


def test_metrics_lexical_keyword(synth, tmp_path, capsys):
    """``--metrics lexical`` = every lexical id (the literal filter of ``_lexical`` above),
    stated on stderr; combined with other ids, order kept and no id twice."""
    from evalcore.cli import main

    ids = _lexical()
    assert len(ids) >= 44
    assert defaults.expand_metric_ids("lexical") == ids
    assert defaults.expand_metric_ids("ter, LEXICAL ,bleu") == ["ter"] + [m for m in ids if m != "ter"]
    folder = write_tidy(synth.subset(seg_ids=synth.seg_ids[:3]), tmp_path / "d")
    out = tmp_path / "lex.tsv"
    assert main(["score", str(folder), "--metrics", "lexical", "--level", "system", "--out", str(out)]) == 0
    assert f"note: --metrics lexical: {len(ids)} metrics (" in capsys.readouterr().err
    got = pd.read_csv(out, sep="\t", dtype=str, keep_default_na=False)
    assert list(dict.fromkeys(got["metric"])) == ids
