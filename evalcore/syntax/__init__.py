"""Syntactic similarity families TREE-X, GRAM-X, LEVEL-X and shallow-syntax metrics
(methods §1.5; Amigó et al. 2006 §3.2).

Importing this package registers the metrics (``tree``, ``tree-nsubj``, ``gram``,
``gram-noun``, ``gramf-nn``, ``level``, ``level-3``, ``sp-pos-p2``, ``sp-lemma``,
``sp-chunk``, ...) and is cheap: spaCy is imported and its model loaded only when a text
first needs parsing.

Typical use::

    from evalcore import syntax
    ok, reason = syntax.availability(dataset)      # never silently zero
    if ok:
        syntax.prepare(dataset, progress=cb)       # parse every text once, batched, cached
        get_metric("tree").segment_block(cands, refs)

Uploaded parses: ``syntax.register_conllu(dataset, [(bytes_or_path, name), ...])``.
"""
from .parsing import (Parse, ParseCache, ParseProvider, SpacyParser, SyntaxUnavailable,
                      cache_root, find_spacy_model, get_provider, set_provider)
from .conllu import (ConlluSentence, align_conllu, read_conllu, register_by_text,
                     register_conllu, write_conllu)
from .metrics import (SYNTAX_METRIC_IDS, SyntaxMetric, clear_caches, family_items,
                      is_syntactic, noun_chunks, present_metric_ids)
from .service import availability, dataset_texts, prepare, target_language

__all__ = [
    "Parse", "ParseCache", "ParseProvider", "SpacyParser", "SyntaxUnavailable", "cache_root",
    "find_spacy_model", "get_provider", "set_provider",
    "ConlluSentence", "align_conllu", "read_conllu", "register_by_text", "register_conllu", "write_conllu",
    "SYNTAX_METRIC_IDS", "SyntaxMetric", "clear_caches", "family_items", "is_syntactic", "noun_chunks",
    "availability", "dataset_texts", "prepare", "present_metric_ids", "target_language",
]
