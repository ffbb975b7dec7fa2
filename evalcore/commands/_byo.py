"""Checks of a ``--scores`` file against the dataset it is used with (not a command itself).

:func:`evalcore.metrics.byo.read_scores` validates the file on its own; here its segment ids
are compared with the dataset's: rows that name a segment the dataset does not have would
otherwise be dropped without a word (and a correlation over nothing fails later with numpy's
"zero-size array" text). They are reported with file and physical lines; when no
segment-level row of the dataset's language pair names a known segment, it is an error.
"""
from __future__ import annotations

import os

import pandas as pd

from ..io.text import describe_lines
from ..core.problems import DataError, Report


def _physical_lines(path, n: int) -> list[int]:
    """The physical line of each data row of the scores file (blank lines skipped, as pandas does)."""
    if isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", errors="replace").replace("\r\n", "\n")
        lines = [i for i, ln in enumerate(text.split("\n"), start=1) if ln.strip()][1:]
        if len(lines) == n:
            return lines
    return list(range(2, n + 2))


def unknown_segments(frame: pd.DataFrame, ds, path) -> list[str]:
    """Warnings for the rows of a read scores ``frame`` (of file ``path``) whose seg_id is not a
    segment of ``ds``; raises :class:`DataError` when none of its segment rows is known."""
    name = os.path.basename(str(path))
    lines = _physical_lines(path, len(frame))
    mine = frame["lp"].isin(["", ds.lp]) if "lp" in frame else pd.Series(True, index=frame.index)
    seg = mine & (frame["seg_id"] != "")
    if not seg.any():
        return []
    known = frame["seg_id"].isin(set(ds.segments["seg_id"].astype(str)))
    bad = seg & ~known
    if not bad.any():
        return []
    where = [lines[i] for i in range(len(frame)) if bad.iloc[i]]
    ids = list(dict.fromkeys(frame.loc[bad, "seg_id"]))
    lp_txt = f" of language pair {ds.lp}" if ds.lp else ""
    msg = (f"{int(bad.sum())} score row(s) name segment id(s) not in the dataset{lp_txt}: "
           f"{', '.join(map(repr, ids[:8]))}{' ...' if len(ids) > 8 else ''} ({describe_lines(where)})")
    if not (seg & known).any():
        report = Report()
        report.error(name, where[0], msg + "; no segment-level score matches the dataset: are the seg_ids "
                                           "those of another dataset, or numbered differently?")
        raise DataError(report)
    return [f"{name}, line {where[0]}: {msg}; these rows are left out"]
