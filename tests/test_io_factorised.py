"""The assembly's shared factorisations (evalcore.io.assemble._factorize and the checks built on
it) against their pandas definitions, on small random tables: Arrow-backed and object columns,
missing values, one and several language pairs."""
from __future__ import annotations

import random
from contextlib import nullcontext

import pandas as pd

from evalcore.io.assemble import _distinct, _equals, _factorised, _factorize, _first_rows, _pairs


def _random_column(rng: random.Random, n: int, arrow: bool) -> pd.Series:
    values = [rng.choice(["a", "b", "", " c", "é", None]) for _ in range(n)]
    col = pd.Series(values, dtype=object)
    return col.astype(str) if arrow else col


def test_factorize_is_pandas_factorize_inside_and_outside_an_assembly():
    rng = random.Random(3)
    for inside in (False, True):
        with _factorised() if inside else nullcontext():
            for trial in range(150):
                # many short-lived columns: a memo keyed by identity must never answer for another
                col = _random_column(rng, rng.randint(0, 12), arrow=trial % 3 != 0)
                codes, uniques = _factorize(col)
                want_codes, want_uniques = pd.factorize(col, use_na_sentinel=False)
                assert codes.tolist() == want_codes.tolist(), trial
                assert _same(list(uniques), list(want_uniques)), trial
                assert _same(list(_distinct(col)), list(pd.unique(col))), trial
                assert _equals(col, "").tolist() == (col == "").to_numpy(dtype=bool, na_value=False).tolist()
                assert _equals(col, "a").tolist() == (col == "a").to_numpy(dtype=bool, na_value=False).tolist()
                first = col.reset_index(drop=True).drop_duplicates().index.tolist() if len(col) else []
                assert _first_rows(col).tolist() == first, trial


def test_the_memo_follows_the_data_through_selections_and_copies():
    col = pd.Series(["x", "y", "x", "z"] * 5, dtype=object).astype(str)
    df = pd.DataFrame({"system": col, "n": range(20)})
    with _factorised():
        codes, _ = _factorize(df["system"])
        # the same Arrow data under another frame: the very codes; other data: its own codes
        assert _factorize(df.assign(n=0)["system"])[0] is codes
        assert _factorize(df[["system"]].copy()["system"])[0] is codes
        other = df["system"].str.upper()
        assert _factorize(other)[1].tolist() == ["X", "Y", "Z"]
        assert _factorize(df["system"].iloc[1:])[0].tolist() == pd.factorize(df["system"].iloc[1:])[0].tolist()


def test_pairs_are_the_distinct_rows_of_two_columns():
    rng = random.Random(5)
    for trial in range(100):
        n = rng.randint(0, 15)
        df = pd.DataFrame({"lp": [rng.choice(["en-de", "de-en"]) for _ in range(n)],
                           "system": [rng.choice(["A", "B", "ref", "C"]) for _ in range(n)]}, dtype=object)
        if trial % 2:
            df = df.astype(str)
        want = set(df[["lp", "system"]].drop_duplicates().itertuples(index=False, name=None))
        with _factorised():
            assert _pairs(df, "lp", "system") == want, trial


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x == y or (pd.isna(x) and pd.isna(y)) for x, y in zip(a, b))

