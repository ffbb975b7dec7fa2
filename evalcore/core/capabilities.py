"""What a dataset can be used for: references per segment and the analyses they enable.

The QARLA measures (Amigó et al. 2005, 2006: ORANGE, KING, QUEEN and the metric-set search)
hold each reference out in turn and score it, and every system output, against the *other*
references of its segment, so they need at least two reference sets with text on a segment;
QUEEN's ``local`` triples need three (methods §1.1-1.4). Metric scores need one reference,
correlations need human judgements too. One-reference data (most WMT campaigns) therefore
supports scores and correlations but none of the QARLA analyses; the functions here say so
per language pair, for the ``validate`` command, the Data page and the QARLA pages' guard.
Pure functions, no UI.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from ..core.dataset import Dataset


def _has_text(texts: pd.Series) -> np.ndarray:
    """Per row: the text is given and not blank (``str.strip() != ""``; a missing text is
    blank). No converted copy of the column: a string is blank when empty or all whitespace
    (``str.isspace``: the characters ``str.strip`` removes)."""
    if texts.dtype != object:  # an Arrow-backed or other typed column: pandas' own test
        return (texts.fillna("").astype(str).str.strip() != "").to_numpy(dtype=bool)
    values = texts.to_numpy()
    if len(values) and pd.api.types.infer_dtype(values, skipna=False) == "string":  # Python strings only (the loaders' texts)
        blank = np.fromiter(map(str.isspace, values), dtype=bool, count=len(values))
        return np.asarray(~blank & (values != ""), dtype=bool)
    return np.fromiter((t.strip() != "" if isinstance(t, str) else not pd.isna(t) and str(t).strip() != ""
                        for t in values), dtype=bool, count=len(values))


def _codes(ds: Dataset) -> dict[str, Any]:
    """The references' seg_id and ref_id as factorised codes with their distinct values, and the
    two text masks (non-blank, given); computed once per dataset (a dataset is immutable once
    built: ``validate`` and the Data page ask for the counts twice) and shared by every count
    below."""
    memo = ds._cache.get("capability_codes")
    if memo is None:
        refs = ds.references
        seg_codes, seg_values = ds.ref_segment_codes()
        # (a missing ref_id is a value of its own here, listed as pd.unique lists it, and
        # counted as no set)
        ref_codes, ref_values = pd.factorize(refs["ref_id"], use_na_sentinel=False)
        memo = {"seg": seg_codes, "ref": ref_codes, "refs": ref_values, "n_ref": len(ref_values),
                "ref_given": ~np.asarray(pd.isna(ref_values), dtype=bool),
                "seg_values": seg_values,  # (missing seg_id: code -1, counted nowhere)
                "text": ds._cache.get("capability_ref_text", None),
                "present": refs["text"].notna().to_numpy(dtype=bool)}
        if memo["text"] is None or len(memo["text"]) != len(refs):
            memo["text"] = _has_text(refs["text"])
        ds._cache["capability_codes"] = memo
    return memo


def know_references_with_text(ds: Dataset, has_text: Any) -> None:
    """Take a loader's per-row answer of :func:`_has_text` for ``ds.references`` (given and not
    blank, by the same whitespace table: a loader tests the texts while they are Arrow strings,
    before they become Python strings) instead of testing every text again."""
    ds._cache["capability_ref_text"] = np.asarray(has_text, dtype=bool)


def _sets_per_segment(ds: Dataset, mask: np.ndarray) -> np.ndarray:
    """Per segment (in :attr:`Dataset.seg_ids` order): the distinct reference sets among the
    references selected by ``mask``, i.e. ``refs[mask].groupby("seg_id")["ref_id"].nunique()``
    reindexed by the segments (0 where none; a missing seg_id or ref_id counts for nothing).
    Each (segment, set) pair is counted once, by its combined code."""
    c = _codes(ds)
    keep = mask & (c["seg"] >= 0) & c["ref_given"][c["ref"]]
    n_seg, n_ref = len(c["seg_values"]), c["n_ref"]
    pairs = c["seg"][keep].astype(np.int64) * n_ref + c["ref"][keep]
    if n_seg * n_ref <= 4 * len(pairs) + 1024:
        seen = np.bincount(pairs, minlength=n_seg * n_ref).reshape(n_seg, n_ref) > 0
        per_value = seen.sum(axis=1)
    else:
        per_value = np.bincount(np.unique(pairs) // n_ref, minlength=n_seg)
    return ds.per_segment(per_value).astype(int)


def references_with_text(ds: Dataset) -> np.ndarray:
    """Per segment (in :attr:`Dataset.seg_ids` order): reference sets with non-blank text."""
    if ds.references.empty:
        return np.zeros(ds.n_segments, dtype=int)
    return _sets_per_segment(ds, _codes(ds)["text"])


def references_present(ds: Dataset) -> np.ndarray:
    """Per segment: reference sets whose text is given, blank or not. An empty reference is
    still a reference: the metrics score a segment against it as sacreBLEU does (BLEU and chrF
    0, TER 100 for a non-empty output), so metric scores and correlations count these segments;
    only a missing text (a judged reference without text) leaves a segment unscored."""
    if ds.references.empty:
        return np.zeros(ds.n_segments, dtype=int)
    return _sets_per_segment(ds, _codes(ds)["present"])


def reference_sets_with_text(ds: Dataset) -> list[str]:
    if ds.references.empty:
        return []
    # the sets in order of first appearance among the references with text (as
    # dict.fromkeys would list them), from their codes
    c = _codes(ds)
    return list(c["refs"][pd.unique(c["ref"][c["text"]])])


def references_per_segment_text(ds: Dataset) -> str:
    """``1 on all 997 segments`` or ``2 on 500 segments, 3 on 502 segments``."""
    counts = references_with_text(ds)
    if not len(counts):
        return "no segments"
    values, freq = np.unique(counts, return_counts=True)
    if len(values) == 1:
        return f"{values[0]} on all {freq[0]} segments"
    return ", ".join(f"{v} on {f} segment{'s' if f != 1 else ''}" for v, f in zip(values, freq))


@dataclass(frozen=True)
class Capability:
    analysis: str
    where: str       # pages and commands
    needs: str
    available: bool
    segments: int    # segments on which it can be computed
    missing: str     # what this dataset lacks ("" when available)


def _facts(ds: Dataset) -> dict[str, Any]:
    counts = references_with_text(ds)
    sets = reference_sets_with_text(ds)
    present = references_present(ds)
    return {"counts": counts, "sets": sets, "max": int(counts.max()) if len(counts) else 0, "present": present,
            "present_max": int(present.max()) if len(present) else 0,
            "outputs": bool(ds.systems), "judged": bool(len(ds.judgements))}


def _lack_refs(f: dict[str, Any], need: int, quote: Callable[[Any], str] = str) -> str:
    have = ", ".join(quote(x) for x in f["sets"]) if f["sets"] else "none"
    per = ("no segment has a reference" if f["max"] == 0 else
           f"at most {f['max']} reference{'s' if f['max'] != 1 else ''} per segment")
    return (f"at least {need} reference sets with text on a segment: this dataset has "
            f"{len(f['sets'])} reference set{'s' if len(f['sets']) != 1 else ''} with text ({have}), {per}")


def _missing(f: dict[str, Any], refs: int, outputs: bool = True, judged: bool = False,
             quote: Callable[[Any], str] = str) -> str:
    parts = []
    if refs > 1 and f["max"] < refs:
        parts.append(_lack_refs(f, refs, quote))
    elif refs == 1 and f["present_max"] < 1:
        parts.append("a reference (every segment lacks one)")
    if outputs and not f["outputs"]:
        parts.append("system outputs with text")
    if judged and not f["judged"]:
        parts.append("human judgements")
    return "; ".join(parts)


def capabilities(ds: Dataset) -> list[Capability]:
    """The analyses of evalcore and whether ``ds`` supports them (see the module docstring)."""
    f = _facts(ds)
    c = f["counts"]
    rows = [
        ("Metric scores (BLEU, chrF, TER, …)", "Systems, Divergence browser; score", "system outputs and ≥ 1 reference",
         1, True, False),
        ("Correlation of metrics with human judgements", "Systems; correlate",
         "system outputs, ≥ 1 reference and human judgements", 1, True, True),
        ("ORANGE and KING (human-likeness)", "Human-likeness; qarla",
         "system outputs and ≥ 2 reference sets with text (each reference is held out in turn)", 2, True, False),
        ("QUEEN, KING of a metric set, metric-set search", "Likeness vs acceptability; queen, search",
         "system outputs and ≥ 2 reference sets with text (QUEEN pooled over the segments)", 2, True, False),
        ("QUEEN with local triples", "queen --mode local", "≥ 3 reference sets with text on a segment", 3, True, False),
        ("QUEEN or KING against human judgements", "Likeness vs acceptability, QUEEN vs human",
         "system outputs, ≥ 2 reference sets with text and human judgements", 2, True, True),
    ]
    out = []
    for name, where, needs, refs, outputs, judged in rows:
        miss = _missing(f, refs, outputs, judged)
        # one reference: an empty one counts, as the metrics score it (references_present)
        n = int(((f["present"] if refs == 1 else c) >= refs).sum()) if not miss else 0
        out.append(Capability(name, where, needs, not miss, n, miss))
    return out


def capability_table(ds: Dataset) -> pd.DataFrame:
    """:func:`capabilities` as a table (analysis, available, segments, where, needs, missing)."""
    caps = capabilities(ds)
    return pd.DataFrame({"analysis": [x.analysis for x in caps],
                         "available": ["yes" if x.available else "no" for x in caps],
                         "segments": [x.segments for x in caps],
                         "where": [x.where for x in caps],
                         "needs": [x.needs for x in caps],
                         "missing": [x.missing for x in caps]})


def qarla_missing(ds: Dataset, judgements: bool = True, quote: Callable[[Any], str] = str) -> str:
    """What ``ds`` lacks for the QARLA analyses ("" when nothing): ≥ 2 reference sets with text
    on a segment, system outputs, and (``judgements``) human judgements. ``quote`` formats the
    reference-set names (a page passes its Markdown escape)."""
    return _missing(_facts(ds), 2, True, judgements, quote)
