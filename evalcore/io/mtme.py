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


import pandas as pd

from ..core.dataset import JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, SEGMENT_COLUMNS, Dataset
from ..core.problems import MAX_ABS_SCORE, DataError, Report, score_problem
from .assemble import assemble, frame
from .plaintext import read_lines
from .source import FileSource
from .text import describe_lines

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
    return out


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


def read_mtme(src: FileSource, name: str, report: Report | None = None) -> dict[str, Dataset]:
    report = report or Report()
    own = Report()
    names = src.names()
    lps = sorted(n[len("sources/"):-len(".txt")] for n in names
                 if n.startswith("sources/") and n.endswith(".txt") and n.count("/") == 1)
    if not lps:
        report.error(src.label, None, "no sources/<lp>.txt file: an mt-metrics-eval folder needs the source "
                                      "segments of each language pair in sources/<lp>.txt")
        raise DataError(report)

    tables: dict[str, list] = {k: [[], [], []] for k in ("seg", "ref", "out", "jud")}
    extras_rows: dict[str, list] = {"system_scores": [], "metric_scores": [], "segment_domains": []}

    def add(kind, row, fname, line):
        tables[kind][0].append(row)
        tables[kind][1].append(fname)
        tables[kind][2].append(line)

    used = set()
    for lp in lps:
        sname = f"sources/{lp}.txt"
        used.add(sname)
        source = read_lines(src, sname, report)
        if source is None:
            continue
        n = len(source)
        if n == 0:
            report.error(sname, None, "is empty; it needs one source segment per line")
        docs = [""] * n
        dname = f"documents/{lp}.docs"
        if dname in src:
            used.add(dname)
            dlines = read_lines(src, dname, report)
            if dlines is not None:
                if len(dlines) != n:
                    report.error(dname, None, f"has {len(dlines)} lines but {sname} has {n}; it needs one "
                                              "'<domain> <document>' line per source segment")
                else:
                    for i, line in enumerate(dlines):
                        f = _fields(line)
                        if len(f) == 2:
                            extras_rows["segment_domains"].append([lp, str(i + 1), f[0]])
                            docs[i] = f[1]
                        elif len(f) == 1:
                            docs[i] = f[0]
                        else:
                            report.error(dname, i + 1, f"has {len(f)} fields; expected '<domain> <document>'")
        for i, text in enumerate(source):
            add("seg", [lp, str(i + 1), docs[i], text], sname, i + 1)

        def texts(fname):
            lines = read_lines(src, fname, report)
            if lines is not None and len(lines) != n:
                report.error(fname, None, f"has {len(lines)} line{'s' if len(lines) != 1 else ''} but {sname} "
                                          f"has {n}; every text file needs one line per source segment")
                return None
            return lines

        ref_names: dict[str, list[str] | None] = {}
        prefix = f"references/{lp}."
        for fname in names:
            if fname.startswith(prefix) and fname.endswith(".txt") and fname.count("/") == 1:
                used.add(fname)
                ref = fname[len(prefix):-len(".txt")]
                lines = texts(fname)
                ref_names[ref] = lines
                for i, t in enumerate(lines or []):
                    add("ref", [lp, str(i + 1), ref, t], fname, i + 1)
        prefix = f"system-outputs/{lp}/"
        for fname in names:
            if fname.startswith(prefix) and fname.endswith(".txt") and "/" not in fname[len(prefix):]:
                used.add(fname)
                system = fname[len(prefix):-len(".txt")]
                lines = texts(fname)
                if system in ref_names:
                    if lines is not None and ref_names[system] is not None and lines != ref_names[system]:
                        own.warning(fname, None, f"differs from references/{lp}.{system}.txt; the reference file "
                                                 f"is used for {system!r} (a system output named like a reference "
                                                 "set is taken to be that reference)")
                    continue
                for i, t in enumerate(lines or []):
                    add("out", [lp, system, str(i + 1), t], fname, i + 1)

        # -- human scores ---------------------------------------------------------------
        prefix = f"human-scores/{lp}."
        for fname in names:
            if not (fname.startswith(prefix) and fname.endswith(".score") and fname.count("/") == 1):
                continue
            used.add(fname)
            parts = fname[len(prefix):-len(".score")].split(".")
            if len(parts) < 2:
                report.error(fname, None, "name must be human-scores/<lp>.<scorer>.<level>.score "
                                          "(level seg, sys, doc or domain)")
                continue
            scorer, level = ".".join(parts[:-1]), parts[-1]
            if level == "seg":
                blocks = _per_system_blocks(_score_lines(src, fname, 2, report), fname, n, "scores", report)
                for system, items in blocks.items():
                    for k, (line, value) in enumerate(items):
                        if value != "None":  # unrated
                            add("jud", [lp, system, str(k + 1), RATER, scorer, value], fname, line)
            elif level == "sys":
                seen: dict[str, int] = {}
                for line, (system, value) in _score_lines(src, fname, 2, report):
                    if system in seen:
                        report.error(fname, line, f"system {system!r} appears twice (also line {seen[system]}); "
                                                  "a sys-level file has one line per system")
                        continue
                    seen[system] = line
                    try:
                        x = _number(value)
                    except ValueError as exc:
                        report.error(fname, line, f"score {value!r} {exc}")
                        continue
                    if x is not None:
                        extras_rows["system_scores"].append([lp, scorer, system, x])
            else:
                own.warning(fname, None, f"{level!r}-level human scores are not loaded (only seg and sys)")

        # -- metric scores ----------------------------------------------------------------
        prefix = f"metric-scores/{lp}/"
        for fname in names:
            if not (fname.startswith(prefix) and fname.endswith(".score") and "/" not in fname[len(prefix):]):
                continue
            used.add(fname)
            base = fname[len(prefix):-len(".score")]
            stem, _, level = base.rpartition(".")
            metric, dash, refset = stem.rpartition("-")
            if not dash or not metric:
                metric, refset = stem, ""
            if level not in ("seg", "sys"):
                own.warning(fname, None, f"{level!r}-level metric scores are not loaded (only seg and sys)")
                continue
            rows = _score_lines(src, fname, 2, report)
            if level == "seg":
                blocks = _per_system_blocks(rows, fname, n, "scores", report)
                items = [(system, str(k + 1), line, v) for system, b in blocks.items() for k, (line, v) in enumerate(b)]
            else:
                items = [(f[0], "", line, f[1]) for line, f in rows]
            bad, why = [], ""
            for system, seg_id, line, value in items:
                try:
                    x = _number(value)
                except ValueError as exc:
                    bad.append(line)
                    why = why or f"{value!r} {exc}"
                    continue
                if x is not None:
                    extras_rows["metric_scores"].append([lp, metric, refset, level, system, seg_id, x])
            if bad:
                report.error(fname, bad[0], f"{len(bad)} unusable score(s) ({describe_lines(bad)}; the first: "
                                            f"{why}); scores must be finite numbers within ±{MAX_ABS_SCORE:.0e}")

    ignored = [n for n in names if n not in used and not n.lower().startswith("readme")
               and not n.startswith(("sources/", "references/", "system-outputs/", "human-scores/",
                                     "metric-scores/", "documents/"))]
    stray = [n for n in names if n not in used and n.startswith(("sources/", "references/", "system-outputs/",
                                                                  "human-scores/", "metric-scores/", "documents/"))]
    if stray:
        own.warning(src.label, None, f"file(s) that match no language pair in sources/ or no naming rule, ignored: "
                                     f"{', '.join(stray[:10])}{' ...' if len(stray) > 10 else ''}")
    if ignored:
        own.warning(src.label, None, f"file(s) outside the mt-metrics-eval folders, ignored: "
                                     f"{', '.join(ignored[:10])}{' ...' if len(ignored) > 10 else ''}")
    if not report.ok:
        raise DataError(report)

    segments = frame(["lp"] + SEGMENT_COLUMNS, *tables["seg"])
    references = frame(["lp"] + REFERENCE_COLUMNS, *tables["ref"])
    outputs = frame(["lp"] + OUTPUT_COLUMNS, *tables["out"])
    judgements = frame(["lp"] + JUDGEMENT_COLUMNS, *tables["jud"])
    columns = {"system_scores": ["lp", "scorer", "system", "score"],
               "metric_scores": ["lp", "metric", "refset", "level", "system", "seg_id", "score"],
               "segment_domains": ["lp", "seg_id", "domain"]}
    extras = {}
    for key, rows in extras_rows.items():
        if rows:
            df = pd.DataFrame(rows, columns=columns[key])
            if "score" in df:
                df["score"] = df["score"].astype("float64")
            extras[key] = df
    datasets = assemble(name, segments, references, outputs, judgements, None, extras, report)
    for lp, ds in datasets.items():
        ds.extras = {k: v for k, v in ds.extras.items() if len(v)}
        ds.warnings = [p for p in own.warnings] + list(ds.warnings)
    report.extend(own.warnings)
    return datasets


read = read_mtme
