"""Write a dataset in the mt-metrics-eval layout (google-research/mt-metrics-eval README,
"File organization and naming convention"), so that MTME's ``data.EvalSet`` reads it with the
same texts, human scores and metric scores (docs/formats.md).

Under ``<root>/<test_set>/`` for the dataset's language pair <lp>:

* ``sources/<lp>.txt``, ``references/<lp>.<ref>.txt``, ``system-outputs/<lp>/<system>.txt``: one
  line per segment in segment order (a missing text is an empty line);
* ``documents/<lp>.docs``: ``<domain> <doc>`` per segment (``segment_domains`` and ``doc_id``;
  ``-`` where unknown; a document that is not one contiguous block gets a ``#k`` suffix per block,
  as MTME requires contiguous documents);
* ``human-scores/<lp>.<criterion>.seg.score``: a block per judged system, one line per segment,
  the mean of its ratings (``None`` where not judged); ``…sys.score``: the mean over the judged
  segments, or the dataset's given system-level score when it has one;
* ``metric-scores/<lp>/<metric>-<refs>.{seg,sys}.score`` for the given metric scores.

MTME's naming rules are applied, and every renaming is returned as a note: reference names lose
``-``, ``.`` and whitespace (``ref-A`` → ``refA``; MTME forbids them), and a judged reference is
copied into ``system-outputs`` under its name (MTME's convention for references scored as
systems). A judged system without any text cannot be an MTME system (its score files are
checked against ``system-outputs``) and is left out, with a note. A line break inside a text
(a paragraph segment) is written as the two characters backslash-n, which
:mod:`evalcore.io.mtme` reads back as a line break (mt-metrics-eval's 2025 convention); a text
holding a carriage return or already holding backslash-n (it would not read back the same),
and metric scores missing for an output, are refused (a ``ValueError`` naming them all):
MTME's files are line based and its metric files admit no ``None``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

_BAD_REF = re.compile(r"[-.\s]")


def mtme_ref_name(name: str) -> str:
    """A reference name MTME accepts (no ``-``, ``.`` or whitespace; not ``all``/``src``)."""
    out = _BAD_REF.sub("", str(name)) or "ref"
    return out + "_" if out in ("all", "src") else out


def _num(x) -> str:
    return "None" if x is None or (isinstance(x, float) and np.isnan(x)) else repr(float(x))


def _documents_file(ds, seg_ids, notes: list[str], problems: list[str]) -> str:
    """The ``documents/LP.docs`` lines (domain, document per segment); notes and problems appended."""
    dom = ds.extras.get("segment_domains")
    dmap = dict(zip(dom["seg_id"].astype(str), dom["domain"].astype(str))) if dom is not None and len(dom) else {}
    docs = [str(d) or "-" for d in ds.segments["doc_id"]]
    doc_lines: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    prev: str | None = None
    block: dict[str, set[str]] = {}
    for s, d in zip(seg_ids, docs):
        d = re.sub(r"\s+", "_", d)
        if d != prev:
            seen[d] = seen.get(d, 0) + 1
            prev = d
        name = d if seen[d] == 1 else f"{d}#{seen[d]}"
        block.setdefault(name, set()).add(dmap.get(s, "-") or "-")
        doc_lines.append((re.sub(r"\s+", "_", dmap.get(s, "-") or "-"), name))
    if any(v > 1 for v in seen.values()):
        notes.append("documents that are not one contiguous block get a #k suffix per block")
    mixed = [d for d, v in block.items() if len(v) > 1]
    if mixed:
        problems.append(f"document(s) {', '.join(mixed[:10])} span several domains (MTME: one domain per document)")
    return "".join(f"{a} {b}\n" for a, b in doc_lines)



def _human_files(ds, lp, crits, sys_name, pos, n, notes: list[str]) -> dict[str, str]:
    """The ``human-scores/`` files of every criterion (a rater's repeated ratings averaged)."""
    files: dict[str, str] = {}
    given = ds.extras.get("system_scores")
    for c in crits:
        j = ds.judgements[ds.judgements["judgement"] == c]
        j = j[j["system"].isin(sys_name)].assign(seg_id=lambda f: f["seg_id"].astype(str))
        agg = j.groupby(["system", "seg_id"], sort=False)["score"].mean().reset_index()  # ratings averaged
        seg_lines, sys_lines = [], []
        for s in [x for x in sys_name if x in set(agg["system"])]:
            sub = agg[agg["system"] == s]
            v: list[float | None] = [None] * n
            for k, sc in zip(sub["seg_id"], sub["score"]):
                v[pos[k]] = float(sc)
            seg_lines += [f"{sys_name[s]}\t{_num(x)}\n" for x in v]
            sys_lines.append(f"{sys_name[s]}\t{_num(float(np.mean([x for x in v if x is not None])))}\n")
        if given is not None and len(given) and "scorer" in given:
            g = given[given["scorer"].astype(str) == c]
            if len(g):
                gm = g.assign(score=pd.to_numeric(g["score"], errors="coerce")).groupby("system")["score"].mean()
                sys_lines = [f"{sys_name[s]}\t{_num(gm[s])}\n" for s in sys_name if s in gm.index]
                notes.append(f"{c}: the system-level file holds the dataset's given system scores")
        if seg_lines:
            files[f"human-scores/{lp}.{c}.seg.score"] = "".join(seg_lines)
        if sys_lines:
            files[f"human-scores/{lp}.{c}.sys.score"] = "".join(sys_lines)
    return files


def _metric_files(metric_scores, lp, refs, systems, seg_ids, pos, n, problems: list[str]) -> dict[str, str]:
    """The ``metric-scores/LP/`` files of every metric, segment and system level."""
    files: dict[str, str] = {}
    ms = metric_scores.copy()
    ms["seg_id"] = ms["seg_id"].astype(str)
    for mid, sub in ms.groupby("metric", sort=False):
        segrows = sub[sub["seg_id"] != ""]
        sysrows = sub[sub["seg_id"] == ""]
        scored = [s for s in systems if s in set(sub["system"])]
        if len(segrows):
            lines = []
            for s in scored:
                r = segrows[segrows["system"] == s]
                v = [None] * n
                for k, sc in zip(r["seg_id"], r["score"]):
                    v[pos[k]] = sc
                miss = [seg_ids[i] for i, x in enumerate(v) if x is None or np.isnan(x)]
                if miss:
                    problems.append(f"metric {mid}: system {s} has no score for segment(s) "
                                    f"{', '.join(miss[:10])}{' …' if len(miss) > 10 else ''}")
                lines += [f"{s}\t{_num(x)}\n" for x in v]
            files[f"metric-scores/{lp}/{mid}-{refs}.seg.score"] = "".join(lines)
        if len(sysrows):
            g = sysrows.groupby("system")["score"].mean()
            files[f"metric-scores/{lp}/{mid}-{refs}.sys.score"] = "".join(
                f"{s}\t{_num(g[s])}\n" for s in scored if s in g.index)
    return files


def export_mtme(dataset, root, test_set: str = "evalcore", metric_scores: pd.DataFrame | None = None,
                criteria=None, metric_refs: str | None = None) -> list[str]:
    """Write ``dataset`` (one language pair) under ``root/test_set`` in the MTME layout (module
    docstring). ``metric_scores``: tidy (metric, system, seg_id, score) rows, seg_id empty for
    system level (e.g. ``evalcore.metrics.engine.score_table``). ``criteria``: human criteria to
    write (default: all). ``metric_refs``: the REF part of metric file names (default: the
    dataset's references joined by ``.``). Returns the notes (renamings, systems left out).
    Files are written atomically; existing files of the same names are replaced."""
    from ..core.export import atomic_write

    ds = dataset
    lp = ds.lp or "xx-yy"
    notes: list[str] = []
    seg_ids = list(ds.seg_ids)
    pos = {s: i for i, s in enumerate(seg_ids)}
    n = len(seg_ids)
    base = Path(root) / test_set

    def lines_of(frame: pd.DataFrame, key_col: str | None = None, key=None) -> list[str]:
        sub = frame if key_col is None else frame[frame[key_col] == key]
        out = [""] * n
        for s, t in zip(sub["seg_id"].astype(str), sub["text"]):
            out[pos[s]] = "" if t is None or (isinstance(t, float) and np.isnan(t)) else str(t)
        return out

    problems = []
    texts: dict[str, list[str]] = {}
    src = [str(x) for x in ds.segments["source"]]
    texts[f"sources/{lp}.txt"] = src
    refmap = {r: mtme_ref_name(r) for r in ds.ref_ids}
    if len(set(refmap.values())) != len(refmap):
        raise ValueError(f"reference names {sorted(refmap)} collide once made MTME names {sorted(refmap.values())}")
    for r, m in refmap.items():
        if m != r:
            notes.append(f"reference {r!r} written as {m!r} (MTME names have no '-', '.' or spaces)")
        texts[f"references/{lp}.{m}.txt"] = lines_of(ds.references, "ref_id", r)
    systems = list(ds.systems)
    for s in systems:
        texts[f"system-outputs/{lp}/{s}.txt"] = lines_of(ds.outputs, "system", s)
    crits = list(ds.criteria) if criteria is None else list(criteria)
    judged = sorted({s for s in ds.judgements["system"]}) if len(ds.judgements) else []
    for r in ds.ref_ids:
        if r in judged:
            texts[f"system-outputs/{lp}/{refmap[r]}.txt"] = texts[f"references/{lp}.{refmap[r]}.txt"]
    sys_name = {s: s for s in systems}
    sys_name.update({r: refmap[r] for r in ds.ref_ids if r in judged})
    no_text = [s for s in judged if s not in sys_name]
    if no_text:
        notes.append(f"judged without text, left out (MTME needs an output file per system): {', '.join(no_text)}")
    from .mtme import ESCAPED_NEWLINE

    for fname, lines in texts.items():
        bad = [seg_ids[i] for i, t in enumerate(lines) if "\r" in t or ESCAPED_NEWLINE in t]
        if bad:
            problems.append(f"{fname}: segment(s) {', '.join(bad[:10])}{' …' if len(bad) > 10 else ''} "
                            "contain a carriage return or the characters \\n (a line break is written as \\n, "
                            "so these would not read back as they are)")
        texts[fname] = [t.replace("\n", ESCAPED_NEWLINE) for t in lines]
    for s in sys_name.values():
        if "/" in s or s.startswith("."):
            problems.append(f"system name {s!r} cannot be a file name")
    files: dict[str, str] = {f: "".join(t + "\n" for t in lines) for f, lines in texts.items()}

    files[f"documents/{lp}.docs"] = _documents_file(ds, seg_ids, notes, problems)

    files.update(_human_files(ds, lp, crits, sys_name, pos, n, notes))

    if metric_scores is not None and len(metric_scores):
        refs = metric_refs or ".".join(refmap.values()) or "src"
        files.update(_metric_files(metric_scores, lp, refs, systems, seg_ids, pos, n, problems))
    if problems:
        raise ValueError("cannot write the mt-metrics-eval layout:\n" + "\n".join(f"  {p}" for p in problems))
    for rel, text in files.items():
        path = base / rel
        os.makedirs(path.parent, exist_ok=True)
        atomic_write(path, lambda fh, t=text: fh.write(t))
    return notes
