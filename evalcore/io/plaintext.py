"""Plain-text layout: one segment per line, one file per text set.

A folder, a zip, or a set of uploaded files holding

* ``src.txt`` (or ``source.txt``)  the source segments, one per line        (required)
* ``ref.<name>.txt``               one file per reference set <name>
* ``sys.<name>.txt``               one file per system <name>
* ``docs.txt``                     optional: the document id of each line
* ``judgements.tsv``               optional: system, seg_id[, rater], judgement, score
                                   (seg_id = 1-based line number; rater defaults to ``rater``)
* ``tags.tsv``                     optional: system, seg_id, tag
* ``lp.txt``                       optional: the language pair, e.g. ``es-en`` (first line)

Segment ids are the line numbers ``"1"`` .. ``"N"``. Every text file must have exactly as
many lines as the source; a final newline does not add a segment (``"a\\nb\\n"`` and
``"a\\nb"`` both hold two lines, ``"a\\nb\\n\\n"`` holds three, the last one empty). UTF-8
with or without a byte-order mark and CRLF line ends are accepted; other encodings and NUL
bytes are reported with file and line (:func:`evalcore.io.text.decode`). Empty lines in
reference and system files are kept as empty texts with a warning (:func:`assemble`).
"""
from __future__ import annotations

import re

import pandas as pd

from ..core.dataset import JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, SEGMENT_COLUMNS, TAG_COLUMNS, Dataset
from ..core.problems import DataError, Report
from .assemble import assemble, empty, frame
from .source import FileSource
from .text import decode, describe_lines, read_tsv

NAME = "plain text (src.txt, ref.<name>.txt, sys.<name>.txt)"

SOURCE_NAMES = ("src.txt", "source.txt")
_REF = re.compile(r"^ref\.(.+)\.txt$", re.IGNORECASE)
_SYS = re.compile(r"^sys\.(.+)\.txt$", re.IGNORECASE)


def _top(src: FileSource) -> list[str]:
    """Names at the top level of the source (plain-text files never live in sub-folders)."""
    return [n for n in src.names() if "/" not in n]


def detect(src: FileSource) -> bool:
    if src.find(*SOURCE_NAMES) is not None:
        return True
    return any(_REF.match(n) or _SYS.match(n) for n in _top(src))


def split_lines(text: str) -> list[str]:
    """Lines of a decoded text; a final newline ends the last line and adds no empty one."""
    if text == "":
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_lines(src: FileSource, fname: str, report: Report) -> list[str] | None:
    text = decode(src.read(fname), fname, report)
    return None if text is None else split_lines(text)


def _count_problem(fname: str, n: int, expected: int, source_name: str, report: Report) -> None:
    hint = ("a line break inside a segment, or a missing line" if n > expected else
            "a missing line, or two segments joined on one line")
    report.error(fname, None, f"has {n} line{'s' if n != 1 else ''} but {source_name} has {expected}; every "
                              f"file must have one line per source segment ({hint}?)")


def read_plaintext(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    top = _top(src)
    src_name = src.find(*SOURCE_NAMES)
    if src_name is None:
        report.error(src.label, None, "no src.txt (or source.txt) found: the plain-text layout needs the source "
                                      "segments, one per line, in src.txt next to ref.<name>.txt and sys.<name>.txt")
        raise DataError(report)
    if len([n for n in top if n.lower() in SOURCE_NAMES]) > 1:
        report.error(src.label, None, "both src.txt and source.txt are present; keep only one source file")

    lp = ""
    lp_name = src.find("lp.txt")
    if lp_name:
        lp_text = decode(src.read(lp_name), lp_name, report)
        if lp_text is not None:
            lp = (split_lines(lp_text) or [""])[0].strip()

    source = read_lines(src, src_name, report)
    n = len(source) if source is not None else None
    if source is not None and n == 0:
        report.error(src_name, None, "is empty; it needs one source segment per line")
    own = Report()  # warnings found here (attached to every dataset below)
    seg_ids = [str(i) for i in range(1, (n or 0) + 1)]

    docs = None
    docs_name = src.find("docs.txt")
    if docs_name:
        docs = read_lines(src, docs_name, report)
        if docs is not None and n is not None and len(docs) != n:
            _count_problem(docs_name, len(docs), n, src_name, report)
            docs = None
    if source is not None:
        blank = [i + 1 for i, s in enumerate(source) if not s.strip()]
        if blank:
            own.warning(src_name, blank[0], f"{len(blank)} empty source segment(s) ({describe_lines(blank)}); kept")

    line_nos = list(range(1, (n or 0) + 1))

    def text_frame(kind_re, key: str, columns: list[str]) -> pd.DataFrame:
        """Long table of every file matching kind_re, built column-wise (fast for big files)."""
        parts = []
        for fname in sorted(top):
            m = kind_re.match(fname)
            if not m:
                continue
            texts = read_lines(src, fname, report)
            if texts is None or n is None:
                continue
            if len(texts) != n:
                _count_problem(fname, len(texts), n, src_name, report)
                continue
            parts.append(pd.DataFrame({"lp": lp, key: m.group(1), "seg_id": seg_ids, "text": texts,
                                       "_file": fname, "_line": line_nos}, dtype=object))
        if not parts:
            return empty(columns)
        return pd.concat(parts, ignore_index=True)[["lp"] + columns + ["_file", "_line"]]

    references = text_frame(_REF, "ref_id", REFERENCE_COLUMNS)
    outputs = text_frame(_SYS, "system", OUTPUT_COLUMNS)
    if references.empty and outputs.empty and not any(_REF.match(f) or _SYS.match(f) for f in top):
        report.error(src.label, None, "no ref.<name>.txt or sys.<name>.txt file: nothing to evaluate "
                                      "(name reference files ref.<name>.txt and system files sys.<name>.txt)")

    segments = frame(["lp"] + SEGMENT_COLUMNS,
                     [[lp, s, (docs[i].strip() if docs else ""), source[i]] for i, s in enumerate(seg_ids)]
                     if source is not None else [],
                     [src_name] * len(seg_ids) if source is not None else [],
                     list(range(1, len(seg_ids) + 1)) if source is not None else [])

    judgements = empty(JUDGEMENT_COLUMNS)
    jname = src.find("judgements.tsv")
    if jname:
        table = read_tsv(src.read(jname), jname, report, ["system", "seg_id", "judgement", "score"], ["rater"],
                         {"sys": "system", "segment": "seg_id", "criterion": "judgement"})
        if table is not None:
            rater = table.col("rater") if table.has("rater") else ["rater"] * len(table.rows)
            rows = [[lp, s, g, r, j, sc] for s, g, r, j, sc in
                    zip(table.col("system"), table.col("seg_id"), rater, table.col("judgement"), table.col("score"))]
            judgements = frame(["lp"] + JUDGEMENT_COLUMNS, rows, [jname] * len(rows), table.lines)

    tags = empty(TAG_COLUMNS)
    tname = src.find("tags.tsv")
    if tname:
        table = read_tsv(src.read(tname), tname, report, ["system", "seg_id", "tag"], [],
                         {"sys": "system", "segment": "seg_id"})
        if table is not None:
            rows = [[lp, s, g, t] for s, g, t in zip(table.col("system"), table.col("seg_id"), table.col("tag"))]
            tags = frame(["lp"] + TAG_COLUMNS, rows, [tname] * len(rows), table.lines)

    known = {n.lower() for n in (*SOURCE_NAMES, "docs.txt", "lp.txt", "judgements.tsv", "tags.tsv")}
    ignored = [f for f in src.names() if f.lower() not in known and not _REF.match(f) and not _SYS.match(f)
               and not f.lower().startswith("readme")]
    if ignored:
        own.warning(src.label, None, f"ignored file(s) that match no plain-text naming rule: {', '.join(ignored[:10])}"
                                     f"{' ...' if len(ignored) > 10 else ''} (expected ref.<name>.txt, sys.<name>.txt, "
                                     "docs.txt, judgements.tsv, tags.tsv, lp.txt)")
    if not report.ok:
        raise DataError(report)
    datasets = assemble(name, segments, references, outputs, judgements, tags, None, report)
    for ds in datasets.values():
        ds.warnings = list(own.warnings) + list(ds.warnings)
    report.extend(own.warnings)
    return datasets


read = read_plaintext
