"""Bring your own scores: external metrics (COMET, BLEURT, ... computed elsewhere) as metrics.

Input: a TSV with a header and the columns ``metric``, ``system``, ``seg_id``, ``score`` and
optionally ``ref_id`` (alias ``refset``) and ``lp``. An empty (or absent) ``seg_id`` marks a
system-level score; an empty ``ref_id`` marks the multi-reference score x(c, R); a non-empty
``ref_id`` marks the single-reference similarity x(c, r) against that reference set (what the
pairwise engine needs). ``system`` may name an MT system or a reference set (then ``ref_id``
must name another set). :func:`read_scores` validates everything and reports every problem
with file and line at once (:class:`~evalcore.core.problems.DataError`).

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

import contextvars
import hashlib
import io
import os
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from .. import __version__
from ..core.problems import DataError, Report, ScoreCheck
from ..core.results import Result
from .base import Metric, MetricMeta, Signature, _REGISTRY, make_signature, register, register_provider, unregister

REQUIRED = ["metric", "system", "score"]
OPTIONAL = ["seg_id", "ref_id", "lp"]


def read_scores(path_or_bytes, name: str = "scores.tsv") -> pd.DataFrame:
    """Read and validate a scores TSV -> ``DataFrame(metric, system, seg_id, score[, ref_id][, lp])``.

    A path ending in ``.score`` is one mt-metrics-eval score file instead
    (:func:`_read_score_file`).

    ``path_or_bytes`` is a path, bytes or a text string. Line numbers in problems are physical
    lines (header = line 1).
    """
    from ..io.text import decode, header_summary

    report = Report()
    if isinstance(path_or_bytes, (str, os.PathLike)) and str(path_or_bytes).endswith(".score") \
            and os.path.exists(path_or_bytes):
        return _read_score_file(str(path_or_bytes))
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
                              f"{header_summary([str(c) for c in frame.columns])}")
        raise DataError(report)
    for c in OPTIONAL:
        if c not in frame.columns:
            frame[c] = ""
    for c in ["metric", "system", "seg_id", "ref_id", "lp"]:
        frame[c] = frame[c].astype(str).str.strip()
    scores = np.full(len(frame), np.nan)
    check = ScoreCheck(report, name)
    seen: dict[tuple, int] = {}
    row: Any  # a row of the string columns above (pandas-stubs types itertuples fields as any scalar)
    for i, row in enumerate(frame.itertuples(index=False)):
        line = i + 2
        if not row.metric:
            report.error(name, line, "empty metric name")
        if not row.system:
            report.error(name, line, "empty system name")
        v = check.score(row.score, line)  # the check of every score source (core.problems.ScoreCheck)
        if v is not None:
            scores[i] = v
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


def _read_score_file(path: str) -> pd.DataFrame:
    """One mt-metrics-eval score file, ``<metric>-<refs>.sys.score`` (``<system> <score>`` per line)
    or ``<metric>-<refs>.seg.score`` (a block of lines per system, one per segment in source
    order, seg_ids "1".."N"), as :func:`read_scores` rows with metric ``<metric>-<refs>``; ``None``
    = no score. Other names (``.doc.score``, human-score files) are refused with what to do."""
    from ..io.text import decode

    base = os.path.basename(path)
    stem, _, level = base[:-len(".score")].rpartition(".")
    report = Report()
    if level not in ("seg", "sys") or not stem:
        report.error(base, None, "an mt-metrics-eval score file must be named <metric>-<refs>.seg.score or "
                                 "<metric>-<refs>.sys.score; for a whole mt-metrics-eval folder load the folder and "
                                 "use --metrics stored:<metric>-<refs>")
        raise DataError(report)
    with open(path, "rb") as fh:
        raw = decode(fh.read(), base, report)
    if raw is None:
        raise DataError(report)
    rows: list[tuple[str, str, str, float]] = []
    seen: dict[str, int] = {}
    check = ScoreCheck(report, base)
    for i, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        f = [x.strip() for x in line.split("\t")] if "\t" in line else line.split()
        if len(f) != 2:
            report.error(base, i, f"expected 2 fields (<system> <score>), found {len(f)}; a TSV with a header "
                                  "(metric, system, seg_id, score) must not be named .score")
            continue
        system, value = f
        seen[system] = seen.get(system, 0) + 1
        if level == "sys" and seen[system] > 1:
            report.error(base, i, f"system {system!r} appears twice; a .sys.score file has one line per system")
            continue
        if value == "None":
            continue
        v = check.score(value, i)  # the check of every score source (core.problems.ScoreCheck)
        if v is None:
            continue
        rows.append((stem, system, str(seen[system]) if level == "seg" else "", v))
    if level == "seg" and len(set(seen.values())) > 1:
        report.error(base, None, "systems have different numbers of segment lines: "
                                 + ", ".join(f"{s} {n}" for s, n in list(seen.items())[:6]))
    if not rows and report.ok:
        report.error(base, None, "no score lines")
    if not report.ok:
        raise DataError(report)
    return pd.DataFrame(rows, columns=["metric", "system", "seg_id", "score"])


class ExternalMetric(Metric):
    """Scores computed elsewhere, served by :meth:`lookup` (see module docstring)."""

    def __init__(self, name: str, frame: pd.DataFrame, higher_is_better: bool = True, source: str = ""):
        self.name = name
        self.frame, self.source = frame, source
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


def _register_external(key: str, metric: Metric) -> None:
    """Register an object holding given scores under ``key`` (replacing an earlier one), marked
    external: not a built-in metric, listed by :func:`external_ids`."""
    def factory(m: Metric = metric) -> Metric:
        return m

    factory._external = True  # type: ignore[attr-defined]  # the mark external_ids() reads
    unregister(key)
    register(key, factory)


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
        _register_external(key, ExternalMetric(str(name), sub, higher_is_better.get(key, True), source))
        ids.append(key)
    return ids


def external_ids() -> list[str]:
    return sorted(k for k, f in _REGISTRY.items() if getattr(f, "_external", False))


def unregister_external(ids: Iterable[str] | None = None) -> None:
    for k in list(ids) if ids is not None else external_ids():
        if getattr(_REGISTRY.get(k.lower()), "_external", False):
            unregister(k)


# ---- metric scores stored in the data (mt-metrics-eval ``metric-scores/``) ------------------
STORED_PREFIX = "stored:"


def stored_table(dataset) -> pd.DataFrame:
    """The metric scores a dataset stores (``extras["metric_scores"]``: mt-metrics-eval
    ``metric-scores/<lp>/<metric>-<refs>.{seg,sys}.score``) with their ids: columns id
    (``stored:<metric>-<refs>``, the file's name without level and extension), level ("seg" or
    "sys"), system, seg_id ("" at system level), score. Empty without stored scores."""
    cols = ["id", "level", "system", "seg_id", "score", "metric", "refset"]
    t = getattr(dataset, "extras", {}).get("metric_scores")
    if t is None or not len(t):
        return pd.DataFrame(columns=cols)
    refset = t["refset"].astype(str) if "refset" in t else pd.Series([""] * len(t), index=t.index)
    name = t["metric"].astype(str) + np.where(refset != "", "-" + refset, "")
    return pd.DataFrame({"id": STORED_PREFIX + name, "level": t["level"].astype(str),
                         "system": t["system"].astype(str), "seg_id": t["seg_id"].astype(str),
                         "score": t["score"].astype(float), "metric": t["metric"].astype(str),
                         "refset": refset})[cols].reset_index(drop=True)


def stored_families(dataset) -> dict[str, pd.DataFrame]:
    """``stored:<metric>`` -> rows (system, seg_id, ref_id, score): the stored **segment** scores of
    a metric against each single reference set of the data (``<metric>-<ref>.seg.score`` with
    ``<ref>`` one of the dataset's reference sets), i.e. the single-reference similarities
    x(c, r) that QARLA (ORANGE, KING; methods §1.1) needs. Rows of a reference set scored as a
    system give x(r_i, r_j). Only metrics with such files for at least two reference sets."""
    t = stored_table(dataset)
    refs = set(getattr(dataset, "ref_ids", []) or [])
    t = t[(t["level"] == "seg") & t["refset"].isin(refs)]
    out: dict[str, pd.DataFrame] = {}
    for key, sub in t.groupby("metric", sort=False):
        metric = str(key)  # the column is str (stored_table)
        if sub["refset"].nunique() >= 2 and (STORED_PREFIX + metric).lower() not in \
                {i.lower() for i in stored_ids(dataset)}:
            out[STORED_PREFIX + metric] = pd.DataFrame({"system": sub["system"], "seg_id": sub["seg_id"],
                                                        "ref_id": sub["refset"], "score": sub["score"]})
    return out


def stored_ids(dataset) -> list[str]:
    """``stored:NAME`` of every metric whose scores the dataset stores, in file order."""
    return list(dict.fromkeys(stored_table(dataset)["id"]))


def _resolve_stored(dataset, metric_id: str) -> str:
    known = {i.lower(): i for i in stored_ids(dataset)}
    key = metric_id.strip().lower()
    if key not in known:
        raise ValueError(f"{metric_id!r}: the data stores no scores of that name "
                         f"({getattr(dataset, 'lp', '') or '-'}); stored: {', '.join(known.values()) or 'none'}")
    return known[key]


def stored_scores(dataset, metric_ids: Sequence[str], level: str = "system") -> Result:
    """A :class:`~evalcore.core.results.Result` of rows (metric, system, seg_id, score) of the stored
    metrics ``metric_ids`` (``stored:NAME``, case-insensitive), as given: never recomputed. System
    level: the stored system scores (``.sys.score``), else the mean of the system's stored segment
    scores (its ``notes`` say so); segment level: the stored segment scores (a metric stored at system level only
    has none: noted). ValueError names the stored metrics when an id is not one of them."""
    table = stored_table(dataset)
    rows, notes = [], []
    fams = {f.lower(): f for f in stored_families(dataset)}
    for mid in metric_ids:
        if mid.strip().lower() in fams:
            raise ValueError(f"{mid!r} holds the single-reference segment scores of every reference set (for "
                             "ORANGE/KING); to correlate, choose one reference set: "
                             + ", ".join(i for i in stored_ids(dataset)
                                         if i.lower().startswith(fams[mid.strip().lower()].lower() + "-")))
        name = _resolve_stored(dataset, mid)
        sub = table[table["id"] == name]
        sys_rows, seg_rows = sub[sub["level"] == "sys"], sub[sub["level"] == "seg"]
        if level == "system":
            if len(sys_rows):
                part = sys_rows.assign(seg_id="")
            else:
                part = seg_rows.groupby("system", sort=False)["score"].mean().reset_index().assign(seg_id="")
                notes.append(f"{name}: no stored system scores; the mean of its stored segment scores")
        else:
            part = seg_rows
            if not len(part):
                notes.append(f"{name}: stored at system level only, no segment scores")
        h = hashlib.sha256(sub[["level", "system", "seg_id", "score"]].to_csv(index=False).encode()).hexdigest()[:12]
        rows.append(part.assign(metric=name, signature=f"{name}|stored|rows:{len(sub)}|sha:{h}")[
            ["metric", "system", "seg_id", "score", "signature"]])
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["metric", "system", "seg_id", "score", "signature"])
    return Result(out, notes=tuple(notes))


class StoredMetric(ExternalMetric):
    """Scores stored in the data folder under ``stored:NAME``: served by :meth:`lookup`, never
    recomputed. mt-metrics-eval stores every metric oriented so that higher is better (WMT20's
    TER is negated), so stored metrics are higher-is-better."""

    def __init__(self, metric_id: str, frame: pd.DataFrame, source: str = ""):
        super().__init__(metric_id, frame, True, source)
        self.meta = MetricMeta(id=metric_id.lower(), family="stored",
                               description=f"scores stored in the data ({source or 'metric-scores/'}), "
                                           f"{len(self._table)} rows; never recomputed",
                               citation="the data's own metric scores (mt-metrics-eval metric-scores/)",
                               higher_is_better=True, needs_text=False)

    def signature(self, nrefs: int | str | None = None, level: str | None = None) -> Signature:
        # "<id>|stored|rows:…|sha:…|version:…": the bare "stored" mark rides with the id (it is no key:value field)
        return Signature([("rows", len(self._table)), ("sha", self._digest), ("version", f"evalcore-{__version__}")],
                         metric=f"{self.meta.id}|stored")


_STORED_ROWS: dict[str, dict[str, pd.DataFrame]] = {}  # id (lower case) -> lp -> rows (process-wide)
#: The stored metrics of the datasets this session (this thread of work: a page run, a command)
#: registered: id (lower case) -> metric. ``get_metric`` answers ``stored:NAME`` from here, so a
#: session never sees another's stored ids; work with no scope (a worker thread of a scheduler)
#: falls back to the process-wide registry.
_STORED_SCOPE: contextvars.ContextVar[dict[str, StoredMetric] | None] = contextvars.ContextVar("evalcore_stored_scope",
                                                                                         default=None)


def _stored_metrics(ds, lp: str) -> dict[str, StoredMetric]:
    """The stored metrics of one dataset: id (lower case) -> metric holding only its rows."""
    out: dict[str, StoredMetric] = {}
    source = f"metric-scores/ of {getattr(ds, 'name', '') or 'the data'}"
    for key, sub in stored_table(ds).groupby("id", sort=False):
        name = str(key)  # the column is str (stored_table)
        frame = pd.DataFrame({"metric": name, "system": sub["system"], "score": sub["score"], "lp": lp,
                              "seg_id": np.where(sub["level"] == "sys", "", sub["seg_id"])})
        out[name.lower()] = StoredMetric(name, frame, source)
    for name, rows in stored_families(ds).items():  # stored:<metric>: x(c, r) for QARLA
        out[name.lower()] = StoredMetric(name, rows.assign(metric=name, lp=lp), f"{source}, one reference set at a time")
    return out


def register_stored(datasets) -> list[str]:
    """Register the stored metrics of a dataset or of ``{lp: Dataset}`` as ``stored:NAME`` ids
    (what ``get_metric`` and the pickers see); returns the ids (as written). They are scoped to
    the current session (:data:`_STORED_SCOPE`): registering another collection replaces them,
    and another session's datasets are never listed or resolved here. Several language pairs of
    one collection are merged (a stored metric's rows carry their lp)."""
    items = list(datasets.values()) if isinstance(datasets, dict) else [datasets]
    merged: dict[str, list[StoredMetric]] = {}
    names: dict[str, str] = {}
    for ds in items:
        lp = str(getattr(ds, "lp", "") or "")
        for key, metric in _stored_metrics(ds, lp).items():
            merged.setdefault(key, []).append(metric)
            names.setdefault(key, metric.name)
            _STORED_ROWS.setdefault(key, {})[lp] = metric.frame  # the fallback of scope-less work
    scope: dict[str, StoredMetric] = {}
    for key, parts in merged.items():
        if len(parts) == 1:
            scope[key] = parts[0]
        else:
            frame = pd.concat([m.frame for m in parts], ignore_index=True)
            scope[key] = StoredMetric(names[key], frame, parts[0].source)
    _STORED_SCOPE.set(scope)
    for key in merged:  # the process-wide fallback, as before: rows of each lp replace that lp's rows
        both = pd.concat(list(_STORED_ROWS[key].values()), ignore_index=True)
        keys = ["lp", "system", "seg_id"] + (["ref_id"] if "ref_id" in both else [])
        both = both.drop_duplicates(keys, keep="last")
        _GLOBAL_STORED[key] = StoredMetric(names[key], both, "metric-scores/ of the datasets opened in this process")
    return [names[k] for k in merged]


_GLOBAL_STORED: dict[str, StoredMetric] = {}


def scoped_stored_ids() -> list[str]:
    """The ``stored:NAME`` ids of the current scope (lower case): what this session's lists show."""
    scope = _STORED_SCOPE.get()
    return sorted(scope) if scope else []


def _resolve_scoped(metric_id: str) -> StoredMetric | None:
    """``get_metric``'s answer for a ``stored:NAME`` id: the current scope's metric; KeyError
    naming the scope's ids when it has no such id; the process-wide registry without a scope."""
    key = metric_id.strip().lower()
    scope = _STORED_SCOPE.get()
    if scope is None:
        if key in _GLOBAL_STORED:
            return _GLOBAL_STORED[key]
        raise KeyError(f"unknown metric {metric_id!r}: stored:NAME ids are the metric scores a dataset stores "
                       "(mt-metrics-eval metric-scores/); none is loaded here")
    if key not in scope:
        raise KeyError(f"unknown metric {metric_id!r}: the data stores no scores of that name; it stores "
                       f"{', '.join(m.name for m in scope.values()) or 'none'}")
    return scope[key]


def stored_name_notes(dataset, metric_ids: Sequence[str]) -> list[str]:
    """Notes for evalcore metrics asked for by a name the data also stores scores under (``BLEU``
    on a folder with ``metric-scores/<lp>/BLEU-refA.sys.score``): they are computed by evalcore
    from the texts, not read; the stored ones are ``stored:NAME``."""
    stored = stored_ids(dataset)
    notes = []
    for mid in metric_ids:
        if mid.lower().startswith(STORED_PREFIX):
            continue
        same = [s for s in stored if s[len(STORED_PREFIX):].lower() == mid.lower()
                or s[len(STORED_PREFIX):].lower().rsplit("-", 1)[0] == mid.lower()]
        if same:
            notes.append(f"{mid} is evalcore's {mid} computed from the texts, not the scores stored in the data "
                         f"under that name; for those use --metrics {','.join(same)}")
    return notes


def _ensure_stored(metric_id: str) -> bool:
    """``stored:NAME`` ids are never in the process-wide registry (:func:`_resolve_scoped` answers)."""
    return False


# the registry asks this module for ``stored:NAME`` ids (scoped: listed and resolved with a dataset only)
register_provider(STORED_PREFIX, _ensure_stored, lambda: None, _resolve_scoped)
