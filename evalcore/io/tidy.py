"""Tidy TSV folder (the layout of ../shared/data): reader and writer.

Files (header row, tab-separated, UTF-8; ``lp`` optional when there is one pair):

* ``segments.tsv``   lp, seg_id[, source][, doc_id | doc][, domain] (required; domain -> extra ``segment_domains``)
* ``references.tsv`` lp, seg_id, ref_id, text
* ``outputs.tsv``    lp, system, seg_id, text
* ``judgements.tsv`` lp, system, seg_id[, rater], judgement, score   (rater defaults to ``rater``)
* ``tags.tsv``       lp, system, seg_id, tag                          (phenomenon tags, optional)

Extra columns are ignored. Other files are left alone (``mqm_annotations.tsv`` is read as
the ``mqm_errors`` extra table, ``postedits_tokenized.tsv`` as ``postedits``).
"""
from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

import pandas as pd

from ..dataset import Dataset
from ..problems import Report
from .assemble import assemble, empty, frame
from .source import FileSource
from .text import read_tsv

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


def _read(src: FileSource, kind: str, report: Report, required_file: bool) -> pd.DataFrame:
    required, optional = SPECS[kind]
    fname = src.find(f"{kind}.tsv")
    if fname is None:
        if required_file:
            report.error(f"{kind}.tsv", None, f"{kind}.tsv is missing from {src.label}; it needs columns "
                                              f"{', '.join(required + optional)}")
        return empty(required + [c for c in optional if c != "lp"])
    table = read_tsv(src.read(fname), fname, report, required, optional, ALIASES)
    if table is None:
        return empty(required + [c for c in optional if c != "lp"])
    cols = [c for c in dict.fromkeys(["lp"] + required + optional) if c in table.columns]
    idx = [table.columns.index(c) for c in cols]
    rows = [[r[i] for i in idx] for r in table.rows]
    df = frame(cols, rows, [fname] * len(rows), table.lines)
    if kind == "judgements" and "rater" not in df:
        df["rater"] = "rater"
    return df


def read_tidy(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    segments = _read(src, "segments", report, True)
    references = _read(src, "references", report, False)
    outputs = _read(src, "outputs", report, False)
    judgements = _read(src, "judgements", report, False)
    tags = _read(src, "tags", report, False)
    if src.find("references.tsv", "outputs.tsv", "judgements.tsv") is None:
        report.error(src.label, None, "no references.tsv, outputs.tsv or judgements.tsv: nothing to evaluate")
    extras = {}
    named = [("mqm_annotations.tsv", "mqm_errors"), ("postedits_tokenized.tsv", "postedits")]
    named += [(n, n[len("extra_"):-len(".tsv")]) for n in src.names() if n.startswith("extra_") and n.endswith(".tsv")]
    for fname, key in named:
        found = src.find(fname)
        if found:
            table = read_tsv(src.read(found), found, report, [])
            if table is not None:
                extras[key] = pd.DataFrame(table.rows, columns=table.columns, dtype=str) if table.rows else \
                    pd.DataFrame(columns=table.columns, dtype=str)
    # files that failed to parse are empty here; assemble still checks the others and raises
    # with every problem at once
    return assemble(name, segments, references, outputs, judgements, tags, extras, report)


# ---- writer ----------------------------------------------------------------------------
def _atomic_write_tsv(df: pd.DataFrame, path: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            df.to_csv(fh, sep="\t", index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
    extras = {}
    for d in datasets:
        for k, v in d.extras.items():
            extras.setdefault(k, []).append(v.assign(lp=d.lp) if "lp" not in v else v)
    names = {"mqm_errors": "mqm_annotations.tsv", "postedits": "postedits_tokenized.tsv"}
    for k, parts in extras.items():
        _atomic_write_tsv(pd.concat(parts, ignore_index=True), folder / names.get(k, f"extra_{k}.tsv"))
    return folder


NAME = "tidy TSV folder"
read = read_tidy
