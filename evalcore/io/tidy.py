"""Tidy TSV folder (the layout of ../shared/data): reader and writer.

Files (header row, tab-separated, UTF-8; ``lp`` optional when there is one pair):

* ``segments.tsv``   lp, seg_id[, source][, doc_id | doc][, domain] (required; domain -> extra ``segment_domains``)
* ``references.tsv`` lp, seg_id, ref_id, text
* ``outputs.tsv``    lp, system, seg_id, text
* ``judgements.tsv`` lp, system, seg_id[, rater], judgement, score   (rater defaults to ``rater``)
* ``tags.tsv``       lp, system, seg_id, tag                          (phenomenon tags, optional)
* ``comprehension.tsv`` lp, system, doc_id, question_id, rater, correct[, question, answer]
  (reading-comprehension answers, optional; checked by :mod:`evalcore.io.comprehension`, kept
  as the ``comprehension`` extra table)

Extra columns are kept: those of ``<kind>.tsv`` become the extra table ``<kind>_columns``
(saved as ``extra_<kind>_columns.tsv``); ``esa_spans_json`` of judgements.tsv (ESA error spans) is
kept once, with its keys and source lines, as the ``esa_spans`` extra table
(:func:`evalcore.io.spans.esa_extra`), not in ``judgements_columns``.
Other files are left alone (``mqm_annotations.tsv`` is read as
the ``mqm_errors`` extra table, ``postedits_tokenized.tsv`` as ``postedits``, ``metric_spans.tsv``
(error spans a metric returned, :func:`evalcore.io.spans.read_metric_spans`) as ``metric_spans``).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import pandas as pd

from ..core.dataset import Dataset
from ..core.export import atomic_write
from ..core.problems import Report
from ..human.mqm import mqm_weigher
from .assemble import assemble, empty, frame_from_table
from .source import FileSource
from .text import describe_lines, header_summary, read_tsv
from .weights import current_mqm_weights

SPECS = {
    "segments": (["seg_id"], ["lp", "source", "doc_id", "domain"]),
    "references": (["seg_id", "ref_id", "text"], ["lp"]),
    "outputs": (["system", "seg_id", "text"], ["lp"]),
    "judgements": (["system", "seg_id", "judgement", "score"], ["lp", "rater"]),
    "tags": (["system", "seg_id", "tag"], ["lp"]),
}
ALIASES = {"doc": "doc_id", "refset": "ref_id", "sys": "system", "segment": "seg_id"}


def detect(src: FileSource) -> bool:
    return src.find("segments.tsv") is not None or src.find("outputs.tsv", "judgements.tsv") is not None


#: the columns that identify a row of each file: an extra column is kept with them
KEYS = {"segments": ["seg_id"], "references": ["seg_id", "ref_id"], "outputs": ["system", "seg_id"],
        "judgements": ["system", "seg_id", "rater", "judgement"], "tags": ["system", "seg_id", "tag"]}


def _read(src: FileSource, kind: str, report: Report, required_file: bool,
          kept: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """The table of ``<kind>.tsv`` (its known columns). Columns beyond those (e.g. WMT24's
    ``n_error_spans`` and ``esa_spans_json`` in judgements.tsv) are never dropped: they go to
    ``kept["<kind>_columns"]`` (lp when the file has it, the row's key columns, the extra
    columns, as text, row by row), which becomes the extra table of that name, is saved as
    ``extra_<kind>_columns.tsv`` and read back from it."""
    required, optional = SPECS[kind]
    fname = src.find(f"{kind}.tsv")
    if fname is None:
        if required_file:
            report.error(f"{kind}.tsv", None, f"{kind}.tsv is missing from {src.label}; it needs columns "
                                              f"{', '.join(required + optional)}")
        return empty(required + [c for c in optional if c != "lp"])
    with src.opened(fname) as data:  # (a file on disk: read in blocks, never whole)
        table = read_tsv(data, fname, report, required, optional, ALIASES)
    if table is None:
        return empty(required + [c for c in optional if c != "lp"])
    cols = [c for c in dict.fromkeys(["lp"] + required + optional) if c in table.columns]
    df = frame_from_table(table, cols)
    known = set(required) | set(optional)
    others = [c for c in table.columns if c not in known and c]
    if others and kept is not None:
        keep = [c for c in ["lp"] + KEYS[kind] if c in table.columns] + others
        kept[f"{kind}_columns"] = pd.DataFrame({c: table.array(c).to_pylist() for c in keep}, columns=keep,
                                               dtype=str) if len(table) else pd.DataFrame(columns=keep, dtype=str)
    if kind == "judgements" and "rater" not in df:
        df["rater"] = "rater"
    return df


def read_tidy(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    kept: dict[str, pd.DataFrame] = {}
    segments = _read(src, "segments", report, True, kept)
    references = _read(src, "references", report, False, kept)
    outputs = _read(src, "outputs", report, False, kept)
    judgements = _read(src, "judgements", report, False, kept)
    tags = _read(src, "tags", report, False, kept)
    if src.find("references.tsv", "outputs.tsv", "judgements.tsv") is None:
        report.error(src.label, None, "no references.tsv, outputs.tsv or judgements.tsv: nothing to evaluate")
    sys_rows = _system_score_files(src, report)
    if sys_rows is not None:
        judgements = pd.concat([judgements, sys_rows], ignore_index=True)
    extras = dict(kept)
    named = [("mqm_annotations.tsv", "mqm_errors"), ("postedits_tokenized.tsv", "postedits")]
    named += [(n, n[len("extra_"):-len(".tsv")]) for n in src.names() if n.startswith("extra_") and n.endswith(".tsv")]
    for fname, key in named:
        found = src.find(fname)
        if found:
            table = read_tsv(src.read(found), found, report, [])
            if table is not None:
                extras[key] = pd.DataFrame(table.rows, columns=table.columns, dtype=str) if table.rows else \
                    pd.DataFrame(columns=table.columns, dtype=str)
                if key == "mqm_errors":
                    _unweighted_severities(table, report)
    from . import spans as _spans
    esa = _spans.esa_extra(src, report)
    if esa is not None:
        extras[_spans.ESA_EXTRA] = esa  # the ESA error spans of judgements.tsv (evalcore.io.spans)
    _spans.drop_esa_copy(extras)
    metric_spans = _spans.metric_spans_extra(src, report)
    if metric_spans is not None:
        extras[_spans.METRIC_EXTRA] = metric_spans  # error spans a metric returned (e.g. xCOMET)
    from . import comprehension as _comprehension
    comp = _comprehension.read_file(src, report, segments, outputs, references)
    if comp is not None:
        extras["comprehension"] = comp
    # files that failed to parse are empty here; assemble still checks the others and raises
    # with every problem at once
    return assemble(name, segments, references, outputs, judgements, tags, extras, report)


def _unweighted_severities(table, report: Report) -> None:
    """Report the severities of an MQM annotation table that the MQM weights in force (methods
    §0, or the CLI's ``--mqm-weights``) do not define, e.g. ``Critical``: never accepted silently."""
    if not (table.has("severity") and table.rows):
        return
    weigh = mqm_weigher(current_mqm_weights())
    cats = table.col("category") if table.has("category") else [""] * len(table.rows)
    unknown: dict[str, list[int]] = {}
    for cat, sev, line in zip(cats, table.col("severity"), table.lines):
        if weigh(cat, sev) is None:
            unknown.setdefault(sev, []).append(line)
    for sev, lines in unknown.items():
        report.warning(table.name, lines[0], f"severity {sev!r} ({describe_lines(lines)}) has no MQM weight: "
                                             "these rows are kept but cannot be weighed (the stored scores are "
                                             f"used); define it, e.g. --mqm-weights {sev.strip().lower() or '?'}:N")


#: the column that names the system in a WMT-style system score table, by preference
SYSTEM_NAME_COLUMNS = ("system", "mqm_system_name", "wmt_system")


def _system_score_files(src: FileSource, report: Report) -> pd.DataFrame | None:
    """Human scores given per system, as judgement rows with an empty seg_id (rater ``given``).

    ``system_scores.tsv`` (lp, system, judgement, score) and WMT-style tables named
    ``*_sys_scores.tsv`` without a ``metric`` column (e.g. ``wmt_da_sys_scores.tsv``: lp,
    wmt_system, mqm_system_name, da_raw_mean, da_z_mean, n_segments): the system name is taken
    from the first of :data:`SYSTEM_NAME_COLUMNS` present and every ``<criterion>_mean`` column
    is the system-level score of ``<criterion>``.
    """
    parts = []
    for fname in src.names():
        base = fname.rsplit("/", 1)[-1]
        if not (base == "system_scores.tsv" or base.endswith("_sys_scores.tsv")):
            continue
        # the same parser as every other TSV: empty or ragged files are reported with file and line
        table = read_tsv(src.read(fname), fname, report, [])
        if table is None:
            continue
        t = pd.DataFrame(table.rows, columns=table.columns, dtype=str) if table.rows else \
            pd.DataFrame(columns=table.columns, dtype=str)
        if "metric" in t.columns:
            continue  # metric scores, not human scores
        name_col = next((c for c in SYSTEM_NAME_COLUMNS if c in t.columns), None)
        lines = table.lines
        lp = t["lp"].str.strip() if "lp" in t.columns else pd.Series([""] * len(t))
        if name_col is None:
            report.error(fname, 1, f"no system column; a system score table needs one of "
                                   f"{', '.join(SYSTEM_NAME_COLUMNS)}; found: {header_summary(list(t.columns))}")
            continue
        if {"judgement", "score"} <= set(t.columns):
            crit = [("judgement", "score")]
        else:
            crit = [(c[:-len("_mean")], c) for c in t.columns if c.endswith("_mean")]
            if not crit:
                report.error(fname, 1, "no score columns: use judgement + score, or <criterion>_mean columns")
                continue
        for jname, col in crit:
            judgement = t["judgement"].str.strip() if jname == "judgement" else pd.Series([jname] * len(t))
            parts.append(pd.DataFrame({"lp": lp.to_numpy(), "system": t[name_col].str.strip().to_numpy(),
                                       "seg_id": "", "judgement": judgement.to_numpy(),
                                       "score": t[col].to_numpy(), "rater": "given",
                                       "_file": fname, "_line": lines}))
    return pd.concat(parts, ignore_index=True) if parts else None


# ---- writer ----------------------------------------------------------------------------
def _atomic_write_tsv(df: pd.DataFrame, path: Path) -> None:
    atomic_write(path, lambda fh: df.to_csv(fh, sep="\t", index=False, quoting=csv.QUOTE_MINIMAL,
                                            lineterminator="\n"))


def write_tidy(datasets: Dataset | list[Dataset], folder: str | os.PathLike) -> Path:
    """Write one or several datasets (several language pairs) as a tidy TSV folder.

    Each file is written atomically (temporary file + rename), so a crash never leaves a
    half-written file in place of a good one.
    """
    if isinstance(datasets, Dataset):
        datasets = [datasets]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)

    def cat(attr, cols):
        parts = [getattr(d, attr).assign(lp=d.lp)[["lp"] + cols] for d in datasets]
        return pd.concat(parts, ignore_index=True)

    _atomic_write_tsv(cat("segments", ["seg_id", "doc_id", "source"]), folder / "segments.tsv")
    _atomic_write_tsv(cat("references", ["seg_id", "ref_id", "text"]), folder / "references.tsv")
    _atomic_write_tsv(cat("outputs", ["system", "seg_id", "text"]), folder / "outputs.tsv")
    jud = cat("judgements", ["system", "seg_id", "rater", "judgement", "score"])
    jud["score"] = jud["score"].map(lambda v: repr(float(v)) if v == v else "")
    _atomic_write_tsv(jud, folder / "judgements.tsv")
    tags = cat("tags", ["system", "seg_id", "tag"])
    if len(tags):
        _atomic_write_tsv(tags, folder / "tags.tsv")
    extras: dict[str, list[pd.DataFrame]] = {}
    for d in datasets:
        for k, v in d.extras.items():
            extras.setdefault(k, []).append(v.assign(lp=d.lp) if "lp" not in v else v)
    names = {"mqm_errors": "mqm_annotations.tsv", "postedits": "postedits_tokenized.tsv",
             "comprehension": "comprehension.tsv"}
    for k, parts in extras.items():
        _atomic_write_tsv(pd.concat(parts, ignore_index=True), folder / names.get(k, f"extra_{k}.tsv"))
    return folder


NAME = "tidy TSV folder"
read = read_tidy
