"""The base of every page query: what a page asks its view-model, as a small frozen dataclass.

Each page is a vertical slice: its view module (``evalcore/views/<page>.py``) owns its query class
(a subclass of :class:`Query`) and the view-model functions that take ``(data, query)``; the page
file under ``pages/`` only lays out, calling them through ``pages.common.cached(view_fn, query,
data)``. There is no central hub: this module holds only what every query shares.

A query holds the dataset's content hash (``dataset``), the shared analysis settings
(``settings``: one :class:`evalcore.scoring.settings.Settings`, the one carrier of the tokenizer,
judged-only, references, human translations in or out, orientation and rater aggregation) and
every option of the page's own (metric ids, criterion, normalisation, ...). Being frozen and made
of plain values (str, int, float, bool, None, tuples of them and frozen dataclasses of them), a
query is hashable and has a stable ``repr``: it is the page's cache key, keyed by the view
function's name and the query only; ``data`` (the dataset, or a table computed for the same
query) is the unhashed input. Nothing here imports streamlit.

Adding a page (docs/architecture.md, "Add a page"): the page file, its view module (query class
with :func:`check_query` passing, and its view-model functions), one entry in
``pages/registry.py``, and its test.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..core.dataset import Dataset
from ..scoring.settings import DEFAULTS, Settings

_PLAIN = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # e.g. the shared Settings
        return value.__dataclass_params__.frozen and all(  # type: ignore[attr-defined]
            _plain(getattr(value, f.name)) for f in dataclasses.fields(value))
    return isinstance(value, _PLAIN)


def check_query(query: Any) -> Any:
    """``query`` if it is a frozen dataclass of plain values (hashable, with a stable ``repr``:
    usable as a cache key), else a ``TypeError`` naming the offending field."""
    if not dataclasses.is_dataclass(query) or isinstance(query, type):
        raise TypeError(f"a page query must be a dataclass instance, not {type(query).__name__}")
    if not query.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{type(query).__name__} must be frozen (it is a cache key)")
    for f in dataclasses.fields(query):
        if not _plain(getattr(query, f.name)):
            raise TypeError(f"{type(query).__name__}.{f.name} must be a str, number, bool, None or a tuple of "
                            f"them (a cache key), not {type(getattr(query, f.name)).__name__}")
    hash(query)
    return query


def query_key(query: Any) -> str:
    """The cache key text of a query: its ``repr`` (class name and every field, in order)."""
    return repr(check_query(query))


@dataclass(frozen=True)
class Query:
    """What every page query holds: the dataset (content hash) and the shared settings."""
    dataset: str
    settings: Settings = DEFAULTS

    @property
    def tokenize(self) -> str | None:
        """The tokenizer of the word-level metrics (``settings.tokenizer``; None: the metrics' own
        default), read where a view passes it down to the metric layer."""
        return self.settings.tokenizer


def dataset_query(dataset: Dataset, settings: Settings = DEFAULTS) -> Query:
    return Query(dataset.content_hash(), settings)


def check_data(data: Any, query: Any) -> None:
    """A dataset handed in with a query must be the one the query names (its content hash)."""
    if isinstance(data, Dataset) and getattr(query, "dataset", None) not in (None, data.content_hash()):
        raise ValueError(f"{type(query).__name__} names dataset {query.dataset!r}, but another dataset was passed")


def collection_key(collection: dict, lps) -> str:
    """The ``dataset`` of a query over several language pairs: their content hashes, in order."""
    return "|".join(collection[lp].content_hash() for lp in lps)


