"""The assembly's shared factorisations (evalcore.io.assemble._factorize and the checks built on
it) against their pandas definitions, on small random tables: Arrow-backed and object columns,
missing values, one and several language pairs."""
from __future__ import annotations

import random
from contextlib import nullcontext

import pandas as pd

from evalcore.io.assemble import _distinct, _equals, _factorised, _factorize, _first_rows, _pairs, _plain_ascii


def _random_column(rng: random.Random, n: int, arrow: bool) -> pd.Series:
    pool = rng.choice([["a", "b", "", " c", "é", None], ["a"], ["", None], ["x", "y"]])  # some of one value
    values = [rng.choice(pool) for _ in range(n)]
    col = pd.Series(values, dtype=object)
    if arrow and n > 2 and rng.random() < 0.3:  # several Arrow chunks, as a large file gives
        import pyarrow as pa

        cut = rng.randint(1, n - 1)
        data = pa.chunked_array([pa.array(values[:cut], pa.large_string()), pa.array(values[cut:], pa.large_string())])
        return pd.Series(pd.array(data, dtype=col.astype(str).dtype))
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
                assert _same(list(uniques), list(want_uniques)) and uniques.dtype == want_uniques.dtype, trial
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



def test_plain_ascii_is_printable_ascii_without_space_byte_by_byte():
    """The buffer test against its definition (every character in 0x21-0x7e, none missing) on
    random columns, whole and sliced; where it answers True, strip changes nothing and no
    control character is there (what the loader skips on its word)."""
    import pyarrow as pa

    from evalcore.core.problems import CONTROL_CHARS

    rng = random.Random(11)
    alphabet = ["a", "Z", "0", "-", "~", "!", " ", "\t", "\x7f", "\x85", "\u00a0", "\u2028", "é", "\x1f", ""]
    for trial in range(300):
        values = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 8))]
        if trial % 10 == 0 and values:
            values[0] = None
        col = pd.Series(values, dtype=object).astype(str)
        want = all(v is not None and all(0x21 <= ord(ch) <= 0x7E for ch in v) for v in values)
        assert _plain_ascii(col) == want, (trial, values)
        if want:
            assert col.str.strip().tolist() == col.tolist()
            assert not col.str.contains(CONTROL_CHARS, regex=True).any()
        # a slice of an Arrow array keeps the whole data buffer: True only when plain, never wrongly
        if len(values) > 2 and None not in values:
            arr = pa.chunked_array([pa.array(values, pa.large_string()).slice(1, 1)])
            sliced = pd.Series(pd.array(arr, dtype=col.dtype))
            if _plain_ascii(sliced):
                assert all(0x21 <= ord(ch) <= 0x7E for ch in values[1])
    assert not _plain_ascii(pd.Series(["abc"], dtype=object))  # not Arrow-backed: checked as before


def test_python_texts_are_pandas_object_values_with_none_for_missing():
    import pyarrow as pa

    from evalcore.io.assemble import _python_texts

    dtype = pd.Series(["x"], dtype=object).astype(str).dtype
    data = pa.chunked_array([pa.array(["a", None, ""], pa.large_string()), pa.array(["é b", "\u2028"], pa.large_string())])
    frame = pd.DataFrame({"text": pd.Series(pd.array(data, dtype=dtype))})
    want = frame["text"].to_numpy(dtype=object, na_value=None).tolist()
    got = _python_texts(frame)["text"]
    assert got.dtype == object and got.tolist() == want == ["a", None, "", "é b", "\u2028"]
    assert all(type(v) is str for v in got if v is not None)
    empty = pd.DataFrame({"text": pd.Series(pd.array(pa.chunked_array([], pa.large_string()), dtype=dtype))})
    assert _python_texts(empty)["text"].dtype == object and not len(empty)


def test_duplicated_rows_are_pandas_duplicated_on_random_tables():
    """Duplicate rows over string keys and a float score (the identical-judgement check), inside
    an assembly (shared codes, early stop when the leading keys are unique) and outside."""
    from evalcore.io.assemble import _duplicated

    rng = random.Random(13)
    for trial in range(200):
        n = rng.randint(0, 30)
        df = pd.DataFrame({"system": [rng.choice(["A", "B"]) for _ in range(n)],
                           "seg_id": [str(rng.randint(1, rng.choice([3, 40]))) for _ in range(n)],
                           "rater": [rng.choice(["r1", "r1", None]) for _ in range(n)]}, dtype=object)
        df["score"] = [rng.choice([1.0, 2.5, float("nan")]) for _ in range(n)]
        if trial % 2:
            df = df.astype({"system": str, "seg_id": str, "rater": str})
        keys = ["system", "seg_id", "rater", "score"]
        want = df.duplicated(keys, keep=False).tolist()
        with _factorised():
            _factorize(df["system"])  # (as the name checks leave them)
            assert _duplicated(df, keys).tolist() == want, trial
        assert _duplicated(df, keys).tolist() == want, trial


def _factorised_like_pandas(values: list, cut: int, dtype, trial: int):
    """``values`` as an Arrow column of two chunks (split at ``cut``), factorised by
    :func:`_factorize` and checked against ``pandas.factorize``; returns the Arrow column."""
    import pyarrow as pa

    data = pa.chunked_array([pa.array(values[:cut], pa.large_string()), pa.array(values[cut:], pa.large_string())])
    col = pd.Series(pd.array(data, dtype=dtype))
    with _factorised():
        codes, uniques = _factorize(col)
    want_codes, want_uniques = pd.factorize(col, use_na_sentinel=False)
    assert codes.tolist() == want_codes.tolist(), trial
    assert _same(list(uniques), list(want_uniques)), trial
    return data


def test_block_repeated_columns_take_the_codes_of_their_first_block():
    """A seg_id column written system by system (one block of ids repeated, whole or cut short,
    in one or several Arrow chunks) against pandas.factorize, and columns that only look so at
    a few rows (one value changed deep inside, runs of one value, a missing value)."""
    import pyarrow as pa

    from evalcore.io.assemble import _period

    dtype = pd.Series(["x"], dtype=object).astype(str).dtype
    rng = random.Random(17)
    for trial in range(120):
        block = [str(rng.randint(1, 40)) for _ in range(rng.randint(2, 40))]
        values = (block * rng.randint(2, 6))[:rng.randint(2 * len(block), 6 * len(block))]
        case = trial % 4
        if case == 1 and len(values) > 3:
            values[rng.randrange(len(block), len(values))] = "changed"
        elif case == 2:
            values = [v for v in values for _ in range(2)]  # runs: 1, 1, 2, 2, ...
        elif case == 3:
            values[rng.randrange(len(values))] = None
        data = _factorised_like_pandas(values, rng.randint(0, len(values)), dtype, trial)
        p = _period(data)
        if p:
            assert all(values[i] == values[i + p] for i in range(len(values) - p)), trial
    long = pa.chunked_array([pa.array([str(i % 50) for i in range(500)], pa.large_string())])
    assert _period(long) == 50


def test_columns_of_runs_take_the_codes_of_their_runs():
    """A system column written system by system (long runs of one value, a name coming back in a
    later run, several chunks) against pandas.factorize, and columns of short runs."""
    import pyarrow as pa

    from evalcore.io.assemble import _run_starts

    dtype = pd.Series(["x"], dtype=object).astype(str).dtype
    rng = random.Random(19)
    for trial in range(120):
        names = [rng.choice(["sys-1", "sys-2", "ref", "é", ""]) for _ in range(rng.randint(1, 6))]
        run = rng.choice([1, 3, 20, 200])
        values = [nm for nm in names for _ in range(rng.randint(run, 2 * run))]
        if trial % 5 == 0:
            values[rng.randrange(len(values))] = "odd"
        data = _factorised_like_pandas(values, rng.randint(0, len(values)), dtype, trial)
        starts = _run_starts(data)
        if starts is not None:
            assert starts.tolist() == [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]], trial
    assert _run_starts(pa.chunked_array([pa.array(["a"] * 100 + ["b"] * 100, pa.large_string())])).tolist() == [0, 100]
