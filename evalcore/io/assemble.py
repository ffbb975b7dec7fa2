"""Cross-file validation and assembly of long tables into one :class:`Dataset` per language pair.

Every loader (tidy TSV, plain text, Google MQM, mt-metrics-eval) turns its files into the
same long tables, each row remembering its ``_file`` and ``_line``, and hands them to
:func:`assemble`, which checks every cross-reference at once and either returns the
datasets or raises :class:`DataError` with the complete report: nothing is partially loaded.
"""
from __future__ import annotations

import contextvars
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

from ..core.capabilities import know_references_with_text
from ..core.dataset import (JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, SEGMENT_COLUMNS,
                       TAG_COLUMNS, Dataset)
from ..core.problems import CONTROL_CHARS, MAX_ABS_SCORE, DataError, Problem, Report
from .text import describe_lines

META = ["_file", "_line"]


def frame(columns: list[str], rows: list[list], files: list[str], lines: Sequence[int | None]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns, dtype=object) if rows else pd.DataFrame(columns=columns, dtype=object)
    df["_file"] = files
    df["_line"] = lines
    return df


def frame_from_table(table, columns: list[str]) -> pd.DataFrame:
    """The frame of ``columns`` of a parsed :class:`~evalcore.io.text.Table` with ``_file`` and
    ``_line``, as :func:`frame` makes it. A columnar table gives pandas string columns straight
    from its Arrow arrays (no Python object per row; the checks below run on them, vectorised);
    :func:`_dataset` turns the texts back into Python strings."""
    if table._arrays is None:
        idx = [table.columns.index(c) for c in columns]
        return frame(columns, [[r[i] for i in idx] for r in table.rows], [table.name] * len(table.rows), table.lines)
    # (the score text too: pandas.to_numeric parses a string column as it parses Python strings)
    import pyarrow as pa

    data = {c: pd.array(table.array(c), dtype=STR) for c in columns}
    df = pd.DataFrame(data) if columns else pd.DataFrame(index=range(len(table)))
    # the file name on every row: the column a list of it gives (pandas' string dtype), made
    # by Arrow without a list of millions of references to infer from (0.3 CPU-s at 2M rows)
    df["_file"] = (pd.array(pa.repeat(pa.scalar(table.name, pa.large_string()), len(table)), dtype=STR)
                   if len(table) else [])
    df["_line"] = table.line_array()
    return df


#: pandas' string dtype (Arrow-backed): what ``.astype(str)`` gives
STR = pd.Series(["x"], dtype=object).astype(str).dtype


#: the factorised columns of the assembly in progress (see :func:`_factorize`); None outside one
_FACTORS: contextvars.ContextVar[dict[int, tuple[Any, np.ndarray, pd.Index]] | None] = \
    contextvars.ContextVar("evalcore_assembly_factors", default=None)


@contextmanager
def _factorised() -> Iterator[None]:
    """Within: :func:`_factorize` remembers each Arrow-backed column's codes (one assembly, one
    thread: a context variable; forgotten on leaving)."""
    token = _FACTORS.set({})
    try:
        yield
    finally:
        _FACTORS.reset(token)


def _factorize(col: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pandas.factorize(col, use_na_sentinel=False)``: codes in order of first appearance (a
    missing value is a value) and the distinct values. An Arrow-backed column is factorised once
    per assembly: its Arrow data are immutable and shared by every frame that selects, copies or
    assigns around the column (each check asks for the same id columns: names, duplicates,
    unknown segments, coverage), so its identity keys the codes (kept with the data they
    belong to)."""
    memo = _FACTORS.get()
    data = getattr(col.array, "_pa_array", None) if col.dtype == STR else None
    if memo is None or data is None:
        return pd.factorize(col, use_na_sentinel=False)
    hit = memo.get(id(data))
    if hit is not None and hit[0] is data:
        return hit[1], hit[2]
    codes, uniques = _arrow_factorize(data) if len(data) else pd.factorize(col, use_na_sentinel=False)
    memo[id(data)] = (data, codes, uniques)
    return codes, uniques


def _arrow_factorize(data: Any) -> tuple[np.ndarray, pd.Index]:
    """What ``pandas.factorize(use_na_sentinel=False)`` gives for a non-empty Arrow string
    column (pandas' own steps: ``dictionary_encode`` with missing values encoded, chunks
    combined), with the codes kept as Arrow's int32 (pandas widens them to int64, a copy). A
    column of one value (a campaign's lp, rater or criterion) is told by comparing every value
    with the first, and its codes are zeros (no hash table)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    first = data[0]
    if not data.null_count and first.equals(data[len(data) - 1]) and pc.all(pc.equal(data, first)).as_py():
        return (np.zeros(len(data), dtype=np.int32),
                pd.Index(pd.array(pa.array([first.as_py()], type=data.type), dtype=STR)))
    starts = _run_starts(data)
    if starts is not None:  # runs of one value (a system's rows together): the runs' codes, repeated
        import pyarrow as pa

        codes, uniques = _arrow_factorize(data.take(pa.array(starts)))
        return np.repeat(codes, np.diff(np.r_[starts, len(data)])), uniques
    period = _period(data)
    if period:  # every value is the one a period earlier: the first block's codes, repeated
        codes, uniques = _arrow_factorize(data.slice(0, period))
        return np.tile(codes, -(-len(data) // period))[:len(data)], uniques
    encoded = data.dictionary_encode(null_encoding="encode").combine_chunks()
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False))
    return codes, pd.Index(pd.array(encoded.dictionary, dtype=STR))


def _run_starts(data: Any) -> np.ndarray | None:
    """The rows where a value differs from the one before (and row 0) in an Arrow column made of
    few runs of one value (at most one run per 16 rows: a table written system by system), or
    None. The first value of every distinct value is the first row of one of its runs, so
    factorising the runs' first rows gives pandas' distinct values in their order; each row takes
    its run's code. The first 4,096 rows are looked at before every row is."""
    import pyarrow.compute as pc

    n = len(data)
    if n < 64 or data.null_count:
        return None
    probe = data.slice(0, min(n, 4096))
    if pc.sum(pc.not_equal(probe.slice(1), probe.slice(0, len(probe) - 1))).as_py() > len(probe) // 16:
        return None
    changed = pc.not_equal(data.slice(1), data.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.r_[0, np.flatnonzero(changed) + 1]
    return starts if len(starts) <= n // 16 else None


def _period(data: Any) -> int:
    """The period p of an Arrow column that is one block of p values repeated (each value equal
    to the one p rows before it, the first block at least twice), or 0. A table written system
    by system, each over the segments in their order (a seg_id column of outputs or judgements),
    is such a column; its codes then follow from the first block's (it holds every value, in
    order of first appearance), with no hash of the other rows. p is where the first value
    comes back (a run of one value, p = 1, is left to the hash); a few rows are compared before
    every row is."""
    import pyarrow.compute as pc

    n = len(data)
    if n < 64 or data.null_count:
        return 0
    p = pc.index(data, value=data[0], start=1).as_py()
    if p is None or p < 2 or p > n // 2:
        return 0
    if not all(data[i].equals(data[i + p]) for i in (1, p - 1, (n - p) // 2, n - p - 1)):
        return 0
    return p if pc.all(pc.equal(data.slice(0, n - p), data.slice(p))).as_py() else 0


def _factorised_already(col: pd.Series) -> bool:
    """Whether :func:`_factorize` has ``col``'s codes at hand."""
    memo = _FACTORS.get()
    data = getattr(col.array, "_pa_array", None) if col.dtype == STR else None
    hit = memo.get(id(data)) if memo is not None and data is not None else None
    return hit is not None and hit[0] is data


def _distinct(col: pd.Series) -> pd.Index:
    """The distinct values of ``col`` in order of first appearance (``pd.unique``, a missing
    value included), from :func:`_factorize`."""
    return _factorize(col)[1]


def empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=["lp"] + columns + META, dtype=object)


def _where(sub: pd.DataFrame) -> str:
    files = list(dict.fromkeys(sub["_file"]))
    lines = [int(x) for x in sub["_line"] if x is not None and x == x]
    return f"{files[0]}, {describe_lines(lines)}" if lines else files[0]


def _duplicated(df: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """``df.duplicated(keys, keep=False)`` as a bool array. Each key column is factorised (a
    missing value is a value, as for ``duplicated``) and the codes of the leading keys combined
    into one number while their combinations stay few (a few per row): rows are counted per
    number with ``bincount``, no hash table of millions of rows. A row alone on its leading
    keys has no duplicate; pandas looks only at the others over every key."""
    n = len(df)
    if not n or not keys:
        return df.duplicated(keys, keep=False).to_numpy(dtype=bool)
    ids = np.zeros(n, dtype=np.int64)
    size, used = 1, 0
    for k in keys:
        if used and not _factorised_already(df[k]) and np.bincount(ids, minlength=size).max() <= 1:
            return np.zeros(n, dtype=bool)  # unique on the leading keys: no key to factorise for nothing
        codes, uniques = _factorize(df[k])
        if size * len(uniques) > 4 * n + 1024:
            break
        ids = ids * len(uniques) + codes
        size *= len(uniques)
        used += 1
    if not used:
        return df.duplicated(keys, keep=False).to_numpy(dtype=bool)
    counts = np.bincount(ids, minlength=size)
    if counts.max() <= 1:  # no two rows share their leading keys: no lookup of every row's count
        return np.zeros(n, dtype=bool)
    maybe = counts[ids] > 1
    if used == len(keys) or not maybe.any():
        return maybe
    out = np.zeros(n, dtype=bool)
    out[maybe] = df[maybe].duplicated(keys, keep=False).to_numpy(dtype=bool)
    return out


def _dups(df: pd.DataFrame, keys: list[str], what: str, report: Report) -> pd.DataFrame:
    dup = _duplicated(df, keys)
    if not dup.any():
        return df
    d = df[dup]
    for _, sub in d.groupby(keys, sort=False):
        key = ", ".join(f"{k}={v!r}" for k, v in zip(keys, sub.iloc[0][keys]) if k != "lp" or v)
        report.error(sub["_file"].iloc[0], int(sub["_line"].iloc[1]) if sub["_line"].iloc[1] is not None else None,
                     f"duplicate {what} ({key}), also at {_where(sub.iloc[:1])}; keep one row per {what}")
    return df.drop_duplicates(keys, keep="first")


def _isin(values: pd.Series, among: pd.Index) -> np.ndarray:
    """``values.isin(among)`` as a bool array; with Arrow-backed strings on both sides, Arrow's
    own ``is_in`` (pandas would turn ``among`` into a list of Python strings first)."""
    if values.dtype == STR and among.dtype == STR:
        import pyarrow as pa
        import pyarrow.compute as pc

        hit = pc.is_in(pa.array(values.array), value_set=pa.array(among.array))
        return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)
    return values.isin(among).to_numpy(dtype=bool, na_value=False)


def _known(df: pd.DataFrame, seg_keys: tuple[pd.Index, pd.Index]) -> pd.Series:
    """Whether each row's (lp, seg_id) is among ``seg_keys`` (the segments' lp and seg_id
    columns, row by row): one vectorised ``isin`` per
    language pair (no Python tuple per row)."""
    known = np.zeros(len(df), dtype=bool)
    seg_lp, seg_id = seg_keys
    lp_col = df["lp"]
    lps = _distinct(lp_col)
    for lp in lps:
        one = len(lps) == 1 and not pd.isna(lp)  # then every row is of this pair
        rows = np.ones(len(df), dtype=bool) if one else (lp_col == lp).to_numpy(dtype=bool, na_value=False)
        mine = seg_lp == lp
        ids = seg_id if mine.all() else seg_id[mine]
        if rows.all():  # one language pair: no copy of the column; each distinct id looked up once
            codes, distinct = _factorize(df["seg_id"])
            known[:] = _isin(pd.Series(distinct), ids)[codes]
        else:
            known[rows] = _isin(df["seg_id"][rows], ids)
    return pd.Series(known, index=df.index, dtype=bool)


def _plain_ascii(col: pd.Series) -> bool:
    """Whether ``col`` is Arrow-backed, without a missing value, and every byte of its values is
    printable ASCII other than the space (0x21-0x7e; an empty value has none): then no value has
    whitespace to strip, nor a control character (each is a byte below 0x20, 0x7f, or a
    multi-byte UTF-8 sequence). Read from the Arrow data buffers in place (a byte of a value
    outside a sliced chunk may answer False: the caller then checks as before)."""
    data = getattr(col.array, "_pa_array", None) if col.dtype == STR else None
    if data is None or data.null_count:
        return False
    for chunk in data.chunks:
        buffers = chunk.buffers()
        if len(buffers) != 3:
            return False  # (not a plain string array)
        if buffers[2] is None:
            continue  # only empty values
        raw = np.frombuffer(buffers[2], dtype=np.uint8)
        if raw.size and not ((raw - np.uint8(0x21)) < 0x5E).all():
            return False
    return True


def _equals(col: pd.Series, value: str) -> np.ndarray:
    """``(col == value)`` as a bool array (a missing value is unequal), compared once per
    distinct value (:func:`_factorize`)."""
    codes, distinct = _factorize(col)
    if not len(codes):
        return np.zeros(0, dtype=bool)
    return (pd.Series(distinct) == value).to_numpy(dtype=bool, na_value=False)[codes]


def _pairs(df: pd.DataFrame, a: str, b: str) -> set[tuple[Any, Any]]:
    """The distinct (a, b) value pairs of ``df``, as ``set(df[[a, b]].drop_duplicates()
    .itertuples(...))`` gives them, from the columns' codes."""
    ca, va = _factorize(df[a])
    cb, vb = _factorize(df[b])
    if not len(ca):
        return set()
    both = np.unique(ca.astype(np.int64) * len(vb) + cb)
    return set(zip(va[both // len(vb)], vb[both % len(vb)]))


def _some(df: pd.DataFrame, mask: Any) -> pd.DataFrame:
    """``df[mask]``; with no row selected, ``df``'s first zero rows (pandas takes from every
    Arrow-backed column, chunks concatenated, even to select nothing)."""
    return df[mask] if np.asarray(mask, dtype=bool).any() else df.iloc[:0]


def _unknown_segments(df: pd.DataFrame, seg_keys: tuple[pd.Index, pd.Index], what: str, report: Report) -> pd.DataFrame:
    known = _known(df, seg_keys)
    if known.all():
        return df  # (pandas copies on write: no copy when all are known)
    bad = df.loc[~known]
    for (file, lp), sub in bad.groupby(["_file", "lp"], sort=False):
        ids = list(dict.fromkeys(sub["seg_id"]))
        lp_txt = f" of language pair {lp}" if lp else ""
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} {what} name segment id(s) not in the segments file{lp_txt}: "
                     f"{', '.join(map(repr, ids[:8]))}{' ...' if len(ids) > 8 else ''} "
                     f"({describe_lines([int(x) for x in sub['_line'] if x is not None])}); "
                     "add them to the segments file or fix the ids")
    return df.loc[known]


#: characters a name (lp, seg_id, system, ref_id, rater, judgement, tag, doc_id) may not hold:
#: control characters (tab, line breaks, NUL, ...) and the Unicode line/paragraph separators. A
#: name holding one cannot be written back as one TSV field that reads as the same name.
NAME_COLUMNS = {"segments": ["lp", "seg_id", "doc_id"], "references": ["lp", "seg_id", "ref_id"],
                "outputs": ["lp", "system", "seg_id"], "judgements": ["lp", "system", "seg_id", "rater", "judgement"],
                "tags": ["lp", "system", "seg_id", "tag"]}
_CONTROL = CONTROL_CHARS  # one definition: evalcore.core.problems

#: Latin look-alikes of Cyrillic and Greek letters (a short table of the usual confusables, in
#: the spirit of Unicode TS #39's skeletons): names equal after this map are reported.
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕҮІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοντ",
    "ABEKMHOPCTXaeopcyxijsYIJSABEZHIKMNOPTYXovt")


def _skeleton(name: str) -> str:
    """``name`` as it looks: NFKC (so NFC/NFD and compatibility forms agree), invisible format
    characters (zero-width joiner, soft hyphen, bidi marks: category Cf) removed, and Cyrillic /
    Greek look-alikes mapped to Latin."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").translate(_LOOKALIKES)


def _first_rows(col: pd.Series) -> np.ndarray:
    """The positions of the first row of each distinct value (what ``drop_duplicates`` keeps,
    a missing value being one). Factorised codes number the values in order of appearance, so
    a value's first row is where its code exceeds every code before it."""
    codes = _factorize(col)[0]
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.r_[True, codes[1:] > seen[:-1]])


def _name_problems(tables: dict[str, pd.DataFrame], report: Report) -> None:
    """Control characters in names (errors, file and lines) and names that differ only in
    invisible characters, Unicode normal form or look-alike letters (warnings: both kept)."""
    for tname, cols in NAME_COLUMNS.items():
        t = tables[tname]
        for c in cols:
            if c not in t or not len(t):
                continue
            col = t[c].astype(str)
            if _plain_ascii(col):
                continue  # no byte of a control character (nor any other than printable ASCII)
            # the distinct names first (a handful of systems in a million rows): the rows are
            # searched only when one of them holds a control character
            if not pd.Series(_distinct(col), dtype=col.dtype).str.contains(_CONTROL, regex=True).any():
                continue
            hit = col.str.contains(_CONTROL, regex=True)
            if hit.any():
                sub = t[hit]
                vals = list(dict.fromkeys(col[hit]))[:5]
                report.error(sub["_file"].iloc[0], int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                             f"{len(sub)} {c} value(s) hold a control character (tab, line break, ...): "
                             f"{', '.join(map(repr, vals))} at {describe_lines([int(x) for x in sub['_line'] if x is not None])}; "
                             "names may not hold tabs, line breaks or other control characters")
    for what, pairs in (("system", [("outputs", "system"), ("judgements", "system"), ("tags", "system")]),
                        ("reference set", [("references", "ref_id")]), ("rater", [("judgements", "rater")])):
        where: dict[str, tuple[str, int | None]] = {}
        for tname, c in pairs:
            t = tables[tname]
            if c not in t or not len(t):
                continue
            first = t[[c, *META]].iloc[_first_rows(t[c])]  # (not the texts: no copy of them)
            for v, f, ln in zip(first[c].astype(str), first["_file"], first["_line"]):
                where.setdefault(v, (f, ln))
        groups: dict[str, list[str]] = {}
        for v in where:
            groups.setdefault(_skeleton(v), []).append(v)
        for names in groups.values():
            invisible = [v for v in names if unicodedata.normalize("NFC", v) != v
                         or any(unicodedata.category(c) == "Cf" for c in v)]
            if len(names) > 1:
                f, ln = where[names[1]]
                report.warning(f, int(ln) if ln is not None and ln == ln else None,
                               f"{what} names {', '.join(ascii(v) for v in names)} look the same but differ (Unicode "
                               "normal form, invisible characters or look-alike letters from another script); "
                               "kept as different names: rename them if they are one")
            elif invisible:
                f, ln = where[names[0]]
                report.warning(f, int(ln) if ln is not None and ln == ln else None,
                               f"{what} name {ascii(names[0])} holds invisible characters or a non-normalised "
                               "Unicode form; kept as written")


def _normalise(tables: dict[str, pd.DataFrame]) -> None:
    """Fill a missing lp with "", strip lp and the id columns (in place: the loader's frames)."""
    for t in tables.values():
        for c in ("lp",):
            if c not in t:
                t[c] = ""
            if not _plain_ascii(t[c]):  # (a column of plain ASCII names has nothing to strip)
                t[c] = t[c].fillna("").astype(str).str.strip()
    for tname, cols in (("segments", ["seg_id"]), ("references", ["seg_id", "ref_id"]),
                        ("outputs", ["system", "seg_id"]), ("judgements", ["system", "seg_id", "rater", "judgement"]),
                        ("tags", ["system", "seg_id", "tag"])):
        t = tables[tname]
        for c in cols:
            if not _plain_ascii(t[c]):
                t[c] = t[c].astype(str).str.strip()


def _language_pairs(tables: dict[str, pd.DataFrame], report: Report) -> list[str]:
    """The language pairs named. A table without lp may only be used when there is one pair
    (its blank lp is then that pair, filled in place)."""
    lps = sorted(set().union(*(set(_distinct(t["lp"])) for t in tables.values())) - {""})
    if len(lps) > 1:
        for tname, t in tables.items():
            blank = t[t["lp"] == ""]
            if len(blank):
                report.error(blank["_file"].iloc[0], None,
                             f"{len(blank)} rows have no lp value but the data holds several language pairs "
                             f"({', '.join(lps)}); add an lp column")
    elif len(lps) == 1:
        for t in tables.values():
            if "" in set(_distinct(t["lp"])):  # (an assignment to no row still copies the column)
                t.loc[t["lp"] == "", "lp"] = lps[0]
    return lps


def _segments(segments: pd.DataFrame, report: Report) -> tuple[pd.DataFrame, tuple[pd.Index, pd.Index]]:
    """Segments without empty or duplicate ids, and their (lp, seg_id) keys: the two columns as
    they are (a MultiIndex of them would factorise and sort every id, 0.02 CPU-s at 100k
    segments, for :func:`_known`, which asks for the columns only)."""
    empty_ids = _some(segments, _equals(segments["seg_id"], ""))
    if len(empty_ids):
        report.error(empty_ids["_file"].iloc[0], None, f"empty seg_id at {_where(empty_ids)}")
        segments = segments[segments["seg_id"] != ""]
    segments = _dups(segments, ["lp", "seg_id"], "segment", report)
    seg_keys = (pd.Index(segments["lp"]), pd.Index(segments["seg_id"]))
    return segments, seg_keys


def _numbers(text: pd.Series) -> pd.Series:
    """``pandas.to_numeric(text, errors="coerce")``, parsing each distinct string once: a
    campaign's millions of scores repeat a few thousand strings (0-100 ratings), and the parse
    of a string does not depend on the row, nor the result's dtype on how often a string
    appears (it is inferred from the set of values). A column with missing values, or one of
    mostly distinct strings, is parsed as it is."""
    if not len(text) or text.hasnans:
        return pd.to_numeric(text, errors="coerce")
    codes, distinct = _factorize(text)  # (no missing value here: the codes of pd.factorize)
    if len(distinct) * 4 > len(text):
        return pd.to_numeric(text, errors="coerce")
    parsed = pd.to_numeric(pd.Series(distinct), errors="coerce")
    return pd.Series(parsed.to_numpy()[codes], index=text.index, name=text.name, dtype=parsed.dtype)


def _unusable_scores(judgements: pd.DataFrame, report: Report) -> tuple[pd.Series, pd.Series]:
    """The scores as numbers, and the rows whose score is not a number, not finite or out of
    range (reported per file)."""
    scores = _numbers(judgements["score"])
    missing = scores.isna().to_numpy(dtype=bool, copy=True)
    if missing.any():  # a score written as nan is a number (not finite: reported below)
        text = judgements["score"].iloc[np.flatnonzero(missing)].astype(str).str.strip().str.lower()
        missing[missing] = ~text.isin(["nan", "+nan", "-nan"]).to_numpy(dtype=bool)
    nonnum = pd.Series(missing, index=judgements.index)
    for file, sub in _some(judgements, nonnum).groupby("_file", sort=False):
        vals = list(dict.fromkeys(sub["score"]))[:5]
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} non-numeric score(s) {', '.join(map(repr, vals))} at {describe_lines([int(x) for x in sub['_line'] if x is not None])}; "
                     "scores must be numbers (use . as the decimal point; leave unrated items out)")
    # score_problem (not finite, or beyond ±MAX_ABS_SCORE) on every row at once
    values = scores.to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        problem = ~np.isfinite(values) | (np.abs(values) > MAX_ABS_SCORE)
    absurd = ~nonnum & pd.Series(problem, index=scores.index)
    for file, sub in _some(judgements, absurd).groupby("_file", sort=False):
        vals = list(dict.fromkeys(sub["score"]))[:5]
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} score(s) {', '.join(map(repr, vals))} at "
                     f"{describe_lines([int(x) for x in sub['_line'] if x is not None])} are not finite or beyond "
                     f"±{MAX_ABS_SCORE:.0e}; scores must be finite numbers within that range (leave unrated items out)")
    return scores, nonnum | absurd


def _judgements(judgements: pd.DataFrame, seg_keys: tuple[pd.Index, pd.Index], extras: dict[str, pd.DataFrame],
                report: Report) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The segment-level judgements with usable numeric scores, and ``extras`` with the
    system-level ones: an empty seg_id is a human score given per system (``system_scores``)."""
    # (each selection below is skipped when it would keep every row: a copy of millions of
    # rows each, otherwise)
    sys_level = _equals(judgements["seg_id"], "")
    if sys_level.any():
        judgements = pd.concat([judgements[sys_level],
                                _unknown_segments(judgements[~sys_level], seg_keys, "judgements", report)])
    else:
        judgements = _unknown_segments(judgements, seg_keys, "judgements", report)
    scores, unusable = _unusable_scores(judgements, report)
    judgements = judgements.assign(score=scores)
    if unusable.any():
        bad = judgements[unusable]
        judgements = judgements[~judgements.index.isin(bad.index)]
    given = _some(judgements, _equals(judgements["seg_id"], ""))
    if len(given):
        judgements = judgements[judgements["seg_id"] != ""]
    if len(given):
        _dups(given, ["lp", "system", "rater", "judgement"], "system-level score (empty seg_id)", report)
        rows = given.rename(columns={"judgement": "scorer"})[["lp", "scorer", "system", "score"]]
        if "system_scores" in extras:
            rows = pd.concat([extras["system_scores"], rows], ignore_index=True)
        extras = {**extras, "system_scores": rows.reset_index(drop=True)}
    return judgements, extras


def _blank(texts: pd.Series) -> np.ndarray:
    """``texts.astype(str).str.strip() == ""`` as a bool array. On an Arrow-backed column,
    without the stripped copy: Arrow's ``utf8_is_space`` (every character is whitespace, by
    the same table as the strip's) or empty; a missing text is not blank, as there."""
    if texts.dtype == STR:
        import pyarrow as pa
        import pyarrow.compute as pc

        arr = pa.array(texts.array)
        hit = pc.or_(pc.utf8_is_space(arr), pc.equal(pc.binary_length(arr), 0))
        return np.asarray(pc.fill_null(hit, False).to_numpy(zero_copy_only=False), dtype=bool)
    return (texts.astype(str).str.strip() == "").to_numpy(dtype=bool, na_value=False)


def _text_warnings(ref: pd.DataFrame, out: pd.DataFrame, n_seg: int, lp_txt: str, warn: Report) -> np.ndarray:
    """Empty texts, and reference sets or systems that miss segments (both kept). Returns which
    references are blank (:func:`_blank`)."""
    ref_blank = np.zeros(0, dtype=bool)
    for label, df, key in (("reference set", ref, "ref_id"), ("system", out, "system")):
        is_blank = _blank(df["text"])
        if label == "reference set":
            ref_blank = is_blank
        blank = _some(df, is_blank)
        for nm, sub in blank.groupby(key, sort=False):
            warn.warning(sub["_file"].iloc[0], int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                         f"{label} {nm!r}{lp_txt} has {len(sub)} empty or whitespace-only text(s) "
                         f"({describe_lines([int(x) for x in sub['_line'] if x is not None])}); kept as empty strings")
        # rows per name (groupby-size: a missing name is no group) and the file of its first row
        codes, names = _factorize(df[key])
        sizes = np.bincount(codes, minlength=len(names)) if len(codes) else np.zeros(len(names), dtype=np.int64)
        short = [int(i) for i in np.flatnonzero(sizes < n_seg) if not pd.isna(names[int(i)])]
        if short:
            first = _first_rows(df[key])  # (codes number the names in order of first appearance)
            for i in short:
                warn.warning(df["_file"].iloc[int(first[i])], None,
                             f"{label} {names[i]!r}{lp_txt} covers {int(sizes[i])} of {n_seg} segments")
    return ref_blank


def _identical_judgements(jud: pd.DataFrame, lp_txt: str, warn: Report) -> None:
    """Identical judgement rows, per file with up to five examples (all kept and counted)."""
    dup = _duplicated(jud, JUDGEMENT_COLUMNS)
    if not dup.any():
        return
    same = jud[dup]
    for file, fsub in same.groupby("_file", sort=False):
        groups: list[str] = []
        n_rows, first_line = 0, None
        for _, sub in fsub.groupby(JUDGEMENT_COLUMNS, sort=False):
            lines = [int(x) for x in sub["_line"] if x is not None and x == x]
            n_rows += len(sub)
            if first_line is None and len(lines) > 1:
                first_line = lines[1]
            if len(groups) < 5:
                r = sub.iloc[0]
                groups.append(f"{describe_lines(lines)} (system {r['system']!r}, seg_id {r['seg_id']!r}, "
                              f"rater {r['rater']!r}, {r['judgement']} = {r['score']:g})")
        n_groups = fsub.groupby(JUDGEMENT_COLUMNS, sort=False).ngroups
        more = f"; and {n_groups - len(groups)} more" if n_groups > len(groups) else ""
        warn.warning(str(file), first_line,
                     f"{n_groups} set(s) of identical judgement rows{lp_txt} ({n_rows} rows): "
                     f"{'; '.join(groups)}{more}. All are kept and counted separately (a rater may repeat "
                     "a judgement); delete the copies if rows were pasted twice")


def _python_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``text`` column as Python strings (object dtype), as every loader
    gives them: a columnar read holds them in Arrow until here, where they are made in one pass
    (together in memory, as :meth:`Dataset.compact_texts` would make them)."""
    if frame["text"].dtype != object:
        col: Any = frame["text"]  # an Arrow-backed string column
        data = getattr(col.array, "_pa_array", None)
        # Arrow's own conversion (a missing text: None, as pandas' to_numpy(na_value=None) gives)
        # without pandas' masking and copy on top
        values = data.to_numpy() if data is not None else col.to_numpy(dtype=object, na_value=None)
        frame["text"] = pd.Series(values, index=frame.index, dtype="object")
    return frame


def _of_lp(table: pd.DataFrame, lp: str) -> pd.DataFrame:
    """The rows of ``table`` of language pair ``lp`` (the table itself when it holds no other)."""
    lps = _distinct(table["lp"])
    if len(lps) == 1 and lps[0] == lp:
        return table
    mine = table["lp"] == lp
    return table if mine.all() else table[mine]


def _dataset(name: str, lp: str, tables: dict[str, pd.DataFrame], extras: dict[str, pd.DataFrame],
             given_warnings: list[Problem], report: Report) -> Dataset:
    """The dataset of one language pair from the checked tables; its warnings (data kept) go to
    ``report`` and to the dataset."""
    seg, ref, out, jud, tag = (_of_lp(tables[t], lp) for t in ("segments", "references", "outputs", "judgements", "tags"))
    lp_txt = f" ({lp})" if lp else ""
    warn = Report()
    ref_blank = _text_warnings(ref, out, len(seg), lp_txt, warn)
    _identical_judgements(jud, lp_txt, warn)
    texts = set(_distinct(out["system"])) | set(_distinct(ref["ref_id"]))
    no_text = [s for s in _distinct(jud["system"]) if s not in texts]
    if no_text:
        warn.warning(jud["_file"].iloc[0], None,
                     f"judgements of {len(no_text)} system(s)/reference set(s){lp_txt} without text: "
                     f"{', '.join(no_text)}; kept (usable wherever no text is needed)")
    untagged = set(_distinct(tag["system"])) - texts
    if untagged:
        warn.warning(tag["_file"].iloc[0], None, f"tags name unknown system(s) {', '.join(sorted(untagged))}; ignored")
        tag = tag[~tag["system"].isin(untagged)]
    report.extend(warn.problems)
    segf = seg.rename(columns={"doc": "doc_id"})
    lp_extras = {k: (v[v["lp"] == lp].drop(columns=[c for c in ("lp", *META) if c in v]).reset_index(drop=True)
                     if "lp" in v else v) for k, v in extras.items()}
    if "domain" in segf and (segf["domain"].astype(str) != "").any():
        # a domain column of segments.tsv (e.g. WMT24) is kept as the segment_domains extra table
        lp_extras["segment_domains"] = segf[["seg_id", "domain"]].astype(str).reset_index(drop=True)
    # .copy(): the selected columns get arrays of their own. Without it the text column stays
    # a view of the loader's block of every column (lp, system, seg_id, text as Python
    # strings), which then outlives the load: at 100k segments × 10 systems, +3 M strings.
    arrow_texts = ref["text"].dtype != object and out["text"].dtype != object
    # the references with text (given, not blank), tested while the texts are Arrow strings
    ref_has_text = ~ref_blank & ref["text"].notna().to_numpy(dtype=bool) if arrow_texts else None
    ds = Dataset(
        name=name, lp=lp,
        segments=segf.reindex(columns=SEGMENT_COLUMNS).fillna(""),
        references=_python_texts(ref[REFERENCE_COLUMNS].reset_index(drop=True).copy()),
        outputs=_python_texts(out[OUTPUT_COLUMNS].reset_index(drop=True).copy()),
        judgements=jud[JUDGEMENT_COLUMNS].reset_index(drop=True),
        tags=tag[TAG_COLUMNS].reset_index(drop=True),
        extras=lp_extras,
        warnings=given_warnings + list(warn.problems),
    )
    if arrow_texts:
        ds.texts_are_compact()  # made together by _python_texts: nothing for compact_texts to do
        know_references_with_text(ds, ref_has_text)
    # the distinct names, at hand from the checks (the same columns, rows and order)
    ds.names_known(ref_ids=list(_distinct(ref["ref_id"])), systems=list(_distinct(out["system"])),
                   judged=list(_distinct(jud["system"])), criteria=list(_distinct(jud["judgement"])),
                   raters=list(_distinct(jud["rater"])))
    return ds


def assemble(name: str, segments: pd.DataFrame, references: pd.DataFrame, outputs: pd.DataFrame,
             judgements: pd.DataFrame, tags: pd.DataFrame | None = None,
             extras: dict[str, pd.DataFrame] | None = None, report: Report | None = None) -> dict[str, Dataset]:
    """Validate long tables (each with lp + its columns + _file/_line) and build datasets by lp."""
    with _factorised():
        return _assemble(name, segments, references, outputs, judgements, tags, extras, report)


def _assemble(name: str, segments: pd.DataFrame, references: pd.DataFrame, outputs: pd.DataFrame,
              judgements: pd.DataFrame, tags: pd.DataFrame | None, extras: dict[str, pd.DataFrame] | None,
              report: Report | None) -> dict[str, Dataset]:
    report = report or Report()
    given_warnings = list(report.warnings)  # the loader's own (kept with every dataset)
    tags = tags if tags is not None else empty(TAG_COLUMNS)
    extras = extras or {}
    tables = {"segments": segments, "references": references, "outputs": outputs,
              "judgements": judgements, "tags": tags}
    _normalise(tables)

    names_report = Report()
    _name_problems(tables, names_report)
    report.extend(names_report.problems)
    given_warnings += names_report.warnings

    lps = _language_pairs(tables, report)
    segments, seg_keys = _segments(segments, report)
    # -- references -----------------------------------------------------------------------
    references = _unknown_segments(references, seg_keys, "references", report)
    references = _dups(references, ["lp", "seg_id", "ref_id"], "reference", report)
    # -- outputs --------------------------------------------------------------------------
    outputs = _unknown_segments(outputs, seg_keys, "outputs", report)
    outputs = _dups(outputs, ["lp", "system", "seg_id"], "output", report)
    clash = _pairs(outputs, "lp", "system") & _pairs(references, "lp", "ref_id")
    for lp, nm in sorted(clash):
        report.error(outputs["_file"].iloc[0], None, f"{nm!r} is both a system and a reference set"
                                                     f"{' in ' + lp if lp else ''}; rename one of them")
    judgements, extras = _judgements(judgements, seg_keys, extras, report)
    tags = _unknown_segments(tags, seg_keys, "tags", report)

    if not report.ok:
        raise DataError(report)

    checked = {"segments": segments, "references": references, "outputs": outputs,
               "judgements": judgements, "tags": tags}
    return {lp: _dataset(name, lp, checked, extras, given_warnings, report) for lp in (lps or [""])}
