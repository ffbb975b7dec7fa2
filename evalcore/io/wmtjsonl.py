"""WMT human-evaluation releases as JSONL (one JSON object per line) with ESA error spans.

The field names are those written by WMT's own release scripts (read in the public
repositories, not guessed; docs/formats.md, "WMT JSONL"):

* **one annotation per line** — WMT24's ``jsonl/wmt24_esa.jsonl`` (wmt-conference/
  wmt24-news-systems, ``humeval/merge_to_jsonl.py``): ``langs`` (the lp, e.g. ``en-cs``),
  ``line_id`` (the segment: its line in the WMT text files), ``doc_id``, ``domain``, ``src``,
  ``tgt``, ``system``, ``annotator``, ``esa_score`` (0–100; a number or a numeric string) and
  ``esa_spans`` (a list of ``{"start_i", "end_i", "severity"[, "error_type"]}``; both offsets
  ``"missing"`` = an omission). ``times`` and ``speech_info`` are not loaded.
* **one segment per line** — WMT24's ``wmt24-genmt-humeval.jsonl`` (the same script's unified
  format) and WMT25's ``data/wmt25-genmt-humeval.jsonl`` (wmt-conference/wmt25-general-mt,
  ``humeval/0[45]-collect_humeval.py``): ``doc_id`` (one segment, ``<document>_#_<index>``),
  ``src_text``, ``tgt_text`` (system -> text) and ``scores`` (system -> its annotations). The
  annotations of a system are a list of ``{"score", "annotator", "errors"[, "times"]}`` (WMT24),
  one ``{"human", "errors"}`` (WMT25, first collection) or one object with numbered waves
  ``{"human1", "errors1", "annotator1", "times1", "human2", …}`` (WMT25, final collection).
  ``errors`` is the same span list as ``esa_spans``. The lp is the ``langs`` field when there is
  one, else the part of ``doc_id`` before the first ``_#_`` when it looks like a language pair
  (WMT25: ``en-cs_CZ_#_news_#_…``), else none (one pair).

Mapping: the segment id is ``line_id`` (annotation layout) or ``doc_id`` (segment layout); each
distinct source becomes a segment, each distinct (system, segment) text an output; a system named
``ref`` + one capital letter (WMT's ``refA``) is a reference set, judged like a system (as in
mt-metrics-eval). Every annotation with a score is an ``esa`` judgement (rater = annotator,
``rater`` when the release has none); its span list goes to the ``esa_spans`` extra table
(:mod:`evalcore.io.spans`) with this file and line.

Checked, every problem with file and line, all at once (nothing is loaded if one is an error):
a line that is not JSON or not an object, a missing or mistyped field, a score that is not a
number, a segment with two different sources or an output with two different texts, spans
with an unknown severity, non-integer, negative or inverted offsets. Warnings (data kept):
annotations without a score (their spans are kept), spans beyond the text (kept, counted as out
of range, not used for span scores) and overlapping spans; one warning per file counts the
spans, the omissions and those out of range.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd

from .safejson import JSONProblem
from .safejson import loads as safe_loads
from ..core.dataset import Dataset
from ..core.problems import Report
from .assemble import assemble, empty, frame
from .source import FileSource
from .text import decode

NAME = "WMT human-evaluation JSONL (ESA scores and error spans)"
JUDGEMENT = "esa"
ANNOTATION_FIELDS = ("src", "tgt", "system", "esa_spans")
SEGMENT_FIELDS = ("doc_id", "src_text", "tgt_text", "scores")
_REF = re.compile(r"ref[A-Z]")
_LP = re.compile(r"[a-z]{2,3}(_[A-Za-z]+)*-[a-z]{2,3}(_[A-Za-z]+)*")
_WAVE = re.compile(r"(human|errors|annotator|times)(\d+)")


def _files(src: FileSource) -> list[str]:
    return sorted(n for n in src.names() if n.lower().endswith(".jsonl") and "/" not in n)


def detect(src: FileSource) -> bool:
    if src.find("segments.tsv") is not None:
        return False
    return bool(_files(src))


@dataclass(slots=True)
class _Line:
    """One annotation read from a line: where, which output, score and span list."""
    file: str
    line: int
    lp: str = ""
    seg: str = ""
    doc: str | None = None
    domain: str | None = None
    src: str | None = None
    system: str | None = None
    tgt: str | None = None
    rater: str | None = None
    score: float | None = None
    spans: Any = None  # the JSON span list as read (checked by the span reader)


class _BadScore(ValueError):
    pass


def _score(value, where: str, fname: str, ln: int, report: Report) -> float | None:
    """The score as a float (numbers and numeric strings), None when absent; reports and raises
    :class:`_BadScore` otherwise (the annotation is not read)."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    report.error(fname, ln, f"{where}: the score must be a number, got {value!r}")
    raise _BadScore


def _annotation_line(obj: dict, fname: str, ln: int, report: Report) -> list[_Line]:
    missing = [k for k in (*ANNOTATION_FIELDS, "line_id") if k not in obj]
    if missing:
        report.error(fname, ln, f"missing field(s) {', '.join(missing)} (an annotation line needs langs, line_id, "
                                "src, tgt, system, annotator, esa_score, esa_spans)")
        return []
    bad = [k for k in ("src", "tgt", "system") if not isinstance(obj[k], str)]
    if not isinstance(obj["line_id"], (int, str)) or isinstance(obj["line_id"], bool):
        bad.append("line_id")
    if bad:
        report.error(fname, ln, f"field(s) {', '.join(bad)} must be text (line_id: an integer or text)")
        return []
    try:
        score = _score(obj.get("esa_score"), f"system {obj['system']!r}", fname, ln, report)
    except _BadScore:
        return []
    return [_Line(file=fname, line=ln, lp=str(obj.get("langs") or ""), seg=str(obj["line_id"]),
                  doc=str(obj.get("doc_id") or ""), domain=str(obj.get("domain") or ""), src=obj["src"],
                  system=obj["system"], tgt=obj["tgt"], rater=str(obj.get("annotator") or "rater"),
                  score=score, spans=obj["esa_spans"])]


def _annotations_of(value) -> list[tuple[object, object, object]] | None:
    """(score, annotator, spans) of one system's annotations in any of the segment-layout forms;
    None when the value has none of them."""
    if isinstance(value, list):
        if not all(isinstance(a, dict) for a in value):
            return None
        return [(a.get("score"), a.get("annotator"), a.get("errors")) for a in value]
    if not isinstance(value, dict):
        return None
    if "errors" in value or "human" in value:
        return [(value.get("human", value.get("score")), value.get("annotator"), value.get("errors"))]
    waves = sorted({int(m.group(2)) for k in value if (m := _WAVE.fullmatch(k))})
    if waves:
        return [(value.get(f"human{w}"), value.get(f"annotator{w}"), value.get(f"errors{w}")) for w in waves]
    return None


def _segment_line(obj: dict, fname: str, ln: int, report: Report) -> list[_Line]:
    missing = [k for k in SEGMENT_FIELDS if k not in obj]
    if missing:
        report.error(fname, ln, f"missing field(s) {', '.join(missing)} (a segment line needs doc_id, src_text, "
                                "tgt_text, scores)")
        return []
    tgt, scores = obj["tgt_text"], obj["scores"]
    if not isinstance(obj["src_text"], str) or not isinstance(obj["doc_id"], str):
        report.error(fname, ln, "doc_id and src_text must be text")
        return []
    if not isinstance(tgt, dict) or not all(isinstance(t, str) for t in tgt.values()):
        report.error(fname, ln, "tgt_text must be an object of system -> text")
        return []
    if not isinstance(scores, dict):
        report.error(fname, ln, "scores must be an object of system -> annotations")
        return []
    doc = obj["doc_id"]
    lp = str(obj.get("langs") or "")
    if not lp and "_#_" in doc and _LP.fullmatch(doc.split("_#_", 1)[0]):
        lp = doc.split("_#_", 1)[0]
    out = [_Line(file=fname, line=ln, lp=lp, seg=doc, doc=doc.rsplit("_#_", 1)[0], domain=str(obj.get("domain") or ""),
                 src=obj["src_text"], system=s, tgt=t, rater=None, score=None, spans=None) for s, t in tgt.items()]
    for system, value in scores.items():
        anns = _annotations_of(value)
        if anns is None:
            report.error(fname, ln, f"scores of system {system!r}: expected a list of {{score, annotator, errors}} or "
                                    "an object with human/errors (or human1/errors1/...), got "
                                    f"{type(value).__name__}")
            continue
        if system not in tgt:
            report.error(fname, ln, f"system {system!r} has scores but no text in tgt_text")
            continue
        for score, annotator, spans in anns:
            try:
                score = _score(score, f"system {system!r}", fname, ln, report)
            except _BadScore:
                continue
            out.append(_Line(file=fname, line=ln, lp=lp, seg=doc, doc=doc.rsplit("_#_", 1)[0],
                             domain=str(obj.get("domain") or ""), src=obj["src_text"], system=system, tgt=tgt[system],
                             rater=str(annotator or "rater"),
                             score=score, spans=spans))
    return out


def _parse(src: FileSource, fname: str, report: Report) -> list[_Line]:
    text = decode(src.read(fname), fname, report)
    if text is None:
        return []
    out: list[_Line] = []
    layout = None
    n_lines = 0
    for ln, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        n_lines += 1
        try:  # duplicate keys, deep nesting, NaN and huge integers are reported (evalcore.io.safejson)
            obj = safe_loads(line)
        except JSONProblem as exc:
            report.error(fname, ln, f"not valid JSON ({str(exc).removeprefix('not valid JSON: ')}); "
                                    f"the line starts {line[:60]!r}")
            continue
        if not isinstance(obj, dict):
            report.error(fname, ln, f"each line must be one JSON object, got {type(obj).__name__}")
            continue
        kind = "segment" if "scores" in obj or "tgt_text" in obj else "annotation"
        if layout is None:
            layout = kind
        elif kind != layout:
            report.error(fname, ln, f"a {kind} line in a file of {layout} lines (an earlier line set the layout); "
                                    "keep one layout per file")
            continue
        out += (_segment_line if kind == "segment" else _annotation_line)(obj, fname, ln, report)
    if not n_lines:
        report.error(fname, None, "holds no JSON lines")
    return out


def _first(rows: list[_Line], key: Callable[[_Line], Any], value: Callable[[_Line], Any],
           what: Callable[[Any], str], report: Report) -> dict:
    """key -> (value, file, line) of the first row; a row with another value for the key is an error."""
    seen: dict = {}
    for r in rows:
        k, v = key(r), value(r)
        if k not in seen:
            seen[k] = (v, r.file, r.line)
        elif seen[k][0] != v:
            report.error(r.file, r.line, f"{what(k)} differs from the one at {seen[k][1]}, line {seen[k][2]}")
    return seen


def read_wmt_jsonl(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    from .spans import ESA_COLUMN, ESA_EXTRA, _capped, _esa_rows

    report = report or Report()
    rows: list[_Line] = []
    for fname in _files(src):
        rows += _parse(src, fname, report)
    segs = _first(rows, lambda r: (r.lp, r.seg), lambda r: r.src,
                  lambda k: f"the source of segment {k[1]!r}" + (f" ({k[0]})" if k[0] else ""), report)
    meta = _first(rows, lambda r: (r.lp, r.seg), lambda r: (r.doc, r.domain),
                  lambda k: f"the doc_id/domain of segment {k[1]!r}", report)
    texts = _first(rows, lambda r: (r.lp, r.system, r.seg), lambda r: r.tgt,
                   lambda k: f"the text of system {k[1]!r}, segment {k[2]!r}", report)
    seg_rows = [[lp, seg, meta[(lp, seg)][0][0], src_, meta[(lp, seg)][0][1]] for (lp, seg), (src_, _, _) in segs.items()]
    segments = frame(["lp", "seg_id", "doc_id", "source", "domain"], seg_rows,
                     [f for _, (_, f, _) in segs.items()], [ln for _, (_, _, ln) in segs.items()])
    ref: list[tuple[list, str, int]] = []
    out: list[tuple[list, str, int]] = []
    for (lp, system, seg), (text, f, ln) in texts.items():
        (ref if _REF.fullmatch(system) else out).append(([lp, seg, system, text] if _REF.fullmatch(system)
                                                         else [lp, system, seg, text], f, ln))
    references = frame(["lp", "seg_id", "ref_id", "text"], [r for r, _, _ in ref], [f for _, f, _ in ref],
                       [ln for _, _, ln in ref]) if ref else empty(["seg_id", "ref_id", "text"])
    outputs = frame(["lp", "system", "seg_id", "text"], [r for r, _, _ in out], [f for _, f, _ in out],
                    [ln for _, _, ln in out]) if out else empty(["system", "seg_id", "text"])
    anns = [r for r in rows if r.rater is not None]
    scored = [r for r in anns if r.score is not None]
    judgements = frame(["lp", "system", "seg_id", "rater", "judgement", "score"],
                       [[r.lp, r.system, r.seg, r.rater, JUDGEMENT, r.score] for r in scored],
                       [r.file for r in scored], [r.line for r in scored]) if scored else \
        empty(["system", "seg_id", "rater", "judgement", "score"])
    unscored = [r for r in anns if r.score is None]
    if unscored:
        report.warning(unscored[0].file, unscored[0].line, f"{len(unscored)} annotation(s) without a score: no "
                                                           "judgement for them; their spans are kept")
    extras = {}
    with_spans = [r for r in anns if r.spans is not None]
    no_spans = [r for r in anns if r.spans is None]
    if no_spans:
        report.warning(no_spans[0].file, no_spans[0].line, f"{len(no_spans)} annotation(s) without a span list "
                                                           "(no esa_spans / errors field): kept without spans")
    if with_spans:
        esa = pd.DataFrame([[r.lp, r.system, r.seg, r.rater, json.dumps(r.spans, ensure_ascii=False), r.file,
                             str(r.line)] for r in with_spans],
                           columns=["lp", "system", "seg_id", "rater", ESA_COLUMN, "file", "line"], dtype=str)
        # the span checks of the span reader (evalcore.io.spans), run here so that a broken span
        # is refused at load with its file and line
        spans_report = Report()
        spans: list = []
        for lp, part in esa.groupby("lp", sort=False):
            tx = {(s, g): t for (lp2, s, g), (t, _, _) in texts.items() if lp2 == lp}
            _esa_rows(part, tx, spans_report, [], spans)
        report.extend(_capped(spans_report.problems))
        _count_spans(spans, report)
        extras[ESA_EXTRA] = esa
    return assemble(name, segments, references, outputs, judgements, extras=extras, report=report)


def _count_spans(spans: list, report: Report) -> None:
    """One warning per file: how many spans, omissions and spans out of range were read."""
    by_file: dict[str, list] = {}
    for r in spans:
        by_file.setdefault(r[11], []).append(r[10])
    for f, status in by_file.items():
        n_om, n_out = status.count("omission"), status.count("out_of_range")
        if n_om or n_out:
            report.warning(f, None, f"{len(status):,} error spans read: {n_om:,} omission(s) (no place in the text; "
                                    f"counted in error profiles, not in span scores) and {n_out:,} out of range "
                                    "(beyond the text; kept, not used for span scores)")


read = read_wmt_jsonl


def read_wmt_jsonl_judgements(data: bytes, name: str = "humeval.jsonl", *, judgement: str | None = None,
                              lp: str | None = None, wmt_filters: bool = False, repeats: str | None = None):
    """The judgements of a WMT human-evaluation JSONL file (either layout, module docstring) as an
    :class:`~evalcore.io.appraise.JudgementImport` (``import-judgements --format wmtjsonl``):
    ``lp, system, seg_id, rater, judgement, score, doc_id, esa_spans_json`` and each row's line;
    annotations without a score are set aside (``item_type`` ``unscored``). ``wmt_filters``,
    ``repeats``: WMT's filters and the rule for re-ratings (:mod:`evalcore.io.wmt_rules`; the
    release has no times, so the later rating is the later line, then the later wave).
    Raises :class:`~evalcore.core.problems.DataError` with every problem of the file."""
    from ..core.problems import DataError
    from .appraise import JudgementImport
    from .wmt_rules import apply_rules

    report = Report()
    rows = _parse(FileSource({name: data}, name), name, report)
    if not report.ok:
        raise DataError(report)
    cols = ["lp", "system", "seg_id", "rater", "judgement", "score", "doc_id", "esa_spans_json"]

    def frame(items) -> pd.DataFrame:
        recs = [[lp if lp is not None else r.lp, r.system, r.seg, r.rater, judgement or JUDGEMENT, r.score,
                 r.doc or "", "" if r.spans is None else json.dumps(r.spans, ensure_ascii=False)] for r in items]
        return pd.DataFrame(recs, columns=cols).astype({"score": float})

    anns = [r for r in rows if r.rater is not None]
    scored = [r for r in anns if r.score is not None]
    unscored = [r for r in anns if r.score is None]
    aside = frame(unscored).assign(item_type="unscored", line=[r.line for r in unscored])
    warnings = Report()
    if unscored:
        warnings.warning(name, unscored[0].line, f"{len(unscored)} annotation(s) without a score are set aside")
    imp = JudgementImport(frame(scored), aside, list(warnings.problems), name, [r.line for r in scored])
    return apply_rules(imp, wmt_filters=wmt_filters, repeats=repeats)
