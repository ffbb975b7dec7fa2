"""The verdicts a page states first (methods §21): its query and view-model.

One primary answer per question, computed by one declared recipe
(:mod:`evalcore.analysis.verdict`), with every other view of the same question labelled as an
alternative and the reason it differs. The Systems page answers "which system is best", the
Compare page "does B beat A", the Metrics task page "which metric is best"; the commands
(``rank``, ``compare``, ``metatask``, ``correlate``) print the same sentence as their
``verdict:`` line, and the evaluation card carries it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import verdict as V
from ..core.dataset import Dataset
from .fields import required
from .queries import Query


@dataclass(frozen=True)
class VerdictQuery(Query):
    """The dataset, the shared settings (human translations in or out), the human criterion the
    answer is read from and, for "does B beat A", the two systems."""

    criterion: str | None = None
    a: str = ""
    b: str = ""
    context: str = ""  # the key of a table handed in with the dataset (the Compare headline's query)


def best_system(dataset: Dataset, q: VerdictQuery) -> V.Verdict:
    """"Which system is best" (:func:`evalcore.analysis.verdict.best_system`): the recipe's first
    system under the query's settings, as ``rank`` prints it."""
    return V.best_system(dataset, required(q, "criterion"), q.settings)


def b_beats_a(dataset_and_headline: tuple, q: VerdictQuery) -> V.Verdict:
    """"Does B beat A" (:func:`evalcore.analysis.verdict.a_beats_b`) of ``(dataset, headline or
    None)``, as ``compare`` prints it: each headline signal that picks another winner is an
    alternative (``q.context`` names the headline's query: part of the cache key)."""
    dataset, headline = dataset_and_headline
    return V.a_beats_b(dataset, q.a, q.b, required(q, "criterion"), headline=headline)


def evidence_text(verdict: V.Verdict) -> str:
    """The recipe and the evidence numbers of a verdict, as one line (plain text)."""
    ev = "; ".join(f"{k.replace('_', ' ')} {_num(v)}" for k, v in verdict.evidence.items()
                   if not isinstance(v, (list, tuple, dict)))
    return f"Recipe: {verdict.recipe}." + (f" Evidence: {ev}." if ev else "")


def _num(v) -> str:
    if isinstance(v, float):
        return "undefined" if v != v else (f"{v:.3g}" if abs(v) < 1e-3 else f"{v:.4g}")
    return str(v)
