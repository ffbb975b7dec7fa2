"""``--scheduler``: Dask distributed gives exactly the in-process results.

Oracle: the in-process engine (itself pinned to sacreBLEU in test_engine.py) on the same data;
values must be bit-identical (``assert_frame_equal`` with exact floats, ``array_equal``), not
merely close. One LocalCluster (2 worker processes) serves the whole module.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import SAMPLE, shared

from evalcore.io import load_collection, load_dataset, write_tidy
from evalcore.metrics import engine
from evalcore.scoring.parallel import (
    Scheduler,
    SchedulerError,
    block_bounds,
    iter_score_levels,
    parse_scheduler,
    score_table,
    similarity_tensors_many,
)

LEXICAL = ["bleu", "chrf", "ter", "nist-4", "rouge-l", "wer", "per", "gtm-1", "meteor"]


@pytest.fixture(scope="module")
def cluster():
    with Scheduler("local:2") as sched:
        yield sched


@pytest.fixture(scope="module")
def sample():
    return load_dataset(SAMPLE)


@pytest.fixture(scope="module")
def en_cs():
    ds = load_collection(shared("wmt24_esa"))["en-cs"]
    return ds.subset(seg_ids=ds.seg_ids[:100:2])  # 50 segments, 15 systems


def test_parse_scheduler():
    assert parse_scheduler(None) == ("none", None) and parse_scheduler("none") == ("none", None)
    assert parse_scheduler("local:3") == ("local", 3)
    assert parse_scheduler("tcp://10.0.0.5:8786") == ("tcp", "tcp://10.0.0.5:8786")
    for bad in ("local", "local:0", "local:x", "tcp://host", "http://h:1", "dask"):
        with pytest.raises(ValueError, match="--scheduler"):
            parse_scheduler(bad)
    assert block_bounds(0, 2) == []
    b = block_bounds(1000, 2)
    assert b[0] == (0, 125) and b[-1][1] == 1000 and all(x[1] == y[0] for x, y in zip(b, b[1:]))
    assert block_bounds(10, 4, block_size=3) == [(0, 3), (3, 6), (6, 9), (9, 10)]


@pytest.mark.parametrize("level", ["segment", "system"])
def test_scores_identical_on_sample(cluster, sample, level):
    metrics = LEXICAL if level == "system" else ["bleu", "chrf", "nist-4"]  # sentence level: the fast ones
    want = engine.score_table(sample, metrics, level=level, include_references=True)
    got = score_table(sample, metrics, level=level, include_references=True, scheduler=cluster, block_size=5)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_tensors_identical_on_sample(cluster, sample, tmp_path):
    want = engine.similarity_tensors_many(sample, LEXICAL, cache_dir=False)
    got = similarity_tensors_many(sample, LEXICAL, scheduler=cluster, cache_dir=tmp_path, block_size=7)
    for m in LEXICAL:
        for f in ("sys_ref", "ref_ref", "loo_sys", "loo_ref"):
            assert np.array_equal(getattr(got[m], f), getattr(want[m], f), equal_nan=True), (m, f)
        assert got[m].seg_ids == want[m].seg_ids and got[m].systems == want[m].systems
    again = similarity_tensors_many(sample, ["chrf"], scheduler=cluster, cache_dir=tmp_path)  # stored: a cache hit
    assert again["chrf"].meta.get("cached") and np.array_equal(again["chrf"].sys_ref, want["chrf"].sys_ref,
                                                               equal_nan=True)


def test_scores_identical_on_wmt24_slice(cluster, en_cs):
    metrics = ["bleu", "nist-4"]  # nist-4: information weights from the whole corpus, not a block
    for level in ("system", "segment"):
        want = engine.score_table(en_cs, metrics, level=level)
        got = score_table(en_cs, metrics, level=level, scheduler=cluster, block_size=16)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert len(want) > 0


def test_both_levels_identical_on_sample(cluster, sample):
    """``score --level both`` on the cluster (a family per task, segment blocks): every table
    bit-identical to the in-process family pass, which test_levels.py pins to sacreBLEU and to
    the engine level by level."""
    from evalcore.metrics import levels

    ids = ["bleu", "ter", "bleu-2", "nist-1", "nist-4", "charngram-f1", "charngram-r3", "chrf", "rouge-l"]
    want = list(levels.iter_score_levels(sample, ids, include_references=True))
    got = list(iter_score_levels(sample, ids, include_references=True, scheduler=cluster, block_size=4))
    assert [m.id for m, _ in got] == ids == [m.id for m, _ in want]
    for (m, g), (_, w) in zip(got, want):
        for lv in ("system", "segment"):
            pd.testing.assert_frame_equal(g[lv], w[lv], check_exact=True)
            assert len(w[lv]) > 0, (m.id, lv)


def test_worker_failure_is_a_clear_error(cluster):
    assert cluster.map(math.sqrt, [4.0, 9.0]) == [2.0, 3.0]
    with pytest.raises(SchedulerError, match=r"task 2 of 3 failed on a Dask worker .*ValueError: math domain error"):
        cluster.map(math.sqrt, [4.0, -1.0, 9.0], label="roots")


def test_unreachable_cluster(monkeypatch):
    monkeypatch.setattr("evalcore.scoring.parallel.CONNECT_TIMEOUT", "1s")
    with pytest.raises(SchedulerError, match="could not reach the Dask scheduler tcp://127.0.0.1:9"):
        with Scheduler("tcp://127.0.0.1:9"):
            pass


def test_cli_scheduler_local(tmp_path, sample, capsys, monkeypatch):
    """The command starts and stops its own LocalCluster; output identical to in-process."""
    from evalcore.cli import main

    folder = write_tidy(sample, tmp_path / "d")
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    assert main(["score", str(folder), "--metrics", "bleu,chrf", "--level", "system", "--out", str(a)]) == 0
    assert main(["score", str(folder), "--metrics", "bleu,chrf", "--level", "system", "--out", str(b),
                 "--scheduler", "local:1"]) == 0
    assert a.read_text() == b.read_text()
    assert "scheduler: dask local:1 (1 workers)" in capsys.readouterr().err
    assert main(["score", str(folder), "--scheduler", "local:zero"]) == 2
    monkeypatch.setattr("evalcore.scoring.parallel.CONNECT_TIMEOUT", "1s")
    assert main(["score", str(folder), "--scheduler", "tcp://127.0.0.1:9"]) == 1
    assert "could not reach" in capsys.readouterr().err


def test_local_workers_run_without_dask_diagnostics(cluster):
    """``local:N`` workers run with Dask's statistical profiler and GIL monitor off (they cost
    CPU on every task; see ``LOCAL_CLUSTER_CONFIG``)."""
    import dask

    got = cluster.client.run(lambda: (dask.config.get("distributed.worker.profile.enabled"),
                                      dask.config.get("distributed.admin.system-monitor.gil.enabled")))
    assert len(got) == 2 and set(got.values()) == {(False, False)}


def test_both_levels_next_family_submitted_before_writing(cluster, sample, monkeypatch):
    """The next family's blocks are on the cluster before this family's tables are yielded
    (the workers compute while the caller writes); metrics of one family spread over the list
    (chrF, chrF++) keep their order; every level choice is identical to in-process."""
    from evalcore.metrics import levels

    events = []
    real_submit, real_collect = Scheduler.submit_map, Scheduler.collect

    def submit(self, fn, items):
        events.append("submit")
        return real_submit(self, fn, items)

    def collect(self, futures, label="tasks", progress=None):
        events.append("collect")
        return real_collect(self, futures, label, progress)

    monkeypatch.setattr(Scheduler, "submit_map", submit)
    monkeypatch.setattr(Scheduler, "collect", collect)
    ids = ["bleu", "bleu-2", "chrf", "wer", "nist-2", "chrf++"]
    for level in ("both", "system", "segment"):
        events.clear()
        want = list(levels.iter_score_levels(sample, ids, level=level))
        got = []
        for m, out in iter_score_levels(sample, ids, level=level, scheduler=cluster, block_size=3):
            got.append((m, out))
            if len(got) == 1:  # the first metric is written while the second family computes
                assert events == ["submit", "submit", "collect"], events
        assert [m.id for m, _ in got] == ids
        for (m, g), (_, w) in zip(got, want):
            assert list(g) == list(w) == list(levels.levels_of(level))
            for lv in g:
                pd.testing.assert_frame_equal(g[lv], w[lv], check_exact=True)
                assert len(w[lv]) > 0, (m.id, lv)
        assert events.count("submit") == events.count("collect") == 4  # BLEU, chrF, edit, NIST


def test_both_levels_worker_failure_stops_the_stream(cluster, sample, monkeypatch):
    import evalcore.scoring.parallel as par

    def broken(task):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(par, "_levels_block", broken)
    with pytest.raises(SchedulerError, match=r"BLEU \(segment blocks\): task \d+ of \d+ failed .*kernel exploded"):
        list(iter_score_levels(sample, ["bleu", "chrf"], scheduler=cluster, block_size=3))


def test_packed_unpickles_once_per_process_and_keeps_only_the_last():
    """A family's prepared metrics reach a worker as one byte string (evalcore.scoring.parallel.Packed):
    unpickled on first use, the same objects for every later task of the family, dropped when
    the next family's arrive."""
    from evalcore.metrics.base import get_metric
    from evalcore.scoring.parallel import Packed

    a = Packed([get_metric("bleu"), get_metric("chrf")])
    first = a.unpack()
    assert [m.id for m in first] == ["bleu", "chrf"]
    assert a.unpack() is first  # not unpickled again
    b = Packed([get_metric("ter")])
    assert [m.id for m in b.unpack()] == ["ter"]
    assert Packed._last[0] == b.token  # only the last family is held
    again = a.unpack()
    assert again is not first and [m.id for m in again] == ["bleu", "chrf"]


def test_packed_arrays_come_back_equal_as_views_of_one_buffer():
    """Packed.pack_arrays / unpack_arrays: every dtype and shape comes back equal, each array a
    view of the one buffer (no copy), at an aligned offset; object arrays are refused."""
    from evalcore.scoring.parallel import Packed

    arrays = {"f": np.linspace(0, 1, 7), "i": np.arange(12, dtype=np.int32).reshape(3, 4),
              "u": np.frombuffer("naïve ✓".encode(), dtype=np.uint8), "empty": np.zeros(0, np.int64),
              "strided": np.arange(20, dtype=np.int64)[::3], "one": np.array([5])}
    layout, buf = Packed.pack_arrays(arrays)
    assert all(off % Packed.ALIGN == 0 for *_, off in layout)
    back = Packed.unpack_arrays(layout, buf)
    assert list(back) == list(arrays)
    for name, a in arrays.items():
        assert back[name].dtype == a.dtype and back[name].shape == a.shape
        np.testing.assert_array_equal(back[name], a)
        assert back[name].size == 0 or np.shares_memory(back[name], np.frombuffer(buf, np.uint8))
    with pytest.raises(TypeError, match="obj"):
        Packed.pack_arrays({"obj": np.array(["a", None], dtype=object)})


def test_packed_nist_state_travels_as_arrays_and_scores_the_same(sample):
    """NIST's fitted table goes in the packed buffer (no pickle), once for nist-1..5; the
    rebuilt metrics share one table (views of the buffer), sign the same and give the same
    statistics."""
    from evalcore.metrics import engine
    from evalcore.metrics.base import get_metric
    from evalcore.scoring.parallel import Packed

    ms = [get_metric(f"nist-{n}") for n in (1, 5)]
    for m in ms:
        engine._prepare(m, sample)
    packed = Packed(ms)
    assert all(m._table is None for m in packed.metrics)  # the table is only in the payload
    assert ms[0]._table is not None  # the caller's metrics keep theirs
    back = packed.unpack()
    assert back[0]._table is back[1]._table and back[0]._table.as_dict() == ms[0]._table.as_dict()
    assert np.shares_memory(back[0]._table.flat, np.frombuffer(packed.payload, np.uint8))
    cands = sample.outputs["text"].tolist()[:20]
    refs = [[t] for t in sample.references["text"].tolist()[:20]]
    for m, b in zip(ms, back):
        assert b.signature() == m.signature()
        np.testing.assert_array_equal(b.segment_stats(cands, refs), m.segment_stats(cands, refs))


def test_text_block_gives_back_what_it_packed():
    """TextBlock (a segment block's texts on a worker): the candidates, reference lists and
    positions come back equal, items with equal reference lists share one list object, and
    its size as Dask counts it is the size of its buffers."""
    import sys

    from evalcore.scoring.parallel import TextBlock

    r1, r2 = ["a ref", "ünï ref"], ["other"]
    cands = ["c1", "", "c3 ✓", "c4"]
    refs = [r1, list(r1), r2, []]
    block = TextBlock(cands, refs, np.array([4, 4, 5, 6]))
    c, r, p = block.unpack()
    assert c == cands and r == refs and p == [4, 4, 5, 6]
    assert r[0] is r[1] and r[0] is not r[2]
    assert sys.getsizeof(block) >= block.cands.nbytes + block.refs.nbytes > 0
    c2, r2_, _ = block.unpack()
    assert c2 == c and c2 is not c  # made afresh for each task


def test_packed_pickles_its_buffer_out_of_band():
    """With protocol 5 and a buffer callback (how Dask sends data) the packed buffer leaves as
    its own buffer, not copied into the pickle stream; either way it comes back equal."""
    import pickle

    from evalcore.metrics import engine
    from evalcore.metrics.base import get_metric
    from evalcore.scoring.parallel import Packed

    import evalcore.io as eio
    from conftest import ROOT

    ds = eio.load_dataset(ROOT / "sample_data" / "teaching_es_en")
    m = get_metric("nist-2")
    engine._prepare(m, ds)
    packed = Packed([m])
    bufs = []
    stream = pickle.dumps(packed, protocol=5, buffer_callback=bufs.append)
    assert len(bufs) == 1 and bufs[0].raw().nbytes == len(packed.payload) > len(stream)
    for back in (pickle.loads(stream, buffers=[b.raw() for b in bufs]), pickle.loads(pickle.dumps(packed)),
                 pickle.loads(pickle.dumps(packed, protocol=4))):
        assert bytes(back.payload) == bytes(packed.payload) and back.token == packed.token
        Packed._last = (None, None)
        assert back.unpack()[0]._table.as_dict() == m._table.as_dict()


def test_packed_buffer_at_an_odd_address_is_realigned():
    """A buffer that arrives as a view at an odd address (as Dask hands over large frames) is
    copied once to an aligned one, so the arrays on it are aligned; an aligned one is kept."""
    from evalcore.scoring.parallel import Packed

    layout, buf = Packed.pack_arrays({"x": np.arange(1000, dtype=np.float64), "k": np.arange(7, dtype=np.int64)})
    base = np.frombuffer(buf, np.uint8)
    assert Packed.aligned(buf) is buf or base.ctypes.data % Packed.ALIGN
    raw = bytearray(len(buf) + 2 * Packed.ALIGN)
    skew = (-np.frombuffer(raw, np.uint8).ctypes.data + 3) % Packed.ALIGN  # 3 bytes past a boundary
    raw[skew:skew + len(buf)] = buf
    odd = memoryview(raw)[skew:skew + len(buf)]
    assert np.frombuffer(odd, np.uint8).ctypes.data % Packed.ALIGN == 3
    assert not Packed.unpack_arrays(layout, odd)["x"].flags.aligned
    fixed = Packed.aligned(odd)
    assert np.frombuffer(fixed, np.uint8).ctypes.data % Packed.ALIGN == 0
    back = Packed.unpack_arrays(layout, fixed)
    assert all(a.flags.aligned for a in back.values())
    np.testing.assert_array_equal(back["x"], np.arange(1000, dtype=np.float64))
    np.testing.assert_array_equal(back["k"], np.arange(7))
