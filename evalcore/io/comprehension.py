"""Reader of the optional ``comprehension.tsv`` of a tidy folder (reading-comprehension
answers; Callison-Burch 2009): one row per answer,

    lp, system, doc_id, question_id, rater, correct[, question][, answer]

checked against the segments, outputs and references of the same folder, every problem
reported with its line. The scores are computed by :mod:`evalcore.analysis.comprehension`; the reader
lives here, in the input layer, so that reading a dataset never imports the scoring code.
"""
from __future__ import annotations

import pandas as pd

from ..core.problems import Report
from .text import describe_lines, read_tsv

FILE = "comprehension.tsv"
REQUIRED = ["system", "doc_id", "question_id", "rater", "correct"]
OPTIONAL = ["lp", "question", "answer"]
COLUMNS = ["system", "doc_id", "question_id", "rater", "correct", "question", "answer"]


def read_file(src, report: Report, segments: pd.DataFrame, outputs: pd.DataFrame,
              references: pd.DataFrame) -> pd.DataFrame | None:
    """Read and check ``comprehension.tsv`` from a file source, if present; every problem goes
    into ``report`` with its line. ``segments``/``outputs``/``references`` are the long tables
    of the same folder (with ``lp``), used to check document, system and language-pair names."""
    fname = src.find(FILE)
    if fname is None:
        return None
    table = read_tsv(src.read(fname), fname, report, REQUIRED, OPTIONAL, {"doc": "doc_id", "sys": "system"})
    if table is None:
        return None
    cols = {c: (table.col(c) if table.has(c) else [""] * len(table.rows)) for c in ["lp", *COLUMNS]}
    df = pd.DataFrame(cols, dtype=object)
    for c in df:
        df[c] = df[c].astype(str).str.strip() if c not in ("question", "answer") else df[c].astype(str)
    df["_line"] = table.lines
    seg_lp = lambda t: t["lp"].fillna("").astype(str).str.strip() if "lp" in t else pd.Series([""] * len(t))  # noqa: E731
    lps = sorted(set(seg_lp(segments)) - {""})
    if len(lps) == 1:
        df.loc[df["lp"] == "", "lp"] = lps[0]
    elif len(lps) > 1 and (df["lp"] == "").any():
        blank = df[df["lp"] == ""]
        report.error(fname, int(blank["_line"].iloc[0]),
                     f"{len(blank)} rows have no lp value but the data holds several language pairs "
                     f"({', '.join(lps)}); add an lp column ({describe_lines(blank['_line'].tolist())})")

    def bad(mask, message):
        sub = df[mask]
        if len(sub):
            report.error(fname, int(sub["_line"].iloc[0]), message.format(n=len(sub), where=describe_lines(sub["_line"].tolist())))

    for c in ("system", "doc_id", "question_id", "rater"):
        bad(df[c] == "", f"{{n}} row(s) with an empty {c} ({{where}}); every answer needs a {c}")
    grade = pd.to_numeric(df["correct"], errors="coerce")
    bad(grade.isna() & (df["correct"] != ""),
        "{n} non-numeric 'correct' value(s) (" + ", ".join(repr(v) for v in list(dict.fromkeys(df.loc[grade.isna(), "correct"]))[:5])
        + ") at {where}; use 1 (correct), 0 (wrong) or a grade between 0 and 1")
    bad(df["correct"] == "", "{n} empty 'correct' value(s) ({where}); leave unanswered questions out or grade them 0")
    bad(grade.notna() & ((grade < 0) | (grade > 1)),
        "{n} 'correct' value(s) outside 0..1 ({where}); grades must be 1 (correct), 0 (wrong) or in between")
    if lps or len(segments):
        known_lp = set(lps) | {""}
        bad(~df["lp"].isin(known_lp), "{n} row(s) name a language pair that is not in the segments file ({where})")
        docs = set(zip(seg_lp(segments), segments["doc_id"].fillna("").astype(str).str.strip())) if "doc_id" in segments else set()
        names = set(zip(seg_lp(outputs), outputs["system"].astype(str).str.strip())) | \
            set(zip(seg_lp(references), references["ref_id"].astype(str).str.strip()))
        for col, known, what, fix in (
                ("doc_id", docs, "document(s) not in the segments file's doc_id column", "fix the ids or add doc_id "
                                                                                         "to segments.tsv"),
                ("system", names, "system(s) that are neither a system of outputs.tsv nor a reference set of "
                                  "references.tsv", "")):
            ok = pd.Series([(a, b) in known for a, b in zip(df["lp"], df[col])], index=df.index, dtype=bool)
            unknown = df[~ok & (df[col] != "")]
            if len(unknown):
                ids = list(dict.fromkeys(unknown[col]))
                more = " ..." if fix and len(ids) > 8 else ""
                report.error(fname, int(unknown["_line"].iloc[0]),
                             f"{len(unknown)} row(s) name {what}: {', '.join(map(repr, ids[:8]))}{more} "
                             f"({describe_lines(unknown['_line'].tolist())})" + (f"; {fix}" if fix else ""))
    keys = ["lp", "system", "doc_id", "question_id", "rater"]
    dup = df[df.duplicated(keys, keep=False)]
    for _, sub in dup.groupby(keys, sort=False):
        report.error(fname, int(sub["_line"].iloc[1]),
                     f"duplicate answer (system={sub['system'].iloc[0]!r}, doc_id={sub['doc_id'].iloc[0]!r}, "
                     f"question_id={sub['question_id'].iloc[0]!r}, rater={sub['rater'].iloc[0]!r}), also at line "
                     f"{int(sub['_line'].iloc[0])}; keep one row per answer")
    df["correct"] = grade
    return df.drop(columns=["_line"]).reset_index(drop=True)
