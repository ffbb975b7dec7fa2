"""Cross-file validation and assembly of long tables into one :class:`Dataset` per language pair.

Every loader (tidy TSV, plain text, Google MQM, mt-metrics-eval) turns its files into the
same long tables, each row remembering its ``_file`` and ``_line``, and hands them to
:func:`assemble`, which checks every cross-reference at once and either returns the
datasets or raises :class:`DataError` with the complete report: nothing is partially loaded.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..core.dataset import (JUDGEMENT_COLUMNS, OUTPUT_COLUMNS, REFERENCE_COLUMNS, SEGMENT_COLUMNS,
                       TAG_COLUMNS, Dataset)
from ..core.problems import CONTROL_CHARS, MAX_ABS_SCORE, DataError, Problem, Report
from .text import describe_lines

META = ["_file", "_line"]


def frame(columns: list[str], rows: list[list], files: list[str], lines: Sequence[int | None]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=columns, dtype=object) if rows else pd.DataFrame(columns=columns, dtype=object)
    df["_file"] = files
    df["_line"] = lines
    return df


def frame_from_table(table, columns: list[str]) -> pd.DataFrame:
    """The frame of ``columns`` of a parsed :class:`~evalcore.io.text.Table` with ``_file`` and
    ``_line``, as :func:`frame` makes it. A columnar table gives pandas string columns straight
    from its Arrow arrays (no Python object per row; the checks below run on them, vectorised);
    :func:`_dataset` turns the texts back into Python strings."""
    if table._arrays is None:
        idx = [table.columns.index(c) for c in columns]
        return frame(columns, [[r[i] for i in idx] for r in table.rows], [table.name] * len(table.rows), table.lines)
    # (the score text too: pandas.to_numeric parses a string column as it parses Python strings)
    data = {c: pd.array(table.array(c), dtype=STR) for c in columns}
    df = pd.DataFrame(data) if columns else pd.DataFrame(index=range(len(table)))
    df["_file"] = [table.name] * len(table)
    df["_line"] = table.line_array()
    return df


#: pandas' string dtype (Arrow-backed): what ``.astype(str)`` gives
STR = pd.Series(["x"], dtype=object).astype(str).dtype


def empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(columns=["lp"] + columns + META, dtype=object)


def _where(sub: pd.DataFrame) -> str:
    files = list(dict.fromkeys(sub["_file"]))
    lines = [int(x) for x in sub["_line"] if x is not None and x == x]
    return f"{files[0]}, {describe_lines(lines)}" if lines else files[0]


def _dups(df: pd.DataFrame, keys: list[str], what: str, report: Report) -> pd.DataFrame:
    dup = df.duplicated(keys, keep=False)
    if not dup.any():
        return df
    d = df[dup]
    for _, sub in d.groupby(keys, sort=False):
        key = ", ".join(f"{k}={v!r}" for k, v in zip(keys, sub.iloc[0][keys]) if k != "lp" or v)
        report.error(sub["_file"].iloc[0], int(sub["_line"].iloc[1]) if sub["_line"].iloc[1] is not None else None,
                     f"duplicate {what} ({key}), also at {_where(sub.iloc[:1])}; keep one row per {what}")
    return df.drop_duplicates(keys, keep="first")


def _isin(values: pd.Series, among: pd.Index) -> np.ndarray:
    """``values.isin(among)`` as a bool array; with Arrow-backed strings on both sides, Arrow's
    own ``is_in`` (pandas would turn ``among`` into a list of Python strings first)."""
    if values.dtype == STR and among.dtype == STR:
        import pyarrow as pa
        import pyarrow.compute as pc

        hit = pc.is_in(pa.array(values.array), value_set=pa.array(among.array))
        return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)
    return values.isin(among).to_numpy(dtype=bool, na_value=False)


def _known(df: pd.DataFrame, seg_keys: pd.MultiIndex) -> pd.Series:
    """Whether each row's (lp, seg_id) is among ``seg_keys``: one vectorised ``isin`` per
    language pair (no Python tuple per row)."""
    known = np.zeros(len(df), dtype=bool)
    seg_lp = seg_keys.get_level_values(0)
    seg_id = seg_keys.get_level_values(1)
    lp_col = df["lp"]
    for lp in pd.unique(lp_col):
        rows = (lp_col == lp).to_numpy(dtype=bool, na_value=False)
        ids = seg_id[seg_lp == lp]
        known[rows] = _isin(df["seg_id"][rows], ids)
    return pd.Series(known, index=df.index, dtype=bool)


def _unknown_segments(df: pd.DataFrame, seg_keys: pd.MultiIndex, what: str, report: Report) -> pd.DataFrame:
    known = _known(df, seg_keys)
    bad = df.loc[~known]
    for (file, lp), sub in bad.groupby(["_file", "lp"], sort=False):
        ids = list(dict.fromkeys(sub["seg_id"]))
        lp_txt = f" of language pair {lp}" if lp else ""
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} {what} name segment id(s) not in the segments file{lp_txt}: "
                     f"{', '.join(map(repr, ids[:8]))}{' ...' if len(ids) > 8 else ''} "
                     f"({describe_lines([int(x) for x in sub['_line'] if x is not None])}); "
                     "add them to the segments file or fix the ids")
    return df.loc[known]


#: characters a name (lp, seg_id, system, ref_id, rater, judgement, tag, doc_id) may not hold:
#: control characters (tab, line breaks, NUL, ...) and the Unicode line/paragraph separators. A
#: name holding one cannot be written back as one TSV field that reads as the same name.
NAME_COLUMNS = {"segments": ["lp", "seg_id", "doc_id"], "references": ["lp", "seg_id", "ref_id"],
                "outputs": ["lp", "system", "seg_id"], "judgements": ["lp", "system", "seg_id", "rater", "judgement"],
                "tags": ["lp", "system", "seg_id", "tag"]}
_CONTROL = CONTROL_CHARS  # one definition: evalcore.core.problems

#: Latin look-alikes of Cyrillic and Greek letters (a short table of the usual confusables, in
#: the spirit of Unicode TS #39's skeletons): names equal after this map are reported.
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕҮІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοντ",
    "ABEKMHOPCTXaeopcyxijsYIJSABEZHIKMNOPTYXovt")


def _skeleton(name: str) -> str:
    """``name`` as it looks: NFKC (so NFC/NFD and compatibility forms agree), invisible format
    characters (zero-width joiner, soft hyphen, bidi marks: category Cf) removed, and Cyrillic /
    Greek look-alikes mapped to Latin."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").translate(_LOOKALIKES)


def _name_problems(tables: dict[str, pd.DataFrame], report: Report) -> None:
    """Control characters in names (errors, file and lines) and names that differ only in
    invisible characters, Unicode normal form or look-alike letters (warnings: both kept)."""
    for tname, cols in NAME_COLUMNS.items():
        t = tables[tname]
        for c in cols:
            if c not in t or not len(t):
                continue
            col = t[c].astype(str)
            # the distinct names first (a handful of systems in a million rows): the rows are
            # searched only when one of them holds a control character
            if not pd.Series(pd.unique(col), dtype=col.dtype).str.contains(_CONTROL, regex=True).any():
                continue
            hit = col.str.contains(_CONTROL, regex=True)
            if hit.any():
                sub = t[hit]
                vals = list(dict.fromkeys(col[hit]))[:5]
                report.error(sub["_file"].iloc[0], int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                             f"{len(sub)} {c} value(s) hold a control character (tab, line break, ...): "
                             f"{', '.join(map(repr, vals))} at {describe_lines([int(x) for x in sub['_line'] if x is not None])}; "
                             "names may not hold tabs, line breaks or other control characters")
    for what, pairs in (("system", [("outputs", "system"), ("judgements", "system"), ("tags", "system")]),
                        ("reference set", [("references", "ref_id")]), ("rater", [("judgements", "rater")])):
        where: dict[str, tuple[str, int | None]] = {}
        for tname, c in pairs:
            t = tables[tname]
            if c not in t or not len(t):
                continue
            first = t.drop_duplicates(c)
            for v, f, ln in zip(first[c].astype(str), first["_file"], first["_line"]):
                where.setdefault(v, (f, ln))
        groups: dict[str, list[str]] = {}
        for v in where:
            groups.setdefault(_skeleton(v), []).append(v)
        for names in groups.values():
            invisible = [v for v in names if unicodedata.normalize("NFC", v) != v
                         or any(unicodedata.category(c) == "Cf" for c in v)]
            if len(names) > 1:
                f, ln = where[names[1]]
                report.warning(f, int(ln) if ln is not None and ln == ln else None,
                               f"{what} names {', '.join(ascii(v) for v in names)} look the same but differ (Unicode "
                               "normal form, invisible characters or look-alike letters from another script); "
                               "kept as different names: rename them if they are one")
            elif invisible:
                f, ln = where[names[0]]
                report.warning(f, int(ln) if ln is not None and ln == ln else None,
                               f"{what} name {ascii(names[0])} holds invisible characters or a non-normalised "
                               "Unicode form; kept as written")


def _normalise(tables: dict[str, pd.DataFrame]) -> None:
    """Fill a missing lp with "", strip lp and the id columns (in place: the loader's frames)."""
    for t in tables.values():
        for c in ("lp",):
            if c not in t:
                t[c] = ""
            t[c] = t[c].fillna("").astype(str).str.strip()
    for tname, cols in (("segments", ["seg_id"]), ("references", ["seg_id", "ref_id"]),
                        ("outputs", ["system", "seg_id"]), ("judgements", ["system", "seg_id", "rater", "judgement"]),
                        ("tags", ["system", "seg_id", "tag"])):
        t = tables[tname]
        for c in cols:
            t[c] = t[c].astype(str).str.strip()


def _language_pairs(tables: dict[str, pd.DataFrame], report: Report) -> list[str]:
    """The language pairs named. A table without lp may only be used when there is one pair
    (its blank lp is then that pair, filled in place)."""
    lps = sorted(set().union(*(set(t["lp"].unique()) for t in tables.values())) - {""})
    if len(lps) > 1:
        for tname, t in tables.items():
            blank = t[t["lp"] == ""]
            if len(blank):
                report.error(blank["_file"].iloc[0], None,
                             f"{len(blank)} rows have no lp value but the data holds several language pairs "
                             f"({', '.join(lps)}); add an lp column")
    elif len(lps) == 1:
        for t in tables.values():
            t.loc[t["lp"] == "", "lp"] = lps[0]
    return lps


def _segments(segments: pd.DataFrame, report: Report) -> tuple[pd.DataFrame, pd.MultiIndex]:
    """Segments without empty or duplicate ids, and their (lp, seg_id) keys."""
    empty_ids = segments[segments["seg_id"] == ""]
    if len(empty_ids):
        report.error(empty_ids["_file"].iloc[0], None, f"empty seg_id at {_where(empty_ids)}")
    segments = _dups(segments[segments["seg_id"] != ""], ["lp", "seg_id"], "segment", report)
    seg_keys = pd.MultiIndex.from_arrays([segments["lp"], segments["seg_id"]])
    return segments, seg_keys


def _unusable_scores(judgements: pd.DataFrame, report: Report) -> tuple[pd.Series, pd.Series]:
    """The scores as numbers, and the rows whose score is not a number, not finite or out of
    range (reported per file)."""
    scores = pd.to_numeric(judgements["score"], errors="coerce")
    missing = scores.isna().to_numpy(dtype=bool, copy=True)
    if missing.any():  # a score written as nan is a number (not finite: reported below)
        text = judgements["score"].iloc[np.flatnonzero(missing)].astype(str).str.strip().str.lower()
        missing[missing] = ~text.isin(["nan", "+nan", "-nan"]).to_numpy(dtype=bool)
    nonnum = pd.Series(missing, index=judgements.index)
    for file, sub in judgements[nonnum].groupby("_file", sort=False):
        vals = list(dict.fromkeys(sub["score"]))[:5]
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} non-numeric score(s) {', '.join(map(repr, vals))} at {describe_lines([int(x) for x in sub['_line'] if x is not None])}; "
                     "scores must be numbers (use . as the decimal point; leave unrated items out)")
    # score_problem (not finite, or beyond ±MAX_ABS_SCORE) on every row at once
    values = scores.to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        problem = ~np.isfinite(values) | (np.abs(values) > MAX_ABS_SCORE)
    absurd = ~nonnum & pd.Series(problem, index=scores.index)
    for file, sub in judgements[absurd].groupby("_file", sort=False):
        vals = list(dict.fromkeys(sub["score"]))[:5]
        report.error(str(file), int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                     f"{len(sub)} score(s) {', '.join(map(repr, vals))} at "
                     f"{describe_lines([int(x) for x in sub['_line'] if x is not None])} are not finite or beyond "
                     f"±{MAX_ABS_SCORE:.0e}; scores must be finite numbers within that range (leave unrated items out)")
    return scores, nonnum | absurd


def _judgements(judgements: pd.DataFrame, seg_keys: pd.MultiIndex, extras: dict[str, pd.DataFrame],
                report: Report) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The segment-level judgements with usable numeric scores, and ``extras`` with the
    system-level ones: an empty seg_id is a human score given per system (``system_scores``)."""
    sys_level = judgements["seg_id"] == ""
    judgements = pd.concat([judgements[sys_level],
                            _unknown_segments(judgements[~sys_level], seg_keys, "judgements", report)])
    scores, unusable = _unusable_scores(judgements, report)
    bad = judgements[unusable]
    judgements = judgements.assign(score=scores)[~judgements.index.isin(bad.index)]
    given = judgements[judgements["seg_id"] == ""]
    judgements = judgements[judgements["seg_id"] != ""]
    if len(given):
        _dups(given, ["lp", "system", "rater", "judgement"], "system-level score (empty seg_id)", report)
        rows = given.rename(columns={"judgement": "scorer"})[["lp", "scorer", "system", "score"]]
        if "system_scores" in extras:
            rows = pd.concat([extras["system_scores"], rows], ignore_index=True)
        extras = {**extras, "system_scores": rows.reset_index(drop=True)}
    return judgements, extras


def _text_warnings(ref: pd.DataFrame, out: pd.DataFrame, n_seg: int, lp_txt: str, warn: Report) -> None:
    """Empty texts, and reference sets or systems that miss segments (both kept)."""
    for label, df, key in (("reference set", ref, "ref_id"), ("system", out, "system")):
        blank = df[df["text"].astype(str).str.strip() == ""]
        for nm, sub in blank.groupby(key, sort=False):
            warn.warning(sub["_file"].iloc[0], int(sub["_line"].iloc[0]) if sub["_line"].iloc[0] is not None else None,
                         f"{label} {nm!r}{lp_txt} has {len(sub)} empty or whitespace-only text(s) "
                         f"({describe_lines([int(x) for x in sub['_line'] if x is not None])}); kept as empty strings")
        per = df.groupby(key, sort=False)["_file"].agg(["size", "first"])
        for nm, size, file in zip(per.index, per["size"], per["first"]):
            if size < n_seg:
                warn.warning(file, None, f"{label} {nm!r}{lp_txt} covers {size} of {n_seg} segments")


def _identical_judgements(jud: pd.DataFrame, lp_txt: str, warn: Report) -> None:
    """Identical judgement rows, per file with up to five examples (all kept and counted)."""
    same = jud[jud.duplicated(JUDGEMENT_COLUMNS, keep=False)]
    for file, fsub in same.groupby("_file", sort=False):
        groups: list[str] = []
        n_rows, first_line = 0, None
        for _, sub in fsub.groupby(JUDGEMENT_COLUMNS, sort=False):
            lines = [int(x) for x in sub["_line"] if x is not None and x == x]
            n_rows += len(sub)
            if first_line is None and len(lines) > 1:
                first_line = lines[1]
            if len(groups) < 5:
                r = sub.iloc[0]
                groups.append(f"{describe_lines(lines)} (system {r['system']!r}, seg_id {r['seg_id']!r}, "
                              f"rater {r['rater']!r}, {r['judgement']} = {r['score']:g})")
        n_groups = fsub.groupby(JUDGEMENT_COLUMNS, sort=False).ngroups
        more = f"; and {n_groups - len(groups)} more" if n_groups > len(groups) else ""
        warn.warning(str(file), first_line,
                     f"{n_groups} set(s) of identical judgement rows{lp_txt} ({n_rows} rows): "
                     f"{'; '.join(groups)}{more}. All are kept and counted separately (a rater may repeat "
                     "a judgement); delete the copies if rows were pasted twice")


def _python_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its ``text`` column as Python strings (object dtype), as every loader
    gives them: a columnar read holds them in Arrow until here, where they are made in one pass
    (together in memory, as :meth:`Dataset.compact_texts` would make them)."""
    if frame["text"].dtype != object:
        col: Any = frame["text"]  # an Arrow-backed string column
        frame["text"] = pd.Series(col.to_numpy(dtype=object, na_value=None), index=frame.index, dtype="object")
    return frame


def _of_lp(table: pd.DataFrame, lp: str) -> pd.DataFrame:
    """The rows of ``table`` of language pair ``lp`` (the table itself when it holds no other)."""
    mine = table["lp"] == lp
    return table if mine.all() else table[mine]


def _dataset(name: str, lp: str, tables: dict[str, pd.DataFrame], extras: dict[str, pd.DataFrame],
             given_warnings: list[Problem], report: Report) -> Dataset:
    """The dataset of one language pair from the checked tables; its warnings (data kept) go to
    ``report`` and to the dataset."""
    seg, ref, out, jud, tag = (_of_lp(tables[t], lp) for t in ("segments", "references", "outputs", "judgements", "tags"))
    lp_txt = f" ({lp})" if lp else ""
    warn = Report()
    _text_warnings(ref, out, len(seg), lp_txt, warn)
    _identical_judgements(jud, lp_txt, warn)
    texts = set(out["system"].unique()) | set(ref["ref_id"].unique())
    no_text = [s for s in pd.unique(jud["system"]) if s not in texts]
    if no_text:
        warn.warning(jud["_file"].iloc[0], None,
                     f"judgements of {len(no_text)} system(s)/reference set(s){lp_txt} without text: "
                     f"{', '.join(no_text)}; kept (usable wherever no text is needed)")
    untagged = set(tag["system"].unique()) - texts
    if untagged:
        warn.warning(tag["_file"].iloc[0], None, f"tags name unknown system(s) {', '.join(sorted(untagged))}; ignored")
        tag = tag[~tag["system"].isin(untagged)]
    report.extend(warn.problems)
    segf = seg.rename(columns={"doc": "doc_id"})
    lp_extras = {k: (v[v["lp"] == lp].drop(columns=[c for c in ("lp", *META) if c in v]).reset_index(drop=True)
                     if "lp" in v else v) for k, v in extras.items()}
    if "domain" in segf and (segf["domain"].astype(str) != "").any():
        # a domain column of segments.tsv (e.g. WMT24) is kept as the segment_domains extra table
        lp_extras["segment_domains"] = segf[["seg_id", "domain"]].astype(str).reset_index(drop=True)
    # .copy(): the selected columns get arrays of their own. Without it the text column stays
    # a view of the loader's block of every column (lp, system, seg_id, text as Python
    # strings), which then outlives the load: at 100k segments × 10 systems, +3 M strings.
    arrow_texts = ref["text"].dtype != object and out["text"].dtype != object
    ds = Dataset(
        name=name, lp=lp,
        segments=segf.reindex(columns=SEGMENT_COLUMNS).fillna(""),
        references=_python_texts(ref[REFERENCE_COLUMNS].reset_index(drop=True).copy()),
        outputs=_python_texts(out[OUTPUT_COLUMNS].reset_index(drop=True).copy()),
        judgements=jud[JUDGEMENT_COLUMNS].reset_index(drop=True),
        tags=tag[TAG_COLUMNS].reset_index(drop=True),
        extras=lp_extras,
        warnings=given_warnings + list(warn.problems),
    )
    if arrow_texts:
        ds.texts_are_compact()  # made together by _python_texts: nothing for compact_texts to do
    return ds


def assemble(name: str, segments: pd.DataFrame, references: pd.DataFrame, outputs: pd.DataFrame,
             judgements: pd.DataFrame, tags: pd.DataFrame | None = None,
             extras: dict[str, pd.DataFrame] | None = None, report: Report | None = None) -> dict[str, Dataset]:
    """Validate long tables (each with lp + its columns + _file/_line) and build datasets by lp."""
    report = report or Report()
    given_warnings = list(report.warnings)  # the loader's own (kept with every dataset)
    tags = tags if tags is not None else empty(TAG_COLUMNS)
    extras = extras or {}
    tables = {"segments": segments, "references": references, "outputs": outputs,
              "judgements": judgements, "tags": tags}
    _normalise(tables)

    names_report = Report()
    _name_problems(tables, names_report)
    report.extend(names_report.problems)
    given_warnings += names_report.warnings

    lps = _language_pairs(tables, report)
    segments, seg_keys = _segments(segments, report)
    # -- references -----------------------------------------------------------------------
    references = _unknown_segments(references, seg_keys, "references", report)
    references = _dups(references, ["lp", "seg_id", "ref_id"], "reference", report)
    # -- outputs --------------------------------------------------------------------------
    outputs = _unknown_segments(outputs, seg_keys, "outputs", report)
    outputs = _dups(outputs, ["lp", "system", "seg_id"], "output", report)
    clash = (set(outputs[["lp", "system"]].drop_duplicates().itertuples(index=False, name=None))
             & set(references[["lp", "ref_id"]].drop_duplicates().itertuples(index=False, name=None)))
    for lp, nm in sorted(clash):
        report.error(outputs["_file"].iloc[0], None, f"{nm!r} is both a system and a reference set"
                                                     f"{' in ' + lp if lp else ''}; rename one of them")
    judgements, extras = _judgements(judgements, seg_keys, extras, report)
    tags = _unknown_segments(tags, seg_keys, "tags", report)

    if not report.ok:
        raise DataError(report)

    checked = {"segments": segments, "references": references, "outputs": outputs,
               "judgements": judgements, "tags": tags}
    return {lp: _dataset(name, lp, checked, extras, given_warnings, report) for lp in (lps or [""])}
