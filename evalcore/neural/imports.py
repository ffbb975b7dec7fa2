"""Neural scores computed elsewhere, imported as bring-your-own metrics (methods §7.9, §7.10).

Formats (docs/formats.md, "Neural scores computed elsewhere"):

* ``comet-json``: the file ``comet-score --to_json`` writes: an object mapping each
  translation file to a list of ``{"src", "mt", "ref" (absent for CometKiwi), "COMET"}``.
* ``metricx-jsonl``: MetricX's ``predict`` output, one JSON object per line with
  ``hypothesis``, ``prediction`` and, as the model used them, ``source`` and ``reference``.
* ``pymarian-tsv``: ``pymarian-eval``'s output (one score per line; a line's first
  tab-separated field) given together with the input it scored: a TSV of ``src``, ``mt`` and
  optionally ``ref`` per line, same number of lines (``SCORES=INPUT.tsv``).

Rows are matched to the dataset by their texts (source, output and reference), which is what
the scores depend on: every (system, segment) whose texts match gets the score (with the
reference set's id when the row had a reference). Every problem is reported at once with file,
line (and, in JSON, the path of the value: ``$["sys.txt"][3]["COMET"]``) and what is wrong
(:class:`evalcore.core.problems.DataError`). The checks are those of every score source
(:class:`evalcore.core.problems.ScoreCheck`): a score must be a finite number within ±1e9, a
JSON key given twice in one object is refused (never "last wins"), deep nesting and huge
integers are reported, not raised (:mod:`evalcore.io.safejson`).
"""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..core.problems import DataError, Report, ScoreCheck, name_problem
from ..io.safejson import JSONProblem, loads, path_of

FORMATS = ("comet-json", "metricx-jsonl", "pymarian-tsv")
COLUMNS = ["src", "mt", "ref", "score", "file", "line", "where"]


def _text(v) -> str | None:
    return v if isinstance(v, str) else None


def _read(path: Path, report: Report) -> str | None:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        report.error(str(path), None, "file not found")
    except UnicodeDecodeError as exc:
        report.error(path.name, None, f"not UTF-8 text (byte {exc.start}); save it as UTF-8")
    return None


def _entry_lines(raw: str) -> list[int]:
    """Line of every object opened at depth 2 of a JSON text (the entries of COMET's lists),
    in order, tracking strings and escapes."""
    lines, depth, line, in_str, esc = [], 0, 1, False, False
    for ch in raw:
        if ch == "\n":
            line += 1
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            if ch == "{" and depth == 2:
                lines.append(line)
            depth += 1
        elif ch in "}]":
            depth -= 1
    return lines


def read_comet_json(path, report: Report) -> list[tuple]:
    path = Path(path)
    raw = _read(path, report)
    if raw is None:
        return []
    name = path.name
    try:
        data = loads(raw)
    except JSONProblem as exc:
        report.error(name, exc.line, str(exc))
        return []
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        report.error(name, 1, "expected comet-score --to_json output: an object mapping each translation file "
                              "to a list of {src, mt, ref, COMET} entries")
        return []
    lines = _entry_lines(raw)
    check = ScoreCheck(report, name)
    rows, k = [], 0
    for file, entries in data.items():
        for i, e in enumerate(entries):
            line = lines[k] if k < len(lines) else None
            k += 1
            where = path_of([file, i])
            if not isinstance(e, dict):
                report.error(name, line, f"{where}: not an object")
                continue
            src, mt, ref = _text(e.get("src")), _text(e.get("mt")), e.get("ref")
            problems = [f"'{f}' missing or not text" for f, v in (("src", src), ("mt", mt)) if v is None]
            if ref is not None and not isinstance(ref, str):
                problems.append("'ref' is not text")
            for p in problems:
                report.error(name, line, f"{where}: {p}")
            score = check.score(e.get("COMET"), line, path_of([file, i, "COMET"]), "'COMET'")
            if not problems and score is not None:
                rows.append((src, mt, ref or "", score, name, line, where))
    if not rows and report.ok:
        report.error(name, None, "no scored entries")
    return rows


def read_metricx_jsonl(path, report: Report) -> list[tuple]:
    path = Path(path)
    raw = _read(path, report)
    if raw is None:
        return []
    name, rows = path.name, []
    check = ScoreCheck(report, name)
    for n, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            e = loads(line)
        except JSONProblem as exc:
            report.error(name, n, f"not a JSON object: {exc}")
            continue
        if not isinstance(e, dict):
            report.error(name, n, "not a JSON object")
            continue
        mt = _text(e.get("hypothesis"))
        src, ref = e.get("source", ""), e.get("reference", "")
        problems = []
        if mt is None:
            problems.append("'hypothesis' missing or not text")
        for f, v in (("source", src), ("reference", ref)):
            if not isinstance(v, str):
                problems.append(f"'{f}' is not text")
        for p in problems:
            report.error(name, n, p)
        score = check.score(e.get("prediction"), n, what="'prediction'")
        if not problems and score is not None:
            rows.append((src, mt, ref, score, name, n, f"line {n}"))
    if not rows and report.ok:
        report.error(name, None, "no scored lines")
    return rows


def read_pymarian(scores_path, input_path, report: Report) -> list[tuple]:
    sp, ip = Path(scores_path), Path(input_path)
    s_raw, i_raw = _read(sp, report), _read(ip, report)
    if s_raw is None or i_raw is None:
        return []
    s_lines, i_lines = s_raw.splitlines(), i_raw.splitlines()
    if len(s_lines) != len(i_lines):
        report.error(sp.name, None, f"{len(s_lines)} score lines but {len(i_lines)} input lines in {ip.name}: "
                                    "give the TSV that pymarian-eval scored, line for line")
        return []
    rows = []
    check = ScoreCheck(report, sp.name)
    for n, (s, t) in enumerate(zip(s_lines, i_lines), start=1):
        fields = t.split("\t")
        score = check.score(s.split("\t")[0].strip(), n)
        if len(fields) not in (2, 3):
            report.error(ip.name, n, f"{len(fields)} tab-separated fields; expected src, mt and optionally ref")
        elif score is not None:
            rows.append((fields[0], fields[1], fields[2] if len(fields) == 3 else "", score, sp.name, n, f"line {n}"))
    if not rows and report.ok:
        report.error(sp.name, None, "no score lines")
    return rows


def parse_spec(spec: str) -> tuple[str, str, str | None, str | None]:
    """``FORMAT:FILE[=INPUT][@NAME]`` -> (format, file, pymarian input, metric name)."""
    fmt, sep, rest = spec.partition(":")
    fmt = fmt.strip().lower()
    if not sep or fmt not in FORMATS:
        raise ValueError(f"--import-scores {spec!r}: use FORMAT:FILE with FORMAT one of {', '.join(FORMATS)} "
                         "(pymarian-tsv:SCORES=INPUT.tsv; append @NAME to name the metric)")
    name = None
    if "@" in rest:
        rest, name = rest.rsplit("@", 1)
    inp = None
    if fmt == "pymarian-tsv":
        if "=" not in rest:
            raise ValueError(f"--import-scores {spec!r}: pymarian-tsv needs the input it scored: "
                             "pymarian-tsv:SCORES=INPUT.tsv")
        rest, inp = rest.split("=", 1)
    return fmt, rest, inp, name


def read_external(spec: str) -> tuple[str, pd.DataFrame]:
    """(metric name, rows src/mt/ref/score/file/line) of one ``--import-scores`` spec."""
    fmt, path, inp, name = parse_spec(spec)
    report = Report()
    if fmt == "comet-json":
        rows = read_comet_json(path, report)
    elif fmt == "metricx-jsonl":
        rows = read_metricx_jsonl(path, report)
    else:
        rows = read_pymarian(path, inp, report)
    if not report.ok:
        raise DataError(report)
    if name is not None and name_problem(name):
        raise ValueError(f"--import-scores {spec!r}: the metric name after @ {name_problem(name)}")
    stem = os.path.splitext(os.path.basename(path))[0]
    return (name or f"ext-{fmt.split('-')[0]}-{stem}"), pd.DataFrame(rows, columns=COLUMNS)


def match_to_dataset(dataset, name: str, rows: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """BYO score rows (metric, system, seg_id, score[, ref_id]) for every output of ``dataset``
    whose texts match an imported row; and notes (rows that matched nothing, conflicts)."""
    seg = dataset.segments
    src_of = dict(zip(seg["seg_id"].astype(str), seg["source"].astype(str)))
    refs: dict[str, list[tuple[str, str]]] = {}
    for r in dataset.references.itertuples(index=False):
        if isinstance(r.text, str):
            refs.setdefault(str(r.seg_id), []).append((str(r.ref_id), r.text))
    by_text: dict[tuple, list] = {}
    for row in rows.itertuples(index=True):  # Index: the row's number, so that rows of one line stay apart
        by_text.setdefault((row.src, row.mt), []).append(row)
    used: set[tuple] = set()
    out, notes = [], []
    conflicts = 0
    for o in dataset.outputs.itertuples(index=False):
        if not isinstance(o.text, str):
            continue
        sid = str(o.seg_id)
        src = src_of.get(sid, "")
        cands = by_text.get((src, o.text)) or by_text.get(("", o.text)) or []
        found = []
        for ref_id, ref_text in [("", "")] + refs.get(sid, []):
            hits = [r for r in cands if r.ref == ref_text]
            if not hits:
                continue
            scores = {r.score for r in hits}
            used.update(r.Index for r in hits)
            if len(scores) > 1:
                conflicts += 1
                continue
            found.append((name, str(o.system), sid, scores.pop(), ref_id))
        out += found
        if len(found) == 1 and found[0][4]:  # scored against one reference: also the segment's score
            out.append(found[0][:4] + ("",))
    unused = [i for i in rows.index if i not in used]
    if unused:
        first = rows.loc[unused[0]]
        line = first["line"]
        known = line is not None and line == line
        json_path = str(first["where"]) if str(first["where"]).startswith("$") else ""
        place = ", ".join(x for x in (f"line {int(line)}" if known else "", json_path) if x)
        notes.append(f"{name}: {len(unused)} of {len(rows)} imported rows match no output of the dataset by their "
                     f"texts (first: {first['file']}, {place or 'row ' + str(unused[0] + 1)})")
    if conflicts:
        notes.append(f"{name}: {conflicts} outputs have several different imported scores for the same texts; "
                     "left without a score")
    frame = pd.DataFrame(out, columns=["metric", "system", "seg_id", "score", "ref_id"])
    if not (frame["ref_id"] != "").any():
        frame = frame.drop(columns="ref_id")
    return frame, notes
