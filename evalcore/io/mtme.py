"""mt-metrics-eval layout (google-research/mt-metrics-eval, "File organization") for one test set.

A folder (or zip) of one test set, e.g. ``wmt22/``, holding for each language pair <lp>:

* ``sources/<lp>.txt``                      source segments, one per line        (required)
* ``references/<lp>.<ref>.txt``             one file per reference set <ref>
* ``system-outputs/<lp>/<system>.txt``      one file per system
  (each text file may instead be ``.jsonl``, one JSON object per segment: the text under
  ``source``, ``target`` (references) or ``hypothesis`` (outputs), as mt-metrics-eval's
  ``data._ReadFieldFromJsonl`` reads it; ``.txt`` wins over ``.jsonl`` for sources, with a warning)
* ``metadata/<lp>/<system>.jsonl``          optional: one JSON object per segment about that
  translation -> extra table ``metadata`` (lp, system, seg_id, metadata = the JSON text)
* ``human-scores/<lp>.<name>.seg.rating``   optional: ``<system> <Rating JSON>|None [<rater>]``
  lines, a block per system (error spans, mt-metrics-eval ``ratings.Rating``) -> extra table
  ``ratings`` (see :data:`RATING_COLUMNS`)
* ``documents/<lp>.docs``                   optional: ``<domain> <doc>`` per source line
* ``human-scores/<lp>.<scorer>.seg.score``  ``<system> <score>`` lines: a block per system with
  one score per segment in source order; ``None`` = not rated
* ``human-scores/<lp>.<scorer>.sys.score``  ``<system> <score>``, one line per system
* ``metric-scores/<lp>/<metric>-<refs>.{seg,sys}.score``  optional metric scores, same lines

Fields are separated by a tab (or, without a tab on the line, by any whitespace).
Segment ids are the line numbers ``"1"`` .. ``"N"``. Each language pair becomes one
dataset. Mapping:

* segment-level human scores -> judgements (rater ``mtme``, judgement = <scorer>); a score
  of a reference (``refB`` in ``en-de.mqm.seg.score``) judges that reference set;
* system-level human scores  -> extra table ``system_scores`` (scorer, system, score);
* metric scores               -> extra table ``metric_scores`` (metric, refset, level,
  system, seg_id, score; seg_id empty at system level);
* document domains            -> extra table ``segment_domains`` (seg_id, domain).

A file in ``system-outputs/<lp>/`` named like a reference set (mt-metrics-eval copies
references there so that they can be scored as systems) is not loaded as a system: the
reference set stands for it. ``doc`` and ``domain`` level score files are ignored with a
warning.

Paragraph-level segments (WMT24/25) hold line breaks. A ``.jsonl`` file carries them as they are;
a ``.txt`` file writes each as the two characters ``\\n`` (backslash, n). The reader turns them
back into line breaks (a warning counts them), so that the offsets of error spans, which count
characters of the text the annotators saw, stay aligned with the text (mt-metrics-eval's own
reader leaves ``\\n`` as two characters). Text files follow the plain-text rules (:mod:`evalcore.io.plaintext`): UTF-8,
BOM and CRLF accepted, a final newline adds no segment, line counts must match the source.
"""
from __future__ import annotations

import json
import re

import pandas as pd

from ..core.dataset import JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, SEGMENT_COLUMNS, Dataset
from ..core.problems import MAX_ABS_SCORE, DataError, Report, score_problem, shown
from .assemble import _CONTROL, assemble, frame
from .plaintext import read_lines
from .source import FileSource
from .text import describe_lines

#: a control character in a name (the tidy readers' check, :mod:`evalcore.io.assemble`)
CONTROL_RE = re.compile(_CONTROL)

NAME = "mt-metrics-eval folder (sources/, references/, system-outputs/, human-scores/)"

RATER = "mtme"


#: the text suffixes of sources, references and outputs (mt-metrics-eval 2025 reads both)
TEXT_SUFFIXES = (".txt", ".jsonl")
#: the JSON field holding the text in a ``.jsonl`` file, by folder (mt-metrics-eval ``data.py``)
JSONL_FIELDS = {"sources": "source", "references": "target", "system-outputs": "hypothesis"}
#: the line of a ``.txt`` text file that stands for a missing translation (mt-metrics-eval
#: ``data.NO_TRANSLATION``, which its reader turns into None); read as an empty text
NO_TRANSLATION = "[No translation supplied]"
#: a ``.txt`` file's escaped line break (two characters: backslash, n)
ESCAPED_NEWLINE = "\\n"
#: columns of the ``ratings`` extra table: one row per error span; a rated segment without
#: errors has one row with ``category`` ``no-error`` and empty offsets; ``side`` is ``target``
#: or ``source`` (``is_source_error``)
RATING_COLUMNS = ["lp", "rating", "system", "seg_id", "rater", "start", "end", "side", "category", "severity",
                  "score"]


def _stem(name: str) -> str:
    """``name`` without its text suffix (``.txt`` / ``.jsonl``)."""
    for suffix in TEXT_SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def _is_text(name: str) -> bool:
    return name.endswith(TEXT_SUFFIXES)


def detect(src: FileSource) -> bool:
    names = src.names()
    has_sources = any(n.startswith("sources/") and _is_text(n) and n.count("/") == 1 for n in names)
    return has_sources and any(n.startswith(("references/", "system-outputs/", "human-scores/")) for n in names)


def _fields(line: str) -> list[str]:
    return [f.strip() for f in line.split("\t")] if "\t" in line else line.split()


def _score_lines(src: FileSource, fname: str, n_fields: int, report: Report):
    """(line number, fields) of a score file; wrong field counts are reported."""
    lines = read_lines(src, fname, report)
    if lines is None:
        return []
    out, bad = [], []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        f = _fields(line)
        if len(f) != n_fields:
            bad.append(i)
            continue
        out.append((i, f))
    if bad:
        report.error(fname, bad[0], f"{len(bad)} line(s) do not have {n_fields} fields "
                                    f"({'<domain> ' if n_fields == 3 else ''}<system> <score>) ({describe_lines(bad)})")
    return _control_names(out, fname, report)


def _control_names(rows: list, fname: str, report: Report) -> list:
    """The rows whose system name (the field before the score) holds no control character; the
    others are reported, with file and lines, as the tidy readers report them."""
    bad = [(i, f[-2]) for i, f in rows if CONTROL_RE.search(f[-2])]
    if bad:
        names = list(dict.fromkeys(v for _, v in bad))[:5]
        report.error(fname, bad[0][0], f"{len(bad)} system name(s) hold a control character: "
                                       f"{', '.join(map(repr, names))} at {describe_lines([i for i, _ in bad])}; "
                                       "names may not hold tabs, line breaks or other control characters")
    return [(i, f) for i, f in rows if not CONTROL_RE.search(f[-2])] if bad else rows


def _number(value: str) -> float | None:
    """float of a score, None for ``None``; raises ValueError (its message says why) otherwise:
    not a number, not finite, or beyond ±MAX_ABS_SCORE (:func:`evalcore.core.problems.score_problem`,
    the range check of every reader)."""
    if value == "None":
        return None
    try:
        x = float(value)
    except ValueError:
        raise ValueError("is not a number (use . as the decimal point, None for a missing score)") from None
    why = score_problem(x)
    if why:
        raise ValueError(why)
    return x


def _per_system_blocks(rows, fname: str, n: int, what: str, report: Report):
    """Group seg-level lines by system; each system needs exactly n lines (one per segment)."""
    blocks: dict[str, list[tuple[int, str]]] = {}
    for line, f in rows:
        blocks.setdefault(f[0], []).append((line, f[1]))
    for system, items in blocks.items():
        if len(items) != n:
            report.error(fname, items[0][0], f"system {system!r} has {len(items)} {what} but the source has {n} "
                                             "segments; a seg-level file needs one line per segment for every "
                                             "system, in source order (write None for an unrated segment)")
    return {s: b for s, b in blocks.items() if len(b) == n}


_FOLDERS = ("sources/", "references/", "system-outputs/", "human-scores/", "metric-scores/", "documents/",
            "metadata/")

_EXTRA_COLUMNS = {"system_scores": ["lp", "scorer", "system", "score"],
                  "metric_scores": ["lp", "metric", "refset", "level", "system", "seg_id", "score"],
                  "segment_domains": ["lp", "seg_id", "domain"],
                  "metadata": ["lp", "system", "seg_id", "metadata"],
                  "ratings": RATING_COLUMNS}


class _Reader:
    """One read of an mt-metrics-eval folder: the long-table rows found so far, the files used,
    the problems (``report``) and the reader's own warnings (``own``, added after assembly)."""

    def __init__(self, src: FileSource, report: Report) -> None:
        self.src = src
        self.report = report
        self.own = Report()
        self.names = src.names()
        self.used: set[str] = set()
        # per table: rows, files, lines (the arguments of :func:`frame`)
        self.tables: dict[str, tuple[list[list], list[str], list[int | None]]] = {
            k: ([], [], []) for k in ("seg", "ref", "out", "jud")}
        self.extras_rows: dict[str, list[list]] = {k: [] for k in _EXTRA_COLUMNS}

    def add(self, kind: str, row: list, fname: str, line: int) -> None:
        rows, files, lines = self.tables[kind]
        rows.append(row)
        files.append(fname)
        lines.append(line)

    # -- one language pair -------------------------------------------------------------------
    def language_pair(self, lp: str) -> None:
        sname = f"sources/{lp}.txt"
        if sname not in self.src:
            sname = f"sources/{lp}.jsonl"
        elif f"sources/{lp}.jsonl" in self.src:
            self.used.add(f"sources/{lp}.jsonl")
            self.own.warning(f"sources/{lp}.jsonl", None, f"sources/{lp}.txt is read instead (as mt-metrics-eval "
                                                          "does when both are present)")
        self.used.add(sname)
        source = self.read_text(sname)
        if source is None:
            return
        n = len(source)
        if n == 0:
            self.report.error(sname, None, "is empty; it needs one source segment per line")
        docs = self.documents(lp, sname, n)
        for i, text in enumerate(source):
            self.add("seg", [lp, str(i + 1), docs[i], text], sname, i + 1)
        ref_names = self.references(lp, sname, n)
        systems = self.outputs(lp, sname, n, ref_names)
        known = set(systems) | set(ref_names) if systems else set()
        self.human_scores(lp, n, known)
        self.metric_scores(lp, n, known)
        self.metadata(lp, n)
        self.ratings(lp, n, source, ref_names)

    def documents(self, lp: str, sname: str, n: int) -> list[str]:
        """The document of every source line (``documents/<lp>.docs``; "" without it); the
        domains go to the ``segment_domains`` extra table."""
        docs = [""] * n
        dname = f"documents/{lp}.docs"
        if dname not in self.src:
            return docs
        self.used.add(dname)
        dlines = read_lines(self.src, dname, self.report)
        if dlines is None:
            return docs
        if len(dlines) != n:
            self.report.error(dname, None, f"has {len(dlines)} lines but {sname} has {n}; it needs one "
                                           "'<domain> <document>' line per source segment")
            return docs
        for i, line in enumerate(dlines):
            f = _fields(line)
            if len(f) == 2:
                self.extras_rows["segment_domains"].append([lp, str(i + 1), f[0]])
                docs[i] = f[1]
            elif len(f) == 1:
                docs[i] = f[0]
            else:
                self.report.error(dname, i + 1, f"has {len(f)} fields; expected '<domain> <document>'")
        return docs

    def read_text(self, fname: str) -> list[str] | None:
        """The segments of a ``.txt`` file (escaped line breaks restored, counted in a warning)
        or of a ``.jsonl`` file (the field of its folder, :data:`JSONL_FIELDS`); None (reported)
        when unreadable."""
        if fname.endswith(".jsonl"):
            return self.jsonl_texts(fname, JSONL_FIELDS[fname.split("/")[0]])
        lines = read_lines(self.src, fname, self.report)
        if lines is None:
            return None
        empty = [i for i, t in enumerate(lines, start=1) if t.rstrip() == NO_TRANSLATION]
        if empty:
            self.own.warning(fname, empty[0], f"{len(empty)} line(s) hold mt-metrics-eval's {NO_TRANSLATION!r} "
                                              f"marker, read as empty texts ({describe_lines(empty)})")
            lines = ["" if t.rstrip() == NO_TRANSLATION else t for t in lines]
        escaped = [i for i, t in enumerate(lines, start=1) if ESCAPED_NEWLINE in t]
        if escaped:
            self.own.warning(fname, escaped[0], f"{len(escaped)} segment(s) hold escaped line breaks (\\n), read as "
                                                f"line breaks ({describe_lines(escaped)})")
            lines = [t.replace(ESCAPED_NEWLINE, "\n") for t in lines]
        return lines

    def jsonl_records(self, fname: str) -> list[tuple[int, dict]] | None:
        """(line, object) of every line of a JSON-lines file; bad lines reported, None if any."""
        lines = read_lines(self.src, fname, self.report)
        if lines is None:
            return None
        out, bad = [], []
        for i, line in enumerate(lines, start=1):
            try:
                obj = json.loads(line)
            except ValueError as exc:
                bad.append((i, f"is not JSON ({exc.args[0] if exc.args else exc})"))
                continue
            if not isinstance(obj, dict):
                bad.append((i, "is not a JSON object"))
                continue
            out.append((i, obj))
        for i, why in bad:
            self.report.error(fname, i, f"{why}; a .jsonl file holds one JSON object per segment")
        return None if bad else out

    def jsonl_texts(self, fname: str, key: str) -> list[str] | None:
        """The ``key`` field of every line of a ``.jsonl`` text file."""
        records = self.jsonl_records(fname)
        if records is None:
            return None
        bad = [i for i, obj in records if not isinstance(obj.get(key), str)]
        if bad:
            self.report.error(fname, bad[0], f"{len(bad)} line(s) without a text field {key!r} "
                                             f"({describe_lines(bad)}); each line needs {{\"{key}\": \"...\"}}")
            return None
        return [obj[key] for _, obj in records]

    def texts(self, fname: str, sname: str, n: int) -> list[str] | None:
        """The lines of a text file, None (reported) when unreadable or not one per source line."""
        lines = self.read_text(fname)
        if lines is not None and len(lines) != n:
            self.report.error(fname, None, f"has {len(lines)} line{'s' if len(lines) != 1 else ''} but {sname} "
                                           f"has {n}; every text file needs one line per source segment")
            return None
        return lines

    def references(self, lp: str, sname: str, n: int) -> dict[str, list[str] | None]:
        """Read ``references/<lp>.<ref>.txt``; the lines of every reference set by name."""
        ref_names: dict[str, list[str] | None] = {}
        prefix = f"references/{lp}."
        for fname in self.names:
            if fname.startswith(prefix) and _is_text(fname) and fname.count("/") == 1:
                self.used.add(fname)
                ref = _stem(fname[len(prefix):])
                if ref in ref_names:
                    self.report.error(fname, None, f"reference set {ref!r} is given twice (.txt and .jsonl); "
                                                   "keep one file per reference")
                    continue
                lines = self.texts(fname, sname, n)
                ref_names[ref] = lines
                for i, t in enumerate(lines or []):
                    self.add("ref", [lp, str(i + 1), ref, t], fname, i + 1)
        return ref_names

    def outputs(self, lp: str, sname: str, n: int, ref_names: dict[str, list[str] | None]) -> list[str]:
        """Read ``system-outputs/<lp>/<system>.txt``; a file named like a reference set is that set.
        Returns the systems (every file's name, readable or not)."""
        prefix = f"system-outputs/{lp}/"
        systems: list[str] = []
        seen: set[str] = set()
        for fname in self.names:
            if fname.startswith(prefix) and _is_text(fname) and "/" not in fname[len(prefix):]:
                self.used.add(fname)
                system = _stem(fname[len(prefix):])
                if system in seen:
                    self.report.error(fname, None, f"system {system!r} is given twice (.txt and .jsonl); keep one "
                                                   "file per system")
                    continue
                seen.add(system)
                systems.append(system)
                lines = self.texts(fname, sname, n)
                if system in ref_names:
                    if lines is not None and ref_names[system] is not None and lines != ref_names[system]:
                        self.own.warning(fname, None, f"differs from reference {system!r}; the reference "
                                                      f"file is used for {system!r} (a system output named like a "
                                                      "reference set is taken to be that reference)")
                    continue
                for i, t in enumerate(lines or []):
                    self.add("out", [lp, system, str(i + 1), t], fname, i + 1)
        return systems

    # -- human scores ------------------------------------------------------------------------
    def human_scores(self, lp: str, n: int, known: set[str]) -> None:
        """``human-scores/<lp>.<scorer>.<level>.score``: seg -> judgements, sys -> system_scores
        (``known``: as for :meth:`metric_scores`; a sys-level line naming another system is refused)."""
        prefix = f"human-scores/{lp}."
        for fname in self.names:
            if not (fname.startswith(prefix) and fname.endswith(".score") and fname.count("/") == 1):
                continue
            self.used.add(fname)
            parts = fname[len(prefix):-len(".score")].split(".")
            if len(parts) < 2:
                self.report.error(fname, None, "name must be human-scores/<lp>.<scorer>.<level>.score "
                                               "(level seg, sys, doc or domain)")
                continue
            scorer, level = ".".join(parts[:-1]), parts[-1]
            if level == "seg":
                self.human_seg(lp, n, fname, scorer)
            elif level == "sys":
                self.human_sys(lp, fname, scorer, known)
            else:
                self.own.warning(fname, None, f"{level!r}-level human scores are not loaded (only seg and sys)")

    def human_seg(self, lp: str, n: int, fname: str, scorer: str) -> None:
        blocks = _per_system_blocks(_score_lines(self.src, fname, 2, self.report), fname, n, "scores", self.report)
        for system, items in blocks.items():
            for k, (line, value) in enumerate(items):
                if value != "None":  # unrated
                    self.add("jud", [lp, system, str(k + 1), RATER, scorer, value], fname, line)

    def human_sys(self, lp: str, fname: str, scorer: str, known: set[str]) -> None:
        seen: dict[str, int] = {}
        for line, (system, value) in self.known_rows(lp, fname, _score_lines(self.src, fname, 2, self.report), known):
            if system in seen:
                self.report.error(fname, line, f"system {system!r} appears twice (also line {seen[system]}); "
                                               "a sys-level file has one line per system")
                continue
            seen[system] = line
            try:
                x = _number(value)
            except ValueError as exc:
                self.report.error(fname, line, f"score {value!r} {exc}")
                continue
            if x is not None:
                self.extras_rows["system_scores"].append([lp, scorer, system, x])

    # -- metadata and error-span ratings -----------------------------------------------------
    def metadata(self, lp: str, n: int) -> None:
        """``metadata/<lp>/<system>.jsonl`` (mt-metrics-eval ``EvalSet.metadata``): one JSON object
        per segment -> the ``metadata`` extra table, the object kept as its JSON text."""
        prefix = f"metadata/{lp}/"
        for fname in self.names:
            if not (fname.startswith(prefix) and fname.endswith(".jsonl") and "/" not in fname[len(prefix):]):
                continue
            self.used.add(fname)
            system = fname[len(prefix):-len(".jsonl")]
            records = self.jsonl_records(fname)
            if records is None:
                continue
            if len(records) != n:
                self.report.error(fname, None, f"has {len(records)} line(s) but the source has {n} segments; it "
                                               "needs one JSON object per segment")
                continue
            for k, (_, obj) in enumerate(records):
                self.extras_rows["metadata"].append([lp, system, str(k + 1), json.dumps(obj, ensure_ascii=False,
                                                                                       sort_keys=True)])

    def ratings(self, lp: str, n: int, source: list[str], ref_names: dict) -> None:
        """``human-scores/<lp>.<name>.seg.rating``: ``<system> <Rating JSON>|None [<rater>]``, a block
        of one line per segment for each system (mt-metrics-eval ``ratings.ReadRatingFile``). Every
        span is checked against the text it marks (the output, a reference judged as a system, or
        the source for ``is_source_error``): offsets count characters of the unescaped text."""
        prefix = f"human-scores/{lp}."
        for fname in self.names:
            if not (fname.startswith(prefix) and fname.endswith(".seg.rating") and fname.count("/") == 1):
                continue
            self.used.add(fname)
            name = fname[len(prefix):-len(".seg.rating")]
            lines = read_lines(self.src, fname, self.report)
            if lines is None:
                continue
            blocks: dict[str, list[tuple[int, list[str]]]] = {}
            for i, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                f = line.split("\t")
                if len(f) not in (2, 3):
                    self.report.error(fname, i, f"has {len(f)} tab-separated fields; expected "
                                                "<system> <rating JSON or None> [<rater>]")
                    continue
                blocks.setdefault(f[0], []).append((i, f))
            texts = self.rated_texts(lp, ref_names)
            for system, items in blocks.items():
                if len(items) != n:
                    self.report.error(fname, items[0][0], f"system {system!r} has {len(items)} ratings but the "
                                                          f"source has {n} segments; one line per segment (None = "
                                                          "not rated)")
                    continue
                for k, (lineno, f) in enumerate(items):
                    self.rating_line(lp, name, system, k, lineno, f, fname, source, texts.get(system))

    def rated_texts(self, lp: str, ref_names: dict) -> dict[str, list[str]]:
        """system -> its texts (the outputs read so far, and the references, which may be rated)."""
        out: dict[str, list] = {}
        for row in self.tables["out"][0]:
            if row[0] == lp:
                out.setdefault(row[1], []).append(row[3])
        for ref, lines in ref_names.items():
            if lines is not None:
                out.setdefault(ref, list(lines))
        return out

    def rating_line(self, lp, name, system, k, line, f, fname, source, texts) -> None:
        """One segment's rating -> rows of the ``ratings`` table (problems with file and line)."""
        rater = f[2].strip() if len(f) == 3 and f[2].strip() else name
        if f[1].strip() == "None":
            return
        try:
            obj = json.loads(f[1])
            errors = obj["errors"]
            if not isinstance(errors, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            self.report.error(fname, line, "the rating is not a JSON object with a list 'errors' (mt-metrics-eval "
                                           "ratings.Rating) nor None")
            return
        rows = self.extras_rows["ratings"]
        seg = str(k + 1)
        if not errors:
            rows.append([lp, name, system, seg, rater, None, None, "target", "no-error", "", None])
            return
        for e in errors:
            try:
                start, end = int(e["start"]), int(e["end"])
            except (KeyError, TypeError, ValueError):
                self.report.error(fname, line, f"an error of {system!r} has no integer start/end: {e!r}")
                continue
            side = "source" if e.get("is_source_error") else "target"
            text = source[k] if side == "source" else (texts[k] if texts is not None else None)
            if text is not None and not (0 <= start <= end <= len(text)):
                self.report.error(fname, line, f"span {start}-{end} of {system!r} lies outside its {side} text "
                                               f"({len(text)} characters, line breaks unescaped)")
                continue
            score = e.get("score")
            rows.append([lp, name, system, seg, rater, start, end, side, e.get("category") or "",
                         e.get("severity") or "", None if score is None else float(score)])

    # -- metric scores -----------------------------------------------------------------------
    def metric_scores(self, lp: str, n: int, known: set[str]) -> None:
        """``metric-scores/<lp>/<metric>-<refs>.<level>.score`` -> the metric_scores extra table.
        ``known``: the systems (``system-outputs/``) and reference sets of the pair; a score of
        another name is refused (as mt-metrics-eval's ``EvalSet.CheckScores`` refuses it), never
        dropped. A pair without system outputs (a scores-only folder: the metric scores are the
        data) has nothing to check against (empty ``known``)."""
        prefix = f"metric-scores/{lp}/"
        for fname in self.names:
            if not (fname.startswith(prefix) and fname.endswith(".score") and "/" not in fname[len(prefix):]):
                continue
            self.used.add(fname)
            base = fname[len(prefix):-len(".score")]
            stem, _, level = base.rpartition(".")
            metric, dash, refset = stem.rpartition("-")
            if not dash or not metric:
                metric, refset = stem, ""
            if level not in ("seg", "sys"):
                self.own.warning(fname, None, f"{level!r}-level metric scores are not loaded (only seg and sys)")
                continue
            self.metric_file(lp, n, fname, metric, refset, level, known)

    def known_rows(self, lp: str, fname: str, rows: list, known: set[str]) -> list:
        """The score lines of ``fname`` that name a system or reference set of the pair; those
        naming another are refused with one error listing them (as mt-metrics-eval's
        ``EvalSet.CheckScores`` refuses them, for metric and human scores alike). Empty
        ``known`` (a scores-only folder): nothing to check against."""
        unknown = [(line, f[0]) for line, f in rows if f[0] not in known] if known else []
        if not unknown:
            return rows
        names = list(dict.fromkeys(s for _, s in unknown))
        self.report.error(fname, unknown[0][0], f"{len(unknown)} score line(s) name system(s) that "
                                                f"the data does not have (no output in "
                                                f"system-outputs/{lp}/, no reference set): "
                                                f"{', '.join(shown(x) for x in names[:5])}"
                                                f"{' ...' if len(names) > 5 else ''} "
                                                f"({describe_lines([ln for ln, _ in unknown])}); add their "
                                                "outputs or remove the lines")
        return [(line, f) for line, f in rows if f[0] in known]

    def metric_file(self, lp: str, n: int, fname: str, metric: str, refset: str, level: str,
                    known: set[str]) -> None:
        rows = self.known_rows(lp, fname, _score_lines(self.src, fname, 2, self.report), known)
        if level == "sys":
            seen: dict[str, int] = {}
            once = []
            for line, f in rows:
                if f[0] in seen:
                    self.report.error(fname, line, f"system {shown(f[0])} appears twice (also line {seen[f[0]]}); "
                                                   "a sys-level file has one line per system")
                    continue
                seen[f[0]] = line
                once.append((line, f))
            rows = once
        if level == "seg":
            blocks = _per_system_blocks(rows, fname, n, "scores", self.report)
            items = [(system, str(k + 1), line, v) for system, b in blocks.items() for k, (line, v) in enumerate(b)]
        else:
            items = [(f[0], "", line, f[1]) for line, f in rows]
        bad: list[int] = []
        why = ""
        for system, seg_id, line, value in items:
            try:
                x = _number(value)
            except ValueError as exc:
                bad.append(line)
                why = why or f"{value!r} {exc}"
                continue
            if x is not None:
                self.extras_rows["metric_scores"].append([lp, metric, refset, level, system, seg_id, x])
        if bad:
            self.report.error(fname, bad[0], f"{len(bad)} unusable score(s) ({describe_lines(bad)}; the first: "
                                             f"{why}); scores must be finite numbers within ±{MAX_ABS_SCORE:.0e}")

    # -- the whole folder --------------------------------------------------------------------
    def unused_files(self) -> None:
        """Warn about files no rule read: in the layout's folders, and outside them."""
        ignored = [n for n in self.names if n not in self.used and not n.lower().startswith("readme")
                   and not n.startswith(_FOLDERS)]
        stray = [n for n in self.names if n not in self.used and n.startswith(_FOLDERS)]
        if stray:
            self.own.warning(self.src.label, None, f"file(s) that match no language pair in sources/ or no naming "
                                                   f"rule, ignored: {', '.join(stray[:10])}"
                                                   f"{' ...' if len(stray) > 10 else ''}")
        if ignored:
            self.own.warning(self.src.label, None, f"file(s) outside the mt-metrics-eval folders, ignored: "
                                                   f"{', '.join(ignored[:10])}{' ...' if len(ignored) > 10 else ''}")

    def extras(self) -> dict[str, pd.DataFrame]:
        extras = {}
        for key, rows in self.extras_rows.items():
            if rows:
                df = pd.DataFrame(rows, columns=_EXTRA_COLUMNS[key])
                if "score" in df:
                    df["score"] = df["score"].astype("float64")
                for col in ("start", "end"):
                    if col in df:
                        df[col] = df[col].astype("Int64")
                extras[key] = df
        return extras


def read_mtme(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    reader = _Reader(src, report)
    lps = sorted({_stem(n[len("sources/"):]) for n in reader.names
                  if n.startswith("sources/") and _is_text(n) and n.count("/") == 1})
    if not lps:
        report.error(src.label, None, "no sources/<lp>.txt (or .jsonl) file: an mt-metrics-eval folder needs the "
                                      "source segments of each language pair in sources/<lp>.txt")
        raise DataError(report)
    for lp in lps:
        reader.language_pair(lp)
    reader.unused_files()
    if not report.ok:
        raise DataError(report)

    segments = frame(["lp"] + SEGMENT_COLUMNS, *reader.tables["seg"])
    references = frame(["lp"] + REFERENCE_COLUMNS, *reader.tables["ref"])
    outputs = frame(["lp"] + OUTPUT_COLUMNS, *reader.tables["out"])
    judgements = frame(["lp"] + JUDGEMENT_COLUMNS, *reader.tables["jud"])
    datasets = assemble(name, segments, references, outputs, judgements, None, reader.extras(), report)
    for lp, ds in datasets.items():
        ds.extras = {k: v for k, v in ds.extras.items() if len(v)}
        ds.warnings = [p for p in reader.own.warnings] + list(ds.warnings)
    report.extend(reader.own.warnings)
    return datasets


read = read_mtme


# ---- a whole mt-metrics-eval-v2 root: several test sets ------------------------------------
def test_sets(src: FileSource) -> dict[str, list[str]]:
    """Test set -> its language pairs, for an mt-metrics-eval-v2 root (``<test set>/sources/<lp>.txt``,
    e.g. ``wmt22/``, ``wmt23/``, as mt-metrics-eval downloads them); empty for anything else
    (a single test set has ``sources/`` at its top)."""
    out: dict[str, list[str]] = {}
    for n in src.names():
        parts = n.split("/")
        if len(parts) == 3 and parts[1] == "sources" and _is_text(parts[2]):
            out.setdefault(parts[0], []).append(_stem(parts[2]))
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def _lp_files(lps):
    """``keep`` for :meth:`FileSource.sub`: the files of one test set that belong to ``lps``."""
    lps = set(lps)

    def keep(name: str) -> bool:
        folder, _, rest = name.partition("/")
        if folder in ("system-outputs", "metric-scores", "metadata"):
            return rest.split("/")[0] in lps
        if folder == "sources":
            return _stem(rest) in lps
        if folder == "documents":
            return rest[:-len(".docs")] in lps
        if folder in ("references", "human-scores"):
            return any(rest.startswith(lp + ".") for lp in lps)
        return True  # README and the like (the test-set reader says what it ignores)

    return keep


def read_root(src: FileSource, sets=None, lps=None, report: Report | None = None) -> dict[str, dict[str, Dataset]]:
    """Every test set of an mt-metrics-eval-v2 root (or ``sets``), each read by :func:`read_mtme`
    from its own folder (optionally only the language pairs ``lps``): {test set: {lp: Dataset}}.
    Problems of every test set are collected, their file names prefixed with the test set, and
    raised together; unknown ``sets`` / ``lps`` are refused naming what the root holds."""
    import dataclasses

    report = report or Report()
    have = test_sets(src)
    if not have:
        report.error(src.label, None, "no <test set>/sources/<lp>.txt file: an mt-metrics-eval-v2 root holds one "
                                      "folder per test set (wmt22/, wmt23/, ...), each with sources/<lp>.txt")
        raise DataError(report)
    sets = list(have) if sets is None else list(sets)
    unknown = [t for t in sets if t not in have]
    if unknown:
        report.error(src.label, None, f"test set(s) {', '.join(unknown)} not in the root; it holds "
                                      + "; ".join(f"{t} ({', '.join(v)})" for t, v in have.items()))
        raise DataError(report)
    out = {}
    for ts in sets:
        want = have[ts] if lps is None else [lp for lp in have[ts] if lp in set(lps)]
        if not want:
            continue
        sub = Report()
        try:
            out[ts] = read_mtme(src.sub(ts, _lp_files(want)), ts, sub)
        except DataError:
            pass  # its problems are in ``sub``
        label = f"{src.label}/{ts}"
        report.extend(dataclasses.replace(p, file=p.file if p.file.startswith(label) else f"{ts}/{p.file}" if p.file
                                          else ts) for p in sub.problems)
    if lps is not None:
        missing = [lp for lp in lps if not any(lp in have[t] for t in sets)]
        if missing:
            report.error(src.label, None, f"language pair(s) {', '.join(missing)} in none of the test sets "
                                          f"{', '.join(sets)}")
    if not report.ok:
        raise DataError(report)
    return out
