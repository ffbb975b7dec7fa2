"""WMT's rules for a raw annotation export: the filters of its official ranking and the choice
for re-ratings (``import-judgements --wmt-filters --repeats latest|mean|refuse``).

A raw Appraise export (WMT24's ``humeval/esa_generalMT2024_wave*.csv``) holds rows that WMT's
official ranking leaves out (Kocmi et al. 2024, *Findings of WMT24*, §3 and the README of the
release; Kocmi et al. 2024, *Error Span Annotation*, §3 on the quality-control items):

* **tutorial items**: a system whose name contains ``tutorial`` (e.g. ``ende-tutorial1``, the
  items every rater sees first);
* **quality-control rows** ``BAD`` (a degraded copy shown as an attention check): already set
  aside by the Appraise reader for their item type, counted here;
* **filler documents**: a document id ending in ``#bad``, ``#dup`` or ``#incomplete`` (documents
  Appraise adds to fill a batch: the degraded copies' documents, repeated documents, the rest of
  an incomplete document); where a reader has no ``doc_id`` column (Pearmut), the document is
  the part of the segment id before ``_#_``;
* **exact repeat rows**: a row equal field for field (times and spans too) to an earlier one:
  the same annotation exported twice.

:func:`apply_rules` moves each of these to the rows set aside (``item_type`` ``tutorial``,
``filler#bad``/``filler#dup``/``filler#incomplete``, ``exact-repeat``), never drops one, and
reports each count with its lines. ``BAD`` rows of a filler document count as ``BAD``.

**Re-ratings** (one rater scoring one output of one system twice, at different times) are
resolved by ``repeats``:

* ``refuse``: a :class:`~evalcore.core.problems.DataError` naming every re-rated output and its
  lines (the choice is the user's: nothing is averaged or picked silently);
* ``latest``: the later rating is kept (WMT's rule: the README of the WMT24 release, "the official
  ranking keeps the later rating"). Later = the greater ``end_time`` (Appraise's endTime), then
  ``start_time``; rows without both times, and ties, are ordered by their line in the file. The
  earlier ratings are set aside as ``re-rated``;
* ``mean``: one row whose score is the mean of the rater's ratings (what ``rank`` would compute
  from the kept rows, §3.12); its other fields (error spans, times) are those of the latest
  rating, since spans cannot be averaged; every averaged row is set aside as ``averaged``.
* ``None`` (a reader's default where no option is offered, e.g. the Data page): every rating is
  kept and counted separately, with a warning (evalcore before these options).
"""
from __future__ import annotations

import pandas as pd

from ..core.problems import DataError, Report
from .text import describe_lines

REPEATS = ("refuse", "latest", "mean")
FILLER_SUFFIXES = ("#bad", "#dup", "#incomplete")
TUTORIAL = "tutorial"
KEY = ["lp", "system", "seg_id", "rater", "judgement"]
MAX_LISTED = 20


def _document(j: pd.DataFrame) -> pd.Series:
    if "doc_id" in j:
        return j["doc_id"].fillna("").astype(str)
    return j["seg_id"].astype(str).str.split("_#_", n=1).str[0]


def _filler_suffix(doc: str) -> str | None:
    for suffix in FILLER_SUFFIXES:
        if doc.endswith(suffix):
            return suffix
    return None


def _order_key(rows: pd.DataFrame, lines: list[int]) -> list[tuple]:
    """Sort keys, earliest first: (end_time, start_time, line) where every row has both times,
    else (line,) (module docstring)."""
    def times(c):
        return pd.to_numeric(rows[c], errors="coerce") if c in rows else pd.Series(float("nan"), index=rows.index)

    end, start = times("end_time"), times("start_time")
    if end.notna().all() and start.notna().all():
        return [(float(e), float(s), ln) for e, s, ln in zip(end, start, lines)]
    return [(ln,) for ln in lines]


def apply_rules(imp, *, wmt_filters: bool = False, repeats: str | None = None):
    """``imp`` (a :class:`~evalcore.io.appraise.JudgementImport`) with WMT's filters applied
    (``wmt_filters``) and its re-ratings resolved (``repeats``; module docstring). The rows taken
    out go to ``imp.set_aside`` with their ``item_type`` and ``line``; each kind is counted in
    a warning. Raises :class:`~evalcore.core.problems.DataError` for ``repeats="refuse"`` when
    an output was rated twice by one rater."""
    if repeats is not None and repeats not in REPEATS:
        raise ValueError(f"repeats must be one of {', '.join(REPEATS)}, not {repeats!r}")
    name = imp.source
    j = imp.judgements.reset_index(drop=True)
    lines = list(imp.lines) if len(imp.lines) == len(j) else [0] * len(j)
    kinds: list[str | None] = [None] * len(j)
    warnings = Report()
    if wmt_filters:
        tutorial = j["system"].astype(str).str.lower().str.contains(TUTORIAL, regex=False).to_numpy()
        docs = _document(j).to_numpy()
        for i in range(len(j)):
            if tutorial[i]:
                kinds[i] = "tutorial"
            elif (suffix := _filler_suffix(docs[i])) is not None:
                kinds[i] = "filler" + suffix
        seen: dict[tuple, int] = {}
        cols = list(j.columns)
        for i, rec in enumerate(j[cols].astype(str).itertuples(index=False, name=None)):
            if kinds[i] is None:
                if rec in seen:
                    kinds[i] = "exact-repeat"
                else:
                    seen[rec] = lines[i]
        bad = int((imp.set_aside.get("item_type", pd.Series(dtype=str)) == "BAD").sum()) if len(imp.set_aside) else 0
        counts = {k: [ln for ln, kk in zip(lines, kinds) if kk == k] for k in dict.fromkeys(x for x in kinds if x)}
        parts = [f"{len(ls)} {k} ({describe_lines(ls)})" for k, ls in counts.items()]
        if bad:
            parts.append(f"{bad} BAD quality-control row(s) (set aside for their item type)")
        warnings.warning(name, None, "WMT filters: " + ("; ".join(parts) if parts else "nothing to set aside")
                         + f"; {sum(k is None for k in kinds)} judgement(s) kept")
    keep = [k is None for k in kinds]
    kept = j[keep]
    kept_lines = [ln for ln, k in zip(lines, keep) if k]
    key = [c for c in KEY if c in kept]
    groups = kept.groupby(key, sort=False).indices if len(kept) else {}
    rerated = {g: idx for g, idx in groups.items() if len(idx) > 1}
    new_rows: list[dict] = []
    new_lines: list[int] = []
    if rerated:
        listed = [(kept_lines[idx[0]], g, [kept_lines[i] for i in idx]) for g, idx in rerated.items()]
        all_lines = sorted(ln for *_, ls in listed for ln in ls)
        if repeats == "refuse":
            report = Report()
            for first, g, ls in listed[:MAX_LISTED]:
                gd = dict(zip(key, g))
                report.error(name, first, f"rater {gd['rater']!r} rated system {gd['system']!r}, segment "
                                          f"{gd['seg_id']!r} {len(ls)} times ({describe_lines(ls)}); choose what "
                                          "counts with --repeats latest (WMT's rule: the later rating) or --repeats "
                                          "mean (their mean)")
            if len(listed) > MAX_LISTED:
                report.error(name, None, f"{len(listed) - MAX_LISTED} more re-rated outputs not listed")
            raise DataError(report)
        if repeats is None:
            warnings.warning(name, all_lines[0], f"{len(rerated)} output(s) rated more than once by the same rater "
                                                 f"at different times ({describe_lines(all_lines)}); all rows are "
                                                 "kept and counted separately")
        else:
            positions = kept.index.to_numpy()
            for g, idx in rerated.items():
                rows = kept.iloc[idx]
                when = _order_key(rows, [kept_lines[i] for i in idx])
                order = sorted(range(len(idx)), key=when.__getitem__)
                latest = int(positions[idx[order[-1]]])
                if repeats == "latest":
                    for t in order[:-1]:
                        kinds[int(positions[idx[t]])] = "re-rated"
                else:
                    rec = j.loc[latest].to_dict()
                    rec["score"] = float(rows["score"].astype(float).mean())
                    new_rows.append(rec)
                    new_lines.append(lines[latest])
                    for t in order:
                        kinds[int(positions[idx[t]])] = "averaged"
            dropped = sum(len(idx) for idx in rerated.values()) - len(rerated)
            what = ("the later rating of each is kept, the earlier set aside as re-rated" if repeats == "latest"
                    else "each is one row with the mean score (spans and times of the latest rating); the "
                         "ratings are set aside as averaged")
            warnings.warning(name, all_lines[0], f"{len(rerated)} output(s) rated more than once by the same rater "
                                                 f"({dropped + len(rerated)} rows, {describe_lines(all_lines)}): "
                                                 f"{what}")
    keep = [k is None for k in kinds]
    out = j[keep]
    out_lines = [ln for ln, k in zip(lines, keep) if k]
    if new_rows:
        out = pd.concat([out, pd.DataFrame(new_rows, columns=j.columns)], ignore_index=True)
        out_lines += new_lines
        order = sorted(range(len(out)), key=lambda i: out_lines[i])
        out = out.iloc[order]
        out_lines = [out_lines[i] for i in order]
    gone = [i for i, k in enumerate(kinds) if k is not None]
    aside = imp.set_aside
    if gone:
        extra = j.iloc[gone].assign(item_type=[kinds[i] for i in gone], line=[lines[i] for i in gone])
        aside = pd.concat([aside, extra], ignore_index=True) if len(aside) else extra.reset_index(drop=True)
    out = out.reset_index(drop=True)
    out["score"] = out["score"].astype(float)
    return type(imp)(out, aside.reset_index(drop=True), list(imp.warnings) + list(warnings.problems), name,
                     out_lines, imp.texts, imp.sources)
