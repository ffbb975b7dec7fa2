"""Learned metrics: a BEER-style trained ranker (Stanojević & Sima'an 2015, methods §6.1) and a
human-vs-machine classifier (Kulesza 2004). Nothing here imports streamlit.

Modules: :mod:`.pet` (permutation trees), :mod:`.features` (feature extraction),
:mod:`.funcwords`, :mod:`.beer`, :mod:`.humanlike`, :mod:`.evaluate` (held-out comparison
with sentence BLEU / chrF), :mod:`.pipeline` (train + inspect + compare, for the dashboard),
:mod:`.store` (saving, loading, ``learned:NAME`` metrics).

The names below are imported lazily (PEP 562), so that ``evalcore.learned.store`` — which
the metric registry imports to list saved models — does not pull in pandas and scipy.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "beer": ["beer_scores", "train_beer", "weights_table"],
    "evaluate": ["baseline_scorers", "compare_metrics", "split_segments"],
    "features": ["BEER_FEATURES", "HUMANLIKE_FEATURES", "beer_features", "humanlike_features"],
    "humanlike": ["HumanlikeReport", "build_examples", "train_humanlike", "permutation_importance", "roc_curves"],
    "pet": ["canonical_pet", "collapse", "count_pets", "kendall", "pet_count_feature", "pet_features"],
    "pipeline": ["LearnedRun", "train_and_compare"],
    "store": ["LearnedMetric", "LearnedModel", "delete_model", "list_models", "load_model", "models_dir",
              "register_all", "save_model"],
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
