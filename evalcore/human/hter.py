"""HTER: TER of an MT output against its targeted reference (methods §5.6; Snover et al. 2006,
Callison-Burch 2009 §5.2), with the minimum acceptable edit over several editors."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd


def hter(mt: Sequence[str], postedits: Sequence, references: Sequence | None = None, *,
         denominator: str | None = None, case_sensitive: bool = False,
         acceptable: Sequence | None = None, cap: float | None = None) -> pd.DataFrame:
    """HTER = TER of the MT output against its targeted reference (post-edit), methods §5.6.

    ``mt``: one output per segment. ``postedits``: per segment a string or a list of post-edits
    (several editors). Edit counts (insertions, deletions, substitutions, shifts) come from
    sacreBLEU's TER (tercom algorithm) on whitespace tokens (``normalized=False``; pass
    tokenised text), case-insensitive by default like tercom and sacreBLEU. With several editors the **minimum acceptable
    edit** is used (Callison-Burch 2009 §5.2): the post-edit with the fewest edits among those marked
    acceptable (``acceptable``: per segment a list of booleans; default all acceptable); if none
    is acceptable, the TER against the first original reference is reported (editor = -1).
    ``denominator``: ``"postedit"`` (length of the chosen post-edit; WMT QE HTER labels),
    ``"reference"`` (mean length of the original untargeted references, Snover et al. 2006), or
    ``"mean_postedit"`` (mean post-edit length, sacreBLEU's multi-reference convention). Default:
    "reference" when ``references`` are given, else "postedit". ``cap``: clip HTER at this value
    (WMT QE labels are capped at 1.0).
    Returns seg (position), editor, edits, length, hter.
    """
    from sacrebleu.metrics import TER

    ter = TER(case_sensitive=case_sensitive, normalized=False, no_punct=False)
    if denominator is None:
        denominator = "reference" if references is not None else "postedit"
    if denominator not in ("postedit", "reference", "mean_postedit"):
        raise ValueError("denominator must be postedit, reference or mean_postedit")
    if denominator == "reference" and references is None:
        raise ValueError("denominator='reference' needs the original references")
    pes = [[p] if isinstance(p, str) else list(p) for p in postedits]
    refs = None if references is None else [[r] if isinstance(r, str) else list(r) for r in references]
    if len(pes) != len(mt) or (refs is not None and len(refs) != len(mt)):
        raise ValueError("mt, postedits (and references) must have one entry per segment")
    max_ed = max((len(p) for p in pes), default=0)
    edits = np.full((len(mt), max_ed), np.nan)
    lens = np.full((len(mt), max_ed), np.nan)
    for e in range(max_ed):
        idx = [i for i, p in enumerate(pes) if len(p) > e and p[e] is not None]
        if not idx:
            continue
        st = ter._extract_corpus_statistics([mt[i] for i in idx], [[pes[i][e] for i in idx]])
        for i, (ed, ln) in zip(idx, st):
            edits[i, e], lens[i, e] = ed, ln
    if acceptable is not None:
        acc = np.zeros_like(edits, dtype=bool)
        for i, a in enumerate(acceptable):
            acc[i, :len(a)] = np.asarray(a, dtype=bool)[:max_ed]
        edits_ok = np.where(acc, edits, np.nan)
    else:
        edits_ok = edits
    rows = []
    for i in range(len(mt)):
        row = edits_ok[i]
        if np.all(np.isnan(row)):
            if refs is None or not refs[i]:
                rows.append((i, -1, np.nan, np.nan, np.nan))
                continue
            st = ter._extract_corpus_statistics([mt[i]], [[refs[i][0]]])[0]
            ed, e = st[0], -1
        else:
            e = int(np.nanargmin(row))
            ed = row[e]
        if denominator == "postedit":
            ln = lens[i, e] if e >= 0 else np.nan
            if e < 0:
                assert refs is not None  # e < 0 only for a segment scored against its references
                ln = len(refs[i][0].split())
        elif denominator == "mean_postedit":
            ln = np.nanmean(lens[i]) if max_ed else np.nan
        else:
            assert refs is not None, "this denominator needs references"
            ln = float(np.mean([len(r.split()) for r in refs[i]]))
        h = ed / ln if ln > 0 else (0.0 if ed == 0 else 1.0)
        if cap is not None:
            h = min(h, cap)
        rows.append((i, e, float(ed), float(ln), float(h)))
    return pd.DataFrame(rows, columns=["seg", "editor", "edits", "length", "hter"])
