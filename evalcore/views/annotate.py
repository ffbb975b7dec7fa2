"""Annotate page: what one task shows (source, references, the output with the student's error
spans marked), built from escaped text only. The rules (assignment, QC, saving) are
:mod:`evalcore.analysis.annotate`. Nothing here imports streamlit."""
from __future__ import annotations

from typing import Sequence

import pandas as pd

from ..analysis.annotate import RankTask, Task, unit_offsets
from ..core.dataset import Dataset
from ..present.highlight import box, char_spans_html, escape


def task_context(dataset: Dataset, task: Task, show_reference: bool) -> dict:
    """``source`` (text), ``references`` [(ref_id, text)] (empty unless ``show_reference``),
    ``output`` (the text to judge: the output, or its degraded copy) and ``words`` (its clickable
    units, for choosing a span: words, or single characters in scripts written without spaces;
    :func:`evalcore.analysis.text_units.mark_units`)."""
    pos = {str(s): i for i, s in enumerate(dataset.seg_ids)}
    i = pos[str(task.seg_id)]
    refs = []
    if show_reference:
        texts = dataset.ref_texts()
        refs = [(r, t) for r in dataset.ref_ids if isinstance(t := texts[r][i], str) and t.strip()]
    return {"source": str(dataset.segments["source"].iloc[i]), "references": refs, "output": task.text,
            "words": [task.text[a:b] for a, b in unit_offsets(task.text)]}


def rank_context(dataset: Dataset, task: RankTask, show_reference: bool) -> dict:
    """As :func:`task_context` for a ranking screen: ``source``, ``references``; the outputs are
    ``task.texts`` (shown without their systems' names)."""
    return {k: v for k, v in task_context(dataset, Task("item", task.systems[0], task.seg_id, task.texts[0]),
                                          show_reference).items() if k in ("source", "references")}


def output_html(text: str, spans: Sequence[dict], label: str = "Translation to judge",
                pending: dict | None = None) -> str:
    """The output in a box with the ESA spans marked by severity (escaped text;
    :func:`evalcore.present.highlight.char_spans_html`) and, ``pending``, the words being chosen
    (not added yet) marked apart."""
    marks = [(sp["start_i"], sp["end_i"], sp["severity"],
              f"{sp['severity']} error" + (f" ({sp['category']})" if sp.get("category") else ""))
             for sp in spans if isinstance(sp.get("start_i"), int)]
    if pending is not None:
        marks.append((pending["start_i"], pending["end_i"], "selected", "chosen, not added yet"))
    return box(label, char_spans_html(text, marks))


def spans_table(text: str, spans: Sequence[dict]) -> pd.DataFrame:
    """One row per span: words (1-based, as chosen), the marked text, severity."""
    off = unit_offsets(text)
    rows = []
    for sp in spans:
        a, b = sp["start_i"], sp["end_i"]
        first = next((k for k, (x, _) in enumerate(off) if x == a), None)
        last = next((k for k, (_, y) in enumerate(off) if y == b), None)
        rows.append({"words": f"{first + 1}–{last + 1}" if first is not None and last is not None else f"{a}–{b}",
                     "text": text[a:b], "severity": sp["severity"], "category": sp.get("category")})
    cols = ["words", "text", "severity"] + (["category"] if any(sp.get("category") for sp in spans) else [])
    return pd.DataFrame(rows, columns=cols)


def word_label(words: Sequence[str], i: int) -> str:
    """A slider label: the word's number and the word (plain text)."""
    return f"{i + 1} · {words[i]}"


def source_html(text: str) -> str:
    return box("Source", escape(text))
