"""The in-memory memos of evalcore, in one registry: every one bounded, all cleared by
:func:`clear_caches`.

The lexical metrics memoise blocks they share (token ids, BLEU's n-gram layers, chrF's character
statistics, GTM runs, NIST and character n-gram overlaps, chunk plans, NIST's fitted weights)
and a few pure functions (TER's pair edits, GTM's greedy runs of a pair, ROUGE's skip-bigram
index pairs). The layers above register theirs here too: the BEER features of a pair and the
Catalan numbers (learned/), loaded learned models (learned/store.py), model content hashes
(neural/models.py), syntax availability per dataset and the last QUEEN indexes (scoring/), the
Playground's starting scores (views/). Each is created here with a name and a maximum number of
entries (:func:`bounded_cache` for dict memos, :func:`lru_memo` for functions), so none grows
without limit and one call forgets them all (benchmarks, long-running servers, tests).

Not here, on purpose: loaded neural models (``neural.backend.release`` frees them and the GPU
memory), the syntax caches (bounded in bytes, invalidated by parse-provider generation:
``syntax.metrics``), and a few process constants (tokenizer objects by name, glibc's
``malloc_trim``).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar, cast

_REGISTRY: dict[str, BoundedCache | functools._lru_cache_wrapper] = {}  # dicts or functools.lru_cache


class BoundedCache(dict):
    """A dict holding at most ``max_entries`` items: storing a new key in a full cache first drops
    the oldest entry (first in, first out). Reads are plain dict reads."""

    def __init__(self, name: str, max_entries: int):
        super().__init__()
        if max_entries < 1:
            raise ValueError(f"cache {name!r}: max_entries must be at least 1")
        self.name, self.max_entries = name, int(max_entries)

    def __setitem__(self, key, value) -> None:
        if key not in self:
            while len(self) >= self.max_entries:
                self.pop(next(iter(self)))
        super().__setitem__(key, value)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kw) -> None:
        for k, v in dict(*args, **kw).items():
            self[k] = v


def _register(name: str, cache: BoundedCache | functools._lru_cache_wrapper) -> None:
    _REGISTRY[name] = cache  # (a reloaded module replaces its own entry)


def bounded_cache(name: str, max_entries: int) -> BoundedCache:
    """A new registered :class:`BoundedCache` (one per module-level memo)."""
    cache = BoundedCache(name, max_entries)
    _register(name, cache)
    return cache


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def lru_memo(name: str, maxsize: int) -> Callable[[_Fn], _Fn]:
    """``functools.lru_cache(maxsize)`` on a pure function, registered under ``name`` (the
    in-process memo; not :func:`evalcore.scoring.scores.disk_cached`, the on-disk one, nor the
    dashboard's per-view ``pages.common.cached``)."""

    def wrap(fn: _Fn) -> _Fn:
        out = functools.lru_cache(maxsize=maxsize)(fn)
        _register(name, out)
        return cast(_Fn, out)  # called as the function it wraps (the registry keeps the cache)

    return wrap


def clear_caches() -> None:
    """Forget every registered memo of the metrics layer (values are recomputed on demand)."""
    for cache in _REGISTRY.values():
        if isinstance(cache, dict):
            cache.clear()
        else:
            cache.cache_clear()


def cache_sizes() -> dict[str, tuple[int, int | None]]:
    """``{name: (entries held, maximum)}`` of every registered memo."""
    out: dict[str, tuple[int, int | None]] = {}
    for name, cache in _REGISTRY.items():
        if isinstance(cache, BoundedCache):
            out[name] = (len(cache), cache.max_entries)
        else:
            info = cache.cache_info()
            out[name] = (info.currsize, info.maxsize)
    return out
