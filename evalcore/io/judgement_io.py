"""Human judgements from and to annotation platforms (Appraise, Pearmut): the parts shared by
the CLI (``import-judgements``, ``export-judgements``) and the Data page.

* :func:`read_export` reads a platform export into a
  :class:`~evalcore.io.appraise.JudgementImport` (tidy judgements + rows set aside);
* :func:`check_against` compares its ids with a loaded dataset (the checks the tidy loader
  would make when the table is saved as that dataset's ``judgements.tsv``);
* :func:`judgements_tsv` is the tidy ``judgements.tsv`` text of a judgements table;
* :func:`dataset_judgements` is a dataset's judgements with the platform fields they were
  imported with (kept by the tidy loader as the ``judgements_columns`` extra), for writing back.
"""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..core.problems import Report
from ..core.results import Result
from .appraise import JudgementImport, read_appraise
from .text import describe_lines

FORMATS = ("appraise", "pearmut", "wmtjsonl")


def read_export(fmt: str, data: bytes, name: str, **kw) -> JudgementImport:
    """The judgements of an export of platform ``fmt`` (``appraise``, ``pearmut``, or ``wmtjsonl``:
    a WMT human-evaluation JSONL release)."""
    if fmt == "appraise":
        return read_appraise(data, name, **kw)
    if fmt == "pearmut":
        from .pearmut import read_pearmut

        return read_pearmut(data, name, **kw)
    if fmt == "wmtjsonl":
        from .wmtjsonl import read_wmt_jsonl_judgements

        return read_wmt_jsonl_judgements(data, name, **kw)
    raise ValueError(f"unknown judgement format {fmt!r}; known: {', '.join(FORMATS)}")


def read_export_file(fmt: str, path: str | os.PathLike, **kw) -> JudgementImport:
    with open(path, "rb") as fh:
        data = fh.read()
    return read_export(fmt, data, os.path.basename(str(path)), **kw)


def check_against(imp: JudgementImport, coll: dict, dataset_label: str) -> Report:
    """Errors for imported judgements that the dataset ``coll`` ({lp: Dataset}) could not hold:
    a language pair it does not have, segment ids it does not have; a warning for systems with
    no text in it (kept, as the tidy loader keeps them)."""
    report = Report()
    j = imp.judgements
    for lp, sub in j.groupby("lp", sort=False):
        if lp not in coll:
            report.error(imp.source, None, f"language pair {lp!r} is not in {dataset_label} (it has "
                                           f"{', '.join(k or '-' for k in coll)}); give the pair to use (command line: --lp; on the Data "
                                           "page the pair is taken when the dataset has only one)")
            continue
        ds = coll[lp]
        known = set(ds.segments["seg_id"].astype(str))
        bad = sub[~sub["seg_id"].astype(str).isin(known)]
        if len(bad):
            ids = list(dict.fromkeys(bad["seg_id"]))
            lines = _lines(imp, bad)
            report.error(imp.source, lines[0] if lines else None,
                         f"{len(bad)} judgement(s) name segment id(s) not in {dataset_label} ({lp}): "
                         f"{', '.join(map(repr, ids[:8]))}{' ...' if len(ids) > 8 else ''}"
                         + (f" ({describe_lines(lines)})" if lines else ""))
        texts = set(ds.outputs["system"]) | set(ds.references["ref_id"])
        no_text = [s for s in dict.fromkeys(sub["system"]) if s not in texts]
        if no_text:
            report.warning(imp.source, None, f"judgements of {len(no_text)} system(s) without text in "
                                             f"{dataset_label} ({lp}): {', '.join(no_text)}; kept")
    return report


def _lines(imp: JudgementImport, rows: pd.DataFrame) -> list[int]:
    if len(imp.lines) == len(imp.judgements):
        return [imp.lines[i] for i in rows.index]
    return []


def judgements_tsv(judgements: pd.DataFrame) -> str:
    """The tidy ``judgements.tsv`` text of ``judgements`` (scores as exact floats, every column kept)."""
    out = judgements.assign(score=judgements["score"].map(lambda v: repr(float(v)) if v == v else ""))
    return out.to_csv(sep="\t", index=False, lineterminator="\n")


def loadable_tsv(table: pd.DataFrame, source: str) -> str:
    """:func:`judgements_tsv` of ``table`` after reading it back as the tidy loader reads a
    ``judgements.tsv`` (with a segments file of its ids): what an import writes, the loader
    accepts, with the same rows, names and scores. The readers refuse what cannot be written
    (control characters in names, scores out of range); this is the guard that makes a writer
    and its loader unable to disagree. Raises :class:`~evalcore.core.problems.DataError` naming
    ``source`` and the loader's problems (nothing is written then)."""
    from ..core.problems import DataError
    from .source import FileSource
    from .tidy import read_tidy

    text = judgements_tsv(table)
    if not len(table):
        return text
    segs = table[["lp", "seg_id"]].astype(str).drop_duplicates()
    files: dict[str, bytes | Path] = {"segments.tsv": segs.to_csv(sep="\t", index=False, lineterminator="\n").encode(),
                                      "judgements.tsv": text.encode("utf-8")}
    back = Report()
    problem = None
    try:
        coll = read_tidy(FileSource(files, source), source, back)
        got = pd.concat([d.judgements.assign(lp=d.lp) for d in coll.values()], ignore_index=True)
        key = ["lp", "system", "seg_id", "rater", "judgement"]
        want = table[key].astype(str).assign(score=table["score"].astype(float))
        mine = got[key].astype(str).assign(score=got["score"].astype(float))
        order = key + ["score"]
        if len(want) != len(mine) or not want.sort_values(order).reset_index(drop=True).equals(
                mine.sort_values(order).reset_index(drop=True)):
            problem = f"{len(want)} judgement(s) read, but {len(mine)} load back from the written judgements.tsv " \
                      "or their names or scores differ"
    except DataError:
        pass
    if back.errors or problem:
        report = Report()
        for p in back.errors[:5]:
            report.error(source, None, f"the judgements read from it would not load back from judgements.tsv: {p}")
        if problem:
            report.error(source, None, f"the judgements read from it would not load back unchanged: {problem}")
        raise DataError(report)
    return text


def write_text(path: str | os.PathLike, text: str) -> None:
    from ..core.export import atomic_write

    atomic_write(path, lambda fh: fh.write(text))


def dataset_judgements(ds, judgement: str | None = None) -> Result:
    """The segment-level judgements of ``ds`` (one criterion: ``judgement``, or the only one)
    with ``lp`` and, when the dataset was loaded from a judgements.tsv with platform fields
    (doc_id, start_time, ...), those fields, matched row by row; ESA spans (kept once, in the
    ``esa_spans`` extra table) come back as the ``esa_spans_json`` column. The notes say what
    could not be matched."""
    from .spans import ESA_COLUMN, ESA_EXTRA

    j = ds.judgements
    names = list(dict.fromkeys(j["judgement"]))
    if judgement is None:
        if len(names) > 1:
            raise ValueError(f"the data holds several kinds of judgement ({', '.join(names)}); choose one "
                             "with --judgement")
        judgement = names[0] if names else None
    elif judgement not in names:
        raise ValueError(f"no judgement {judgement!r} in {ds.name} {ds.lp}; it has {', '.join(names) or 'none'}")
    out = j.assign(lp=ds.lp)[["lp", "system", "seg_id", "rater", "judgement", "score"]]
    extra = ds.extras.get("judgements_columns")
    key = ["system", "seg_id", "rater", "judgement"]
    note = None
    if extra is not None and len(extra) == len(j) and all(c in extra for c in key) and \
            (extra[key].astype(str).to_numpy() == j[key].astype(str).to_numpy()).all():
        for c in extra.columns:
            if c not in key and c != "lp" and c not in out:
                out[c] = extra[c].to_numpy()
    elif extra is not None:
        note = (f"{ds.lp}: the extra columns of judgements.tsv ({', '.join(c for c in extra.columns if c not in key)}) "
                "could not be matched row by row to the judgements (rows without a segment, or a reordered "
                "table): they are not written")
    esa = ds.extras.get(ESA_EXTRA)
    notes = [note] if note else []
    if esa is not None and ESA_COLUMN not in out and ESA_COLUMN in esa:
        ekey = ["system", "seg_id", "rater"]
        spans = esa[ekey + [ESA_COLUMN]].astype(str)
        if spans.duplicated(ekey).any():
            notes.append(f"{ds.lp}: a rater marked ESA spans on the same output more than once: the spans "
                         "cannot be matched to one judgement each and are not written")
        else:
            merged = out[ekey].astype(str).merge(spans, on=ekey, how="left")
            out[ESA_COLUMN] = merged[ESA_COLUMN].fillna("").to_numpy()
    out = out[out["judgement"] == judgement].reset_index(drop=True)
    return Result(out, notes=tuple(notes))


def _looks_like(fmt: str, data: bytes) -> bool:
    """Whether the start of ``data`` is an Appraise export (a CSV row of 11-14 fields whose 4th
    is an item type, or the header naming itemType) or a Pearmut log (a JSON object with
    ``user_id`` and ``annotation``)."""
    import csv
    import io
    import json

    from .appraise import ITEM_TYPES, LAYOUTS

    head = data[:65536].decode("utf-8", errors="replace").lstrip("\ufeff")
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    if fmt == "pearmut":
        try:
            rec = json.loads(first)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply: not a Pearmut log
            return False
        return isinstance(rec, dict) and "user_id" in rec and "annotation" in rec
    try:
        row = next(csv.reader(io.StringIO(head)), [])
    except csv.Error:
        return False
    return len(row) in LAYOUTS and row[3].strip() in (*ITEM_TYPES, "itemType")


def platform_export(src) -> tuple[str, str] | None:
    """(file name, format) of the one annotation-platform export among the files of ``src``
    (a :class:`~evalcore.io.source.FileSource`): a top-level ``.csv`` that reads as Appraise's
    CSV export, or a ``.jsonl`` that reads as Pearmut's annotation log (other files are left
    alone, as before); None when there is none. Several are refused (which one holds the
    judgements would be a guess)."""
    found = []
    for n in src.names():
        if "/" in n or not n.lower().endswith((".csv", ".jsonl")):
            continue
        fmt = "appraise" if n.lower().endswith(".csv") else "pearmut"
        if _looks_like(fmt, src.read(n)):
            found.append((n, fmt))
    if len(found) > 1:
        raise ValueError(f"several annotation exports ({', '.join(n for n, _ in found)}); upload one "
                         "Appraise .csv or Pearmut .jsonl with the dataset's files")
    return found[0] if found else None


def with_platform_judgements(src):
    """``src`` with its Appraise/Pearmut export (:func:`platform_export`) turned into the tidy
    ``judgements.tsv`` and the rows set aside into ``extra_judgements_set_aside.tsv`` (kept with
    the dataset), and the warnings of the import. The rest of ``src`` (segments, outputs,
    references) is loaded first: its language pair names the judgements when the dataset has
    one pair (Appraise's ``eng-ces`` becomes the dataset's ``en-cs``; Pearmut records none),
    and the ids are checked against it (:func:`check_against`). Without an export, ``src`` is
    returned as it is. Raises :class:`~evalcore.core.problems.DataError` with every problem."""
    from ..core.problems import DataError, Problem
    from . import load_collection
    from .source import FileSource

    found = platform_export(src)
    if found is None:
        return src, []
    name, fmt = found
    rest = FileSource({n: src.read(n) for n in src.names() if n != name}, src.label)
    if rest.find("judgements.tsv") is not None:
        raise ValueError(f"both judgements.tsv and the export {name}: upload one of them")
    coll = load_collection(rest)
    lp = next(iter(coll)) if len(coll) == 1 else None
    imp = read_export(fmt, src.read(name), name, lp=lp)
    report = check_against(imp, coll, "the uploaded dataset")
    if not report.ok:
        raise DataError(report)
    notes = list(imp.warnings) + report.warnings
    if lp is not None:
        notes.append(Problem("warning", name, None, f"its judgements are read as language pair {lp!r}, the pair of "
                                                    "the uploaded dataset"))
    files: dict[str, bytes | Path] = {n: rest.read(n) for n in rest.names()}
    files["judgements.tsv"] = loadable_tsv(imp.judgements, name).encode("utf-8")
    if len(imp.set_aside):
        files["extra_judgements_set_aside.tsv"] = judgements_tsv(imp.set_aside).encode("utf-8")
    return FileSource(files, src.label), notes
