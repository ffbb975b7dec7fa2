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


def best_system(ds, settings, criterion: str | None, container=None) -> None:
    """The Systems page's verdict: which system is best by ``criterion``'s human judgements."""
    if not criterion or criterion not in ds.criteria:
        return
    try:
        v = cached(verdict_view.best_system, verdict_view.VerdictQuery(ds.content_hash(), settings, criterion), ds)
    except ValueError as exc:  # too few systems or judgements: say why there is no answer
        (container or st).info(f"No verdict on the best system: {md(str(exc))}")
        return
    except Exception as exc:
        show_exception(exc, "No verdict on the best system")
        return
    show(v, "Best system:", container)


def b_beats_a(ds, settings, a: str, b: str, criterion: str | None, headline=None, context: str = "",
              container=None) -> None:
    """The Compare page's verdict: does B beat A by ``criterion``'s human judgements (the
    ``headline`` table's signals that pick another winner are its alternatives; ``context``: the
    headline's query, part of the cache key)."""
    if not criterion or criterion not in ds.criteria or not a or not b or a == b:
        return
    try:
        v = cached(verdict_view.b_beats_a,
                   verdict_view.VerdictQuery(ds.content_hash(), settings, criterion, a, b, context), (ds, headline))
    except ValueError as exc:
        (container or st).info(f"No verdict on A against B: {md(str(exc))}")
        return
    except Exception as exc:
        show_exception(exc, "No verdict on A against B")
        return
    show(v, "Does B beat A?", container)
