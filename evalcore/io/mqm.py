"""Google MQM TSV (google/wmt-mqm-human-evaluation) and its tidy annotation form.

**Raw form** (one row per annotated error; a row with category and severity ``No-error``
says "rated, nothing found"): tab-separated with a header, fields *not* quoted::

    system  doc  doc_id  seg_id  rater  source  target  category  severity

``source``/``target`` carry the rated text with the error span wrapped in ``<v>…</v>``.
The reader turns the rows into

* segments: (seg_id, doc, source) with the markers removed;
* outputs: the target text (markers removed) of every MT system;
* references: the target text of *human translations*, recognised by name (see
  :func:`human_ref_id`): ``ref`` -> ``ref-A``, ``refB``/``ref-b``/``ref_B`` -> ``ref-B``,
  ``Human-*``/``human*`` -> the name unchanged. Their judgements use the same id, so a human
  translation is judged like a system (methods §0; design of the Dataset);
* judgements: one ``mqm`` score per (system, seg_id, rater), see :func:`mqm_scores`;
* extras ``mqm_errors``: every annotation row (lp, system, seg_id, rater, category,
  severity, weight, span_in, span_start, span_end, span_text), spans as character offsets in
  the clean text (end exclusive), ``span_in`` = ``target``/``source``/``none`` (empty for
  ``No-error`` rows). This is the layout of ../shared/data/wmt21_ted_mqm/mqm_annotations.tsv.

The language pair comes from an ``lp`` column when present, else from the file name
(``mqm_ted_ende.tsv`` or ``…_en-de.tsv`` -> ``en-de``), else it is empty. Several files in a
folder give several language pairs.

**Tidy annotation form** (``lp``, ``system``, ``seg_id``, ``rater``, ``category``,
``severity``, …, no texts): read alone it gives judgements and segment ids without texts.

**Scores** (methods §0, Freitag et al. 2021 TACL §3.3 weighting): score = −Σ weight(error),
weights Major 5, Minor 1, Minor ``Fluency/Punctuation`` 0.1, Major ``Non-translation`` 25,
Neutral 0, No-error 0, computed by :func:`evalcore.human.mqm.mqm_scores` (the project's one MQM
scorer); ``weights`` (reader argument, CLI ``--mqm-weights``) override them. ``Critical`` has
no default weight and is reported with its lines.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from ..core.dataset import JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, Dataset
from ..human.mqm import MQM_WEIGHTS, format_mqm_weights, mqm_error_weight, mqm_scores, mqm_weigher, parse_mqm_weights
from ..core.problems import DataError, Report
from .assemble import assemble, frame
from .source import FileSource
from .text import decode, describe_lines, read_tsv

NAME = "Google MQM TSV (system, doc, doc_id, seg_id, rater, source, target, category, severity)"

RAW_COLUMNS = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"]
TIDY_COLUMNS = ["system", "seg_id", "rater", "category", "severity"]
ERROR_COLUMNS = ["lp", "system", "seg_id", "rater", "category", "severity", "weight",
                 "span_in", "span_start", "span_end", "span_text"]

# The one MQM scorer of the project lives in evalcore.human.mqm; these names are kept for callers
# of the reader module.
DEFAULT_WEIGHTS = MQM_WEIGHTS
parse_weights = parse_mqm_weights
error_weight = mqm_error_weight
_weigher = mqm_weigher


_REF_NAME = re.compile(r"^ref(?:[-_.]?([A-Za-z]))?$", re.IGNORECASE)


def human_ref_id(system: str) -> str | None:
    """Reference-set id of a human translation named like a system, else None.

    ``ref`` -> ``ref-A``; ``refB``, ``ref-b``, ``ref_B`` -> ``ref-B``; names starting with
    ``Human`` (``Human-A.0``, ``human-P``) are kept as they are.
    """
    m = _REF_NAME.match(system.strip())
    if m:
        return f"ref-{(m.group(1) or 'A').upper()}"
    if system.strip().lower().startswith("human"):
        return system.strip()
    return None


_MARK = re.compile(r"</?v>")


def strip_markers(text: str) -> tuple[str, tuple[int, int] | None]:
    """Text without ``<v>``/``</v>`` markers and the (start, end) of the first marked span."""
    if "<v>" not in text and "</v>" not in text:
        return text, None
    span = None
    start = text.find("<v>")
    if start >= 0:
        before = _MARK.sub("", text[:start])
        rest = text[start + 3:]
        end = rest.find("</v>")
        inner = _MARK.sub("", rest[:end] if end >= 0 else rest)
        span = (len(before), len(before) + len(inner))
    return _MARK.sub("", text), span


_LP_IN_NAME = re.compile(r"[_.]([a-z]{2})([a-z]{2})$|(?:^|[_.])([a-z]{2,3})-([a-z]{2,3})$", re.IGNORECASE)


def lp_from_filename(fname: str) -> str:
    """``mqm_ted_ende.tsv`` -> ``en-de``; ``x_en-de.tsv`` / ``zh-en.tsv`` -> the pair; else ""."""
    stem = fname.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    m = _LP_IN_NAME.search(stem)
    if not m:
        return ""
    a, b = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return f"{a.lower()}-{b.lower()}"


def _header(src: FileSource, fname: str) -> list[str]:
    data = src.read(fname)[:65536]
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    try:
        return [h.strip() for h in first.decode("utf-8", errors="replace").split("\t")]
    except Exception:  # pragma: no cover - decode with errors="replace" does not raise
        return []


def mqm_files(src: FileSource) -> list[tuple[str, str]]:
    """(file, "raw" | "tidy") for every top-level .tsv whose header is an MQM annotation table."""
    found = []
    for fname in src.names():
        if "/" in fname or not fname.lower().endswith(".tsv"):
            continue
        head = _header(src, fname)
        if all(c in head for c in RAW_COLUMNS):
            found.append((fname, "raw"))
        elif all(c in head for c in TIDY_COLUMNS):
            found.append((fname, "tidy"))
    return found


def detect(src: FileSource) -> bool:
    if src.find("segments.tsv") is not None:
        return False  # a tidy folder that carries mqm_annotations.tsv as an extra
    return bool(mqm_files(src))


def _read_raw(data: bytes, fname: str, report: Report) -> tuple[list[str], list[list[str]], list[int]] | None:
    """Unquoted TSV (Google's files are not RFC-4180 quoted: a field may start with a quote)."""
    text = decode(data, fname, report)
    if text is None:
        return None
    lines = text.split("\n")
    header = [h.strip() for h in lines[0].split("\t")]
    missing = [c for c in RAW_COLUMNS if c not in header]
    if missing:
        report.error(fname, 1, f"missing column(s) {', '.join(missing)}; the header has {', '.join(header)}")
        return None
    rows, nums, bad = [], [], []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(header):
            bad.append((i, len(fields)))
            continue
        rows.append(fields)
        nums.append(i)
    for i, k in bad[:20]:
        report.error(fname, i, f"has {k} fields but the header has {len(header)} (a tab inside a text, or a "
                               "line break inside a field?)")
    if len(bad) > 20:
        report.error(fname, None, f"{len(bad) - 20} more lines with the wrong number of fields not listed")
    return header, rows, nums


def _numeric_order(ids: list[str]) -> list[str]:
    try:
        return sorted(ids, key=lambda s: int(s))
    except ValueError:
        return ids


def read_mqm(src: FileSource, name: str, report: Report | None = None,
             weights: Mapping[str, float] | str | None = None) -> dict[str, Dataset]:
    """Read every MQM annotation file of ``src`` (raw or tidy form) into datasets by lp."""
    report = report or Report()
    own = Report()
    weigh = _weigher(weights)
    err_rows, err_files, err_lines = [], [], []
    seg: dict[tuple[str, str], list] = {}          # (lp, seg_id) -> [doc, source, file, line]
    texts: dict[tuple[str, str, str], list] = {}   # (lp, system, seg_id) -> [text, file, line]
    src_conflicts: dict[str, list[int]] = {}
    tgt_conflicts: dict[str, list[int]] = {}
    unknown_sev: dict[tuple[str, str], list[int]] = {}
    files = mqm_files(src)
    if not files:
        report.error(src.label, None, "no MQM annotation file: expected a .tsv with columns "
                                      + ", ".join(RAW_COLUMNS))
        raise DataError(report)
    for fname, kind in files:
        file_lp = lp_from_filename(fname)
        data = src.read(fname)
        if kind == "raw":
            parsed = _read_raw(data, fname, report)
            if parsed is None:
                continue
            header, rows, nums = parsed
        else:
            table = read_tsv(data, fname, report, TIDY_COLUMNS, ["lp"])
            if table is None:
                continue
            header, rows, nums = table.columns, table.rows, table.lines
        col = {c: header.index(c) for c in header}
        has_lp = "lp" in col
        for row, line in zip(rows, nums):
            lp = row[col["lp"]].strip() if has_lp else file_lp
            raw_sys = row[col["system"]].strip()
            ref_id = human_ref_id(raw_sys)
            system = ref_id or raw_sys
            seg_id = row[col["seg_id"]].strip()
            rater = row[col["rater"]].strip()
            category = row[col["category"]].strip()
            severity = row[col["severity"]].strip()
            w = weigh(category, severity)
            if w is None:
                unknown_sev.setdefault((fname, severity), []).append(line)
            no_error = severity.lower() in ("no-error", "no error") or category.lower() in ("no-error", "no error")
            span_in, span = "", None
            if kind == "raw":
                source, s_span = strip_markers(row[col["source"]])
                target, t_span = strip_markers(row[col["target"]])
                if not no_error:
                    span_in, span = ("target", t_span) if t_span else ("source", s_span) if s_span else ("none", None)
                doc = row[col["doc"]].strip()
                key = (lp, seg_id)
                if key not in seg:
                    seg[key] = [doc, source, fname, line]
                elif seg[key][1] != source:
                    src_conflicts.setdefault(fname, []).append(line)
                tkey = (lp, system, seg_id)
                if tkey not in texts:
                    texts[tkey] = [target, fname, line]
                elif texts[tkey][0] != target:
                    tgt_conflicts.setdefault(fname, []).append(line)
                span_text = (target if span_in == "target" else source)[span[0]:span[1]] if span else ""
            else:
                span_text = ""
                if (lp, seg_id) not in seg:
                    seg[(lp, seg_id)] = ["", "", fname, line]
            err_rows.append([lp, system, seg_id, rater, category, severity, w,
                             span_in, "" if span is None else span[0], "" if span is None else span[1], span_text])
            err_files.append(fname)
            err_lines.append(line)
    for (fname, sev), lines in unknown_sev.items():
        report.error(fname, lines[0], f"severity {sev!r} has no MQM weight ({describe_lines(lines)}); weighted "
                                      f"severities: {format_mqm_weights(weights)}; give it a weight with "
                                      f"--mqm-weights {sev.lower()}:N (Python: weights={{'{sev.lower()}': N}})")
    for fname, lines in src_conflicts.items():
        own.warning(fname, lines[0], f"the source text of a segment differs between rows ({describe_lines(lines)}); "
                                     "the first one is kept")
    for fname, lines in tgt_conflicts.items():
        own.warning(fname, lines[0], f"the target text of a (system, segment) differs between rows "
                                     f"({describe_lines(lines)}); the first one is kept")
    if not report.ok:
        raise DataError(report)

    errors = frame(ERROR_COLUMNS, err_rows, err_files, err_lines)
    scores = mqm_scores(errors.drop(columns=["_file", "_line"]), weights)
    first = errors.drop_duplicates(["lp", "system", "seg_id", "rater"])
    scores["_file"] = first["_file"].to_numpy()
    scores["_line"] = first["_line"].to_numpy()

    lps = list(dict.fromkeys(k[0] for k in seg))
    seg_rows, seg_files, seg_lines = [], [], []
    for lp in lps:
        for sid in _numeric_order([k[1] for k in seg if k[0] == lp]):
            doc, source, f, ln = seg[(lp, sid)]
            seg_rows.append([lp, sid, doc, source])
            seg_files.append(f)
            seg_lines.append(ln)
    segments = frame(["lp", "seg_id", "doc_id", "source"], seg_rows, seg_files, seg_lines)
    ref_rows, ref_f, ref_l, out_rows, out_f, out_l = [], [], [], [], [], []
    for (lp, system, sid), (text, f, ln) in texts.items():
        if human_ref_id(system) is not None or system.startswith("ref-"):
            ref_rows.append([lp, sid, system, text])
            ref_f.append(f)
            ref_l.append(ln)
        else:
            out_rows.append([lp, system, sid, text])
            out_f.append(f)
            out_l.append(ln)
    references = frame(["lp"] + REFERENCE_COLUMNS, ref_rows, ref_f, ref_l)
    outputs = frame(["lp"] + OUTPUT_COLUMNS, out_rows, out_f, out_l)
    judgements = scores[["lp"] + JUDGEMENT_COLUMNS + ["_file", "_line"]]
    extras = {"mqm_errors": errors.drop(columns=["_file", "_line"])}
    datasets = assemble(name, segments, references, outputs, judgements, None, extras, report)
    for ds in datasets.values():
        ds.warnings = [p for p in own.warnings] + list(ds.warnings)
    report.extend(own.warnings)
    return datasets


read = read_mqm
