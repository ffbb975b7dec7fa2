"""Query fields a view function needs set.

A page query keeps optional fields (a criterion, a signal, a segment) as ``None`` until the user
picks one; the view functions that read such a field state that it must be set, so a query
that reaches them without it fails with a message naming the query and the field instead of
scoring, plotting or looking up ``None``."""
from __future__ import annotations


def required(query: object, field: str) -> str:
    """``query.<field>`` (a string field of a page query), which must be set (not None)."""
    value = getattr(query, field)
    if value is None:
        raise ValueError(f"{type(query).__name__}.{field} is not set: this view needs one")
    return value
