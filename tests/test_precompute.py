"""evalcore.views.precompute: the statistics a save writes are those the pages would compute
(every-segment table and each criterion's judged item list, against sacreBLEU and against a
computation with the store off), later reads compute nothing, and a second run adds nothing."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from evalcore.core.dataset import Dataset
from evalcore.metrics import _stats_store as store
from evalcore.metrics import engine
from evalcore.metrics.base import get_metric
from evalcore.scoring import scores
from evalcore.views import precompute

WORDS = "the cat sat on a mat while dogs ran past quickly and slowly under green trees".split()
SACRE = {"bleu": BLEU(), "chrf": CHRF(), "ter": TER()}


def _dataset() -> Dataset:
    rng = np.random.default_rng(11)
    segs = [str(i) for i in range(1, 11)]
    ref = {s: " ".join(rng.choice(WORDS, 9)) for s in segs}
    outs = [(sy, s, " ".join(rng.choice(WORDS, 8))) for sy in ("s1", "s2", "s3") for s in segs]
    judged = [(sy, s, "r1", "adequacy", float(rng.integers(0, 100))) for sy in ("s1", "s2", "s3")
              for s in segs if int(s) % 3 != (1 if sy == "s2" else 0)]  # each system its own segments
    return Dataset("t", "es-en", pd.DataFrame({"seg_id": segs, "doc_id": "d", "source": "x"}),
                   pd.DataFrame([(s, "A", ref[s]) for s in segs], columns=["seg_id", "ref_id", "text"]),
                   pd.DataFrame(outs, columns=["system", "seg_id", "text"]),
                   pd.DataFrame(judged, columns=["system", "seg_id", "rater", "judgement", "score"]))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "1")
    monkeypatch.delenv("EVALCORE_STATS_CACHE_MB", raising=False)
    monkeypatch.setattr("evalcore.views.systems.first_metrics", lambda ds: (["bleu", "chrf", "ter"], []))
    return tmp_path / "cache"


def _count(monkeypatch) -> list[int]:
    n = [0]
    real = engine._stats_by_segment

    def counting(*a, **k):
        n[0] += 1
        return real(*a, **k)
    monkeypatch.setattr(engine, "_stats_by_segment", counting)
    return n


def test_save_precomputes_what_the_pages_read(cache, monkeypatch):
    ds = _dataset()
    computed = _count(monkeypatch)
    assert precompute.precompute_statistics({"es-en": ds}) == 3
    assert computed[0] == 3  # one pass per metric: the judged lists come from its rows
    assert len(store.entries()) == 6  # per metric: every segment, and the judged segments
    computed[0] = 0
    judged = scores.judged_segments(ds, "adequacy")
    for mid, sacre in SACRE.items():
        # the Metrics task page's scorer: the judged segments, read from the store
        table = engine.score_table(ds, [mid], level="system", segments=judged, tokenize="13a")
        refs = ds.ref_texts()["A"]
        for name, texts in ds.sys_texts().items():
            keep = [i for i, s in enumerate(ds.seg_ids) if s in judged[name]]
            ref = sacre.corpus_score([texts[i] for i in keep], [[refs[i] for i in keep]]).score
            got = float(table.loc[(table["metric"] == mid) & (table["system"] == name), "score"].iloc[0])
            assert got == pytest.approx(ref, abs=1e-9)
    assert computed[0] == 0  # nothing recomputed
    assert precompute.precompute_statistics(ds) == 3 and len(store.entries()) == 6 and computed[0] == 0


def test_stored_judged_rows_equal_a_computation_with_the_store_off(cache):
    ds = _dataset()
    precompute.precompute_statistics(ds)
    judged = scores.judged_segments(ds, "adequacy")
    for mid in SACRE:
        metric = get_metric(mid, "13a")
        plan, _ = engine.scoring_plan(ds, segments=judged)
        cands, refs, pos = [], [], []
        where = {s: i for i, s in enumerate(ds.seg_ids)}
        for _, texts, use in plan:
            keep, c, r = engine.scorable(ds, texts, use)
            cands += c
            refs += r
            pos += [where[s] for s in keep]
        stored = store.get(metric, store.texts_digest(cands, refs), len(cands))
        assert stored is not None
        with store.bypassed():
            fresh = engine.segment_stats_by_segment(metric, cands, refs, pos)
        np.testing.assert_array_equal(stored, fresh)


def test_store_off_still_fills_the_table_cache(cache, monkeypatch):
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "0")
    assert precompute.precompute_statistics(_dataset()) == 3
    assert not (cache / "stats").exists() or store.entries(cache / "stats") == []
    assert scores.known_system_stats(_dataset(), "bleu", "13a") is not None


def test_the_data_pages_background_run_writes_the_same(cache):
    t = precompute.precompute_in_background(_dataset(), name="t")
    assert t is not None
    t.join(120)
    assert not t.is_alive() and len(store.entries()) == 6
    assert scores.known_system_stats(_dataset(), "ter", "13a") is not None
