"""Append-only row journals of a saved dataset (docs/formats.md, "Row journals").

A save of a few rows (one student's judgement on the Annotate page) must not rewrite and
re-verify the whole dataset. :func:`evalcore.io.workspace.append` therefore writes the rows as one
JSON line to a *journal file* of the dataset folder, one file per writer key (a rater):
``journal-<16 hex digits of the SHA-256 of the key>.jsonl``. Each line is one record::

    {"seq": 7, "lp": "es-en", "key": "ana", "rows": {"judgements": [{...}], "annotation_log": [{...}]}}

``seq`` numbers the records of the whole dataset in the order they were saved (meta.json keeps
the last one); ``rows`` maps a table — ``judgements`` or the name of an extra table — to the
rows appended to it. When the dataset loads, :func:`merge` appends every record's rows to the
tables of its language pair, in ``seq`` order, exactly as appending them in memory and saving
the whole dataset would have (a later full save writes them into the TSVs and drops the journals).

Pure functions: reading, checking and merging. Writing (locks, atomic renames) is
:mod:`evalcore.io.workspace`.
"""
from __future__ import annotations

import hashlib
import json
import math
from typing import Mapping, Sequence

import pandas as pd

from ..core.dataset import JUDGEMENT_COLUMNS, Dataset
from ..core.problems import DataError, Report

PREFIX = "journal-"
SUFFIX = ".jsonl"


def is_journal(fname: str) -> bool:
    """Whether a file name of a dataset folder is a journal file."""
    return fname.startswith(PREFIX) and fname.endswith(SUFFIX)


def file_name(key: str) -> str:
    """The journal file of writer ``key`` (any text: only its hash is in the name)."""
    return f"{PREFIX}{hashlib.sha256(str(key).encode('utf-8')).hexdigest()[:16]}{SUFFIX}"


def record_line(seq: int, lp: str, key: str, rows: Mapping[str, Sequence[Mapping]]) -> bytes:
    """One journal line (UTF-8, ending in a newline); ``ValueError`` when the rows are not
    what :func:`merge` accepts (checked here, before anything is written)."""
    rec = {"seq": int(seq), "lp": str(lp), "key": str(key), "rows": {t: [dict(r) for r in v] for t, v in rows.items()}}
    problems = _record_problems(rec)
    if problems:
        raise ValueError("; ".join(problems))
    return (json.dumps(rec, ensure_ascii=False, allow_nan=False, sort_keys=False) + "\n").encode("utf-8")


def _record_problems(rec) -> list[str]:
    if not isinstance(rec, dict):
        return ["is not a JSON object"]
    out = []
    if type(rec.get("seq")) is not int or rec["seq"] < 1:
        out.append("'seq' must be a positive integer")
    for k in ("lp", "key"):
        if not isinstance(rec.get(k), str):
            out.append(f"{k!r} must be a string")
    rows = rec.get("rows")
    if not isinstance(rows, dict) or not rows:
        return out + ["'rows' must map table names to lists of rows"]
    for table, items in rows.items():
        if not isinstance(items, list) or not all(isinstance(r, dict) for r in items):
            out.append(f"rows of {table!r} must be a list of objects")
            continue
        for r in items:
            if table == "judgements":
                if set(r) != set(JUDGEMENT_COLUMNS):
                    out.append(f"a judgements row must have exactly the columns {', '.join(JUDGEMENT_COLUMNS)}")
                elif not all(isinstance(r[c], str) for c in JUDGEMENT_COLUMNS if c != "score"):
                    out.append("the system, seg_id, rater and judgement of a judgements row must be strings")
                elif isinstance(r["score"], bool) or not isinstance(r["score"], (int, float)) \
                        or not math.isfinite(r["score"]):
                    out.append(f"the score of a judgements row must be a finite number, not {r['score']!r}")
            elif not all(isinstance(k, str) and isinstance(v, str) for k, v in r.items()):
                out.append(f"every value of a row of the extra table {table!r} must be a string")
            elif "lp" in r:
                out.append(f"a row of the extra table {table!r} holds an 'lp' column: the record's lp says it")
    return out


def parse(files: Mapping[str, bytes]) -> list[dict]:
    """The records of the journal files ``files`` (file name -> bytes), sorted by ``seq``;
    :class:`DataError` naming the file and line of every bad line (not JSON, wrong shape, a
    record filed under another writer's file, a ``seq`` used twice)."""
    report = Report()
    out: list[dict] = []
    seen: dict[int, str] = {}
    for fname, data in sorted(files.items()):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            report.error(fname, None, f"is not UTF-8 ({exc})")
            continue
        if text and not text.endswith("\n"):
            report.error(fname, text.count("\n") + 1, "the last line is cut off (no line break at its end)")
        for no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                report.error(fname, no, "empty line")
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                report.error(fname, no, f"not a JSON object ({exc})")
                continue
            bad = _record_problems(rec)
            if not bad and file_name(rec["key"]) != fname:
                bad = [f"the record of writer {rec['key']!r} belongs in {file_name(rec['key'])}"]
            if not bad and rec["seq"] in seen:
                bad = [f"seq {rec['seq']} is also used in {seen[rec['seq']]}"]
            if bad:
                report.error(fname, no, "; ".join(bad))
                continue
            seen[rec["seq"]] = f"{fname} line {no}"
            out.append(rec)
    if not report.ok:
        raise DataError(report)
    return sorted(out, key=lambda r: r["seq"])


def append_frame(frame: pd.DataFrame | None, rows: Sequence[Mapping]) -> pd.DataFrame:
    """``frame`` (an extra table: text columns) with ``rows`` appended as text; a column only
    one side has is filled with ``""`` on the other, new columns go last."""
    new = pd.DataFrame(list(rows), dtype=object)
    new = new.fillna("") if len(new) else new
    if frame is None or not len(frame.columns):
        return new.astype(str)
    for c in frame.columns:
        if c not in new:
            new[c] = ""
    for c in new.columns:
        if c not in frame:
            frame = frame.assign(**{c: ""})
    return pd.concat([frame, new[list(frame.columns)].astype(str)], ignore_index=True)


def with_tables(ds: Dataset, judgements: pd.DataFrame | None = None,
                extras: Mapping[str, pd.DataFrame] | None = None) -> Dataset:
    """A copy of ``ds`` with its judgements and/or some extra tables replaced."""
    return Dataset(ds.name, ds.lp, ds.segments, ds.references, ds.outputs,
                   ds.judgements if judgements is None else judgements, ds.tags,
                   {**ds.extras, **(extras or {})}, list(ds.warnings))


def with_pair(coll: Mapping[str, Dataset], lp: str, new: Dataset) -> dict[str, Dataset]:
    """``coll`` with ``new`` as language pair ``lp``. An extra table new to the collection is one
    file for every pair (:func:`evalcore.io.tidy.write_tidy`), so it loads back as an empty table
    for the other pairs: they get that empty table now, so that the collection in memory is what
    a full save loads back."""
    out = dict(coll)
    for other, ds in coll.items():
        if other == lp:
            continue
        missing = {k: pd.DataFrame(columns=list(v.columns), dtype=str) for k, v in new.extras.items()
                   if k not in ds.extras}
        if missing:
            out[other] = with_tables(ds, extras=missing)
    out[lp] = new
    return out


def apply(ds: Dataset, rows: Mapping[str, Sequence[Mapping]]) -> Dataset:
    """``ds`` with ``rows`` (table -> rows) appended: ``judgements`` rows cast to the dtypes of
    ``ds.judgements``, every other table as an extra table of text."""
    judgements = None
    extras: dict[str, pd.DataFrame] = {}
    for table, items in rows.items():
        if not items:
            continue
        if table == "judgements":
            new = pd.DataFrame(list(items), columns=JUDGEMENT_COLUMNS)
            judgements = pd.concat([ds.judgements if judgements is None else judgements,
                                    new.astype(ds.judgements.dtypes.to_dict())], ignore_index=True)
        else:
            extras[table] = append_frame(extras.get(table, ds.extras.get(table)), items)
    return with_tables(ds, judgements, extras)


def merge(coll: Mapping[str, Dataset], records: Sequence[dict], label: str = "") -> dict[str, Dataset]:
    """The collection with every record's rows appended to its language pair, in ``seq`` order
    (all rows of one table of one pair at once: the same tables as appending record by record).
    :class:`DataError` when a record names a language pair the collection lacks."""
    if not records:
        return dict(coll)
    report = Report()
    by_lp: dict[str, dict[str, list]] = {}
    for rec in records:
        if rec["lp"] not in coll:
            report.error(file_name(rec["key"]), None, f"record {rec['seq']} is for language pair {rec['lp'] or '-'}, "
                                                      f"which {label or 'the dataset'} does not have")
            continue
        tables = by_lp.setdefault(rec["lp"], {})
        for table, items in rec["rows"].items():
            tables.setdefault(table, []).extend(items)
    if not report.ok:
        raise DataError(report)
    out = dict(coll)
    for lp, tables in by_lp.items():
        out = with_pair(out, lp, apply(out[lp], tables))
    return out
