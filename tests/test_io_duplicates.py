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
