"""Writing a command's table piece by piece (not a command itself).

:func:`write_stream` writes an iterable of tables with the same columns to ``--out`` (or stdout)
as they are computed, the ``lp`` column first: the header once, then each table's rows, so a
100k-segment ``score --level both`` never holds every metric's rows at once. A file is written
through :func:`evalcore.export.atomic_write` (a temporary file replaced at the end: an
interrupted run leaves the old file or none, never half a file); a ``.csv`` name gets the
spreadsheet-safe CSV of :func:`evalcore.export.to_safe_csv`, as :func:`evalcore.export.write_table`.
Under ``--lp all`` the tables go to the collecting sink of :mod:`evalcore.commands._lp`.
"""
from __future__ import annotations

import sys
from typing import Iterable

import pandas as pd

from ._lp import emit, with_lp


def _write_all(frames: Iterable[pd.DataFrame], fh, columns, csv: bool, lp: str, float_format) -> int:
    from ..export import to_safe_csv

    n, first = 0, True
    for df in frames:
        df = with_lp(df, lp)
        if csv:
            to_safe_csv(df, fh, header=first, float_format=float_format)
        else:
            df.to_csv(fh, sep="\t", index=False, header=first, float_format=float_format)
        first = False
        n += len(df)
    if first:  # nothing computed: the header alone, so the schema is stable
        empty = with_lp(pd.DataFrame(columns=columns), lp)
        (to_safe_csv(empty, fh) if csv else empty.to_csv(fh, sep="\t", index=False))
    return n


def write_stream(frames: Iterable[pd.DataFrame], dest: str | None, args, columns,
                 float_format: str | None = None) -> int:
    """Write ``frames`` (tables with ``columns``) one after the other to ``dest`` (None: stdout);
    returns the number of rows written."""
    lp = getattr(args, "_lp_value", None) or getattr(args, "lp", None) or ""
    if getattr(args, "_sink", None) is not None:  # --lp all: collected, written at the end
        n = 0
        for df in frames:
            emit(df, dest, args, float_format=float_format)
            n += len(df)
        return n
    if not dest:
        return _write_all(frames, sys.stdout, columns, False, lp, float_format)
    from ..export import atomic_write

    box = {}
    atomic_write(dest, lambda fh: box.update(n=_write_all(frames, fh, columns, str(dest).lower().endswith(".csv"),
                                                          lp, float_format)))
    print(f"wrote {box['n']} rows to {dest}", file=sys.stderr)
    return box["n"]
