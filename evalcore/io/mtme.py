"""mt-metrics-eval layout (google-research/mt-metrics-eval, "File organization") for one test set.

A folder (or zip) of one test set, e.g. ``wmt22/``, holding for each language pair <lp>:

* ``sources/<lp>.txt``                      source segments, one per line        (required)
* ``references/<lp>.<ref>.txt``             one file per reference set <ref>
* ``system-outputs/<lp>/<system>.txt``      one file per system
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
warning. Text files follow the plain-text rules (:mod:`evalcore.io.plaintext`): UTF-8,
BOM and CRLF accepted, a final newline adds no segment, line counts must match the source.
"""
from __future__ import annotations

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


def detect(src: FileSource) -> bool:
    names = src.names()
    has_sources = any(n.startswith("sources/") and n.endswith(".txt") for n in names)
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


_FOLDERS = ("sources/", "references/", "system-outputs/", "human-scores/", "metric-scores/", "documents/")

_EXTRA_COLUMNS = {"system_scores": ["lp", "scorer", "system", "score"],
                  "metric_scores": ["lp", "metric", "refset", "level", "system", "seg_id", "score"],
                  "segment_domains": ["lp", "seg_id", "domain"]}


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
        self.used.add(sname)
        source = read_lines(self.src, sname, self.report)
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
        self.human_scores(lp, n)
        self.metric_scores(lp, n, set(systems) | set(ref_names) if systems else set())

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

    def texts(self, fname: str, sname: str, n: int) -> list[str] | None:
        """The lines of a text file, None (reported) when unreadable or not one per source line."""
        lines = read_lines(self.src, fname, self.report)
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
            if fname.startswith(prefix) and fname.endswith(".txt") and fname.count("/") == 1:
                self.used.add(fname)
                ref = fname[len(prefix):-len(".txt")]
                lines = self.texts(fname, sname, n)
                ref_names[ref] = lines
                for i, t in enumerate(lines or []):
                    self.add("ref", [lp, str(i + 1), ref, t], fname, i + 1)
        return ref_names

    def outputs(self, lp: str, sname: str, n: int, ref_names: dict[str, list[str] | None]) -> list[str]:
        """Read ``system-outputs/<lp>/<system>.txt``; a file named like a reference set is that set.
        Returns the systems (every file's name, readable or not)."""
        prefix = f"system-outputs/{lp}/"
        systems = []
        for fname in self.names:
            if fname.startswith(prefix) and fname.endswith(".txt") and "/" not in fname[len(prefix):]:
                self.used.add(fname)
                system = fname[len(prefix):-len(".txt")]
                systems.append(system)
                lines = self.texts(fname, sname, n)
                if system in ref_names:
                    if lines is not None and ref_names[system] is not None and lines != ref_names[system]:
                        self.own.warning(fname, None, f"differs from references/{lp}.{system}.txt; the reference "
                                                      f"file is used for {system!r} (a system output named like a "
                                                      "reference set is taken to be that reference)")
                    continue
                for i, t in enumerate(lines or []):
                    self.add("out", [lp, system, str(i + 1), t], fname, i + 1)
        return systems

    # -- human scores ------------------------------------------------------------------------
    def human_scores(self, lp: str, n: int) -> None:
        """``human-scores/<lp>.<scorer>.<level>.score``: seg -> judgements, sys -> system_scores."""
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
                self.human_sys(lp, fname, scorer)
            else:
                self.own.warning(fname, None, f"{level!r}-level human scores are not loaded (only seg and sys)")

    def human_seg(self, lp: str, n: int, fname: str, scorer: str) -> None:
        blocks = _per_system_blocks(_score_lines(self.src, fname, 2, self.report), fname, n, "scores", self.report)
        for system, items in blocks.items():
            for k, (line, value) in enumerate(items):
                if value != "None":  # unrated
                    self.add("jud", [lp, system, str(k + 1), RATER, scorer, value], fname, line)

    def human_sys(self, lp: str, fname: str, scorer: str) -> None:
        seen: dict[str, int] = {}
        for line, (system, value) in _score_lines(self.src, fname, 2, self.report):
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

    def metric_file(self, lp: str, n: int, fname: str, metric: str, refset: str, level: str,
                    known: set[str]) -> None:
        rows = _score_lines(self.src, fname, 2, self.report)
        unknown = [(line, f[0]) for line, f in rows if f[0] not in known] if known else []
        if unknown:
            names = list(dict.fromkeys(s for _, s in unknown))
            self.report.error(fname, unknown[0][0], f"{len(unknown)} score line(s) name system(s) that "
                                                    f"the data does not have (no output in "
                                                    f"system-outputs/{lp}/, no reference set): "
                                                    f"{', '.join(shown(x) for x in names[:5])}"
                                                    f"{' ...' if len(names) > 5 else ''} "
                                                    f"({describe_lines([ln for ln, _ in unknown])}); add their "
                                                    "outputs or remove the lines")
            rows = [(line, f) for line, f in rows if f[0] in known] if known else rows
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
                extras[key] = df
        return extras


def read_mtme(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    reader = _Reader(src, report)
    lps = sorted(n[len("sources/"):-len(".txt")] for n in reader.names
                 if n.startswith("sources/") and n.endswith(".txt") and n.count("/") == 1)
    if not lps:
        report.error(src.label, None, "no sources/<lp>.txt file: an mt-metrics-eval folder needs the source "
                                      "segments of each language pair in sources/<lp>.txt")
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
        if len(parts) == 3 and parts[1] == "sources" and parts[2].endswith(".txt"):
            out.setdefault(parts[0], []).append(parts[2][:-len(".txt")])
    return {k: sorted(v) for k, v in sorted(out.items())}


def _lp_files(lps):
    """``keep`` for :meth:`FileSource.sub`: the files of one test set that belong to ``lps``."""
    lps = set(lps)

    def keep(name: str) -> bool:
        folder, _, rest = name.partition("/")
        if folder in ("system-outputs", "metric-scores"):
            return rest.split("/")[0] in lps
        if folder == "sources":
            return rest[:-len(".txt")] in lps
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
