"""Result objects: a table and what a reader must know about it, returned by evalcore.

A function whose table comes with notes (who was scored against which references, what was left
out), warnings (segments a metric refused) or a line saying how the table was computed returns
a :class:`Result` instead of hiding them in ``DataFrame.attrs``: Streamlit sends a frame's attrs
to the browser as JSON (a NaN or an object there breaks the page), and attrs are copied silently
by some pandas operations and dropped by others. Pages show a result with
``pages/common.py:show_notes`` and its table with ``st.dataframe(res.table)``; commands write it
with ``evalcore.commands._lp.emit_result`` (the table to the output, notes after it).

Bottom layer: imports pandas and the standard library only. The objects are frozen (fields are
not reassigned), compare and hash by identity (a DataFrame has no truth value), and pickle, so
``st.cache_data`` and the pages' memo can store them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd


@dataclass(frozen=True, eq=False)
class Result:
    """``table`` and what goes with it.

    ``notes``: sentences a reader needs to read the table right (whose scores, which segments,
    what was left out and why); ``warnings``: problems with the values (e.g. segments a metric
    refused: NaN and left out of corpus scores); ``method``: one line saying how the table was
    computed (the aggregation, the settings), shown as its caption or section line."""

    table: pd.DataFrame
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    method: str = ""

    def __post_init__(self) -> None:
        # lists given by a caller become tuples (the object stays what it was when returned)
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "warnings", tuple(self.warnings))

    def messages(self) -> tuple[str, ...]:
        """The warnings, then the notes (what a command prints after the table)."""
        return self.warnings + self.notes


@dataclass(frozen=True, eq=False)
class Curve(Result):
    """An agreement curve (agreement as k judges are combined, Callison-Burch 2009 Fig. 1):
    ``reference_agreement`` is the reference (gold) panel's own inter-rater agreement, the top
    line (NaN with one reference rater); ``k_max`` the largest k drawn (None: not bounded)."""

    reference_agreement: float = float("nan")
    k_max: int | None = None


@dataclass(frozen=True, eq=False)
class Normalised(Result):
    """Normalised judgements (methods §5.1-5.2): ``excluded_raters`` are the raters (as dicts of
    the grouping columns) that could not be normalised and whose rows were left out;
    ``summary`` a per-rater summary when the producer computes one."""

    excluded_raters: tuple[dict[str, Any], ...] = ()
    summary: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "excluded_raters", tuple(self.excluded_raters))


@dataclass(frozen=True, eq=False)
class Ranked(Result):
    """A consensus ranking and ``support``: what it rests on (e.g. a
    :class:`~evalcore.human.ranking.BallotSupport`: ballots and comparisons per pair)."""

    support: Any = None


@dataclass(frozen=True, eq=False)
class Subset(Result):
    """Rows selected from a larger set: ``n_compared`` is the size of the set they were
    selected from (e.g. the segments with both signals, of which ``table`` holds those that
    disagree)."""

    n_compared: int = 0


@dataclass(frozen=True, eq=False)
class Detailed(Result):
    """A summary ``table`` and the rows it summarises (``detail``, e.g. one row per held-out
    reference set or per flagged segment); ``segments``: the segment ids both were computed over."""

    detail: pd.DataFrame | None = None
    segments: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "segments", tuple(self.segments))
