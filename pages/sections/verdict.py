"""The verdict box a page shows first: one primary answer in one sentence, its recipe and
evidence, and each alternative view with the reason it differs (evalcore.views.verdict).
Layout only."""
from __future__ import annotations

import streamlit as st

from evalcore.views import verdict as verdict_view
from pages.common import cached, md, show_exception


def show(verdict, title: str, container=None) -> None:
    """Draw ``verdict`` (an :class:`evalcore.analysis.verdict.Verdict`) in ``container``."""
    box = container if container is not None else st.container()
    box.success(f"**{md(title)}** {md(verdict.sentence)}")
    box.caption(md(verdict_view.evidence_text(verdict)))
    differ = [a for a in verdict.alternatives if not a.agrees]
    same = [a for a in verdict.alternatives if a.agrees]
    if differ:
        box.markdown("**Alternatives that answer differently** (not the answer; why they differ):\n"
                     + "\n".join(f"- {md(a.text())}" for a in differ))
    if same:
        box.caption("Agreeing views: " + md("; ".join(a.text() for a in same)) + ".")
    for n in verdict.notes:
        box.caption(md(n))


def _answer(view_fn, query, data, what: str, title: str, container) -> None:
    """Compute a verdict through the page cache and show it; a question the data cannot answer
    (too few systems or judgements) says why instead, and the page goes on."""
    try:
        v = cached(view_fn, query, data)
    except ValueError as exc:
        (container or st).info(f"No verdict on {md(what)}: {md(str(exc))}")
        return
    except Exception as exc:
        show_exception(exc, f"No verdict on {what}")
        return
    show(v, title, container)


def best_system(ds, settings, criterion: str | None, container=None) -> None:
    """The Systems page's verdict: which system is best by ``criterion``'s human judgements."""
    if criterion and criterion in ds.criteria:
        _answer(verdict_view.best_system, verdict_view.VerdictQuery(ds.content_hash(), settings, criterion), ds,
                "the best system", "Best system:", container)


def b_beats_a(ds, settings, a: str, b: str, criterion: str | None, headline=None, context: str = "",
              container=None) -> None:
    """The Compare page's verdict: does B beat A by ``criterion``'s human judgements (the
    ``headline`` table's signals that pick another winner are its alternatives; ``context``: the
    headline's query, part of the cache key)."""
    if criterion and criterion in ds.criteria and a and b and a != b:
        _answer(verdict_view.b_beats_a, verdict_view.VerdictQuery(ds.content_hash(), settings, criterion, a, b, context),
                (ds, headline), "A against B", "Does B beat A?", container)
