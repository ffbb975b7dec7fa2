"""Whether a metric can run on a dataset, and why not (the pages offer, and the tables keep,
only the metrics that can).

A metric cannot run on a language pair when it needs something the data or the installation
does not have: the syntactic metrics (``tree-*``, ``sp-*``, …; methods §1.5) need a parse of
every text, which only uploaded CoNLL-U parses or a parser for the target language give
(:func:`evalcore.scoring.defaults.syntax_status`: spaCy's English model only, so not Hindi);
every text metric needs system outputs and references; a word-level metric needs its tokenizer
(``ja-mecab``/``ko-mecab`` need MeCab); an unknown id cannot run anywhere. :func:`status` says it
for one metric, :func:`runnable` splits a list, and :func:`left_out_note` is the one note a
table carries for the metrics it left out. Nothing here imports streamlit.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from ..core.dataset import Dataset


def status(dataset: Dataset, metric_id: str, tokenize: str | None = None) -> tuple[bool, str]:
    """(can run, the reason when not) for ``metric_id`` on ``dataset``."""
    from ..metrics.base import get_metric, metric_ids
    from ..syntax import is_syntactic
    from .defaults import page_tokenizer, syntax_status

    if metric_id.lower() not in set(metric_ids()):
        return False, "unknown metric id"
    if is_syntactic(metric_id):
        ok, why = syntax_status(dataset)
        if not ok:
            return False, f"a syntactic metric needs a parse of every text: {why}"
    try:
        metric = get_metric(metric_id, page_tokenizer(dataset, tokenize))
    except Exception as exc:  # e.g. a tokenizer whose package is missing
        return False, f"cannot be set up here ({exc})"
    if metric.meta.needs_text and (not len(dataset.outputs) or not len(dataset.references)):
        return False, "needs system outputs and references, and the data has " + (
            "no references" if not len(dataset.references) else "no system outputs")
    return True, ""


def runnable(dataset: Dataset, metric_ids: Iterable[str],
             tokenize: str | None = None) -> tuple[list[str], list[tuple[str, str]]]:
    """(the ids that can run on ``dataset``, in order; (id, reason) of those that cannot)."""
    keep, left = [], []
    for m in metric_ids:
        ok, why = status(dataset, m, tokenize)
        (keep.append(m) if ok else left.append((m, why)))
    return keep, left


def left_out_note(left: Sequence[tuple[str, str]], where: str = "") -> str:
    """One note naming every metric left out of a table and why ('' when none)."""
    if not left:
        return ""
    at = f" for {where}" if where else ""
    return f"left out{at} (cannot run here): " + "; ".join(f"{m}: {why}" for m, why in left)


def score_isolated(score, metric_ids: Sequence[str]):
    """``score(ids) -> table`` (a DataFrame, or a dict keyed by metric) for every id at once;
    when that fails, once per id, so that one metric that fails never fails the whole table.
    Returns (the table of the ids that scored or None, [(id, reason)] of those that failed)."""
    import pandas as pd

    ids = list(metric_ids)
    try:
        return score(ids), []
    except Exception as exc:  # one of them failed: find which, keep the others
        if len(ids) == 1:
            return None, [(ids[0], f"failed: {type(exc).__name__}: {exc}")]
    parts, failed = [], []
    for m in ids:
        try:
            parts.append(score([m]))
        except Exception as exc:
            failed.append((m, f"failed: {type(exc).__name__}: {exc}"))
    if parts and isinstance(parts[0], dict):  # metric -> ... mappings (system statistics)
        return {k: v for part in parts for k, v in part.items()}, failed
    return (pd.concat(parts, ignore_index=True) if parts else None), failed


def offered(datasets: Iterable[Dataset]) -> list[str]:
    """The registered metric ids a page offers for ``datasets`` (the language pairs it will
    score): those that can run on every one (:func:`evalcore.scoring.defaults.available_metrics`
    per dataset; e.g. no ``tree-*`` when one pair's target language has no parser)."""
    from .defaults import available_metrics

    sets = [available_metrics(d) for d in datasets]
    if not sets:
        return available_metrics()
    common = set(sets[0]).intersection(*map(set, sets[1:]))
    return [m for m in sets[0] if m in common]
