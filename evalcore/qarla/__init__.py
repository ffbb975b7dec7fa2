"""QARLA meta-evaluation of similarity metrics: ORANGE, KING, QUEEN, metric-set search.

Spec: docs/methods.md §0.2-0.5, §1, §2 (Amigó et al. 2006: Amigó, Giménez, Gonzalo &
Màrquez 2006, §2-3). Everything consumes :class:`evalcore.metrics.base.SimTensors`
(oriented similarities; NaN = missing) and is pure numpy.

* :func:`orange_king` — ORANGE / KING of one metric (§1.1) with tie modes, micro/macro,
  random, permutation and Monte-Carlo baselines, tie rates, bootstrap CIs, Lin & Och's ORANGE (§2).
* :func:`queen`, :func:`king_of_set`, :class:`QueenIndex` — QUEEN of a metric set (§1.2) and
  KING of a set (§1.3), local / pooled / auto triples.
* :func:`greedy_search`, :func:`exhaustive_search` — metric-set selection (§0.5, §1.4).
* :func:`king_cases`, :func:`king_case_summary`, :func:`queen_triples` — explanations.
"""
from .explain import king_case_summary, king_cases, queen_triples
from .queen import (MODES, QUEEN_TIES, QueenBits, QueenIndex, QueenLayout, QueenValues, build_bits,
                    king_of_set, queen, reduce_bits)
from .search import SearchResult, coverage, exhaustive_search, greedy_search, text_presence
from .single import (AVERAGES, TIES, OrangeKing, case_stats, king_credit, orange_credit, orange_king,
                     orange_king_arrays, orange_lin_och)
from .util import subset_segments

__all__ = [
    "coverage", "text_presence",
    "AVERAGES", "TIES", "MODES", "QUEEN_TIES", "OrangeKing", "QueenBits", "QueenIndex", "QueenLayout",
    "QueenValues", "SearchResult", "build_bits", "case_stats", "exhaustive_search", "greedy_search",
    "king_case_summary", "king_cases", "king_credit", "king_of_set", "orange_credit", "orange_king",
    "orange_king_arrays", "orange_lin_och", "queen", "queen_triples", "reduce_bits", "subset_segments",
]
