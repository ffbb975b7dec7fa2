"""Files meant for people and spreadsheets: CSV formula neutralisation and atomic writes.

CSV formula injection (OWASP, "CSV Injection"): a spreadsheet treats a cell that begins with
``=``, ``+``, ``-`` or ``@`` (and, in some programs, a leading tab or carriage return) as a
formula, so a system name like ``=HYPERLINK("http://evil.example","x")`` in an exported table
would run when the file is opened. Every CSV written for people (page downloads, the CLI's
``.csv`` outputs) goes through :func:`neutralise_frame`, which prefixes such *text* cells with
a ``'`` as OWASP recommends.

Decisions (documented in docs/formats.md, "Exports"):

* only text is neutralised: numbers (int, float, numpy numbers, booleans, missing values) are
  written as numbers, so ``-0.53`` stays a number;
* a text cell that is exactly a decimal number (``-1``, ``+2.5``, ``-3e-4``) is a number to a
  spreadsheet, not a formula, and is left as it is (seg ids like ``-1`` survive);
* column names are text too and are neutralised the same way;
* TSV files written for tools (``score``/``correlate``/... without a ``.csv`` suffix) stay exact.
"""
from __future__ import annotations

import csv
import os
import re
import tempfile
from pathlib import Path
from typing import Callable

import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralise_cell(value):
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula;
    anything else (numbers, missing values, harmless text) unchanged."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def neutralise_frame(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells and column names are neutralised
    (:func:`neutralise_cell`); numeric columns are untouched."""
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        out[c] = col.map(neutralise_cell)
    out.columns = [neutralise_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out


def to_safe_csv(df: pd.DataFrame, file=None, **kw) -> str | None:
    """``df`` as comma-separated text for spreadsheets (to ``file``, or returned), formulas
    neutralised and every text cell quoted: Python's minimal quoting leaves a carriage return
    unquoted, which a spreadsheet reads as the end of the row."""
    return neutralise_frame(df).to_csv(file, index=False, quoting=csv.QUOTE_NONNUMERIC, **kw)


def atomic_write(path: str | os.PathLike, write: Callable, mode: str = "w") -> None:
    """Write a file all at once: ``write(fh)`` fills a temporary file in the same folder,
    which then replaces ``path`` (``os.replace``). A failed or interrupted run leaves the old
    file (or none), never half a file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        kw = {"encoding": "utf-8", "newline": ""} if "b" not in mode else {}
        with os.fdopen(fd, mode, **kw) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_table(df: pd.DataFrame, path: str | os.PathLike, **to_csv_kw) -> None:
    """Write a table atomically: a ``.csv`` path gets comma-separated values with formulas
    neutralised (for spreadsheets); any other path gets exact tab-separated values (for tools)."""
    if str(path).lower().endswith(".csv"):
        atomic_write(path, lambda fh: to_safe_csv(df, fh, **to_csv_kw))
    else:
        atomic_write(path, lambda fh: df.to_csv(fh, sep="\t", index=False, **to_csv_kw))
