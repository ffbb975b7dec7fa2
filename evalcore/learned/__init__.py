"""Learned metrics (issue 7): a BEER-style trained ranker (seed 002, spec §6.1) and a
human-vs-machine classifier (seed 004). Nothing here imports streamlit.

Modules: :mod:`.pet` (permutation trees), :mod:`.features` (feature extraction),
:mod:`.funcwords`, :mod:`.beer`, :mod:`.humanlike`, :mod:`.evaluate` (held-out comparison
with sentence BLEU / chrF), :mod:`.store` (saving, loading, ``learned:NAME`` metrics).
"""
from .beer import beer_scores, train_beer, weights_table
from .evaluate import baseline_scorers, compare_metrics, split_segments
from .features import BEER_FEATURES, HUMANLIKE_FEATURES, beer_features, humanlike_features
from .humanlike import HumanlikeReport, build_examples, train_humanlike
from .pet import canonical_pet, collapse, count_pets, kendall, pet_count_feature, pet_features
from .store import LearnedMetric, LearnedModel, list_models, load_model, models_dir, save_model

__all__ = ["beer_scores", "train_beer", "weights_table", "baseline_scorers", "compare_metrics", "split_segments",
           "BEER_FEATURES", "HUMANLIKE_FEATURES", "beer_features", "humanlike_features", "HumanlikeReport",
           "build_examples", "train_humanlike", "canonical_pet", "collapse", "count_pets", "kendall",
           "pet_count_feature", "pet_features", "LearnedMetric", "LearnedModel", "list_models", "load_model",
           "models_dir", "save_model"]
