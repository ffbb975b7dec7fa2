"""The loader's duplicate finder agrees with ``DataFrame.duplicated(keep=False)`` (the brute
force, row for row) on small random tables: string and object keys, missing values, float
scores with -0.0, nan and inf, few and many distinct values (leading keys combined or not)."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from evalcore.io.assemble import _duplicated


def _table(rng: random.Random, n: int, wide: bool) -> pd.DataFrame:
    def names(k: int) -> list:
        pool = [f"n{i}" for i in range(k)] + ["", " ", "ü"]
        return [None if rng.random() < 0.03 else rng.choice(pool) for _ in range(n)]
    scores = [rng.choice([0.0, -0.0, 1.5, float("nan"), float("inf"), 100.0, 3.0]) for _ in range(n)]
    return pd.DataFrame({"system": pd.Series(names(3), dtype=object).astype(str if rng.random() < 0.5 else object),
                         "seg_id": pd.Series(names(n * 3 if wide else 5), dtype=object).astype(str),
                         "rater": names(2), "judgement": names(1), "score": scores},
                        index=rng.sample(range(10 * n), n))


@pytest.mark.parametrize("seed", range(20))
def test_duplicated_rows_as_pandas_finds_them(seed):
    rng = random.Random(seed)
    df = _table(rng, rng.randint(1, 300), wide=seed % 3 == 0)
    cols = ["system", "seg_id", "rater", "judgement", "score"]
    for keys in (cols, cols[:3], ["score", "system"], ["seg_id"]):
        got = _duplicated(df, keys)
        want = df.duplicated(keys, keep=False).to_numpy()
        assert got.dtype == bool and np.array_equal(got, want), keys
    copies = pd.concat([df, df.iloc[:3]])  # pasted rows: always found
    assert _duplicated(copies, cols)[-3:].all()


def test_empty_and_no_key():
    df = pd.DataFrame({"a": pd.Series([], dtype=object)})
    assert _duplicated(df, ["a"]).tolist() == []


def test_identical_judgement_rows_warned_and_kept(tmp_path):
    from evalcore.io import load_collection

    d = tmp_path / "d"
    d.mkdir()
    (d / "segments.tsv").write_text("seg_id\tsource\n1\ta\n2\tb\n", encoding="utf-8")
    (d / "references.tsv").write_text("seg_id\tref_id\ttext\n1\tref\tA\n2\tref\tB\n", encoding="utf-8")
    (d / "outputs.tsv").write_text("system\tseg_id\ttext\nS\t1\tx\nS\t2\ty\n", encoding="utf-8")
    # lines 2 and 4 are one row pasted twice, lines 3 and 6 another; line 5 differs in its score only
    (d / "judgements.tsv").write_text("system\tseg_id\trater\tjudgement\tscore\n"
                                      "S\t1\tr1\tda\t50\nS\t2\tr1\tda\t70\nS\t1\tr1\tda\t50\n"
                                      "S\t1\tr1\tda\t51\nS\t2\tr1\tda\t70.0\n", encoding="utf-8")
    ds = next(iter(load_collection(d).values()))
    assert len(ds.judgements) == 5
    msgs = [w for w in ds.warnings if "identical judgement rows" in w.message]
    assert len(msgs) == 1 and msgs[0].line == 4
    assert msgs[0].message.startswith("2 set(s) of identical judgement rows (4 rows): lines 2, 4 (system 'S', "
                                      "seg_id '1', rater 'r1', da = 50); lines 3, 6 (system 'S', seg_id '2'")



def test_blank_texts_as_strip_finds_them_on_every_code_point():
    from evalcore.io.assemble import _blank

    chars = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000]
    values = chars + [c * 2 for c in chars[:0x3100]] + ["", " a", "a ", None]
    for dtype in (str, object):
        col = pd.Series(values, dtype=dtype)
        want = (col.astype(str).str.strip() == "").to_numpy(dtype=bool, na_value=False)
        assert np.array_equal(_blank(col), want), dtype
    assert _blank(pd.Series(["", " ", "a", None], dtype=str)).tolist() == [True, True, False, False]


@pytest.mark.parametrize("seed", range(8))
def test_first_rows_are_those_drop_duplicates_keeps(seed):
    from evalcore.io.assemble import _first_rows

    rng = random.Random(seed)
    values = [rng.choice(["a", "b", "", "ü", None, "c"]) for _ in range(rng.randint(0, 80))]
    for dtype in (object, str):
        col = pd.Series(values, dtype=dtype, index=rng.sample(range(1000), len(values)))
        want = [col.index.get_loc(i) for i in col.drop_duplicates().index]
        assert _first_rows(col).tolist() == want
