"""Human error spans (ESA and MQM) as one table: where in the text each rater marked an error.

Two sources are read (docs/formats.md, "Error spans"):

* **ESA** (Kocmi et al. 2024, "Error Span Annotation", §2): a judgements table (``judgements.tsv``
  of a tidy folder, e.g. ../shared/data/wmt24_esa) with a column ``esa_spans_json`` holding a JSON
  list of ``{"start_i": int, "end_i": int, "severity": "minor"|"major", "error_type": …}``;
  character offsets into the rated text, end exclusive; ``"missing"`` for both offsets marks an
  omission (an error without a place in the output). The tidy reader keeps that column as the
  extra table ``esa_spans`` (:func:`esa_extra`): lp, system, seg_id, rater, esa_spans_json, file,
  line (the line of the judgements file it came from).
* **MQM** (Freitag et al. 2021, TACL §3): the ``mqm_errors`` extra table (tidy
  ``mqm_annotations.tsv``, or Google's MQM TSV with ``<v>…</v>`` marks, turned into offsets by
  :mod:`evalcore.io.mqm`): one row per error with category, severity, weight and
  ``span_in``/``span_start``/``span_end``; ``No-error`` rows say "rated, nothing found".

:func:`dataset_spans` turns a :class:`~evalcore.core.dataset.Dataset`'s tables into a
:class:`SpanTable`: ``items`` (every annotation: one rater's reading of one (system, seg_id), with or without
spans; ``item`` numbers them, an ESA rater who rated the same output twice gives two items) and
``spans`` (one row per error: lp, system, seg_id, rater, start, end, side, severity, category,
weight, status, file, line). ``status`` says why a span has no characters: ``ok``,
``omission`` (ESA "missing"; MQM error without a span), ``empty`` (start = end),
``out_of_range`` (beyond the rated text), ``no_text`` (the rated text is not in the data). No
row is dropped: every problem is a :class:`~evalcore.core.problems.Problem` with file and line (ESA)
or file and key (MQM rows carry no line); with ``strict`` the errors raise
:class:`~evalcore.core.problems.DataError`, all at once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from .safejson import JSONProblem
from .safejson import loads as safe_loads
from ..core.problems import DataError, Problem, Report
from .source import FileSource

ESA_COLUMN = "esa_spans_json"
ESA_EXTRA = "esa_spans"
SPAN_COLUMNS = ["item", "system", "seg_id", "rater", "start", "end", "side", "severity", "category", "weight",
                "status", "file", "line"]
ITEM_COLUMNS = ["item", "system", "seg_id", "rater", "scheme", "n_spans"]
#: severities a span may carry (lower case). ESA marks minor/major (WMT24 also has a few
#: "undecided"); MQM adds critical, neutral (weight 0).
SEVERITIES = ("minor", "major", "critical", "neutral", "undecided")
MAX_LISTED = 20


def esa_extra(src: FileSource, report: Report) -> pd.DataFrame | None:
    """The ``esa_spans_json`` column of a tidy folder's judgements.tsv with its keys and source
    lines (lp, system, seg_id, rater, esa_spans_json, file, line; every value a string), or None
    when the file has no such column. The JSON is not parsed here: a broken value does not stop
    the dataset from loading; :func:`dataset_spans` reports it with its line."""
    from .text import read_tsv

    fname = src.find("judgements.tsv")
    if fname is None:
        return None
    head = src.head(fname, 4096).split(b"\n", 1)[0]  # (the whole file only when it has the column)
    if ESA_COLUMN.encode() not in head:
        return None
    data = src.read(fname)
    table = read_tsv(data, fname, Report(), ["system", "seg_id", ESA_COLUMN], ["lp", "rater"])
    if table is None:  # the judgements reader reports the file's problems itself
        return None
    col = {c: i for i, c in enumerate(table.columns)}

    def get(row, c, default=""):
        return row[col[c]].strip() if c in col else default

    rows = [[get(r, "lp"), get(r, "system"), get(r, "seg_id"), get(r, "rater", "rater"), r[col[ESA_COLUMN]],
             fname, str(ln)] for r, ln in zip(table.rows, table.lines)]
    out = pd.DataFrame(rows, columns=["lp", "system", "seg_id", "rater", ESA_COLUMN, "file", "line"], dtype=str)
    # without an lp column the file holds one pair: no lp column, so the whole table goes to it
    return out if "lp" in col else out.drop(columns=["lp"])


def drop_esa_copy(extras: dict[str, pd.DataFrame]) -> None:
    """Keep ESA spans once: when the ``esa_spans`` extra table holds them, drop the same JSON from
    ``judgements_columns`` (in place).

    The tidy reader keeps every unknown column of judgements.tsv in ``judgements_columns`` and
    also builds ``esa_spans`` (the same JSON with its file and line, for the span reader's
    messages), so datasets saved before this was fixed hold the spans twice
    (``extra_judgements_columns.tsv`` and ``extra_esa_spans.tsv``); loading one goes through here
    too and keeps the ``esa_spans`` copy. ``judgements_columns`` is dropped when nothing but its
    key columns would be left."""
    esa, cols = extras.get(ESA_EXTRA), extras.get("judgements_columns")
    if esa is None or cols is None or ESA_COLUMN not in cols or ESA_COLUMN not in esa:
        return
    rest = cols.drop(columns=[ESA_COLUMN])
    if set(rest.columns) <= {"lp", "system", "seg_id", "rater", "judgement"}:
        del extras["judgements_columns"]
    else:
        extras["judgements_columns"] = rest


@dataclass
class SpanTable:
    """Every rated output (``items``) and every error span (``spans``) of one language pair,
    with the problems found while reading them."""
    lp: str
    items: pd.DataFrame
    spans: pd.DataFrame
    problems: list[Problem] = field(default_factory=list)

    def usable(self, side: str = "target") -> pd.DataFrame:
        """Spans with characters on ``side`` (status ``ok``)."""
        s = self.spans
        return s[(s["status"] == "ok") & (s["side"] == side)]

    def status_counts(self) -> pd.DataFrame:
        """How many spans of each status (ok, omission, empty, out_of_range, no_text) and severity."""
        if self.spans.empty:
            return pd.DataFrame(columns=["status", "severity", "n"])
        return self.spans.groupby(["status", "severity"], sort=True).size().rename("n").reset_index()


def _texts(dataset) -> dict[tuple[str, str], str]:
    """(system or reference id, seg_id) -> the rated text (outputs, and references judged like
    systems); memoised on the dataset (a page asks for it once per selected output)."""
    if "span_texts" in dataset._cache:
        return dataset._cache["span_texts"]
    out = {}
    for frame, key in ((dataset.references, "ref_id"), (dataset.outputs, "system")):
        for name, seg, text in zip(frame[key], frame["seg_id"].astype(str), frame["text"]):
            if isinstance(text, str):
                out[(str(name), seg)] = text
    dataset._cache["span_texts"] = out
    return out


def _where(file: str, line) -> tuple[str, int | None]:
    try:
        return file, int(line)
    except (TypeError, ValueError):
        return file, None


def _esa_rows(extra: pd.DataFrame, texts: dict, report: Report, items: list, spans: list) -> None:
    for system, seg, rater, raw, file, line in zip(extra["system"].astype(str), extra["seg_id"].astype(str),
                                                    extra["rater"].astype(str), extra[ESA_COLUMN],
                                                    extra.get("file", pd.Series(["judgements.tsv"] * len(extra))),
                                                    extra.get("line", pd.Series([""] * len(extra)))):
        f, ln = _where(str(file), line)
        raw = "" if raw is None or (isinstance(raw, float) and np.isnan(raw)) else str(raw)
        item = len(items)
        if not raw.strip():
            items.append([item, system, seg, rater, "esa", 0])
            continue
        try:
            value = safe_loads(raw)  # duplicate keys, deep nesting, NaN and huge integers: reported
        except JSONProblem as exc:
            report.error(f, ln, f"{ESA_COLUMN} is not valid JSON ({str(exc).removeprefix('not valid JSON: ')}); "
                                f"the value starts {raw[:60]!r}")
            continue
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            report.error(f, ln, f"{ESA_COLUMN} must be a JSON list of objects with start_i, end_i, severity; "
                                f"got {type(value).__name__}")
            continue
        text = texts.get((system, seg))
        n = 0
        mine: list = []
        bad = False
        for k, sp in enumerate(value, start=1):
            sev = str(sp.get("severity", "")).strip().lower()
            a, b = sp.get("start_i"), sp.get("end_i")
            cat = sp.get("error_type")
            cat = "" if cat is None else str(cat)
            where = f"span {k} of {system}, segment {seg}, rater {rater}"
            if sev not in SEVERITIES:
                report.error(f, ln, f"{where}: unknown severity {sp.get('severity')!r} (known: {', '.join(SEVERITIES)})")
                bad = True
                continue
            if a == "missing" and b == "missing":
                mine.append([item, system, seg, rater, np.nan, np.nan, "target", sev, cat, np.nan, "omission", f, ln])
                n += 1
                continue
            if type(a) is not int or type(b) is not int:
                report.error(f, ln, f"{where}: start_i and end_i must be integers (or both \"missing\" for an "
                                    f"omission); got {a!r}, {b!r}")
                bad = True
                continue
            if a > b or a < 0:
                report.error(f, ln, f"{where}: inverted or negative span [{a}, {b})")
                bad = True
                continue
            status = _span_status(text, a, b, report, f, ln, where)
            mine.append([item, system, seg, rater, a, b, "target", sev, cat, np.nan, status, f, ln])
            n += 1
        if bad:  # an annotation with a broken span is left out whole (listed above), not half-read
            continue
        _overlaps(mine, f, ln, f"{system}, segment {seg}, rater {rater}", report)
        spans.extend(mine)
        items.append([item, system, seg, rater, "esa", n])


def _overlaps(rows: list, f: str, ln, where: str, report: Report) -> None:
    """Warn (kept; their characters count once) when spans of one annotation overlap."""
    iv = sorted((r[4], r[5]) for r in rows if r[10] == "ok" and r[4] < r[5])
    hits = [(a, b, c, d) for (a, b), (c, d) in zip(iv, iv[1:]) if c < b]
    if hits:
        a, b, c, d = hits[0]
        report.warning(f, ln, f"{where}: {len(hits)} overlapping span pair(s), e.g. [{a}, {b}) and [{c}, {d}); "
                              "kept, their characters count once")


def _mqm_rows(errors: pd.DataFrame, texts: dict, source: dict, report: Report, items: list, spans: list) -> None:
    fname = "mqm_annotations.tsv"
    first = len(spans)
    seen: dict[tuple, list[int]] = {}
    cols = set(errors.columns)
    for i, row in enumerate(errors.itertuples(index=False)):
        # a namedtuple at run time; pandas-stubs types it as a tuple without _asdict
        r = cast(Any, row)._asdict()
        system, seg, rater = str(r["system"]), str(r["seg_id"]), str(r["rater"])
        key = (system, seg, rater)
        if key not in seen:
            seen[key] = [len(items) + len(seen), 0]
        item = seen[key][0]
        sev = str(r.get("severity", "")).strip().lower()
        cat = str(r.get("category", "")).strip()
        if sev in ("no-error", "no error") or cat.lower() in ("no-error", "no error"):
            continue
        where = f"row {i + 1} of the MQM errors ({system}, segment {seg}, rater {rater})"
        if sev not in SEVERITIES:
            report.error(fname, None, f"{where}: unknown severity {r.get('severity')!r} (known: {', '.join(SEVERITIES)})")
            continue
        if "<" in cat or ">" in cat:
            report.warning(fname, None, f"{where}: the category {cat!r} contains markup; it is kept as text "
                                        "and shown escaped")
        try:
            weight = float(r.get("weight")) if "weight" in cols and str(r.get("weight")).strip() != "" else np.nan
        except (TypeError, ValueError):
            weight = np.nan
        side = str(r.get("span_in", "") or "").strip()
        a_raw, b_raw = str(r.get("span_start", "")).strip(), str(r.get("span_end", "")).strip()
        seen[key][1] += 1
        if side not in ("target", "source") or a_raw in ("", "nan") or b_raw in ("", "nan"):
            spans.append([item, system, seg, rater, np.nan, np.nan, "target", sev, cat, weight, "omission", fname, None])
            continue
        try:
            a, b = int(float(a_raw)), int(float(b_raw))
        except ValueError:
            report.error(fname, None, f"{where}: span_start/span_end must be integers; got {a_raw!r}, {b_raw!r}")
            continue
        if a > b or a < 0:
            report.error(fname, None, f"{where}: inverted or negative span [{a}, {b})")
            continue
        text = texts.get((system, seg)) if side == "target" else source.get(seg)
        if text is None or text == "":
            status = "no_text"
        elif b > len(text):
            status = "out_of_range"
            report.warning(fname, None, f"{where}: span [{a}, {b}) ends beyond the {side} text ({len(text)} "
                                        "characters); kept, counted as out of range, not used for span scores")
        else:
            status = "empty" if a == b else "ok"
        spans.append([item, system, seg, rater, a, b, side, sev, cat, weight, status, fname, None])
    for (system, seg, rater), (item, n) in seen.items():
        items.append([item, system, seg, rater, "mqm", n])
    by_item: dict[int, list] = {}
    for r in spans[first:]:
        if r[6] == "target":
            by_item.setdefault(r[0], []).append(r)
    for rows in by_item.values():
        _overlaps(rows, fname, None, f"MQM errors of {rows[0][1]}, segment {rows[0][2]}, rater {rows[0][3]}", report)


def dataset_spans(dataset, strict: bool = True) -> SpanTable:
    """The :class:`SpanTable` of a dataset: ESA spans (extra ``esa_spans``) and MQM errors
    (extra ``mqm_errors``), checked against the rated texts. ``strict``: errors (broken JSON,
    unknown severity, non-integer, inverted or negative offsets) raise DataError listing all of
    them; otherwise the annotations holding them are left out whole (an annotation read in part
would claim "no error here") and listed in ``problems``. Warnings
    (out-of-range spans, markup in a category) never raise; every span they concern is kept."""
    if "spans" in dataset._cache:
        st = dataset._cache["spans"]
        if strict and any(p.severity == "error" for p in st.problems):
            raise DataError(_report(st.problems))
        return st
    report = Report()
    texts = _texts(dataset)
    source = dict(zip(dataset.segments["seg_id"].astype(str), dataset.segments["source"]))
    items: list = []
    spans: list = []
    esa = dataset.extras.get(ESA_EXTRA)
    if esa is not None and len(esa):
        _esa_rows(esa, texts, report, items, spans)
    mqm = dataset.extras.get("mqm_errors")
    if mqm is not None and len(mqm) and {"system", "seg_id", "rater", "severity"} <= set(mqm.columns):
        _mqm_rows(mqm, texts, source, report, items, spans)
    it = pd.DataFrame(items, columns=ITEM_COLUMNS)
    sp = pd.DataFrame(spans, columns=SPAN_COLUMNS)
    sp["start"] = pd.to_numeric(sp["start"], errors="coerce")
    sp["end"] = pd.to_numeric(sp["end"], errors="coerce")
    sp["weight"] = pd.to_numeric(sp["weight"], errors="coerce")
    problems = _capped(report.problems)
    st = SpanTable(dataset.lp, it.reset_index(drop=True), sp, problems)
    dataset._cache["spans"] = st
    if strict and any(p.severity == "error" for p in problems):
        raise DataError(_report(problems))
    return st


def _capped(problems: list[Problem]) -> list[Problem]:
    """At most :data:`MAX_LISTED` problems of each level per file, then one line saying how many more."""
    out: list[Problem] = []
    count: dict[tuple[str, str], int] = {}
    for p in problems:
        k = (p.severity, p.file)
        count[k] = count.get(k, 0) + 1
        if count[k] <= MAX_LISTED:
            out.append(p)
    for (level, file), n in count.items():
        if n > MAX_LISTED:
            out.append(Problem(level, file, None, f"{n - MAX_LISTED} more span {level}s of this kind not listed"))
    return out


def _report(problems: list[Problem]) -> Report:
    r = Report()
    r.extend(problems)
    return r


def _span_status(text: str | None, a: int, b: int, report: Report, f: str, ln: int | None, where: str) -> str:
    """The status of a checked span [a, b) on ``text``: no_text, out_of_range (warned: kept, not
    used for span scores), empty or ok."""
    if text is None:
        return "no_text"
    if b > len(text):
        report.warning(f, ln, f"{where}: span [{a}, {b}) ends beyond the text ({len(text)} characters); "
                              "kept, counted as out of range, not used for span scores")
        return "out_of_range"
    return "empty" if a == b else "ok"


def severity_counts(table: SpanTable) -> dict[str, int]:
    """Spans per severity (every status), for checks against the raw files."""
    return {str(k): int(v) for k, v in table.spans["severity"].value_counts().items()}


# ---------------------------------------------------------------- spans a metric returns
#: the extra table (and tidy file ``metric_spans.tsv``) of error spans a metric returned, e.g.
#: xCOMET (Guerreiro et al. 2024, §3: error span detection): one row per span, in the span
#: table's terms. A row with severity ``no-error`` (start and end empty) says "scored, nothing
#: marked"; an output without any row of a metric was not scored by it.
METRIC_EXTRA = "metric_spans"
METRIC_FILE = "metric_spans.tsv"
METRIC_REQUIRED = ["metric", "system", "seg_id", "start", "end", "severity"]
METRIC_OPTIONAL = ["lp", "category", "confidence"]
NO_ERROR = "no-error"


def read_metric_spans(data: bytes, fname: str, report: Report) -> pd.DataFrame | None:
    """A metric-spans TSV (columns :data:`METRIC_REQUIRED`, optional lp, category, confidence)
    as text with ``file`` and ``line`` of each row; None after reporting a broken file. A table
    saved by evalcore keeps the file and line it was first read from."""
    from .text import read_tsv

    table = read_tsv(data, fname, report, METRIC_REQUIRED, METRIC_OPTIONAL + ["file", "line"])
    if table is None:
        return None
    cols = [c for c in METRIC_OPTIONAL[:1] + METRIC_REQUIRED + METRIC_OPTIONAL[1:] if table.has(c)]
    out = pd.DataFrame({c: table.col(c) for c in cols}, dtype=str)
    if table.has("file") and table.has("line"):  # saved by evalcore: where the rows came from
        out["file"], out["line"] = table.col("file"), table.col("line")
    else:
        out["file"], out["line"] = fname, [str(x) for x in table.lines]
    return out


def metric_spans_extra(src: FileSource, report: Report) -> pd.DataFrame | None:
    """The ``metric_spans.tsv`` of a tidy folder (:func:`read_metric_spans`), or None."""
    fname = src.find(METRIC_FILE)
    return None if fname is None else read_metric_spans(src.read(fname), fname, report)


def xcomet_spans_frame(metric: str, keys: list[tuple[str, str]], error_spans: list) -> pd.DataFrame:
    """The metric-spans table of an xCOMET run: ``error_spans`` as unbabel-comet returns it
    (``model.predict(...).metadata.error_spans``: per scored output, a list of dicts with
    ``start``, ``end`` (character offsets into the output), ``severity``, ``confidence``,
    ``text``), ``keys`` the (system, seg_id) of each scored output in the same order. An output
    with no span gets a ``no-error`` row (scored, nothing marked)."""
    if len(keys) != len(error_spans):
        raise ValueError(f"{len(keys)} outputs but {len(error_spans)} span lists; they must pair up one to one")
    rows = []
    for (system, seg), found in zip(keys, error_spans):
        if not found:
            rows.append([metric, system, str(seg), "", "", NO_ERROR, ""])
        for sp in found or []:
            conf = sp.get("confidence")
            rows.append([metric, system, str(seg), str(sp.get("start", "")), str(sp.get("end", "")),
                         str(sp.get("severity", "")), "" if conf is None else repr(float(conf))])
    return pd.DataFrame(rows, columns=METRIC_REQUIRED + ["confidence"], dtype=str)


def metric_span_table(dataset, frame: pd.DataFrame | None = None, strict: bool = True) -> SpanTable:
    """The :class:`SpanTable` of the spans metrics returned (``frame``, default the dataset's
    ``metric_spans`` extra table), checked like the human spans against the dataset's texts: one
    item per (metric, system, seg_id) with ``rater`` = the metric and scheme ``metric``. Errors
    (unknown severity, non-integer, negative or inverted offsets, an empty metric name) raise
    DataError, all at once, with ``strict``; otherwise those items are left out whole and listed.
    Spans beyond the text and outputs not in the dataset are kept and warned about (status
    ``out_of_range`` / ``no_text``: not used for span scores)."""
    cache_key = "metric_spans_table"
    own = frame is None
    if own:
        frame = dataset.extras.get(METRIC_EXTRA)
        if cache_key in dataset._cache:
            st = dataset._cache[cache_key]
            if strict and any(p.severity == "error" for p in st.problems):
                raise DataError(_report(st.problems))
            return st
    report = Report()
    items: list = []
    spans: list = []
    if frame is not None and len(frame):
        texts = _texts(dataset)
        if "lp" in frame and dataset.lp:
            frame = frame[frame["lp"].astype(str).isin([dataset.lp, ""])]
        files = frame["file"] if "file" in frame else pd.Series([METRIC_FILE] * len(frame), index=frame.index)
        lines = frame["line"] if "line" in frame else pd.Series([""] * len(frame), index=frame.index)
        seen: dict[tuple, int] = {}
        rows: dict[int, list] = {}
        broken: set[int] = set()
        for metric, system, seg, a_raw, b_raw, sev_raw, cat, f, ln in zip(
                frame["metric"].astype(str).str.strip(), frame["system"].astype(str), frame["seg_id"].astype(str),
                frame["start"].astype(str).str.strip(), frame["end"].astype(str).str.strip(),
                frame["severity"].astype(str), frame.get("category", pd.Series([""] * len(frame), index=frame.index)),
                files, lines):
            f, ln = _where(str(f), ln)
            if not metric:
                report.error(f, ln, "the metric name is empty")
                continue
            key = (metric, system, seg)
            item = seen.setdefault(key, len(seen))
            rows.setdefault(item, [])
            sev = sev_raw.strip().lower()
            where = f"{metric} on {system}, segment {seg}"
            if sev == NO_ERROR:
                if a_raw not in ("", "nan") or b_raw not in ("", "nan"):
                    report.error(f, ln, f"{where}: a no-error row must leave start and end empty")
                    broken.add(item)
                continue
            if sev not in SEVERITIES:
                report.error(f, ln, f"{where}: unknown severity {sev_raw!r} (known: {', '.join(SEVERITIES)}, {NO_ERROR})")
                broken.add(item)
                continue
            cat = "" if cat is None or (isinstance(cat, float) and np.isnan(cat)) else str(cat)
            if a_raw in ("", "nan") and b_raw in ("", "nan"):
                rows[item].append([item, system, seg, metric, np.nan, np.nan, "target", sev, cat, np.nan, "omission", f, ln])
                continue
            try:
                a, b = int(a_raw), int(b_raw)
            except ValueError:
                report.error(f, ln, f"{where}: start and end must be integers; got {a_raw!r}, {b_raw!r}")
                broken.add(item)
                continue
            if a > b or a < 0:
                report.error(f, ln, f"{where}: inverted or negative span [{a}, {b})")
                broken.add(item)
                continue
            text = texts.get((system, seg))
            if text is None:
                report.warning(f, ln, f"{where}: this output is not in the dataset; kept, not used for span scores")
            status = _span_status(text, a, b, report, f, ln, where)
            rows[item].append([item, system, seg, metric, a, b, "target", sev, cat, np.nan, status, f, ln])
        for (metric, system, seg), item in seen.items():
            if item in broken:  # left out whole: read in part it would claim "nothing else wrong"
                continue
            spans.extend(rows[item])
            items.append([item, system, seg, metric, "metric", len(rows[item])])
    it = pd.DataFrame(items, columns=ITEM_COLUMNS)
    sp = pd.DataFrame(spans, columns=SPAN_COLUMNS)
    for c in ("start", "end", "weight"):
        sp[c] = pd.to_numeric(sp[c], errors="coerce")
    problems = _capped(report.problems)
    st = SpanTable(dataset.lp, it.reset_index(drop=True), sp, problems)
    if own:
        dataset._cache[cache_key] = st
    if strict and any(p.severity == "error" for p in problems):
        raise DataError(_report(problems))
    return st
