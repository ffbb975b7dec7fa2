"""No Python memory handed to Arrow's thread pools on the load, save and cache paths.

A pool thread that releases Python memory after the read returned needs the GIL; at
interpreter exit that aborts the process (evalcore.core.arrowfiles explains it). These tests
check the means: bytes are copied into Arrow's own memory, Feather and Parquet files are read
through Arrow's own file, and nothing on the paths wraps Python memory (``pa.py_buffer``) or
gives pandas a path to open as a Python file."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from conftest import ROOT
from evalcore.core import arrowfiles


def _address(data: bytes) -> int:
    return np.frombuffer(data, dtype=np.uint8).__array_interface__["data"][0]


@pytest.mark.parametrize("start", [0, 1, 7, 12])
def test_arrow_owned_is_a_copy_in_arrow_memory(start):
    data = b"seg_id\tsource\n1\tuno\n2\tdos\n"
    buf = arrowfiles.arrow_owned(data, start)
    assert buf.to_pybytes() == data[start:]
    # a wrapped bytes object points into the bytes; the copy does not
    assert pa.py_buffer(data).address == _address(data)
    assert not (_address(data) <= buf.address < _address(data) + len(data))
    assert buf.parent is None  # not a view of another buffer


def test_read_feather_and_parquet_equal_pandas_own_reads(tmp_path):
    df = pd.DataFrame({"n": np.arange(6), "text": list("abcdef"), "x": np.linspace(0, 1, 6),
                       "cat": pd.Categorical(list("xyxyxz"))})
    df.to_feather(tmp_path / "t.arrow", compression="lz4")
    df.to_parquet(tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(arrowfiles.read_feather(tmp_path / "t.arrow"),
                                  pd.read_feather(tmp_path / "t.arrow"), check_exact=True)
    pd.testing.assert_frame_equal(arrowfiles.read_parquet(tmp_path / "t.parquet"),
                                  pd.read_parquet(tmp_path / "t.parquet"), check_exact=True)


def test_load_save_reload_and_cache_give_arrow_only_its_own_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EVALCORE_CACHE", str(tmp_path / "home" / "cache"))
    wrapped, opened = [], []
    real_py_buffer, real_feather, real_parquet = pa.py_buffer, pd.read_feather, pd.read_parquet
    monkeypatch.setattr(pa, "py_buffer", lambda *a, **k: wrapped.append(a) or real_py_buffer(*a, **k))
    monkeypatch.setattr(pd, "read_feather", lambda src, *a, **k: opened.append(src) or real_feather(src, *a, **k))
    monkeypatch.setattr(pd, "read_parquet", lambda src, *a, **k: opened.append(src) or real_parquet(src, *a, **k))
    from evalcore.io import load_collection, workspace
    from evalcore.scoring import scores

    coll = load_collection(str(ROOT / "tests" / "hostile" / "clean"))
    name = workspace.save(coll, "arrow-owned", replace=True)
    again = workspace.load_saved(name)
    assert {lp: d.content_hash() for lp, d in again.items()} == {lp: d.content_hash() for lp, d in coll.items()}
    frame = pd.DataFrame({"system": ["a", "b"], "score": [0.25, 0.5]})
    first = scores.disk_cached("arrowfiles-test", ("k",), lambda: frame)
    back = scores.stored("arrowfiles-test", ("k",))
    pd.testing.assert_frame_equal(back, first, check_exact=True)
    assert wrapped == []  # no Python bytes wrapped for Arrow anywhere on these paths
    assert opened, "the reload and the cache read went through pandas' Feather / Parquet readers"
    assert all(isinstance(src, pa.NativeFile) for src in opened), opened
