"""Bring your own scores: external metrics (COMET, BLEURT, ... computed elsewhere) as metrics.

Input: a TSV with a header and the columns ``metric``, ``system``, ``seg_id``, ``score`` and
optionally ``ref_id`` (alias ``refset``) and ``lp``. An empty (or absent) ``seg_id`` marks a
system-level score; an empty ``ref_id`` marks the multi-reference score x(c, R); a non-empty
``ref_id`` marks the single-reference similarity x(c, r) against that reference set (what the
pairwise engine needs). ``system`` may name an MT system or a reference set (then ``ref_id``
must name another set). :func:`read_scores` validates everything and reports every problem
with file and line at once (:class:`~evalcore.problems.DataError`).

:func:`register_scores` turns each metric name into a registered metric (lower-cased id,
family ``external``, ``needs_text=False``, higher is better unless told otherwise) so that
``get_metric``, ``score_table`` and ``similarity_tensors`` treat it like any built-in.

Lookup interface (what the engine uses for ``needs_text=False`` metrics)::

    metric.lookup(system, seg_id, ref_id="", lp="") -> float   # NaN when not given

Rows whose ``lp`` is empty match every language pair; otherwise the dataset's lp must equal
the row's. ``score_table`` uses the rows without ``ref_id`` (segment level: seg_id rows;
system level: the system row, else the mean of that system's segment rows);
``similarity_tensors`` uses the rows with ``ref_id`` (x(c, r)); x(c, R − {r}) is known only
when a single other reference remains. External metrics cannot score new text:
``sentence_score`` raises.
"""
from __future__ import annotations

import hashlib
import io
import os
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .. import __version__
from ..problems import DataError, Report, score_problem
from .base import Metric, MetricMeta, Signature, _REGISTRY, make_signature, register, unregister

REQUIRED = ["metric", "system", "score"]
OPTIONAL = ["seg_id", "ref_id", "lp"]


def read_scores(path_or_bytes, name: str = "scores.tsv") -> pd.DataFrame:
    """Read and validate a scores TSV -> ``DataFrame(metric, system, seg_id, score[, ref_id][, lp])``.

    ``path_or_bytes`` is a path, bytes or a text string. Line numbers in problems are physical
    lines (header = line 1).
    """
    from ..io.text import decode

    report = Report()
    if isinstance(path_or_bytes, (bytes, bytearray)):
        raw = decode(bytes(path_or_bytes), name, report)
    elif isinstance(path_or_bytes, (str, os.PathLike)) and os.path.exists(path_or_bytes):
        name = name if name != "scores.tsv" else os.path.basename(str(path_or_bytes))
        with open(path_or_bytes, "rb") as fh:
            raw = decode(fh.read(), name, report)
    elif isinstance(path_or_bytes, str) and "\t" in path_or_bytes:
        raw = path_or_bytes
    else:
        raise FileNotFoundError(f"scores file not found: {path_or_bytes}")
    if raw is None:  # not UTF-8 text: the report says which line and what to do
        raise DataError(report)
    try:
        frame = pd.read_csv(io.StringIO(raw), sep="\t", dtype=str, keep_default_na=False, quoting=3)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        report.error(name, None, f"cannot read as a tab-separated table with a header: {exc}")
        raise DataError(report) from None
    frame.columns = [c.strip().lower() for c in frame.columns]
    if "refset" in frame.columns and "ref_id" not in frame.columns:
        frame = frame.rename(columns={"refset": "ref_id"})
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        report.error(name, 1, f"missing column(s) {', '.join(missing)}; the header must contain "
                              f"metric, system, seg_id, score (optional ref_id/refset, lp); found: "
                              f"{', '.join(frame.columns)}")
        raise DataError(report)
    for c in OPTIONAL:
        if c not in frame.columns:
            frame[c] = ""
    for c in ["metric", "system", "seg_id", "ref_id", "lp"]:
        frame[c] = frame[c].astype(str).str.strip()
    scores = np.full(len(frame), np.nan)
    seen: dict[tuple, int] = {}
    for i, row in enumerate(frame.itertuples(index=False)):
        line = i + 2
        if not row.metric:
            report.error(name, line, "empty metric name")
        if not row.system:
            report.error(name, line, "empty system name")
        try:
            v = float(row.score)
            why = score_problem(v)
            if why:
                report.error(name, line, f"score {row.score!r} {why}")
            else:
                scores[i] = v
        except ValueError:
            report.error(name, line, f"score {row.score!r} is not a finite number")
        if row.ref_id and row.ref_id == row.system:
            report.error(name, line, f"system {row.system!r} is scored against itself (ref_id = system)")
        key = (row.metric.lower(), row.lp, row.system, row.seg_id, row.ref_id)
        if key in seen:
            report.error(name, line, f"duplicate score for metric {row.metric!r}, system {row.system!r}, "
                                     f"seg_id {row.seg_id!r}, ref_id {row.ref_id!r}, lp {row.lp!r} "
                                     f"(first on line {seen[key]})")
        else:
            seen[key] = line
    if not len(frame):
        report.error(name, None, "no score rows")
    if not report.ok:
        raise DataError(report)
    frame["score"] = scores
    cols = ["metric", "system", "seg_id", "score"]
    if (frame["ref_id"] != "").any():
        cols.append("ref_id")
    if (frame["lp"] != "").any():
        cols.append("lp")
    return frame[cols].reset_index(drop=True)


class ExternalMetric(Metric):
    """Scores computed elsewhere, served by :meth:`lookup` (see module docstring)."""

    def __init__(self, name: str, frame: pd.DataFrame, higher_is_better: bool = True, source: str = ""):
        self.name = name
        sub = frame
        self._table: dict[tuple[str, str, str, str], float] = {}
        ref = sub["ref_id"] if "ref_id" in sub else pd.Series([""] * len(sub), index=sub.index)
        lp = sub["lp"] if "lp" in sub else pd.Series([""] * len(sub), index=sub.index)
        for l_, s_, g_, r_, v in zip(lp, sub["system"], sub["seg_id"], ref, sub["score"]):
            self._table[(str(l_), str(s_), str(g_), str(r_))] = float(v)
        h = hashlib.sha256()
        for k in sorted(self._table):
            h.update(("\t".join(k) + f"\t{self._table[k]!r}\n").encode())
        self._digest = h.hexdigest()[:12]
        self.meta = MetricMeta(
            id=name.lower(), family="external",
            description=f"external scores for {name!r}" + (f" from {source}" if source else "")
                        + f" ({len(self._table)} rows)",
            citation="user-supplied scores", higher_is_better=higher_is_better, needs_text=False)

    def lookup(self, system: str, seg_id: str, ref_id: str = "", lp: str = "") -> float:
        """The given score of ``system`` on ``seg_id`` ("" = system level) against ``ref_id``
        ("" = all references); rows with an empty lp match any lp. NaN when absent."""
        t = self._table
        v = t.get((lp, system, seg_id, ref_id))
        if v is None and lp:
            v = t.get(("", system, seg_id, ref_id))
        return float("nan") if v is None else v

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        """Given scores: the id, the rows and the digest of the table (no ``nrefs``: the scores
        were computed elsewhere)."""
        return make_signature([("scores", "external"), ("rows", len(self._table)), ("sha", self._digest)],
                              version=f"evalcore-{__version__}", metric=self.meta.id)

    def sentence_score(self, cand: str, refs: Sequence[str]) -> float:
        raise NotImplementedError(f"external metric {self.name!r} cannot score new text; use lookup()")


def register_scores(frame: pd.DataFrame, higher_is_better: dict[str, bool] | None = None,
                    source: str = "") -> list[str]:
    """Register every metric of a :func:`read_scores` frame; returns the registered ids.

    An id that is already a built-in metric is refused (rename the metric in the file); an id
    registered earlier by this function is replaced.
    """
    higher_is_better = {k.lower(): v for k, v in (higher_is_better or {}).items()}
    from . import _load_all  # noqa: F401  make sure built-ins are known first

    ids = []
    for key, sub in frame.groupby(frame["metric"].str.lower(), sort=False):
        name = str(sub["metric"].iloc[0])
        existing = _REGISTRY.get(key)
        if existing is not None and not getattr(existing, "_external", False):
            raise ValueError(f"metric {name!r} in the scores file clashes with the built-in metric {key!r}; "
                             f"rename it (e.g. 'ext-{key}')")
        metric = ExternalMetric(str(name), sub, higher_is_better.get(key, True), source)

        def factory(m=metric):
            return m

        factory._external = True
        unregister(key)
        register(key, factory)
        ids.append(key)
    return ids


def external_ids() -> list[str]:
    return sorted(k for k, f in _REGISTRY.items() if getattr(f, "_external", False))


def unregister_external(ids: Iterable[str] | None = None) -> None:
    for k in list(ids) if ids is not None else external_ids():
        if getattr(_REGISTRY.get(k.lower()), "_external", False):
            unregister(k)
