"""The persistent statistics store (evalcore/metrics/_stats_store.py): the same values as
sacreBLEU whether the statistics were computed or read back, invalidation by content only, the
size bound with least-recently-used eviction, two processes writing at once, ``--no-cache``."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from conftest import ROOT
from evalcore.core.dataset import Dataset
from evalcore.metrics import _stats_store as store
from evalcore.metrics import engine
from evalcore.metrics.base import get_metric

WORDS = "the cat sat on a mat while dogs ran past quickly and slowly under green trees".split()


def _dataset(change: str | None = None) -> Dataset:
    rng = np.random.default_rng(7)
    segs = [str(i) for i in range(1, 13)]
    ref = {s: " ".join(rng.choice(WORDS, 9)) for s in segs}
    outs = [(sy, s, " ".join(rng.choice(WORDS, 8))) for sy in ("s1", "s2", "s3") for s in segs]
    if change is not None:
        outs[0] = (outs[0][0], outs[0][1], change)
    return Dataset("t", "es-en", pd.DataFrame({"seg_id": segs, "doc_id": "d", "source": "x"}),
                   pd.DataFrame([(s, "A", ref[s]) for s in segs], columns=["seg_id", "ref_id", "text"]),
                   pd.DataFrame(outs, columns=["system", "seg_id", "text"]))


@pytest.fixture
def on(tmp_path, monkeypatch):
    """The store switched on, in an empty cache folder."""
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "1")
    monkeypatch.delenv("EVALCORE_STATS_CACHE_MB", raising=False)
    return tmp_path / "cache" / "stats"


def _sacrebleu_system(ds: Dataset) -> dict:
    refs = ds.ref_texts()["A"]
    out = {}
    for name, texts in ds.sys_texts().items():
        for mid, m in (("bleu", BLEU()), ("chrf", CHRF()), ("ter", TER())):
            out[(mid, name)] = m.corpus_score(list(texts), [list(refs)]).score
    return out


class _Counting:
    """Counts the statistics computations (the store's misses)."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = engine._stats_by_segment

        def counted(*a, **kw):
            self.n += 1
            return real(*a, **kw)

        monkeypatch.setattr(engine, "_stats_by_segment", counted)


def _system(ds, tokenize=None):
    t = engine.score_table(ds, ["bleu", "chrf", "ter"], level="system", tokenize=tokenize)
    return {(r.metric, r.system): r.score for r in t.itertuples()}


def test_read_back_values_equal_sacrebleu_and_nothing_is_recomputed(on, monkeypatch):
    ds = _dataset()
    want = _sacrebleu_system(ds)
    calls = _Counting(monkeypatch)
    first = _system(ds)
    assert calls.n == 3 and len(list(on.glob("*.npy"))) == 3
    second = _system(ds)
    assert calls.n == 3  # every metric's statistics read back
    assert second == first
    for k, v in want.items():
        assert first[k] == pytest.approx(v, abs=1e-9), k
    # segment scores from the stored statistics: sacreBLEU's sentence scores
    seg = engine.score_table(ds, ["chrf"], level="segment")
    assert calls.n == 3
    refs = ds.ref_texts()["A"]
    texts = ds.sys_texts()["s2"]
    got = seg[seg.system == "s2"].set_index("seg_id")["score"]
    for s, t, r in zip(ds.seg_ids, texts, refs):
        assert got[s] == pytest.approx(CHRF().sentence_score(t, [r]).score, abs=1e-9)


def test_a_content_change_invalidates_and_nothing_else_does(on, monkeypatch):
    calls = _Counting(monkeypatch)
    _system(_dataset())
    assert calls.n == 3
    renamed = _dataset()
    renamed.name = "another name"  # same texts under another name: read back
    _system(renamed)
    assert calls.n == 3
    changed = _dataset(change="a wholly different output text")  # one output changed
    got = _system(changed)
    assert calls.n == 6
    for k, v in _sacrebleu_system(changed).items():
        assert got[k] == pytest.approx(v, abs=1e-9), k
    _system(_dataset(), tokenize="char")  # another tokenizer: BLEU and TER (tok:char+tercom) are
    assert calls.n == 8  # other entries; chrF, which does not tokenise words, is read back
    ter = get_metric("ter")
    ter.case_sensitive = True  # a parameter outside the signature's text still changes the key
    fp = store.metric_fingerprint(ter)
    assert fp != store.metric_fingerprint(get_metric("ter"))


def test_a_torn_or_foreign_file_is_recomputed(on, monkeypatch):
    ds = _dataset()
    calls = _Counting(monkeypatch)
    want = _system(ds)
    for p in on.glob("*.npy"):
        p.write_bytes(b"\x93NUMPY garbage")
    assert _system(ds) == want and calls.n == 6
    for p in on.glob("*.npy"):  # a well-formed array of the wrong shape
        np.save(p, np.zeros((2, 2)))
    assert _system(ds) == want and calls.n == 9


def test_size_bound_evicts_the_least_recently_used(on, monkeypatch):
    m = get_metric("bleu")
    arr = np.arange(1000, dtype=float).reshape(100, 10)  # 8,000 bytes + the .npy header
    size = 8000 + 128
    monkeypatch.setenv("EVALCORE_STATS_CACHE_MB", str(3.5 * size / 2 ** 20))  # room for three
    digests = [bytes([i]) * 32 for i in range(5)]
    for i, d in enumerate(digests[:3]):
        assert store.put(m, d, arr + i)
        os.utime(on / f"{store.key(m, d)}.npy", (1000 + i, 1000 + i))  # a clear order of use
    assert store.get(m, digests[0], 100) is not None  # now the most recently used
    assert store.put(m, digests[3], arr + 3)  # over the bound: the least recently used (1) goes
    kept = {d for d in digests if (on / f"{store.key(m, d)}.npy").exists()}
    assert kept == {digests[0], digests[2], digests[3]}
    assert sum(p.stat().st_size for p in on.glob("*.npy")) <= store.limit_bytes()
    np.testing.assert_array_equal(store.get(m, digests[0], 100), arr)
    assert store.get(m, digests[1], 100) is None
    big = np.zeros((1000, 10))  # larger than the whole bound: not stored, nothing evicted for it
    assert not store.put(m, digests[4], big)
    assert {d for d in digests if (on / f"{store.key(m, d)}.npy").exists()} == kept


def test_byte_count_stays_exact_without_listing_the_folder(on, monkeypatch):
    """The bound is checked against the count in .size (the folder is listed only every
    SCAN_EVERY writes): rewriting a key does not inflate it, and a count left wrong by files
    removed by hand is corrected at the next listing."""
    m = get_metric("chrf")
    monkeypatch.setattr(store, "SCAN_EVERY", 4)
    listed = []
    real = store.entries
    monkeypatch.setattr(store, "entries", lambda d=None: listed.append(1) or real(d))

    def on_disk():
        return sum(p.stat().st_size for p in on.glob("*.npy"))

    for i in range(12):
        assert store.put(m, bytes([i % 5]) * 32, np.full((20, 3), float(i)))  # five keys, rewritten
        assert int((on / ".size").read_text()) == on_disk()
    assert len(listed) < 12  # not after every write
    np.testing.assert_array_equal(store.get(m, bytes([1]) * 32, 20), np.full((20, 3), 11.0))
    for p in list(on.glob("*.npy"))[:2]:
        p.unlink()  # removed by hand: the count is now too high
    for i in range(4):
        store.put(m, bytes([7]) * 32, np.zeros((20, 3)))
    assert int((on / ".size").read_text()) == on_disk()


WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from evalcore.metrics import _stats_store as store
    from evalcore.metrics.base import get_metric

    m = get_metric("chrf")
    who = int(sys.argv[1])
    for i in range(60):
        d = bytes([i % 12]) * 32  # both processes write the same twelve keys, over and over
        store.put(m, d, np.full((50, 4), float(i % 12)))
        got = store.get(m, d, 50)
        assert got is None or (got.shape == (50, 4) and (got == got[0, 0]).all()), got
    print("ok", who)
""")


def test_two_processes_writing_at_once(on, tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(root=str(ROOT)))
    entry = 50 * 4 * 8 + 128
    env = {**os.environ, "EVALCORE_CACHE": str(on.parent), "EVALCORE_STATS_CACHE": "1",
           "EVALCORE_STATS_CACHE_MB": str(6 * entry / 2 ** 20)}  # half the keys fit: eviction runs
    procs = [subprocess.Popen([sys.executable, str(script), str(k)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for k in (1, 2)]
    for k, p in zip((1, 2), procs):
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and f"ok {k}" in out, err
    files = list(on.glob("*.npy"))
    assert 0 < len(files) <= 6
    assert sum(p.stat().st_size for p in files) <= 6 * entry
    m = get_metric("chrf")
    for i in range(12):  # every entry left reads back whole, with its own values
        got = store.get(m, bytes([i]) * 32, 50)
        assert got is None or (got == float(i)).all()
    assert not [p for p in on.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_no_cache_option_neither_reads_nor_writes(on, tmp_path, capsys):
    from evalcore.cli import main

    ds = _dataset()
    folder = tmp_path / "data"
    folder.mkdir()
    ds.segments.to_csv(folder / "segments.tsv", sep="\t", index=False)
    ds.references.to_csv(folder / "references.tsv", sep="\t", index=False)
    ds.outputs.to_csv(folder / "outputs.tsv", sep="\t", index=False)
    argv = ["score", str(folder), "--metrics", "bleu,chrf,ter", "--level", "both"]
    assert main(argv + ["--no-cache", "--out", str(tmp_path / "a.tsv")]) == 0
    assert not list(on.glob("*.npy")) and os.environ["EVALCORE_STATS_CACHE"] == "1"
    assert main(argv + ["--out", str(tmp_path / "b.tsv")]) == 0
    assert len(list(on.glob("*.npy"))) == 3
    assert main(argv + ["--out", str(tmp_path / "c.tsv")]) == 0  # read back
    a, b, c = (pd.read_csv(tmp_path / f"{n}.tsv", sep="\t") for n in "abc")
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    want = _sacrebleu_system(ds)
    sys_rows = a[a.seg_id.isna()]
    for r in sys_rows.itertuples():
        assert r.score == pytest.approx(want[(r.metric, r.system)], abs=1e-9)


def test_switched_off_by_the_environment(on, monkeypatch):
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "off")
    _system(_dataset())
    assert not on.exists() or not list(on.glob("*.npy"))
    monkeypatch.setenv("EVALCORE_STATS_CACHE", "1")
    with store.bypassed():
        _system(_dataset())
    assert not on.exists() or not list(on.glob("*.npy"))
