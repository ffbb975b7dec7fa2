"""The metrics layer's in-memory memos: one registry, every memo bounded, one function clears them."""
from __future__ import annotations

import functools
import importlib
import pkgutil

import pytest

import evalcore.metrics as metrics_pkg
from evalcore.metrics import _caches
from evalcore.metrics._caches import BoundedCache, cache_sizes, clear_caches


def test_bounded_cache_drops_the_oldest_entry_first():
    c = BoundedCache("t", 3)
    for k in "abcd":
        c[k] = k.upper()
    assert list(c) == ["b", "c", "d"] and len(c) == 3
    c["b"] = "again"  # replacing a key keeps the others
    assert list(c) == ["b", "c", "d"] and c["b"] == "again"
    c.setdefault("e", "E")
    c.update({"f": "F"})
    assert list(c) == ["d", "e", "f"]
    with pytest.raises(ValueError):
        BoundedCache("t", 0)


def test_every_module_memo_is_registered_and_bounded():
    """A module-level dict memo or lru_cache in evalcore.metrics must come from the registry
    (bounded_cache / cached) with a finite size: an unbounded one added later fails here."""
    mods = [(info.name, importlib.import_module(info.name))
            for info in pkgutil.walk_packages(metrics_pkg.__path__, "evalcore.metrics.")]  # kernels/ too
    registered = {id(c) for c in _caches._REGISTRY.values()}
    for modname, mod in mods:
        for name, value in vars(mod).items():
            if isinstance(value, dict) and any(w in name.upper() for w in ("CACHE", "MEMO")) \
                    or isinstance(value, dict) and name == "_WORD_13A":
                assert isinstance(value, BoundedCache) and id(value) in registered, f"{modname}.{name}"
            if isinstance(value, functools._lru_cache_wrapper) and value.cache_info().maxsize != 0:
                if name == "_load":  # tokenizer objects by name (a handful), not data
                    continue
                assert id(value) in registered and value.cache_info().maxsize is not None, f"{modname}.{name}"
    assert all(mx <= 1 << 20 for _, mx in cache_sizes().values())


def test_clear_caches_empties_every_memo():
    from evalcore.metrics.base import get_metric
    from evalcore.metrics.engine import clear_block_caches

    for mid in ("bleu", "chrf", "ter", "gtm-2", "nist-2", "rouge-s*", "charngram-f3"):
        m = get_metric(mid)
        m.segment_block(["a b c d e", "b c d"], ["a b c", "c d e f"])
        m.sentence_score("a b c d", ["a c b d"])
    assert sum(n for n, _ in cache_sizes().values()) > 0
    clear_block_caches()
    assert all(n == 0 for n, _ in cache_sizes().values()), cache_sizes()
    clear_caches()


def test_every_evalcore_memo_is_in_the_registry():
    """Above the metrics layer too: every module-level lru_cache of evalcore is a registered,
    bounded memo (the two process constants excepted), and so are the dict memos of the layers
    above (learned models, model content hashes, syntax availability, QUEEN indexes)."""
    import evalcore

    constants = {("evalcore.metrics.tokenize", "_load"), ("evalcore.scoring.parallel", "_malloc_trim")}
    found = {}
    for info in pkgutil.walk_packages(evalcore.__path__, "evalcore."):
        mod = importlib.import_module(info.name)
        for name, value in vars(mod).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == info.name \
                    and (info.name, name) not in constants:
                found[f"{info.name}.{name}"] = value
    registered = {id(c) for c in _caches._REGISTRY.values()}  # every module imported now
    for name, value in found.items():
        assert id(value) in registered and value.cache_info().maxsize is not None, name
    seen = list(found)
    assert "evalcore.learned.features._beer_features_cached" in seen and "evalcore.views.playground._start_score" in seen
    from evalcore.learned import store
    from evalcore.neural import models
    from evalcore.scoring import defaults, scores

    for label, memo in (("learned.store._CACHE", store._CACHE), ("neural.models._HASHES", models._HASHES),
                        ("scoring.defaults._SYNTAX_STATUS", defaults._SYNTAX_STATUS),
                        ("scoring.scores._INDEX_CACHE", scores._INDEX_CACHE)):
        assert isinstance(memo, BoundedCache) and id(memo) in registered, label
