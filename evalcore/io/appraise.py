"""Appraise result exports (WMT's human-evaluation platform): reader and writer.

Appraise's ``ExportSystemScoresToCSV`` command writes one CSV row per completed annotation,
comma-separated, quoted only where needed (RFC 4180), **without a header row**. The columns,
in this order (the ``get_system_data(extended_csv=True)`` layout of its result models; e.g.
WMT24's ``humeval/esa_generalMT2024_wave*.csv``):

=====  ====================  =========================================================
 #     column                 meaning
=====  ====================  =========================================================
 1     userID                 the annotator's user name               -> ``rater``
 2     systemID               the rated system (``+``-joined ids are already expanded
                              by Appraise into one row per system)    -> ``system``
 3     itemID                 the segment id                          -> ``seg_id``
 4     itemType               TGT (a rated output), CHK (a repeat shown for a
                              consistency check), BAD (a degraded copy, the attention
                              check), REF (a human reference as a control)
 5     sourceLanguage         e.g. ``eng``                            -> ``lp`` (with 6)
 6     targetLanguage         e.g. ``ces``                            -> ``lp = eng-ces``
 7     score                  0-100 slider value                      -> ``score``
 8     documentID             the document                            -> ``doc_id``
 9     isCompleteDocument     ``True`` for the score of a whole document, else ``False``
 (10)  mqm                    only in document-level / ESA campaigns: a JSON list of
                              error spans ``{"start_i", "end_i", "severity", ...}``
                                                                      -> ``esa_spans_json``
 10/11 startTime, endTime     seconds since the epoch                 -> ``start_time``,
                                                                          ``end_time``
 (+2)  batchNo, itemPK        only with ``--batch-info``              -> ``batch_no``,
                                                                          ``item_pk``
=====  ====================  =========================================================

So a file has 11 (segment-level DA), 12 (document-level DA / ESA, with ``mqm``), 13 or 14
(the same with batch information) fields per row; the layout is taken from the first row and
every other row must have as many fields. A header row, when someone added one, is
recognised (its 4th field is ``itemType``) and skipped.

What is kept where (nothing is dropped, docs/formats.md "Appraise and Pearmut"):

* **judgements** (evalcore's tidy judgements table): rows of type TGT scoring one segment,
  columns ``lp, system, seg_id, rater, judgement, score`` (``judgement`` = ``esa`` when the
  file has the ``mqm`` column, else ``da``) and the Appraise fields as extra columns
  ``doc_id, complete_document, start_time, end_time`` [``esa_spans_json``] [``batch_no,
  item_pk``]. Written as ``judgements.tsv`` they load with any tidy dataset (the extra
  columns are kept there; ``esa_spans_json`` gives the error spans of the Spans pages).
* **set aside** (same columns plus ``item_type`` and ``line``): quality-control rows (CHK,
  BAD, REF) and whole-document scores (``isCompleteDocument`` = True). They are not scores
  of a system's segment, so they never enter the judgements; each kind is reported with its
  lines, and the CLI writes them to a file of their own.

Problems, all at once, with file and line (:class:`~evalcore.core.problems.DataError`): a row
with another number of fields, an empty user/system/item id, an unknown item type, a score
that is not a number or outside 0-100, an ``isCompleteDocument`` other than True/False, an
``mqm`` field that is not a JSON list, a time that is not a number, and a row repeated
verbatim (same timestamps: a file concatenated twice). The same rater rating the same
output twice at different times is kept (both rows), with a warning, as the tidy reader does.
"""
from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field

import pandas as pd

from ..core.problems import DataError, Problem, Report, name_problem, parse_score, shown
from .safejson import JSONProblem
from .safejson import loads as safe_loads
from .text import decode, describe_lines
from .wmt_rules import apply_rules

NAME = "Appraise CSV export"

BASE_COLUMNS = ["userID", "systemID", "itemID", "itemType", "sourceLanguage", "targetLanguage", "score",
                "documentID", "isCompleteDocument"]
TIME_COLUMNS = ["startTime", "endTime"]
BATCH_COLUMNS = ["batchNo", "itemPK"]
MQM_COLUMN = "mqm"
#: fields per row -> the columns of that layout
LAYOUTS = {
    11: BASE_COLUMNS + TIME_COLUMNS,
    12: BASE_COLUMNS + [MQM_COLUMN] + TIME_COLUMNS,
    13: BASE_COLUMNS + TIME_COLUMNS + BATCH_COLUMNS,
    14: BASE_COLUMNS + [MQM_COLUMN] + TIME_COLUMNS + BATCH_COLUMNS,
}
ITEM_TYPES = {"TGT": "rated output", "CHK": "repeat shown for a consistency check",
              "BAD": "degraded output (attention check)", "REF": "human reference shown as a control"}
QC_TYPES = ("CHK", "BAD", "REF")
SCORE_RANGE = (0.0, 100.0)
#: startTime / endTime: seconds since the epoch, from 1970 to the end of year 9999 (the range a
#: date can be written in); anything else (nan, 1e308, a negative time) is a broken export
TIME_RANGE = (0.0, 253402300799.0)
#: the fields that are names: written into judgements.tsv they must read back as themselves
NAME_FIELDS = ("userID", "systemID", "itemID", "sourceLanguage", "targetLanguage")

#: tidy column <- Appraise column
TIDY_FROM = {"rater": "userID", "system": "systemID", "seg_id": "itemID", "score": "score",
             "doc_id": "documentID", "complete_document": "isCompleteDocument", "esa_spans_json": MQM_COLUMN,
             "start_time": "startTime", "end_time": "endTime", "batch_no": "batchNo", "item_pk": "itemPK"}
JUDGEMENT_BASE = ["lp", "system", "seg_id", "rater", "judgement", "score"]
MAX_LISTED = 20


@dataclass
class JudgementImport:
    """Human judgements read from an annotation platform's export.

    ``judgements``: the tidy judgements table (``lp, system, seg_id, rater, judgement, score``
    and the platform's own fields as extra columns); ``set_aside``: the rows that are not
    segment scores of a system (quality-control items, document scores, ...), with
    ``item_type`` and the ``line`` they came from; ``warnings``: what the reader noticed
    but kept (each with file and line); ``lines``: the line of each judgements row."""
    judgements: pd.DataFrame
    set_aside: pd.DataFrame
    warnings: list[Problem] = field(default_factory=list)
    source: str = ""
    lines: list[int] = field(default_factory=list)  # the file line of each judgements row
    texts: pd.DataFrame | None = None  # lp, system, seg_id, text: the rated texts, where the export has them
    sources: pd.DataFrame | None = None  # lp, seg_id, source


def _is_time(text: str) -> bool:
    """Whether ``text`` is a number of seconds within :data:`TIME_RANGE` (nan, inf and 1e308 are not)."""
    try:
        t = float(text)
    except (ValueError, OverflowError):
        return False
    return TIME_RANGE[0] <= t <= TIME_RANGE[1]


def _records(text: str, name: str, report: Report):
    """(first physical line, fields) of every non-blank CSV record of ``text``. A record the csv
    module cannot read (a field over its size limit of
    :data:`evalcore.io.text.MAX_FIELD_CHARS`) is reported with its line and reading stops."""
    from .text import MAX_FIELD_CHARS

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=",", quotechar='"', doublequote=True, strict=False)
    prev = 0
    while True:
        start = prev + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            why = (f"a field is longer than {MAX_FIELD_CHARS:,} characters" if "field larger" in str(exc)
                   else f"cannot be read as CSV ({str(exc)[:120]})")
            report.error(name, start, f"{why}; the rows after it are not read (is this an Appraise export?)")
            return
        prev = reader.line_num
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        yield start, row


def given_names(report: Report, name: str, **names: str | None) -> None:
    """Report a language pair or judgement name given for a whole file (``--lp``, ``--judgement``)
    that could not be written to judgements.tsv as itself."""
    for what, value in names.items():
        why = name_problem(value) if value is not None else None
        if why:
            report.error(name, None, f"the {what} given for the file {why}")


def _row_problems(v: dict[str, str], has_mqm: bool) -> list[tuple[str, str]]:
    """(kind, message) of every problem of one row's fields ``v``."""
    found = []
    missing = [c for c in NAME_FIELDS if not v[c]]
    if missing:
        found.append(("empty ids", f"empty {', '.join(missing)}: every row needs a user, a system, an item id and "
                                   "both language codes"))
    for c in NAME_FIELDS + ("documentID",):
        why = name_problem(v[c]) if v[c] else None
        if why:
            found.append(("bad names", f"{c} {why}: names may not hold tabs, line breaks or other control "
                                       "characters (they could not be written to judgements.tsv as themselves)"))
    if v["itemType"] not in ITEM_TYPES:
        found.append(("unknown item types", f"unknown item type {v['itemType']!r}: Appraise's item types are "
                      + ", ".join(f"{k} ({d})" for k, d in ITEM_TYPES.items())))
    s, why = parse_score(v["score"])
    if s is not None and not SCORE_RANGE[0] <= s <= SCORE_RANGE[1]:
        why = f"{shown(v['score'])} is outside 0-100"
    if why:
        found.append(("bad scores", f"score {why}; Appraise scores are numbers from 0 to 100"))
    if v["isCompleteDocument"] not in ("True", "False"):
        found.append(("bad isCompleteDocument", f"isCompleteDocument is {v['isCompleteDocument']!r}; it must be "
                                                "True or False (is a column missing or shifted?)"))
    if has_mqm and v[MQM_COLUMN].strip():
        try:
            spans = safe_loads(v[MQM_COLUMN])
            why = None if isinstance(spans, list) else f"a JSON {type(spans).__name__}"
        except JSONProblem as exc:
            why = str(exc)
        if why:
            found.append(("bad error-span fields", f"the error-span field (mqm) is not a JSON list ({why}); it "
                                                   'should look like [{"start_i": 0, "end_i": 5, "severity": '
                                                   '"minor"}] or []'))
    for c in TIME_COLUMNS:
        if v[c] and not _is_time(v[c]):
            found.append(("bad times", f"{c} {shown(v[c])} is not a number of seconds since the epoch from "
                                       f"{TIME_RANGE[0]:.0f} to {TIME_RANGE[1]:.0f} (the end of year 9999)"))
    return found


def read_appraise(data: bytes, name: str = "appraise.csv", *, judgement: str | None = None,
                  lp: str | None = None, wmt_filters: bool = False, repeats: str | None = None) -> JudgementImport:
    """Read an Appraise CSV export (the module docstring has the layout).

    ``judgement``: the name of the judgements (default ``esa`` with the ``mqm`` column, else
    ``da``); ``lp``: the language pair for every row instead of ``<sourceLanguage>-<targetLanguage>``
    (e.g. ``en-cs`` for ``eng``/``ces``; only when the file holds one pair); ``wmt_filters``,
    ``repeats``: WMT's filters and the rule for re-ratings (:mod:`evalcore.io.wmt_rules`; with
    ``wmt_filters`` an exact repeat row is set aside and counted instead of refused). Raises
    :class:`~evalcore.core.problems.DataError` with every problem at once."""
    report = Report()
    text = decode(data, name, report)
    if text is None:
        raise DataError(report)
    given_names(report, name, lp=lp, judgement=judgement)
    records = list(_records(text, name, report))
    if records and records[0][1][3:4] and records[0][1][3].strip().lower() == "itemtype":
        records = records[1:]  # a header row someone added
    if not report.ok:
        raise DataError(report)
    if not records:
        report.error(name, None, "holds no rows; an Appraise export has one CSV row per annotation: "
                                 + ", ".join(LAYOUTS[12]))
        raise DataError(report)
    n = len(records[0][1])
    if n not in LAYOUTS:
        report.error(name, records[0][0],
                     f"has {n} fields; an Appraise export (ExportSystemScoresToCSV) has 11 fields "
                     f"({', '.join(LAYOUTS[11])}), 12 with the ESA/MQM error spans after isCompleteDocument, "
                     "or 13/14 with batchNo, itemPK at the end: a column is missing, or this is another file")
        raise DataError(report)
    columns = LAYOUTS[n]
    col = {c: i for i, c in enumerate(columns)}
    has_mqm = MQM_COLUMN in col
    judgement = judgement or ("esa" if has_mqm else "da")

    wrong_count, rows, lines = [], [], []
    listed: dict[str, list[tuple[int, str]]] = {}
    for line, row in records:
        if len(row) != n:
            wrong_count.append((line, len(row)))
            continue
        v = {c: row[i].strip() if c != MQM_COLUMN else row[i] for c, i in col.items()}
        found = _row_problems(v, has_mqm)
        for kind, message in found:
            listed.setdefault(kind, []).append((line, message))
        if not found:
            rows.append(v)
            lines.append(line)
    for line, k in wrong_count[:MAX_LISTED]:
        report.error(name, line, f"has {k} fields but the first row has {n} ({', '.join(columns)}); "
                                 "a comma inside an unquoted field, or rows of two different exports?")
    if len(wrong_count) > MAX_LISTED:
        report.error(name, None, f"{len(wrong_count) - MAX_LISTED} more rows with the wrong number of fields not listed")
    for kind, entries in listed.items():
        for line, message in entries[:MAX_LISTED]:
            report.error(name, line, message)
        if len(entries) > MAX_LISTED:
            report.error(name, None, f"{len(entries) - MAX_LISTED} more rows with {kind} not listed")
    # a row repeated verbatim (same timestamps too) is the same annotation exported twice
    seen: dict[tuple, int] = {}
    for v, line in zip(rows if not wmt_filters else [], lines):
        key = tuple(v[c] for c in columns)
        if key in seen:
            report.error(name, line, f"repeats line {seen[key]} field for field (same times too): the same "
                                     "annotation twice, e.g. two exports pasted together; keep one (--wmt-filters sets exact "
                                     "repeats aside, counted)")
        else:
            seen[key] = line
    pairs = sorted({f"{v['sourceLanguage']}-{v['targetLanguage']}" for v in rows})
    if lp is not None and len(pairs) > 1:
        report.error(name, None, f"holds several language pairs ({', '.join(pairs)}); a language pair given "
                                 "for the whole file (--lp) can only rename a file with one pair")
    if not report.ok:
        raise DataError(report)

    tidy_cols = [t for t, a in TIDY_FROM.items() if a in col]
    out_rows, out_lines, aside_rows, aside_lines, aside_types = [], [], [], [], []
    for v, line in zip(rows, lines):
        rec = {t: v[TIDY_FROM[t]] for t in tidy_cols}
        rec["score"] = float(v["score"])
        rec["lp"] = lp if lp is not None else f"{v['sourceLanguage']}-{v['targetLanguage']}"
        rec["judgement"] = judgement
        if v["itemType"] in QC_TYPES or v["isCompleteDocument"] == "True":
            aside_rows.append(rec)
            aside_lines.append(line)
            aside_types.append(v["itemType"] if v["itemType"] in QC_TYPES else "document")
        else:
            out_rows.append(rec)
            out_lines.append(line)
    order = JUDGEMENT_BASE + [c for c in tidy_cols if c not in JUDGEMENT_BASE]
    judgements = pd.DataFrame(out_rows, columns=order)
    judgements["score"] = judgements["score"].astype(float)
    set_aside = pd.DataFrame(aside_rows, columns=order)
    set_aside["score"] = set_aside["score"].astype(float)
    set_aside.insert(len(order), "item_type", aside_types)
    set_aside["line"] = aside_lines
    warnings = Report()
    for kind in list(QC_TYPES) + ["document"]:
        kind_lines = [ln for ln, t in zip(aside_lines, aside_types) if t == kind]
        if kind_lines:
            what = ITEM_TYPES.get(kind, "score of a whole document (isCompleteDocument = True)")
            warnings.warning(name, kind_lines[0], f"{len(kind_lines)} row(s) of type {kind} ({what}; "
                                                  f"{describe_lines(kind_lines)}) are set aside, not counted "
                                                  "as segment scores")
    imp = JudgementImport(judgements, set_aside.reset_index(drop=True), list(warnings.problems), name, out_lines)
    return apply_rules(imp, wmt_filters=wmt_filters, repeats=repeats)


def read_appraise_file(path: str | os.PathLike, **kw) -> JudgementImport:
    """:func:`read_appraise` of the file at ``path`` (named by its base name in problems)."""
    with open(path, "rb") as fh:
        data = fh.read()
    return read_appraise(data, os.path.basename(str(path)), **kw)


# ---- writer ----------------------------------------------------------------------------
#: judgements whose score is not one 0-100 assessment of one output (the Annotate page's protocols
#: other than DA and ESA: evalcore.analysis.annotate.CRITERIA). Neither platform layout written here
#: holds them: written as Appraise/Pearmut scores they would be read back as DA/ESA scores
#: (higher = better, 0-100), so the writers refuse them (:func:`refuse_unsupported`).
NOT_EXPORTABLE = {
    "class_rank": "relative ranking (score = the output's rank among the 2-5 outputs of one screen, "
                  "1 = best, lower is better)",
    "class_mqm": "MQM-lite (score = minus the weighted errors, 0 = no error; the errors themselves are "
                 "rows of the extra table class_mqm_errors)",
}
SUPPORTED = "direct assessment (da, class_da) and ESA (esa, class_esa: a 0-100 score and error spans)"


def refuse_unsupported(judgements: pd.DataFrame, platform: str) -> None:
    """``ValueError`` naming every judgement of ``judgements`` that ``platform``'s layout cannot
    hold (:data:`NOT_EXPORTABLE`), what it is and what is supported; nothing is written then."""
    kinds = list(dict.fromkeys(judgements["judgement"].astype(str))) if "judgement" in judgements else []
    bad = [k for k in kinds if k in NOT_EXPORTABLE]
    if bad:
        raise ValueError(
            f"{platform} cannot hold the judgements {', '.join(map(repr, bad))}: "
            + "; ".join(f"{k} is {NOT_EXPORTABLE[k]}" for k in bad)
            + f". Its layout holds one 0-100 score per output, read back as direct assessment or ESA, so "
            f"they would come back as other judgements (ranks as scores, or without their errors); "
            f"supported: {SUPPORTED}. Nothing was written: keep them in the tidy format (the dataset "
            "folder's judgements.tsv and extra tables, which load back unchanged)")


def _score_text(v) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


def appraise_rows(judgements: pd.DataFrame, set_aside: pd.DataFrame | None = None) -> list[list[str]]:
    """The rows of an Appraise export holding ``judgements`` (and, when given, the
    ``set_aside`` rows with their ``item_type``), in the layout the columns call for: with
    ``esa_spans_json`` the 12-field ESA layout, with ``batch_no``/``item_pk`` the batch fields.

    ``lp`` must be ``<sourceLanguage>-<targetLanguage>`` (split at the first ``-``). Fields
    Appraise always has but a table may lack are written empty (``documentID``, times) or as
    ``False`` (``isCompleteDocument``) rather than invented. ``ValueError`` (nothing written) for
    relative ranking and MQM-lite judgements (:func:`refuse_unsupported`) and for scores outside
    0-100 (the reader refuses them: the file would not import back)."""
    refuse_unsupported(judgements, NAME)
    frames = [judgements.assign(item_type="TGT") if "item_type" not in judgements else judgements]
    if set_aside is not None and len(set_aside):
        frames.append(set_aside)
    table = pd.concat(frames, ignore_index=True)
    missing = [c for c in ("lp", "system", "seg_id", "rater", "score") if c not in table]
    if missing:
        raise ValueError(f"the judgements table has no column(s) {', '.join(missing)}")
    scores = pd.to_numeric(table["score"], errors="coerce")
    out_of_range = table[~scores.between(*SCORE_RANGE)]
    if len(out_of_range):  # the reader refuses them: the file would not import back
        kinds = ", ".join(map(repr, dict.fromkeys(out_of_range.get("judgement", pd.Series(["?"])).astype(str))))
        raise ValueError(f"{len(out_of_range)} score(s) of the judgements {kinds} are not numbers from 0 to 100 "
                         f"(e.g. {out_of_range['score'].iloc[0]!r} of system {out_of_range['system'].iloc[0]!r}, "
                         f"segment {out_of_range['seg_id'].iloc[0]!r}); Appraise scores are 0-100, so the file "
                         "would not import back: nothing was written")
    has_mqm = "esa_spans_json" in table
    has_batch = "batch_no" in table or "item_pk" in table
    columns = LAYOUTS[11 + has_mqm + 2 * has_batch]
    back = {a: t for t, a in TIDY_FROM.items()}
    rows = []
    for rec in table.to_dict("records"):
        lp = str(rec["lp"])
        src, _, tgt = lp.partition("-")
        if not (src and tgt):
            raise ValueError(f"language pair {lp!r} is not <source>-<target>; Appraise needs both languages")
        out = []
        for c in columns:
            if c == "sourceLanguage":
                val = src
            elif c == "targetLanguage":
                val = tgt
            elif c == "itemType":
                val = rec.get("item_type") or "TGT"
            elif c == "score":
                val = _score_text(rec["score"])
            else:
                val = rec.get(back[c], "")
                val = "" if val is None or (isinstance(val, float) and val != val) else str(val)
                if c == "isCompleteDocument" and not val:
                    val = "False"
            out.append(val)
        rows.append(out)
    return rows


def appraise_csv(judgements: pd.DataFrame, set_aside: pd.DataFrame | None = None) -> str:
    """:func:`appraise_rows` as CSV text (no header, like Appraise's own export)."""
    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerows(appraise_rows(judgements, set_aside))
    return buf.getvalue()


def write_appraise(judgements: pd.DataFrame, path: str | os.PathLike,
                   set_aside: pd.DataFrame | None = None) -> None:
    """Write :func:`appraise_csv` to ``path`` atomically (a failed write leaves the old file)."""
    from ..core.export import atomic_write

    text = appraise_csv(judgements, set_aside)
    atomic_write(path, lambda fh: fh.write(text))
