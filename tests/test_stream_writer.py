"""The fast TSV writer of streamed command output (``evalcore.commands._stream.fast_tsv``).

Oracle: pandas' own ``DataFrame.to_csv(sep="\\t", index=False)`` on the same table, computed
in the test: the bytes must be identical, or the fast writer must decline (and pandas writes).
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.commands._stream import _write_all, fast_tsv
from evalcore.metrics.levels import frame

TEXT = st.text(alphabet=st.sampled_from(list("ab -_.é\u4e2d\t\"\n\r,'=")), max_size=6)
FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 1e16, 1e-5, 1e15, 0.0001, 5e-324, 1 / 3, 100.0, 12.5])


def _pandas(df, header=True) -> str:
    buf = io.StringIO()
    df.to_csv(buf, sep="\t", index=False, header=header)
    return buf.getvalue()


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.tuples(TEXT, TEXT, FLOATS, st.integers(-10**12, 10**12)), max_size=12), st.booleans())
def test_fast_tsv_is_pandas_byte_for_byte_or_declines(rows, header):
    df = pd.DataFrame(rows, columns=["system", "seg_id", "score", "n"])
    df["n"] = df["n"].astype("Int64")
    df["system"] = df["system"].astype(object)
    df["seg_id"] = df["seg_id"].astype(object)
    buf = io.StringIO()
    if fast_tsv(df, buf, header):
        assert buf.getvalue() == _pandas(df, header)
    else:
        assert buf.getvalue() == ""
        assert any(any(ch in str(v) for ch in '\t\n\r"') for v in df[["system", "seg_id"]].to_numpy().ravel())


FEW = st.sampled_from(["a", "b", "sys é", "", 'q"', "t\tab"]) | st.none()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(FEW, FEW, FLOATS, st.sampled_from([1, 1, 7])), max_size=11), st.booleans(),
       st.sampled_from([object, "str"]))
def test_fast_tsv_in_chunks_is_pandas_byte_for_byte_or_declines(rows, header, text_dtype):
    """Rows formatted 3 at a time (FAST_ROWS): a column constant in one chunk and varying in the
    next, a quote or a missing value only in a late chunk (then nothing at all is written)."""
    from evalcore.commands import _stream

    df = pd.DataFrame(rows, columns=["system", "seg_id", "score", "n"])
    df["n"] = df["n"].astype("Int64")
    df["system"] = df["system"].astype(text_dtype)
    df["seg_id"] = df["seg_id"].astype(text_dtype)
    old, _stream.FAST_ROWS = _stream.FAST_ROWS, 3
    try:
        buf = io.StringIO()
        ok = fast_tsv(df, buf, header)
    finally:
        _stream.FAST_ROWS = old
    if ok:
        assert buf.getvalue() == _pandas(df, header)
    else:
        assert buf.getvalue() == ""
        texts = df[["system", "seg_id"]].to_numpy().ravel()
        assert any(not isinstance(v, str) or any(ch in v for ch in '\t\n\r"') for v in texts)


def test_score_tables_take_the_fast_path_and_match_pandas():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=500) * 10.0 ** rng.integers(-8, 18, size=500)
    scores[::37] = np.nan
    scores[5] = np.inf
    seg = frame("chrf++", ["sys-A"] * 250 + ["B"] * 250, [str(i) for i in range(500)], scores,
                np.ones(500, np.int64), "nrefs:4|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0")
    system = frame("bleu", ["sys-A", "B"], ["", ""], [31.25, float("nan")], [500, 3], "nrefs:var|tok:13a")
    buf = io.StringIO()
    assert fast_tsv(seg, buf, True) and buf.getvalue() == _pandas(seg)
    # several tables after one header, with the lp column, as score --level both writes them
    buf = io.StringIO()
    n = _write_all([system, seg, system.iloc[:0]], buf, list(seg.columns), False, "en-de", None)
    want = "".join(_pandas(t.assign(lp="en-de")[["lp", *seg.columns]], header=i == 0)
                   for i, t in enumerate([system, seg]))
    assert n == 502 and buf.getvalue() == want


def test_missing_integers_and_other_dtypes_go_to_pandas():
    df = pd.DataFrame({"a": ["x", "y"], "n": pd.array([1, None], dtype="Int64")})
    assert not fast_tsv(df, io.StringIO(), True)
    df = pd.DataFrame({"a": ["x", "y"], "t": pd.to_datetime(["2024-01-01", "2024-01-02"])})
    assert not fast_tsv(df, io.StringIO(), True)
    df = pd.DataFrame({"a": ["x", 3], "b": [1.5, 2.5]})  # a non-string in a text column
    assert not fast_tsv(df, io.StringIO(), True)
    buf = io.StringIO()
    _write_all([df], buf, ["a", "b"], False, "", None)
    assert buf.getvalue() == _pandas(df.assign(lp="")[["lp", "a", "b"]])
