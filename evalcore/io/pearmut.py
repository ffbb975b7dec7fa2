"""Pearmut annotation logs (Zouhar & Kocmi 2026, "Pearmut: Human Evaluation of Translation Made
Trivial"): reader and writer.

Pearmut keeps, per campaign, a JSON-lines file with one line per submitted *document* (a list
of items shown together), as its dashboard downloads it::

    {"user_id": "alice", "item_i": 13,
     "item": [{"item_id": "doc7_#_0", "src": "...", "tgt": {"modelA": "...", "modelB": "..."}}, ...],
     "annotation": [{"modelA": {"score": 85, "error_spans": [{"start_i": 11, "end_i": 16,
                                 "severity": "minor", "category": null}], "textfield": null},
                     "modelB": {...}}, ...],
     "actions": [...], "comment": "..."}

``item`` and ``annotation`` run in parallel (one annotation per item, one entry per model).
Campaigns with custom sliders give ``"sliders": {"Fluency": 4, ...}`` instead of ``score``.
The older demo layout (``annotation`` a single ``{model: {...}}`` object and no ``item``) is
read too; its segment id is then ``item_i``.

Mapping to evalcore (docs/formats.md, "Appraise and Pearmut"): ``user_id`` -> ``rater``,
model -> ``system``, ``item_id`` -> ``seg_id``, ``score`` -> ``score`` (``judgement`` = ``esa``
when any error span was marked, else ``da``; each custom slider is a judgement of its own name),
``item_i`` kept; error spans -> ``esa_spans_json`` in evalcore's ESA convention. Pearmut's
``end_i`` is *inclusive* (its interface highlights ``start_i..end_i`` both included) and an
omission is a span on the ``[missing]`` token placed after the text (index = text length);
evalcore's ESA spans end *exclusive* and mark omissions ``"missing"`` (Kocmi et al. 2024), so
``end_i`` + 1 is stored and a span on the ``[missing]`` token becomes ``"missing"``. The
category goes to ``error_type``. The outputs' texts (``tgt``) and sources (``src``) are kept
in :attr:`~evalcore.io.appraise.JudgementImport.texts`. Not kept: ``actions`` (the interface's
click log) and ``comment``.

Set aside (never mixed into the scores, each kind reported with its lines): tutorial, attention
and goodbye items (``item_i`` ``welcome_*``, ``random_*``, ``goodbye_*``, or an item with a
``validation`` rule), items left unscored (``score`` null: skipped), and earlier submissions of
a document the same user submitted again later (Pearmut counts the last one).
"""
from __future__ import annotations

import json
import math
import os

import pandas as pd

from ..core.problems import DataError, Report, name_problem, parse_score, shown
from .appraise import JudgementImport, given_names, refuse_unsupported
from .safejson import JSONProblem, loads
from .text import decode, describe_lines
from .wmt_rules import apply_rules

NAME = "Pearmut annotations (JSONL)"
SPECIAL_PREFIXES = {"welcome_": "tutorial", "random_": "attention", "goodbye_": "goodbye"}
COLUMNS = ["lp", "system", "seg_id", "rater", "judgement", "score", "item_i", "esa_spans_json"]
MAX_LISTED = 20


def _spans_to_esa(spans, text: str | None) -> list[dict]:
    """Pearmut spans (inclusive end; the ``[missing]`` token at index len(text)) as evalcore ESA
    spans (exclusive end; ``"missing"``). Raises ValueError with the reason."""
    if not isinstance(spans, list):
        raise ValueError(f"error_spans is a JSON {type(spans).__name__}, not a list")
    out = []
    for sp in spans:
        if not isinstance(sp, dict):
            raise ValueError("an error span is not an object")
        s, e = sp.get("start_i"), sp.get("end_i")
        if not (isinstance(s, int) and isinstance(e, int)) or isinstance(s, bool) or isinstance(e, bool):
            raise ValueError(f"start_i/end_i {s!r}/{e!r} are not whole numbers")
        if s < 0 or e < s:
            raise ValueError(f"span {s}..{e} runs backwards or below 0")
        missing = text is not None and s == len(text)  # the [missing] token (beyond it: out of range,
        # kept as it is and reported by evalcore.io.spans like any span outside its text)
        out.append({"start_i": "missing" if missing else s, "end_i": "missing" if missing else e + 1,
                    "severity": sp.get("severity"), "error_type": sp.get("category")})
    return out


def _esa_to_spans(spans: list[dict], text: str | None) -> list[dict]:
    """The inverse of :func:`_spans_to_esa`."""
    out = []
    for sp in spans:
        if sp.get("start_i") == "missing":
            if text is None:
                raise ValueError("an omission (\"missing\") can only be written with the output's text "
                                 "(Pearmut places it on the [missing] token after the text)")
            s = e = len(text)
        else:
            s, e = int(sp["start_i"]), int(sp["end_i"]) - 1
        out.append({"start_i": s, "end_i": e, "category": sp.get("error_type"), "severity": sp.get("severity")})
    return out


def _special(item_i) -> str | None:
    if isinstance(item_i, str):
        for prefix, kind in SPECIAL_PREFIXES.items():
            if item_i.startswith(prefix):
                return kind
    return None


def _entries(rec: dict) -> list[tuple[dict, dict]]:
    """(item, annotation) pairs of one line, in either layout. Raises ValueError."""
    ann = rec.get("annotation")
    if "item" in rec:
        items = rec["item"]
        if not isinstance(items, list) or not isinstance(ann, list) or len(items) != len(ann):
            raise ValueError("'item' and 'annotation' must be lists of the same length")
        return list(zip(items, ann))
    if isinstance(ann, dict):  # the older layout: one item, no item record
        return [({"item_id": str(rec.get("item_i", ""))}, ann)]
    raise ValueError("no 'item' list, and 'annotation' is not a {model: ...} object")


def _item(item, ann, user: str, item_i, special: str | None, line: int, problem, rows: list, aside: list,
          texts: dict, sources: dict) -> bool:
    """Add the judgements of one item of a line to ``rows`` (or ``aside``); True when a span was marked."""
    if isinstance(item, dict) and "form" in item:
        aside.append((line, {"rater": user, "item_i": str(item_i), "seg_id": str(item.get("item_id", ""))}, "form"))
        return False
    if ann is None:  # a skipped item carries no annotation
        aside.append((line, {"rater": user, "item_i": str(item_i),
                             "seg_id": str(item.get("item_id", "")) if isinstance(item, dict) else ""}, "unscored"))
        return False
    if not isinstance(item, dict) or not isinstance(ann, dict):
        problem("bad layout", line, "an item or its annotation is not a JSON object")
        return False
    seg = item.get("item_id")
    if seg is None or str(seg).strip() == "":
        problem("no item_id", line, "an item has no item_id; give every item of the campaign an item_id "
                                    "(Pearmut's README: needed to match annotations to segments)")
        return False
    seg = str(seg).strip()
    if name_problem(seg):
        problem("bad names", line, f"item_id {name_problem(seg)}; names may not hold tabs, line breaks or other "
                                   "control characters (they could not be written to judgements.tsv as themselves)")
        return False
    tgt_field = item.get("tgt")
    tgt: dict = tgt_field if isinstance(tgt_field, dict) else {}
    if isinstance(item.get("src"), str):
        sources.setdefault(seg, item["src"])
    kind = special or ("attention" if item.get("validation") else None)
    marked = False
    for model, a in ann.items():
        if not isinstance(a, dict):
            problem("bad layout", line, f"the annotation of model {shown(model)} is not a JSON object")
            continue
        model = model.strip()  # as the tidy loader strips a system name
        if name_problem(model):
            problem("bad names", line, f"model name {name_problem(model)}; names may not hold tabs, line breaks "
                                       "or other control characters (they could not be written to judgements.tsv)")
            continue
        mtext = tgt.get(model) if isinstance(tgt.get(model), str) else None
        if mtext is not None:
            texts.setdefault((str(model), seg), mtext)
        try:
            spans = _spans_to_esa(a.get("error_spans") or [], mtext)
        except ValueError as exc:
            problem("bad error spans", line, f"error spans of model {model!r}, item {seg!r}: {exc}")
            continue
        marked = marked or bool(spans)
        scores = a["sliders"] if isinstance(a.get("sliders"), dict) else {None: a.get("score")}
        for crit, value in scores.items():
            if crit is not None and name_problem(crit.strip()):
                problem("bad names", line, f"slider name {name_problem(crit.strip())}; names may not hold tabs, "
                                           "line breaks or other control characters")
                continue
            crit = crit.strip() if crit is not None else None
            row = {"system": str(model), "seg_id": seg, "rater": user, "item_i": str(item_i), "criterion": crit,
                   "esa_spans_json": json.dumps(spans, ensure_ascii=False)}
            score, why = parse_score(value) if not isinstance(value, str) else (None, f"{shown(value)} is text, "
                                                                                     "not a JSON number")
            if value is None:
                aside.append((line, {**row, "score": math.nan}, kind or "unscored"))
            elif why or score is None:
                problem("bad scores", line, f"score {why} (model {shown(model)}, item {shown(seg)})")
            elif kind:
                aside.append((line, {**row, "score": score}, kind))
            else:
                rows.append((line, {**row, "score": score}))
    return marked


def read_pearmut(data: bytes, name: str = "annotations.jsonl", *, judgement: str | None = None,
                 lp: str | None = None, wmt_filters: bool = False, repeats: str | None = None) -> JudgementImport:
    """Read a Pearmut annotation log (the module docstring has the layout). ``lp``: the
    language pair of every row (Pearmut records none; default empty); ``judgement``: the name
    of the single-score judgements (default ``esa`` when any span was marked, else ``da``);
    ``wmt_filters``, ``repeats``: WMT's filters and the rule for re-ratings
    (:mod:`evalcore.io.wmt_rules`; a document resubmitted by its user is resolved before them,
    as Pearmut counts it). Raises :class:`~evalcore.core.problems.DataError` with every problem at once."""
    report = Report()
    text = decode(data, name, report)
    if text is None:
        raise DataError(report)
    given_names(report, name, lp=lp, judgement=judgement)
    lp = lp or ""
    found: dict[str, list[tuple[int, str]]] = {}
    rows: list = []
    aside: list = []
    texts: dict = {}
    sources: dict = {}
    last_submission: dict[tuple, int] = {}

    def problem(kind: str, line: int, message: str) -> None:
        found.setdefault(kind, []).append((line, message))

    any_spans = False
    for line, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            rec = loads(raw)
        except JSONProblem as exc:
            problem("broken JSON", line, f"is not valid JSON ({str(exc).removeprefix('not valid JSON: ')})")
            continue
        if not isinstance(rec, dict) or not str(rec.get("user_id", "")).strip():
            problem("no user", line, "has no user_id: every line needs the annotator's user_id")
            continue
        if name_problem(str(rec["user_id"]).strip()):
            problem("bad names", line, f"user_id {name_problem(str(rec['user_id']).strip())}; names may not hold "
                                       "tabs, line breaks or other control characters")
            continue
        try:
            entries = _entries(rec)
        except ValueError as exc:
            problem("bad layout", line, f"{exc}; this is not a Pearmut annotation line")
            continue
        user, item_i = str(rec["user_id"]).strip(), rec.get("item_i", "")
        special = _special(item_i)
        last_submission[(user, str(item_i))] = line
        for item, ann in entries:
            any_spans = _item(item, ann, user, item_i, special, line, problem, rows, aside, texts, sources) \
                or any_spans
    for kind, lst in found.items():
        for line, message in lst[:MAX_LISTED]:
            report.error(name, line, message)
        if len(lst) > MAX_LISTED:
            report.error(name, None, f"{len(lst) - MAX_LISTED} more lines with {kind} not listed")
    if not rows and not aside and report.ok:
        report.error(name, None, "holds no annotation lines; a Pearmut annotation log has one JSON line per "
                                 "submitted document ({\"user_id\", \"item\", \"annotation\", ...})")
    if not report.ok:
        raise DataError(report)
    single = judgement or ("esa" if any_spans else "da")
    # a document submitted again by the same user: Pearmut counts the last submission
    kept: list = []
    superseded: list = []
    for line, r in rows:
        (kept if last_submission[(r["rater"], r["item_i"])] == line else superseded).append((line, r))
    aside += [(line, r, "superseded") for line, r in superseded]

    def table(items) -> pd.DataFrame:
        recs = [{**r, "lp": lp, "judgement": r.get("criterion") or single} for _, r, *_ in items]
        df = pd.DataFrame(recs, columns=COLUMNS).astype({"score": float}) if recs else \
            pd.DataFrame(columns=COLUMNS).astype({"score": float})
        if not any_spans:
            df = df.drop(columns=["esa_spans_json"])
        return df

    judgements = table([(ln, r) for ln, r in kept])
    set_aside = table(aside)
    set_aside["item_type"] = [k for _, _, k in aside]
    set_aside["line"] = [ln for ln, _, _ in aside]
    warnings = Report()
    for kind in dict.fromkeys(k for _, _, k in aside):
        ls = sorted({ln for ln, _, k in aside if k == kind})
        warnings.warning(name, ls[0], f"{sum(1 for *_, k in aside if k == kind)} annotation(s) of kind {kind} "
                                      f"({describe_lines(ls)}) are set aside, not counted as segment scores")
    imp = JudgementImport(judgements, set_aside, list(warnings.problems), name, [ln for ln, _ in kept])
    imp.texts = pd.DataFrame([{"lp": lp, "system": s, "seg_id": g, "text": t} for (s, g), t in texts.items()],
                             columns=["lp", "system", "seg_id", "text"])
    imp.sources = pd.DataFrame([{"lp": lp, "seg_id": g, "source": t} for g, t in sources.items()],
                               columns=["lp", "seg_id", "source"])
    return apply_rules(imp, wmt_filters=wmt_filters, repeats=repeats)


def read_pearmut_file(path: str | os.PathLike, **kw) -> JudgementImport:
    with open(path, "rb") as fh:
        data = fh.read()
    return read_pearmut(data, os.path.basename(str(path)), **kw)


def pearmut_jsonl(judgements: pd.DataFrame, texts: pd.DataFrame | None = None,
                  sources: pd.DataFrame | None = None) -> str:
    """``judgements`` as Pearmut annotation lines: one line per (rater, ``item_i``) (or per
    (rater, seg_id) without an ``item_i`` column), each item with every system that rater scored
    on it. ``texts`` (system, seg_id, text) and ``sources`` (seg_id, source) fill ``tgt`` and
    ``src`` (empty without them; an omission span needs the text). Single-score judgements only:
    the table must hold one kind of judgement, and not relative ranking nor MQM-lite
    (:func:`~evalcore.io.appraise.refuse_unsupported`)."""
    refuse_unsupported(judgements, NAME)
    kinds = list(dict.fromkeys(judgements["judgement"]))
    if len(kinds) > 1:
        raise ValueError(f"Pearmut lines hold one score per output; the table has several judgements "
                         f"({', '.join(kinds)}): write one at a time")
    tmap = {} if texts is None else {(str(s), str(g)): t for s, g, t in texts[["system", "seg_id", "text"]].itertuples(index=False)}
    smap = {} if sources is None else dict(zip(sources["seg_id"].astype(str), sources["source"]))
    group = "item_i" if "item_i" in judgements else "seg_id"
    lines: list[str] = []
    for (rater, gid), sub in judgements.groupby(["rater", group], sort=False):
        items, anns = [], []
        for seg, s2 in sub.groupby("seg_id", sort=False):
            tgt, ann = {}, {}
            for r in s2.to_dict("records"):
                text = tmap.get((str(r["system"]), str(seg)))
                tgt[r["system"]] = text if text is not None else ""
                spans = json.loads(r["esa_spans_json"]) if isinstance(r.get("esa_spans_json"), str) and \
                    r["esa_spans_json"].strip() else []
                score = float(r["score"])
                ann[r["system"]] = {"score": int(score) if score.is_integer() else score,
                                    "error_spans": _esa_to_spans(spans, text), "textfield": None}
            item = {"item_id": str(seg), "tgt": tgt}
            if str(seg) in smap:
                item["src"] = smap[str(seg)]
            items.append(item)
            anns.append(ann)
        item_i = int(str(gid)) if group == "item_i" and str(gid).isdigit() else gid if group == "item_i" else len(lines)
        lines.append(json.dumps({"user_id": rater, "item_i": item_i, "item": items, "annotation": anns},
                                ensure_ascii=False))
    return "".join(ln + "\n" for ln in lines)
